"""Saboteur 2 scoring (rules.md 8): seed 004's two worked examples in every alternative they
list, then each scoring rule on its own."""
from __future__ import annotations

import pytest

from saboteur_p2p.rules import Ways, Winners
from saboteur_p2p.rules.cards import Role
from saboteur_p2p.rules.scoring2 import base_gold, score_round, theft_order, winners_of_round, winning_teams

B, G, BOSS, PROF, GEO, SAB = (
    Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.PROFITEER, Role.GEOLOGIST, Role.SABOTEUR,
)

#: ways to the treasure: (blue open, green open, a route with no door at all)
DOORLESS = Ways(True, True, True)
BLUE_DOOR_ONLY = Ways(True, False, False)  # every route has a blue door, none a green one
GREEN_DOOR_ONLY = Ways(False, True, False)
ONE_OF_EACH = Ways(True, True, False)  # one route with a blue door, another with a green door
BOTH_ON_EVERY_ROUTE = Ways(False, False, False)


def free(n: int) -> list[bool]:
    return [False] * n


# -- seed 004, example 1 ----------------------------------------------------------------------
# 1 blue gold-digger, 2 green gold-diggers, the boss, the profiteer and 2 saboteurs; both
# saboteurs have a Theft in front of them and one of them is trapped.

EX1 = (B, G, G, BOSS, PROF, SAB, SAB)
EX1_TRAPPED = [False, False, False, False, False, False, True]
EX1_THEFTS = [None, None, None, None, None, 11, 14]  # turn numbers the Thefts were played


def test_example_1_boss_completes_the_path_through_a_blue_door():
    outcome = score_round(EX1, 3, BLUE_DOOR_ONLY, EX1_TRAPPED, crystals=0)
    assert outcome.winners is Winners.BLUE_TEAM
    assert outcome.paid == (0, 3, 4)  # N = 3
    assert outcome.gold == (3, 0, 0, 2, 1, 0, 0)  # blue 3, boss 3-1, profiteer 3-2


def test_example_1_the_blue_team_wins_even_if_a_green_digger_connects():
    for finder in (1, 2):
        outcome = score_round(EX1, finder, BLUE_DOOR_ONLY, EX1_TRAPPED, crystals=0)
        assert outcome.winners is Winners.BLUE_TEAM
        assert outcome.gold == (3, 0, 0, 2, 1, 0, 0)


def test_example_1_a_blue_digger_connecting_wins_the_same():
    assert score_round(EX1, 0, BLUE_DOOR_ONLY, EX1_TRAPPED, crystals=0).gold == (3, 0, 0, 2, 1, 0, 0)


def test_example_1_saboteur_win_pays_the_untrapped_saboteur_and_the_profiteer():
    outcome = score_round(EX1, None, None, EX1_TRAPPED, crystals=0)
    assert outcome.winners is Winners.SABOTEURS
    assert outcome.paid == (4, 5)  # N = 2: the trapped saboteur is not counted
    assert outcome.gold == (0, 0, 0, 0, 2, 4, 0)  # saboteur 4, profiteer 4-2


def test_example_1_only_the_untrapped_saboteur_steals():
    # the trapped saboteur's Theft (seat 6) was the last one played, yet only seat 5 steals
    assert theft_order(EX1_THEFTS, EX1_TRAPPED) == [5]


# -- seed 004, example 2 ----------------------------------------------------------------------
# 1 blue gold-digger, 3 green gold-diggers, the profiteer, 1 saboteur with a Theft, 1 geologist.

EX2 = (B, G, G, G, PROF, SAB, GEO)
EX2_THEFTS = [None, None, None, None, None, 8, None]


@pytest.mark.parametrize("ways", [DOORLESS, GREEN_DOOR_ONLY, ONE_OF_EACH], ids=["no-doors", "green-door", "one-of-each"])
@pytest.mark.parametrize("finder", [1, 2, 3])
def test_example_2_a_green_digger_connects_by_a_route_without_blue_door(finder, ways):
    outcome = score_round(EX2, finder, ways, free(7), crystals=0)
    assert outcome.winners is Winners.GREEN_TEAM
    assert outcome.paid == (1, 2, 3, 4)  # N = 4
    assert outcome.gold == (0, 2, 2, 2, 0, 0, 0)  # greens 2 each, profiteer 2-2 = 0(!), blue 0


