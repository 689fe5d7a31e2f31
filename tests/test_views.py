"""Player views: what one player may know, and nothing more (rules.md 1-5 on secrets)."""
from __future__ import annotations

import json
import random

import pytest
from conftest import MAP, S_, D, SeatDealer, build, finish_gold, place_text, random_game, shuffle_hidden

from saboteur_p2p.rules import Game, GameConfig, PlayerView
from saboteur_p2p.rules.cards import STONE_NE, STONE_NW, TREASURE
from saboteur_p2p.rules.state import Phase

CORRIDOR = {(x, 0): "WE" for x in range(1, 7)}


def test_a_view_shows_ones_own_hand_and_role_only():
    state = build(4, hands={0: ["WE", MAP], 1: ["NS"], 2: [MAP, MAP, MAP]}, roles=[D, S_, D, D], set_aside=[S_])
    for seat in range(4):
        view = state.view_for(seat)
        assert [h for h, _ in view.hand] == state.hands[seat]
        assert [card for _, card in view.hand] == [state.faces[h] for h in state.hands[seat]]
        assert view.role is [D, S_, D, D][seat]
        assert view.hand_sizes == (2, 1, 3, 0)
        assert view.draw_pile_size == 10
        assert view.revealed_roles is None
        assert view.my_turn == (seat == 0) and view.players == 4


def test_a_view_has_every_field_in_its_place():
    """view_of builds the named tuple field by field (tuple.__new__): none may be missing."""
    state = Game(GameConfig(5)).new_state()
    view = state.view_for(0)
    assert len(view) == len(PlayerView._fields)
    assert view.seat == 0 and view.config == state.config and view.phase == "play"
    assert view.trapped == () and view.known_roles == {} and view.gold_pieces == 0
    assert len(view.history) == len(state.events)


def test_map_is_known_to_the_mapper_only_until_the_round_ends():
    state = build(3, hands={0: [MAP, MAP], 1: ["NS"], 2: ["NS"]}, goals=(STONE_NW, TREASURE, STONE_NE),
                  roles=[D, S_, D], set_aside=[D], draw=[], gold=[1] * 28)
    state.play("map 2")
    assert state.view_for(0).known_goals == {2: STONE_NE}
    assert state.view_for(1).known_goals == {} and state.view_for(2).known_goals == {}
    assert state.view_for(0).to_data()["known_goals"] == {"2": STONE_NE.code}
    state.play(f"pass {state.hands[1][0]}")
    assert state.view_for(0).known_goals == {2: STONE_NE}  # remembered through the round
    state.play(f"pass {state.hands[2][0]}")
    state.play(f"pass {state.hands[0][0]}")
    finish_gold(state)
    assert state.round == 2 and state.view_for(0).known_goals == {}


def test_face_up_goals_are_known_to_everyone():
    state = build(3, maze=CORRIDOR, goals=(TREASURE, STONE_NW, STONE_NE), hands={0: ["WE"], 1: ["NS"], 2: ["NS"]})
    state.play(place_text(state, 0, "WE", (7, 0)))
    for seat in range(3):
        assert state.view_for(seat).known_goals == {1: STONE_NW}
        assert [8, 0, STONE_NW.code, False] in state.view_for(seat).to_data()["board"]
        assert [8, -2, None, False] in state.view_for(seat).to_data()["board"]


def test_a_view_keeps_the_maze_it_was_given():
    state = build(3, hands={0: ["WE", "NS"], 1: ["NS"], 2: ["NS"]})
    view = state.view_for(1)
    data = view.to_data()
    state.play(place_text(state, 0, "WE", (1, 0)))
    assert (1, 0) not in view.board.tiles and view.to_data() == data
    assert (1, 0) in state.view_for(1).board.tiles


def test_views_are_plain_data():
    state, _ = random_game(GameConfig(players=6), 2, steps=60)
    for seat in range(6):
        data = state.view_for(seat).to_data()
        assert json.loads(json.dumps(data)) == data


