"""The maze: placed cards, the start's tunnel network and the frontier of legal cells.

The board keeps three things up to date on every change, so that enumerating legal path
placements costs only the size of the answer:

* ``connected[cell]``: the edges of the cell's segments that are joined to the start;
* ``frontier[cell]``: for every empty cell next to a connected opening, a 16-bit set of the
  opening masks a card may have there (bit ``o`` set when openings ``o`` fit every face-up
  neighbour and meet a connected opening);
* ``cells_for_openings[o]``: the frontier cells whose set holds ``o``.

Face-down goal cards occupy their cell but impose nothing on their neighbours.

Saboteur 2 ladders are joined to the start wherever they lie: their segments are sources of
the network like the start card's.  Which team a route lets through (doors) matters only at
the end of a round; ``open_ways`` answers it.
"""
from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .cards import (
    ALL_EDGES,
    EDGE_DELTA,
    EDGE_ORDER,
    OPPOSITE,
    START,
    Door,
    PathCard,
    PathKind,
)
from .openings import LEGAL_OPENINGS

Cell = tuple[int, int]

START_CELL: Cell = (0, 0)
GOAL_CELLS: tuple[Cell, ...] = ((8, -2), (8, 0), (8, 2))



#: (edge, dx, dy, the neighbour's facing edge) for each edge in EDGE_ORDER: the board's inner
#: loops read these four at once rather than from three dicts.
_STEPS: tuple[tuple[int, int, int, int], ...] = tuple((e, *EDGE_DELTA[e], OPPOSITE[e]) for e in EDGE_ORDER)
#: the set bits of each byte, lowest first, as opening masks (for the high byte, plus 8): a
#: frontier cell's change touches only the masks whose bit flipped.
_LOW_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(o for o in range(8) if b >> o & 1) for b in range(256))
_HIGH_BITS: tuple[tuple[int, ...], ...] = tuple(tuple(o + 8 for o in range(8) if b >> o & 1) for b in range(256))


@dataclass(frozen=True, slots=True)
class Tile:
    """A card lying in the maze; ``card`` is None for a face-down goal."""

    card: PathCard | None
    turned: bool
    segments: tuple[int, ...]
    goal_slot: int | None = None

    @property
    def face_down(self) -> bool:
        return self.card is None

    @property
    def openings(self) -> int:
        mask = 0
        for segment in self.segments:
            mask |= segment
        return mask


@dataclass(frozen=True, slots=True)
class Ways:
    """Which teams have a route of tunnels from the start (or a ladder) to a cell."""

    blue: bool
    green: bool
    doorless: bool


_NO_TILE = Tile(None, False, ())
#: read once for every card placed (as phases.py's PLAY: Python 3.11's enum lookups are slow)
_TUNNEL = PathKind.TUNNEL
#: where a neighbour lies, in words (y grows southwards)
_SIDE = {1: "north", 2: "east", 4: "south", 8: "west"}


def neighbours(cell: Cell) -> Iterator[tuple[int, Cell]]:
    x, y = cell
    for edge in EDGE_ORDER:
        dx, dy = EDGE_DELTA[edge]
        yield edge, (x + dx, y + dy)


class ReadOnlyBoard(RuntimeError):
    """A change asked of a maze lent read-only: the game's own, in a bot's view."""


