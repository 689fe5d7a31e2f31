"""A role-aware heuristic bot: digs towards the treasure, or blocks the way as a saboteur.

The bot measures the start's tunnel network by its *open ends*: the empty cells that a
connected opening points into, each at a Manhattan distance from the goals that may hold
the treasure (the treasure itself once known, else every goal not known to be a stone).
A path card is scored by how it changes the best distance and the number of ends at it,
from the card's segments and the cell's neighbours alone; only a saboteur weighing a
rockfall walks the network again.

From the public card plays the bot keeps a suspicion score per player (see ``TableReading``).
A gold-digger breaks the tools of the most suspected and repairs the trusted; a saboteur
breaks the tools of the most trusted and, while the network is still far from the goals,
plays like a cautious digger.  A generator seeded in ``start`` only breaks ties, so a game
replays exactly.
"""
from __future__ import annotations

import random
from typing import Sequence

from saboteur_p2p.botapi import BaseBot
from saboteur_p2p.rules import (
    GOAL_CELLS,
    START_CELL,
    ActionCard,
    ActionKind,
    AnyAction,
    Board,
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
    PlacePath,
    PlayerView,
    RepairTool,
    Rockfall,
    Role,
    RoundStarted,
    TakeGold,
    Tool,
)
from saboteur_p2p.rules.cards import ACTION_COUNTS

Cell = tuple[int, int]

N, E, S, W = 1, 2, 4, 8
#: (edge, dx, dy, opposite edge) for the inner loops.
EDGES = ((N, 0, -1, S), (E, 1, 0, W), (S, 0, 1, N), (W, -1, 0, E))

# Every candidate action gets a score on one scale and the best is played: a step of distance
# towards the goals is worth about 100, discarding a useless card 10, reaching the treasure
# 1000; negative scores are for plays that help the other side.

#: The distance of a network with no open end: it can only grow again after a rockfall.
CLOSED = 30
#: Reaching the treasure for certain ends the round; an unseen goal holds it one time in three.
REACH_SURE = 1000.0
REACH_UNSURE = 300.0
#: A gold-digger breaks the tools of players suspected at least this much...
SUSPECT = 1.5
#: ...and repairs those suspected at most this much; a saboteur spares fellow suspects.
TRUSTED = 0.5
ACCOMPLICE = SUSPECT + 1.0
#: How many repair cards in the deck name each tool (a two-tool card counts for both).
REPAIRS_OF = {
    tool: sum(count for card, count in ACTION_COUNTS if card.kind is ActionKind.REPAIR and tool in card.tools)
    for tool in Tool
}


def _popcount(mask: int) -> int:
    return bin(mask).count("1")


def _goal_cells(goal_mask: int) -> tuple[Cell, ...]:
    return tuple(GOAL_CELLS[slot] for slot in range(len(GOAL_CELLS)) if goal_mask >> slot & 1)


#: goal mask -> cell -> Manhattan distance to the nearest of those goals (filled lazily).
_DISTANCES: dict[int, dict[Cell, int]] = {mask: {} for mask in range(8)}


def goal_distance(goal_mask: int, cell: Cell) -> int:
    """Manhattan distance from ``cell`` to the nearest goal slot in ``goal_mask``."""
    table = _DISTANCES[goal_mask]
    d = table.get(cell)
    if d is None:
        x, y = cell
        d = table[cell] = min([abs(x - gx) + abs(y - gy) for gx, gy in _goal_cells(goal_mask)], default=CLOSED)
    return d


def joined_edges(segments: tuple[int, ...], incoming: int) -> int:
    """The edges of the segments that meet a connected opening on one of ``incoming``."""
    joined = 0
    for segment in segments:
        if segment & incoming:
            joined |= segment
    return joined


def urgency_of(best: int) -> int:
    """How near the gold-diggers are to a goal (0..3), from the network's best distance."""
    return 3 if best <= 1 else 2 if best == 2 else 1 if best == 3 else 0


def network_cost(counts: list[int], lowest: int = 0) -> float:
    """Lower is better for the gold-diggers: the best distance, then how many ends share it.

    ``counts[d]`` is the number of open ends at distance ``d`` (none below ``lowest``);
    several ends at the best distance mean that one dead end cannot close the way.
    """
    for d in range(lowest, CLOSED):
        if counts[d]:
            return 10.0 * d - 2.0 * min(counts[d], 3) - 0.5 * min(counts[d + 1], 3)
    return 10.0 * CLOSED


