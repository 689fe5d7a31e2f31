"""Handing out gold (rules.md 5): the miners' hand-out, saboteurs' exact shares, shortages."""
from __future__ import annotations

import pytest
from conftest import MAP, S_, D, build, place_text, snapshot

from saboteur_p2p.rules import IllegalActionError, KeepGold, TakeGold
from saboteur_p2p.rules.cards import STONE_NE, STONE_NW, TREASURE
from saboteur_p2p.rules.events import GoalRevealed, GoldReceived, RoundEnded
from saboteur_p2p.rules.gold import gold_choices, saboteur_share
from saboteur_p2p.rules.state import Phase, Winners

CORRIDOR = {(x, 0): "WE" for x in range(1, 7)}

# -- the exact-amount search -------------------------------------------------------------


def test_saboteur_shares():
    assert [saboteur_share(k) for k in (0, 1, 2, 3, 4)] == [0, 4, 3, 3, 2]


def test_gold_choices_exact_distinct_lowest_handles():
    pile = [(10, 1), (11, 1), (12, 2), (13, 3), (14, 1), (15, 2)]
    choices = gold_choices(pile, 3)
    assert sorted(choices) == sorted([(13,), (10, 12), (10, 11, 14)])
    assert all(sum(dict(pile)[h] for h in c) == 3 for c in choices)


def test_gold_choices_shortage_takes_the_largest_total_not_exceeding():
    assert gold_choices([(0, 3), (1, 3)], 4) == [(0,)]
    assert gold_choices([(0, 2), (1, 2)], 3) == [(0,)]
    assert gold_choices([(0, 1)], 4) == [(0,)]
    assert gold_choices([(0, 3)], 2) == []  # nothing fits under the amount
    assert gold_choices([], 3) == []


def test_gold_choices_never_take_worthless_stones():
    assert gold_choices([(0, 0), (1, 0), (2, 1)], 2) == [(2,)]
    assert gold_choices([(0, 0)], 2) == []


# -- gold-diggers win ------------------------------------------------------------------------

ROLES5 = [D, S_, D, D, S_]  # set aside: a gold-digger, which does not count
GOLD_TOP_123 = [1] * 20 + [3, 2, 1]  # bottom first: the top three are 1, 2, 3


def treasure_state(finder, roles=ROLES5, gold=GOLD_TOP_123, players=5, variants=(), set_aside=(D,), goals=None):
    hands = {seat: ["WE", MAP] for seat in range(players)}
    goals = goals or (STONE_NE, TREASURE, STONE_NW)
    state = build(players, maze=CORRIDOR, goals=goals, hands=hands, roles=roles, set_aside=set_aside,
                  current=finder, gold=gold, variants=variants)
    state.play(place_text(state, finder, "WE", (7, 0)))
    assert any(isinstance(e, GoalRevealed) and e.card == TREASURE for e in state.events)
    return state


def nuggets(state, seat):
    return sorted(state.gold_faces[g].nuggets for g in state.gold_of[seat])


def test_finder_draws_one_card_per_gold_digger_keeps_one_and_passes_against_turn_order():
    state = treasure_state(finder=3)
    assert state.round_winners is Winners.GOLD_DIGGERS
    assert state.phase is Phase.KEEP_GOLD and state.current == 3
    assert len(state.offered) == 3  # three gold-diggers in play (0, 2, 3)
    view = state.view_for(3)
    assert sorted(card.nuggets for _, card in view.offered) == [1, 2, 3]
    assert state.view_for(2).offered == () and state.view_for(0).offered == ()
    assert sorted(a.gold for a in state.legal_actions()) == sorted(state.offered)
    three = next(g for g in state.offered if state.gold_faces[g].nuggets == 3)
    state.play(f"keep {three}")
    # against turn order: seat 2 next, then seat 1 is a saboteur and skipped, then seat 0
    assert state.phase is Phase.KEEP_GOLD and state.current == 2 and len(state.offered) == 2
    one = next(g for g in state.offered if state.gold_faces[g].nuggets == 1)
    state.play(f"keep {one}")
    # the last card goes to seat 0 without a choice, and the round is over
    assert nuggets(state, 3) == [3] and nuggets(state, 2) == [1] and nuggets(state, 0) == [2]
    assert state.gold_of[1] == [] and state.gold_of[4] == []
    assert state.results[0].gold_cards == (1, 0, 1, 1, 0)
    assert state.results[0].winners is Winners.GOLD_DIGGERS
    assert state.round == 2 and state.phase is Phase.PLAY
    assert [(e.player, e.cards) for e in state.events if isinstance(e, GoldReceived)] == [(3, 1), (2, 1), (0, 1)]


