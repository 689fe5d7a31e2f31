"""The shuffle proof's test vectors (protocol.md §7.4): tests/vectors/shuffle_proof.json is what
tests/make_shuffle_vectors.py writes, and its proofs verify from the file alone."""
from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from test_shuffle_proof import cards, decrypt, rejects

from saboteur_p2p.crypto.group import base_mul, check_point, hash_to_point
from saboteur_p2p.crypto.shuffle import check_deck, initial_deck, reencrypt
from saboteur_p2p.crypto.shuffle_proof import ShuffleProof, challenges, shuffle_and_prove, statement_digest, verify_shuffle_proof

TESTS = Path(__file__).resolve().parent
VECTORS = TESTS / "vectors" / "shuffle_proof.json"


def load_generator():
    spec = importlib.util.spec_from_file_location("make_shuffle_vectors", TESTS / "make_shuffle_vectors.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_vector_file_is_what_the_generator_writes():
    assert VECTORS.read_text(encoding="utf-8") == load_generator().render()


def test_the_stored_vectors_verify_from_the_file_alone():
    data = json.loads(VECTORS.read_text(encoding="utf-8"))
    unhex = bytes.fromhex
    secret, joint, context = unhex(data["secret"]), unhex(data["joint"]), unhex(data["context"])
    assert base_mul(secret) == joint
    stored_cards = [check_point(unhex(c)) for c in data["cards"]]
    assert stored_cards == cards(5)
    assert [unhex(g) for g in data["generators"]] == [hash_to_point("shuffle-generator", i) for i in range(6)]
    assert len(data["vectors"]) == 2
    previous_outputs = None
    for vector in data["vectors"]:
        n = len(vector["inputs"])
        assert n == 5
        inputs = [(unhex(c1), unhex(c2)) for c1, c2 in vector["inputs"]]
        outputs = check_deck([[unhex(c1), unhex(c2)] for c1, c2 in vector["outputs"]], n, "vector outputs")
        if previous_outputs is None:
            assert inputs == initial_deck(stored_cards)
        else:
            assert inputs == previous_outputs
        raw_proof = {k: unhex(v) if isinstance(v, str) else [unhex(x) for x in v] for k, v in vector["proof"].items()}
        proof = ShuffleProof.from_data(raw_proof, n)
        verify_shuffle_proof(context, joint, inputs, outputs, proof)
        # the stored intermediate values are the ones the statement gives
        statement = statement_digest(context, joint, inputs, outputs, proof.commitments)
        assert statement.hex() == vector["statement_digest"]
        assert [u.hex() for u in challenges(statement, n)[:2]] == vector["u"]
        # output i is input perm[i] re-encrypted with scalar i, and it decrypts to that card
        perm = vector["permutation"]
        assert sorted(perm) == list(range(n)) and perm != list(range(n))
        scalars = [unhex(s) for s in vector["reencryption_scalars"]]
        assert outputs == [reencrypt(inputs[j], s, joint) for j, s in zip(perm, scalars, strict=True)]
        assert [decrypt(c, secret) for c in outputs] == [decrypt(inputs[j], secret) for j in perm]
        assert sorted(decrypt(c, secret) for c in outputs) == sorted(stored_cards)
        # and the stored proof is bound to its statement
        rejects(context + b"x", joint, inputs, outputs, proof)
        rejects(context, joint, inputs, outputs[1:] + outputs[:1], proof)
        previous_outputs = outputs


def test_the_generator_draws_its_randomness_in_the_order_shuffle_and_prove_does():
    generator = load_generator()
    vectors = json.loads(VECTORS.read_text(encoding="utf-8"))["vectors"]
    inputs = initial_deck(cards(5))
    rand = generator.seeded(generator.SEEDS[0])
    outputs, proof = shuffle_and_prove(generator.CONTEXT, base_mul(generator.SECRET), inputs, rand)
    assert [[c1.hex(), c2.hex()] for c1, c2 in outputs] == vectors[0]["outputs"]
    assert generator.proof_hex(proof.to_data()) == vectors[0]["proof"]
