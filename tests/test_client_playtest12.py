"""Findings of a play-test of ``saboteur-p2p play --edition saboteur2`` (full-screen, against
bot peers, 2026-12-05, second session), one test each, each failing before its fix."""
from __future__ import annotations

from test_client_app import ENTER, Harness, can_place, seed_where


def test_the_quit_question_keeps_a_column_of_space_inside_its_box():
    """The question's box hugged its text: "│Leave the table?" on one line and "leave│" on
    another, while the other lines kept a space.  Every line now has one on each side."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":quit" + ENTER)
        h.wait_for(lambda: "Leave the table?" in h.screen(), "the question drawn")
        lines = h.screen().splitlines()
        for text in ("Leave the table?", "y or Ctrl-C  yes, tell the table and leave", "any other key  stay"):
            line = next(line for line in lines if text in line)
            at = line.index(text)
            assert line[at - 2:at] == "│ ", line
        widest = next(line for line in lines if "tell the table and leave" in line)
        end = widest.index("leave") + len("leave")
        assert widest[end:end + 2] == " │", widest
        h.keys("n")

    harness.play(script)


def test_a_summary_line_of_the_log_wraps_under_itself_not_left_of_it():
    """The round's summary indents its lines in the log; a wrapped one went on two columns
    left of where it began ("   heuristic-4 steals a gold piece from" / "  heuristic-1")."""
    from saboteur_p2p.client.render import log_rows

    rows = log_rows("   heuristic-4 steals a gold piece from heuristic-1", 40)
    assert rows == ["   heuristic-4 steals a gold piece from", "     heuristic-1"]
    assert all(row.startswith("  ") and not row.startswith("   ") for row in log_rows("a b c d e f g h i j k", 6)[1:])
    path = "   saved in /tmp/a-long-folder/with/game-0123456789abcdef-seat0.log"
    rows = log_rows(path, 24)
    assert all(len(row) <= 24 for row in rows) and all(row.startswith("     ") for row in rows[1:])
    assert "".join(row.strip() for row in rows) == path.strip().replace("in /", "in/")  # nothing lost
    assert log_rows("abcdefghij", 2)  # a panel too narrow for the indent still ends


def test_the_plain_prompt_shows_the_moves_help_whole_once_and_then_points_to_it():
    """At --plain every move's prompt repeated three lines of how moves are typed (five in
    Saboteur 2) after the table's news; it is shown whole at the first move, and after that
    one short line says where it is."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.plain import HELP, HELP_AGAIN, PlainAgent

    state = find(lambda s: s.phase.value == "play")
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = state.current, [f"p{i}" for i in range(state.players)]
    node = seated(state, state.current)[1]
    assert agent.poll_move(node) is None
    assert said[0].startswith("your move") and HELP in said and HELP_AGAIN not in said
    agent.prompted = False  # the next move's prompt
    said.clear()
    assert agent.poll_move(node) is None
    assert said[0].startswith("your move") and said[-1] == HELP_AGAIN and HELP not in said
    said.clear()
    agent.lines.put("help")
    assert agent.poll_move(node) is None
    assert said == [HELP]  # still there whole when asked for


