"""Findings of a play-test of Saboteur 2 at the terminal table (2026-12-04), one test each."""
from __future__ import annotations

import time

from saboteur_p2p.client.tracker import _short_move
from saboteur_p2p.match import card_words
from saboteur_p2p.rules import CardPlayed, PiecesWon, PlacePath, Stolen
from saboteur_p2p.rules.cards import face_from_code


def test_a_tunnel_with_a_dead_end_apart_is_not_named_as_a_branch():
    """The log said "path ┴ at 5,2" for the EW+N card, which the maze drew as ──── and a
    separate ╵: a player read a branch that connects."""
    tee_apart = face_from_code("path:EW+N")
    assert card_words(tee_apart) == "path ─+╵" and card_words(tee_apart, turned=True) == "path ─+╷"
    assert card_words(face_from_code("path:NEW")) == "path ┴"  # the branch that does connect
    assert card_words(face_from_code("path:NS+E+W")) == "path │+╶+╴"
    both = face_from_code("path:EW+N+S")
    assert card_words(both) == card_words(both, turned=True) == "path ─+╵+╷"  # one name for one card
    assert _short_move(CardPlayed(1, PlacePath(9, 5, 2, False), tee_apart)) == "─+╵ 5,2"


def test_enter_under_a_rounds_end_steals_at_once():
    """The round's end screen showed "Enter steal" under it, but the first Enter only closed
    the screen: the player had to press it again.  Keys of a choice the player has while the
    gold is handed out now act at once."""
    from test_client_app import DOWN, ENTER, Harness
    from test_client_games import saboteur2_keys

    harness = Harness(seed=97, edition="saboteur2")
    seen: list[str] = []

    def script(h: Harness) -> None:
        turn = 0
        while h.table.result is None and h.table.state.phase.value != "game-over":
            snap = h.agent.snapshot()
            d = snap.decision
            if d is None or h.app.ui.sent_for == d.id:
                time.sleep(0.002)
                continue
            if snap.view.phase == "steal":  # type: ignore[union-attr]
                h.wait_for(lambda: "Enter steal" in h.screen() and h.round_end_open(), "the steal under the round's end")
                h.keys(DOWN + ENTER)  # another choice, and steal: two keys, not a close and two
                h.sent(snap)
                seen.append(h.app.ui.message)
                assert h.round_end_open()  # the round's end stays, to be read (it closed as the choice was made)
                continue
            if h.round_end_open():
                h.close_round_end()
                continue
            turn += 1
            h.keys(saboteur2_keys(snap, turn))
            h.sent(snap)
        h.finish()

    harness.play(script, timeout=90)
    stolen = [e for e in harness.table.state.events if isinstance(e, Stolen) and e.thief == 0]
    assert seen and stolen


def test_a_seat_robbed_of_a_piece_shows_what_it_won_and_the_theft_apart():
    """Our own line said `you green 3 3` where the log said "you won 4 gold pieces;
    heuristic-2 stole a gold piece from you", and a round we won nothing in said "won -1
    pieces": a theft is marked apart, in the ranking's rounds too."""
    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import render_ranking, render_round_end

    for seed in range(40):
        state, agent, _ = followed_game(seed, players=5, edition="saboteur2")
        snap = agent.snapshot()
        robbed = [r for r in snap.rounds if r.robbed[snap.seat] == 1 and not r.stole[snap.seat]]
        if not robbed:
            continue
        summary = robbed[0]
        won = int(summary.won[snap.seat].split()[0])
        assert won == sum(e.pieces for e in _round_events(state, summary.round) if isinstance(e, PiecesWon) and e.player == 0)
        roomy = "".join(t for _, t in render_round_end(summary, snap, 60, 30))
        pieces = f"{won} piece" + ("" if won == 1 else "s")
        assert f"won {pieces} · robbed of a piece · total {summary.totals[0]}" in roomy
        narrow = "".join(t for _, t in render_round_end(summary, snap, 40, 30))
        assert "robbed of a piece · to" not in narrow  # cut off: a line a seat instead
        compact = "".join(t for _, t in render_round_end(summary, snap, 30, 20)).splitlines()
        row = next(line for line in compact if line.startswith(" you "))
        assert row.split()[-2] == f"{won}-st" and any("-st robbed" in line for line in compact), compact
        ranking = render_ranking(snap)
        mine = next(line for line in ranking.splitlines() if " you " in line)
        assert f"r{summary.round} {won:+d} robbed 1" in mine if won else f"r{summary.round} robbed 1" in mine
        return
    raise AssertionError("no game where we were robbed")


def _round_events(state, number):
    from saboteur_p2p.rules import RoundEnded, RoundStarted

    events, current = [], 0
    for event in state.events:
        if isinstance(event, RoundStarted):
            current = event.round
        if current == number and not isinstance(event, RoundEnded):
            events.append(event)
    return events