def test_keep_must_name_an_offered_card():
    state = treasure_state(finder=3)
    before = snapshot(state)
    not_offered = state.gold_pile[0]
    for text in (f"keep {not_offered}", "keep 999", "take 1", "pass 1"):
        with pytest.raises(IllegalActionError) as info:
            state.play(text)
        assert text in str(info.value)
    assert snapshot(state) == before
    with pytest.raises(IllegalActionError, match="turn"):
        state.play(KeepGold(state.offered[0]), player=2)


def test_a_saboteur_who_reaches_the_treasure_lets_the_gold_diggers_win():
    state = treasure_state(finder=1)  # seat 1 is a saboteur
    assert state.round_winners is Winners.GOLD_DIGGERS
    # the first gold-digger against turn order from seat 1 is seat 0; then 4 (saboteur) is skipped
    assert state.phase is Phase.KEEP_GOLD and state.current == 0
    assert state.keep_order == [0, 3, 2]
    state.play(f"keep {state.offered[0]}")
    assert state.current == 3
    state.play(f"keep {state.offered[0]}")
    assert [len(state.gold_of[s]) for s in range(5)] == [1, 0, 1, 1, 0]


def test_hand_out_with_a_short_gold_pile():
    state = treasure_state(finder=0, gold=[2, 1])  # three gold-diggers, two cards left
    assert len(state.offered) == 2 and state.gold_pile == []
    state.play(f"keep {state.offered[0]}")
    # order from seat 0 against turn order: 0, 3, 2; seat 2 gets nothing
    assert [len(state.gold_of[s]) for s in range(5)] == [1, 0, 0, 1, 0]


def test_hand_out_with_an_empty_gold_pile_gives_nothing_and_the_round_ends():
    state = treasure_state(finder=0, gold=[])
    assert state.round == 2 and all(g == [] for g in state.gold_of)
    assert state.results[0].winners is Winners.GOLD_DIGGERS


# -- saboteurs win --------------------------------------------------------------------------

SABOTEUR_TABLES = {  # saboteurs in play: (players, roles, set-aside)
    1: (3, [D, S_, D], [D]),
    2: (5, [S_, D, D, S_, D], [D]),
    3: (7, [D, S_, S_, D, D, S_, D], [D]),
    4: (10, [S_, D, D, S_, D, S_, D, S_, D, D], [D]),
}


def exhausted_state(players, roles, set_aside, last, gold=None, variants=()):
    """Seat ``last`` holds the only card left; the draw pile is empty."""
    gold = gold if gold is not None else [1] * 16 + [2] * 8 + [3] * 4
    state = build(players, hands={last: [MAP]}, draw=[], roles=roles, set_aside=set_aside,
                  current=last, gold=gold, variants=variants)
    state.play(f"pass {state.hands[last][0]}")
    return state


@pytest.mark.parametrize("saboteurs, share", [(1, 4), (2, 3), (3, 3), (4, 2)])
def test_saboteurs_win_when_the_cards_run_out_and_take_exact_shares(saboteurs, share):
    players, roles, set_aside = SABOTEUR_TABLES[saboteurs]
    last = 1
    state = exhausted_state(players, roles, set_aside, last)
    assert state.round_winners is Winners.SABOTEURS
    ended = next(e for e in state.events if isinstance(e, RoundEnded))
    assert ended.winners == "saboteurs" and ended.roles == tuple(roles) and ended.last_player == last
    order = [s for s in [(last + k) % players for k in range(1, players + 1)] if roles[s] is S_]
    takers = []
    while state.phase is Phase.TAKE_GOLD:
        seat = state.current
        takers.append(seat)
        view = state.view_for(seat)
        assert view.take_amount == share and len(view.gold_pile) == len(state.gold_pile)
        assert state.view_for((seat + 1) % players).gold_pile == ()
        for action in state.legal_actions():
            assert sum(state.gold_faces[g].nuggets for g in action.golds) == share
        # choose exactly: the largest cards first
        chosen = max(state.legal_actions(), key=lambda a: -len(a.golds))
        state.play(chosen)
    assert takers == order
    for seat in range(players):
        assert state.gold_total(seat) == (share if roles[seat] is S_ else 0)
    assert state.results[0].winners is Winners.SABOTEURS