def test_picking_a_card_says_at_once_what_the_keys_do_with_it():
    """A card picked with its number showed "6: map" until the next key, and only then how
    to play it; the hint now shows at once (the card is marked ▶ and its move shown beside)."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        h.wait_for(lambda: h.app.controller.items(h.app.snap), "the hand on the screen")  # (late on a loaded machine)
        h.keys("1")
        first = h.app.controller.items(h.app.snap)[0].handle
        h.wait_for(lambda: h.app.ui.selected == first, "card 1 picked")
        h.wait_for(lambda: "Enter" in h.screen().splitlines()[-2], "the keys of the picked card")
        assert h.app.ui.message == ""
        assert "Esc cancel" in h.screen().splitlines()[-2] or "m mark" in h.screen().splitlines()[-2]
        h.keys("\x1b")

    harness.play(script)


def test_every_command_that_takes_variants_says_what_each_one_changes():
    """`play --help` listed `--variant VARIANT` with no word on what a variant is or which
    there are (only `tournament` named them)."""
    import argparse
    import re

    from saboteur_p2p.cli import build_parser
    from saboteur_p2p.rules import VARIANTS

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    taking = [name for name, sub in commands.items() if any("--variant" in a.option_strings for a in sub._actions)]
    assert {"play", "host", "game", "tournament"} <= set(taking)
    for name in taking:
        text = re.sub(r"-\s+", "-", " ".join(commands[name].format_help().split()))  # argparse wraps at hyphens
        for variant, what in VARIANTS.items():
            assert variant in text and what.split()[0] in text, (name, variant)


def test_every_option_and_argument_of_every_command_has_a_help_text():
    """`game --seed`, `host --name` and the log file of `replay` and `verify` had none."""
    import argparse

    from saboteur_p2p.cli import build_parser

    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    bare = [(name, action.dest) for name, sub in commands.items() for action in sub._actions
            if not action.help and not isinstance(action, argparse._HelpAction)]
    assert bare == []


def test_joining_a_machine_name_that_does_not_resolve_says_so_at_once(monkeypatch, tmp_path):
    """`join nosuchhost:5555` (and `watch`) waited 10 s and said no table answers there: ZeroMQ keeps
    trying a name it cannot resolve.  A name the resolver knows nothing of is said at once;
    a number, or a resolver that cannot answer now, is left to the connection as before."""
    import socket

    import pytest

    from saboteur_p2p.crypto.identity import Identity
    from saboteur_p2p.net import transport as transport_module
    from saboteur_p2p.net.invite import LobbyError
    from saboteur_p2p.net.lobby import join_lobby
    from saboteur_p2p.net.transport import Transport, unknown_machine
    from saboteur_p2p.net.watch import WatchFailed, watch_table

    def resolver(failure: int):
        def getaddrinfo(host, *args, **kwargs):
            raise socket.gaierror(failure, "Name or service not known")
        return getaddrinfo

    monkeypatch.setattr(transport_module.socket, "getaddrinfo", resolver(socket.EAI_NONAME))
    assert unknown_machine("nosuchhost") == "Name or service not known"
    transport = Transport("tcp://127.0.0.1:0")
    try:
        with pytest.raises(LobbyError, match="no machine called 'nosuchhost'"):
            join_lobby(Identity.generate(), "bob", transport, "nosuchhost:5555", None, lambda text: None, connect_timeout=10)
    finally:
        transport.close()
    with pytest.raises(WatchFailed, match="no machine called 'nosuchhost'"):  # a spectator too
        watch_table("nosuchhost:5555", lambda node: None, lambda text: None)
    monkeypatch.setattr(transport_module.socket, "getaddrinfo", resolver(socket.EAI_AGAIN))
    assert unknown_machine("nosuchhost") is None  # the resolver may know later: left to the connection
    monkeypatch.undo()
    assert unknown_machine("127.0.0.1") is None and unknown_machine("localhost") is None


def test_the_plain_prompt_wraps_long_lines_between_words_in_a_terminal():
    """At --plain in a terminal, `legal` and the help ran past the edge and the terminal broke
    them mid-word ("break p" / "ickaxe"); they are wrapped between words to its width, and
    printed whole when the prompt prints to a pipe."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.plain import PlainAgent

    state = find(lambda s: s.phase.value == "play")
    for width in (None, 40):  # whole first, to compare the wrapped rows with
        said: list[str] = []
        agent = PlainAgent(said.append, width)
        agent.seat_no, agent.names = state.current, [f"p{i}" for i in range(state.players)]
        node = seated(state, state.current)[1]
        assert agent.poll_move(node) is None
        said.clear()
        agent.lines.put("legal")
        assert agent.poll_move(node) is None
        if width is None:  # a line for each card and kind, some longer than 40 characters
            assert said[0].startswith("legal (") and len(said) == 1 + int(said[0].split("(")[1].split()[0])
            assert max(len(line) for line in said) > 40
            whole = " ".join(row.strip() for row in said)
        else:
            assert len(said) > 1 and all(len(row) < width for row in said)
            assert " ".join(row.strip() for row in said) == whole  # nothing lost, no word broken


