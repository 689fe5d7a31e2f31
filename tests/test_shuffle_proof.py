"""The Terelius-Wikstrom proof of a shuffle (crypto/shuffle_proof.py, protocol.md 7.4).

Completeness: an honest shuffle of an initial deck (every C1 the identity) or of an already
shuffled deck proves and verifies, for 1 to 128 cards, and the proof survives the wire
(to_data / msgpack / from_data).  Soundness: every way of tampering with the output deck, the
statement or the proof makes verify_shuffle_proof raise ShuffleProofError, and a proof the
prover computes honestly over a tampered output fails too.  Malformed wire data: from_data
raises ShuffleProofError, never another exception.  The test vectors: test_shuffle_vectors.py.
"""
from __future__ import annotations

import dataclasses
import random
from functools import cache
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nacl.bindings import crypto_core_ed25519_is_valid_point as is_valid_point

from saboteur_p2p.crypto import group
from saboteur_p2p.crypto.group import (
    IDENTITY,
    G,
    L,
    Point,
    Scalar,
    add,
    base_mul,
    check_point,
    hash_to_point,
    mul,
    random_scalar,
    scalar_from_int,
    sub,
)
from saboteur_p2p.crypto.shuffle import Ciphertext, ShuffleProofError, check_deck, initial_deck, reencrypt
from saboteur_p2p.crypto.shuffle_proof import (
    MAX_CARDS,
    ShufflePlan,
    ShuffleProof,
    apply_plan,
    challenges,
    generators,
    plan_shuffle,
    prove_shuffle,
    shuffle_and_prove,
    statement_digest,
    verify_shuffle_proof,
)

P = 2**255 - 19
SECRET = scalar_from_int(0x7E2E11)
JOINT = base_mul(SECRET)
CONTEXT = b"game 1 / batch 0 / seat 2 / deck 0"
FIELDS = ("commitments", "chain", "challenge", "responses", "chain_responses", "permuted_responses")

# Encodings check_point must refuse: not on the curve, non-canonical, and the eight points of
# small order (libsodium's list), the identity among them.
OFF_CURVE = (2).to_bytes(32, "little")  # no point of the curve has y = 2
NON_CANONICAL = (P + 1).to_bytes(32, "little")  # y = 1 written as p + 1
ORDER_2 = (P - 1).to_bytes(32, "little")  # (0, -1)
SMALL_ORDER = [
    IDENTITY,
    ORDER_2,
    bytes(32),  # order 4, y = 0
    bytes(31) + b"\x80",  # order 4, y = 0 with the sign bit
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"),  # order 8
    bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa"),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05"),
    bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85"),
]
MIXED_ORDER = add(G, ORDER_2)  # on the curve, but outside the prime-order subgroup
BAD_POINTS = [OFF_CURVE, NON_CANONICAL, MIXED_ORDER, *SMALL_ORDER]
BAD_SCALARS = [L.to_bytes(32, "little"), (L + 1).to_bytes(32, "little"), (2**256 - 1).to_bytes(32, "little")]


def rand_of(seed: int):
    rng = random.Random(seed)
    return rng.randbytes


def tamper_rng(seed: int) -> random.Random:
    """Randomness for a tampering, independent of the shuffler's ``rand_of(seed)``."""
    return random.Random(seed + 2**40)


def cards(n: int) -> list[Point]:
    return [hash_to_point("card", i) for i in range(n)]


def decrypt(c: Ciphertext, secret: Scalar = SECRET) -> Point:
    return c[1] if c[0] == IDENTITY else sub(c[1], mul(secret, c[0]))


def encrypt(m: Point, r: Scalar) -> Ciphertext:
    return base_mul(r), add(m, mul(r, JOINT))


def input_deck(n: int, shuffled: bool, seed: int = 0) -> list[Ciphertext]:
    """An initial deck (identity C1), or one that has been shuffled once already."""
    deck = initial_deck(cards(n))
    if shuffled:
        deck, _ = shuffle_and_prove(b"an earlier shuffle", JOINT, deck, rand_of(seed ^ 0x5EED))
    return deck


