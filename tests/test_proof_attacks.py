"""Attacks on the proofs of the mental-poker crypto (crypto/proofs.py, crypto/shuffle_proof.py).

The first group failed on the code before a review's fix: the proof verifiers of §7.1-7.3
took any indexable value as a proof, so a proof with trailing junk, or a mapping with the
keys 0 and 1, verified, and a mapping without them raised KeyError instead of False (a
DLEQ proof is two points and a scalar since protocol 9).  The
wire decoders (messages.py) build exact tuples, so the session never met either; the
verifiers' own contract (a bool, never an exception) did not hold.

The rest pin attacks that fail today and must keep failing: a point with a small-order
component, made to pass by grinding the challenge to a multiple of 8, with ``check_point``
skipped by the caller (libsodium's scalar multiplication refuses it on its own); unreduced
scalars; torsion in a shuffle proof's points.
"""
from __future__ import annotations

import dataclasses
import random

import pytest

from saboteur_p2p.crypto.group import (
    L,
    add,
    base_mul,
    hash_to_point,
    hash_to_scalar,
    mul,
    sadd,
    scalar_from_int,
    smul,
)
from saboteur_p2p.crypto.proofs import (
    Context,
    _dleq_challenge,
    _dleq_message,
    prove_dleq,
    prove_key,
    seal_share,
    verify_dleq,
    verify_key,
    verify_sealed_share,
)
from saboteur_p2p.crypto.shuffle import ShuffleProofError, initial_deck
from saboteur_p2p.crypto.shuffle_proof import ShuffleProof, shuffle_and_prove, verify_shuffle_proof

#: a point of order 8 (libsodium's blocklist)
ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
CTX = Context(b"\x07" * 32, "share/0/3/all/public", "draw", 2)


def rand_of(seed: int):
    rng = random.Random(seed)
    return lambda n: rng.randbytes(n)


def setup(seed: int = 1):
    x = scalar_from_int(random.Random(seed).randrange(1, L))
    y = scalar_from_int(random.Random(seed + 1).randrange(1, L))
    C1 = hash_to_point("review-c1", seed)
    return x, base_mul(x), y, base_mul(y), C1


# -- a proof is exactly its scalars -----------------------------------------------------------


def test_a_key_proof_with_extra_entries_is_refused():
    x, X, *_ = setup()
    e, s = prove_key(x, X, CTX, rand_of(1))
    assert verify_key(X, (e, s), CTX)
    assert not verify_key(X, (e, s, b"junk"), CTX)
    assert not verify_key(X, {0: e, 1: s}, CTX)


def test_a_dleq_proof_with_extra_entries_is_refused():
    x, X, _, _, C1 = setup()
    D = mul(x, C1)
    A, B, s = prove_dleq(x, X, C1, D, CTX, rand_of(2))
    assert verify_dleq(X, C1, D, (A, B, s), CTX)
    assert verify_dleq(X, C1, D, [A, B, s], CTX)  # as msgpack gives it
    assert not verify_dleq(X, C1, D, (A, B, s, bytes(32)), CTX)
    assert not verify_dleq(X, C1, D, (A, B), CTX)
    assert not verify_dleq(X, C1, D, [A, B, None], CTX)
    assert not verify_dleq(X, C1, D, {0: A, 1: B, 2: s}, CTX)


def test_a_sealed_share_proof_with_extra_entries_is_refused():
    x, X, _, Y, C1 = setup()
    E1, E2, proof = seal_share(x, X, C1, Y, CTX, rand_of(3))
    assert verify_sealed_share(X, C1, Y, E1, E2, proof, CTX)
    assert not verify_sealed_share(X, C1, Y, E1, E2, (*proof, b""), CTX)
    assert not verify_sealed_share(X, C1, Y, E1, E2, dict(enumerate(proof)), CTX)