def test_the_command_line_on_a_narrow_screen_shows_the_start_of_its_prompt():
    """At 60 columns the board's prompt (": (keys act at once · press : or start a word to
    type a command)") wrapped in its one row and showed its tail: "and)"."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        for width in (60, 40, 80):
            last = h.screen(width, 18).splitlines()[-1]
            assert last.startswith(": (keys act at once"), (width, last)
            assert len(last) < width

    harness.play(script)


def test_a_narrow_status_line_keeps_whose_move_it_is_whole():
    """At 60 columns the top line read "YOUR MOVE: play a c ? help · q quit": the keys the
    message line names too took the room of the move's words."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        top = h.screen(60, 18).splitlines()[0]
        assert "YOUR MOVE: play a card" in top and len(top) <= 60
        assert "? help · q quit" in h.screen(100, 30).splitlines()[0]  # where there is room

    harness.play(script)


def test_a_log_line_cut_at_the_top_of_the_panel_shows_its_head_not_its_tail():
    """At 12 players on 80x24 the log had one row, which showed the tail of the newest line
    ("  3,0"): a line whose head is above the panel is shown by its head, ending in "…"."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import render_log

    lines = [LogLine(LogKind.EVENT, "an older line"), LogLine(LogKind.EVENT, "heuristic-7: bridge ─│─ at 3,0", move=True)]
    one_row = [text.rstrip() for _, text in render_log(lines, 0, 20, 1)]
    assert one_row == ["▸heuristic-7: bridg…"]  # as wide as the panel, "…" included
    two_rows = [text.rstrip() for _, text in render_log(lines, 0, 20, 2)]
    assert two_rows == ["▸heuristic-7: bridge", "  ─│─ at 3,0"]  # it fits: as it is
    three = [text.rstrip() for _, text in render_log(lines, 0, 20, 3)]
    assert three == ["an older line", "▸heuristic-7: bridge", "  ─│─ at 3,0"]
    scrolled = [text.rstrip() for _, text in render_log(lines, 1, 20, 2)]
    # scrolled back: rows in their order, as before, and the mark of the rows below on the last
    assert scrolled == ["▸heuristic-7: bridge", "  ↓ 1 more (PgDn)"]


def test_a_terminal_too_small_for_the_table_says_what_to_do():
    """At 40x12 the client showed only prompt_toolkit's "Window too small..."."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        small = " ".join(h.screen(40, 12).split())
        assert "needs a larger terminal" in small and "--plain" in small and "Window too small" not in small
        assert "needs a larger terminal" not in h.screen(80, 24)

    harness.play(script)


def test_the_plain_prompt_answers_questions_on_others_moves_and_tells_what_a_map_showed():
    """At --plain, `board`, `what 3` and `legal` typed while another seat was to move were
    answered only at our next move, and a Map's goal was never said in words, only drawn in
    `board` (found by a play-test)."""
    from test_client_controller import find

    from saboteur_p2p.client.plain import PlainAgent
    from saboteur_p2p.rules import GOAL_CELLS

    def mapped(s) -> bool:  # a seat that is not to move knows a goal still face down
        return any(s.view_for(p).known_goals and p != s.current and any(
            s.board.tiles[GOAL_CELLS[g]].card is None for g in s.view_for(p).known_goals) for p in range(s.players))
    state = find(mapped)
    seat = next(p for p in range(state.players) if p != state.current and state.view_for(p).known_goals)
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = seat, [f"p{i}" for i in range(state.players)]
    agent.heard(state)
    slot = next(g for g in sorted(state.view_for(seat).known_goals) if state.board.tiles[GOAL_CELLS[g]].card is None)
    news = [line for line in said if line.startswith("your map: ")]
    assert f"your map: goal {slot} at {GOAL_CELLS[slot][0]},{GOAL_CELLS[slot][1]} is " in news[0], said
    said.clear()
    agent.heard(state)
    assert not [line for line in said if line.startswith("your map: ")]  # said once
    for line in ("board", "what 1", "legal"):
        agent._take(line)
    assert agent.poll_chat() is None and agent.lines.empty()  # questions, not moves
    assert any("┌" in row or "─" in row for row in said), said  # the maze
    assert any(row.startswith("1: ") for row in said), said
    assert said[-1] == f"it is p{state.current}'s move, not yours: legal lists your moves on your move"


