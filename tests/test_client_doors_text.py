"""The round's end says why the winners won in Saboteur 2's words: for a blue or green digger
who reached the treasure, whether its own team's way was open (its team wins then, and only
then).  Before, "the green team won · … a way without doors" read as if both should have."""
from __future__ import annotations

from typing import Any

from saboteur_p2p.client.tracker import _doors
from saboteur_p2p.rules import Role
from saboteur_p2p.rules.board import Ways


class _Maze:
    """A maze reduced to what the doors leave open towards the treasure."""

    def __init__(self, blue: bool, green: bool, doorless: bool) -> None:
        self.ways = Ways(blue, green, doorless)

    def open_ways(self, target: Any) -> Ways:
        return self.ways


def test_a_team_digger_s_own_way_comes_first() -> None:
    treasure = (8, 0)
    open_to_all = _Maze(True, True, True)
    assert _doors(open_to_all, treasure, Role.GREEN_DIGGER) == "no blue door bars the green team's way"  # type: ignore[arg-type]
    assert _doors(open_to_all, treasure, Role.BOSS) == "a way without doors lets both teams win"  # type: ignore[arg-type]
    blue_only = _Maze(True, False, False)
    assert _doors(blue_only, treasure, Role.GREEN_DIGGER) == "blue doors bar the green team; the blue team's way is open"  # type: ignore[arg-type]
    assert _doors(blue_only, treasure, Role.BLUE_DIGGER) == "no green door bars the blue team's way"  # type: ignore[arg-type]
    assert _doors(blue_only, treasure, Role.PROFITEER) == "only the blue team gets past the doors"  # type: ignore[arg-type]
    shut = _Maze(False, False, False)
    for finder in (Role.BLUE_DIGGER, Role.SABOTEUR, None):
        assert _doors(shut, treasure, finder) == "the doors stop both teams"  # type: ignore[arg-type]
    assert _doors(open_to_all, None, Role.BLUE_DIGGER) == ""  # type: ignore[arg-type]  # nobody reached it
