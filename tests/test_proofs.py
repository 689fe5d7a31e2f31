"""Schnorr, Chaum-Pedersen and sealed-share proofs (crypto/proofs.py), as properties.

A proof made for one statement and context verifies for exactly that one: change any
point of the statement, or the session, step, deck or prover it is bound to, and it
fails.  Random bytes and invalid points never verify, and verifying never raises.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from saboteur_p2p.crypto.group import IDENTITY, G, L, add, base_mul, hash_to_point, mul, scalar_from_int
from saboteur_p2p.crypto.proofs import (
    Context,
    open_sealed_share,
    prove_dleq,
    prove_key,
    seal_share,
    verify_dleq,
    verify_key,
    verify_sealed_share,
)

P = 2**255 - 19
ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
#: the identity, small-order points, a y off the curve, a non-canonical encoding, a point
#: of mixed order, and byte strings of the wrong length
BAD_POINTS = [
    IDENTITY, bytes(32), (P - 1).to_bytes(32, "little"), ORDER_8, (2).to_bytes(32, "little"),
    (P + 1).to_bytes(32, "little"), add(G, ORDER_8), b"", b"\x01" * 31,
]

scalars = st.integers(1, L - 1).map(scalar_from_int)
points = st.integers(0, 2**64).map(lambda i: hash_to_point("proof-test", i))
contexts = st.builds(Context, st.binary(min_size=32, max_size=32), st.text(max_size=10), st.text(max_size=6), st.integers(0, 11))
seeds = st.integers(0, 2**32)
bytes32 = st.binary(min_size=32, max_size=32)
junk = st.one_of(bytes32, st.binary(max_size=40), st.none(), st.integers(), st.just(scalar_from_int(0)))


def rand_of(seed: int):
    rng = random.Random(seed)
    return lambda n: rng.randbytes(n)


def other_context(ctx: Context, field: str, data: st.DataObject) -> Context:
    current = getattr(ctx, field)
    new: Any
    if field == "session":
        new = data.draw(bytes32.filter(lambda b: b != current))
    elif field == "prover":
        new = data.draw(st.integers(0, 11).filter(lambda p: p != current))
    else:
        new = data.draw(st.text(max_size=10).filter(lambda t: t != current))
    return dataclasses.replace(ctx, **{field: new})


context_fields = st.sampled_from(["session", "step", "deck", "prover"])


# -- Schnorr proof of knowledge ------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(x=scalars, ctx=contexts, seed=seeds, data=st.data())
def test_a_key_proof_verifies_for_its_key_and_context_only(x, ctx, seed, data):
    X = base_mul(x)
    proof = prove_key(x, X, ctx, rand_of(seed))
    assert verify_key(X, proof, ctx)
    other = data.draw(scalars.filter(lambda y: y != x), label="other key")
    assert not verify_key(base_mul(other), proof, ctx)
    assert not verify_key(add(X, G), proof, ctx)  # a rogue key built from X
    assert not verify_key(X, proof, other_context(ctx, data.draw(context_fields), data))


@settings(max_examples=60, deadline=None)
@given(x=scalars, ctx=contexts, e=junk, s=junk, bad=st.sampled_from(BAD_POINTS))
def test_random_bytes_and_invalid_points_never_verify_as_a_key_proof(x, ctx, e, s, bad):
    X = base_mul(x)
    assert not verify_key(X, (e, s), ctx)  # type: ignore[arg-type]
    assert not verify_key(X, (e,), ctx)  # type: ignore[arg-type]
    assert not verify_key(bad, prove_key(x, X, ctx, rand_of(0)), ctx)


# -- Chaum-Pedersen equality of discrete logarithms --------------------------------------------


@settings(max_examples=60, deadline=None)
@given(x=scalars, H=points, ctx=contexts, seed=seeds, data=st.data())
def test_a_dleq_proof_verifies_for_its_statement_and_context_only(x, H, ctx, seed, data):
    X, Y = base_mul(x), mul(x, H)
    proof = prove_dleq(x, X, H, Y, ctx, rand_of(seed))
    assert verify_dleq(X, H, Y, proof, ctx)
    other = data.draw(points.filter(lambda p: p not in (X, H, Y)), label="other point")
    assert not verify_dleq(other, H, Y, proof, ctx)
    assert not verify_dleq(X, other, Y, proof, ctx)
    assert not verify_dleq(X, H, other, proof, ctx)
    assert not verify_dleq(X, other, mul(x, other), proof, ctx)  # a true statement, but another one
    assert not verify_dleq(X, H, Y, proof, other_context(ctx, data.draw(context_fields), data))


@settings(max_examples=40, deadline=None)
@given(x=scalars, y=scalars, H=points, ctx=contexts, seed=seeds)
def test_no_dleq_proof_for_a_false_statement_verifies(x, y, H, ctx, seed):
    """A share y*H proven with the key X = xG: the prover's own proof for it fails."""
    if x == y:
        return
    X, wrong = base_mul(x), mul(y, H)
    assert not verify_dleq(X, H, wrong, prove_dleq(x, X, H, wrong, ctx, rand_of(seed)), ctx)


