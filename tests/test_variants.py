"""The named rule variants of rules.md 7 (and gold-per-player of section 5)."""
from __future__ import annotations

from collections import Counter

import pytest
from conftest import MAP, S_, D, X, build, finish_gold, place_text

from saboteur_p2p.rules import VARIANTS, Game, GameConfig, TakeGold, Tool
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.cards import STONE_NE, STONE_NW, TREASURE
from saboteur_p2p.rules.dealer import Deck
from saboteur_p2p.rules.state import Phase, Winners

CORRIDOR = {(x, 0): "WE" for x in range(1, 7)}
FULL_GOLD = [1] * 16 + [2] * 8 + [3] * 4


def treasure_state(finder, roles, set_aside=(), variants=(), gold=FULL_GOLD, broken=None):
    players = len(roles)
    hands = {seat: ["WE", MAP] for seat in range(players)}
    state = build(players, maze=CORRIDOR, goals=(STONE_NE, TREASURE, STONE_NW), hands=hands, roles=roles,
                  set_aside=set_aside, current=finder, gold=gold, variants=variants, broken=broken)
    state.play(place_text(state, finder, "WE", (7, 0)))
    return state


def exhausted_state(roles, set_aside=(), variants=(), gold=FULL_GOLD, last=0, broken=None):
    state = build(len(roles), hands={last: [MAP]}, draw=[], roles=roles, set_aside=set_aside,
                  current=last, gold=gold, variants=variants, broken=broken)
    state.play(f"pass {state.hands[last][0]}")
    return state


def test_every_variant_is_named_and_unknown_ones_are_refused():
    assert set(VARIANTS) == {"stone-nuggets", "broken-tools-forfeit", "selfish-dwarf", "tournament-roles",
                             "gold-per-player", "left-of-first-starter"}
    with pytest.raises(ValueError, match="unknown variant"):
        GameConfig(players=5, variants=frozenset({"house-rules"}))
    assert GameConfig.parse_variants("stone-nuggets, selfish-dwarf") == {"stone-nuggets", "selfish-dwarf"}
    assert GameConfig.parse_variants([" gold-per-player ", ""]) == {"gold-per-player"}
    assert GameConfig.parse_variants(None) == frozenset()
    with pytest.raises(ValueError, match="unknown edition"):
        GameConfig(players=5, edition="chess")
    config = GameConfig(players=6, variants=frozenset({"stone-nuggets"}))
    assert GameConfig.from_data(config.to_data()) == config


# -- stone nuggets --------------------------------------------------------------------------

def test_stone_nuggets_put_six_worthless_stones_in_the_gold_pile():
    state = Game(GameConfig(players=5, variants=frozenset({"stone-nuggets"})), seed=1).new_state()
    assert Counter(g.nuggets for g in state.dealer.decks[Deck.GOLD]) == {0: 6, 1: 10, 2: 8, 3: 4}
    assert len(state.gold_pile) == 28
    plain = Game(GameConfig(players=5), seed=1).new_state()
    assert Counter(g.nuggets for g in plain.dealer.decks[Deck.GOLD]) == {1: 16, 2: 8, 3: 4}


def test_a_stone_may_be_handed_out_to_a_gold_digger_but_is_worth_nothing():
    state = treasure_state(0, [D, S_, D], set_aside=[D], gold=[1, 0, 0], variants={"stone-nuggets"})
    assert sorted(state.gold_faces[g].nuggets for g in state.offered) == [0, 0]
    state.play(state.legal_actions()[0])
    assert state.gold_total(0) == 0 and state.gold_total(2) == 0 and len(state.gold_of[2]) == 1


def test_saboteurs_never_take_stones():
    state = exhausted_state([S_, D, D], set_aside=[D], gold=[0, 0, 0, 1, 2, 0], variants={"stone-nuggets"})
    assert state.phase is Phase.TAKE_GOLD
    assert state.legal_actions() == [TakeGold((3, 4))]


# -- broken tools forfeit gold ----------------------------------------------------------------

ROLES5 = [D, S_, D, D, S_]


def test_broken_tools_forfeit_the_gold_and_the_others_get_more():
    state = treasure_state(3, ROLES5, set_aside=[D], variants={"broken-tools-forfeit"}, broken={2: [Tool.LANTERN]})
    assert len(state.offered) == 3  # one card per gold-digger in play is still drawn
    assert state.keep_order == [3, 0]  # seat 2 is skipped
    finish_gold(state)
    assert [len(state.gold_of[s]) for s in range(5)] == [1, 0, 0, 2, 0]


