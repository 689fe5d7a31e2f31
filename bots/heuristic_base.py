"""The heuristic bot's play of the base game: digs towards the treasure, or blocks the way.

Every legal action gets a score on one scale (see tunnels.py) and the best is played.  From
the public card plays the bot keeps a suspicion score per player (reading.py).  A
gold-digger breaks the tools of the most suspected and repairs the trusted; a saboteur
breaks the tools of the most trusted and, while the network is still far from the goals,
plays like a cautious digger.  A generator seeded in ``start`` only breaks ties, so a game
replays exactly.
"""
from __future__ import annotations

import copy
import random
from collections.abc import Sequence
from typing import Self, TypeVar

from saboteur_p2p.botapi import BaseBot
from saboteur_p2p.rules import (
    GOAL_CELLS,
    ActionCard,
    ActionKind,
    AnyAction,
    BreakTool,
    Card,
    CardPlayed,
    Event,
    GameConfig,
    GoalRevealed,
    KeepGold,
    MapPeek,
    OrientStone,
    Pass,
    PathCard,
    PathKind,
    Phase,
    PlacePath,
    PlayerView,
    RepairTool,
    Rockfall,
    Role,
    RoundStarted,
    TakeGold,
)

from .reading import ACCOMPLICE, REPAIRS_OF, SUSPECT, TRUSTED, TableReading
from .tunnels import REACH_SURE, REACH_UNSURE, Cell, Network, Placed, Spot, joined_edges, joins_of, urgency_of

#: The enum members the scores compare with on every move, read once here: Python 3.11 looks
#: a member up on its class (``Role.SABOTEUR``) through ``EnumType.__getattr__``'s slot, about
#: 850 instructions each time, thousands of times a game.
SABOTEUR, GOLD_DIGGER = Role.SABOTEUR, Role.GOLD_DIGGER
MAP, ROCKFALL, BREAK = ActionKind.MAP, ActionKind.ROCKFALL, ActionKind.BREAK
TREASURE_KIND = PathKind.TREASURE

_T = TypeVar("_T")


def _copied(obj: _T) -> _T:
    """A shallow copy of ``obj`` whose list, dict and set attributes are copies too."""
    twin = copy.copy(obj)
    for name, value in vars(obj).items():
        if isinstance(value, list | dict | set):
            setattr(twin, name, value.copy())
    return twin


class Turn:
    """What one ``act`` call works out once and every scored action shares."""

    __slots__ = ("candidates", "digger", "goal_mask", "net", "quiet", "reach_value", "role", "urgency", "view")

    def __init__(self, view: PlayerView, role: Role) -> None:
        self.view = view
        self.role = role
        self.digger = role is not SABOTEUR
        mask = 0
        for slot in range(len(GOAL_CELLS)):
            known = view.known_goals.get(slot)
            if known is None:
                mask |= 1 << slot
            elif known.kind is TREASURE_KIND:
                mask = 1 << slot
                break
        self.goal_mask = mask
        self.candidates = mask.bit_count()
        self.net = Network(view.board, mask)
        best = self.net.best
        #: how near the gold-diggers are to a goal that may hold the treasure (0..3)
        self.urgency = urgency_of(best)
        #: a saboteur keeps a low profile while the network is far from the goals
        self.quiet = role is SABOTEUR and best >= 5
        self.reach_value = REACH_UNSURE + (REACH_SURE - REACH_UNSURE) / max(self.candidates, 1)