def test_saboteur_take_must_be_worth_exactly_the_share():
    state = exhausted_state(3, [D, S_, D], [D], last=0, gold=[1, 1, 2, 3, 0])
    assert state.phase is Phase.TAKE_GOLD and state.current == 1
    one_a, one_b, two, three, stone = range(5)
    before = snapshot(state)
    for text in ("keep 3", "pass 0", "orient 1"):
        with pytest.raises(IllegalActionError, match="must take gold from the pile"):
            state.play(text)
    for golds, words in (((three,), "exactly 4"), ((two, three), "exactly 4"), ((three, three), "named twice"),
                         ((three, 7), "not in the gold pile"), ((three, stone, one_a), "worthless")):
        text = "take " + ",".join(map(str, golds))
        with pytest.raises(IllegalActionError, match=words) as info:
            state.play(text)
        assert text in str(info.value)
    assert snapshot(state) == before
    legal = {tuple(sorted(a.golds)) for a in state.legal_actions()}
    assert legal == {(one_a, three), (one_a, one_b, two)}
    state.play(f"take {three},{one_b}")  # any cards worth 4, not only the listed lowest handles
    assert state.gold_total(1) == 4 and sorted(state.gold_of[1]) == [one_b, three]
    assert state.round == 2 and sorted(state.gold_pile) == [one_a, two, stone]


def test_saboteur_shortage_takes_the_largest_total_not_exceeding():
    # two saboteurs need 3 each; the pile holds 3, 1, 1
    state = exhausted_state(5, [S_, D, D, S_, D], [D], last=4, gold=[1, 1, 3])
    assert state.current == 0 and state.legal_actions() == [TakeGold((2,))]
    state.play("take 2")
    assert state.current == 3
    with pytest.raises(IllegalActionError, match="cannot make 3; take cards worth 2"):
        state.play("take 0")
    state.play("take 0,1")
    assert [state.gold_total(s) for s in range(5)] == [3, 0, 0, 2, 0]


def test_saboteurs_with_nothing_left_to_take_get_nothing():
    # the pile holds only worthless stones: each saboteur may only "take none" (whether the
    # pile is worth anything is not public, so the engine cannot skip them)
    state = exhausted_state(5, [S_, D, D, S_, D], [D], last=4, gold=[0, 0])
    for taker in (0, 3):
        assert state.phase is Phase.TAKE_GOLD and state.current == taker
        assert state.legal_actions() == [TakeGold(())]
        with pytest.raises(IllegalActionError):
            state.play("take 0")
        state.play("take none")
    assert state.round == 2 and all(g == [] for g in state.gold_of)
    assert state.results[0].winners is Winners.SABOTEURS


def test_an_empty_gold_pile_skips_the_takers():
    state = exhausted_state(5, [S_, D, D, S_, D], [D], last=4, gold=[])
    assert state.round == 2 and all(g == [] for g in state.gold_of)
    assert state.results[0].winners is Winners.SABOTEURS


@pytest.mark.parametrize("players", [3, 4])
def test_no_saboteur_in_play_and_no_treasure_means_no_gold(players):
    roles = [D] * players
    state = exhausted_state(players, roles, [S_], last=0)
    assert state.results[0].winners is Winners.NOBODY
    assert state.results[0].gold_cards == (0,) * players
    assert all(g == [] for g in state.gold_of) and state.round == 2
    assert next(e for e in state.events if isinstance(e, RoundEnded)).winners == "nobody"


@pytest.mark.parametrize("players", [3, 4])
def test_no_saboteur_in_play_and_the_treasure_pays_the_gold_diggers(players):
    roles = [D] * players
    state = treasure_state(finder=0, roles=roles, players=players, set_aside=[S_])
    assert state.round_winners is Winners.GOLD_DIGGERS and len(state.offered) == players


def test_gold_is_secret_to_its_owner_until_the_end_of_the_game():
    state = treasure_state(finder=3)
    while state.phase is Phase.KEEP_GOLD:
        state.play(state.legal_actions()[0])
    for seat in range(5):
        view = state.view_for(seat)
        assert [h for h, _ in view.gold] == state.gold_of[seat]
        assert view.gold_counts == (1, 0, 1, 1, 0)
        assert view.scores is None
