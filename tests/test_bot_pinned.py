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
    ("base", ["heuristic"], "f253f9676d6ef1086baefa0d2379f56a"),
    ("base", ["heuristic-v1"], "aad9b1158fa9223fea6f1c6b736e8359"),
    ("base", ["heuristic", "heuristic-v1", "random"], "622fbd110cebb9e7209413eb34142346"),
    ("saboteur2", ["heuristic"], "b06ff2ccadbef6864a2b33a697e9ac48"),
    ("saboteur2", ["heuristic-v1"], "07a4d2933c9597f42a4769d77164642f"),
    ("saboteur2", ["heuristic", "heuristic-v1", "random"], "cff0042988fc11c0c3df68706fd6d4d7"),
])
def test_heuristic_games_are_pinned(edition, seats, pinned):
    assert _digest(edition, seats, range(5)) == pinned


@pytest.mark.parametrize(("edition", "spec", "pinned"), [
    ("base", "ismcts:playouts=24:cutoff=12", "ea930c0ba0dcaa0fceadd71c7c380df8"),
    # without the hand model (its playout players are the heuristic: a change to its play changes these)
    ("base", "ismcts:playouts=24:cutoff=12:hands=false", "cfa70f9a31d33ff113dc583a93578e4e"),
    ("saboteur2", "ismcts:playouts=8:cutoff=8", "28bbe2372a9bc9d74e888f95f6312495"),
])
def test_an_ismcts_game_is_pinned(edition, spec, pinned):
    bot = load_bot(spec)
    record = play_game(GameConfig(4, edition), [bot, "heuristic", "heuristic-v1", "heuristic"], 1, time_limit=None)
    assert bot.searched  # the game did search, so the playouts are pinned too
    digest = hashlib.sha256(repr((record.actions, record.scores, bot.searched)).encode())
    assert digest.hexdigest()[:32] == pinned
