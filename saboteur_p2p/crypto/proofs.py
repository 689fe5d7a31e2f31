"""Zero-knowledge proofs over edwards25519, made non-interactive with Fiat-Shamir.

Every challenge hashes a context (session, deck, step, prover: see ``Context``) together
with the whole statement and the prover's commitments, so a proof cannot be replayed in
another game, step, deck or by another peer.  Most proofs are kept compact: the challenge
and the responses; the verifier recomputes the commitments.  Nonces are hedged
(``hedged_nonce``): fresh randomness hashed with the secret and the statement, so a broken
random source cannot make two proofs share a nonce.

* ``prove_key`` / ``verify_key``: Schnorr proof of knowledge of x with X = xG.
* ``prove_dleq`` / ``verify_dleq``: Chaum-Pedersen proof that log_G X = log_H Y, its half
  over G checked as an Ed25519 signature (the proof carries its commitments).
* ``seal_share`` / ``verify_sealed_share``: a decryption share D = x C1, ElGamal-
  encrypted to a recipient key Y as (kG, D + kY), proven correct without revealing D.
  Nothing that checks D on its own goes with it: D has as few values as a deck has faces,
  so anyone could test each (protocol.md §7.3).
"""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from nacl.bindings import crypto_core_ed25519_scalar_reduce, crypto_sign_open
from nacl.exceptions import BadSignatureError
from nacl.exceptions import TypeError as NaclTypeError
from nacl.exceptions import ValueError as NaclValueError

from .group import (
    IDENTITY,
    G,
    InvalidPoint,
    L,
    Part,
    Passed,
    Point,
    RandomBytes,
    Scalar,
    add,
    base_mul,
    check_scalar,
    encode_parts,
    hash_bytes,
    hash_to_scalar,
    mul,
    sadd,
    smul,
    sub,
)


@dataclass(frozen=True)
class Context:
    """What a proof is bound to: game session, step, deck and prover."""

    session: bytes
    step: str
    deck: str
    prover: int

    def parts(self) -> tuple[bytes, str, str, int]:
        return (self.session, self.step, self.deck, self.prover)


def hedged_nonce(secret: Scalar, rand: RandomBytes, label: str, *statement: Part) -> Scalar:
    """A proof's nonce from fresh randomness *and* a hash of the secret and the statement.

    With a good random source it is as unpredictable as a random nonce; with a broken or
    repeating one, two proofs of different statements still never share a nonce (which would
    give the secret away), and the same statement gets the same nonce, which is harmless.
    """
    while True:
        r = hash_to_scalar("hedged-nonce", secret, rand(32), label, *statement)
        if r != bytes(32):
            return r


def _scalars(proof: object, count: int) -> tuple[Scalar, ...]:
    """A proof's scalars: exactly ``count`` canonical scalars in a tuple or list, else ValueError."""
    if not isinstance(proof, (tuple, list)) or len(proof) != count:
        raise ValueError(f"a proof is {count} scalars")
    return tuple(check_scalar(s) for s in proof)


# -- Schnorr proof of knowledge of a secret key ----------------------------------------


def prove_key(x: Scalar, X: Point, ctx: Context, rand: RandomBytes = secrets.token_bytes) -> tuple[Scalar, Scalar]:
    r = hedged_nonce(x, rand, "pok", *ctx.parts(), X)
    A = base_mul(r)
    e = hash_to_scalar("pok", *ctx.parts(), X, A)
    return e, sadd(r, smul(e, x))


def verify_key(X: Point, proof: tuple[Scalar, Scalar], ctx: Context) -> bool:
    try:
        e, s = _scalars(proof, 2)
        A = sub(base_mul(s), mul(e, X))
    except (InvalidPoint, ValueError, TypeError):
        return False
    return hash_to_scalar("pok", *ctx.parts(), X, A) == e


# -- Chaum-Pedersen: log_G X == log_H Y -----------------------------------------------------
#
# Written so that its half over G is an Ed25519 signature check (protocol.md §7.2): the
# challenge is Ed25519's, SHA-512(A || X || message) reduced, and ``s·G == A + k·X`` is what
# libsodium's ``crypto_sign_open`` checks with one double-scalar multiplication (about two
# fifths of the cost of the multiplication by ``X`` it replaces, and of ``s·G`` beside it).
# The half over H stays two multiplications.  So the proof carries its commitments (A, B).


#: Proofs this process has verified, by a hash of the proof with its whole statement (``Passed``).
_dleq_passed = Passed(1 << 14)
_sealed_passed = Passed(1 << 14)


def _dleq_message(ctx: Context, H: Point, Y: Point, B: Point) -> bytes:
    """What the Ed25519 check signs: the tag, the context, H, Y and the commitment B."""
    return encode_parts(("saboteur-p2p/dleq", *ctx.parts(), H, Y, B))