def test_the_plain_prompt_asked_for_legal_moves_after_the_game_says_it_is_over():
    """`legal` typed after the last move named the seat that moved last as the one to move
    (found by a play-test): once the game is over nobody has a move."""
    import random

    from saboteur_p2p.client.plain import PlainAgent
    from saboteur_p2p.rules import Game, GameConfig, TrustedDealer

    state = Game(GameConfig(3, rounds=1), TrustedDealer(4)).new_state()
    rng = random.Random(4)
    while not state.is_terminal():
        state.push(rng.choice(state.legal_actions()))
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = 0, ["p0", "p1", "p2"]
    agent._answer("legal", state)
    assert said[-1] == "the game is over: nobody has a move", said


def test_what_we_played_leaves_the_message_line_once_another_seat_moves():
    """"played: break pickaxe @bob" stayed on the message line through many moves, the repair
    of that pickaxe included, and into the next round (found by a play-test).  It now goes
    once another seat moves, or the round ends; our own move coming back keeps it."""
    from saboteur_p2p.client.model import Snapshot, UIState
    from saboteur_p2p.client.tracker import LastMove

    ours, theirs = LastMove(0, "pass", None, 7), LastMove(1, "path", (1, 0), 6)
    ui = UIState()
    ui.say("played: pass 1", "ok", until_moves={1: theirs})
    ui.fade(Snapshot(seat=0, last_moves={1: theirs, 0: ours}))  # our move is in: still what we did
    assert ui.message == "played: pass 1"
    ui.fade(Snapshot(seat=0, last_moves={1: theirs, 0: ours, 2: LastMove(2, "map", None, 8)}))
    assert ui.message == ""
    ui.say("played: pass 1", "ok", until_moves={1: theirs, 0: ours})
    ui.fade(Snapshot(seat=0, last_moves={}))  # a new round
    assert ui.message == ""
    ui.say("not allowed: 0,0 is the start cell", "error")  # other messages stay until a key
    ui.fade(Snapshot(seat=0, last_moves={2: LastMove(2, "map", None, 9)}))
    assert ui.message == "not allowed: 0,0 is the start cell"


def test_at_80_columns_every_seat_shows_its_last_move_and_its_broken_tools():
    """At 80 columns (a 26-column list) "heuristic-3 6c g0 ✗L" left no room for a pass, a
    break or a repair, and cut a path's cell: a player could not tell what anyone had just
    done (found by a play-test).  The hand counts, all alike, go first; then the names give up
    a column or two, their ends kept; every move shows, in its tiny form at least."""
    from dataclasses import replace

    from test_client_controller import find, seated
    from test_client_playtest3 import text

    from saboteur_p2p.client.app import SIDE_MIN
    from saboteur_p2p.client.render import render_players
    from saboteur_p2p.client.tracker import LastMove
    from saboteur_p2p.rules import Tool

    state = find(lambda s: s.phase.value == "play" and s.round == 1 and s.players == 5)
    agent, _node, ctl = seated(state)
    snap = agent.snapshot()
    seat = snap.seat
    names = [f"heuristic-{n}" for n in range(1, 5)]
    names.insert(seat, "you")
    broken = {(seat + 3) % 5: {Tool.LANTERN}, (seat + 4) % 5: {Tool.CART, Tool.PICKAXE}}
    view = snap.view._replace(broken=tuple(frozenset(broken.get(s, ())) for s in range(5)))
    forms = [("brk lamp→3", "brk→3"), ("fix pick→0", "fix→0"), ("pass", "pass"), ("┌ 6,0", "┌"), ("┬ 0,-1", "┬")]
    moves = {(seat + i) % 5: LastMove((seat + i) % 5, "", None, i + 1, *forms[i]) for i in range(5)}
    lines = text(render_players(replace(snap, view=view, names=tuple(names), last_moves=moves), ctl.focus(),
                                SIDE_MIN)).splitlines()[1:]
    assert all(len(line) == SIDE_MIN for line in lines), lines
    for i, (short, tiny) in enumerate(forms):
        line = lines[(seat + i) % 5]
        assert short in line or line.rstrip().endswith(f" {tiny}"), (short, lines)
        assert "…" not in line or line.index("…") >= 7, lines  # a name keeps most of itself...
        assert names[(seat + i) % 5][-3:] in line, lines  # ... and its end
    assert "✗L" in lines[(seat + 3) % 5] and "✗CP" in lines[(seat + 4) % 5], lines
    # hand counts that differ stay; names give up what the moves need (a second play-test
    # found every move but one left out once the pile was empty and hands held 6 and 5)
    uneven = view._replace(hand_sizes=tuple(6 if s == seat else 5 for s in range(5)))
    lines = text(render_players(replace(snap, view=uneven, names=tuple(names), last_moves=moves), ctl.focus(),
                                SIDE_MIN)).splitlines()[1:]
    assert all(" 5c " in line or " 6c " in line for line in lines), lines
    shown = sum(short in line or line.rstrip().endswith(f" {tiny}") for (short, tiny), line in
                zip(forms, [lines[(seat + i) % 5] for i in range(5)], strict=True))
    assert shown == 5, lines


