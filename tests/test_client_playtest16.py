"""Findings of a play-test at an 80x24 terminal (2026-12-06, second session), one test each."""
from __future__ import annotations

from saboteur_p2p.client.maze import MazeMarks, render_maze, visible_cells
from saboteur_p2p.rules import Board
from saboteur_p2p.rules.cards import face_from_code


def _west_tunnel() -> Board:
    board = Board.new_round()
    straight = face_from_code("path:EW")
    for x in range(-1, -4, -1):
        board.place((x, 0), straight, False)
    return board


def test_the_goals_stay_in_sight_while_the_cursor_works_west_of_the_start():
    """At 80x24 the maze shows ten columns: with the cursor at the tunnel's west end the view
    showed columns -4 to 5 and no goal, so a player placing a card there could not see them."""
    board = _west_tunnel()
    cols, _ = visible_cells(55, 16)
    assert cols == 10  # the maze panel of an 80-column screen
    marks = MazeMarks(cursor=(-4, 0))
    fragments, (ox, _) = render_maze(board, {}, marks, 55, 16, None)
    screen = "".join(text for _, text in fragments)
    lines = screen.splitlines()
    assert all(f"╔═{slot}═╗" in screen for slot in range(3)), screen
    assert ox == -4 and "┌   ┐" in lines[1 + 3 * 2]  # the cursor's cell is shown, first column
    header = lines[0]
    assert "┆ 7" in header and " 3 " in header and " 4 " not in header, header  # columns 4-6 left out, marked
    assert lines[0].endswith("▶") is False  # nothing beyond the goals


def test_the_cursor_taken_under_the_pinned_goals_pans_the_view():
    """The column the goals take over is never where the cursor is: moving right pans."""
    board = _west_tunnel()
    fragments, (ox, _) = render_maze(board, {}, MazeMarks(cursor=(5, 0)), 55, 16, (-4, -2))
    header = "".join(text for _, text in fragments).splitlines()[0]
    assert ox == -2 and " 5 " in header and "┆ 7" in header, header


def test_a_maze_that_fits_shows_no_gap():
    board = Board.new_round()
    fragments, _ = render_maze(board, {}, MazeMarks(cursor=(1, 0)), 55, 16, None)
    assert "┆" not in "".join(text for _, text in fragments).splitlines()[0]


def test_a_seat_whose_program_runs_again_is_told_once_and_a_silence_is_not(tmp_path):  # type: ignore[no-untyped-def]
    """The players list dropped the stand-in's "bt" mark on any "is back": a seat whose bot
    stood in was marked a person again after a blip of its link, while the bot played on.
    The mark now goes when that seat's program runs again (a newer run linked), which the
    session says once."""
    from session_doubles import listening_seat

    from saboteur_p2p.net.standin import RUNS_AGAIN

    _, session, said, _ = listening_seat(tmp_path)
    endpoint = session.endpoints[1]
    news = RUNS_AGAIN.format(name=session.names[1])
    session._relink(1, endpoint, 5, now=100.0)
    session._relink(1, endpoint, 5, now=101.0)  # the same run, after a silence: nothing to say
    assert news not in said
    session._relink(1, endpoint, 6, now=102.0)
    session._relink(1, endpoint, 6, now=103.0)
    assert said.count(news) == 1, said
    for run in range(7, 200):  # a seat counting its runs up by the hundred: told once in a while
        session._relink(1, endpoint, run, now=103.0 + run / 100)
    assert said.count(news) == 1, said
    session._relink(1, endpoint, 200, now=112.5)
    assert said.count(news) == 2, said