def honest(n: int, shuffled: bool, seed: int, context: bytes = CONTEXT):
    inputs = input_deck(n, shuffled, seed)
    rand = rand_of(seed)
    plan = plan_shuffle(n, JOINT, rand)
    outputs = apply_plan(plan, inputs)
    proof = prove_shuffle(plan, context, inputs, outputs, rand)
    return inputs, outputs, proof, plan


@cache
def small_honest() -> tuple[list[Ciphertext], list[Ciphertext], ShuffleProof]:
    inputs, outputs, proof, _ = honest(3, True, 7)
    return inputs, outputs, proof


def rejects(context: bytes, joint: Point, inputs, outputs, proof: ShuffleProof) -> None:
    with pytest.raises(ShuffleProofError):
        verify_shuffle_proof(context, joint, inputs, outputs, proof)


def through_msgpack(data: Any) -> Any:
    return msgpack.unpackb(msgpack.packb(data, use_bin_type=True), raw=False)


# -- completeness ---------------------------------------------------------------------------


@pytest.mark.parametrize("shuffled", [False, True], ids=["initial-deck", "shuffled-deck"])
@pytest.mark.parametrize("n", [1, 2, 3, 28, 67, 128])
def test_an_honest_proof_verifies_and_survives_the_wire(n, shuffled):
    inputs, outputs, proof, plan = honest(n, shuffled, seed=n)
    assert all(c1 == IDENTITY for c1, _ in inputs) is not shuffled
    verify_shuffle_proof(CONTEXT, JOINT, inputs, outputs, proof)
    # the output really is the input permuted by plan.perm and re-encrypted: same cards, fresh C1s
    assert sorted(plan.perm) == list(range(n))
    assert [decrypt(c) for c in outputs] == [decrypt(inputs[j]) for j in plan.perm]
    assert all(out[0] != inputs[j][0] for out, j in zip(outputs, plan.perm, strict=True))
    assert check_deck(outputs, n, "output") == outputs
    # every field has the size the wire check expects
    assert len(proof.commitments) == len(proof.chain) == len(proof.chain_responses) == len(proof.permuted_responses) == n
    data = proof.to_data()
    assert sorted(data) == sorted(FIELDS)
    assert ShuffleProof.from_data(data, n) == proof
    wire = through_msgpack(data)
    assert ShuffleProof.from_data(wire, n) == proof
    # an initial deck's identity C1 is never a checked point, so only the output goes through check_deck
    wire_inputs = [(c1, c2) for c1, c2 in through_msgpack(inputs)]
    wire_outputs = check_deck(through_msgpack(outputs), n, "output")
    verify_shuffle_proof(CONTEXT, JOINT, wire_inputs, wire_outputs, ShuffleProof.from_data(wire, n))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 9), shuffled=st.booleans(), seed=st.integers(0, 2**32), context=st.binary(max_size=40))
def test_an_honest_proof_verifies_for_any_randomness_and_context(n, shuffled, seed, context):
    inputs, outputs, proof, _ = honest(n, shuffled, seed, context)
    verify_shuffle_proof(context, JOINT, inputs, outputs, proof)


@pytest.mark.parametrize("n", [1, 5])
def test_shuffle_and_prove_is_the_plan_made_ahead_in_one_go(n):
    inputs, outputs, proof, _ = honest(n, True, seed=99)
    again_outputs, again_proof = shuffle_and_prove(CONTEXT, JOINT, inputs, rand_of(99))
    assert (again_outputs, again_proof) == (outputs, proof)
    verify_shuffle_proof(CONTEXT, JOINT, inputs, again_outputs, again_proof)


def test_a_plan_is_made_before_the_input_is_known_and_fits_any_deck_of_its_size():
    plan = plan_shuffle(4, JOINT, rand_of(3))
    for seed in (1, 2):
        inputs = input_deck(4, True, seed)
        outputs = apply_plan(plan, inputs)
        verify_shuffle_proof(CONTEXT, JOINT, inputs, outputs, prove_shuffle(plan, CONTEXT, inputs, outputs, rand_of(seed)))
    with pytest.raises(ValueError, match="shuffles 4 cards"):
        apply_plan(plan, input_deck(5, False))


