"""A turn (rules.md 3): play one card then draw, turn order, empty hands, and bad input."""
from __future__ import annotations

import pytest
from conftest import BREAK, MAP, S_, D, build, hand_card, place_text, snapshot

from saboteur_p2p.rules import (
    BreakTool,
    Game,
    GameConfig,
    IllegalActionError,
    InvalidActionError,
    KeepGold,
    OrientStone,
    Pass,
    PlacePath,
    TakeGold,
    Tool,
)
from saboteur_p2p.rules.cards import STONE_NE, STONE_NW, TREASURE
from saboteur_p2p.rules.dealer import Deck
from saboteur_p2p.rules.events import CardPlayed
from saboteur_p2p.rules.state import Phase


def test_play_one_card_then_draw_the_top_card():
    state = build(3, hands={0: ["WE", MAP], 1: ["NS"], 2: ["NS"]}, draw=["NS", "NESW"])
    top = state.draw_pile[-1]
    card = hand_card(state, 0, "WE")
    played = state.play(f"path {card} at 1,0")
    assert played == PlacePath(card, 1, 0)
    assert sorted(state.hands[0]) == sorted([hand_card(state, 0, MAP), top])
    assert len(state.draw_pile) == 1 and state.current == 1
    assert state.events[-1] == CardPlayed(0, played, state.faces[card])


def test_no_draw_once_the_pile_is_empty():
    state = build(3, hands={0: ["WE", MAP], 1: ["NS"], 2: ["NS"]}, draw=[])
    state.play(place_text(state, 0, "WE", (1, 0)))
    assert [state.faces[h] for h in state.hands[0]] == [MAP]
    assert state.current == 1 and state.phase is Phase.PLAY


def test_turn_order_is_seat_order_and_wraps():
    state = build(4, hands={seat: [MAP, MAP] for seat in range(4)}, current=2, draw=[])
    order = []
    for _ in range(6):
        order.append(state.current)
        state.play(f"pass {state.hands[state.current][0]}")
    assert order == [2, 3, 0, 1, 2, 3]


def test_a_player_with_an_empty_hand_passes_without_discarding():
    state = build(4, hands={0: [MAP], 1: [], 2: [MAP, MAP], 3: []}, draw=[])
    state.play(f"pass {state.hands[0][0]}")
    assert state.current == 2  # seats 1 (and later 3) are skipped
    assert len(state.hidden_discards) == 1
    state.play(f"pass {state.hands[2][0]}")
    assert state.current == 2  # everyone else is empty: seat 2 plays again
    assert len(state.hidden_discards) == 2


def test_first_round_first_player_is_a_shared_random_draw():
    firsts = {Game(GameConfig(players=5), seed=seed).new_state().first_player for seed in range(40)}
    assert firsts == set(range(5))
    state = Game(GameConfig(players=5), seed=3).new_state()
    assert state.current_player() == state.current == state.first_player and state.round == 1
    assert all(state.role_of(seat) is state.dealer.decks[Deck.ROLES][state.roles[seat]].role for seat in range(5))


# -- bad input leaves the state unchanged ------------------------------------------------

@pytest.fixture
def table():
    return build(3, hands={0: ["WE", BREAK[Tool.CART], MAP], 1: ["NS", MAP], 2: ["NS"]})


BAD_TEXT = ["", "hello", "path", "path one at 1,0", "path 1 at 1,0 upright", "break axe @1", "map", "take", "keep x"]


@pytest.mark.parametrize("text", BAD_TEXT)
def test_malformed_text_raises_invalid_and_changes_nothing(table, text):
    before = snapshot(table)
    with pytest.raises(InvalidActionError) as info:
        table.play(text)
    assert isinstance(info.value, ValueError) and repr(text) in str(info.value)
    assert snapshot(table) == before


@pytest.mark.parametrize("text, error", [
    ("path 999 at 1,0", IllegalActionError),       # no such handle
    ("path 3 at 1,0", IllegalActionError),         # seat 1's card
    ("pass 999999", IllegalActionError),
    ("break cart @3", InvalidActionError),         # no seat 3 at a table of 3
    ("break cart @999", InvalidActionError),
    ("map 7", InvalidActionError),                 # no goal slot 7
    ("map 2 #999", IllegalActionError),
    ("rockfall 0,0", IllegalActionError),          # holds no rockfall card
    ("orient 1", IllegalActionError),              # wrong phase
    ("keep 1", IllegalActionError),
    ("take 1,2", IllegalActionError),
])
def test_out_of_range_handles_seats_and_wrong_phase(table, text, error):
    before = snapshot(table)
    with pytest.raises(error) as info:
        table.play(text)
    assert text in str(info.value)
    assert snapshot(table) == before


def test_actions_out_of_turn_are_refused(table):
    before = snapshot(table)
    text = f"pass {table.hands[1][0]}"
    with pytest.raises(IllegalActionError, match="it is player 0's turn, not player 1's") as info:
        table.play(text, player=1)
    assert repr(text) in str(info.value)
    with pytest.raises(IllegalActionError, match="turn"):
        table.play(f"pass {table.hands[0][0]}", player=2)  # even with a card the current player holds
    assert snapshot(table) == before
    table.play(f"pass {table.hands[0][0]}", player=0)
    assert table.current == 1


def test_a_non_action_is_refused(table):
    before = snapshot(table)
    with pytest.raises(IllegalActionError):
        table.play(KeepGold(3))
    with pytest.raises(InvalidActionError):
        table.play(PlacePath("x", 1, 0))  # type: ignore[arg-type]
    assert snapshot(table) == before


def test_wrong_phase_while_a_stone_must_be_oriented():
    state = orient_state()
    assert state.phase is Phase.ORIENT
    before = snapshot(state)
    for action in (Pass(state.hands[0][0]), BreakTool(Tool.CART, 1), KeepGold(0), TakeGold((0,)), OrientStone(0)):
        with pytest.raises(IllegalActionError) as info:
            state.play(action)
        assert str(action) in str(info.value)
    assert snapshot(state) == before
    assert state.legal_actions() == [OrientStone(1, False), OrientStone(1, True)]


def orient_state():
    """Seat 0 reaches the middle goal, the stone {N,W}, where neither of its turns fits.

    (7,0) opens E towards it (upright fits, turned does not); the loose card at (8,1) opens
    N towards it (turned fits, upright does not).
    """
    maze = {**{(x, 0): "WE" for x in range(1, 7)}, (8, 1): "NS"}
    state = build(3, maze=maze, goals=(TREASURE, STONE_NW, STONE_NE), hands={0: ["WE", MAP], 1: ["NS"], 2: ["NS"]})
    state.play(place_text(state, 0, "WE", (7, 0)))
    return state


def test_game_over_refuses_everything():
    state = build(3, hands={0: [MAP]}, rounds=1, roles=[D, D, S_], set_aside=[D], draw=[], gold=[1] * 10)
    state.play(f"pass {state.hands[0][0]}")  # the last card: the saboteurs win
    while state.phase is not Phase.GAME_OVER:
        state.play(state.legal_actions()[0])
    assert state.is_terminal() and state.legal_actions() == []
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="the game is over"):
        state.play("pass 0")
    assert snapshot(state) == before


def test_view_for_a_seat_that_does_not_exist(table):
    for seat in (-1, 3, 99):
        with pytest.raises(InvalidActionError, match=repr(seat)):
            table.view_for(seat)