def test_the_plain_prompt_shows_where_to_type_and_keeps_under_what_is_said():
    """--plain printed the table at our move and then nothing: a player typed at a bare line,
    unsure the game waited.  On a terminal "> " now ends the table; a line said meanwhile (a
    chat) takes the prompt's line and the prompt comes again under it; a refused move shows
    it again; none is left once the move is made."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.plain import PROMPT, PlainAgent

    state = find(lambda s: s.phase.value == "play")
    out: list[str] = []
    agent = PlainAgent(lambda line: out.append(line + "\n"), None, out.append)
    agent.seat_no, agent.names = state.current, [f"p{i}" for i in range(state.players)]
    node = seated(state, state.current)[1]
    assert agent.poll_move(node) is None
    assert out[-1] == PROMPT and out[0].startswith("your move")
    agent.session_say("p1: hurry up")
    assert out[-3:] == ["\r\x1b[K", "p1: hurry up\n", PROMPT]
    agent._take("legal")  # answered at once (in the session's loop, as here), whoever's move it is
    assert agent.poll_move(node) is None
    assert out[-1] == PROMPT and any(line.startswith("legal (") for line in out[-14:-1]), out[-3:]  # its lines, then the prompt
    agent._take("path 9 at 1,0")
    assert agent.poll_move(node) is None
    assert out[-1] == PROMPT and any("9" in line for line in out[-3:-1]), out[-4:]  # refused, asked again
    out.clear()
    agent._take("pass 1")
    assert agent.poll_move(node) is not None
    agent.session_say("p2: thanks")
    assert out == ["p2: thanks\n"]  # no prompt once the move is made


def test_the_lobby_says_where_the_bots_sit_and_leaves_a_person_out():
    """At a table of the host, two bot peers and Bob, the lobby said "seated in the order of
    their names: heuristic-1 at seat 1, heuristic-2 at seat 2, Bob at seat 3": Bob, told
    his seat as he sat down, was not seated by name (nor is "Bob" after "heuristic")."""
    from saboteur_p2p.net.lobby import bots_seated
    from saboteur_p2p.net.table import SeatInfo

    seats = [SeatInfo(name, bytes(32), bytes(32), "") for name in ("Ann", "heuristic-1", "heuristic-2", "Bob")]
    line = bots_seated(seats, ["heuristic-1", "heuristic-2"])
    assert line == "this machine's bot peers sit in the order they were started: heuristic-1 at seat 1, heuristic-2 at seat 2"
    assert bots_seated(seats, []) == ""  # no bot peers: nothing to say


def test_after_the_turn_timer_moves_for_a_plain_player_their_next_move_shows_the_table():
    """Once the turn timer's bot had moved for a --plain player, the player's next move
    printed nothing (no table, no prompt), and a move typed late for the timed-out turn
    waited to be read as the next one (found by review)."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.plain import PROMPT, PlainAgent

    state = find(lambda s: s.phase.value == "play")
    seat = state.current
    out: list[str] = []
    agent = PlainAgent(lambda line: out.append(line + "\n"), None, out.append)
    agent.seat_no, agent.names = seat, [f"p{i}" for i in range(state.players)]
    assert agent.poll_move(seated(state, seat)[1]) is None and out[-1] == PROMPT
    after = state.clone()
    after.push(after.legal_actions()[0])  # the stand-in's move, committed: another seat's turn
    agent._take("pass 1")  # typed a moment too late
    agent.heard(after)
    assert out[-1] != PROMPT and agent.lines.empty(), out[-3:]  # the move told, no prompt after it
    agent._take("pass 2")  # finished a moment later still: not kept for the next move
    assert agent.lines.empty() and out[-1] == "your turn had run out: 'pass 2' was not played\n", out[-2:]
    while not after.is_terminal() and after.current_player() != seat:
        after.push(after.legal_actions()[0])
    out.clear()
    assert agent.poll_move(seated(after, seat)[1]) is None  # our move again: shown, nothing typed for it yet
    assert out and out[0].startswith("your move") and out[-1] == PROMPT, out
    agent._take("pass 1")  # typed for this move: played
    assert agent.poll_move(seated(after, seat)[1]) is not None and agent.lines.empty()


def test_the_column_before_the_goals_stays_in_sight_with_them():
    """A play-test (2026-12-06, third session) took the cursor west: the view kept the goals'
    column but folded away the one before it, where the tunnel reaches the goals, and the
    cards there vanished while the players list named them."""
    board = _west_tunnel()
    board.place((7, 1), face_from_code("path:NS"), False)  # a card beside the goals (not joined: drawn all the same)
    fragments, _ = render_maze(board, {}, MazeMarks(cursor=(-4, 0)), 55, 16, None)
    lines = "".join(text for _, text in fragments).splitlines()
    header = lines[0]
    column = header.index("┆ 7") + 1  # where column 7's cells begin on every row
    assert header[column:].split() == ["7", "8"], header
    row = next(i for i, line in enumerate(lines) if line[:3].strip() == "1")  # the middle line of row y=1
    assert "│" in lines[row][column - 1:column + 5], lines[row]


