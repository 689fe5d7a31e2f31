"""Saved states: plain data that survives JSON and msgpack and resumes the game exactly."""
from __future__ import annotations

import json
import random

import msgpack
import pytest

from saboteur_p2p.rules import Game, GameConfig, parse_action
from saboteur_p2p.rules.serialize import state_from_data, state_to_data


def _random_game_prefix(players: int, seed: int, steps: int):
    state = Game(GameConfig(players, variants=frozenset({"selfish-dwarf"})), seed=seed).new_state()
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        state.push(rng.choice(state.legal_actions()))
    return state, rng


@pytest.mark.parametrize("players, seed, steps", [(3, 1, 0), (5, 2, 40), (7, 3, 90), (10, 4, 130), (4, 5, 400)])
def test_state_round_trips_through_json_and_msgpack(players, seed, steps):
    state, _ = _random_game_prefix(players, seed, steps)
    data = state_to_data(state)
    via_json = json.loads(json.dumps(data))
    via_msgpack = msgpack.unpackb(msgpack.packb(data), strict_map_key=False)
    assert state_to_data(state_from_data(via_json)) == data
    assert state_to_data(state_from_data(via_msgpack)) == data


@pytest.mark.parametrize("seed", range(6))
def test_a_resumed_state_plays_on_exactly_like_the_original(seed):
    state, rng = _random_game_prefix(5, seed, 60 + seed * 25)
    resumed = state_from_data(json.loads(json.dumps(state_to_data(state))))
    # the same actions; their order follows the history of the frontier, which a resume rebuilds
    assert sorted(map(str, resumed.legal_actions())) == sorted(map(str, state.legal_actions()))
    for view_seat in range(5):
        assert resumed.view_for(view_seat).to_data() == state.view_for(view_seat).to_data()
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        state.push(action)
        resumed.play(str(action))
    assert resumed.scores == state.scores
    assert state_to_data(resumed) == state_to_data(state)


def test_a_bad_saved_state_is_refused():
    with pytest.raises(ValueError, match="not a saved state"):
        state_from_data({"format": "something-else"})
    state, _ = _random_game_prefix(3, 0, 5)
    data = state_to_data(state)
    data["dealer"] = None
    with pytest.raises(ValueError, match="no trusted dealer"):
        state_from_data(data)


def test_events_round_trip():
    state, _ = _random_game_prefix(4, 8, 300)
    restored = state_from_data(state_to_data(state))
    assert restored.events == state.events
    assert all(parse_action(str(e.action)) == e.action for e in restored.events if hasattr(e, "action"))
