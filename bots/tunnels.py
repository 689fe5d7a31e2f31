"""The start's tunnel network as the heuristic bot measures it: open ends and their distances.

The bot measures the start's tunnel network by its *open ends*: the empty cells that a
connected opening points into, each at a Manhattan distance from the goals that may hold
the treasure (the treasure itself once known, else every goal not known to be a stone).
A path card is scored by how it changes the best distance and the number of ends at it,
from the card's segments and the cell's neighbours alone; only a saboteur weighing a
rockfall walks the network again.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import NamedTuple

from saboteur_p2p.rules import (
    GOAL_CELLS,
    Board,
    Door,
)

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
#: goal cell -> its slot
GOAL_SLOT: dict[Cell, int] = {cell: slot for slot, cell in enumerate(GOAL_CELLS)}
#: cell -> (edge, the neighbour beyond it, the neighbour's facing edge) for the four edges
_AROUND: dict[Cell, tuple[tuple[int, Cell, int], ...]] = {}


def around(cell: Cell) -> tuple[tuple[int, Cell, int], ...]:
    """The four neighbours of ``cell``, each with the edge towards it and its facing edge."""
    steps = _AROUND.get(cell)
    if steps is None:
        x, y = cell
        steps = _AROUND[cell] = tuple((edge, (x + dx, y + dy), back) for edge, dx, dy, back in EDGES)
    return steps


def _goal_cells(goal_mask: int) -> tuple[Cell, ...]:
    return tuple(GOAL_CELLS[slot] for slot in range(len(GOAL_CELLS)) if goal_mask >> slot & 1)


#: goal mask -> cell -> Manhattan distance to the nearest of those goals (filled lazily).
_DISTANCES: dict[int, dict[Cell, int]] = {mask: {} for mask in range(8)}
#: the same, no more than CLOSED: the distance of an open end (filled lazily).
_END_DISTANCES: dict[int, dict[Cell, int]] = {mask: {} for mask in range(8)}


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


#: segments -> for each ``incoming`` mask (0..15), ``joined_edges(segments, incoming)``
_JOINS: dict[tuple[int, ...], tuple[int, ...]] = {}


def joins_of(segments: tuple[int, ...]) -> tuple[int, ...]:
    """``joined_edges(segments, incoming)`` for every ``incoming`` mask, indexed by the mask."""
    joins = _JOINS.get(segments)
    if joins is None:
        joins = _JOINS[segments] = tuple(joined_edges(segments, incoming) for incoming in range(16))
    return joins


def urgency_of(best: int) -> int:
    """How near the gold-diggers are to a goal (0..3), from the network's best distance."""
    return 3 if best <= 1 else 2 if best == 2 else 1 if best == 3 else 0


def network_cost(counts: list[int], lowest: int = 0) -> float:
    """Lower is better for the gold-diggers: the best distance, then how many ends share it.

    ``counts[d]`` is the number of open ends at distance ``d`` (none below ``lowest``);
    several ends at the best distance mean that one dead end cannot close the way.
    """
    for d in range(lowest, CLOSED):
        here = counts[d]
        if here:
            beyond = counts[d + 1]
            return 10.0 * d - 2.0 * (here if here < 3 else 3) - 0.5 * (beyond if beyond < 3 else 3)
    return 10.0 * CLOSED