def test_the_final_ranking_lines_up_its_rounds_and_says_nothing_won_alike_for_everyone():
    """"4 nuggets   (r1 ..." but "1 nugget   (r1 ...": the rounds began a column earlier after
    a singular; and our round with nothing won read "+0" where another seat's read "-" (found
    by a play-test)."""
    from dataclasses import replace

    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import render_ranking

    for seed in range(20):
        _state, agent, _ = followed_game(seed, players=4)
        snap = agent.snapshot()
        assert snap.view is not None and snap.view.scores is not None
        if 1 in snap.view.scores or any(r.won[snap.seat] == "0 nuggets" for r in snap.rounds):
            break
    scores = (4, 1, 3, 0)  # a singular among plurals, whatever the game gave
    lines = render_ranking(replace(snap, view=snap.view._replace(scores=scores))).splitlines()
    rows = [line for line in lines if "(r1 " in line]
    assert len(rows) == 4 and len({line.index("(") for line in rows}) == 1, rows
    assert not any(" +0" in line for line in rows), rows
    mine = next(line for line in rows if " you " in line)
    nothing = [r.round for r in snap.rounds if r.won[snap.seat] == "0 nuggets"]
    assert all(f"r{n} -" in mine for n in nothing), (nothing, mine)


def test_a_wide_round_end_table_keeps_its_columns_near_the_names_and_apart():
    """At 120 columns the round-end table's "who" took 40 columns for 11-letter names, "green"
    ran into "gold-st", and another seat's secret gold read "gold" won but "$" in total (found
    by a play-test)."""
    import dataclasses

    from test_client_render import text

    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board, Role

    roles = (Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.GREEN_DIGGER, Role.SABOTEUR)
    won, totals = ("2 pieces", "gold", "gold", "-"), ("2 pieces", "has gold", "has gold", "-")
    summary = RoundSummary(1, 3, "the green team won", roles, Board.new_round(), {}, won, totals, stole=(0, -1, 1, 0))
    snap = dataclasses.replace(Snapshot(), seat=0, names=("you", "heuristic-1", "heuristic-2", "heuristic-3"))
    lines = text(render_round_end(summary, snap, 60, 9)).splitlines()
    header = next(line for line in lines if line.startswith(" who"))
    rows = [line for line in lines if line.startswith(" heuristic-")]
    assert header.index("role") <= len(" heuristic-1 ") + 1, header  # not 40 columns on
    assert all("green  gold" in line for line in rows[:2]), rows  # two spaces between them
    assert all(line.rstrip().endswith(" gold") for line in rows[:2]), rows  # "gold" in both columns


def test_a_seat_a_bot_plays_for_a_person_who_left_is_marked_in_the_players_list():
    """"alice left the table: a bot on their machine plays their seat" was said once in the
    log; once it scrolled away nobody could tell that a bot played alice's seat (found by a
    play-test).  The players list now marks the seat "bot"."""
    from test_client_controller import find, seated
    from test_client_render import text

    from saboteur_p2p.client.render import render_players
    from saboteur_p2p.net.standin import WHY

    state = find(lambda s: s.phase.value == "play")
    agent, _node, ctl = seated(state)
    other = (agent.seat + 1) % state.players
    agent.say(WHY["left"].format(name=agent.names[other]))
    snap = agent.snapshot()
    assert snap.stand_ins == {other}
    lines = text(render_players(snap, ctl.focus(), 40)).splitlines()[1:]
    assert [" bot" in line for line in lines] == [seat == other for seat in range(state.players)], lines
    assert any(line.text == WHY["left"].format(name=agent.names[other]) for line in agent.log_lines())  # said too