@pytest.mark.parametrize("proof", [{}, {"e": b"", "s": b""}, {0: b"x"}, set(), 7, "ab", b"\x00" * 64, None, [[]]])
def test_a_proof_of_the_wrong_type_is_false_never_an_exception(proof):
    x, X, _, Y, C1 = setup()
    D = mul(x, C1)
    E1, E2, _ = seal_share(x, X, C1, Y, CTX, rand_of(4))
    assert verify_key(X, proof, CTX) is False
    assert verify_dleq(X, C1, D, proof, CTX) is False
    assert verify_sealed_share(X, C1, Y, E1, E2, proof, CTX) is False


# -- torsion, ground in, with check_point skipped: refused by the group itself ----------------


def _grind(make, tries: int = 200):
    """make(i) -> (e, rest...) for the i-th nonce; the first whose challenge is 0 mod 8."""
    for i in range(tries):
        out = make(i)
        if int.from_bytes(out[0], "little") % 8 == 0:
            return out
    raise AssertionError("no challenge divisible by 8 in 200 tries")


def test_a_decryption_share_with_a_torsion_component_and_a_ground_challenge_is_refused():
    """D' = x*C1 + T, T of order 8: with k = 0 mod 8, B + k*D' = r*C1 + k*x*C1 = s*C1, so the
    proof's half over C1 holds if D' is multiplied as given.  Only the refusal of D' by the
    scalar multiplication stops it."""
    x, X, _, _, C1 = setup()
    D_bad = add(mul(x, C1), ORDER_8)

    def make(i):
        r = hash_to_scalar("review-nonce", i)
        A, B = base_mul(r), mul(r, C1)
        k = _dleq_challenge(A, X, _dleq_message(CTX, C1, D_bad, B))
        return k, A, B, sadd(r, smul(k, x))

    k, A, B, s = _grind(make)
    # a verifier that multiplied D' modulo its torsion (k*T = O, 8 | k) would accept:
    assert mul(s, C1) == add(B, mul(k, mul(x, C1)))
    assert not verify_dleq(X, C1, D_bad, (A, B, s), CTX)


@pytest.mark.parametrize("where", ["A", "B"])
def test_a_dleq_commitment_with_a_torsion_component_is_refused(where):
    """A commitment off the prime-order subgroup, the rest made to fit it: the half it is in
    cannot hold (both sides of the other are in the subgroup)."""
    x, X, _, _, C1 = setup()
    D = mul(x, C1)
    r = hash_to_scalar("review-nonce", 7)
    A, B = base_mul(r), mul(r, C1)
    A, B = (add(A, ORDER_8), B) if where == "A" else (A, add(B, ORDER_8))
    k = _dleq_challenge(A, X, _dleq_message(CTX, C1, D, B))
    assert not verify_dleq(X, C1, D, (A, B, sadd(r, smul(k, x))), CTX)


@pytest.mark.parametrize("where", ["E1", "E2"])
def test_a_sealed_share_with_a_torsion_component_and_a_ground_challenge_is_refused(where):
    x, X, _, Y, C1 = setup()
    k = scalar_from_int(12345)
    E1, E2 = base_mul(k), add(mul(x, C1), mul(k, Y))
    E1, E2 = (add(E1, ORDER_8), E2) if where == "E1" else (E1, add(E2, ORDER_8))

    def make(i):
        a, b = hash_to_scalar("review-a", i), hash_to_scalar("review-b", i)
        A1, A2, A3 = base_mul(a), base_mul(b), add(mul(a, C1), mul(b, Y))
        e = hash_to_scalar("sealed-share", *CTX.parts(), X, C1, Y, E1, E2, A1, A2, A3)
        return e, sadd(a, smul(e, x)), sadd(b, smul(e, k))

    proof = _grind(make)
    assert not verify_sealed_share(X, C1, Y, E1, E2, proof, CTX)


def test_unreduced_scalars_are_refused():
    x, X, _, _, C1 = setup()
    D = mul(x, C1)
    A, B, s = prove_dleq(x, X, C1, D, CTX, rand_of(5))
    plus_l = lambda v: (int.from_bytes(v, "little") + L).to_bytes(32, "little")  # noqa: E731
    assert verify_dleq(X, C1, D, (A, B, s), CTX)
    assert not verify_dleq(X, C1, D, (A, B, plus_l(s)), CTX)
    e, s = prove_key(x, X, CTX, rand_of(6))
    assert not verify_key(X, (e, plus_l(s)), CTX)