class Network:
    """The open ends of the start's network, measured against a set of goal slots.

    A network lives for one ``act`` call: the board does not change under it.
    """

    __slots__ = ("board", "connected", "goal_mask", "table", "ends", "counts", "cost", "best", "incoming_of")

    def __init__(self, board: Board, goal_mask: int, connected: dict[Cell, int] | None = None) -> None:
        """``connected`` replaces the board's network (Saboteur 2: the part one team may use)."""
        self.board = board
        self.connected = connected = board.connected if connected is None else connected
        self.goal_mask = goal_mask
        table = self.table = _DISTANCES[goal_mask]
        tiles = board.tiles
        ends: dict[Cell, int] = {}
        for (x, y), mask in connected.items():
            for edge, dx, dy, _ in EDGES:
                if mask & edge:
                    other = (x + dx, y + dy)
                    if other not in tiles and other not in ends:
                        d = table.get(other)
                        ends[other] = min(d if d is not None else goal_distance(goal_mask, other), CLOSED)
        counts = [0] * (CLOSED + 2)
        for d in ends.values():
            counts[d] += 1
        self.ends = ends
        self.counts = counts
        self.cost = network_cost(counts)
        self.best = next((d for d in range(CLOSED) if counts[d]), CLOSED)
        #: cell -> ``incoming(cell)``, asked once for every card that may go there
        self.incoming_of: dict[Cell, int] = {}

    def distance(self, cell: Cell) -> int:
        d = self.table.get(cell)
        return min(d if d is not None else goal_distance(self.goal_mask, cell), CLOSED)

    def distance_to(self, goal: Cell) -> int:
        """The distance from the nearest open end (or the start) to ``goal``."""
        gx, gy = goal
        return min([abs(x - gx) + abs(y - gy) for x, y in self.ends] or [abs(gx) + abs(gy)])

    def incoming(self, cell: Cell) -> int:
        """The edges of ``cell`` that face a connected opening."""
        mask = self.incoming_of.get(cell)
        if mask is None:
            connected = self.connected
            x, y = cell
            mask = 0
            for edge, dx, dy, back in EDGES:
                if connected.get((x + dx, y + dy), 0) & back:
                    mask |= edge
            self.incoming_of[cell] = mask
        return mask

    def cost_with(self, removed: Cell | None, added: Sequence[Cell]) -> float:
        """The cost once the end at ``removed`` is gone and ends at ``added`` appear."""
        counts, ends = self.counts, self.ends
        lowest = self.best
        undo: list[tuple[int, int]] = []
        if removed is not None and removed in ends:
            d = ends[removed]
            counts[d] -= 1
            undo.append((d, 1))
        for cell in added:
            if cell not in ends:
                d = self.distance(cell)
                counts[d] += 1
                undo.append((d, -1))
                if d < lowest:
                    lowest = d
        cost = network_cost(counts, lowest)
        for d, change in undo:
            counts[d] += change
        return cost

    def place(self, cell: Cell, joined: int, incoming: int) -> tuple[float, list[int]]:
        """The cost after a card joins the edges ``joined`` at ``cell``, and the goal slots it reaches.

        ``joined`` is the union of the card's segments that meet the ``incoming`` edges.
        """
        added: list[Cell] = []
        reached: list[int] = []
        out = joined & ~incoming
        if out:
            tiles = self.board.tiles
            x, y = cell
            for edge, dx, dy, _ in EDGES:
                if out & edge:
                    other = (x + dx, y + dy)
                    tile = tiles.get(other)
                    if tile is None:
                        added.append(other)
                    elif tile.card is None and tile.goal_slot is not None:
                        reached.append(tile.goal_slot)
        return self.cost_with(cell, added), reached

    def cost_without(self, removed: Cell) -> float:
        """The cost once the tunnel at ``removed`` is taken out (walks the whole network)."""
        counts = [0] * (CLOSED + 2)
        for cell in self.board.open_ends(without=removed):
            counts[self.distance(cell)] += 1
        return network_cost(counts)