class Board:
    """The maze of one round."""

    __slots__ = (
        "_ladder_spots", "cells_for_openings", "connected", "frontier", "openings", "read_only", "tiles", "tunnels",
        "version",
    )

    def __init__(self) -> None:
        self.tiles: dict[Cell, Tile] = {}
        #: openings of face-up cards only; a face-down goal is absent here.
        self.openings: dict[Cell, int] = {}
        self.connected: dict[Cell, int] = {}
        self.frontier: dict[Cell, int] = {}
        self.cells_for_openings: list[dict[Cell, None]] = [{} for _ in range(16)]
        #: the cells of tunnel cards (what a rockfall may remove), in the order of ``tiles``
        self.tunnels: dict[Cell, None] = {}
        #: the empty cells touching a card and next to no goal (ladder_cells), until tiles change
        self._ladder_spots: tuple[Cell, ...] | None = None
        #: lent to a bot in its view (botapi.GuardedSeat): place, remove and the rest refuse
        self.read_only = False
        #: a number no other maze has, nor this one before its last change (place,
        #: reveal_goal, remove, rebuild): what a bot worked out of it holds while it stays
        #: the same (bots/tunnels.Network)
        self.version = next(_VERSIONS)

    @classmethod
    def new_round(cls) -> Board:
        """A round's maze: the start and the three face-down goals (a copy of one made once:
        every round of every game begins with it)."""
        return _FRESH.clone() if cls is Board else cls._first_round()

    @classmethod
    def _first_round(cls) -> Board:
        board = cls()
        board.tiles[START_CELL] = Tile(START, False, START.segments)
        board.openings[START_CELL] = START.openings
        for slot, cell in enumerate(GOAL_CELLS):
            board.tiles[cell] = Tile(None, False, (), goal_slot=slot)
        board.connected[START_CELL] = ALL_EDGES
        for _, cell in neighbours(START_CELL):
            board._refresh(cell)
        return board

    def clone(self) -> Board:
        other = Board.__new__(Board)
        # dict.copy() rather than dict(): about twice as fast for the small dicts of a board
        other.tiles = self.tiles.copy()
        other.openings = self.openings.copy()
        other.connected = self.connected.copy()
        other.frontier = self.frontier.copy()
        other.cells_for_openings = [cells.copy() for cells in self.cells_for_openings]
        other.tunnels = self.tunnels.copy()
        other._ladder_spots = self._ladder_spots
        other.read_only = False  # a bot's own copy, to try moves on
        other.version = next(_VERSIONS)
        return other

    def __copy__(self) -> Board:
        """A copy that shares no dict with this maze (a shallow one would: its changes would
        be this maze's)."""
        return self.clone()

    def __getstate__(self) -> dict[str, Any]:
        """copy, deepcopy and pickle: a bot's own copy of a lent maze is not lent."""
        return {name: _SLOT_OF[name].__get__(self) for name in Board.__slots__} | {"read_only": False}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.version = next(_VERSIONS)  # a copy is another maze (and a version from another process means nothing)

    def _refuse_if_lent(self) -> None:
        if self.read_only:
            raise ReadOnlyBoard("the view's maze is the game's own and read-only: try moves on board.clone()")

    # -- queries -----------------------------------------------------------------

    def face_down_goals(self) -> dict[Cell, int]:
        return {cell: t.goal_slot for cell, t in self.tiles.items() if t.card is None and t.goal_slot is not None}

    def goal_cell(self, slot: int) -> Cell:
        return GOAL_CELLS[slot]

    def can_place(self, cell: Cell, openings: int) -> bool:
        return bool(self.frontier.get(cell, 0) >> openings & 1)

    def cells_for(self, openings: int) -> Iterable[Cell]:
        return self.cells_for_openings[openings].keys()

    def cell_problem(self, cell: Cell) -> str | None:
        """Which rule any card laid at ``cell`` breaks, whatever its face (the cell holds a
        card, the start or a goal, or touches none), or None: what the other seats check
        before the card is shown (protocol.md §6.11)."""
        if cell in self.tiles:
            tile = self.tiles[cell]
            if tile.goal_slot is not None:
                return f"{cell} is a goal cell"
            if tile.card is START:
                return f"{cell} is the start cell"
            return f"{cell} already holds a card"
        x, y = cell
        if not any((x + dx, y + dy) in self.tiles for dx, dy in EDGE_DELTA.values()):
            return f"{cell} touches no card"
        return None

    def placement_problem(self, cell: Cell, segments: tuple[int, ...], ladder: bool = False) -> str | None:
        """Say which rule a placement breaks, or None when it is legal."""
        problem = self.cell_problem(cell)
        if problem is not None:
            return problem
        openings = 0
        for segment in segments:
            openings |= segment
        x, y = cell
        for edge in EDGE_ORDER:
            dx, dy = EDGE_DELTA[edge]
            other = (x + dx, y + dy)
            if other not in self.tiles:
                continue
            theirs = self.openings.get(other)
            if theirs is None:
                continue  # a face-down goal imposes nothing
            if bool(theirs & OPPOSITE[edge]) != bool(openings & edge):
                side = "a tunnel" if theirs & OPPOSITE[edge] else "a wall"
                return f"the card does not fit the card to its {_SIDE[edge]} at {other}, which has {side} facing it"
        if ladder:
            goal = self.goal_next_to(cell)
            if goal is not None:
                return f"a ladder may not lie next to a goal card ({goal})"
            return None  # a ladder is joined to the start by itself
        if not self.can_place(cell, openings):
            return f"the card at {cell} would not join the start's tunnel network"
        return None

    def ladder_cells(self, openings: int) -> list[Cell]:
        """The cells where a ladder card with these openings may go (rules.md 8): touching a
        card, next to no goal, fitting every neighbour."""
        spots = self._ladder_spots
        if spots is None:
            spots = self._ladder_spots = self._find_ladder_spots()
        fits = self.fits
        return [cell for cell in spots if fits(cell, openings)]

    def _find_ladder_spots(self) -> tuple[Cell, ...]:
        spots: list[Cell] = []
        seen: set[Cell] = set()
        tiles = self.tiles
        for placed in tiles:
            for _, cell in neighbours(placed):
                if cell in tiles or cell in seen:
                    continue
                seen.add(cell)
                if self.goal_next_to(cell) is None:
                    spots.append(cell)
        return tuple(spots)

    def goal_next_to(self, cell: Cell) -> Cell | None:
        """A goal card's cell orthogonally next to ``cell``, if any."""
        tiles = self.tiles
        for _, other in neighbours(cell):
            if tiles.get(other, _NO_TILE).goal_slot is not None:
                return other
        return None

    def crystals(self) -> int:
        """Crystals on the face-up cards of the maze."""
        return sum(t.card.crystals for t in self.tiles.values() if t.card is not None)

    def open_ways(self, target: Cell) -> Ways:
        """Whether the blue team, the green team, and a route with no door at all reach the
        card at ``target`` from the start or a ladder (rules.md 8)."""
        return Ways(
            target in self.network(frozenset((Door.GREEN,))),
            target in self.network(frozenset((Door.BLUE,))),
            target in self.network(frozenset((Door.BLUE, Door.GREEN))),
        )

    def network(self, closed: frozenset[Door] = frozenset()) -> dict[Cell, int]:
        """The start's network as a team may use it: for each face-up card reached from the
        start or a ladder without entering a segment behind a door in ``closed``, the edges
        of its reached segments.  Without such a door it is ``connected`` itself (read-only).
        """
        tiles = self.tiles
        if not any(t.card is not None and t.card.door in closed for t in tiles.values()):
            return self.connected

        def passable(cell: Cell, index: int) -> bool:
            card = tiles[cell].card
            return card is None or card.door not in closed or card.door_segment != index

        reached: dict[Cell, int] = {}
        stack = [(cell, i) for cell, i in self._source_segments() if passable(cell, i)]
        seen = set(stack)
        while stack:
            cell, index = stack.pop()
            segment = tiles[cell].segments[index]
            reached[cell] = reached.get(cell, 0) | segment
            x, y = cell
            for edge in EDGE_ORDER:
                if not segment & edge:
                    continue
                dx, dy = EDGE_DELTA[edge]
                other = (x + dx, y + dy)
                tile = tiles.get(other)
                if tile is None or tile.card is None:
                    continue
                back = OPPOSITE[edge]
                for i, theirs in enumerate(tile.segments):
                    if theirs & back and (other, i) not in seen and passable(other, i):
                        seen.add((other, i))
                        stack.append((other, i))
        return reached

    def _source_segments(self) -> list[tuple[Cell, int]]:
        """The segments of the start card and of every ladder card."""
        return [(cell, i) for cell in self._sources() for i in range(len(self.tiles[cell].segments))]

    def _sources(self) -> dict[Cell, int]:
        """The start card and every ladder card, with the edges joined to the start."""
        connected = {START_CELL: ALL_EDGES}
        for cell, tile in self.tiles.items():
            if tile.card is not None and tile.card.ladder:
                connected[cell] = tile.openings
        return connected

    def removable(self, cell: Cell) -> bool:
        tile = self.tiles.get(cell)
        return tile is not None and tile.card is not None and tile.card.kind is PathKind.TUNNEL

    def tunnel_cells(self) -> list[Cell]:
        return list(self.tunnels)

    def fits(self, cell: Cell, openings: int) -> bool:
        """True when ``openings`` meet every face-up neighbour opening for opening, wall for wall."""
        x, y = cell
        for edge in EDGE_ORDER:
            dx, dy = EDGE_DELTA[edge]
            theirs = self.openings.get((x + dx, y + dy))
            if theirs is not None and bool(theirs & OPPOSITE[edge]) != bool(openings & edge):
                return False
        return True

    # -- changes -------------------------------------------------------------------

    def place(self, cell: Cell, card: PathCard, turned: bool) -> list[Cell]:
        """Put a card in the maze (legality is the caller's business).

        Returns the face-down goal cells that the start's network now reaches.
        """
        self._refuse_if_lent()
        segments = card.turned_segments(turned)
        self.tiles[cell] = _tile(card, turned, segments)
        self._ladder_spots = None
        self.version = next(_VERSIONS)
        openings = 0
        for segment in segments:
            openings |= segment
        self.openings[cell] = openings
        if card.kind is _TUNNEL:
            self.tunnels[cell] = None
        self._drop_frontier(cell)
        return self._join(cell)

    def reveal_goal(self, cell: Cell, card: PathCard, turned: bool) -> list[Cell]:
        """Turn a goal face up; returns face-down goals newly reached through it."""
        self._refuse_if_lent()
        slot = self.tiles[cell].goal_slot
        segments = card.turned_segments(turned)
        tile = Tile(card, turned, segments, goal_slot=slot)
        self.tiles[cell] = tile
        self._ladder_spots = None
        self.version = next(_VERSIONS)
        self.openings[cell] = tile.openings
        return self._join(cell)

    def remove(self, cell: Cell) -> None:
        """Take a tunnel card out of the maze (a rockfall) and rebuild the network.

        As ``rebuild``, but the frontier cells that neither touch the removed card nor a
        card whose joined edges changed keep the openings they had (a rockfall was 7% of a
        random game's time, most of it recomputing cells it did not change)."""
        self._refuse_if_lent()
        del self.tiles[cell]
        del self.openings[cell]
        before = self.connected
        kept = self.frontier
        self._renew()
        connected = self.connected
        x, y = cell
        stale = {cell, *((x + dx, y + dy) for _, dx, dy, _ in _STEPS)}
        for other, edges in before.items():
            if connected.get(other) != edges:
                ox, oy = other
                stale.update((ox + dx, oy + dy) for _, dx, dy, _ in _STEPS)
        self._refill(kept, stale)

    def rebuild(self) -> None:
        """Recompute the network and the frontier from the tiles alone."""
        self._refuse_if_lent()
        self._renew()
        self._refill({}, None)

    def _renew(self) -> None:
        """The openings, tunnels and network of the tiles, anew (the frontier is _refill's)."""
        self._ladder_spots = None
        self.version = next(_VERSIONS)
        self.openings = {cell: t.openings for cell, t in self.tiles.items() if t.card is not None}
        self.tunnels = {
            cell: None for cell, t in self.tiles.items() if t.card is not None and t.card.kind is _TUNNEL
        }
        self.connected = self._sources()
        self._spread(list(self.connected))

    def _refill(self, kept: dict[Cell, int], stale: set[Cell] | None) -> None:
        """The frontier anew, in the order a rebuild makes it (the order of the legal
        placements): each empty cell next to the network, taken from ``kept`` unless it is
        ``stale`` (None: all are)."""
        self.frontier = {}
        self.cells_for_openings = [{} for _ in range(16)]
        seen: set[Cell] = set()
        refresh = self._refresh
        frontier = self.frontier
        cells_for = self.cells_for_openings
        for cx, cy in self.connected:
            for _, dx, dy, _ in _STEPS:
                other = (cx + dx, cy + dy)
                if other in seen:
                    continue
                seen.add(other)
                if stale is None or other in stale:
                    refresh(other)
                    continue
                bits = kept.get(other, 0)  # a frontier cell is empty, and no card was laid
                if bits:
                    for mask in _LOW_BITS[bits & 255] + _HIGH_BITS[bits >> 8]:
                        cells_for[mask][other] = None
                    frontier[other] = bits

    # -- internals -----------------------------------------------------------------

    def _join(self, cell: Cell) -> list[Cell]:
        """Connect what the card at ``cell`` joins to the network; refresh the frontier."""
        tile = self.tiles[cell]
        x, y = cell
        joined = tile.openings if tile.card is not None and tile.card.ladder else 0
        connected = self.connected
        for segment in tile.segments:
            for edge, dx, dy, back in _STEPS:
                if segment & edge and connected.get((x + dx, y + dy), 0) & back:
                    joined |= segment
                    break
        reached: list[Cell] = []
        touched = [cell]
        if joined:
            self.connected[cell] = joined
            touched = self._spread([cell], reached)
        refreshed: set[Cell] = set()
        refresh = self._refresh
        for cx, cy in touched:
            for _, dx, dy, _ in _STEPS:
                other = (cx + dx, cy + dy)
                if other not in refreshed:
                    refreshed.add(other)
                    refresh(other)
        return reached

    def open_ends(self, without: Cell | None = None) -> set[Cell]:
        """The empty cells the start's network opens onto, as if ``without`` were taken out
        (``without`` itself is among them if the network reaches it)."""
        ends: set[Cell] = set()
        sources = self._sources()
        if without is not None:
            sources.pop(without, None)
        self._spread(list(sources), connected=sources, skip=without, ends=ends)
        return ends

    def _spread(
        self,
        start: list[Cell],
        reached: list[Cell] | None = None,
        *,
        connected: dict[Cell, int] | None = None,
        skip: Cell | None = None,
        ends: set[Cell] | None = None,
    ) -> list[Cell]:
        """Spread connectivity outwards from connected cells; returns the cells it changed.

        By default into the board's own ``connected``; ``connected``, ``skip`` and ``ends``
        serve a walk of a hypothetical network (a cell taken out, open ends collected).
        """
        stack = list(start)
        changed = list(start)
        tiles, openings = self.tiles, self.openings
        if connected is None:
            connected = self.connected
        while stack:
            cell = stack.pop()
            x, y = cell
            mask = connected[cell]
            for edge, dx, dy, back in _STEPS:
                if not mask & edge:
                    continue
                other = (x + dx, y + dy)
                tile = tiles.get(other)
                if tile is None or other == skip:
                    if ends is not None:
                        ends.add(other)
                    continue
                if tile.card is None:
                    if reached is not None and tile.goal_slot is not None and other not in reached:
                        reached.append(other)
                    continue
                if not openings[other] & back:
                    continue
                have = connected.get(other, 0)
                if have & back:
                    continue
                for segment in tile.segments:
                    if segment & back:
                        connected[other] = have | segment
                        break
                stack.append(other)
                changed.append(other)
        return changed

    def _drop_frontier(self, cell: Cell) -> None:
        bits = self.frontier.pop(cell, 0)
        if bits:
            cells_for = self.cells_for_openings
            for mask in _LOW_BITS[bits & 255] + _HIGH_BITS[bits >> 8]:
                del cells_for[mask][cell]

    def _refresh(self, cell: Cell) -> None:
        """Recompute which opening masks may go into ``cell``."""
        if cell in self.tiles:
            return
        x, y = cell
        openings, connected = self.openings, self.connected
        must_open = must_closed = joined = 0
        for edge, dx, dy, back in _STEPS:
            other = (x + dx, y + dy)
            theirs = openings.get(other)
            if theirs is None:
                continue
            if theirs & back:
                must_open |= edge
                if connected.get(other, 0) & back:
                    joined |= edge
            else:
                must_closed |= edge
        bits = LEGAL_OPENINGS[must_open | must_closed << 4 | joined << 8] if joined else 0
        frontier = self.frontier
        old = frontier.get(cell, 0)
        if bits == old:
            return
        changed = bits ^ old
        cells_for = self.cells_for_openings
        for mask in _LOW_BITS[changed & 255] + _HIGH_BITS[changed >> 8]:
            if bits >> mask & 1:
                cells_for[mask][cell] = None
            else:
                del cells_for[mask][cell]
        if bits:
            frontier[cell] = bits
        else:
            frontier.pop(cell, None)


#: every maze's version is drawn from here: a number is never given twice in a process
_VERSIONS = itertools.count(1)

#: Board's own slots, read past a LentBoard's properties (lent_board.py)
_SLOT_OF = {name: Board.__dict__[name] for name in Board.__slots__}

#: the maze every round begins with, copied by ``Board.new_round``
_FRESH = Board._first_round()

#: the tiles of placed cards, by the card's id and turn: a tile is a value, and a game lays
#: the same few dozen faces again and again.  The tile holds its card, so the id stays that
#: card's while the entry is kept; at most _TILES_KEPT entries (a card made elsewhere, a
#: bot's or a test's, is an object of its own).
_TILES: dict[tuple[int, bool], Tile] = {}
_TILES_KEPT = 1024


def _tile(card: PathCard, turned: bool, segments: tuple[int, ...]) -> Tile:
    key = (id(card), turned)
    tile = _TILES.get(key)
    if tile is None:
        if len(_TILES) >= _TILES_KEPT:
            _TILES.clear()
        tile = _TILES[key] = Tile(card, turned, segments)
    return tile
