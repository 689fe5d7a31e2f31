"""The heuristic bot's second version: the flaws issue 13 found in the first, fixed.

``FixesV2`` overrides a few scores of ``BaseGameHeuristic`` (and, mixed in before it, of
``Saboteur2Heuristic``); the first version stays as it was, loadable as ``heuristic-v1``.

* **Rebuilding a gap.**  A card that joins the start's network to a part cut off by a
  rockfall is scored by the true network afterwards, the cut-off part's open ends
  included (the first version counted only the new card's own ends, so it never
  rebuilt the gap).  In Saboteur 2 the network is the one the player's team may use: a
  part behind a door of the other colour stays out of it.
* **Rockfall of a steering card.**  A gold-digger takes out a through card that leads
  the network away from the goals when the network without it is nearer the goals
  (the first version only ever took out dead ends), more readily when a suspect laid it,
  never a card it laid itself or a trusted player laid.
* **What a map tells.**  When a player this bot does not suspect looks at a goal and then
  lays a path card, the card's direction tells: towards that goal, the bot takes it for
  the treasure; towards another goal, for a stone.  The bot plays on that belief (a goal
  it has seen itself always wins over a belief) and does not look at a goal such a player
  has looked at.
* **Patient saboteurs.**  A saboteur plays like a cautious digger until the network is
  within ``BLOCK_DISTANCE`` of a goal (the first version blocked from 4 on, where its
  detours were read at once), and blocks anyway once the draw pile runs low.
* **Steering that looks like progress.**  A saboteur who has seen a goal lays path cards
  that every reader takes for progress (a step nearer the goals not known to be stones) but
  that head for a stone it knows, never the treasure; the card right after its own map is
  worth most, since the table reads where a map-reader builds next (see *What a map tells*).
* **Cover.**  While it keeps a low profile, a saboteur's path card is worth what the table
  will read into it (``TableReading.placement_suspicion``): a step that reads as progress
  earns trust for later, a detour by the start costs it.
* **The miner most likely to connect.**  Near the goals a saboteur breaks the tools of the
  player who plays next, not any of the equally trusted.
* **The right repair.**  A repair of a player with two broken tools does not free them:
  nobody plays it for a saboteur's sake, a saboteur does not spend a turn on one of its own
  two, and a digger repairs first the tool with fewer repair cards left, which would stay
  broken longest.
* **The finder chooses first (base game).**  The gold-digger who reaches the treasure
  draws the gold cards and keeps the best, so a digger does not lay the card that brings
  the network to a goal's door (one step away) while the draw pile is not empty: the next
  player would walk through it.  It plays something else (``SET_UP``) until the pile is
  empty (``SET_UP_PILE``).  Measured: +0.14 gold a game at 4 players, +0.05 at 5, none at
  10 (docs/bots.md), and waiting until the pile is empty rather than down to 8 cards
  +0.055 more at 4 players; the diggers get there later, so a 5-player game of this bot
  lasts about 166 moves instead of 143.
* **The team reaches (Saboteur 2).**  A blue or green digger's team wins only if one of its
  own reaches the treasure (or nobody's way is shut), so it does not lay the card that
  brings the network to a goal's door while the pile holds more than ``TEAM_PILE`` cards,
  unless the next player looks like a teammate.  Measured: +0.06 gold a game at 5 players,
  nothing at 9 or 12 (docs/bots.md).
* **Burning the draw pile (Saboteur 2).**  A pass there discards up to three cards and draws
  as many, so each card beyond the first is a turn less for the diggers before the pile and
  the hands run out; a saboteur with nothing better to do passes three (``BURN``).
"""
from __future__ import annotations

import functools
from collections.abc import Sequence

from saboteur_p2p.rules import (
    GOAL_CELLS,
    AnyAction,
    BreakTool,
    CardPlayed,
    MapPeek,
    PathCard,
    PathKind,
    PlacePath,
    PlayerView,
    RepairTool,
    Role,
)
from saboteur_p2p.rules.cards import STONE_NW, TREASURE

