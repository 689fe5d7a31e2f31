"""Turning goal cards over when the maze reaches them (rules.md 4).

A goal reached by a placed card is revealed to everyone.  A stone is laid in the turn that
fits every face-up neighbour, or in the turn its reacher chooses when both or neither fit
(phase orient); a face-up stone may lead on to further goals.  When the treasure is among
the goals turned over, the round ends.  These functions work on a ``State`` and tell its
caller what follows; they never end a round themselves.
"""
from __future__ import annotations

from enum import Enum
from typing import TYPE_CHECKING

from .board import GOAL_CELLS, Cell
from .cards import PathCard, PathKind
from .dealer import Deck
from .events import GoalRevealed
from .phases import Phase

if TYPE_CHECKING:
    from .board import Board
    from .state import State


class Settled(Enum):
    """What follows once the goals just reached are turned over."""

    GO_ON = "go on"  # the turn ends as usual
    TREASURE = "treasure"  # the treasure was reached: the round ends, ``state.orienter`` found it
    ORIENT = "orient"  # the reacher must choose a stone's turn first (phase orient), even when
    # the treasure was found with it (``state.treasure_reached``): the round ends after that


def stone_turn(board: Board, cell: Cell, face: PathCard) -> bool | None:
    """The turn of ``face`` at ``cell`` that fits every face-up neighbour, or None when the
    reacher chooses (both turns fit, or neither does)."""
    upright = board.fits(cell, face.openings)
    turned = board.fits(cell, face.turned_openings)
    if upright != turned:
        return turned
    return None


def settle(state: State, reached: list[Cell]) -> Settled:
    """Turn over every goal in ``reached``, orient the stones that fit one way, and follow
    what they join, for the player ``state.orienter``.

    Once the treasure is turned over nothing more is revealed, but a stone turned over with
    it that fits both ways or neither still waits for the reacher's choice (phase orient)
    before the round ends: in Saboteur 2 its turn can open a route and change the winners.
    """
    board = state.board
    batch = [] if state.treasure_reached else reached
    while batch:
        revealed: list[tuple[Cell, int, PathCard]] = []
        for cell in batch:
            slot = board.tiles[cell].goal_slot
            assert slot is not None
            face = state.dealer.reveal(Deck.GOALS, slot, None)
            assert isinstance(face, PathCard)  # a goal is revealed to everyone
            state.goal_faces[slot] = face
            revealed.append((cell, slot, face))
        batch = []
        for cell, slot, face in revealed:
            fixed = False if face.kind is PathKind.TREASURE else stone_turn(board, cell, face)
            if fixed is None:
                state.pending_stones.append(slot)
                continue
            state.events.append(GoalRevealed(slot, face, fixed, state.orienter))
            batch += board.reveal_goal(cell, face, fixed)
        if any(face.kind is PathKind.TREASURE for _, _, face in revealed):
            state.treasure_reached = True
            break
        batch = [c for c in dict.fromkeys(batch) if board.tiles[c].goal_slot not in state.pending_stones]
    if state.pending_stones:
        state.phase = Phase.ORIENT
        state.current = state.orienter
        return Settled.ORIENT
    if state.treasure_reached:
        state.treasure_reached = False
        return Settled.TREASURE
    return Settled.GO_ON


def orient(state: State, turned: bool) -> list[Cell]:
    """Lay the first pending stone in the chosen turn; the goals it reaches are returned
    for ``settle``."""
    slot = state.pending_stones.pop(0)
    face = state.goal_faces[slot]
    state.events.append(GoalRevealed(slot, face, turned, state.orienter))
    reached = state.board.reveal_goal(GOAL_CELLS[slot], face, turned)
    state.phase = Phase.PLAY
    return [c for c in reached if state.board.tiles[c].goal_slot not in state.pending_stones]
