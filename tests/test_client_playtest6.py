"""Findings of a play-test of Saboteur 2 at the terminal table (2026-12-04), one test each."""
from __future__ import annotations

from saboteur_p2p.client.tracker import _short_move
from saboteur_p2p.match import card_words
from saboteur_p2p.rules import CardPlayed, PlacePath
from saboteur_p2p.rules.cards import face_from_code


def test_a_tunnel_with_a_dead_end_apart_is_not_named_as_a_branch():
    """The log said "path ┴ at 5,2" for the EW+N card, which the maze drew as ──── and a
    separate ╵: a player read a branch that connects."""
    tee_apart = face_from_code("path:EW+N")
    assert card_words(tee_apart) == "path ─+╵" and card_words(tee_apart, turned=True) == "path ─+╷"
    assert card_words(face_from_code("path:NEW")) == "path ┴"  # the branch that does connect
    assert card_words(face_from_code("path:NS+E+W")) == "path │+╶+╴"
    assert _short_move(CardPlayed(1, PlacePath(9, 5, 2, False), tee_apart)) == "─+╵ 5,2"
