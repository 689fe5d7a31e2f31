"""Findings of a play-test of ``saboteur-p2p play`` (the base game and Saboteur 2 against bot
peers, full-screen and --plain, 2026-12-05), one test each, each failing before its fix."""
from __future__ import annotations

from test_client_app import ENTER, Harness, can_place, seed_where

LEFT = "\x1b[D"
UP = "\x1b[A"


def test_a_key_typed_after_a_refusal_starts_a_fresh_line_and_arrows_go_into_the_refused_one():
    """A refused "orient 1" stayed on the line and the next command typed was added to it
    ("orient 1pass 2").  The refused line now shows selected: typing replaces it, ← goes into
    it to correct it, and ↑ brings it back."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":path 9 at 5,5" + ENTER)
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        assert h.app.input_area.text == "path 9 at 5,5"  # still there to read, and to correct
        h.keys("pass 9")
        h.wait_for(lambda: h.app.input_area.text == "pass 9", "a fresh line, not 'path 9 at 5,5pass 9'")
        h.keys(ENTER)
        h.wait_for(lambda: h.app.ui.message_kind == "error" and h.app.input_area.text == "pass 9", "a second refusal")
        h.keys(LEFT + "1")  # into the line: correct it where the cursor is
        h.wait_for(lambda: h.app.input_area.text == "pass 19", "the corrected line")
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        assert h.app.input_area.text == ""
        h.keys(":path 9 at 5,5" + ENTER)
        h.wait_for(lambda: h.app.input_area.buffer.selection_state is not None, "the refused line, selected")
        # prompt_toolkit reads the history again in a task of the next repaint
        h.wait_for(lambda: len(h.app.input_area.buffer._working_lines) > 1, "the line's history")
        h.keys("say hi")
        h.wait_for(lambda: h.app.input_area.text == "say hi", "a fresh line")
        h.keys(UP)  # the refused line, to correct it after all
        h.wait_for(lambda: h.app.input_area.text == "path 9 at 5,5", "the refused line from the history")

    harness.play(script)