def test_forfeit_when_a_saboteur_found_the_treasure():
    # the first gold-digger against turn order from the saboteur (seat 0) has a broken tool
    state = treasure_state(1, ROLES5, set_aside=[D], variants={"broken-tools-forfeit"}, broken={0: [Tool.CART]})
    assert len(state.offered) == 3
    assert state.current == 3 and state.keep_order == [3, 2]
    finish_gold(state)
    assert [len(state.gold_of[s]) for s in range(5)] == [0, 0, 1, 2, 0]


def test_without_the_variant_a_broken_tool_costs_no_gold():
    state = treasure_state(3, ROLES5, set_aside=[D], broken={2: [Tool.LANTERN]})
    finish_gold(state)
    assert [len(state.gold_of[s]) for s in range(5)] == [1, 0, 1, 1, 0]


def test_if_every_gold_digger_has_a_broken_tool_the_gold_stays_in_the_pile():
    broken = {0: [Tool.LANTERN], 2: [Tool.PICKAXE], 3: [Tool.CART]}
    state = treasure_state(1, ROLES5, set_aside=[D], variants={"broken-tools-forfeit"}, broken=broken)
    assert state.round == 2 and all(g == [] for g in state.gold_of)
    assert len(state.gold_pile) == 28
    assert state.results[0].winners is Winners.GOLD_DIGGERS


def test_saboteurs_are_not_affected_by_broken_tools():
    state = exhausted_state([S_, D, D, S_, D], set_aside=[D], variants={"broken-tools-forfeit"},
                            broken={0: [Tool.CART], 3: [Tool.PICKAXE]}, last=4)
    finish_gold(state)
    assert [state.gold_total(s) for s in range(5)] == [3, 0, 0, 3, 0]


# -- selfish dwarf -----------------------------------------------------------------------------

SELFISH_ROWS = {3: (1, 2), 4: (1, 3), 5: (2, 3), 6: (2, 4), 7: (3, 4), 8: (3, 5), 9: (3, 6), 10: (4, 6)}


@pytest.mark.parametrize("players", range(3, 11))
def test_selfish_dwarf_role_cards(players):
    saboteurs, diggers = SELFISH_ROWS[players]
    roles = Counter(card.role for card in C.role_cards(players, selfish_dwarf=True))
    assert roles == {S_: saboteurs, D: diggers, X: 1}
    state = Game(GameConfig(players=players, variants=frozenset({"selfish-dwarf"})), seed=players).new_state()
    assert len(state.roles) == players and len(state.set_aside_roles) == 1


def test_selfish_dwarf_who_reaches_the_treasure_wins_alone_with_four():
    roles = [D, X, D, S_, D]
    state = treasure_state(1, roles, set_aside=[S_], variants={"selfish-dwarf"})
    assert state.round_winners is Winners.SELFISH_DWARF
    assert state.phase is Phase.TAKE_GOLD and state.current == 1 and state.view_for(1).take_amount == 4
    finish_gold(state)
    assert [state.gold_total(s) for s in range(5)] == [0, 4, 0, 0, 0]
    assert state.results[0].winners is Winners.SELFISH_DWARF


def test_selfish_dwarf_gets_nothing_when_someone_else_reaches_the_treasure():
    roles = [D, X, D, S_, D]
    state = treasure_state(2, roles, set_aside=[S_], variants={"selfish-dwarf"})
    assert state.round_winners is Winners.GOLD_DIGGERS
    assert len(state.offered) == 3  # the gold-diggers in play: seats 0, 2, 4
    assert state.keep_order == [2, 0, 4]  # against turn order, skipping the selfish dwarf and saboteur
    finish_gold(state)
    assert [len(state.gold_of[s]) for s in range(5)] == [1, 0, 1, 0, 1]


def test_selfish_dwarf_gets_nothing_when_the_saboteurs_win():
    state = exhausted_state([D, X, D, S_, D], set_aside=[S_], variants={"selfish-dwarf"})
    assert state.round_winners is Winners.SABOTEURS and state.current == 3
    finish_gold(state)
    assert [state.gold_total(s) for s in range(5)] == [0, 0, 0, 4, 0]


# -- tournament roles ------------------------------------------------------------------------------

TOURNAMENT_ROWS = {5: (1, 3), 6: (2, 3), 7: (2, 4), 8: (2, 5), 9: (3, 5)}


@pytest.mark.parametrize("players", range(5, 10))
def test_tournament_roles_as_many_role_cards_as_players(players):
    saboteurs, diggers = TOURNAMENT_ROWS[players]
    roles = Counter(card.role for card in C.role_cards(players, tournament_roles=True))
    assert roles == {S_: saboteurs, D: diggers, X: 1} and sum(roles.values()) == players
    state = Game(GameConfig(players=players, variants=frozenset({"tournament-roles"})), seed=players).new_state()
    assert len(state.roles) == players and state.set_aside_roles == []