def test_the_generators_and_challenges_are_the_documented_hashes():
    h, hs = generators(3)
    assert [h, *hs] == [hash_to_point("shuffle-generator", i) for i in range(4)]
    assert len(set(generators(MAX_CARDS)[1])) == MAX_CARDS
    for bad in (0, -1, MAX_CARDS + 1):
        with pytest.raises(ShuffleProofError):
            generators(bad)
    inputs, outputs, proof = small_honest()
    statement = statement_digest(CONTEXT, JOINT, inputs, outputs, proof.commitments)
    assert len(statement) == 64
    u = challenges(statement, 3)
    assert len(set(u)) == 3
    assert challenges(statement, 2) == u[:2]
    assert statement_digest(CONTEXT + b"!", JOINT, inputs, outputs, proof.commitments) != statement


# -- soundness: a tampered output deck ------------------------------------------------------

OUTPUT_TAMPERS = ["other-card", "duplicate", "foreign-card", "reencrypted-again", "swap", "c1", "c2"]


def tamper_outputs(kind: str, inputs: list[Ciphertext], outputs: list[Ciphertext], rng: random.Random) -> list[Ciphertext]:
    """A copy of ``outputs`` with one card changed as ``kind`` says (n >= 2)."""
    n = len(outputs)
    k, j = rng.sample(range(n), 2)
    r = random_scalar(rng.randbytes)
    bad = list(outputs)
    if kind == "other-card":  # card k dropped, replaced by a fresh encryption of the card at j
        bad[k] = encrypt(decrypt(outputs[j]), r)
    elif kind == "duplicate":  # card k replaced by a re-encryption of card j
        bad[k] = reencrypt(outputs[j], r, JOINT)
    elif kind == "foreign-card":  # card k replaced by a card that is not in the deck
        bad[k] = encrypt(hash_to_point("not-a-card", rng.getrandbits(32)), r)
    elif kind == "reencrypted-again":  # the same card, with a re-encryption the proof does not cover
        bad[k] = reencrypt(outputs[k], r, JOINT)
    elif kind == "swap":
        bad[k], bad[j] = outputs[j], outputs[k]
    elif kind == "c1":
        bad[k] = (base_mul(r), outputs[k][1])
    elif kind == "c2":
        bad[k] = (outputs[k][0], base_mul(r))
    else:
        raise AssertionError(kind)
    assert bad != outputs
    plain, bad_plain = sorted(decrypt(c) for c in outputs), sorted(decrypt(c) for c in bad)
    # the first three change which cards the deck holds; the others keep them but not the ciphertexts
    assert (plain != bad_plain) is (kind in ("other-card", "duplicate", "foreign-card", "c1", "c2"))
    return bad


@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(OUTPUT_TAMPERS), n=st.integers(2, 7), shuffled=st.booleans(), seed=st.integers(0, 2**32))
def test_a_tampered_output_deck_is_rejected(kind, n, shuffled, seed):
    inputs, outputs, proof, plan = honest(n, shuffled, seed)
    bad = tamper_outputs(kind, inputs, outputs, tamper_rng(seed))
    # the honest proof of the real output does not cover the tampered one ...
    rejects(CONTEXT, JOINT, inputs, bad, proof)
    # ... and the prover cannot prove the tampered one with its plan either
    rejects(CONTEXT, JOINT, inputs, bad, prove_shuffle(plan, CONTEXT, inputs, bad, rand_of(seed + 1)))


def test_every_output_tamper_is_rejected_on_a_full_deck():
    inputs, outputs, proof, plan = honest(67, True, seed=5)
    rng = tamper_rng(5)
    for kind in OUTPUT_TAMPERS:
        bad = tamper_outputs(kind, inputs, outputs, rng)
        rejects(CONTEXT, JOINT, inputs, bad, proof)
        rejects(CONTEXT, JOINT, inputs, bad, prove_shuffle(plan, CONTEXT, inputs, bad, rng.randbytes))