def test_example_2_saboteur_win():
    outcome = score_round(EX2, None, None, free(7), crystals=0)
    assert outcome.winners is Winners.SABOTEURS
    assert outcome.paid == (4, 5)
    assert outcome.gold == (0, 0, 0, 0, 2, 4, 0)


@pytest.mark.parametrize("crystals", [0, 1, 4, 10])
def test_example_2_the_geologist_gets_the_visible_crystals_whatever_the_outcome(crystals):
    assert score_round(EX2, 2, DOORLESS, free(7), crystals).gold == (0, 2, 2, 2, 0, 0, crystals)
    assert score_round(EX2, None, None, free(7), crystals).gold == (0, 0, 0, 0, 2, 4, crystals)


def test_example_2_the_saboteur_steals():
    assert theft_order(EX2_THEFTS, free(7)) == [5]


# -- base gold by number of winners -----------------------------------------------------------

@pytest.mark.parametrize("winners, gold", [(0, 0), (1, 5), (2, 4), (3, 3), (4, 2), (5, 1), (6, 1), (11, 1)])
def test_base_gold_by_number_of_winners(winners, gold):
    assert base_gold(winners) == gold


@pytest.mark.parametrize("blues, each", [(1, 5), (2, 4), (3, 3), (4, 2)])
def test_each_winner_gets_the_base(blues, each):
    roles = (B,) * blues + (G, G, SAB)
    outcome = score_round(roles, 0, DOORLESS, free(len(roles)), crystals=0)
    assert outcome.gold == (each,) * blues + (0, 0, 0)


def test_five_or_more_winners_get_one_each_and_the_boss_and_profiteer_nothing():
    roles = (B, B, B, B, BOSS, G)
    assert score_round(roles, 0, DOORLESS, free(6), 0).gold == (1, 1, 1, 1, 0, 0)
    roles = (B, B, B, B, BOSS, PROF, G)
    outcome = score_round(roles, 0, DOORLESS, free(7), 0)
    assert outcome.paid == (0, 1, 2, 3, 4, 5)
    assert outcome.gold == (1, 1, 1, 1, 0, 0, 0)


def test_boss_gets_one_less_and_profiteer_two_less():
    roles = (G, BOSS, SAB, B)
    assert score_round(roles, 0, GREEN_DOOR_ONLY, free(4), 0).gold == (4, 3, 0, 0)  # N = 2
    roles = (G, PROF, SAB, B)
    assert score_round(roles, 0, GREEN_DOOR_ONLY, free(4), 0).gold == (4, 2, 0, 0)
    roles = (G, G, BOSS, PROF, B)
    assert score_round(roles, 0, GREEN_DOOR_ONLY, free(5), 0).gold == (2, 2, 1, 0, 0)  # N = 4, never below 0


def test_boss_wins_with_either_team_and_profiteer_with_everyone():
    roles = (B, G, BOSS, PROF, SAB)
    for finder, ways, kind in ((0, BLUE_DOOR_ONLY, Winners.BLUE_TEAM), (1, GREEN_DOOR_ONLY, Winners.GREEN_TEAM)):
        verdict, side = winners_of_round(roles, finder, ways)
        assert verdict is kind and set(side) == {finder, 2, 3}
    verdict, side = winners_of_round(roles, None, None)
    assert verdict is Winners.SABOTEURS and side == (3, 4)


# -- which teams win -------------------------------------------------------------------------

