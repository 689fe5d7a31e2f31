"""The plain prompt at a terminal edits the line being typed (client/lineedit.py).

Read from the terminal's own line discipline, the arrow keys went into the move as text, and a
line the table said meanwhile wiped the typed text from sight.  These tests type into
prompt_toolkit's pipe input, as a terminal would send the keys.
"""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput

from saboteur_p2p.client.lineedit import LineEditor
from saboteur_p2p.client.plain import PROMPT, PlainAgent

LEFT = "\x1b[D"
HOME = "\x1b[H"
UP = "\x1b[A"
ENTER = "\r"
CTRL_D = "\x04"


@pytest.fixture
def keys() -> Iterator[PipeInput]:
    with create_pipe_input() as pipe:
        yield pipe


def test_the_arrow_keys_move_in_the_line_instead_of_being_typed_into_it(keys: PipeInput) -> None:
    editor = LineEditor(keys, DummyOutput())
    # "path 3 at 1,0", then back over "1,0" to make it "-1,0"; then "x" at the line's start
    keys.send_text("path 3 at 1,0" + LEFT * 3 + "-" + ENTER + "ap 2" + HOME + "m" + ENTER + CTRL_D)
    assert list(editor.lines(lambda: "")) == ["path 3 at -1,0", "map 2"]


def test_up_brings_back_the_line_typed_before(keys: PipeInput) -> None:
    editor = LineEditor(keys, DummyOutput())
    lines = editor.lines(lambda: "")
    keys.send_text("legal" + ENTER)
    assert next(lines) == "legal"
    keys.send_text(UP + ENTER + CTRL_D)  # typed once the line before is read, as a person types
    assert list(lines) == ["legal"]


def test_ctrl_d_on_an_empty_line_ends_the_lines(keys: PipeInput) -> None:
    editor = LineEditor(keys, DummyOutput())
    keys.send_text(CTRL_D + "board" + ENTER)
    assert list(editor.lines(lambda: "")) == []


def test_a_person_at_the_editor_has_the_prompt_at_their_move_only_and_their_lines_reach_the_table(keys: PipeInput) -> None:
    said: list[str] = []
    written: list[str] = []
    agent = PlainAgent(said.append, None, written.append, LineEditor(keys, DummyOutput()))
    assert agent._prompt_text() == ""  # not our move: no prompt
    agent.prompted = True
    assert agent._prompt_text() == PROMPT
    agent._show_prompt()
    agent._said("heuristic-1: path ┼ at 1,0")
    # the editor draws the prompt and keeps the typed line below what is said: nothing is
    # written to clear the line or to draw the prompt by hand
    assert written == []
    assert said == ["heuristic-1: path ┼ at 1,0"]
    reader = threading.Thread(target=agent._read, daemon=True)
    reader.start()
    keys.send_text("path 3 at 1,0" + LEFT * 3 + "-" + ENTER)
    assert agent.lines.get(timeout=10) == "path 3 at -1,0"
    keys.send_text(CTRL_D)
    reader.join(timeout=10)
    assert not reader.is_alive()
    assert agent.wants_to_quit


def test_what_the_session_says_is_wrapped_between_words_at_the_terminals_width() -> None:
    said: list[str] = []
    agent = PlainAgent(said.append, 40)
    agent.session_say("this machine's bot peers sit in the order they were started: heuristic-1 at seat 1")
    assert len(said) > 1
    assert all(len(row) < 40 for row in said)
    assert " ".join(row.strip() for row in said) == (
        "this machine's bot peers sit in the order they were started: heuristic-1 at seat 1"
    )


def test_a_session_message_of_several_lines_keeps_its_lines():
    said: list[str] = []
    agent = PlainAgent(said.append, 40)
    agent.session_say("The game stopped early; what the signed log shows:\n  round 1: saboteurs won; gold cards: a 0, b 0")
    assert said[0] == "The game stopped early; what the signed"
    assert said[2].startswith("  round 1:"), said  # the second line starts a row of its own


