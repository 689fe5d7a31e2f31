"""Findings of a play-test of Saboteur 2 at 80x24 (2026-12-05), one test each."""
from __future__ import annotations

from dataclasses import replace

from test_client_playtest3 import BOTS, _table, text

from saboteur_p2p.client.app import SIDE_MIN
from saboteur_p2p.client.render import render_players
from saboteur_p2p.client.tracker import LastMove


def test_a_last_move_one_column_too_long_uses_the_padding_before_it():
    """At 80 columns "4 heuristic-4 6c -" and " map g1" came to 27 columns of 26: the map a bot
    had just played was left out of the player list (so was every dead end's "dead ┼ 3,-1"
    one column short).  The line's own padding ends in a space, so the move can follow it."""
    snap, ctl = _table(("tester", *BOTS), busy=False)
    moves = {s: LastMove(s, "", None, s + 1, "map g1") for s in range(len(snap.names))}
    lines = text(render_players(replace(snap, last_moves=moves), ctl.focus(), SIDE_MIN)).splitlines()[1:]
    assert all(len(line) == SIDE_MIN for line in lines), lines
    others = [line for seat, line in enumerate(lines) if seat != snap.seat]
    # (since 2026-12-06 the hand counts, all alike, make room for it first)
    assert all(f"{snap.names[seat]} -  map g1" in line for seat, line in enumerate(lines) if seat != snap.seat), others
    # a move that fits with its space keeps it
    moves = {s: LastMove(s, "", (2, 0), s + 1, "┘ 2,0") for s in range(len(snap.names))}
    lines = text(render_players(replace(snap, last_moves=moves), ctl.focus(), SIDE_MIN)).splitlines()[1:]
    assert all("-  ┘ 2,0" in line for seat, line in enumerate(lines) if seat != snap.seat), lines


def test_a_card_both_selected_and_marked_shows_its_mark():
    """The ▶ of the selected card took the column where • marks a card (m): a player who
    marked the card under the cursor could not see that it was marked."""
    from test_client_controller import find2, seated

    from saboteur_p2p.client.render import render_hand

    state = find2(lambda s: s.phase.value == "play" and len(s.hands[s.current]) >= 4)
    _agent, _node, ctl = seated(state)
    ctl.pick(1)
    ctl.mark()
    rows = text(render_hand(ctl.snapshot(), ctl.focus(), 100)).splitlines()
    column = rows[0].index("▶")
    assert rows[1][column] == "•", rows[:2]
    ctl.mark()  # unmarked again: no mark under the ▶
    rows = text(render_hand(ctl.snapshot(), ctl.focus(), 100)).splitlines()
    assert rows[1][column] == " " and "•" not in rows[0], rows[:2]


def test_a_goal_known_without_our_map_is_not_called_our_map():
    """The log said "your map: goal 2 at 8,2 is a stone" just before "goal 2 turned up", for a
    goal the player never mapped: a view that knows a goal's face as it is being turned up
    (still face down in the maze) read as a map.  Only our own Maps' goals are "your map"
    (the map itself: test_client_app's test of a map)."""
    from test_client_controller import seated

    from saboteur_p2p.client.model import LogKind
    from saboteur_p2p.rules import Game, GameConfig
    from saboteur_p2p.rules.cards import TREASURE

    state = Game(GameConfig(5), seed=3).new_state()
    agent, _node, _ctl = seated(state)
    face = TREASURE
    plain = agent._view
    agent._view = lambda s: plain(s)._replace(known_goals={2: face})  # type: ignore[method-assign]
    agent.heard(state)
    assert not [line.text for line in agent.log_lines() if line.kind is LogKind.PRIVATE and "map" in line.text]