def test_a_shuffle_proof_point_with_a_torsion_component_is_refused_even_unchecked():
    """from_data would refuse the point; built directly, the verifier still must not accept."""
    joint = base_mul(scalar_from_int(99))
    deck = initial_deck([hash_to_point("card", i) for i in range(3)])
    outputs, proof = shuffle_and_prove(b"review", joint, deck, rand_of(7))
    verify_shuffle_proof(b"review", joint, deck, outputs, proof)
    for name in ("commitments", "chain"):
        points = list(getattr(proof, name))
        points[1] = add(points[1], ORDER_8)
        with pytest.raises(ShuffleProofError):
            verify_shuffle_proof(b"review", joint, deck, outputs, dataclasses.replace(proof, **{name: tuple(points)}))
    bad_out = [outputs[0], (add(outputs[1][0], ORDER_8), outputs[1][1]), outputs[2]]
    with pytest.raises(ShuffleProofError):
        verify_shuffle_proof(b"review", joint, deck, bad_out, proof)
    with pytest.raises(ShuffleProofError):
        ShuffleProof.from_data({**proof.to_data(), "chain": [add(p, ORDER_8) for p in proof.chain]}, 3)


# -- hashing: typed, length-prefixed parts never collide ----------------------------------------


def test_the_hash_encoding_keeps_parts_apart():
    from saboteur_p2p.crypto.group import hash_bytes

    pairs = [
        (("ab", "c"), ("a", "bc")),
        ((b"", b"x"), (b"x", b"")),
        ((b"x",), (b"x", b"")),
        ((1,), ("1",)),
        ((1,), (b"1",)),
        (("1",), (b"1",)),
        ((12, 3), (1, 23)),
        ((-1,), ("-1",)),
    ]
    for a, b in pairs:
        assert hash_bytes("t", *a) != hash_bytes("t", *b), (a, b)
    assert hash_bytes("a", "b") != hash_bytes("ab")  # the tag is one part of its own


# -- the shuffle verifier's precondition: check_deck is what refuses a card left in the clear ---


def test_an_unencrypted_output_deck_is_refused_as_a_bad_point():
    """Shuffler 0 permuting the initial deck without re-encrypting it (s_i = 0, every C1 the
    identity) makes a proof whose equations hold: the statement is true, re-encryption by 0 is
    one.  What refuses it is the identity, no valid point (§2.2): the proof check multiplies
    every output point with the check (``checked_mul``), and ``invalid_point`` (as check_deck)
    names it, so read_shuffle calls it a malformed record (§6.7)."""
    from saboteur_p2p.crypto.group import IDENTITY
    from saboteur_p2p.crypto.shuffle import check_deck
    from saboteur_p2p.crypto.shuffle_proof import apply_plan, generators, invalid_point, plan_shuffle, prove_shuffle

    joint = base_mul(scalar_from_int(99))
    deck = initial_deck([hash_to_point("card", i) for i in range(3)])
    plan = plan_shuffle(3, joint, rand_of(8))
    _, hs = generators(3)
    plan.perm, plan.scalars, plan.pads = [2, 0, 1], [bytes(32)] * 3, [(IDENTITY, IDENTITY)] * 3
    plan.commitments = [IDENTITY] * 3
    for i, j in enumerate(plan.perm):
        plan.commitments[j] = add(base_mul(plan.randomness[j]), hs[i])
    outputs = apply_plan(plan, deck)
    assert [c[0] for c in outputs] == [IDENTITY] * 3
    proof = prove_shuffle(plan, b"review", deck, outputs, rand_of(9))
    with pytest.raises(ShuffleProofError, match="does not compute"):
        verify_shuffle_proof(b"review", joint, deck, outputs, proof)
    assert "not a valid point" in (invalid_point(outputs, proof, "output") or "")
    with pytest.raises(ShuffleProofError):
        check_deck(outputs, 3, "output")
