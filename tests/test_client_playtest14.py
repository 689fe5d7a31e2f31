"""Findings of a play-test of the full-screen client (Saboteur 2 and the base game, 80x24 and
120x40), one test each, each failing before its fix."""
from __future__ import annotations

import time

from test_client_app import ENTER, TAB, Harness, seed_where, strip_index
from test_client_app_typed import fits_only_turned

from saboteur_p2p.rules import PlacePath


def test_a_move_refused_as_it_is_typed_is_not_covered_by_a_late_completion_menu():
    """`path 2 at 6,-1` typed and Enter pressed at once: a completion still running for the
    line reopened its menu over the refusal ("not allowed: th path 2 at 6,-1 turned  card to
    its west") and it stayed.  The refusal shows whole, names what the menu offered, and Tab
    still offers it."""
    harness = Harness(seed_where(fits_only_turned))

    def script(h: Harness) -> None:
        snap = h.decision()
        legal = snap.decision.legal  # type: ignore[union-attr]
        move = next(a for a in legal if isinstance(a, PlacePath) and a.turned
                    and PlacePath(a.card, a.x, a.y, False) not in legal)
        slot = strip_index(snap, lambda c: c == dict(snap.view.hand)[move.card]) + 1  # type: ignore[union-attr]
        typed = f"path {slot} at {move.x},{move.y}"
        h.keys(":" + typed + ENTER)  # as a quick typist does
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        time.sleep(0.5)  # a late completion has had time to come back
        assert h.app.input_area.buffer.complete_state is None
        rows = h.screen().splitlines()[-3:-1]
        said = " ".join(" ".join(row.split()) for row in rows)
        assert said.startswith("not allowed: the card does not fit"), rows
        assert f"Tab: {typed} turned" in said, rows
        h.keys(TAB)  # asked for, the menu still comes
        h.wait_for(lambda: h.app.input_area.text == f"{typed} turned", "the turned move on the line")

    harness.play(script)


def test_a_card_digit_pressed_after_a_refused_move_picks_the_card():
    """After a refused typed move the command line kept the keys: `6`, pressed to pick a card,
    replaced the line and read "cannot read '6'"; Esc (slow, as Esc waits for a key after it)
    had to come first.  A digit over the refused move leaves the line and picks the card."""
    harness = Harness(seed_where(fits_only_turned))

    def script(h: Harness) -> None:
        snap = h.decision()
        legal = snap.decision.legal  # type: ignore[union-attr]
        move = next(a for a in legal if isinstance(a, PlacePath) and a.turned
                    and PlacePath(a.card, a.x, a.y, False) not in legal)
        slot = strip_index(snap, lambda c: c == dict(snap.view.hand)[move.card]) + 1  # type: ignore[union-attr]
        h.keys(f":path {slot} at {move.x},{move.y}" + ENTER)
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        h.keys("3")
        h.wait_for(lambda: h.app.focus.selected == 2, "card 3 picked")
        assert h.app.application.layout.has_focus(h.app.maze_window)
        assert "cannot read" not in h.app.ui.message
        h.keys(":path ")  # a line still takes digits as it is typed
        h.wait_for(lambda: h.app.input_area.text == "path ", "a new line")
        h.keys("2")
        h.wait_for(lambda: h.app.input_area.text == "path 2", "the digit typed on the line")

    harness.play(script)
