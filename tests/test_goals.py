"""Reaching goal cards (rules.md 4): reveals, stone turns, the orient choice, the treasure."""
from __future__ import annotations

import pytest
from conftest import S_, D, build, place_text, snapshot

from saboteur_p2p.rules import GoalRevealed, IllegalActionError, OrientStone, PlacePath, RoundEnded
from saboteur_p2p.rules.cards import STONE_NE, STONE_NW, TREASURE, N, S, W
from saboteur_p2p.rules.state import Phase, Winners

CORRIDOR = {(x, 0): "WE" for x in range(1, 7)}          # start to (6,0); (7,0) is W of the middle goal
LOW_CORRIDOR = {(0, 1): "NS", **{(x, 2): "WE" for x in range(1, 8)}, (0, 2): "NE"}  # to (7,2), W of the south goal
ROLES3 = [D, D, S_]
HANDS3 = {0: ["WE", "NESW", "NS"], 1: ["NS", "WE"], 2: ["NS", "WE"]}


def goals_table(goals, maze=CORRIDOR, hands=HANDS3, **kw):
    return build(3, maze=maze, goals=goals, hands={k: list(v) for k, v in hands.items()},
                 roles=ROLES3, set_aside=[D], **kw)


def test_reaching_a_stone_reveals_it_and_the_round_goes_on():
    state = goals_table((TREASURE, STONE_NW, STONE_NE))
    state.play(place_text(state, 0, "WE", (7, 0)))
    tile = state.board.tiles[(8, 0)]
    assert tile.card == STONE_NW and not tile.turned  # upright {N,W} fits the W opening
    assert state.goal_faces[1] == STONE_NW
    assert state.events[-1] == GoalRevealed(1, STONE_NW, False, 0)
    assert state.phase is Phase.PLAY and state.current == 1 and state.round == 1
    assert state.board.connected[(8, 0)] == N | W
    for seat in range(3):
        assert state.view_for(seat).known_goals == {1: STONE_NW}


def test_a_stone_takes_the_only_turn_that_fits():
    # {N,E} reached from the west fits only turned, as {S,W}
    state = goals_table((TREASURE, STONE_NE, STONE_NW))
    state.play(place_text(state, 0, "WE", (7, 0)))
    tile = state.board.tiles[(8, 0)]
    assert tile.card == STONE_NE and tile.turned and tile.openings == S | W
    assert state.events[-1] == GoalRevealed(1, STONE_NE, True, 0)
    assert state.phase is Phase.PLAY and state.current == 1


def test_touching_a_goal_always_reveals_it_whatever_its_openings():
    # the {N,E} stone has a wall on its W side upright; it is still reached from the west
    state = goals_table((STONE_NE, STONE_NW, TREASURE), maze={**CORRIDOR, (7, 0): "WN", (7, -1): "NS"})
    # (7,0) turns north with a wall towards the middle goal; (7,-2) is W of the north goal
    state.play(place_text(state, 0, "NESW", (7, -2)))
    assert state.board.tiles[(8, -2)].card == STONE_NE
    assert state.board.tiles[(8, -2)].turned
    assert state.board.tiles[(8, 0)].face_down  # a wall towards a goal does not reach it


def test_an_opening_not_joined_to_the_start_does_not_reveal():
    # the dead end {W},{E} at (7,0): its E opening faces the goal but is not joined
    state = goals_table((TREASURE, STONE_NW, STONE_NE), hands={0: ["W+E", "NS"], 1: ["NS"], 2: ["NS"]})
    state.play(place_text(state, 0, "W+E", (7, 0)))
    assert state.board.tiles[(8, 0)].face_down
    assert state.goal_faces == {}
    assert not any(isinstance(e, GoalRevealed) for e in state.events)


def test_one_card_reaching_two_goals_reveals_both_at_once():
    maze = {**CORRIDOR, (7, 0): "WS", (7, 1): "NE"}
    state = goals_table((TREASURE, STONE_NW, STONE_NE), maze=maze)
    # NESW at (8,1) opens N onto the middle goal and S onto the south goal
    state.play(place_text(state, 0, "NESW", (8, 1)))
    revealed = [e for e in state.events if isinstance(e, GoalRevealed)]
    assert {e.slot for e in revealed} == {1, 2}
    # the {N,W} stone above: only turned ({S,E}) fits the N opening below it
    assert state.board.tiles[(8, 0)].card == STONE_NW and state.board.tiles[(8, 0)].turned
    # the {N,E} stone below: upright fits the S opening above it
    assert state.board.tiles[(8, 2)].card == STONE_NE and not state.board.tiles[(8, 2)].turned
    assert state.phase is Phase.PLAY and state.round == 1


def test_one_card_reaching_the_treasure_and_a_stone_reveals_both_and_ends_the_round():
    maze = {**CORRIDOR, (7, 0): "WS", (7, 1): "NE"}
    state = goals_table((STONE_NE, TREASURE, STONE_NW), maze=maze, gold=[1] * 28)
    state.play(place_text(state, 0, "NESW", (8, 1)))
    assert state.board.tiles[(8, 0)].card == TREASURE
    assert state.board.tiles[(8, 2)].card == STONE_NW
    ended = [e for e in state.events if isinstance(e, RoundEnded)]
    assert len(ended) == 1 and ended[0].winners == "gold-diggers"
    assert state.revealed_roles == tuple(ROLES3)
    assert state.phase is Phase.KEEP_GOLD and state.current == 0


