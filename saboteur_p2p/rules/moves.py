"""Move generation: the legal plays of a turn of the base game's cards (rules.md 3).

``State.legal_actions`` asks ``base_game_moves`` during the play phase; an edition's state
builds its own list from ``placements`` and ``base_action_moves`` plus its new cards.  Cards
with the same face are interchangeable, so only the lowest handle of each face is listed; a
symmetric path card is listed upright only.
"""
from __future__ import annotations

from collections.abc import Container, Sequence
from typing import TYPE_CHECKING, Protocol

from .actions import (
    AnyAction,
    break_tool,
    map_peek,
    pass_card,
    place_path,
    repair_tool,
    rockfall,
)
from .board import GOAL_CELLS, Board
from .cards import ActionCard, ActionKind, PathCard, Tool

if TYPE_CHECKING:
    from .state import State

#: the kinds compared with for every action card of every hand, read once (as phases.py's PLAY)
_BREAK, _REPAIR, _MAP, _ROCKFALL = ActionKind.BREAK, ActionKind.REPAIR, ActionKind.MAP, ActionKind.ROCKFALL


def base_game_moves(state: State) -> list[AnyAction]:
    """Every distinct play of the current player's hand in the base game: placements (unless
    a tool is broken), action cards, then a pass of each card."""
    p = state.current
    faces = state.faces
    paths = not state.blocked(p)
    cells_for = state.board.cells_for_openings
    actions: list[AnyAction] = []
    add = actions.append
    seen: set[int] = set()
    passes: list[AnyAction] = []
    # Plain loops rather than comprehensions or helpers: this runs for every move of every
    # game, and a hand's lists are short, so a call per card cost more than the card's moves.
    for h in sorted(state.hands[p]):
        face = faces[h]
        key = id(face)
        if key in seen:
            continue
        seen.add(key)
        passes.append(pass_card(h))
        if isinstance(face, PathCard):
            if not paths:
                continue
            if face.ladder:
                actions += placements(state.board, h, face)
                continue
            for x, y in cells_for[face.openings]:
                add(place_path(h, x, y, False))
            if not face.symmetric:
                for x, y in cells_for[face.turned_openings]:
                    add(place_path(h, x, y, True))
            continue
        assert isinstance(face, ActionCard)
        actions += base_action_moves(state, h, face)
    actions += passes
    return actions


def placements(board: Board, h: int, face: PathCard) -> list[AnyAction]:
    """Every legal cell and turn of path card ``h`` (a symmetric card upright only)."""
    moves: list[AnyAction] = []
    for turned in (False,) if face.symmetric else (False, True):
        openings = face.turned_openings if turned else face.openings
        cells = board.ladder_cells(openings) if face.ladder else board.cells_for_openings[openings]
        for x, y in cells:
            moves.append(place_path(h, x, y, turned))
    return moves


class ActionTable(Protocol):
    """What the base game's action cards need of a table: a ``State``, or a bot's picture of
    one (bots/hands.py weighs the cards a player may hold)."""

    @property
    def board(self) -> Board: ...
    @property
    def broken(self) -> Sequence[Container[Tool]]: ...
    @property
    def pending_stones(self) -> Container[int]: ...


def base_action_moves(state: ActionTable, h: int, face: ActionCard) -> list[AnyAction]:
    """The legal plays of the base game's action card ``h`` (break, repair, map, rockfall)."""
    actions: list[AnyAction] = []
    kind = face.kind
    if kind is _BREAK:
        tool = face.tools[0]
        for t, tools in enumerate(state.broken):
            if tool not in tools:
                actions.append(break_tool(tool, t, h))
    elif kind is _REPAIR:
        for tool in face.tools:
            for t, tools in enumerate(state.broken):
                if tool in tools:
                    actions.append(repair_tool(tool, t, h))
    elif kind is _MAP:
        tiles = state.board.tiles
        for slot, cell in enumerate(GOAL_CELLS):
            if tiles[cell].card is None and slot not in state.pending_stones:
                actions.append(map_peek(slot, h))
    elif kind is _ROCKFALL:
        for x, y in state.board.tunnels:
            actions.append(rockfall(x, y, h))
    return actions