def test_a_one_card_deck_with_another_card_or_re_encryption_is_rejected():
    inputs, outputs, proof, plan = honest(1, False, seed=11)
    for bad in ([encrypt(hash_to_point("card", 1), scalar_from_int(5))], [reencrypt(outputs[0], scalar_from_int(5), JOINT)]):
        rejects(CONTEXT, JOINT, inputs, bad, proof)
        rejects(CONTEXT, JOINT, inputs, bad, prove_shuffle(plan, CONTEXT, inputs, bad, rand_of(12)))


# -- soundness: another statement ------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(["context", "joint", "inputs-other-deck", "inputs-swap", "inputs-reencrypted"]),
       n=st.integers(2, 6), shuffled=st.booleans(), seed=st.integers(0, 2**32))
def test_a_proof_does_not_verify_for_another_statement(kind, n, shuffled, seed):
    inputs, outputs, proof, _ = honest(n, shuffled, seed)
    rng = tamper_rng(seed)
    context, joint, other_inputs = CONTEXT, JOINT, list(inputs)
    if kind == "context":
        context = CONTEXT + bytes([rng.randrange(256)])
    elif kind == "joint":
        joint = base_mul(random_scalar(rng.randbytes))
    elif kind == "inputs-other-deck":  # the same number of cards, other cards
        other_inputs = initial_deck([hash_to_point("other-card", i) for i in range(n)])
    elif kind == "inputs-swap":
        k, j = rng.sample(range(n), 2)
        other_inputs[k], other_inputs[j] = inputs[j], inputs[k]
    else:
        k = rng.randrange(n)
        other_inputs[k] = reencrypt(inputs[k], random_scalar(rng.randbytes), JOINT)
    rejects(context, joint, other_inputs, outputs, proof)


def test_a_proof_is_bound_to_its_context_byte_for_byte():
    inputs, outputs, proof = small_honest()
    for context in (b"", CONTEXT[:-1], CONTEXT + b"\x00", CONTEXT.upper()):
        rejects(context, JOINT, inputs, outputs, proof)


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 6), shuffled=st.booleans(), seed=st.integers(0, 2**32))
def test_a_proof_transplanted_from_another_honest_shuffle_of_the_same_input_is_rejected(n, shuffled, seed):
    inputs = input_deck(n, shuffled, seed)
    outputs_a, proof_a = shuffle_and_prove(CONTEXT, JOINT, inputs, rand_of(seed))
    outputs_b, proof_b = shuffle_and_prove(CONTEXT, JOINT, inputs, rand_of(seed + 1))
    verify_shuffle_proof(CONTEXT, JOINT, inputs, outputs_a, proof_a)
    verify_shuffle_proof(CONTEXT, JOINT, inputs, outputs_b, proof_b)
    rejects(CONTEXT, JOINT, inputs, outputs_a, proof_b)
    rejects(CONTEXT, JOINT, inputs, outputs_b, proof_a)


# -- soundness: one field of the proof altered ----------------------------------------------

POINT_FIELDS = ("commitments", "chain")
SCALAR_LIST_FIELDS = ("responses", "chain_responses", "permuted_responses")


def proof_slots(n: int) -> list[tuple[str, int | None]]:
    """Every single value of an n-card proof: (field, index), index None for the challenge."""
    slots: list[tuple[str, int | None]] = [("challenge", None)]
    for name in (*POINT_FIELDS, "chain_responses", "permuted_responses"):
        slots += [(name, i) for i in range(n)]
    slots += [("responses", i) for i in range(4)]
    return slots


def altered(proof: ShuffleProof, name: str, index: int | None, value: bytes) -> ShuffleProof:
    if index is None:
        return dataclasses.replace(proof, **{name: value})
    items = list(getattr(proof, name))
    items[index] = value
    return dataclasses.replace(proof, **{name: tuple(items)})


