"""Moves typed at the full-screen client: completion, the inline check, and refusals."""
from __future__ import annotations

from test_client_app import ENTER, TAB, Harness, can_place, seed_where, strip_index

from saboteur_p2p.client.model import Snapshot
from saboteur_p2p.client.words import Words
from saboteur_p2p.rules import GOAL_CELLS, PathCard, PlacePath, State


def test_placing_a_path_card_with_a_typed_command_and_completion():
    harness = Harness(seed_where(can_place))
    sent: dict[str, str] = {}

    def script(h: Harness) -> None:
        snap = h.decision()
        first = next(a for a in snap.decision.legal if isinstance(a, PlacePath))  # type: ignore[union-attr]
        slot = strip_index(snap, lambda c: c == dict(snap.view.hand)[first.card]) + 1  # type: ignore[union-attr]
        h.keys(f":path {slot} at")
        h.wait_for(lambda: h.app.input_area.text == f"path {slot} at", "the typed text")
        h.keys(TAB)  # completes to the first legal placement of that card
        h.wait_for(lambda: h.app.input_area.text.startswith(f"path {slot} at ") and
                   h.app.input_area.text != f"path {slot} at ", "the completion")
        sent["move"] = h.app.input_area.text
        assert "✓ legal" in h.screen().splitlines()[-2]  # inline validation on the message line
        engine = Words(snap.view, snap.names).read(sent["move"])  # type: ignore[arg-type]
        said: list[str] = []
        say = h.app.ui.say
        h.app.ui.say = lambda text, *args, **kwargs: (said.append(text), say(text, *args, **kwargs))  # type: ignore[method-assign]
        h.keys(ENTER)
        h.sent(snap)
        h.wait_for(lambda: any(played.startswith(engine) for played in h.played_by_me()), "the table to play it")
        assert f"played: {sent['move']}" in said  # on the message line until another seat moves

    harness.play(script)
    assert sent["move"].startswith("path ")


def test_an_illegal_move_shows_the_rule_it_breaks():
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        snap = h.decision()
        handle = next(a.card for a in snap.decision.legal if isinstance(a, PlacePath))  # type: ignore[union-attr]
        slot = strip_index(snap, lambda c: c == dict(snap.view.hand)[handle]) + 1  # type: ignore[union-attr]
        h.keys(f":path {slot} at 0,0")
        h.wait_for(lambda: "✗ 0,0 is the start cell" in h.screen(), "the inline verdict")
        h.keys(ENTER)
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        assert h.app.ui.message == "not allowed: 0,0 is the start cell"
        assert h.app.input_area.text == f"path {slot} at 0,0"  # kept, to correct it
        assert h.app.ui.sent_for is None and h.played_by_me() == []
        # with keys: the cursor onto a goal card
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        index = strip_index(snap, lambda c: isinstance(c, PathCard))
        h.keys(str(index + 1))
        h.wait_for(lambda: h.app.focus.selected == index, "the card")
        h.app.ui.cursor = GOAL_CELLS[1]  # as if moved there with the arrows
        h.keys(ENTER)
        h.wait_for(lambda: "8,0 is a goal cell" in h.app.ui.message, "the goal-cell rule")
        assert "8,0 is a goal cell" in h.screen().splitlines()[-2]

    harness.play(script)


def fits_only_turned(state: State) -> bool:
    legal = state.legal_actions()
    return any(isinstance(a, PlacePath) and a.turned and PlacePath(a.card, a.x, a.y, False) not in legal for a in legal)


def only_turned_line(snap: Snapshot) -> str:
    """A typed placement ("path 2 at 6,-1") that fits only turned, at our move (``fits_only_turned``)."""
    legal = snap.decision.legal  # type: ignore[union-attr]
    move = next(a for a in legal if isinstance(a, PlacePath) and a.turned and PlacePath(a.card, a.x, a.y, False) not in legal)
    slot = strip_index(snap, lambda c: c == dict(snap.view.hand)[move.card]) + 1  # type: ignore[union-attr]
    return f"path {slot} at {move.x},{move.y}"


def test_a_refused_typed_move_closes_the_completion_menu_so_the_refusal_shows():
    harness = Harness(seed_where(fits_only_turned))

    def script(h: Harness) -> None:
        typed = only_turned_line(h.decision())
        h.keys(":" + typed)
        # the menu offers the turned form of the line typed so far
        h.wait_for(lambda: h.app.input_area.buffer.complete_state is not None, "the completion menu")
        # the menu leaves the live check under it readable
        h.wait_for(lambda: h.screen().splitlines()[-2].lstrip().startswith("✗ the card does not fit"), "the check")
        h.keys(ENTER)
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        assert h.app.input_area.text == typed  # kept, to correct it
        h.wait_for(lambda: h.app.input_area.buffer.complete_state is None, "the menu to close")
        h.wait_for(lambda: "not allowed: " in h.screen(), "the refusal on the screen")

    harness.play(script)
