"""Saboteur 2 (rules.md 4 and 8, decision 4): when one card reaches the treasure and a stone at
once, and the stone fits both turns or neither, the reacher picks its turn before the round is
scored, because that turn can open a route to the treasure and so change who wins.

The engine used to lay such a stone upright and score the round at once. In the scenario
below that meant no team won, and nobody could choose the turn that lets the blue team win.
"""
from __future__ import annotations

import pytest
from conftest import build2, hand_card, snapshot

from saboteur_p2p.rules import (
    GOAL_CELLS,
    GoalRevealed,
    IllegalActionError,
    OrientStone,
    PiecesWon,
    PlacePath,
    RoundEnded,
    Ways,
    Winners,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.cards import Door, PathCard, PathKind, Role
from saboteur_p2p.rules.saboteur2 import Saboteur2State
from saboteur_p2p.rules.state import Phase

B, G, SAB = Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.SABOTEUR


def expansion(spec: str, *, ladder: bool = False, door: Door | None = None) -> PathCard:
    """The catalogue's expansion path card with these upright segments and marks."""
    wanted = PathCard(PathKind.TUNNEL, tuple(C.mask_from_letters(s) for s in spec.split("+")), ladder, door, 0)
    for card, _ in C.EXPANSION_PATH_COUNTS:
        if card == wanted:
            return card
    raise ValueError(f"no expansion card {wanted}")


LADDER_ES = expansion("ES", ladder=True)  # turned it lies as {N,W}
BLUE_EW = expansion("EW", door=Door.BLUE)
GREEN_EW = expansion("EW", door=Door.GREEN)
BRIDGE = expansion("NS+EW")
CURVES = expansion("NW+ES")  # the double curve: two unjoined tunnels, {N,W} and {E,S}

GOALS = (C.STONE_NE, C.STONE_NW, C.TREASURE)  # slot 0 (8,-2), slot 1 (8,0), slot 2 (8,2)
STONE_CELL, TREASURE_CELL = GOAL_CELLS[1], GOAL_CELLS[2]
REACHER = 0
ROLES = [B, B, G, G, SAB]  # the reacher is a blue digger

# The maze, x = 0..12 and y = -1..2.  "b"/"g" mark a blue/green door, "L" the ladder, "?" a goal
# lying face down, "*" the empty cell where seat 0 lays the double curve {N,W}+{E,S}:
#
#        x=0   1..5   6      7         8           9        10       11       12
#  y=-1                                .
#  y= 0  S --- WE --- WES -- W | E     ? stone-NW  WS
#                     |                            |
#  y= 1               NE --- b:EW  --  *  ------   bridge - g:EW --- b:EW --- L(NW)
#                                                  |
#  y= 2                                ? treasure  NW
#
#  * P, the west route: start -> WE x5 -> (6,0) WES -> (6,1) NE -> (7,1) blue door EW, which
#    reaches the curve's {N,W} tunnel. The curve's N faces the stone.
#  * Q, the east route: the ladder at (12,1) (a source, like the start) -> (11,1) blue door EW
#    -> (10,1) green door EW -> the bridge's E-W tunnel at (9,1), which reaches the curve's {E,S}
#    tunnel. The curve's S faces the treasure.
#  * R, a branch that nothing reaches yet: (9,0) WS -> the bridge's N-S tunnel -> (9,2) NW,
#    whose W faces the treasure. The W of (9,0) faces the stone. (Once the treasure lies face
#    up, R hangs off it, but R leads from no source.)
#  * (7,0) holds two dead ends, W and E. The W end hangs off (6,0). The loose E end faces the
#    stone.
#
# Laying the curve at (8,1) joins both of its tunnels (W to P, E to Q) and reaches the stone
# (N) and the treasure (S) with one card. Neither turn of the stone fits:
#   upright {N,W}: its closed S meets the curve's open N;
#   turned {S,E}: its closed W meets the open E dead end at (7,0).
# So the reacher picks the turn. Either way the only route from a source to the treasure that
# exists without the stone is Q, which has a door of each colour: no team would get through.
#   turned {S,E}: it joins the curve's {N,W} tunnel to (9,0), and through the bridge's N-S
#     tunnel and (9,2) to the treasure. The new route start -> P -> stone -> R -> treasure has
#     a blue door and no green one, so the blue team gets through and wins.
#   upright {N,W}: it joins only the loose E dead end and the empty (8,-1). No team wins (no
#     boss or profiteer is in play). The old engine always laid the stone this way.
MAZE = (
    [((x, 0), "WE") for x in range(1, 6)]
    + [((6, 0), "WES"), ((7, 0), "W+E"), ((6, 1), "NE"), ((7, 1), (BLUE_EW, False))]
    + [((12, 1), (LADDER_ES, True)), ((11, 1), (BLUE_EW, False)), ((10, 1), (GREEN_EW, False))]
    + [((9, 1), (BRIDGE, False)), ((9, 0), "WS"), ((9, 2), "NW")]
)


def reached_both() -> Saboteur2State:
    """Seat 0, a blue digger, has just laid the double curve at (8,1); the stone's turn waits."""
    hands = {seat: ["NS", "WE"] for seat in range(5)}
    hands[REACHER] = [CURVES, "NS"]
    state = build2(5, maze=MAZE, goals=GOALS, hands=hands, roles=ROLES, current=REACHER, rounds=1)
    # before the move: nothing reaches a goal; R is cut off; P and Q end at the empty (8,1)
    assert all(state.board.tiles[cell].face_down for cell in GOAL_CELLS)
    assert (9, 0) not in state.board.connected and (9, 2) not in state.board.connected
    assert state.board.connected[(7, 0)] == C.W  # the E dead end facing the stone is loose
    assert state.board.connected[(7, 1)] == state.board.connected[(9, 1)] == C.E | C.W
    state.play(PlacePath(hand_card(state, REACHER, CURVES), 8, 1))
    return state


def test_one_card_reaches_the_treasure_and_a_stone_that_fits_neither_turn():
    state = reached_both()
    assert state.board.connected[(8, 1)] == C.N | C.E | C.S | C.W  # both tunnels of the curve are joined
    # the treasure is face up; the stone is turned over but waits for its turn, unlaid
    assert GoalRevealed(2, C.TREASURE, False, REACHER) in state.events
    assert state.goal_faces == {1: C.STONE_NW, 2: C.TREASURE}
    assert state.board.tiles[STONE_CELL].face_down and state.pending_stones == [1]
    assert not state.board.fits(STONE_CELL, C.STONE_NW.openings)
    assert not state.board.fits(STONE_CELL, C.STONE_NW.turned_openings)
    # the round is not scored yet: the reacher chooses the stone's turn first
    assert state.phase is Phase.ORIENT and state.current == REACHER and state.orienter == REACHER
    assert not [e for e in state.events if isinstance(e, (RoundEnded, PiecesWon))]
    assert state.results == [] and state.round == 1
    assert state.legal_actions() == [OrientStone(1, False), OrientStone(1, True)]
    # without the stone, the only route to the treasure (Q) has a door of each colour
    assert state.board.open_ways(TREASURE_CELL) == Ways(False, False, False)
    before = snapshot(state)
    with pytest.raises(IllegalActionError):
        state.play("orient 1 turned", player=1)  # only the reacher chooses
    assert snapshot(state) == before


def test_the_turn_that_joins_the_bridge_route_lets_the_blue_team_win():
    state = reached_both().clone()
    state.play("orient 1 turned", player=REACHER)
    tile = state.board.tiles[STONE_CELL]
    assert tile.card == C.STONE_NW and tile.turned
    assert GoalRevealed(1, C.STONE_NW, True, REACHER) in state.events
    # start -> P (blue door) -> curve {N,W} -> stone {S,E} -> (9,0) -> bridge N-S -> (9,2) -> treasure
    assert state.board.connected[STONE_CELL] == C.S | C.E
    assert state.board.open_ways(TREASURE_CELL) == Ways(True, False, False)
    ended = [e for e in state.events if isinstance(e, RoundEnded)]
    assert len(ended) == 1 and ended[0].winners == Winners.BLUE_TEAM.value
    assert state.round_winners is Winners.BLUE_TEAM
    assert state.results[0].winners is Winners.BLUE_TEAM
    assert [e for e in state.events if isinstance(e, PiecesWon)] == [PiecesWon(0, 4), PiecesWon(1, 4)]
    assert state.results[0].gold_pieces == (4, 4, 0, 0, 0)


def test_the_other_turn_leaves_the_doors_of_both_colours_and_no_team_wins():
    state = reached_both().clone()
    state.play(OrientStone(1, False), player=REACHER)  # upright, the old engine's silent choice
    tile = state.board.tiles[STONE_CELL]
    assert tile.card == C.STONE_NW and not tile.turned
    assert STONE_CELL not in state.board.connected  # it joins only the loose dead end at (7,0)
    assert state.board.open_ways(TREASURE_CELL) == Ways(False, False, False)
    ended = [e for e in state.events if isinstance(e, RoundEnded)]
    assert len(ended) == 1 and ended[0].winners == Winners.NOBODY.value
    assert state.round_winners is Winners.NOBODY
    assert state.results[0].winners is Winners.NOBODY
    assert not [e for e in state.events if isinstance(e, PiecesWon)]
    assert state.results[0].gold_pieces == (0,) * 5


def test_the_two_copies_differ_only_by_the_choice():
    """The same state, cloned: the stone's turn alone decides between the blue team and nobody."""
    state = reached_both()
    winners = {}
    for turned in (False, True):
        copy = state.clone()
        copy.play(OrientStone(1, turned))
        winners[turned] = copy.results[0].winners
    assert winners == {True: Winners.BLUE_TEAM, False: Winners.NOBODY}
    assert state.phase is Phase.ORIENT and state.results == []  # the original is untouched