@settings(max_examples=60, deadline=None)
@given(x=scalars, H=points, ctx=contexts, e=junk, s=junk, bad=st.sampled_from(BAD_POINTS), where=st.integers(0, 2))
def test_random_bytes_and_invalid_points_never_verify_as_a_dleq_proof(x, H, ctx, e, s, bad, where):
    X, Y = base_mul(x), mul(x, H)
    assert not verify_dleq(X, H, Y, (e, s), ctx)  # type: ignore[arg-type]
    assert not verify_dleq(X, H, Y, (e, s, s), ctx)  # type: ignore[arg-type]
    A, B, s_ = prove_dleq(x, X, H, Y, ctx, rand_of(0))
    assert not verify_dleq(X, H, Y, (bad, B, s_), ctx)
    assert not verify_dleq(X, H, Y, (A, bad, s_), ctx)
    statement = [X, H, Y]
    statement[where] = bad
    assert not verify_dleq(*statement, prove_dleq(x, X, H, Y, ctx, rand_of(0)), ctx)


# -- sealed decryption shares ---------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(x=scalars, y=scalars, z=scalars, C1=points, ctx=contexts, seed=seeds)
def test_a_sealed_share_opens_to_the_decryption_share_for_its_recipient_only(x, y, z, C1, ctx, seed):
    X, R = base_mul(x), base_mul(y)
    E1, E2, proof = seal_share(x, X, C1, R, ctx, rand_of(seed))
    assert verify_sealed_share(X, C1, R, E1, E2, proof, ctx)
    assert open_sealed_share(y, E1, E2) == mul(x, C1)
    if z != y:
        assert open_sealed_share(z, E1, E2) != mul(x, C1)


@settings(max_examples=60, deadline=None)
@given(x=scalars, y=scalars, C1=points, ctx=contexts, seed=seeds, data=st.data())
def test_a_sealed_share_proof_verifies_for_its_statement_and_context_only(x, y, C1, ctx, seed, data):
    X, R = base_mul(x), base_mul(y)
    E1, E2, proof = seal_share(x, X, C1, R, ctx, rand_of(seed))
    statement = [X, C1, R, E1, E2]
    other = data.draw(points.filter(lambda p: p not in statement), label="other point")
    for where in range(5):
        changed = list(statement)
        changed[where] = other
        assert not verify_sealed_share(*changed, proof, ctx)
    assert not verify_sealed_share(X, C1, R, E1, add(E2, G), proof, ctx)  # a share off by G
    assert not verify_sealed_share(*statement, proof, other_context(ctx, data.draw(context_fields), data))
    # the same share sealed to another recipient is another statement
    assert not verify_sealed_share(X, C1, other, E1, E2, proof, ctx)


@settings(max_examples=40, deadline=None)
@given(x=scalars, y=scalars, z=scalars, C1=points, ctx=contexts, seed=seeds, prover=st.integers(0, 11))
def test_a_sealed_share_proof_of_another_prover_or_key_fails(x, y, z, C1, ctx, seed, prover):
    """A seat cannot pass off another seat's sealed share (bound to the prover) or seal
    a share made with another key."""
    X, R = base_mul(x), base_mul(y)
    E1, E2, proof = seal_share(x, X, C1, R, ctx, rand_of(seed))
    if prover != ctx.prover:
        assert not verify_sealed_share(X, C1, R, E1, E2, proof, dataclasses.replace(ctx, prover=prover))
    if z != x:
        E1, E2, proof = seal_share(z, base_mul(z), C1, R, ctx, rand_of(seed))
        assert not verify_sealed_share(X, C1, R, E1, E2, proof, ctx)


@settings(max_examples=60, deadline=None)
@given(
    x=scalars,
    y=scalars,
    C1=points,
    ctx=contexts,
    proof=st.tuples(junk, junk, junk),
    bad=st.sampled_from(BAD_POINTS),
    where=st.integers(0, 4),
)
def test_random_bytes_and_invalid_points_never_verify_as_a_sealed_share(x, y, C1, ctx, proof, bad, where):
    X, R = base_mul(x), base_mul(y)
    E1, E2, honest = seal_share(x, X, C1, R, ctx, rand_of(0))
    assert not verify_sealed_share(X, C1, R, E1, E2, proof, ctx)  # type: ignore[arg-type]
    statement = [X, C1, R, E1, E2]
    statement[where] = bad
    assert not verify_sealed_share(*statement, honest, ctx)


