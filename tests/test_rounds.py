"""Rounds and the game (rules.md 2, 4, 6): round endings, the next first player, final ranking."""
from __future__ import annotations

from collections import Counter

import pytest
from conftest import MAP, ROCKFALL, S_, D, build, finish_gold, place_text, random_game

from saboteur_p2p.rules import GOAL_CELLS, GameConfig, GameEnded, RoundEnded, RoundStarted
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.cards import STONE_NE, STONE_NW, TREASURE, Tool
from saboteur_p2p.rules.dealer import Deck
from saboteur_p2p.rules.state import Phase, Winners

CORRIDOR = {(x, 0): "WE" for x in range(1, 7)}
ROLES4 = [D, D, S_, D]


def test_the_round_goes_on_while_anyone_holds_a_card():
    state = build(4, hands={0: [MAP], 2: [MAP, MAP]}, draw=[], roles=ROLES4, set_aside=[S_])
    state.play(f"pass {state.hands[0][0]}")
    assert state.phase is Phase.PLAY and state.current == 2 and state.round == 1
    state.play(f"pass {state.hands[2][0]}")
    assert state.phase is Phase.PLAY and state.current == 2
    assert state.revealed_roles is None
    state.play(f"pass {state.hands[2][0]}")
    assert state.round_winners is Winners.SABOTEURS
    assert state.revealed_roles == tuple(ROLES4)  # the roles in play, not the set-aside card


def test_the_round_does_not_end_while_the_draw_pile_holds_cards():
    state = build(3, hands={0: [MAP]}, draw=["NS"], roles=[D, D, S_], set_aside=[D])
    state.play(f"pass {state.hands[0][0]}")
    assert state.phase is Phase.PLAY and state.round == 1 and len(state.hands[0]) == 1


def end_by_exhaustion(state):
    """Everyone passes until the cards run out, then the gold is taken; returns the new round's first."""
    while state.round == 1 and state.phase is Phase.PLAY:
        state.play(f"pass {state.hands[state.current][0]}")
    finish_gold(state)
    return state.first_player


def test_next_round_starts_left_of_the_last_path_card_player():
    hands = {0: [MAP, MAP], 1: ["WE", MAP], 2: [MAP, MAP], 3: [MAP, MAP]}
    state = build(4, hands=hands, draw=[], roles=ROLES4, set_aside=[S_], current=1, gold=[1] * 28)
    state.play(place_text(state, 1, "WE", (1, 0)))  # the only path card of the round
    assert state.last_path_player == 1
    assert end_by_exhaustion(state) == 2
    assert state.round == 2 and state.current == 2
    assert state.events[-1] == RoundStarted(2, 2)


def test_a_rockfall_is_not_a_path_card_for_the_next_first_player():
    hands = {0: ["WE", MAP], 1: [MAP, MAP], 2: [ROCKFALL, MAP], 3: [MAP, MAP]}
    state = build(4, hands=hands, draw=[], roles=ROLES4, set_aside=[S_], current=0, gold=[1] * 28)
    state.play(place_text(state, 0, "WE", (1, 0)))
    state.play(f"pass {state.hands[1][0]}")
    state.play("rockfall 1,0")
    assert end_by_exhaustion(state) == 1


def test_no_path_card_played_passes_the_start_to_the_player_after_the_first():
    state = build(4, hands={seat: [MAP] for seat in range(4)}, draw=[], roles=ROLES4, set_aside=[S_],
                  current=3, gold=[1] * 28)
    assert state.last_path_player is None
    assert end_by_exhaustion(state) == 0


def test_option_left_of_first_starter():
    hands = {0: [MAP, MAP], 1: ["WE", MAP], 2: [MAP, MAP], 3: [MAP, MAP]}
    state = build(4, hands=hands, draw=[], roles=ROLES4, set_aside=[S_], current=3, gold=[1] * 28,
                  variants={"left-of-first-starter"})
    state.play(f"pass {state.hands[3][0]}")
    state.play(f"pass {state.hands[0][0]}")
    state.play(place_text(state, 1, "WE", (1, 0)))
    assert end_by_exhaustion(state) == 0  # left of seat 3, whatever seat 1 played


def test_after_the_treasure_the_finder_played_the_last_path_card():
    hands = {seat: ["WE", MAP] for seat in range(4)}
    state = build(4, maze=CORRIDOR, goals=(STONE_NE, TREASURE, STONE_NW), hands=hands, roles=ROLES4,
                  set_aside=[S_], current=2, gold=[1] * 28)
    state.play(place_text(state, 2, "WE", (7, 0)))
    finish_gold(state)
    assert state.round == 2 and state.first_player == 3 and state.current == 3