def test_the_plain_prompt_says_the_scores_once_at_the_end():
    """The narration's "== game over. nuggets: ..." and then the session's "game over.
    nuggets: ..." said the scores twice at --plain (found by a play-test)."""
    import random

    from saboteur_p2p.client.plain import PlainAgent
    from saboteur_p2p.rules import Game, GameConfig, TrustedDealer

    state = Game(GameConfig(3, rounds=1), TrustedDealer(4)).new_state()
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = 0, ["p0", "p1", "p2"]
    agent.session_say("game over. nuggets: p0 0")  # said before the narration came: kept
    rng = random.Random(4)
    while not state.is_terminal():
        state.push(rng.choice(state.legal_actions()))
    agent.heard(state)
    agent.session_say("game over. nuggets: p0 1, p1 2, p2 0")
    agent.session_say("log saved: /tmp/x.log")
    assert said[0] == "game over. nuggets: p0 0"
    assert sum(line.startswith(("game over.", "== game over.")) for line in said) == 2, said
    assert said[-1] == "log saved: /tmp/x.log"


def test_legal_says_which_slots_hold_the_same_card():
    """The engine lists a card's moves once however many of it a hand holds: "pass: 1 · 2 · 3
    · 5" read as if 4 and 6 could not be passed (found by a play-test).  `legal` now says which
    slots hold the same card."""
    from test_client_controller import find

    from saboteur_p2p.client.plain import PlainAgent
    from saboteur_p2p.client.words import alike_note

    def twice(s) -> bool:  # the seat to move holds two cards alike
        faces = [s.faces[h] for h in s.hands[s.current]]
        return s.phase.value == "play" and any(faces.count(f) > 1 for f in faces)
    state = find(twice)
    seat = state.current
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = seat, [f"p{i}" for i in range(state.players)]
    agent._answer("legal", state)
    view = agent._hand.view(state, seat)
    faces = [face for _, face in view.hand]
    pairs = [(i + 1, j + 1) for i in range(len(faces)) for j in range(i + 1, len(faces)) if faces[i] == faces[j]]
    note = alike_note(view)
    assert note is not None and said[-1] == note and note.startswith("same card: "), said
    assert all(f"{a} = {b}" in note or f"= {b}" in note for a, b in pairs), (pairs, note)
    assert alike_note(view._replace(hand=view.hand[:1])) is None


def test_a_second_ctrl_c_at_the_leave_question_leaves():
    """Ctrl-C asks whether to leave; a second Ctrl-C answered "staying at the table" (found by
    a play-test): someone pressing it again means to go."""
    from test_client_app import Harness

    harness = Harness(seed=2)

    def script(h: Harness) -> None:
        h.decision()
        h.keys("\x03")
        h.wait_for(lambda: h.app.ui.confirm_quit, "the question")
        assert "y or Ctrl-C" in h.screen()
        h.keys("\x03")
        h.wait_for(h.closed, "leaving")

    assert harness.play(script) == "quit"
    assert harness.agent.wants_to_quit


def test_our_round_with_no_gold_yet_reads_as_nothing_won_until_the_gold_is_handed_out():
    """While the round's gold was still being handed out, our row said "won 0 nuggets", and a
    gold card came to us after it (found by a play-test): until the gold is all out, nothing
    yet reads "-", as another seat's does; once it is, "0 nuggets"."""
    from test_client_rounds import followed_game

    from saboteur_p2p.client.tracker import Tracker
    from saboteur_p2p.rules import RoundEnded, RoundStarted

    state, _agent, _ = followed_game(3)
    tracker = Tracker(0, state.players)
    events = list(state.events)
    ends = [i for i, e in enumerate(events) if isinstance(e, RoundEnded)]
    starts = [i for i, e in enumerate(events) if isinstance(e, RoundStarted)]
    view = state.view_for(0)
    tracker.take(events[:ends[0] + 1], view, [f"p{i}" for i in range(state.players)])
    summary = tracker.summaries[0]
    assert not summary.settled and summary.won[0] == "-", summary.won  # the round just ended: no gold out yet
    tracker.take(events[ends[0] + 1:starts[1] + 1], view, [f"p{i}" for i in range(state.players)])
    summary = tracker.summaries[0]
    assert summary.settled and summary.won[0] != "-", summary.won


