"""The start's tunnel network as the heuristic bot measures it: open ends and their distances.

The bot measures the start's tunnel network by its *open ends*: the empty cells that a
connected opening points into, each at a Manhattan distance from the goals that may hold
the treasure (the treasure itself once known, else every goal not known to be a stone).
A path card is scored by how it changes the best distance and the number of ends at it,
from the card's segments and the cell's neighbours alone; only a saboteur weighing a
rockfall walks the network again.
"""
from __future__ import annotations

from collections.abc import Sequence

from saboteur_p2p.rules import (
    GOAL_CELLS,
    Board,
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

    __slots__ = ("best", "board", "connected", "cost", "counts", "ends", "goal_mask", "incoming_of", "table")

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