def distance_of(cost: float) -> int:
    """The best distance of a network whose ``network_cost`` is ``cost``: a cost lies in
    (10·d - 7.5, 10·d - 2] for best distance d (CLOSED when no open end is left)."""
    return -int(-cost // 10)


#: the network's cost after a placement, and the face-down goal slots the card reaches
Placed = tuple[float, tuple[int, ...]]


class Spot(NamedTuple):
    """What placing a card at one empty cell does to the network, apart from the card itself."""

    #: the edges of the cell that face a connected opening
    incoming: int
    #: the distance of the open end at the cell (a card there closes it), or -1
    end: int
    #: (edge, distance): the new open ends an opening of the card on that edge would add
    #: (left empty at a far spot whose own end is three beyond the best: see ``spot``)
    ends: list[tuple[int, int]]
    #: (edge, slot): the face-down goals an opening of the card on that edge would reach
    goals: list[tuple[int, int]]
    #: the edges of ``goals``
    goal_edges: int
    #: the edges beyond which lies a face-up card cut off from the network, or a card of it
    #: whose side facing the cell belongs to a segment the network does not reach (a
    #: bridge's other tunnel, a door the team may not pass)
    cut_off: int
    #: whether every change a card here can make lies beyond the two best distances, which
    #: alone decide the cost (``network_cost``): then no card here changes the cost
    far: bool
    #: far, and no goal or cut-off card beyond any edge: whatever card goes here, the
    #: network stays as it is (``Network.unchanged``)
    still: bool


_new_tuple = tuple.__new__


#: what ``Network._measure`` found: the closed doors' network (None: the board's own), the
#: open ends, their counts, the cost, the best distance, and the spots worked out so far
Measured = tuple[dict[Cell, int] | None, dict[Cell, int], list[int], float, int, dict[Cell, Spot]]
#: (board version, goal mask, closed doors) -> what was measured of that maze: a maze that a
#: move left as it was (an action card, a pass) is measured once for every seat and turn
_MEASURED: dict[tuple[int, int, frozenset[Door]], Measured] = {}
#: the most mazes kept (then all are forgotten): the game's against each goal mask, and a
#: few a bot tries moves on
_MEASURED_KEPT = 16


class Network:
    """The open ends of the start's network, measured against a set of goal slots.

    A network measures its board as it is: what it works out (the open ends, and what a
    placement at a cell depends on, ``Spot``, once per cell for every card and turn that may
    go there) is shared by every network of the same maze in the same state
    (``Board.version``) and goal mask, whichever seat or turn measures it.  What is shared
    holds no maze, so the game's maze is not copied on write for it (``held_elsewhere``).
    """

    __slots__ = (
        "best", "board", "closed", "connected", "cost", "counts", "ends", "goal_mask", "near", "spots", "unchanged",
    )

    def __init__(self, board: Board, goal_mask: int, closed: frozenset[Door] = frozenset()) -> None:
        """``closed``: the doors whose segments the network does not enter (Saboteur 2: the
        other team's, for the part of the board's network one team may use)."""
        self.board = board
        self.closed = closed
        self.goal_mask = goal_mask
        self.near = _END_DISTANCES[goal_mask]
        key = (board.version, goal_mask, closed)
        measured = _MEASURED.get(key)
        if measured is None:
            measured = self._measure(board, closed)
            if len(_MEASURED) >= _MEASURED_KEPT:
                _MEASURED.clear()  # all at once: one call, whatever another thread measures meanwhile
            _MEASURED[key] = measured
        connected, self.ends, counts, self.cost, self.best, self.spots = measured
        self.connected = board.connected if connected is None else connected
        #: this network's own counts: ``extend`` changes them for a moment (a bot stopped
        #: there by its time limit leaves them wrong, for itself alone)
        self.counts = counts.copy()
        #: what ``extend`` says of a card that changes neither the cost nor a goal
        self.unchanged: Placed = (self.cost, ())

    def _measure(self, board: Board, closed: frozenset[Door]) -> Measured:
        """The open ends of ``board``'s network, their counts by distance, its cost and best
        distance, and an empty ``spots`` to fill."""
        connected = board.network(closed) if closed else board.connected
        own = connected is board.connected
        near = self.near
        # the board keeps its own network's open ends: they are its frontier (board.py)
        cells = board.frontier if own else self._open_cells(board, connected)
        try:
            ends = {cell: near[cell] for cell in cells}
        except KeyError:  # a cell not measured before
            ends = {cell: self.distance(cell) for cell in cells}
        counts = [0] * (CLOSED + 2)
        for d in ends.values():
            counts[d] += 1
        best = 0
        while best < CLOSED and not counts[best]:
            best += 1
        #: cell -> its ``Spot``, worked out once for every card that may go there
        spots: dict[Cell, Spot] = {}
        return (None if own else connected), ends, counts, network_cost(counts), best, spots

    @staticmethod
    def _open_cells(board: Board, connected: dict[Cell, int]) -> dict[Cell, None]:
        """The empty cells that a connected opening points into."""
        tiles = board.tiles
        cells: dict[Cell, None] = {}
        for (x, y), mask in connected.items():
            for edge, dx, dy, _ in EDGES:
                if mask & edge:
                    other = (x + dx, y + dy)
                    if other not in tiles:
                        cells[other] = None
        return cells

    def distance(self, cell: Cell) -> int:
        """The distance an open end at ``cell`` counts at (the goals', at most CLOSED)."""
        d = self.near.get(cell)
        if d is None:
            d = self.near[cell] = min(goal_distance(self.goal_mask, cell), CLOSED)
        return d

    def distance_to(self, goal: Cell) -> int:
        """The distance from the nearest open end (or the start) to ``goal``."""
        gx, gy = goal
        return min([abs(x - gx) + abs(y - gy) for x, y in self.ends] or [abs(gx) + abs(gy)])

    def spot(self, cell: Cell) -> Spot:
        """What a card placed at the empty ``cell`` meets around it (worked out once per cell)."""
        spot = self.spots.get(cell)
        if spot is None:
            connected, ends, tiles, openings = self.connected, self.ends, self.board.tiles, self.board.openings
            incoming = cut_off = goal_edges = 0
            new_ends: list[tuple[int, int]] = []
            goals: list[tuple[int, int]] = []
            end = ends.get(cell, -1)
            near_best = self.best + 1
            far = end < 0 or end > near_best
            # a step changes the distance by one at most: next to an end this far out, every
            # new end is far too, and their distances are not needed
            measure = end < 0 or end <= near_best + 1
            for edge, other, back in _AROUND.get(cell) or around(cell):
                mask = connected.get(other)
                if mask is not None:
                    if mask & back:
                        incoming |= edge
                    elif openings.get(other, 0) & back:
                        cut_off |= edge  # the card opens this way by a segment the network does not reach
                    continue
                tile = tiles.get(other)
                if tile is None:
                    if measure and other not in ends:
                        d = self.near.get(other)
                        if d is None:
                            d = self.distance(other)
                        new_ends.append((edge, d))
                        if d <= near_best:
                            far = False
                elif tile.card is not None:
                    cut_off |= edge
                elif tile.goal_slot is not None:
                    goals.append((edge, tile.goal_slot))
                    goal_edges |= edge
            # tuple.__new__ rather than Spot(): a named tuple's own __new__ is a Python call
            still = far and not goal_edges and not cut_off
            spot = _new_tuple(Spot, (incoming, end, new_ends, goals, goal_edges, cut_off, far, still))
            self.spots[cell] = spot
        return spot

    def incoming(self, cell: Cell) -> int:
        """The edges of ``cell`` that face a connected opening."""
        return self.spot(cell).incoming

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

    def place(self, cell: Cell, joined: int, incoming: int) -> Placed:
        """The cost after a card joins the edges ``joined`` at ``cell``, and the goal slots it reaches.

        ``joined`` is the union of the card's segments that meet the ``incoming`` edges.
        """
        return self.extend(self.spot(cell), joined & ~incoming)

    def extend(self, spot: Spot, out: int) -> Placed:
        """``place`` at the cell of ``spot`` for a card whose joined segments open onto ``out``."""
        reached: tuple[int, ...] = ()
        if out & spot.goal_edges:
            reached = tuple([slot for edge, slot in spot.goals if out & edge])
        if spot.far:
            return (self.cost, reached) if reached else self.unchanged
        end = spot.end
        counts = self.counts
        lowest = self.best
        if end >= 0:
            counts[end] -= 1
        added: list[int] = []
        if out:
            for edge, d in spot.ends:
                if out & edge:
                    counts[d] += 1
                    added.append(d)
                    if d < lowest:
                        lowest = d
        cost = network_cost(counts, lowest)
        if end >= 0:
            counts[end] += 1
        for d in added:
            counts[d] -= 1
        return cost, reached

    def may_improve_without(self, removed: Cell) -> bool:
        """Whether taking the tunnel at ``removed`` out may lower the cost (``cost_without``),
        known without walking the network: without the card, the open ends are some of
        today's plus the cell itself, and fewer open ends never cost less."""
        if self.connected is not self.board.connected:
            return True  # behind a closed door the card may have cut off a part: walk it
        return self.cost_with(None, (removed,)) < self.cost

    def cost_without(self, removed: Cell) -> float:
        """The cost once the tunnel at ``removed`` is taken out (walks the whole network, or
        for a network that closes doors, a copy of the board without the card)."""
        if self.connected is self.board.connected:
            ends: Iterable[Cell] = self.board.open_ends(without=removed)
        else:
            after = self.board.clone()
            after.remove(removed)
            ends = self._open_cells(after, after.network(self.closed))
        counts = [0] * (CLOSED + 2)
        for cell in ends:
            counts[self.distance(cell)] += 1
        return network_cost(counts)
