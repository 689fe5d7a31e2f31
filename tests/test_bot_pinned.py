"""Seeded games of the bundled bots, pinned: speed work on the bots must not change a choice.

Like test_match.py's pinned random games, each digest covers whole games' actions and
scores.  A change to a bot's play (a new score, a reordered tie) shows up here; a change
meant to alter play updates the digests in the same commit and says why.
"""
from __future__ import annotations

import hashlib

import pytest

from saboteur_p2p.botapi import load_bot
from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig


def _digest(edition: str, seats: list[str], seeds: range) -> str:
    digest = hashlib.sha256()
    for players in (3, 5, 8):
        for seed in seeds:
            bots = (seats * players)[:players]
            record = play_game(GameConfig(players, edition), bots, seed, time_limit=None)
            digest.update(repr((record.actions, record.scores)).encode())
    return digest.hexdigest()[:32]


@pytest.mark.parametrize(("edition", "seats", "pinned"), [
    ("base", ["heuristic"], "643840202bf6f3b8ac0294b263900092"),
    ("base", ["heuristic-v1"], "44be9c7c901ec9df45ced5004b8991df"),
    ("base", ["heuristic", "heuristic-v1", "random"], "779c8294215508658ff6fb9a23afacac"),
    ("saboteur2", ["heuristic"], "62c694e9beddd7767ce4f03f06be0d28"),
    ("saboteur2", ["heuristic-v1"], "07a4d2933c9597f42a4769d77164642f"),
    ("saboteur2", ["heuristic", "heuristic-v1", "random"], "8e178b2519e5e99bede4dbde72d6fe39"),
])
def test_heuristic_games_are_pinned(edition, seats, pinned):
    assert _digest(edition, seats, range(5)) == pinned


@pytest.mark.parametrize(("edition", "spec", "pinned"), [
    ("base", "ismcts:playouts=24:cutoff=12", "c0e0c2f86c7cab90b82eac93ea07b313"),
    # without the hand model: the same game as before it came
    ("base", "ismcts:playouts=24:cutoff=12:hands=false", "6e04d083e3dd5688e148100207779666"),
    ("saboteur2", "ismcts:playouts=8:cutoff=8", "eeb6407dc85889c63d8db8eac07dc24b"),
])
def test_an_ismcts_game_is_pinned(edition, spec, pinned):
    bot = load_bot(spec)
    record = play_game(GameConfig(4, edition), [bot, "heuristic", "heuristic-v1", "heuristic"], 1, time_limit=None)
    assert bot.searched  # the game did search, so the playouts are pinned too
    digest = hashlib.sha256(repr((record.actions, record.scores, bot.searched)).encode())
    assert digest.hexdigest()[:32] == pinned