def test_a_round_nobody_won_says_no_saboteur_was_dealt():
    """"nobody won · the cards ran out" gave no reason (found by a play-test): with no
    saboteur dealt (the spare role card was one), the saboteurs' win goes to nobody."""
    import dataclasses

    from test_client_render import text

    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board, Role

    snap = dataclasses.replace(Snapshot(), seat=0, names=("you", "ann", "bob", "cy"))
    summary = RoundSummary(1, 3, "nobody won", (Role.GOLD_DIGGER,) * 4, Board.new_round(), {}, ("-",) * 4, ("0",) * 4)
    assert "the cards ran out, and no saboteur was dealt" in text(render_round_end(summary, snap, 60, 30))
    won = dataclasses.replace(summary, winners="the saboteurs won", roles=(Role.SABOTEUR,) + (Role.GOLD_DIGGER,) * 3)
    shown = text(render_round_end(won, snap, 60, 30))
    assert "the cards ran out" in shown and "no saboteur" not in shown
    # Saboteur 2: the saboteurs' side with no saboteur dealt is the profiteer alone
    alone = dataclasses.replace(summary, winners="the profiteer won", roles=(Role.PROFITEER,) + (Role.BLUE_DIGGER,) * 3)
    assert "the cards ran out, and no saboteur was dealt" in text(render_round_end(alone, snap, 60, 30))


def test_the_round_end_and_ranking_say_nothing_won_alike_and_star_no_one_without_gold():
    """A second play-test: the round-end table said "0" for our empty round and "-" for the
    others'; its legend said "$ has gold" under a table that wrote "gold"; and a game nobody won
    any gold in starred every seat."""
    import dataclasses

    from test_client_render import text

    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_ranking, render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board, Role

    roles = (Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.GREEN_DIGGER, Role.SABOTEUR)
    won, totals = ("0 pieces", "gold", "-", "-"), ("0 pieces", "has gold", "has gold", "-")
    summary = RoundSummary(1, 3, "the green team won", roles, Board.new_round(), {}, won, totals, settled=True)
    snap = dataclasses.replace(Snapshot(), seat=0, names=("you", "heuristic-1", "heuristic-2", "heuristic-3"))
    tables = [text(render_round_end(summary, snap, 60, height)) for height in range(8, 13)]
    table = next(t for t in tables if " who" in t and "others:" in t)
    assert next(line for line in table.splitlines() if line.startswith(" you ")).split()[2] == "-", table
    assert "others: gold (secret)" in table and "$" not in table, table
    from test_client_controller import find, seated

    state = find(lambda s: s.phase.value == "play")
    agent, _node, _ctl = seated(state)
    snap = agent.snapshot()
    nobody = (0,) * state.players
    ranking = render_ranking(dataclasses.replace(snap, view=snap.view._replace(scores=nobody, phase="game-over")))
    assert "★" not in ranking and "1. " in ranking, ranking


def test_our_own_last_move_shows_beside_a_broken_tool_whatever_the_width():
    """Our row's role mark, left out beside a move, left an empty piece at the line's end, so
    the padding before it did not count and our move went missing (found by review)."""
    from dataclasses import replace

    from test_client_playtest3 import BOTS, _table, text

    from saboteur_p2p.client.render import render_players
    from saboteur_p2p.client.tracker import LastMove
    from saboteur_p2p.rules import Tool

    snap, ctl = _table(("tester", *BOTS), busy=False)
    n, seat = snap.view.players, snap.seat
    view = snap.view._replace(broken=tuple(frozenset({Tool.LANTERN}) if s == seat else frozenset(Tool)
                                           if s == (seat + 1) % n else frozenset() for s in range(n)))
    for mine in (("brk lamp→3", "brk→3"), ("pass", "pass"), ("map g1", "map")):
        moves = {s: LastMove(s, "", None, s + 1, *(mine if s == seat else ("pass", "pass"))) for s in range(n)}
        for width in range(26, 41):
            lines = text(render_players(replace(snap, view=view, last_moves=moves), ctl.focus(), width)).splitlines()[1:]
            assert lines[seat].rstrip().endswith(mine), (width, lines)
            assert all(len(line) == width for line in lines), (width, lines)