def test_a_stone_reached_with_the_treasure_that_fits_neither_way_is_turned_by_the_reacher_first():
    # one card at (8,1) reaches the treasure at (8,0) and the {N,W} stone at (8,2); the card at
    # (8,3) opens north, so the stone fits neither upright (no S) nor turned (no N)
    maze = {**CORRIDOR, (7, 0): "WS", (7, 1): "NE", (8, 3): "NS"}
    state = goals_table((STONE_NE, TREASURE, STONE_NW), maze=maze, gold=[1] * 28)
    state.play(place_text(state, 0, "NESW", (8, 1)))
    assert state.board.tiles[(8, 0)].card == TREASURE
    assert state.board.tiles[(8, 2)].face_down
    assert state.phase is Phase.ORIENT and state.current == 0
    assert state.legal_actions() == [OrientStone(2, False), OrientStone(2, True)]
    assert not any(isinstance(e, RoundEnded) for e in state.events)  # not scored yet
    state.play(OrientStone(2, True))
    tile = state.board.tiles[(8, 2)]
    assert tile.card == STONE_NW and tile.turned
    assert GoalRevealed(2, STONE_NW, True, 0) in state.events
    ended = [e for e in state.events if isinstance(e, RoundEnded)]
    assert len(ended) == 1 and ended[0].winners == "gold-diggers"
    assert state.phase is Phase.KEEP_GOLD and state.current == 0


def test_reaching_the_treasure_ends_the_round_at_once():
    state = goals_table((STONE_NE, TREASURE, STONE_NW), gold=[1] * 28)
    pile = len(state.draw_pile)
    state.play(place_text(state, 0, "WE", (7, 0)))
    assert state.board.tiles[(8, 0)].card == TREASURE
    assert state.round_winners is Winners.GOLD_DIGGERS
    assert state.revealed_roles == tuple(ROLES3)  # all role cards in play are turned face up
    assert len(state.draw_pile) == pile - 1  # the turn's draw happened; nobody else plays
    assert state.phase is Phase.KEEP_GOLD


def test_a_face_up_stone_is_part_of_the_maze():
    state = goals_table((TREASURE, STONE_NW, STONE_NE), hands={0: ["WE", "NS"], 1: ["NS", "NS"], 2: ["NS"]})
    state.play(place_text(state, 0, "WE", (7, 0)))  # stone {N,W} upright at (8,0)
    # a tunnel may continue from its N opening: NS at (8,-1) joins it and reaches the north goal
    assert PlacePath(state.hands[1][0], 8, -1) in state.legal_actions()
    state.play(place_text(state, 1, "NS", (8, -1)))
    assert (8, -1) in state.board.connected
    assert state.board.tiles[(8, -2)].card == TREASURE
    assert state.round_winners is Winners.GOLD_DIGGERS
    assert any(isinstance(e, RoundEnded) for e in state.events)


def test_placing_beside_a_face_up_stone_must_fit_it():
    state = goals_table((TREASURE, STONE_NW, STONE_NE), hands={0: ["WE", "NS"], 1: ["WE", "NS"], 2: ["NS"]})
    state.play(place_text(state, 0, "WE", (7, 0)))  # {N,W}: wall on its E and S sides
    with pytest.raises(IllegalActionError, match="does not fit"):
        state.play(place_text(state, 1, "WE", (8, -1)))


# -- the reacher chooses when neither turn fits ------------------------------------------------

def mismatch_state(current=0):
    """The middle stone {N,W} is reached from the west while a loose NS card lies below it."""
    maze = {**CORRIDOR, (8, 1): "NS"}
    hands = {seat: ["WE", "NS"] for seat in range(3)}
    state = goals_table((TREASURE, STONE_NW, STONE_NE), maze=maze, hands=hands, current=current)
    state.play(place_text(state, current, "WE", (7, 0)))
    return state


@pytest.mark.parametrize("reacher", [0, 2])
def test_the_reacher_chooses_the_turn_when_neither_fits(reacher):
    state = mismatch_state(reacher)
    assert state.phase is Phase.ORIENT and state.current == reacher
    assert state.pending_stones == [1]
    assert state.board.tiles[(8, 0)].face_down  # turned over, lying when its turn is chosen
    for seat in range(3):  # everyone has seen the stone
        assert state.view_for(seat).known_goals == {1: STONE_NW}
        assert state.view_for(seat).pending_stones == (1,)
    assert state.legal_actions() == [OrientStone(1, False), OrientStone(1, True)]
    other = (reacher + 1) % 3
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="turn"):
        state.play("orient 1", player=other)
    with pytest.raises(IllegalActionError, match="goal slot 1"):
        state.play("orient 0")
    assert snapshot(state) == before
    state.play("orient 1", player=reacher)
    tile = state.board.tiles[(8, 0)]
    assert tile.card == STONE_NW and not tile.turned
    assert state.events[-1] == GoalRevealed(1, STONE_NW, False, reacher)
    assert state.phase is Phase.PLAY and state.current == other
    # upright {N,W} leaves the loose card below cut off: the south goal stays face down
    assert state.board.tiles[(8, 2)].face_down