def test_a_random_source_that_repeats_itself_never_gives_two_proofs_one_nonce():
    """Hedged nonces: with a broken source that always returns the same bytes, proofs of two
    different statements still use different nonces (equal nonces would give the key away:
    x = (s1 - s2) / (e1 - e2)); the proofs still verify."""
    from saboteur_p2p.crypto.proofs import Context, prove_dleq, verify_dleq

    def stuck(n: int) -> bytes:
        return b"\x07" * n

    x = scalar_from_int(123456789)
    X = base_mul(x)
    ctx = Context(b"\x01" * 32, "hedge", "draw", 0)
    nonces = []
    for label in ("one", "two"):
        H = hash_to_point("hedge-test", label)
        Y = mul(x, H)
        A, B, s = prove_dleq(x, X, H, Y, ctx, stuck)
        assert verify_dleq(X, H, Y, (A, B, s), ctx)
        nonces.append(A)  # r*G
    assert nonces[0] != nonces[1]


# -- the DLEQ test vector of protocol.md §7.2 -------------------------------------------------

DLEQ_VECTOR = {
    "X": "b862409fb5c4c4123df2abf7462b88f041ad36dd6864ce872fd5472be363c5b1",
    "H": "bfaa38532ad4bf2da218726ffab11b258cab804d4d58190bd95ee57b9ef20ae2",
    "Y": "75d6e572b46e128450399a4dd382f93f7267c72e531bfdfcd11e32170c0efcf1",
    "A": "1356deb4b9f288e8d2279cf003597e67e49eb8e2b038d7d71fcb138af598a421",
    "B": "166dcbfd51653a16cd7e09cb6bf1eb91253d45f11478528dfcbc6cacc5a130c5",
    "s": "7642f004f5d80717b6ec81c7f8b7394c31bf43f12f8f45de05a1f985de9a140b",
    "k": "5e177bc8b40d227676de5c86ae1acf6f51e3746961d2972579a522ab1e66180e",
}


