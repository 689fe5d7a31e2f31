"""Findings of a play-test of Saboteur 2 at the terminal table (2026-12-04), one test each."""
from __future__ import annotations

import time

from saboteur_p2p.client.tracker import _short_move
from saboteur_p2p.match import card_words
from saboteur_p2p.rules import CardPlayed, PlacePath, Stolen
from saboteur_p2p.rules.cards import face_from_code


def test_a_tunnel_with_a_dead_end_apart_is_not_named_as_a_branch():
    """The log said "path ┴ at 5,2" for the EW+N card, which the maze drew as ──── and a
    separate ╵: a player read a branch that connects."""
    tee_apart = face_from_code("path:EW+N")
    assert card_words(tee_apart) == "path ─+╵" and card_words(tee_apart, turned=True) == "path ─+╷"
    assert card_words(face_from_code("path:NEW")) == "path ┴"  # the branch that does connect
    assert card_words(face_from_code("path:NS+E+W")) == "path │+╶+╴"
    assert _short_move(CardPlayed(1, PlacePath(9, 5, 2, False), tee_apart)) == "─+╵ 5,2"


def test_enter_under_a_rounds_end_steals_at_once():
    """The round's end screen showed "Enter steal" under it, but the first Enter only closed
    the screen: the player had to press it again.  Keys of a choice the player has while the
    gold is handed out now act at once."""
    from test_client_app import DOWN, ENTER, Harness, saboteur2_keys

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
                assert not h.round_end_open()
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
