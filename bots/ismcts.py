"""The ``ismcts`` bot: determinized search over worlds sampled from the role belief and the
hand model.

On a turn of play with a real choice, the bot takes the heuristic's best few moves as
candidates (``candidates``; one pass at most) and spends its budget of ``playouts`` on
sampled worlds: each world is a whole state consistent with its view
(``saboteur_p2p.rules.determinize``, roles drawn from the ``RoleBelief`` posterior; in the
base game, with ``hands``, the other hands dealt and the roles tilted by ``HandModel``,
which reads what each player kept from the plays it made instead), and in
each world every candidate is played once, followed by heuristic players (one per seat, told
every public event of the real game) for at most ``cutoff`` turns or until the round ends.
The playout players are forks of those (``BaseGameHeuristic.fork``) and hear the playout's
events too, so they react to the move tried as the table would: a saboteur's open block
raises their suspicion and draws broken tools in the playout as it would in the game.
Every candidate meets the same worlds and the same random numbers of the playout players
(common random numbers), so the comparison between candidates is paired.  A finished round
scores what this seat's side won (1 for a win; Saboteur 2: the pieces won, over 5); a round
cut off is scored by ``round_outlook``, the chance that the gold-diggers get through in the
world as it stands.  The candidate with the best mean is played if it beats the heuristic's own choice, in the same worlds, by
more than ``margin`` on average; otherwise the heuristic's choice is.

The choices depend only on the seed and what the bot is told, so a game replays exactly,
unless ``time`` (seconds per turn) cuts a search short.  Other phases (gold, stones, thefts)
and forced moves are the heuristic's, and so is a gold-digger's every move with ``diggers``
false.
"""
from __future__ import annotations

import math
import random
import time as clock
from collections.abc import Sequence

from saboteur_p2p.botapi import BaseBot
from saboteur_p2p.rules import (
    GOAL_CELLS,
    AnyAction,
    CardPlayed,
    Deck,
    Event,
    GameConfig,
    HandWeights,
    Pass,
    PathKind,
    Phase,
    PiecesWon,
    PlayerView,
    Role,
    RoundEnded,
    State,
    Winners,
    determinize,
)

from .belief import BLOCKING, DIGGING, RoleBelief
from .hands import HandModel
from .heuristic import PLAYERS, HeuristicBot
from .heuristic2 import BASE_ROLE
from .heuristic_base import BaseGameHeuristic
from .tunnels import Network

#: which winners each role counts as its own side winning (the base game and Saboteur 2)
SIDE_WINS: dict[Role, frozenset[str]] = {
    Role.GOLD_DIGGER: frozenset((Winners.GOLD_DIGGERS.value,)),
    Role.SABOTEUR: frozenset((Winners.SABOTEURS.value,)),
    Role.SELFISH_DWARF: frozenset((Winners.SELFISH_DWARF.value,)),
}
#: a finished Saboteur 2 round is scored by the pieces won, out of the most one can win
MAX_PIECES = 5.0


def round_outlook(world: State) -> float:
    """The chance that the gold-diggers reach the treasure this round, from the world as it
    stands: how far the network is from the treasure, how many cards are left to dig with,
    and how many of the players who dig are blocked."""
    treasure = next(
        (slot for slot in range(len(GOAL_CELLS))
         if world.dealer.reveal(Deck.GOALS, slot, None).kind is PathKind.TREASURE),  # type: ignore[union-attr]
        1,
    )
    distance = Network(world.board, 1 << treasure).best
    n = world.players
    diggers = [s for s in range(n) if world.role_of(s) in DIGGING]
    free = sum(1 for s in diggers if not world.blocked(s))
    cards = len(world.draw_pile) + sum(len(hand) for hand in world.hands)
    # turns the diggers still get, against steps still to dig
    turns = cards * (free / n)
    x = OUTLOOK[0] + OUTLOOK[1] * distance + OUTLOOK[2] * math.log1p(turns) + OUTLOOK[3] * (len(diggers) - free)
    return 1.0 / (1.0 + math.exp(-x))


#: round_outlook's logistic weights: bias, distance, log(1 + digger turns left), blocked
#: diggers.  Fitted to 4577 positions of all-heuristic base games at 4-10 players (log
#: likelihood -0.524 against -0.693 for a coin); the blocked diggers' weight, which the fit
#: made slightly positive (they are already in the turns left), is set to 0.
OUTLOOK = (-6.07, -0.30, 2.25, 0.0)
#: playouts per search when none are given: Saboteur 2's heuristic is about three times slower
DEFAULT_PLAYOUTS = {"base": 120, "saboteur2": 40}