from .heuristic2 import Saboteur2Heuristic, Turn2
from .heuristic_base import SABOTEUR, TREASURE_KIND, BaseGameHeuristic, Turn
from .reading import SUSPECT, TRUSTED
from .tunnels import CLOSED, REACH_UNSURE, Cell, Network, Placed, Spot, around, distance_of, goal_distance

#: a saboteur blocks openly only once the network is this near a goal...
BLOCK_DISTANCE = 3
#: ...or once the draw pile holds no more than this many cards
LATE_PILE = 12
#: what a saboteur's card that looks like progress towards a stone it knows is worth more,
#: and more again as the first card after its own map (the one the table reads)
DECOY, DECOY_AFTER_MAP = 14.0, 10.0
#: a saboteur's break on the next player to play is worth this much more (less further round)
NEXT_TO_PLAY = 12.0
#: what a quiet saboteur's card is worth per point of suspicion it earns (or sheds)
COVER = 8.0
#: base game: what a gold-digger's step to a goal's door is worth while the draw pile holds more
#: than SET_UP_PILE cards (below a sideways card: the next player would take the treasure)
SET_UP, SET_UP_PILE = 2.0, 0
#: Saboteur 2: a blue or green digger leaves that step to a teammate while the pile holds more
TEAM_PILE = 8
#: Saboteur 2: what a saboteur's pass is worth for each card it burns from the draw pile
#: beyond the one of any turn (a pass may discard up to three and draw as many)
BURN = 60.0


@functools.cache
def _tunnel(edges: int) -> PathCard:
    """A one-segment tunnel card joining ``edges`` (what a placement adds to the network)."""
    return PathCard(PathKind.TUNNEL, (edges,))


@functools.cache
def _progress(cell: Cell, openings: int, candidates: int) -> tuple[tuple[int, int], ...]:
    """(slot, how much nearer goal ``slot`` a card with ``openings`` at ``cell`` leads) for each
    slot in the mask ``candidates`` (cached: every bot reads every card laid after a map, and
    a saboteur asks it of every card it might lay)."""
    onto = [other for edge, other, _ in around(cell) if openings & edge]
    progress = []
    for s in range(len(GOAL_CELLS)):
        if candidates >> s & 1:
            onward = min([goal_distance(1 << s, other) for other in onto], default=CLOSED)
            progress.append((s, goal_distance(1 << s, cell) - onward))
    return tuple(progress)


def _heads_for_stone(cell: Cell, onto: int, public: int, stones: int) -> bool:
    """Whether a card at ``cell`` opening onto the empty neighbours on edges ``onto`` (some)
    gets nearest to goals in ``stones`` alone, of the goals in ``public``."""
    progress = _progress(cell, onto, public)
    best = max((p for _, p in progress), default=0)
    return best > 0 and all(stones >> s & 1 for s, p in progress if p == best)