def replacement(proof: ShuffleProof, name: str, index: int | None, how: str, rng: random.Random) -> bytes:
    """A different valid point or canonical scalar for the slot."""
    old = getattr(proof, name) if index is None else getattr(proof, name)[index]
    if name in POINT_FIELDS:
        choices = {
            "random": lambda: base_mul(random_scalar(rng.randbytes)),
            "G": lambda: G,
            "other-slot": lambda: rng.choice([p for p in proof.commitments + proof.chain if p != old] or [G]),
            "plus-G": lambda: add(old, G),
        }
    else:
        choices = {
            "random": lambda: random_scalar(rng.randbytes),
            "zero": lambda: bytes(32),
            "one": lambda: scalar_from_int(1),
            "other-slot": lambda: rng.choice([s for s in (proof.challenge, *proof.responses) if s != old] or [bytes(32)]),
            "plus-one": lambda: scalar_from_int(int.from_bytes(old, "little") + 1),
            "minus-one": lambda: scalar_from_int(int.from_bytes(old, "little") - 1),
        }
    value = choices.get(how, choices["random"])()
    assert value != old
    return value


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), shuffled=st.booleans(), seed=st.integers(0, 2**32), pick=st.integers(0, 10**6),
       how=st.sampled_from(["random", "G", "other-slot", "plus-G", "zero", "one", "plus-one", "minus-one"]))
def test_any_single_field_of_the_proof_altered_is_rejected(n, shuffled, seed, pick, how):
    inputs, outputs, proof, _ = honest(n, shuffled, seed)
    slots = proof_slots(n)
    name, index = slots[pick % len(slots)]
    bad = altered(proof, name, index, replacement(proof, name, index, how, tamper_rng(seed)))
    # still well-formed on the wire, but it does not verify
    assert ShuffleProof.from_data(through_msgpack(bad.to_data()), n) == bad
    rejects(CONTEXT, JOINT, inputs, outputs, bad)


def test_every_single_field_of_a_proof_altered_is_rejected():
    inputs, outputs, proof, _ = honest(4, True, seed=21)
    rng = tamper_rng(21)
    for name, index in proof_slots(4):
        for how in ("random", "other-slot", "zero", "plus-G", "plus-one"):
            rejects(CONTEXT, JOINT, inputs, outputs, altered(proof, name, index, replacement(proof, name, index, how, rng)))


def test_fields_swapped_between_two_honest_proofs_are_rejected():
    inputs, outputs, proof, _ = honest(3, True, seed=31)
    _, other = shuffle_and_prove(CONTEXT, JOINT, inputs, rand_of(32))
    for name in FIELDS:
        rejects(CONTEXT, JOINT, inputs, outputs, dataclasses.replace(proof, **{name: getattr(other, name)}))


@pytest.mark.parametrize("challenge_zero", [True, False])
@pytest.mark.parametrize("responses_zero", [True, False])
def test_degenerate_values_that_make_the_verifier_meet_the_identity_are_rejected(challenge_zero, responses_zero):
    """Commitments H_i (so that their sum less the generators' is the identity), a last chain entry
    (prod u)*H (so that c_hat is the identity), zero challenge and responses: valid on the wire, and
    the verifier must say ShuffleProofError, not fail computing with the identity."""
    n = 3
    inputs, outputs, proof, _ = honest(n, False, seed=41)  # an initial deck: the input's C1 sum is the identity too
    h, hs = generators(n)
    u = challenges(statement_digest(CONTEXT, JOINT, inputs, outputs, hs), n)
    product = scalar_from_int(u_int(u[0]) * u_int(u[1]) * u_int(u[2]))
    zero = bytes(32)
    bad = dataclasses.replace(
        proof, commitments=hs, chain=(*proof.chain[:-1], mul(product, h)), challenge=zero if challenge_zero else proof.challenge,
        responses=(zero,) * 4 if responses_zero else proof.responses,
        chain_responses=(zero,) * n if responses_zero else proof.chain_responses,
        permuted_responses=(zero,) * n if responses_zero else proof.permuted_responses,
    )
    assert sub(bad.chain[-1], mul(product, h)) == IDENTITY  # c_hat is the identity indeed
    assert ShuffleProof.from_data(through_msgpack(bad.to_data()), n) == bad
    rejects(CONTEXT, JOINT, inputs, outputs, bad)


def test_the_input_deck_handed_back_as_the_output_is_rejected():
    for shuffled in (False, True):
        inputs, _, proof, plan = honest(3, shuffled, seed=43)
        rejects(CONTEXT, JOINT, inputs, inputs, proof)
        rejects(CONTEXT, JOINT, inputs, inputs, prove_shuffle(plan, CONTEXT, inputs, inputs, rand_of(44)))