def test_the_dleq_vector_of_the_protocol_verifies_and_its_challenge_is_ed25519s():
    """x = 7, H the first card point of batch 0's draw deck for game id 01..01, the context
    (game id, "share/0/0/all/public", "draw", 2): the proof the reference makes with every
    random byte 07, and its challenge computed here from the text of §7.2 alone."""
    import hashlib
    import struct

    from nacl.bindings import crypto_core_ed25519_scalar_reduce

    v = {name: bytes.fromhex(value) for name, value in DLEQ_VECTOR.items()}
    game_id = b"\x01" * 32
    ctx = Context(game_id, "share/0/0/all/public", "draw", 2)
    x = scalar_from_int(7)
    assert base_mul(x) == v["X"] and hash_to_point("card", game_id, 0, "draw", 0) == v["H"] and mul(x, v["H"]) == v["Y"]
    assert prove_dleq(x, v["X"], v["H"], v["Y"], ctx, lambda n: b"\x07" * n) == (v["A"], v["B"], v["s"])
    assert verify_dleq(v["X"], v["H"], v["Y"], (v["A"], v["B"], v["s"]), ctx)

    def enc(data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + data

    message = b"".join([
        enc(b"s" + b"saboteur-p2p/dleq"), enc(b"b" + game_id), enc(b"s" + b"share/0/0/all/public"), enc(b"sdraw"),
        enc(b"i2"), enc(b"b" + v["H"]), enc(b"b" + v["Y"]), enc(b"b" + v["B"]),
    ])
    k = crypto_core_ed25519_scalar_reduce(hashlib.sha512(v["A"] + v["X"] + message).digest())
    assert k == v["k"]
    assert add(v["B"], mul(k, v["Y"])) == mul(v["s"], v["H"])
    assert add(v["A"], mul(k, v["X"])) == base_mul(v["s"])


def test_the_two_refused_proofs_of_the_protocol_s_dleq_vector_are_refused():
    """protocol.md §7.2: A with a point of order 8 added and s made for it (a cofactored
    Ed25519 check accepts it), and r = 0 (A = B = the identity, which an Ed25519 check that
    allows an identity R accepts); the statement is true in both."""
    from saboteur_p2p.crypto.group import IDENTITY
    from saboteur_p2p.crypto.proofs import Context, verify_dleq

    v = {name: bytes.fromhex(value) for name, value in DLEQ_VECTOR.items()}
    ctx = Context(b"\x01" * 32, "share/0/0/all/public", "draw", 2)
    torsion = (bytes.fromhex("99b423571e15ec1fd5e9e17884539caf781a38dc96c8526e6baec037046e2e78"), v["B"],
               bytes.fromhex("32dd0d39c7d870e6ac501976b28d0239a3748eb7bc59ede3672dff6ede41a509"))
    order_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
    assert torsion[0] == add(v["A"], order_8)
    assert not verify_dleq(v["X"], v["H"], v["Y"], torsion, ctx)
    zero = (IDENTITY, IDENTITY, bytes.fromhex("ad369f36f451234cead48b0d1cbd844ca5ebf510f6d233105b38badfb48f4f06"))
    assert not verify_dleq(v["X"], v["H"], v["Y"], zero, ctx)


def test_a_dleq_check_makes_its_own_scalar_and_identity_checks(monkeypatch):
    """Left to libsodium, they would hang on how it was built (ED25519_COMPAT skips them):
    an s of L or more, or an identity A, is refused before libsodium is asked."""
    import saboteur_p2p.crypto.proofs as proofs
    from saboteur_p2p.crypto.group import IDENTITY
    from saboteur_p2p.crypto.proofs import Context, prove_dleq, verify_dleq

    asked = []
    monkeypatch.setattr(proofs, "crypto_sign_open", lambda *args: asked.append(args))  # a lax build: accepts all
    x = scalar_from_int(11)
    X, H = base_mul(x), hash_to_point("compat", "test")
    ctx = Context(b"\x02" * 32, "share/0/1/all/public", "draw", 0)
    A, B, s = prove_dleq(x, X, H, mul(x, H), ctx, rand_of(1))
    unreduced = (int.from_bytes(s, "little") + L).to_bytes(32, "little")
    assert not verify_dleq(X, H, mul(x, H), (A, B, unreduced), ctx)
    assert not verify_dleq(X, H, mul(x, H), (IDENTITY, B, s), ctx)
    assert asked == []
    assert verify_dleq(X, H, mul(x, H), (A, B, s), ctx) and len(asked) == 1


def test_a_proof_passed_once_is_not_checked_again_but_a_changed_or_failed_one_is(monkeypatch):
    """Seats that share one process check each proof once (``Passed``): the same proof of the
    same statement passes again without a multiplication; another context, a changed response
    or a proof that failed is checked in full every time; with the memory off, everything is."""
    from nacl.bindings import crypto_sign_open

    from saboteur_p2p.crypto import group, proofs

    multiplied: list[bytes] = []

    def counting(s: bytes, p: bytes) -> bytes:
        multiplied.append(p)
        return mul(s, p)

    def opening(signed: bytes, key: bytes) -> bytes:
        multiplied.append(key)
        return crypto_sign_open(signed, key)

    monkeypatch.setattr(proofs, "mul", counting)
    monkeypatch.setattr(proofs, "crypto_sign_open", opening)  # a DLEQ check's first step
    x, y = scalar_from_int(7**40), scalar_from_int(11**30)
    X, H, Y = base_mul(x), hash_to_point("memo-test", 1), base_mul(y)
    ctx = Context(bytes(32), "memo", "draw", 1)
    dleq = prove_dleq(x, X, H, mul(x, H), ctx)
    sealed = seal_share(x, X, H, Y, ctx)
    checks = [
        lambda ctx, proof: verify_dleq(X, H, mul(x, H), proof, ctx),
        lambda ctx, proof: verify_sealed_share(X, H, Y, sealed[0], sealed[1], proof, ctx),
    ]
    for check, proof in zip(checks, (dleq, sealed[2]), strict=True):
        changed = (*proof[:-1], scalar_from_int(int.from_bytes(proof[-1], "little") + 1))
        other = dataclasses.replace(ctx, prover=2)
        multiplied.clear()
        assert check(ctx, proof) and multiplied
        multiplied.clear()
        assert check(ctx, proof) and not multiplied  # passed before: not checked again
        for _ in range(2):
            assert not check(ctx, changed) and multiplied  # a changed proof: checked, refused, each time
            multiplied.clear()
            assert not check(other, proof) and multiplied  # the same proof for another statement
            multiplied.clear()
        group.remember_checks(False)
        try:
            for _ in range(2):
                assert check(ctx, proof) and multiplied  # a benchmark of each seat's own work
                multiplied.clear()
        finally:
            group.remember_checks(True)