def test_offered_gold_and_the_gold_pile_are_shown_to_the_chooser_only():
    hands = {seat: ["WE", MAP] for seat in range(3)}
    state = build(3, maze=CORRIDOR, goals=(STONE_NE, TREASURE, STONE_NW), hands=hands, roles=[D, D, D],
                  set_aside=[S_], gold=[1] * 20 + [2, 3, 3])
    state.play(place_text(state, 0, "WE", (7, 0)))
    assert state.phase is Phase.KEEP_GOLD and state.current == 0
    assert len(state.view_for(0).offered) == 3
    assert state.view_for(1).offered == () and state.view_for(2).offered == ()
    assert all(state.view_for(s).gold_pile == () for s in range(3))
    assert state.view_for(1).revealed_roles == (D, D, D)


def test_the_set_aside_role_is_never_shown():
    state = build(3, hands={0: [MAP]}, draw=[], roles=[D, D, D], set_aside=[S_], gold=[1] * 28, rounds=1)
    state.play(f"pass {state.hands[0][0]}")
    finish_gold(state)
    for seat in range(3):
        data = state.view_for(seat).to_data()
        assert data["revealed_roles"] == ["gold-digger"] * 3
        assert "saboteur" not in json.dumps(data)


# -- hidden cards can be shuffled without changing a view ---------------------------------------

def test_shuffling_hidden_cards_leaves_a_constructed_view_unchanged():
    state = build(5, hands={0: ["WE", MAP, "NS"], 1: ["NESW", "W+E", MAP], 2: ["NS"], 3: [MAP], 4: ["NW"]},
                  roles=[D, S_, D, S_, D], set_aside=[D], draw=["NS", "NESW", MAP, "W"])
    state.play("map 1")
    rng = random.Random(0)
    for seat in range(5):
        before = state.view_for(seat).to_data()
        changed = False
        for _ in range(20):
            other = shuffle_hidden(state, seat, rng)
            assert other.view_for(seat).to_data() == before
            changed |= other.dealer.decks != state.dealer.decks
        assert changed  # the shuffle did hide something real


def test_another_players_hand_faces_do_show_up_if_leaked():
    # the check above must be able to fail: seat 0's hand is hidden from seat 1
    state = build(3, hands={0: ["WE", MAP], 1: ["NS"], 2: ["NS"]})
    rng = random.Random(1)
    differs = any(shuffle_hidden(state, 1, rng).view_for(0).to_data() != state.view_for(0).to_data() for _ in range(20))
    assert differs


@pytest.mark.parametrize("seed", range(5))
def test_shuffling_hidden_cards_leaves_views_unchanged_through_a_game(seed):
    variants = frozenset({"stone-nuggets", "selfish-dwarf"} if seed % 2 else set())
    config = GameConfig(players=3 + seed, variants=variants)
    rng = random.Random(seed)
    state = Game(config, seed=seed).new_state()
    step = 0
    while not state.is_terminal():
        if step % 7 == 0 or state.phase is not Phase.PLAY:
            for seat in range(config.players):
                before = state.view_for(seat).to_data()
                assert shuffle_hidden(state, seat, rng).view_for(seat).to_data() == before
        state.push(rng.choice(state.legal_actions()))
        step += 1


# -- an engine that knows only what one seat is shown ---------------------------------------------

def play_with_seat_engines(config, seed, stop_before_take=True):
    """Drive an omniscient engine and one engine per seat (dealt by a SeatDealer) with the same texts.

    Each seat's engine must accept every action and give its seat the same view as the
    omniscient engine: so a view depends only on what that seat has been shown.
    """
    rng = random.Random(seed)
    full = Game(config, seed=seed).new_state()
    seats = [Game(config, SeatDealer(seed, s)).new_state() for s in range(config.players)]
    steps = 0
    while not full.is_terminal():
        text = str(full.play(rng.choice(full.legal_actions())))
        if stop_before_take and full.phase is Phase.TAKE_GOLD:
            break
        for engine in seats:
            engine.play(text)
        for seat, engine in enumerate(seats):
            assert engine.view_for(seat).to_data() == full.view_for(seat).to_data()
        steps += 1
    return steps


@pytest.mark.parametrize("seed", range(6))
def test_an_engine_that_sees_one_seats_cards_gives_that_seat_the_same_view(seed):
    config = GameConfig(players=3 + seed, variants=frozenset({"selfish-dwarf"} if seed % 2 else ()))
    assert play_with_seat_engines(config, seed) > 50


def test_one_seat_engines_through_a_saboteur_take():
    """A one-seat engine enters a take on public information and defers its check to the end."""
    play_with_seat_engines(GameConfig(players=5), 1, stop_before_take=False)
