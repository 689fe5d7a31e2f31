"""In-process games: records, replay, narration."""
from __future__ import annotations

from saboteur_p2p.match import narrate, play_game, replay
from saboteur_p2p.rules import GameConfig


def test_a_recorded_game_replays_to_the_same_scores():
    config = GameConfig(6, variants=frozenset({"stone-nuggets"}))
    record = play_game(config, ["random"] * 6, seed=21)
    state = replay(config, 21, record.actions)
    assert state.is_terminal()
    assert state.scores == record.scores
    assert len(record.roles) == 3 and all(len(r) == 6 for r in record.roles)


def test_the_same_seed_gives_the_same_game():
    config = GameConfig(5)
    first = play_game(config, ["random"] * 5, seed=5)
    second = play_game(config, ["random"] * 5, seed=5)
    assert first.actions == second.actions and first.scores == second.scores


def test_narration_tells_every_round_and_the_result():
    config = GameConfig(4)
    record = play_game(config, ["random"] * 4, seed=3)
    lines = list(narrate(replay(config, 3, record.actions).events, ["random"] * 4))
    assert sum(line.startswith("-- round") and "starts" in line for line in lines) == 3
    assert lines[-1].startswith("== game over")
    assert str(max(record.scores)) in lines[-1]
