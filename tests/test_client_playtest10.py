"""Findings of a play-test of the base game between two people and two bot peers at 80x24 and
100x30 (2026-12-05, host and join on loopback), one test each."""
from __future__ import annotations

from dataclasses import replace

from conftest import path
from test_client_playtest3 import BOTS, _table, text

from saboteur_p2p.client.app import SIDE_MIN
from saboteur_p2p.client.render import render_players
from saboteur_p2p.client.tracker import LastMove, _short_move, _tiny_move
from saboteur_p2p.rules import BreakTool, CardPlayed, MapPeek, Pass, PlacePath, RepairTool, Rockfall, Tool
from saboteur_p2p.rules.cards import ActionCard, ActionKind


def test_a_last_move_too_long_for_the_line_shows_in_its_tiny_form():
    """At 80 columns every row with a broken tool, and every break, repair, map or rockfall,
    left the player list without the seat's last move ("0 ann 1c g0 ✗C" had no room for
    " fix lamp→1").  A move too long for its line now shows what kind of move it was, and
    on whom, without its tool, cell or goal."""
    snap, ctl = _table(("tester", *BOTS), busy=False)
    moves = {s: LastMove(s, "", None, s + 1, "fix lamp→1", "fix→1") for s in range(len(snap.names))}
    lines = text(render_players(replace(snap, last_moves=moves), ctl.focus(), SIDE_MIN)).splitlines()[1:]
    assert all(len(line) == SIDE_MIN for line in lines), lines
    assert not any("fix lamp→1" in line for line in lines), lines  # the short form fits no line here
    assert all(line.rstrip().endswith(" fix→1") for line in lines), lines
    # where the short form fits, it shows
    wide = text(render_players(replace(snap, last_moves=moves), ctl.focus(), SIDE_MIN + 12)).splitlines()[1:]
    assert all(line.rstrip().endswith(" fix lamp→1") for line in wide), wide
    # a line full of marks keeps them, in their short forms, and names give up a column or two
    # (keeping their ends) so that every move shows (since 2026-12-06: a play-test could not
    # tell what the seats with marks had done)
    busy, ctl = _table(("tester", *BOTS))
    lines = text(render_players(replace(busy, last_moves=moves), ctl.focus(), SIDE_MIN)).splitlines()[1:]
    assert all(len(line) == SIDE_MIN for line in lines), lines
    assert all(line.rstrip().endswith(("fix→1", "fix lamp→1")) for line in lines), lines
    assert all(name[-3:] in line and (name in line or "…" in line) for name, line in zip(busy.names, lines, strict=True))
    assert " tr " in lines[(busy.seat + 1) % len(lines)] and "✗P" in lines[(busy.seat + 1) % len(lines)], lines


def test_every_move_has_a_tiny_form_no_longer_than_its_short_one():
    straight, turned = path("EW")
    dead, _ = path("N+S")
    plays = [
        (CardPlayed(1, PlacePath(3, 2, -1, turned), straight), "─"),
        (CardPlayed(1, PlacePath(3, 2, -1, False), dead), "dead"),
        (CardPlayed(1, Rockfall(3, 2, -1), ActionCard(ActionKind.ROCKFALL)), "fall"),
        (CardPlayed(1, BreakTool(Tool.LANTERN, 2, 3), ActionCard(ActionKind.BREAK, (Tool.LANTERN,))), "brk→2"),
        (CardPlayed(1, RepairTool(Tool.CART, 0, 3), ActionCard(ActionKind.REPAIR, (Tool.CART,))), "fix→0"),
        (CardPlayed(1, MapPeek(2, 3), ActionCard(ActionKind.MAP)), "map"),
        (CardPlayed(1, Pass(3), None), "pass"),
    ]
    for event, tiny in plays:
        assert _tiny_move(event) == tiny, (event, _tiny_move(event))
        assert len(_tiny_move(event)) < len(_short_move(event)) or tiny == "pass", event
