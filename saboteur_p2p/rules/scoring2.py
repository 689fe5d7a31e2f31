"""Saboteur 2 scoring: who wins a round, the gold each player gets, and the thieves' order.

Pure functions of public facts at the end of a round (rules.md 8): the dwarf cards, who
reached the treasure, which teams' ways to it are open, who is trapped, and the crystals
in the maze.  Seed 004's two worked examples are tests of this module.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .board import Ways
from .cards import Role
from .phases import Winners

#: winners counted (N) -> gold pieces for each winner; 5 or more winners get 1 each.
BASE_GOLD = {1: 5, 2: 4, 3: 3, 4: 2}
#: how many pieces less than the base these roles get (never below 0).
DISCOUNT = {Role.BOSS: 1, Role.PROFITEER: 2}

TEAM_OF = {Role.BLUE_DIGGER: Winners.BLUE_TEAM, Role.GREEN_DIGGER: Winners.GREEN_TEAM}


@dataclass(frozen=True)
class Outcome:
    """The result of a Saboteur 2 round before thefts."""

    winners: Winners
    #: the seats that won and were paid as winners (trapped players and geologists never are)
    paid: tuple[int, ...]
    #: gold pieces per seat, geologists' crystals included
    gold: tuple[int, ...]


def winning_teams(finder: Role, ways: Ways) -> frozenset[Winners]:
    """The teams that win when ``finder`` reached the treasure by ways ``ways``."""
    blue, green = Winners.BLUE_TEAM, Winners.GREEN_TEAM
    own = TEAM_OF.get(finder)
    if own is not None:
        other = green if own is blue else blue
        open_to = {blue: ways.blue, green: ways.green}
        if open_to[own]:
            return frozenset((own,))
        return frozenset((other,)) if open_to[other] else frozenset()
    if ways.doorless:
        return frozenset((blue, green))
    return frozenset(team for team, way in ((blue, ways.blue), (green, ways.green)) if way)


#: the roles on each winning side (the boss and the profiteer win with either team)
SIDES = {
    Winners.SABOTEURS: frozenset((Role.SABOTEUR, Role.PROFITEER)),
    Winners.BLUE_TEAM: frozenset((Role.BLUE_DIGGER, *DISCOUNT)),
    Winners.GREEN_TEAM: frozenset((Role.GREEN_DIGGER, *DISCOUNT)),
    Winners.BOTH_TEAMS: frozenset((Role.BLUE_DIGGER, Role.GREEN_DIGGER, *DISCOUNT)),
    Winners.BOSS: frozenset((Role.BOSS,)),
    Winners.PROFITEER: frozenset((Role.PROFITEER,)),  # the deck's one profiteer, who reached the treasure
}


def side_of(kind: Winners, roles: Sequence[Role]) -> tuple[int, ...]:
    """Every seat on the side that won a round of ``kind`` (trapped or not): public once the
    round's dwarf cards are shown, whatever each was paid."""
    return tuple(s for s, role in enumerate(roles) if role in SIDES.get(kind, ()))


def winners_of_round(roles: Sequence[Role], finder: int | None, ways: Ways | None) -> tuple[Winners, tuple[int, ...]]:
    """The kind of win and every seat on the winning side (trapped or not)."""
    if finder is None or ways is None:
        kind = Winners.SABOTEURS if side_of(Winners.SABOTEURS, roles) else Winners.NOBODY
    elif teams := winning_teams(roles[finder], ways):
        kind = Winners.BOTH_TEAMS if len(teams) == 2 else next(iter(teams))
    # Every route has doors of both colours: no team wins.
    elif Role.BOSS in roles and Role.PROFITEER not in roles:
        kind = Winners.BOSS
    elif roles[finder] is Role.PROFITEER and Role.BOSS not in roles:
        kind = Winners.PROFITEER
    else:
        kind = Winners.NOBODY
    return kind, side_of(kind, roles)


def base_gold(winners: int) -> int:
    return BASE_GOLD.get(winners, 1) if winners else 0


def score_round(
    roles: Sequence[Role], finder: int | None, ways: Ways | None, trapped: Sequence[bool], crystals: int,
) -> Outcome:
    """Gold for every seat at the end of a round, before thefts (rules.md 8).

    ``finder`` is the seat that reached the treasure, or None if nobody did; ``ways`` then
    says which teams' ways to the treasure are open.
    """
    kind, side = winners_of_round(roles, finder, ways)
    paid = tuple(s for s in side if not trapped[s])
    base = base_gold(len(paid))
    gold = [0] * len(roles)
    for seat in paid:
        gold[seat] = max(0, base - DISCOUNT.get(roles[seat], 0))
    geologists = [s for s, role in enumerate(roles) if role is Role.GEOLOGIST]
    if geologists:
        share = crystals // len(geologists)
        for seat in geologists:
            if not trapped[seat]:
                gold[seat] += share
    return Outcome(kind, paid, tuple(gold))


def theft_order(played: Sequence[int | None], trapped: Sequence[bool]) -> list[int]:
    """The thieves in the order they steal: the last Theft played first, then clockwise.

    ``played[seat]`` is when the Theft in front of ``seat`` was played (a growing turn
    number), or None.  A trapped thief steals nothing (rules.md 8) but keeps their place:
    the order still starts at the last Theft played, even when its owner is trapped.
    """
    thieves = {s: when for s, when in enumerate(played) if when is not None}
    active = [s for s in thieves if not trapped[s]]
    if not active:
        return []
    n = len(played)
    first = max(thieves, key=lambda s: thieves[s])
    return sorted(active, key=lambda s: (s - first) % n)