def test_a_new_round_is_dealt_afresh_and_gold_stays_with_its_owner():
    hands = {seat: ["WE", MAP] for seat in range(4)}
    state = build(4, maze=CORRIDOR, goals=(STONE_NE, TREASURE, STONE_NW), hands=hands, roles=ROLES4,
                  set_aside=[S_], current=0, gold=[1] * 10 + [2] * 10 + [3] * 8, broken={1: [Tool.CART]})
    state.play(place_text(state, 0, "WE", (7, 0)))
    finish_gold(state)
    assert state.round == 2 and state.phase is Phase.PLAY
    won = [list(g) for g in state.gold_of]
    assert sum(len(g) for g in won) == 3
    # gold won stays; the rest is the new gold pile
    assert sorted(state.gold_pile + [g for gs in won for g in gs]) == list(range(28))
    # a fresh maze, fresh hands and roles, no broken tools, no peeks
    assert set(state.board.tiles) == {(0, 0), *GOAL_CELLS}
    assert all(t.face_down for c, t in state.board.tiles.items() if c != (0, 0))
    assert state.placed == {} and state.discards == [] and state.hidden_discards == []
    assert state.broken == [{} for _ in range(4)] and state.peeks == [set() for _ in range(4)]
    assert [len(h) for h in state.hands] == [6] * 4 and len(state.draw_pile) == 67 - 24
    assert Counter(state.dealer.decks[Deck.DRAW]) == Counter(C.base_draw_cards())
    assert len(state.roles) == 4 and len(state.set_aside_roles) == 1
    assert state.revealed_roles is None and state.pending_stones == []


def test_round_results_record_winners_roles_and_cards():
    state = build(3, hands={0: [MAP]}, draw=[], roles=[D, S_, D], set_aside=[D], gold=[1] * 28)
    state.play(f"pass {state.hands[0][0]}")
    finish_gold(state)
    result = state.results[0]
    assert result.round == 1 and result.winners is Winners.SABOTEURS
    assert result.roles == (D, S_, D) and result.gold_cards == (0, 4, 0)
    ended = next(e for e in state.events if isinstance(e, RoundEnded))
    assert ended.to_data()["roles"] == ["gold-digger", "saboteur", "gold-digger"]


# -- the end of the game -------------------------------------------------------------------------

def test_final_ranking_most_nuggets_wins_and_ties_share_the_win():
    # one round; two saboteurs take 3 each: they share the win
    state = build(5, hands={0: [MAP]}, draw=[], roles=[S_, D, D, S_, D], set_aside=[D], rounds=1,
                  gold=[1] * 16 + [3] * 4)
    state.play(f"pass {state.hands[0][0]}")
    finish_gold(state)
    assert state.is_terminal() and state.phase is Phase.GAME_OVER
    assert state.scores == (3, 0, 0, 3, 0)
    ended = state.events[-1]
    assert isinstance(ended, GameEnded) and ended.winners == (0, 3) and ended.scores == (3, 0, 0, 3, 0)
    for seat in range(5):
        assert state.view_for(seat).scores == (3, 0, 0, 3, 0)


def test_final_ranking_single_winner():
    state = build(3, hands={0: [MAP]}, draw=[], roles=[D, S_, D], set_aside=[D], rounds=1, gold=[1] * 28)
    state.play(f"pass {state.hands[0][0]}")
    finish_gold(state)
    assert state.events[-1] == GameEnded((0, 4, 0), (1,))


@pytest.mark.parametrize("seed", range(4))
def test_a_whole_game_has_three_rounds_and_ranks_by_nuggets(seed):
    config = GameConfig(players=3 + 2 * seed)
    state, _ = random_game(config, seed)
    assert state.is_terminal() and len(state.results) == 3 and state.round == 3
    totals = tuple(sum(state.gold_faces[g].nuggets for g in state.gold_of[s]) for s in range(config.players))
    assert state.scores == totals
    best = max(totals)
    assert state.events[-1] == GameEnded(totals, tuple(s for s in range(config.players) if totals[s] == best))
    assert [e.round for e in state.events if isinstance(e, RoundStarted)] == [1, 2, 3]
    assert sum(totals) <= 44


def test_rounds_option():
    state, _ = random_game(GameConfig(players=4, rounds=1), 5)
    assert len(state.results) == 1 and state.is_terminal()
    with pytest.raises(ValueError):
        GameConfig(players=4, rounds=0)