class BaseGameHeuristic(BaseBot):
    """Plays the base game by role: builds to the believed treasure, or blocks near the goals."""

    name = "heuristic"

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        self.rng = random.Random(seed)
        self._new_round()

    def _new_round(self) -> None:
        #: this round's role, learnt from the round's first view (a digger until then).
        self.role = Role.GOLD_DIGGER
        self.reading = TableReading(self.config.players, self.seat)

    @property
    def suspicion(self) -> list[float]:
        return self.reading.suspicion

    def fork(self) -> Self:
        """A copy that hears and plays on without changing this player: what it has read of
        the round is copied, the config shared, and its generator is its own, seeded 0 (seed
        it as a playout needs).  A search's playouts use forks, so that the players there
        react to the moves tried.  Lists, dicts and sets held by the player or its reading
        are copied one level deep: a subclass that keeps nested ones copies them here."""
        twin = _copied(self)
        twin.reading = _copied(self.reading)
        twin.rng = random.Random(0)
        return twin

    def on_event(self, event: Event) -> None:
        if isinstance(event, CardPlayed):
            self.reading.observe(event, self.role is not SABOTEUR)
            self._played(event)
        elif isinstance(event, GoalRevealed):
            self.reading.reveal(event)
        elif isinstance(event, RoundStarted):
            self._new_round()

    def _played(self, event: CardPlayed) -> None:
        """A card play, after the reading of the table has taken it in (for subclasses)."""

    def _see(self, view: PlayerView) -> None:
        """Take in what a view tells the bot that no event does (its role), before it
        scores or chooses anything."""
        if view.role is not None:
            self.role = view.role

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        self._see(view)
        first = legal[0]
        if isinstance(first, KeepGold):
            return self._keep_gold(view, legal)
        if isinstance(first, TakeGold):
            return self._take_gold(view, legal)
        if isinstance(first, OrientStone):
            return self._orient(view, legal)
        return self._play(view, legal)

    def _pick(self, tied: Sequence[AnyAction]) -> AnyAction:
        """One of the best-scored actions: the generator only ever breaks ties."""
        return tied[0] if len(tied) == 1 else self.rng.choice(tied)

    # -- gold and stones ----------------------------------------------------------------

    def _keep_gold(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        value = {handle: card.nuggets for handle, card in view.offered}
        keeps = [a for a in legal if isinstance(a, KeepGold)]
        return max(keeps, key=lambda a: (value.get(a.gold, 0), -a.gold))

    def _take_gold(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        """Take the choice that leaves the most valuable cards in the pile for later rounds."""
        value = {handle: card.nuggets for handle, card in view.gold_pile}

        def key(action: TakeGold) -> tuple[int, int, tuple[int, ...]]:
            golds = action.golds
            return (max((value.get(g, 0) for g in golds), default=0), -len(golds), golds)  # TakeGold(()): nothing to take

        return min([a for a in legal if isinstance(a, TakeGold)], key=key)

    def _orient(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        """Turn a stone so that it leads towards the other goals, or away for a saboteur."""
        scores = self._orient_scores(view, legal)
        return legal[0] if scores is None else self._best(legal, scores)

    def _orient_scores(self, view: PlayerView, legal: Sequence[AnyAction]) -> list[float] | None:
        """A score for each turn of the stone; None when the bot was not shown the stone
        (either turn will do)."""
        turn = self._turn(view)
        net = turn.net
        scores = []
        for action in legal:
            assert isinstance(action, OrientStone)
            face = view.known_goals.get(action.goal)
            if face is None:
                return None
            cell = GOAL_CELLS[action.goal]
            incoming = net.incoming(cell)
            cost, reached = net.place(cell, joined_edges(face.turned_segments(action.turned), incoming), incoming)
            score = net.cost - cost + (turn.reach_value if any(turn.goal_mask >> r & 1 for r in reached) else 0.0)
            scores.append(score if turn.digger else -score)
        return scores

    def _turn(self, view: PlayerView) -> Turn:
        return Turn(view, self.role)

    # -- a turn of play ---------------------------------------------------------------

    def _play(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        return self._best(legal, self._scores(view, legal))

    def _best(self, legal: Sequence[AnyAction], scores: Sequence[float]) -> AnyAction:
        """The best-scored action; ties broken by the generator, in ``legal``'s order."""
        best_score = max(scores)
        if scores.count(best_score) == 1:
            return legal[scores.index(best_score)]
        return self._pick([action for action, score in zip(legal, scores, strict=True) if score == best_score])

    def _scores(self, view: PlayerView, legal: Sequence[AnyAction]) -> list[float]:
        """A score for every action of the play phase, on one scale (the best is played)."""
        turn = self._turn(view)
        faces = dict(view.hand)
        #: the card and turn (card * 2 + turned) that ``joins`` and ``dead_end`` are of: the
        #: placements of one card and turn come one after another in ``legal``
        shape = -1
        joins: tuple[int, ...] = ()
        dead_end = False
        #: joined * 2 + dead_end -> the score of such a card at a still spot
        still_scores: dict[int, float] = {}
        #: (cell, joined * 2 + dead_end) -> the score of such a card there, elsewhere
        moved_scores: dict[tuple[Cell, int], float] = {}
        net = turn.net
        spots = net.spots
        scores: list[float] = []
        for action in legal:
            # exact classes (legal_actions makes no subclasses)
            if type(action) is PlacePath:
                if action.card * 2 + action.turned != shape:
                    shape = action.card * 2 + action.turned
                    card = faces[action.card]
                    assert isinstance(card, PathCard)
                    joins, dead_end = joins_of(card.turned_segments(action.turned)), card.is_dead_end
                cell = (action.x, action.y)
                spot = spots.get(cell) or net.spot(cell)
                joined = joins[spot.incoming]
                key = joined * 2 + dead_end
                if spot.still:
                    # the network stays as it is: the score depends on the card alone
                    score = still_scores.get(key)
                    if score is None:
                        score = still_scores[key] = self._path_score(turn, net.unchanged, dead_end, joined)
                else:
                    # cards of other shapes often join the same edges at a cell: score that once
                    placed = (cell, key)
                    score = moved_scores.get(placed)
                    if score is None:
                        out = joined & ~spot.incoming
                        result = self._rejoined_path(turn, cell, spot, joined) if out & spot.cut_off else net.extend(spot, out)
                        score = moved_scores[placed] = self._path_score(turn, result, dead_end, joined)
            elif type(action) is Pass:
                score = 10.0 - self._keep_value(turn, faces[action.card])
            elif type(action) is BreakTool:
                score = self._break_score(turn, action)
            elif type(action) is RepairTool:
                score = self._repair_score(turn, action)
            elif type(action) is MapPeek:
                score = self._map_score(turn, action.goal)
            elif type(action) is Rockfall:
                score = self._rockfall_score(turn, (action.x, action.y))
            else:
                score = 0.0
            scores.append(score)
        return scores

    def _rejoined_path(self, turn: Turn, cell: Cell, spot: Spot, joined: int) -> Placed:
        """The network's cost once a card joins ``joined`` at ``cell`` (``spot``: what lies
        around it), and the goal slots it reaches, for a card that opens onto a part cut off
        from the network (``Spot.cut_off``; every other placement is ``Network.extend``): this
        version counts the card's own ends alone, as for any other card (as Saboteur 2's
        ``_rejoined`` does)."""
        return turn.net.extend(spot, joined & ~spot.incoming)

    def score_actions(self, view: PlayerView, legal: Sequence[AnyAction]) -> list[tuple[AnyAction, float]]:
        """Every legal action with this bot's score for it (higher is better).

        In the play and orient phases these are the scores ``act`` plays the best of (an
        unseen stone's two turns both score 0); when handing out gold or stealing, where
        ``act`` chooses by a rule rather than a score, its choice scores 1 and the rest 0.
        Scoring never draws from the bot's generator, so it does not change later play.
        """
        self._see(view)
        phase = Phase(view.phase)
        if phase is Phase.PLAY:
            return list(zip(legal, self._scores(view, legal), strict=True))
        if phase is Phase.ORIENT:
            scores = self._orient_scores(view, legal)
            return list(zip(legal, scores if scores is not None else [0.0] * len(legal), strict=True))
        chosen = self.act(view, legal)  # a rule, no tie left to the generator
        return [(action, 1.0 if action == chosen else 0.0) for action in legal]

    def _path_score(self, turn: Turn, result: Placed, dead_end: bool, joined: int) -> float:
        cost, reached = result
        gain = turn.net.cost - cost  # > 0: the way to the goals got better
        reach = bool(reached) and any(turn.goal_mask >> slot & 1 for slot in reached)
        if turn.digger:
            if reach:
                return turn.reach_value
            if gain > 0:
                return 20.0 + 8.0 * gain
            if gain == 0:
                return -20.0 if dead_end else 3.0 + 0.2 * joined.bit_count()
            return 8.0 * gain
        if reach:
            return -turn.reach_value
        if turn.quiet:
            # a plausible play: sideways or one small step, never a visible block
            if dead_end or gain < 0:
                return -10.0
            return 8.0 - 0.3 * gain if gain <= 10.0 else -5.0
        block = -gain
        if block <= 0:
            return 8.0 * block - (5.0 if reached else 0.0)
        return 20.0 + 8.0 * block * (1 + turn.urgency) + (2.0 if dead_end else 0.0)

    def _break_score(self, turn: Turn, action: BreakTool) -> float:
        target = action.target
        if target == self.seat:
            return -5.0
        s = self.suspicion[target]
        if turn.view.broken[target]:
            # the player cannot build already; a second tool only makes one repair not enough
            return 8.0 + 2.0 * min(s, 5.0) if turn.role is GOLD_DIGGER and s >= SUSPECT else -5.0
        # the fewer repairs of this tool are left, the longer it stays broken
        lasting = 0.5 * (REPAIRS_OF[action.tool] - self.reading.repairs_left[action.tool])
        if turn.role is GOLD_DIGGER:
            return 30.0 + 15.0 * min(s, 5.0) + 10.0 * turn.urgency + lasting if s >= SUSPECT else -5.0
        if turn.role is SABOTEUR:
            if turn.quiet or s >= ACCOMPLICE:
                return -5.0
            suspicion, seat = self.suspicion, self.seat
            others = suspicion[:seat] + suspicion[seat + 1:]
            return 30.0 + 20.0 * turn.urgency - 5.0 * s + (5.0 if s == min(others) else 0.0) + lasting
        # the selfish dwarf stops whoever builds best
        return 25.0 + 15.0 * turn.urgency - 5.0 * s

    def _repair_score(self, turn: Turn, action: RepairTool) -> float:
        target = action.target
        score = -5.0
        if target == self.seat:
            score = 150.0 if turn.digger else 40.0 + 20.0 * turn.urgency
        elif turn.role is GOLD_DIGGER:
            s = self.suspicion[target]
            if s <= 0.0:
                score = 35.0 + 15.0 * min(-s, 3.0) + 5.0 * turn.urgency
            elif s <= TRUSTED:
                score = 20.0
        elif turn.role is SABOTEUR and self.suspicion[target] >= ACCOMPLICE:
            score = 30.0
        if len(turn.view.broken[target]) > 1:
            score -= 20.0  # one repair does not free a player with two broken tools
        return score

    def _map_score(self, turn: Turn, slot: int) -> float:
        if turn.candidates < 2 or not turn.goal_mask >> slot & 1:
            return -5.0
        distance = turn.net.distance_to(GOAL_CELLS[slot])  # look where the network heads
        if turn.digger:
            return 45.0 + 15.0 * max(0, 6 - turn.net.best) - 0.5 * distance
        return 40.0 + 10.0 * turn.urgency - 0.5 * distance

    def _rockfall_score(self, turn: Turn, cell: Cell) -> float:
        net = turn.net
        carries = net.board.connected.get(cell, 0).bit_count() >= 2  # the card joins the network onwards
        if turn.digger:
            # only a dead end or a stranded card, and only if its cell opens a better way
            if carries or not net.incoming(cell):
                return -10.0
            gain = net.cost - net.cost_with(None, [cell])
            return 20.0 + 8.0 * gain if gain > 0 else -10.0
        if turn.urgency == 0 or not carries or net.distance(cell) > net.best + 2:
            return -10.0
        block = net.cost_without(cell) - net.cost
        return 20.0 + 8.0 * block * (1 + turn.urgency) if block > 0 else -10.0

    def _keep_value(self, turn: Turn, card: Card) -> float:
        """How much this card is worth keeping in hand (the least is discarded)."""
        digger = turn.digger
        if isinstance(card, PathCard):
            if card.is_dead_end:
                return 0.0 if digger else 9.0
            edges = card.openings.bit_count()
            return 4.0 + edges if digger else 8.0 - edges
        assert isinstance(card, ActionCard)
        kind = card.kind
        if kind is MAP:
            return (8.0 if digger else 6.0) if turn.candidates >= 2 else 0.0
        if kind is ROCKFALL:
            return 5.0 if digger else 10.0
        if kind is BREAK:
            if digger:
                return 6.0 if max(self.suspicion) >= SUSPECT else 3.0
            return 9.0
        if not digger:
            return 3.0
        wanted = not set().union(*turn.view.broken).isdisjoint(card.tools)
        return 7.0 + 3.0 * wanted