class TableReading:
    """Who can be trusted, from the public card plays of one round.

    A player's suspicion rises for dead ends and detours (more the nearer the goals), for
    rockfalls of through tunnels and for breaking the tools of trusted players; it falls
    for building towards the goals, repairs of others and clearing dead ends.  Placements
    are judged against the cells this reader has seen filled, not against the live maze.
    """

    def __init__(self, players: int, seat: int) -> None:
        self.seat = seat
        self.suspicion = [0.0] * players
        #: what has been seen placed: cell -> face (None for the start and the goals).
        self.seen: dict[Cell, PathCard | None] = {cell: None for cell in GOAL_CELLS}
        self.seen[START_CELL] = None
        self.public_stones = 0
        #: repair cards for each tool not yet seen played (a two-tool card counts for both)
        self.repairs_left = dict(REPAIRS_OF)

    @property
    def goal_mask(self) -> int:
        """The goals that everybody knows may still hold the treasure."""
        return 7 & ~self.public_stones

    def observe(self, event: CardPlayed, digger: bool) -> None:
        """Update the player's suspicion from a card they played (``digger``: this reader's side)."""
        action, player = event.action, event.player
        mine = player == self.seat
        s = self.suspicion
        if isinstance(action, PlacePath):
            card = event.card
            if isinstance(card, PathCard):
                if not mine:
                    s[player] += self.placement_suspicion(action.cell, card, action.turned)
                self.seen[action.cell] = card
        elif isinstance(action, Rockfall):
            removed = self.seen.pop(action.cell, None)
            if not mine and removed is not None:
                s[player] += -0.7 if removed.is_dead_end else 0.8 * self._weight(action.cell)
        elif isinstance(action, BreakTool):
            target = action.target
            if mine:
                return
            if target == self.seat:
                # a digger knows it is one; a saboteur learns the player took it for a digger
                s[player] += 2.5 if digger else -1.0
            elif s[target] <= -TRUSTED:
                s[player] += 1.2
            elif s[target] >= SUSPECT:
                s[player] -= 0.8
            else:
                s[player] += 0.4
        elif isinstance(action, RepairTool):
            if isinstance(event.card, ActionCard):
                for tool in event.card.tools:
                    self.repairs_left[tool] -= 1
            target = action.target
            if mine or target == player:
                return
            if target == self.seat:
                s[player] += -1.5 if digger else 1.0
            elif s[target] >= SUSPECT:
                s[player] += 1.0
            else:
                s[player] -= 0.7

    def reveal(self, event: GoalRevealed) -> None:
        if event.card.kind is PathKind.STONE:
            self.public_stones |= 1 << event.slot

    def _weight(self, cell: Cell) -> float:
        """Plays matter more the nearer they are to the goals."""
        return 1.0 + 0.5 * max(0, 4 - goal_distance(self.goal_mask, cell))

    def placement_suspicion(self, cell: Cell, card: PathCard, turned: bool) -> float:
        """Dead ends and detours raise suspicion; a step towards the goals lowers it."""
        goal_mask = self.goal_mask
        weight = self._weight(cell)
        if card.is_dead_end:
            return 0.8 * weight
        openings = card.turned_openings if turned else card.openings
        seen = self.seen
        x, y = cell
        onward = CLOSED
        for edge, dx, dy, _ in EDGES:
            if openings & edge:
                other = (x + dx, y + dy)
                if other in GOAL_CELLS:
                    if goal_mask >> GOAL_CELLS.index(other) & 1:
                        onward = 0
                elif other not in seen:
                    onward = min(onward, goal_distance(goal_mask, other))
        if onward == CLOSED:
            return 0.2 * weight  # a through card that leads nowhere new
        progress = goal_distance(goal_mask, cell) - onward
        if progress > 0:
            return -0.5 * weight
        if progress < 0:
            return 0.6 * weight
        return 0.0