class IsmctsBot(BaseBot):
    """Determinized search with heuristic playouts (see the module docstring)."""

    name = "ismcts"

    def __init__(
        self,
        playouts: int = 0,
        cutoff: int = 24,
        candidates: int = 6,
        margin: float = 0.03,
        time: float = 0.0,
        hands: bool = True,
        diggers: bool = True,
    ) -> None:
        if playouts < 0 or cutoff < 1 or candidates < 1:
            raise ValueError("playouts must be at least 0 (0: the edition's default), cutoff and candidates at least 1")
        if not (math.isfinite(margin) and math.isfinite(time) and time >= 0):
            raise ValueError("margin must be a number, and time a number of seconds at least 0 (0: no limit)")
        #: playouts per search (0: ``DEFAULT_PLAYOUTS`` of the game's edition)
        self.playouts = playouts
        self.margin = margin
        self.cutoff = cutoff
        self.candidates = candidates
        self.time = time
        #: whether sampled hands follow the players' past choices (``HandModel``)
        self.hands = hands
        #: whether a gold-digger searches (Saboteur 2: a blue or green digger, the boss); else
        #: it plays the heuristic's move: measured, the search gains as a saboteur (docs/bots.md)
        self.diggers = diggers

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        self.budget = self.playouts or DEFAULT_PLAYOUTS.get(config.edition, 60)
        self.rng = random.Random(seed)
        self.guide = HeuristicBot()
        self.guide.start(seat, config, seed)
        self.belief = RoleBelief(config, seat)
        self.hand_model = HandModel(config, seat)
        player = PLAYERS[config.edition]
        #: the heuristic players of the playouts, one per seat, told every public event
        self.players: list[BaseGameHeuristic] = []
        for s in range(config.players):
            sim = player()
            sim.start(s, config, seed * 31 + s)
            self.players.append(sim)
        #: how many playouts each search made (for tests and tuning)
        self.searched: list[int] = []

    def on_event(self, event: Event) -> None:
        if self.hands:  # before the belief's maze and the players take the event in
            mover = self.players[event.player] if isinstance(event, CardPlayed) else None
            self.hand_model.observe(event, self.belief.board, mover)
        self.guide.on_event(event)
        self.belief.observe(event)
        for sim in self.players:
            sim.on_event(event)

    # -- a turn ---------------------------------------------------------------------------

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        if Phase(view.phase) is not Phase.PLAY or len(legal) == 1 or view.role is None:
            return self.guide.act(view, legal)
        if not self.diggers and BASE_ROLE.get(view.role, view.role) is Role.GOLD_DIGGER:
            return self.guide.act(view, legal)
        scored = self.guide.score_actions(view, legal)
        ranked = sorted(range(len(scored)), key=lambda i: -scored[i][1])
        chosen: list[AnyAction] = []
        passed = False
        for i in ranked:
            action = scored[i][0]
            if isinstance(action, Pass):
                if passed:
                    continue
                passed = True
            chosen.append(action)
            if len(chosen) == self.candidates:
                break
        if len(chosen) == 1 or scored[ranked[0]][1] >= 1000.0:
            return chosen[0]  # one sensible move, or the treasure for sure
        self.belief.know({self.seat: view.role, **view.known_roles}, view.discarded_roles)
        weights = self.belief.role_weights()
        hands = None
        if self.hands and self.hand_model.consistent(view):
            weights = self.hand_model.role_weights(view, weights)
            hands = self.hand_model.weights
        return self._search(view, chosen, weights, hands)

    def _search(
        self, view: PlayerView, chosen: list[AnyAction], weights: list[dict[Role, float]], hands: HandWeights | None,
    ) -> AnyAction:
        k = len(chosen)
        deadline = clock.monotonic() + self.time if self.time > 0 else None
        #: per world, each candidate's reward (common random numbers: every candidate is
        #: played in the same worlds, by playout players drawing the same random numbers)
        rewards: list[list[float]] = []
        done = 0
        while done + k <= max(self.budget, k):
            try:
                world = determinize(view, self.rng, weights, hands)
            except ValueError:
                return chosen[0]  # a view whose history does not add up: trust the heuristic
            seed = self.rng.getrandbits(32)
            row = []
            for i, action in enumerate(chosen):
                row.append(self._playout(world.clone() if i < k - 1 else world, action, self._forks(seed)))
            rewards.append(row)
            done += k
            if deadline is not None and clock.monotonic() > deadline:
                break
        self.searched.append(done)
        # the heuristic's choice (the first) stands unless another does clearly better in
        # the same worlds
        gains = [sum(row[j] - row[0] for row in rewards) / len(rewards) for j in range(k)]
        best = max(range(k), key=lambda j: (gains[j], -j))
        return chosen[best] if gains[best] > self.margin else chosen[0]

    def _forks(self, seed: int) -> list[BaseGameHeuristic]:
        """A playout's players: forks of the real ones, so that they read the moves tried and the
        real ones stay as the real game left them, each seeded from ``seed`` and its seat."""
        forks = [sim.fork() for sim in self.players]
        for sim in forks:
            sim.rng.seed(seed + sim.seat)
        return forks

    def _playout(self, world: State, action: AnyAction, players: list[BaseGameHeuristic]) -> float:
        """Play ``action`` in ``world`` and heuristic play after it; this seat's reward in [0, 1]."""
        start = told = len(world.events)
        round_ = world.round
        world.push(action)
        for _ in range(self.cutoff):
            if world.round != round_ or (world.phase is not Phase.PLAY and world.phase is not Phase.ORIENT):
                break  # the round is over
            events = world.events
            for event in events[told:]:  # the playout players hear the playout, as a table would
                for sim in players:
                    sim.on_event(event)
            told = len(events)
            p = world.current
            legal = world.legal_actions()
            if len(legal) > 40:
                # Saboteur 2 passes of two or three cards: seldom the best, costly to score
                legal = [a for a in legal if a.__class__ is not Pass or not a.more]  # type: ignore[attr-defined]
            world.push(players[p].act(world.view_for(p), legal))
        return self._reward(world, start)

    def _reward(self, world: State, start: int) -> float:
        events = world.events
        role = world.role_of(self.seat)
        for event in events[start:]:
            if isinstance(event, RoundEnded):
                if world.config.edition_rules.public_gold:
                    won = sum(e.pieces for e in events[start:] if isinstance(e, PiecesWon) and e.player == self.seat)
                    return min(won / MAX_PIECES, 1.0)
                return 1.0 if role is not None and event.winners in SIDE_WINS.get(role, frozenset()) else 0.0
        diggers = round_outlook(world)
        if role in DIGGING:
            return diggers
        if role in BLOCKING:
            return 1.0 - diggers
        return 0.5