@pytest.mark.parametrize("finder, ways, teams", [
    (B, DOORLESS, {"blue"}),
    (B, BLUE_DOOR_ONLY, {"blue"}),
    (B, ONE_OF_EACH, {"blue"}),
    (B, GREEN_DOOR_ONLY, {"green"}),  # the blue way is shut: the other team wins
    (B, BOTH_ON_EVERY_ROUTE, set()),
    (G, DOORLESS, {"green"}),
    (G, GREEN_DOOR_ONLY, {"green"}),
    (G, BLUE_DOOR_ONLY, {"blue"}),
    (G, BOTH_ON_EVERY_ROUTE, set()),
    (BOSS, DOORLESS, {"blue", "green"}),
    (BOSS, BLUE_DOOR_ONLY, {"blue"}),
    (BOSS, GREEN_DOOR_ONLY, {"green"}),
    (BOSS, ONE_OF_EACH, {"blue", "green"}),  # Decision: each team whose way is open wins
    (BOSS, BOTH_ON_EVERY_ROUTE, set()),
    (PROF, DOORLESS, {"blue", "green"}),
    (GEO, DOORLESS, {"blue", "green"}),
    (GEO, GREEN_DOOR_ONLY, {"green"}),
    (SAB, DOORLESS, {"blue", "green"}),
    (SAB, BLUE_DOOR_ONLY, {"blue"}),
    (SAB, BOTH_ON_EVERY_ROUTE, set()),
])
def test_winning_teams(finder, ways, teams):
    names = {Winners.BLUE_TEAM: "blue", Winners.GREEN_TEAM: "green"}
    assert {names[t] for t in winning_teams(finder, ways)} == teams


def test_anyone_else_reaching_by_a_doorless_route_makes_both_teams_win():
    roles = (B, G, SAB, GEO, BOSS)
    for finder in (2, 3, 4):
        outcome = score_round(roles, finder, DOORLESS, free(5), crystals=0)
        assert outcome.winners is Winners.BOTH_TEAMS
        assert outcome.paid == (0, 1, 4)
        assert outcome.gold == (3, 3, 0, 0, 2)


def test_a_saboteur_who_reaches_the_treasure_wins_nothing():
    outcome = score_round((SAB, B, G), 0, BLUE_DOOR_ONLY, free(3), crystals=0)
    assert outcome.winners is Winners.BLUE_TEAM and outcome.gold == (0, 5, 0)


# -- doors of both colours on every route ------------------------------------------------------

def test_boss_wins_alone_with_four_when_there_is_no_profiteer():
    roles = (B, G, BOSS, SAB, GEO)
    for finder in range(5):
        outcome = score_round(roles, finder, BOTH_ON_EVERY_ROUTE, free(5), crystals=1)
        assert outcome.winners is Winners.BOSS
        assert outcome.paid == (2,)
        assert outcome.gold == (0, 0, 4, 0, 1)


def test_profiteer_wins_alone_with_three_when_they_reached_it_and_there_is_no_boss():
    roles = (B, G, PROF, SAB)
    outcome = score_round(roles, 2, BOTH_ON_EVERY_ROUTE, free(4), crystals=0)
    assert outcome.winners is Winners.PROFITEER and outcome.gold == (0, 0, 3, 0)


@pytest.mark.parametrize("roles, finder", [
    ((B, G, PROF, SAB), 0),  # the profiteer did not reach it
    ((B, G, PROF, SAB), 3),
    ((B, G, BOSS, PROF), 2),  # both are in play
    ((B, G, BOSS, PROF), 3),
    ((B, G, SAB, GEO), 0),  # neither is in play
])
def test_otherwise_nobody_but_the_geologists_gets_gold(roles, finder):
    outcome = score_round(roles, finder, BOTH_ON_EVERY_ROUTE, free(4), crystals=3)
    assert outcome.winners is Winners.NOBODY and outcome.paid == ()
    assert outcome.gold == tuple(3 if r is GEO else 0 for r in roles)


def test_a_trapped_boss_alone_gets_nothing():
    outcome = score_round((B, G, BOSS), 0, BOTH_ON_EVERY_ROUTE, [False, False, True], 0)
    assert outcome.winners is Winners.BOSS and outcome.paid == () and outcome.gold == (0, 0, 0)


# -- trapped players ---------------------------------------------------------------------------