class FixesV2(BaseGameHeuristic):
    """The second version's scores (see the module docstring), over either edition's player."""

    def _new_round(self) -> None:
        super()._new_round()
        #: who laid the path card lying on each cell this round
        self.layer: dict[Cell, int] = {}
        #: the goal each player looked at last, until their next path card
        self.mapped: dict[int, int] = {}
        #: goals looked at by players this bot does not suspect
        self.mapped_slots: set[int] = set()
        #: what this bot believes of face-down goals from maps and the cards after them
        self.believed: dict[int, PathCard] = {}
        #: this bot has looked at a goal and laid no path card since
        self.own_map = False
        #: whether this turn's saboteur keeps a low profile (set by ``_turn``)
        self._quiet = False
        #: whether this turn's card of progress to a goal's door is held back (``_sets_up``,
        #: asked once a turn by ``_turn``: its path scores ask only whether a card gets there)
        self._holds_back = False

    def _played(self, event: CardPlayed) -> None:
        action, player = event.action, event.player
        if player == self.seat:
            if isinstance(action, MapPeek):
                self.own_map = True
            elif isinstance(action, PlacePath):
                self.own_map = False
        if isinstance(action, MapPeek) and player != self.seat:
            self.mapped[player] = action.goal
            if self.suspicion[player] < SUSPECT:
                self.mapped_slots.add(action.goal)
        elif isinstance(action, PlacePath):
            self.layer[action.x, action.y] = player  # not the ``cell`` property: every seat hears every card
            slot = self.mapped.pop(player, None)
            if slot is not None and isinstance(event.card, PathCard) and self.suspicion[player] <= TRUSTED:
                self._read_map(slot, action, event.card)

    def _read_map(self, slot: int, action: PlacePath, card: PathCard) -> None:
        """A trusted player looked at goal ``slot`` and then laid ``card``: where does it head?"""
        candidates = 0
        for s in range(len(GOAL_CELLS)):
            if self.believed.get(s, TREASURE).kind is TREASURE_KIND:
                candidates |= 1 << s
        openings = card.turned_openings if action.turned else card.openings
        progress = dict(_progress(action.cell, openings, candidates))
        if slot not in progress:
            return
        best = max(progress.values())
        if best <= 0:
            return
        if progress[slot] == best and all(progress[s] < best for s in progress if s != slot):
            self.believed = {slot: TREASURE}
        elif progress[slot] < best:
            self.believed[slot] = STONE_NW

    def _turn(self, view: PlayerView) -> Turn:
        if self.believed:
            hidden = {slot for slot, cell in enumerate(GOAL_CELLS) if view.board.tiles[cell].card is None}
            beliefs = {s: face for s, face in self.believed.items() if s in hidden and s not in view.known_goals}
            merged = {**beliefs, **view.known_goals}
            treasure = [s for s, face in merged.items() if face.kind is PathKind.TREASURE]
            if any(face.kind is PathKind.TREASURE for face in view.known_goals.values()):
                pass  # what the seat has seen or everyone sees settles it
            elif beliefs and (treasure or len(merged) < len(GOAL_CELLS)):
                view = view._replace(known_goals=merged)
        turn = super()._turn(view)
        if turn.role is SABOTEUR and not turn.quiet:
            # patient: block only near the goals, or when the round is running out
            turn.quiet = turn.net.best > BLOCK_DISTANCE and view.draw_pile_size > LATE_PILE
        self._quiet = turn.quiet
        self._holds_back = turn.digger and turn.net.best > 1 and self._sets_up(turn)
        return turn

    def _sets_up(self, turn: Turn) -> bool:
        """Whether this digger, this turn, leaves the step that brings the network to a goal's
        door (one step away) to someone else: the next player would walk through.  Asked of a
        digger whose network is further than that (the edition's player says when)."""
        return False

    def _path_score(self, turn: Turn, result: Placed, dead_end: bool, joined: int) -> float:
        score = super()._path_score(turn, result, dead_end, joined)
        return SET_UP if self._holds_back and _to_the_door(result, score) else score

    def _scores(self, view: PlayerView, legal: Sequence[AnyAction]) -> list[float]:
        scores = super()._scores(view, legal)
        if self.role is SABOTEUR:
            stones = self._decoys(view)
            if self._quiet or stones:
                read = self._readings(view, legal)
                if self._quiet:
                    self._cover(read, scores)
                if stones:
                    self._steer(view, legal, scores, stones, read)
        return scores

    def _readings(self, view: PlayerView, legal: Sequence[AnyAction]) -> dict[int, float]:
        """What the table will read into each path card that can be laid, by its index in
        ``legal`` (``TableReading.placement_suspicion``, worked out once per cell and shape)."""
        faces = dict(view.hand)
        judge = self.reading.suspicion_of
        #: the card and turn (card * 2 + turned) that ``openings`` and ``dead_end`` are of: the
        #: placements of one card and turn come one after another in ``legal``
        shape = -1
        openings, dead_end = 0, False
        known: dict[tuple[Cell, int, bool], float] = {}
        read = {}
        for i, action in enumerate(legal):
            if type(action) is PlacePath:
                if action.card * 2 + action.turned != shape:
                    shape = action.card * 2 + action.turned
                    card = faces[action.card]
                    assert isinstance(card, PathCard)
                    openings = card.turned_openings if action.turned else card.openings
                    dead_end = card.is_dead_end
                key = ((action.x, action.y), openings, dead_end)
                value = known.get(key)
                if value is None:
                    value = known[key] = judge(key[0], openings, dead_end)
                read[i] = value
        return read

    def _cover(self, read: dict[int, float], scores: list[float]) -> None:
        """While quiet, a saboteur's path card is worth what it makes the table think of it:
        a step the readers take for progress earns trust, a detour costs it."""
        for i, suspicion in read.items():
            if scores[i] > -10.0:
                scores[i] -= COVER * suspicion

    def _decoys(self, view: PlayerView) -> int:
        """The face-down goals this saboteur knows hold no treasure, as a mask of slots."""
        hidden = [slot for slot, cell in enumerate(GOAL_CELLS) if view.board.tiles[cell].card is None]
        known = view.known_goals
        if any(known[s].kind is PathKind.TREASURE for s in hidden if s in known):
            return sum(1 << s for s in hidden if s not in known or known[s].kind is not PathKind.TREASURE)
        return sum(1 << s for s in hidden if s in known)

    def _steer(
        self, view: PlayerView, legal: Sequence[AnyAction], scores: list[float], stones: int, read: dict[int, float],
    ) -> None:
        """Raise the scores of path cards that read as progress but head for a stone."""
        faces = dict(view.hand)
        tiles = view.board.tiles
        public = self.reading.goal_mask
        bonus = DECOY + (DECOY_AFTER_MAP if self.own_map else 0.0)
        #: (cell, openings) -> whether such a card steers: one answer for every card of that shape
        steers: dict[tuple[Cell, int], bool] = {}
        for i, suspicion in read.items():
            if suspicion >= 0.0 or scores[i] < -10.0:
                continue  # the table would not read it as progress, or it is not worth playing
            action = legal[i]
            assert type(action) is PlacePath
            card = faces[action.card]
            assert isinstance(card, PathCard)
            if card.is_dead_end:
                continue
            cell = (action.x, action.y)
            openings = card.turned_openings if action.turned else card.openings
            key = (cell, openings)
            steer = steers.get(key)
            if steer is None:
                onto = 0
                for edge, other, _ in around(cell):
                    if openings & edge and other not in tiles:
                        onto |= edge
                # no empty cell beyond: it reads as progress by reaching a goal, no steering left
                steer = steers[key] = bool(onto) and _heads_for_stone(cell, onto, public, stones)
            if steer:
                scores[i] = max(scores[i], 0.0) + bonus

    def _rejoined_path(self, turn: Turn, cell: Cell, spot: Spot, joined: int) -> Placed:
        # the card joins a part cut off by a rockfall: measure the whole network afterwards
        board = turn.view.board
        after = board.clone()
        reached = after.place(cell, _tunnel(joined), False)
        slots = [board.tiles[c].goal_slot for c in reached]
        return Network(after, turn.net.goal_mask).cost, tuple([s for s in slots if s is not None])

    def _rockfall_score(self, turn: Turn, cell: Cell) -> float:
        net = turn.net
        if not turn.digger or net.board.connected.get(cell, 0).bit_count() < 2:
            return super()._rockfall_score(turn, cell)
        # a through card: worth taking out if the network is nearer the goals without it
        layer = self.layer.get(cell)
        if layer == self.seat or (layer is not None and self.suspicion[layer] <= -TRUSTED):
            return -10.0
        if not net.may_improve_without(cell):
            return -10.0
        gain = net.cost - net.cost_without(cell)
        if gain <= 0:
            return -10.0
        suspect = 10.0 if layer is not None and self.suspicion[layer] >= SUSPECT else 0.0
        return 15.0 + 8.0 * gain + suspect

    def _map_score(self, turn: Turn, slot: int) -> float:
        score = super()._map_score(turn, slot)
        if slot in self.mapped_slots and turn.digger:
            score -= 30.0  # a player we trust has looked there: watch where they build instead
        return score

    def _break_score(self, turn: Turn, action: BreakTool) -> float:
        score = super()._break_score(turn, action)
        if turn.role is SABOTEUR and score > 0.0 and turn.urgency and not turn.view.broken[action.target]:
            # the miner who plays soonest is the one most likely to connect before our next turn
            players = turn.view.players
            soon = (action.target - self.seat) % players
            score += NEXT_TO_PLAY * (players - soon) / (players - 1)
        return score

    def _repair_score(self, turn: Turn, action: RepairTool) -> float:
        score = super()._repair_score(turn, action)
        broken = turn.view.broken[action.target]
        if len(broken) < 2:
            return score
        if turn.role is SABOTEUR:
            return -5.0  # one repair frees nobody with two broken tools; a saboteur has better uses for a turn
        # first the tool with the fewest repairs left; the other one comes back sooner
        scarcest = min(broken, key=lambda tool: (self.reading.repairs_left[tool], tool.value))
        return score + (10.0 if action.tool is scarcest else -10.0)