def test_an_earlier_rounds_chat_is_not_pinned_over_a_later_round():
    """"<alice> goal 0 is gold", said in round 1, stayed pinned on top of the log through
    rounds 2 and 3, where goal 0 was another card (found by a play-test)."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import render_log

    chat = LogLine(LogKind.CHAT, "<alice> goal 0 is gold")
    moves = [LogLine(LogKind.EVENT, f"p1: move {n}", move=True) for n in range(30)]
    now = "".join(t for _, t in render_log([chat, *moves], 0, 40, 10))
    assert now.startswith("↑ <alice> goal 0 is gold")  # pinned while its round lasts
    later = [chat, *moves[:5], LogLine(LogKind.EVENT, "-- round 2: bob starts"), *moves[5:]]
    assert "alice" not in "".join(t for _, t in render_log(later, 0, 40, 10))


def test_turning_with_no_card_picked_says_to_pick_one():
    """r with nothing picked said "only path cards and stones turn", read as a refusal of a card."""
    from test_client_controller import find, seated

    state = find(lambda s: s.phase.value == "play")
    _agent, _node, ctl = seated(state)
    ctl.ui.selected = None
    ctl.turn()
    assert ctl.ui.message.startswith("pick a path card (1-9")


def test_the_legend_says_what_bt_and_aw_stand_for_in_both_editions():
    """At 80 columns a seat showed "bt aw", and the legend explained only "away / back"."""
    from saboteur_p2p.client.guide import help_text

    for edition in ("base", "saboteur2"):
        text = help_text(edition)
        assert "away (aw) / back" in text and "bot (bt): a bot plays the seat its person left" in text
        # at 60x20 the maze left its middle columns out, and nothing said how to see them (a play-test)
        assert "the arrows take the cursor, and the view, there" in text
        assert all(len(line) <= 78 for line in text.splitlines() if "the arrows take" in line)


def test_the_maze_cursor_is_hidden_once_a_move_is_sent():
    """The cursor's corners stayed on the cell through the others' turns, and hid the × a
    rockfall there left (found by a play-test): after a move, no cursor until an arrow or a card."""
    from test_client_controller import find, seated

    state = find(lambda s: s.phase.value == "play")
    _agent, _node, ctl = seated(state)
    ctl.arrow(1, 0)  # an arrow: the cursor shows
    assert ctl.focus().marks.cursor is not None
    hand = sorted(state.hands[state.current])
    assert ctl.attempt(f"pass {hand[0]}")
    assert ctl.focus().marks.cursor is None


def test_the_players_columns_line_up_at_the_games_end_whatever_the_width():
    """At the game's end some lines left out the broken tools' column to fit a last move and
    others kept it: "heuristic-3 g1 dig pass" over "heuristic-4 g1    dig ┤" (found by a
    play-test).  The sparest marks go from every line or from none."""
    from dataclasses import replace

    from test_client_playtest3 import BOTS, _table
    from test_client_render import text

    from saboteur_p2p.client.app import SIDE_MIN
    from saboteur_p2p.client.render import render_players
    from saboteur_p2p.client.tracker import LastMove
    from saboteur_p2p.rules import Role

    snap, ctl = _table(("tester", *BOTS))
    assert snap.view is not None
    players = snap.view.players
    over = snap.view._replace(phase="game-over", revealed_roles=(Role.BLUE_DIGGER,) * players)
    moves = {s: LastMove(s, "", (2, 0), s + 1, "dead ┤ 2,1" if s == 1 else "pass", "dead" if s == 1 else "pass")
             for s in range(players)}
    for width in range(SIDE_MIN, SIDE_MIN + 12):
        lines = text(render_players(replace(snap, view=over, last_moves=moves), ctl.focus(), width)).splitlines()[1:]
        columns = {line.index(" blu") for line in lines}
        assert len(columns) == 1, (width, lines)