def u_int(s: Scalar) -> int:
    return int.from_bytes(s, "little")


def test_lengths_that_do_not_match_the_deck_are_rejected():
    inputs, outputs, proof = small_honest()
    rejects(CONTEXT, JOINT, inputs, outputs[:2], proof)
    rejects(CONTEXT, JOINT, inputs[:2], outputs[:2], proof)
    rejects(CONTEXT, JOINT, [*inputs, inputs[0]], [*outputs, outputs[0]], proof)
    for name in ("commitments", "chain", "chain_responses", "permuted_responses"):
        rejects(CONTEXT, JOINT, inputs, outputs, dataclasses.replace(proof, **{name: getattr(proof, name)[:2]}))
        rejects(CONTEXT, JOINT, inputs, outputs, dataclasses.replace(proof, **{name: getattr(proof, name) * 2}))
    empty = dataclasses.replace(proof, commitments=(), chain=(), chain_responses=(), permuted_responses=())
    rejects(CONTEXT, JOINT, [], [], empty)
    big = input_deck(MAX_CARDS + 1, False)
    rejects(CONTEXT, JOINT, big, big, proof)


# -- malformed proofs on the wire -----------------------------------------------------------


def malformed_cases() -> list[tuple[str, Any]]:
    """(id, how to break the data): a function of the good data (n = 3) returning the bad."""
    cases: list[tuple[str, Any]] = []

    def with_(name: str, value: Any):
        return lambda d: {**d, name: value}

    def entry(name: str, index: int, value: Any):
        def f(d):
            items = list(d[name])
            items[index] = value
            return {**d, name: items}
        return f

    cases += [
        ("not-a-map-list", lambda d: list(d.values())),
        ("not-a-map-none", lambda d: None),
        ("not-a-map-bytes", lambda d: b"proof"),
        ("empty-map", lambda d: {}),
        ("missing-key", lambda d: {k: v for k, v in d.items() if k != "chain"}),
        ("extra-key", lambda d: {**d, "extra": b""}),
        ("renamed-key", lambda d: {("chains" if k == "chain" else k): v for k, v in d.items()}),
        ("bytes-keys", lambda d: {k.encode(): v for k, v in d.items()}),
        ("int-keys", lambda d: dict(enumerate(d.values()))),
    ]
    lists = {"commitments": 3, "chain": 3, "responses": 4, "chain_responses": 3, "permuted_responses": 3}
    for name, count in lists.items():
        cases += [
            (f"{name}-short", lambda d, name=name: {**d, name: d[name][:-1]}),
            (f"{name}-long", lambda d, name=name: {**d, name: [*d[name], d[name][0]]}),
            (f"{name}-empty", with_(name, [])),
            (f"{name}-bytes", lambda d, name=name: {**d, name: b"".join(d[name])}),
            (f"{name}-str", with_(name, "x" * count)),
            (f"{name}-map", lambda d, name=name: {**d, name: dict(enumerate(d[name]))}),
            (f"{name}-none", with_(name, None)),
        ]
        last = count - 1
        for label, value in [("str", "00" * 32), ("int", 7), ("none", None), ("bytearray", bytearray(32)),
                             ("list", [0] * 32), ("31-bytes", bytes(31)), ("33-bytes", bytes(33)), ("empty", b"")]:
            cases.append((f"{name}-{label}-entry", entry(name, last, value)))
    cases += [(f"challenge-{label}", with_("challenge", value))
              for label, value in [("str", "00" * 32), ("int", 0), ("none", None), ("list", [bytes(32)]), ("31-bytes", bytes(31)),
                                   ("33-bytes", bytes(33)), ("bytearray", bytearray(32))]]
    for i, bad in enumerate(BAD_SCALARS):
        cases.append((f"challenge-noncanonical-{i}", with_("challenge", bad)))
        for name in ("responses", "chain_responses", "permuted_responses"):
            cases.append((f"{name}-noncanonical-{i}", entry(name, i % 3, bad)))
    for i, bad in enumerate(BAD_POINTS):
        for name in POINT_FIELDS:
            cases.append((f"{name}-bad-point-{i}", entry(name, i % 3, bad)))
    return cases