def test_trapped_winners_get_nothing_and_are_not_counted():
    roles = (B, B, B, G)
    outcome = score_round(roles, 0, DOORLESS, [False, True, False, False], 0)
    assert outcome.paid == (0, 2) and outcome.gold == (4, 0, 4, 0)  # N = 2, not 3
    outcome = score_round(roles, 0, DOORLESS, [True, True, False, False], 0)
    assert outcome.paid == (2,) and outcome.gold == (0, 0, 5, 0)  # a trapped finder still wins the round for the team


def test_every_winner_trapped_leaves_the_gold_unpaid():
    outcome = score_round((SAB, B, PROF), None, None, [True, False, True], 0)
    assert outcome.winners is Winners.SABOTEURS and outcome.paid == () and outcome.gold == (0, 0, 0)


def test_a_trapped_profiteer_does_not_lower_the_base_for_the_others():
    outcome = score_round((SAB, SAB, PROF, B), None, None, [False, False, True, False], 0)
    assert outcome.gold == (4, 4, 0, 0)


# -- geologists ----------------------------------------------------------------------------------

def test_geologists_are_not_winners():
    outcome = score_round((B, GEO, G), 0, DOORLESS, free(3), crystals=2)
    assert outcome.paid == (0,) and outcome.gold == (5, 2, 0)


@pytest.mark.parametrize("crystals, each", [(0, 0), (1, 0), (2, 1), (5, 2), (10, 5)])
def test_two_geologists_split_the_crystals_rounded_down(crystals, each):
    outcome = score_round((GEO, B, GEO), None, None, free(3), crystals)
    assert outcome.gold == (each, 0, each)


def test_one_geologist_takes_every_crystal():
    assert score_round((GEO, B, SAB), 1, DOORLESS, free(3), 7).gold == (7, 5, 0)
    assert score_round((GEO, B, SAB), None, None, free(3), 7).gold == (7, 0, 5)


def test_a_trapped_geologist_gets_nothing_and_the_other_only_the_split_share():
    outcome = score_round((GEO, B, GEO), None, None, [True, False, False], crystals=5)
    assert outcome.gold == (0, 0, 2)  # not 5: the trapped geologist's share is lost


def test_a_geologist_reaching_the_treasure_gets_only_crystals():
    outcome = score_round((GEO, B, G), 0, DOORLESS, free(3), crystals=3)
    assert outcome.winners is Winners.BOTH_TEAMS
    assert outcome.paid == (1, 2) and outcome.gold == (3, 4, 4)


# -- thefts ----------------------------------------------------------------------------------

def test_no_thieves():
    assert theft_order([None] * 5, free(5)) == []


def test_the_last_theft_played_steals_first_then_clockwise():
    played = [None, 5, None, 9, 2]
    assert theft_order(played, free(5)) == [3, 4, 1]
    assert theft_order([7, 3, 8, 1], free(4)) == [2, 3, 0, 1]
    assert theft_order([7, None, None, None], free(4)) == [0]


def test_trapped_thieves_are_skipped_and_the_order_still_follows_the_last_theft():
    played = [None, 5, None, 9, 2]
    # seat 3's Theft was played last: seat 3 is trapped and steals nothing, then clockwise
    assert theft_order(played, [False, False, False, True, False]) == [4, 1]
    assert theft_order(played, [False, True, False, False, False]) == [3, 4]
    assert theft_order(played, [False, True, False, True, True]) == []


def test_nobody_wins_an_unreached_treasure_without_saboteurs_or_profiteer() -> None:
    roles = (Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.GEOLOGIST)
    outcome = score_round(roles, None, None, (False, False, False), 3)
    assert outcome.winners is Winners.NOBODY
    assert outcome.paid == ()
    assert outcome.gold == (0, 0, 3)


def test_a_lone_profiteer_wins_with_the_absent_saboteurs() -> None:
    roles = (Role.BLUE_DIGGER, Role.PROFITEER)
    outcome = score_round(roles, None, None, (False, False), 0)
    assert outcome.winners is Winners.SABOTEURS
    assert outcome.gold == (0, 3)