def _dleq_challenge(A: Point, X: Point, message: bytes) -> Scalar:
    """Ed25519's challenge of a signature with R = ``A`` by the key ``X`` over ``message``."""
    return crypto_core_ed25519_scalar_reduce(hashlib.sha512(A + X + message).digest())


def prove_dleq(
    x: Scalar, X: Point, H: Point, Y: Point, ctx: Context, rand: RandomBytes = secrets.token_bytes,
) -> tuple[Point, Point, Scalar]:
    """A proof ``(A, B, s)`` that log_G X = log_H Y = x."""
    r = hedged_nonce(x, rand, "dleq", *ctx.parts(), X, H, Y)
    A, B = base_mul(r), mul(r, H)
    k = _dleq_challenge(A, X, _dleq_message(ctx, H, Y, B))
    return A, B, sadd(r, smul(k, x))


def verify_dleq(X: Point, H: Point, Y: Point, proof: tuple[Point, Point, Scalar], ctx: Context) -> bool:
    """Whether ``proof`` shows log_G X = log_H Y.  ``X`` and ``H`` are points of the group;
    ``Y`` and the proof come from outside (a point outside the group never verifies)."""
    if not isinstance(proof, (tuple, list)) or len(proof) != 3:
        return False
    A, B, s = proof
    if not all(isinstance(part, bytes) and len(part) == 32 for part in (A, B, s)):
        return False
    # checked here, not left to libsodium (a build with ED25519_COMPAT skips them): s < L,
    # and A not the identity (r = 0; an Ed25519 check that allows an identity R accepts it)
    if int.from_bytes(s, "little") >= L or A == IDENTITY:
        return False
    message = _dleq_message(ctx, H, Y, B)
    digest = hash_bytes("dleq-passed", X, A, s, message, size=32)
    if digest in _dleq_passed:
        return True
    try:
        # A == s·G - k·X, compared as bytes, without the cofactor (protocol.md §7.2)
        crypto_sign_open(A + s + message, X)
        k = _dleq_challenge(A, X, message)
        # s·H == B + k·Y: the multiplications refuse a Y outside the group; B outside it
        # gives another sum (s·H is in the group)
        if mul(s, H) != add(B, mul(k, Y)):
            return False
    except (InvalidPoint, BadSignatureError, NaclValueError, NaclTypeError):
        return False
    _dleq_passed.add(digest)
    return True


# -- a decryption share sealed to a recipient ------------------------------------------------


def seal_share(
    x: Scalar, X: Point, C1: Point, recipient: Point, ctx: Context, rand: RandomBytes = secrets.token_bytes,
    share: Point | None = None,
) -> tuple[Point, Point, tuple[Scalar, Scalar, Scalar]]:
    """Encrypt the share x*C1 (``share``, when the caller has it) to ``recipient`` and prove
    it; returns (E1, E2, proof)."""
    statement = (*ctx.parts(), X, C1, recipient)
    k = hedged_nonce(x, rand, "sealed-share/k", *statement)
    E1 = base_mul(k)
    E2 = add(mul(x, C1) if share is None else share, mul(k, recipient))
    a, b = hedged_nonce(x, rand, "sealed-share/a", *statement), hedged_nonce(x, rand, "sealed-share/b", *statement)
    A1, A2, A3 = base_mul(a), base_mul(b), add(mul(a, C1), mul(b, recipient))
    e = hash_to_scalar("sealed-share", *ctx.parts(), X, C1, recipient, E1, E2, A1, A2, A3)
    return E1, E2, (e, sadd(a, smul(e, x)), sadd(b, smul(e, k)))


def verify_sealed_share(
    X: Point, C1: Point, recipient: Point, E1: Point, E2: Point, proof: tuple[Scalar, Scalar, Scalar], ctx: Context
) -> bool:
    try:
        e, s1, s2 = _scalars(proof, 3)
        digest = hash_bytes("sealed-share-passed", *ctx.parts(), X, C1, recipient, E1, E2, e, s1, s2, size=32)
        if digest in _sealed_passed:
            return True
        A1 = sub(base_mul(s1), mul(e, X))
        A2 = sub(base_mul(s2), mul(e, E1))
        A3 = sub(add(mul(s1, C1), mul(s2, recipient)), mul(e, E2))
    except (InvalidPoint, ValueError, TypeError):
        return False
    if hash_to_scalar("sealed-share", *ctx.parts(), X, C1, recipient, E1, E2, A1, A2, A3) != e:
        return False
    _sealed_passed.add(digest)
    return True


def open_sealed_share(y: Scalar, E1: Point, E2: Point) -> Point:
    """The recipient's decryption of a sealed share: E2 - y*E1."""
    return sub(E2, mul(y, E1))


__all__ = [
    "Context",
    "G",
    "open_sealed_share",
    "prove_dleq",
    "prove_key",
    "seal_share",
    "verify_dleq",
    "verify_key",
    "verify_sealed_share",
]