class Turn:
    """What one ``act`` call works out once and every scored action shares."""

    __slots__ = ("view", "role", "digger", "net", "goal_mask", "candidates", "urgency", "quiet", "reach_value")

    def __init__(self, view: PlayerView, role: Role) -> None:
        self.view = view
        self.role = role
        self.digger = role is not Role.SABOTEUR
        mask = 0
        for slot in range(len(GOAL_CELLS)):
            known = view.known_goals.get(slot)
            if known is None:
                mask |= 1 << slot
            elif known.kind is PathKind.TREASURE:
                mask = 1 << slot
                break
        self.goal_mask = mask
        self.candidates = _popcount(mask)
        self.net = Network(view.board, mask)
        best = self.net.best
        #: how near the gold-diggers are to a goal that may hold the treasure (0..3)
        self.urgency = urgency_of(best)
        #: a saboteur keeps a low profile while the network is far from the goals
        self.quiet = role is Role.SABOTEUR and best >= 5
        self.reach_value = REACH_UNSURE + (REACH_SURE - REACH_UNSURE) / max(self.candidates, 1)


class HeuristicBot(BaseBot):
    """Plays by role: builds to the believed treasure, or blocks near the goals."""

    name = "heuristic"

    #: True in the Saboteur 2 player (bots/heuristic2.py), which this bot hands those games to.
    plays_saboteur2 = False

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        self.rng = random.Random(seed)
        #: the player of another edition this bot hands every call to (None: the base game)
        self.edition: HeuristicBot | None = None
        if config.edition == "saboteur2" and not self.plays_saboteur2:
            from .heuristic2 import Saboteur2Heuristic

            self.edition = Saboteur2Heuristic()
            self.edition.start(seat, config, seed)
        self._new_round()

    def _new_round(self) -> None:
        #: this round's role, learnt from the round's first view (a digger until then).
        self.role = Role.GOLD_DIGGER
        self.reading = TableReading(self.config.players, self.seat)

    @property
    def suspicion(self) -> list[float]:
        if self.edition is not None:
            return self.edition.suspicion
        return self.reading.suspicion

    def on_event(self, event: Event) -> None:
        if self.edition is not None:
            self.edition.on_event(event)
        elif isinstance(event, CardPlayed):
            self.reading.observe(event, self.role is not Role.SABOTEUR)
        elif isinstance(event, GoalRevealed):
            self.reading.reveal(event)
        elif isinstance(event, RoundStarted):
            self._new_round()

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        if self.edition is not None:
            return self.edition.act(view, legal)
        if view.role is not None:
            self.role = view.role
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
            return (max(value.get(g, 0) for g in golds), -len(golds), golds)

        return min([a for a in legal if isinstance(a, TakeGold)], key=key)

    def _orient(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        """Turn a stone so that it leads towards the other goals, or away for a saboteur."""
        turn = self._turn(view)
        net = turn.net
        best: list[OrientStone] = []
        best_score = -1e18
        for action in legal:
            assert isinstance(action, OrientStone)
            face = view.known_goals.get(action.goal)
            if face is None:
                return action  # not shown the stone: either turn will do
            cell = GOAL_CELLS[action.goal]
            incoming = net.incoming(cell)
            cost, reached = net.place(cell, joined_edges(face.turned_segments(action.turned), incoming), incoming)
            score = net.cost - cost + (turn.reach_value if any(turn.goal_mask >> r & 1 for r in reached) else 0.0)
            if not turn.digger:
                score = -score
            if score > best_score:
                best, best_score = [action], score
            elif score == best_score:
                best.append(action)
        return self._pick(best)

    def _turn(self, view: PlayerView) -> Turn:
        return Turn(view, self.role)

    # -- a turn of play ---------------------------------------------------------------

    def _play(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        turn = self._turn(view)
        faces = dict(view.hand)
        path_scores: dict[tuple[Cell, int, bool], float] = {}
        card_info: dict[tuple[int, bool], tuple[tuple[int, ...], bool]] = {}
        net = turn.net
        best: list[AnyAction] = []
        best_score = -1e18
        for action in legal:
            if isinstance(action, PlacePath):
                key = (action.card, action.turned)
                info = card_info.get(key)
                if info is None:
                    card = faces[action.card]
                    assert isinstance(card, PathCard)
                    info = card_info[key] = (card.turned_segments(action.turned), card.is_dead_end)
                segments, dead_end = info
                cell = (action.x, action.y)
                incoming = net.incoming(cell)
                joined = joined_edges(segments, incoming)
                memo = (cell, joined, dead_end)
                score = path_scores.get(memo)
                if score is None:
                    score = path_scores[memo] = self._path_score(turn, net.place(cell, joined, incoming), dead_end, joined)
            elif isinstance(action, Pass):
                score = 10.0 - self._keep_value(turn, faces[action.card])
            elif isinstance(action, BreakTool):
                score = self._break_score(turn, action)
            elif isinstance(action, RepairTool):
                score = self._repair_score(turn, action)
            elif isinstance(action, MapPeek):
                score = self._map_score(turn, action.goal)
            elif isinstance(action, Rockfall):
                score = self._rockfall_score(turn, action.cell)
            else:
                score = 0.0
            if score > best_score:
                best, best_score = [action], score
            elif score == best_score:
                best.append(action)
        return self._pick(best)

    def _path_score(self, turn: Turn, result: tuple[float, list[int]], dead_end: bool, joined: int) -> float:
        cost, reached = result
        gain = turn.net.cost - cost  # > 0: the way to the goals got better
        reach = bool(reached) and any(turn.goal_mask >> slot & 1 for slot in reached)
        if turn.digger:
            if reach:
                return turn.reach_value
            if gain > 0:
                return 20.0 + 8.0 * gain
            if gain == 0:
                return -20.0 if dead_end else 3.0 + 0.2 * _popcount(joined)
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
            return 8.0 + 2.0 * min(s, 5.0) if turn.role is Role.GOLD_DIGGER and s >= SUSPECT else -5.0
        # the fewer repairs of this tool are left, the longer it stays broken
        lasting = 0.5 * (REPAIRS_OF[action.tool] - self.reading.repairs_left[action.tool])
        if turn.role is Role.GOLD_DIGGER:
            return 30.0 + 15.0 * min(s, 5.0) + 10.0 * turn.urgency + lasting if s >= SUSPECT else -5.0
        if turn.role is Role.SABOTEUR:
            if turn.quiet or s >= ACCOMPLICE:
                return -5.0
            others = [self.suspicion[p] for p in range(turn.view.players) if p != self.seat]
            return 30.0 + 20.0 * turn.urgency - 5.0 * s + (5.0 if s == min(others) else 0.0) + lasting
        # the selfish dwarf stops whoever builds best
        return 25.0 + 15.0 * turn.urgency - 5.0 * s

    def _repair_score(self, turn: Turn, action: RepairTool) -> float:
        target = action.target
        score = -5.0
        if target == self.seat:
            score = 150.0 if turn.digger else 40.0 + 20.0 * turn.urgency
        elif turn.role is Role.GOLD_DIGGER:
            s = self.suspicion[target]
            if s <= 0.0:
                score = 35.0 + 15.0 * min(-s, 3.0) + 5.0 * turn.urgency
            elif s <= TRUSTED:
                score = 20.0
        elif turn.role is Role.SABOTEUR and self.suspicion[target] >= ACCOMPLICE:
            score = 30.0
        if len(turn.view.broken[target]) > 1:
            score -= 20.0  # one repair does not free a player with two broken tools
        return score

    def _map_score(self, turn: Turn, slot: int) -> float:
        if turn.candidates < 2 or not turn.goal_mask >> slot & 1:
            return -5.0
        if turn.digger:
            score = 45.0 + 15.0 * max(0, 6 - turn.net.best)
        else:
            score = 40.0 + 10.0 * turn.urgency
        return score - 0.5 * turn.net.distance_to(GOAL_CELLS[slot])  # look where the network heads

    def _rockfall_score(self, turn: Turn, cell: Cell) -> float:
        net = turn.net
        carries = _popcount(net.board.connected.get(cell, 0)) >= 2  # the card joins the network onwards
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
            edges = _popcount(card.openings)
            return 4.0 + edges if digger else 8.0 - edges
        assert isinstance(card, ActionCard)
        kind = card.kind
        if kind is ActionKind.MAP:
            return (8.0 if digger else 6.0) if turn.candidates >= 2 else 0.0
        if kind is ActionKind.ROCKFALL:
            return 5.0 if digger else 10.0
        if kind is ActionKind.BREAK:
            if digger:
                return 6.0 if max(self.suspicion) >= SUSPECT else 3.0
            return 9.0
        wanted = any(tool in broken for broken in turn.view.broken for tool in card.tools)
        return 7.0 + 3.0 * wanted if digger else 3.0