def test_the_games_narration_is_wrapped_and_the_maze_is_not():
    """The round's end ("-- round 1 won by saboteurs ...; heuristic-|2: saboteur") broke
    mid-word at the terminal's edge; the maze's rows must stay as drawn."""
    from saboteur_p2p.client.plain import plain_maze
    from saboteur_p2p.rules import Game, GameConfig, TrustedDealer

    said: list[str] = []
    agent = PlainAgent(said.append, 40)
    agent.say("-- round 1 won by saboteurs (the cards ran out); roles: you: gold-digger; heuristic-1: saboteur")
    assert len(said) > 1 and all(len(row) < 40 for row in said), said
    assert "heuristic-1:" in " ".join(said)  # a name whole on its row
    state = Game(GameConfig(5), TrustedDealer(1)).new_state()
    agent.seat_no, agent.names = 0, [f"p{i}" for i in range(5)]
    said.clear()
    agent._answer("board", state)
    maze = plain_maze(agent._hand.view(state, 0))
    assert len(maze[0]) > 40 and said == maze


def test_a_bot_peer_does_not_load_the_line_editor():
    """The line editor (prompt_toolkit) was imported by every bot peer, 9 MiB a peer more
    (benchmarks/network_game.py: 56 MiB a peer against 47)."""
    import subprocess
    import sys

    code = ("import argparse, sys; from saboteur_p2p.cli_table import _plain_agent; "
            "print(_plain_agent(argparse.Namespace(bot='heuristic'), print)[0], 'prompt_toolkit' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert done.stdout.split() == ["None", "False"], done.stdout + done.stderr


def test_the_prompt_takes_stderr_only_when_it_is_the_terminal():
    """patch_stdout took stderr too, and `2>errors.txt` caught nothing while the prompt was up."""
    import io
    import sys

    from saboteur_p2p.client.lineedit import _above_the_line

    errors = io.StringIO()  # a file, not a terminal
    saved = sys.stdout, sys.stderr
    sys.stderr = errors
    try:
        with _above_the_line():
            assert sys.stdout is not saved[0] and sys.stderr is errors
            print("an error", file=sys.stderr)
    finally:
        sys.stdout, sys.stderr = saved
    assert errors.getvalue() == "an error\n"


def test_close_ends_the_prompt_even_as_the_reader_starts_its_next_one():
    """close() came as the reader went back for its next prompt, not yet running: it waited
    its whole timeout and returned with the prompt up (1 to 2 times in 60: found by review).
    Here the reader is held just before its prompt starts while close() is asked."""
    with create_pipe_input() as pipe:
        editor = LineEditor(pipe, DummyOutput())
        real_prompt = editor._session.prompt
        entering, go = threading.Event(), threading.Event()

        def held_prompt(*args, **kwargs):  # type: ignore[no-untyped-def]
            entering.set()
            go.wait(5)
            return real_prompt(*args, **kwargs)

        editor._session.prompt = held_prompt  # type: ignore[method-assign]
        reader = threading.Thread(target=lambda: list(editor.lines(lambda: "> ")), daemon=True)
        reader.start()
        assert entering.wait(5)
        closing = threading.Thread(target=editor.close, kwargs={"wait": 3.0}, daemon=True)
        closing.start()
        go.set()  # the prompt starts after close() was asked
        closing.join(5)
        reader.join(5)
        assert not reader.is_alive() and not editor._session.app.is_running


def test_the_prompt_starts_with_stderr_closed():
    """`2>&-` left sys.stderr None, and the prompt's reader died on it: the game hung (review)."""
    import sys

    from saboteur_p2p.client.lineedit import _above_the_line

    saved = sys.stdout, sys.stderr
    sys.stderr = None  # type: ignore[assignment]
    try:
        with _above_the_line():
            assert sys.stderr is None
    finally:
        sys.stdout, sys.stderr = saved
