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
        for text in ("Leave the table?", "y  yes, tell the table and leave", "any other key  stay"):
            line = next(line for line in lines if text in line)
            at = line.index(text)
            assert line[at - 2:at] == "│ ", line
        widest = next(line for line in lines if "tell the table and leave" in line)
        end = widest.index("leave") + len("leave")
        assert widest[end:end + 2] == " │", widest
        h.keys("n")

    harness.play(script)