def _to_the_door(result: Placed, score: float) -> bool:
    """Whether a card of progress (``score``, short of reaching a goal) brings the network to
    a goal's door, one step away."""
    return 0.0 < score < REACH_UNSURE and distance_of(result[0]) == 1


def _opens_onto(connected: dict[Cell, int], goal: Cell) -> bool:
    """Whether a segment of the network ``connected`` opens onto the cell ``goal``."""
    return any(connected.get(other, 0) & back for _, other, back in around(goal))


class BaseGameHeuristicV2(FixesV2):
    """The base game's heuristic player, second version."""

    def _sets_up(self, turn: Turn) -> bool:
        # the finder chooses its gold first: leave the last step to ourselves
        return turn.view.draw_pile_size > SET_UP_PILE


class Saboteur2HeuristicV2(FixesV2, Saboteur2Heuristic):
    """The Saboteur 2 heuristic player with the second version's fixes."""

    def _sets_up(self, turn: Turn) -> bool:
        # the next player, unless a teammate, would reach it for the other side
        return (
            isinstance(turn, Turn2) and turn.colour is not None and turn.view.draw_pile_size > TEAM_PILE
            and not self.friend((self.seat + 1) % self.config.players)
        )

    def _rejoined(self, turn: Turn2, cell: Cell, spot: Spot, out: int, face: PathCard, turned: bool) -> Placed:
        # as the base game's ``_rejoined_path``: measure the team's whole network with the card laid
        # (a part behind the other team's door stays out of it)
        board = turn.view.board
        after = board.clone()
        reached = after.place(cell, face, turned)
        closed = frozenset((turn.colour.other,)) if turn.colour is not None else frozenset()
        network = Network(after, turn.net.goal_mask, closed)
        slots = [board.tiles[c].goal_slot for c in reached if _opens_onto(network.connected, c)]
        return network.cost, tuple([s for s in slots if s is not None])

    def _pass_score(self, turn: Turn2, values: list[float]) -> float:
        score = super()._pass_score(turn, values)
        if self.role is Role.SABOTEUR:
            # every card discarded beyond one is a card less in the draw pile: a turn less
            # for the diggers before the pile and the hands run out and the saboteurs win
            burnt = min(len(values), turn.view.draw_pile_size) - 1
            if burnt > 0:
                score += BURN * burnt
        return score

