"""A seat that signs a garbled body: whatever its record holds, every other node refuses it
naming that seat, or takes it (a change that leaves it valid, or a share only some peers
check when it comes: protocol.md 6.8, 8.3); nothing raises anything else, and nobody else is
blamed.  The bodies are honest ones mutated at random (seeded): a leaf replaced by a value of
another type or size, a key dropped or added, a list item repeated, dropped or swapped, a bit
of a point flipped."""
from __future__ import annotations

import copy
import random
from typing import Any

import pytest
from protocol_helpers import POINTS, expected, game_at, hear, honest_body, signed_record
from test_session_cheats_records import _paths

LEAVES: list[Any] = [
    None, True, False, -1, 0, 1, 7, 255, 2**31, 2**63 - 1, -(2**63), "x", "", "pickaxe", b"", b"\x00" * 32,
    b"\xff" * 32, b"\x01" + b"\x00" * 31, [], {}, 1.5, float("nan"), [0], [[0]], {"a": 1}, b"\x00" * 64,
]


def mutated(body: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``body`` with one to three random changes (see the module docstring)."""
    body = copy.deepcopy(body)
    for _ in range(rng.choice((1, 1, 2, 3))):
        paths = _paths(body)[1:]
        if not paths:
            break
        path = rng.choice(paths)
        parent: Any = body
        for step in path[:-1]:
            parent = parent[step]
        key, roll = path[-1], rng.random()
        if roll < 0.55:
            parent[key] = copy.deepcopy(rng.choice(LEAVES))
        elif roll < 0.65 and isinstance(parent, dict):
            del parent[key]
        elif roll < 0.75 and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[key]))
        elif roll < 0.82 and isinstance(parent, list):
            del parent[key]
        elif roll < 0.9 and isinstance(parent, dict):
            parent[rng.choice(("zz", "shares", "opened", "public", "sealed", 5))] = copy.deepcopy(rng.choice(LEAVES))
        elif isinstance(parent[key], bytes) and parent[key]:
            flipped = bytearray(parent[key])
            flipped[rng.randrange(len(flipped))] ^= 1 << rng.randrange(8)
            parent[key] = bytes(flipped)
    return body


@pytest.mark.parametrize("point", [*POINTS, "sealed-move"])
def test_a_signed_garbled_body_is_refused_naming_its_signer_or_taken(point: str) -> None:
    rng = random.Random(point)
    refused = 0
    for _ in range(25):
        game = game_at(point)
        head = expected(game)
        body = mutated(honest_body(game.nodes[head.speaker]), rng)
        try:
            record = signed_record(game, head.speaker, head.kind, body)
        except (TypeError, ValueError, OverflowError):
            continue  # not a record msgpack can carry (a NaN key, a number too large)
        verdicts = hear(game, record, head.speaker)  # anything but a ProtocolViolation fails the test
        blamed = [v for v in verdicts.values() if v is not None]
        assert all(v.peer == head.speaker for v in blamed), [(v.peer, v.reason, str(v)) for v in blamed]
        refused += bool(blamed)
    assert refused >= 15  # most garbled bodies are refused: the test exercises the checks
