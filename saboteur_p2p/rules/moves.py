"""Move generation: the legal plays of a turn of the base game's cards (RULES.md 3).

``State.legal_actions`` asks ``base_game_moves`` during the play phase; an edition's state
builds its own list from ``placements`` and ``base_action_moves`` plus its new cards.  Cards
with the same face are interchangeable, so only the lowest handle of each face is listed; a
symmetric path card is listed upright only.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

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
from .cards import ActionCard, ActionKind, PathCard

if TYPE_CHECKING:
    from .state import State


def base_game_moves(state: State) -> list[AnyAction]:
    """Every distinct play of the current player's hand in the base game: placements (unless
    a tool is broken), action cards, then a pass of each card."""
    p = state.current
    faces = state.faces
    actions: list[AnyAction] = []
    seen: set[int] = set()
    passes: list[AnyAction] = []
    blocked = state.blocked(p)
    for h in sorted(state.hands[p]):
        face = faces[h]
        if id(face) in seen:
            continue
        seen.add(id(face))
        passes.append(pass_card(h))
        if isinstance(face, PathCard):
            if not blocked:
                actions += placements(state.board, h, face)
            continue
        assert isinstance(face, ActionCard)
        actions += base_action_moves(state, h, face)
    actions.extend(passes)
    return actions


def placements(board: Board, h: int, face: PathCard) -> list[AnyAction]:
    """Every legal cell and turn of path card ``h`` (a symmetric card upright only)."""
    moves: list[AnyAction] = []
    for turned in (False,) if face.symmetric else (False, True):
        openings = face.turned_openings if turned else face.openings
        cells = board.ladder_cells(openings) if face.ladder else board.cells_for_openings[openings]
        moves += [place_path(h, x, y, turned) for x, y in cells]
    return moves


def base_action_moves(state: State, h: int, face: ActionCard) -> list[AnyAction]:
    """The legal plays of the base game's action card ``h`` (break, repair, map, rockfall)."""
    board = state.board
    broken = state.broken
    actions: list[AnyAction] = []
    kind = face.kind
    if kind is ActionKind.BREAK:
        tool = face.tools[0]
        for t in range(state.players):
            if tool not in broken[t]:
                actions.append(break_tool(tool, t, h))
    elif kind is ActionKind.REPAIR:
        for tool in face.tools:
            for t in range(state.players):
                if tool in broken[t]:
                    actions.append(repair_tool(tool, t, h))
    elif kind is ActionKind.MAP:
        for slot, cell in enumerate(GOAL_CELLS):
            if board.tiles[cell].card is None and slot not in state.pending_stones:
                actions.append(map_peek(slot, h))
    elif kind is ActionKind.ROCKFALL:
        for cell in board.tunnel_cells():
            actions.append(rockfall(cell[0], cell[1], h))
    return actions