@pytest.mark.parametrize("players", [3, 4, 10])
def test_tournament_roles_only_for_5_to_9_players(players):
    with pytest.raises(ValueError, match="5 to 9"):
        GameConfig(players=players, variants=frozenset({"tournament-roles"}))


TOURNEY = [D, S_, D, X, D, D]  # a constructed deal: one saboteur, four gold-diggers, the selfish dwarf


def test_tournament_gold_diggers_win_first_three_others_two():
    state = treasure_state(2, TOURNEY, variants={"tournament-roles"})
    assert state.round_winners is Winners.GOLD_DIGGERS
    takers = []
    while state.phase is Phase.TAKE_GOLD:
        takers.append((state.current, state.view_for(state.current).take_amount))
        state.play(state.legal_actions()[0])
    assert takers == [(2, 3), (0, 2), (5, 2), (4, 2)]  # the finder, then against turn order
    assert [state.gold_total(s) for s in range(6)] == [2, 0, 3, 0, 2, 2]


def test_tournament_saboteur_finder_makes_the_next_gold_digger_first():
    state = treasure_state(1, TOURNEY, variants={"tournament-roles"})
    assert state.current == 0 and state.view_for(0).take_amount == 3
    finish_gold(state)
    assert [state.gold_total(s) for s in range(6)] == [3, 0, 2, 0, 2, 2]


def test_tournament_with_forfeit_a_digger_with_a_broken_tool_takes_nothing():
    both = {"tournament-roles", "broken-tools-forfeit"}
    state = treasure_state(2, TOURNEY, variants=both, broken={0: [Tool.CART], 5: [Tool.PICKAXE]})
    finish_gold(state)
    assert [state.gold_total(s) for s in range(6)] == [0, 0, 3, 0, 2, 0]


def test_tournament_with_forfeit_the_first_is_the_next_digger_without_a_broken_tool():
    # a saboteur (seat 1) finds it: seat 0 would be first, but has a broken tool; against turn
    # order the next gold-digger without one is seat 5
    both = {"tournament-roles", "broken-tools-forfeit"}
    state = treasure_state(1, TOURNEY, variants=both, broken={0: [Tool.LANTERN]})
    assert state.current == 5 and state.view_for(5).take_amount == 3
    finish_gold(state)
    assert [state.gold_total(s) for s in range(6)] == [0, 0, 2, 0, 2, 3]


def test_tournament_with_forfeit_every_digger_broken_takes_nothing():
    both = {"tournament-roles", "broken-tools-forfeit"}
    broken = {0: [Tool.CART], 2: [Tool.CART], 4: [Tool.CART], 5: [Tool.CART]}
    state = treasure_state(1, TOURNEY, variants=both, broken=broken)
    assert state.phase is Phase.PLAY and state.round == 2  # nothing to hand out: the next round began
    assert state.results[0].winners is Winners.GOLD_DIGGERS
    assert [state.gold_total(s) for s in range(6)] == [0] * 6


def test_tournament_selfish_dwarf_wins_four():
    state = treasure_state(3, TOURNEY, variants={"tournament-roles"})
    assert state.round_winners is Winners.SELFISH_DWARF
    finish_gold(state)
    assert [state.gold_total(s) for s in range(6)] == [0, 0, 0, 4, 0, 0]


def test_tournament_saboteurs_win_as_usual():
    state = exhausted_state([S_, D, D, X, S_, D], variants={"tournament-roles"})
    finish_gold(state)
    assert [state.gold_total(s) for s in range(6)] == [3, 0, 0, 0, 3, 0]


# -- gold per player ---------------------------------------------------------------------------------

def test_gold_per_player_goes_round_the_gold_diggers_until_none_is_left():
    state = treasure_state(0, [D, S_, D, D, S_], set_aside=[D], variants={"gold-per-player"})
    assert len(state.offered) == 5
    order = []
    while state.phase is Phase.KEEP_GOLD:
        order.append(state.current)
        state.play(state.legal_actions()[0])
    assert order == [0, 3, 2, 0]  # the fifth card goes to seat 3 without a choice
    assert [len(state.gold_of[s]) for s in range(5)] == [2, 0, 1, 2, 0]


def test_gold_per_player_draws_nine_cards_with_ten_players():
    roles = [D, S_, D, D, S_, D, D, S_, D, S_]
    state = treasure_state(0, roles, set_aside=[D], variants={"gold-per-player"})
    assert len(state.offered) == 9
    finish_gold(state)
    assert sum(len(g) for g in state.gold_of) == 9