def test_a_mismatched_turn_joins_only_where_openings_meet():
    state = mismatch_state(0)
    state.play("orient 1 turned")  # {S,E}: a wall towards (7,0), an opening onto the loose NS below
    tile = state.board.tiles[(8, 0)]
    assert tile.card == STONE_NW and tile.turned
    assert (8, 0) not in state.board.connected and (8, 1) not in state.board.connected
    assert state.board.tiles[(8, 2)].face_down
    assert state.phase is Phase.PLAY and state.current == 1


def chain_state(goals, current=0):
    """The middle stone {N,W} is reached from the north; neither turn fits.

    Upright, its N meets the S opening above and its W joins a loose tunnel (7,0)-(7,1)-(7,2)
    that opens onto the south goal; its S wall faces the loose NS at (8,1).
    """
    maze = {(0, -1): "SE", **{(x, -1): "WE" for x in range(1, 8)},
            (7, 0): "ES", (7, 1): "NS", (7, 2): "NE", (8, 1): "NS"}
    hands = {seat: ["WS", "NS"] for seat in range(3)}
    state = goals_table(goals, maze=maze, hands=hands, current=current, gold=[1] * 28)
    state.play(place_text(state, current, "WS", (8, -1)))
    assert state.phase is Phase.ORIENT and state.pending_stones == [1]
    return state


def test_a_chosen_turn_may_join_loose_tunnels_and_reveal_more_goals():
    state = chain_state((TREASURE, STONE_NW, STONE_NE))
    state.play("orient 1")
    assert (7, 2) in state.board.connected
    # the south stone {N,E} is reached through the first; the E opening of (7,2) wants it
    # turned, the S opening of the loose (8,1) wants it upright: the reacher chooses again
    assert state.phase is Phase.ORIENT and state.pending_stones == [2] and state.current == 0
    assert state.view_for(1).known_goals == {1: STONE_NW, 2: STONE_NE}
    assert state.legal_actions() == [OrientStone(2, False), OrientStone(2, True)]
    state.play("orient 2 turned")
    assert state.board.tiles[(8, 2)].card == STONE_NE and state.board.tiles[(8, 2)].turned
    assert (8, 2) in state.board.connected
    assert state.board.tiles[(8, -2)].face_down
    assert state.phase is Phase.PLAY and state.current == 1


def test_a_chosen_turn_that_reaches_the_treasure_ends_the_round_for_the_reacher():
    state = chain_state((STONE_NE, STONE_NW, TREASURE), current=1)
    state.play("orient 1")
    assert state.board.tiles[(8, 2)].card == TREASURE
    assert state.round_winners is Winners.GOLD_DIGGERS
    assert state.phase is Phase.KEEP_GOLD and state.current == 1  # the reacher draws the gold first


def test_map_is_refused_while_a_stone_waits_for_its_turn():
    state = mismatch_state(0)
    state.hands[0].append(state.draw_pile.pop())
    with pytest.raises(IllegalActionError):
        state.play("map 1")


def test_stone_events_say_who_reached_it():
    state = chain_state((TREASURE, STONE_NW, STONE_NE), current=2)
    state.play("orient 1")
    state.play("orient 2 turned")
    reveals = [e for e in state.events if isinstance(e, GoalRevealed)]
    assert [(e.slot, e.turned, e.reached_by) for e in reveals] == [(1, False, 2), (2, True, 2)]
    assert reveals[0].to_data() == {"event": "goal-revealed", "slot": 1, "card": STONE_NW.code, "turned": False, "reached_by": 2}


def test_joining_a_loose_fragment_reveals_the_goal_it_touches():
    # (7,0) opens E onto the middle goal but lies loose until (6,0) joins it to the start
    maze = {**{(x, 0): "WE" for x in range(1, 6)}, (7, 0): "WE"}
    state = goals_table((TREASURE, STONE_NW, STONE_NE), maze=maze)
    assert state.board.tiles[(8, 0)].face_down
    state.play(place_text(state, 0, "WE", (6, 0)))
    assert state.board.tiles[(8, 0)].card == STONE_NW
    assert (7, 0) in state.board.connected


def test_the_last_card_reaching_a_stone_ends_the_round_after_the_choice():
    maze = {**CORRIDOR, (8, 1): "NS"}
    state = goals_table((TREASURE, STONE_NW, STONE_NE), maze=maze, hands={0: ["WE"]}, draw=[], gold=[1] * 28)
    state.play(place_text(state, 0, "WE", (7, 0)))
    assert state.phase is Phase.ORIENT and state.hands == [[], [], []]
    state.play("orient 1")
    assert state.round_winners is Winners.SABOTEURS
    assert state.phase is Phase.TAKE_GOLD and state.current == 2  # the saboteur, after seat 0