MALFORMED = malformed_cases()


@pytest.mark.parametrize("breaker", [b for _, b in MALFORMED], ids=[i for i, _ in MALFORMED])
def test_a_malformed_proof_raises_shuffle_proof_error(breaker):
    _, _, proof = small_honest()
    bad = breaker(proof.to_data())
    with pytest.raises(ShuffleProofError):
        ShuffleProof.from_data(bad, 3)


def test_the_bad_points_really_are_refused_by_check_point():
    for bad in BAD_POINTS:
        with pytest.raises(ValueError):
            check_point(bad)
    assert check_point(G) == G


def test_check_point_remembers_only_the_points_it_accepted(monkeypatch):
    """Seats in one process check a point once; a bad point is checked, and refused, every time."""
    checked: list[bytes] = []

    def counting(data: bytes) -> bool:
        checked.append(data)
        return is_valid_point(data)

    monkeypatch.setattr(group, "crypto_core_ed25519_is_valid_point", counting)
    fresh = base_mul(random_scalar())
    assert check_point(fresh) == check_point(fresh) == fresh
    for _ in range(2):
        for bad in BAD_POINTS:
            with pytest.raises(ValueError):
                check_point(bad)
    assert checked.count(fresh) == 1
    assert all(checked.count(bad) == 2 for bad in BAD_POINTS)
    # a benchmark of each seat's own work checks every time
    group.remember_checks(False)
    try:
        check_point(fresh)
        check_point(fresh)
    finally:
        group.remember_checks(True)
    assert checked.count(fresh) == 3


def test_a_proof_for_another_deck_size_is_malformed():
    _, _, proof = small_honest()
    for n in (2, 4):
        with pytest.raises(ShuffleProofError):
            ShuffleProof.from_data(proof.to_data(), n)


@pytest.mark.parametrize("other_key", [b"chain", 1, None], ids=["bytes", "int", "none"])
def test_a_map_with_keys_of_mixed_types_raises_shuffle_proof_error(other_key):
    _, _, proof = small_honest()
    data: dict[Any, Any] = proof.to_data()
    data[other_key] = data.pop("chain")
    if isinstance(other_key, bytes):  # the shape really can come off the wire
        data = through_msgpack(data)
    with pytest.raises(ShuffleProofError):
        ShuffleProof.from_data(data, 3)


wire_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**64), 2**64) | st.binary(max_size=40) | st.text(max_size=8) | st.floats(),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=4), children, max_size=3),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None)
@given(replacements=st.dictionaries(st.sampled_from(FIELDS), wire_values, min_size=1),
       entries=st.lists(st.tuples(st.sampled_from(FIELDS), st.integers(0, 3), wire_values), max_size=3))
def test_arbitrary_wire_values_in_the_fields_raise_only_shuffle_proof_error(replacements, entries):
    _, _, proof = small_honest()
    data: dict[str, Any] = {k: list(v) if isinstance(v, tuple) else v for k, v in proof.to_data().items()}
    for name, index, value in entries:
        if isinstance(data[name], list) and index < len(data[name]):
            data[name][index] = value
    data.update(replacements)
    try:
        parsed = ShuffleProof.from_data(through_msgpack(data) if _packable(data) else data, 3)
    except ShuffleProofError:
        return
    # if it parsed, it parsed into exactly the good proof (a replacement can equal the original)
    assert parsed == proof


def _packable(data: Any) -> bool:
    try:
        msgpack.packb(data, use_bin_type=True)
    except (TypeError, ValueError, OverflowError):
        return False
    return True


def test_plan_type_is_what_the_module_exports():
    plan = plan_shuffle(2, JOINT, rand_of(1))
    assert isinstance(plan, ShufflePlan)
    assert len(plan.pads) == len(plan.scalars) == len(plan.randomness) == len(plan.commitments) == 2
    assert plan.pads == [(base_mul(s), mul(s, JOINT)) for s in plan.scalars]