def test_a_maze_grown_away_from_the_goals_still_shows_them_when_nothing_is_followed():
    """At 80x24 the maze showed columns -2 to 7 with ▶, the goals off screen, where a cursor
    had once taken it: a player pressed Right nine times to see them."""
    from test_client_controller import find
    from test_client_render import screen_of

    state = find(lambda s: s.phase.value == "play" and min(x for x, _ in s.board.tiles) <= -3)
    _, app = screen_of(state, 80, 24)
    app.ui.origin = (min(x for x, _ in state.board.tiles), 0)  # where a cursor took it once
    screen = app.render_text(80, 24)
    assert all(f"╔═{slot}═╗" in screen for slot in range(3)), screen
    assert "◀" in screen.splitlines()[1]  # and the west is a key away


def test_the_log_follows_the_newest_lines_again_when_our_move_comes():
    """Scrolled back with PgUp to read `legal`, the log stayed there into the next round."""
    from test_client_controller import find, seated

    state = find(lambda s: s.phase.value == "play")
    mover = state.current
    agent, node, ctl = seated(state)
    ctl.focus()
    ctl.ui.log_scroll, ctl.ui.log_anchor = 6, 3  # PgUp during our move: it stays while we read
    ctl.focus()
    assert (ctl.ui.log_scroll, ctl.ui.log_anchor) == (6, 3)
    while True:  # the others move, then it is our move again
        state.push(state.legal_actions()[-1])
        agent.heard(state)
        if state.current == mover and state.phase.value == "play":
            break
    assert agent.poll_move(node) is None  # our next decision
    ctl.focus()
    assert (ctl.ui.log_scroll, ctl.ui.log_anchor) == (0, None)


def test_what_a_card_does_is_in_the_log_whole_where_the_message_line_cuts_it():
    """`what 6` ended "(■ in the…" on the message line, with no way to read the rest."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.cardinfo import card_does

    state = find(lambda s: s.phase.value == "play")
    agent, _node, ctl = seated(state)
    view = agent.snapshot().view
    slot = max(range(len(view.hand)), key=lambda i: len(card_does(view.hand[i][1], "base")))
    assert ctl.command(f"what {slot + 1}")
    whole = f"{slot + 1}: {card_does(view.hand[slot][1], 'base')}"
    assert ctl.ui.message == whole
    assert any(line.text == f"what {whole}" for line in agent.log_lines())


def test_a_mapped_goal_turned_up_since_does_not_leave_the_maps_line_reading_no_map():
    """After goal 2, mapped as a stone, was turned up, `maps: g2 stone → g0 TREASURE` became
    `maps: - → g0 TREASURE`, read as "no map"."""
    from dataclasses import replace

    from test_client_controller import find
    from test_client_render import screen_of, text

    from saboteur_p2p.client.render import render_info
    from saboteur_p2p.rules import GOAL_CELLS
    from saboteur_p2p.rules.cards import STONE_NW

    state = find(lambda s: s.phase.value == "play")
    _, app = screen_of(state, 80, 24)
    snap = app.agent.snapshot()
    board = snap.view.board.clone()
    board.reveal_goal(GOAL_CELLS[2], STONE_NW, False)  # goal 2 turned up: a stone
    view = snap.view._replace(board=board, known_goals={1: STONE_NW, 2: STONE_NW})
    assert "goals: g1 stone → g0 TREASURE" in text(render_info(replace(snap, view=view), 40))
    view = snap.view._replace(board=board, known_goals={2: STONE_NW})  # only the goal turned up
    assert "goals: -" in text(render_info(replace(snap, view=view), 40))
    board.reveal_goal(GOAL_CELLS[1], STONE_NW, False)
    view = snap.view._replace(board=board, known_goals={1: STONE_NW, 2: STONE_NW})
    info = text(render_info(replace(snap, view=view), 40))
    assert "goals: g0 TREASURE" in info and "-" not in info.split("goals:")[1].split("\n")[0]


def test_a_maze_grown_north_still_shows_the_goals_row_when_nothing_is_followed():
    """With no cursor the view went to the maze's top rows (origin y = -6 for a tunnel dug
    north), and no goal was on screen (found by review)."""
    from saboteur_p2p.client.maze import MazeMarks, render_maze
    from saboteur_p2p.rules import Board

    board = Board.new_round()
    straight = face_from_code("path:NS")
    for y in range(-1, -7, -1):
        board.place((0, y), straight, False)
    fragments, (_, oy) = render_maze(board, {}, MazeMarks(), 60, 14, None)
    screen = "".join(t for _, t in fragments)
    assert oy <= 0 and "╔═1═╗" in screen, screen
    assert "▲" in screen  # and the north is a key away
