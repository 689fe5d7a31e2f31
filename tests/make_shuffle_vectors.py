"""Write tests/vectors/shuffle_proof.json: test vectors for the proof of a shuffle
(saboteur_p2p/crypto/shuffle_proof.py), for another implementation to check itself against.

    python tests/make_shuffle_vectors.py

Everything is deterministic: the joint key comes from a fixed secret scalar, the cards are
``hash_to_point("card", i)``, and every random value the shuffler draws comes, in the order
``plan_shuffle`` then ``prove_shuffle`` draw them, from ``random.Random(seed).randbytes`` with
an integer seed per vector (integer seeds do not depend on PYTHONHASHSEED).  No dict or set is
iterated to produce a value, and the JSON is written with sorted keys, so the file is the same
byte for byte on every run.  tests/test_shuffle_proof.py regenerates it and compares.
"""
from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from saboteur_p2p.crypto.group import Point, RandomBytes, base_mul, hash_to_point, scalar_from_int
from saboteur_p2p.crypto.shuffle import Ciphertext, initial_deck
from saboteur_p2p.crypto.shuffle_proof import apply_plan, challenges, generators, plan_shuffle, prove_shuffle, statement_digest

PATH = Path(__file__).resolve().parent / "vectors" / "shuffle_proof.json"
SECRET = scalar_from_int(0x5AB07E0B)
CONTEXT = b"saboteur-p2p test vector"
CARDS = 5
#: one seed per vector: the first shuffles the initial deck, the second shuffles the first's output
SEEDS = (20170, 20171)


def seeded(seed: int) -> RandomBytes:
    rng = random.Random(seed)
    return rng.randbytes


def deck_hex(deck: list[Ciphertext]) -> list[list[str]]:
    return [[c1.hex(), c2.hex()] for c1, c2 in deck]


def proof_hex(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value.hex() if isinstance(value, bytes) else [item.hex() for item in value] for key, value in data.items()}


def shuffle_vector(name: str, seed: int, joint: Point, inputs: list[Ciphertext]) -> tuple[dict[str, Any], list[Ciphertext]]:
    rand = seeded(seed)
    plan = plan_shuffle(len(inputs), joint, rand)
    outputs = apply_plan(plan, inputs)
    proof = prove_shuffle(plan, CONTEXT, inputs, outputs, rand)
    statement = statement_digest(CONTEXT, joint, inputs, outputs, proof.commitments)
    vector = {
        "name": name,
        "seed": seed,
        "inputs": deck_hex(inputs),
        "permutation": list(plan.perm),
        "reencryption_scalars": [s.hex() for s in plan.scalars],
        "outputs": deck_hex(outputs),
        "statement_digest": statement.hex(),
        "u": [u.hex() for u in challenges(statement, len(inputs))[:2]],
        "proof": proof_hex(proof.to_data()),
    }
    return vector, outputs


def build() -> dict[str, Any]:
    joint = base_mul(SECRET)
    cards = [hash_to_point("card", i) for i in range(CARDS)]
    h, hs = generators(CARDS)
    first, outputs = shuffle_vector("shuffle of the initial deck", SEEDS[0], joint, initial_deck(cards))
    second, _ = shuffle_vector("shuffle of the first vector's output", SEEDS[1], joint, outputs)
    return {
        "description": "Terelius-Wikstrom proofs of a shuffle (saboteur_p2p/crypto/shuffle_proof.py, protocol.md 7.4); "
        "made by tests/make_shuffle_vectors.py",
        "secret": SECRET.hex(),
        "joint": joint.hex(),
        "context": CONTEXT.hex(),
        "cards": [card.hex() for card in cards],
        "generators": [h.hex()] + [g.hex() for g in hs],
        "vectors": [first, second],
    }


def render() -> str:
    return json.dumps(build(), indent=2, sort_keys=True) + "\n"


def main() -> int:
    PATH.parent.mkdir(parents=True, exist_ok=True)
    PATH.write_text(render(), encoding="utf-8")
    print(f"wrote {PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
