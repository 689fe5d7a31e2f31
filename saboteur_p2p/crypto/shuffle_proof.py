"""Terelius-Wikström proof of a shuffle of ElGamal re-encryptions, made non-interactive by
Fiat-Shamir (protocol.md §7.4).

The shuffler publishes ``output[i] = reencrypt(input[perm[i]], s_i)`` and proves, without
revealing ``perm`` or the ``s_i``, that the output is a permutation and re-encryption of the
input.  It commits to the permutation (``c_j = r_j·G + H_{i}`` where ``perm[i] = j``), then
shows for challenges ``u`` derived from the statement that

* the committed matrix is a permutation: ``Σ c_j - Σ H_i = (Σ r_j)·G`` and, through a chain
  of commitments ``ĉ_i = r̂_i·G + u'_i·ĉ_{i-1}`` (``ĉ_0 = H``, ``u'_i = u_{perm[i]}``), that
  the committed values ``u'`` are the ``u`` in some order (their product is the same);
* the same permuted ``u'`` weight the output as ``u`` weight the input, up to one
  re-encryption: ``Σ u'_i·output_i = Σ u_j·input_j + r'·(G, P)``.

This follows Haenni, Locher, Koenig and Dubuis, "Pseudo-code algorithms for verifiable
re-encryption mix-nets" (2017), written additively on the prime-order subgroup of
edwards25519.  Generators ``H, H_1, …`` come from hash-to-group, so nobody knows a relation
between them.  Everything a shuffle needs that does not depend on the input deck (the
permutation, the re-encryption pads, the permutation commitment and part of the proof's
first move) is made ahead in a ``ShufflePlan`` once the joint key is known.
"""
from __future__ import annotations

import secrets
from collections.abc import Generator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from .group import (
    IDENTITY,
    InvalidPoint,
    InvalidScalar,
    Passed,
    Point,
    RandomBytes,
    Scalar,
    add,
    base_mul,
    check_point,
    check_scalar,
    hash_bytes,
    hash_to_point,
    hash_to_scalar,
    random_scalar,
    sadd,
    smul,
    ssub,
    sub,
)
from .group import mul as _group_mul
from .shuffle import Ciphertext, ShuffleProofError, check_deck, random_permutation
from .workers import split

ZERO: Scalar = bytes(32)
ONE: Scalar = (1).to_bytes(32, "little")
#: The largest deck a proof covers (the wire limit on a deck, protocol.md §6.4).
MAX_CARDS = 128
#: Proofs this process has verified, by a hash of the statement and the whole proof.
_verified = Passed(512)


def mul(s: Scalar, p: Point) -> Point:
    """s·p, with the identity allowed on either side (an initial deck's C1 is the identity)."""
    if s == ZERO or p == IDENTITY:
        return IDENTITY
    return _group_mul(s, p)


def checked_mul(s: Scalar, p: Point) -> Point:
    """s·p for a point from the shuffler (its output or its proof), which the product checks
    as ``check_point`` would (libsodium refuses a non-canonical, small-order or out-of-subgroup
    point, InvalidPoint); with s = 0 the point is checked on its own."""
    if s == ZERO:
        check_point(p)
        return IDENTITY
    return _group_mul(s, p)


def total(points: Sequence[Point]) -> Point:
    result = IDENTITY
    for p in points:
        result = add(result, p)
    return result


@lru_cache(maxsize=1)
def _all_generators() -> tuple[Point, ...]:
    return tuple(hash_to_point("shuffle-generator", i) for i in range(MAX_CARDS + 1))


def generators(n: int) -> tuple[Point, tuple[Point, ...]]:
    """``H`` and ``H_1..H_n``: generator i is ``hash_to_point("shuffle-generator", i)``, i = 0..n."""
    if not 1 <= n <= MAX_CARDS:
        raise ShuffleProofError(f"a shuffle covers 1 to {MAX_CARDS} cards, not {n}")
    every = _all_generators()
    return every[0], every[1:n + 1]


@dataclass(frozen=True)
class ShuffleProof:
    """What the shuffler publishes beside its output deck (protocol.md §6.5)."""

    commitments: tuple[Point, ...]  # c_j: the permutation commitment, one per input position
    chain: tuple[Point, ...]  # ĉ_i: the commitment chain, one per output position
    challenge: Scalar  # c, the Fiat-Shamir challenge
    responses: tuple[Scalar, Scalar, Scalar, Scalar]  # s1, s2, s3, s4
    chain_responses: tuple[Scalar, ...]  # ŝ_i
    permuted_responses: tuple[Scalar, ...]  # s'_i

    def to_data(self) -> dict[str, Any]:
        return {
            "commitments": list(self.commitments),
            "chain": list(self.chain),
            "challenge": self.challenge,
            "responses": list(self.responses),
            "chain_responses": list(self.chain_responses),
            "permuted_responses": list(self.permuted_responses),
        }

    @classmethod
    def from_data(cls, data: object, n: int, points: bool = True) -> ShuffleProof:
        """Check the shape (and every point and scalar) of a proof for an n-card deck;
        ``points=False`` leaves the points to ``verify_shuffle_proof``, which multiplies each
        (``checked_mul``), and to ``invalid_point`` if it fails."""
        fields = ("commitments", "chain", "challenge", "responses", "chain_responses", "permuted_responses")
        if not isinstance(data, dict) or len(data) != len(fields) or any(f not in data for f in fields):
            raise ShuffleProofError(f"a shuffle proof is a map of {', '.join(fields)}")

        def points_of(name: str) -> tuple[Point, ...]:
            items = _items(data[name], n, name)
            if not points:
                if not all(isinstance(p, bytes) and len(p) == 32 for p in items):
                    raise ShuffleProofError(f"proof {name}: expected {n} 32-byte points")
                return tuple(items)
            try:
                return tuple(check_point(p, f"proof {name} {i}") for i, p in enumerate(items))
            except InvalidPoint as exc:
                raise ShuffleProofError(str(exc)) from None

        def scalars(name: str, count: int) -> tuple[Scalar, ...]:
            items = _items(data[name], count, name)
            try:
                return tuple(check_scalar(s, f"proof {name} {i}") for i, s in enumerate(items))
            except InvalidScalar as exc:
                raise ShuffleProofError(str(exc)) from None

        try:
            challenge = check_scalar(data["challenge"], "proof challenge")
        except InvalidScalar as exc:
            raise ShuffleProofError(str(exc)) from None
        s1, s2, s3, s4 = scalars("responses", 4)
        return cls(points_of("commitments"), points_of("chain"), challenge, (s1, s2, s3, s4),
                   scalars("chain_responses", n), scalars("permuted_responses", n))


def _items(value: object, count: int, name: str) -> list[Any]:
    if not isinstance(value, (list, tuple)) or len(value) != count:
        raise ShuffleProofError(f"proof {name}: expected {count} entries")
    return list(value)


@dataclass
class ShufflePlan:
    """A shuffle of an n-card deck made ahead, before its input is known."""

    joint: Point
    perm: list[int]
    scalars: list[Scalar]  # s_i, the re-encryption scalar of output i
    pads: list[Ciphertext]  # (s_i·G, s_i·P)
    randomness: list[Scalar]  # r_j, of commitment j
    commitments: list[Point]  # c_j
    nonces: list[Scalar]  # ω1, ω2, ω3, ω4
    chain_nonces: list[Scalar]  # ω̂_i
    permuted_nonces: list[Scalar]  # ω'_i
    t1: Point
    t3: Point


def plan_shuffle(n: int, joint: Point, rand: RandomBytes = secrets.token_bytes) -> ShufflePlan:
    """Draw the permutation and every random value, and compute what needs no input deck."""
    steps = plan_shuffle_in_steps(n, joint, rand)
    while True:
        try:
            next(steps)
        except StopIteration as done:
            plan: ShufflePlan = done.value
            return plan


def plan_shuffle_in_steps(
    n: int, joint: Point, rand: RandomBytes = secrets.token_bytes, cards_a_step: int = 8,
) -> Generator[None, None, ShufflePlan]:
    """``plan_shuffle`` a few cards at a time: each ``next`` does about 1.5 ms of work (for a
    seat that plans while it waits, and must not keep a move waiting long); the plan is the
    generator's return value.  The random values are all drawn first, as ``plan_shuffle``
    draws them, so a seeded source gives the same plan either way."""
    _, hs = generators(n)
    perm = random_permutation(n, rand)
    scalars = [random_scalar(rand) for _ in range(n)]
    randomness = [random_scalar(rand) for _ in range(n)]
    nonces = [random_scalar(rand) for _ in range(4)]
    chain_nonces = [random_scalar(rand) for _ in range(n)]
    permuted_nonces = [random_scalar(rand) for _ in range(n)]
    pads: list[tuple[Point, Point]] = []
    commitments: list[Point] = [IDENTITY] * n
    terms: list[Point] = []
    for start in range(0, n, cards_a_step):
        for i in range(start, min(n, start + cards_a_step)):
            pads.append((base_mul(scalars[i]), mul(scalars[i], joint)))
            j = perm[i]
            commitments[j] = add(base_mul(randomness[j]), hs[i])
            terms.append(mul(permuted_nonces[i], hs[i]))
        yield
    t1 = base_mul(nonces[0])
    t3 = add(base_mul(nonces[2]), total(terms))
    return ShufflePlan(joint, perm, scalars, pads, randomness, commitments, nonces, chain_nonces, permuted_nonces, t1, t3)


def apply_plan(plan: ShufflePlan, deck: Sequence[Ciphertext]) -> list[Ciphertext]:
    """The output deck: output[i] = input[perm[i]] + pad_i."""
    if len(deck) != len(plan.perm):
        raise ValueError(f"the plan shuffles {len(plan.perm)} cards, the deck has {len(deck)}")
    return [(add(deck[j][0], pad[0]), add(deck[j][1], pad[1])) for j, pad in zip(plan.perm, plan.pads, strict=True)]


def _deck_bytes(deck: Sequence[Ciphertext]) -> bytes:
    return len(deck).to_bytes(4, "big") + b"".join(c1 + c2 for c1, c2 in deck)


def statement_digest(
    context: bytes, joint: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext], commitments: Sequence[Point],
) -> bytes:
    """The hash of everything the proof is about: the caller's context (which game, batch,
    shuffler and deck), the joint key, the generators, both decks and the commitment."""
    h, hs = generators(len(inputs))
    return hash_bytes(
        "shuffle-statement", context, joint, h + b"".join(hs), _deck_bytes(inputs), _deck_bytes(outputs), b"".join(commitments),
    )


def challenges(statement: bytes, n: int) -> list[Scalar]:
    """u_1..u_n: u_j = hash_to_scalar("shuffle-u", statement, j) for j = 0..n-1."""
    return [hash_to_scalar("shuffle-u", statement, j) for j in range(n)]


def _challenge(statement: bytes, chain: Sequence[Point], t: Sequence[Point], t_hat: Sequence[Point]) -> Scalar:
    return hash_to_scalar("shuffle-challenge", statement, b"".join(chain), b"".join(t), b"".join(t_hat))


def prove_shuffle(
    plan: ShufflePlan, context: bytes, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext],
    rand: RandomBytes = secrets.token_bytes,
) -> ShuffleProof:
    """Prove that ``outputs`` (from ``apply_plan(plan, inputs)``) shuffle ``inputs``."""
    n = len(inputs)
    h, _ = generators(n)
    statement = statement_digest(context, plan.joint, inputs, outputs, plan.commitments)
    u = challenges(statement, n)
    u_perm = [u[j] for j in plan.perm]
    chain_randomness = [random_scalar(rand) for _ in range(n)]
    # ĉ_i = r̂_i·G + u'_i·ĉ_{i-1} = a_i·H + b_i·G, with a_i = u'_1·…·u'_i and b_i = u'_i·b_{i-1} + r̂_i:
    # computed that way, the chain's points do not wait for one another
    a_i, b_i = ONE, ZERO
    chain_scalars: list[tuple[Scalar, Scalar]] = []
    for r_hat, ui in zip(chain_randomness, u_perm, strict=True):
        a_i, b_i = smul(a_i, ui), sadd(smul(b_i, ui), r_hat)
        chain_scalars.append((a_i, b_i))
    chain = [
        point for part in split(lambda start, stop: [add(mul(a, h), base_mul(b)) for a, b in chain_scalars[start:stop]], n)
        for point in part
    ]
    # r̂ = Σ r̂_i·v_i with v_i = u'_{i+1}·…·u'_n, so that ĉ_n = (Π u)·H + r̂·G
    r_hat_total = b_i
    r_bar = _sum(plan.randomness)
    r_tilde = _sum([smul(r, uj) for r, uj in zip(plan.randomness, u, strict=True)])
    r_prime = _sum([smul(s, ui) for s, ui in zip(plan.scalars, u_perm, strict=True)])
    w1, w2, w3, w4 = plan.nonces
    t2 = base_mul(w2)
    chain_before = [h, *chain[:-1]]

    def chunk(start: int, stop: int) -> tuple[Point, Point, list[Point]]:
        """For cards ``start..stop-1``: the sums of ω'·output (both halves), and their t̂."""
        cards = range(start, stop)
        w = plan.permuted_nonces
        return (
            total([mul(w[i], outputs[i][0]) for i in cards]),
            total([mul(w[i], outputs[i][1]) for i in cards]),
            [add(base_mul(plan.chain_nonces[i]), mul(w[i], chain_before[i])) for i in cards],
        )

    parts = split(chunk, n)
    t41 = sub(total([part[0] for part in parts]), base_mul(w4))
    t42 = sub(total([part[1] for part in parts]), mul(w4, plan.joint))
    t_hat = [t for part in parts for t in part[2]]
    c = _challenge(statement, chain, (plan.t1, t2, plan.t3, t41, t42), t_hat)
    responses = (ssub(w1, smul(c, r_bar)), ssub(w2, smul(c, r_hat_total)), ssub(w3, smul(c, r_tilde)), ssub(w4, smul(c, r_prime)))
    chain_responses = tuple(ssub(w, smul(c, r)) for w, r in zip(plan.chain_nonces, chain_randomness, strict=True))
    permuted_responses = tuple(ssub(w, smul(c, ui)) for w, ui in zip(plan.permuted_nonces, u_perm, strict=True))
    return ShuffleProof(tuple(plan.commitments), tuple(chain), c, responses, chain_responses, permuted_responses)


def _sum(scalars: Sequence[Scalar]) -> Scalar:
    result = ZERO
    for s in scalars:
        result = sadd(result, s)
    return result


def _product(scalars: Sequence[Scalar]) -> Scalar:
    result = ONE
    for s in scalars:
        result = smul(result, s)
    return result


def verify_shuffle_proof(
    context: bytes, joint: Point, inputs: Sequence[Ciphertext], outputs: Sequence[Ciphertext], proof: ShuffleProof,
) -> None:
    """Raise ShuffleProofError unless ``proof`` shows ``outputs`` to shuffle ``inputs``.

    The points of ``outputs`` and of the proof need not have passed ``check_point``: each is
    multiplied here (``checked_mul``), so an invalid one fails the proof, and ``invalid_point``
    then tells it from a false proof.  ``inputs`` are the checked outputs of the shuffle
    before, or an initial deck."""
    n = len(inputs)
    if len(outputs) != n or len(proof.commitments) != n or len(proof.chain) != n:
        raise ShuffleProofError(f"the output, the commitment and the chain must each hold {n} entries")
    if len(proof.chain_responses) != n or len(proof.permuted_responses) != n:
        raise ShuffleProofError(f"expected {n} responses of each kind")
    h, hs = generators(n)
    statement = statement_digest(context, joint, inputs, outputs, proof.commitments)
    seen = hash_bytes(
        "shuffle-verified", statement, b"".join(proof.chain), proof.challenge, b"".join(proof.responses),
        b"".join(proof.chain_responses), b"".join(proof.permuted_responses),
    )
    if seen in _verified:
        return
    u = challenges(statement, n)
    c = proof.challenge
    s1, s2, s3, s4 = proof.responses
    s_hat, s_prime = proof.chain_responses, proof.permuted_responses
    chain_before = [h, *proof.chain[:-1]]

    def chunk(start: int, stop: int) -> tuple[list[Point], list[Point]]:
        """For cards ``start..stop-1``: the six sums over them (c̃, a1, a2, Σ s'·H, b1, b2),
        and their t̂."""
        cards = range(start, stop)
        sums = [
            total([checked_mul(u[j], proof.commitments[j]) for j in cards]),
            total([mul(u[j], inputs[j][0]) for j in cards]),
            total([mul(u[j], inputs[j][1]) for j in cards]),
            total([mul(s_prime[i], hs[i]) for i in cards]),
            total([checked_mul(s_prime[i], outputs[i][0]) for i in cards]),
            total([checked_mul(s_prime[i], outputs[i][1]) for i in cards]),
        ]
        t_hat = [
            add(add(checked_mul(c, proof.chain[i]), base_mul_or_identity(s_hat[i])), checked_mul(s_prime[i], chain_before[i]))
            for i in cards
        ]
        return sums, t_hat

    try:
        parts = split(chunk, n)  # the cards' multiplications, shared among threads
        c_tilde, a1, a2, s_h, b1, b2 = (total([sums[k] for sums, _ in parts]) for k in range(6))
        t_hat = [t for _, chunk_t_hat in parts for t in chunk_t_hat]
        c_bar = sub(total(proof.commitments), total(hs))
        c_hat = sub(proof.chain[-1], mul(_product(u), h))
        t1 = add(mul(c, c_bar), base_mul_or_identity(s1))
        t2 = add(mul(c, c_hat), base_mul_or_identity(s2))
        t3 = add(add(mul(c, c_tilde), base_mul_or_identity(s3)), s_h)
        t41 = sub(add(mul(c, a1), b1), base_mul_or_identity(s4))
        t42 = sub(add(mul(c, a2), b2), mul(s4, joint))
    except InvalidPoint as exc:
        raise ShuffleProofError(f"the proof does not compute: {exc}") from None
    if _challenge(statement, proof.chain, (t1, t2, t3, t41, t42), t_hat) != c:
        raise ShuffleProofError("the proof does not check: the output is not a shuffle of the input")
    _verified.add(seen)


def invalid_point(outputs: Sequence[Ciphertext], proof: ShuffleProof, what: str) -> str | None:
    """What is wrong with the first point of a shuffler's output deck or proof that fails
    ``check_point`` (None when every one passes): a proof that fails for it is a malformed
    record, not a false proof (protocol.md §6.7)."""
    try:
        check_deck(outputs, len(outputs), what)
        for name, points in (("commitments", proof.commitments), ("chain", proof.chain)):
            for i, p in enumerate(points):
                check_point(p, f"proof {name} {i}")
    except (ShuffleProofError, InvalidPoint) as exc:
        return str(exc)
    return None


def base_mul_or_identity(s: Scalar) -> Point:
    return IDENTITY if s == ZERO else base_mul(s)


def shuffle_and_prove(
    context: bytes, joint: Point, deck: Sequence[Ciphertext], rand: RandomBytes = secrets.token_bytes,
) -> tuple[list[Ciphertext], ShuffleProof]:
    """Shuffle ``deck`` under ``joint`` and prove it, in one go (no plan made ahead)."""
    plan = plan_shuffle(len(deck), joint, rand)
    outputs = apply_plan(plan, deck)
    return outputs, prove_shuffle(plan, context, deck, outputs, rand)


__all__ = [
    "ShufflePlan", "ShuffleProof", "apply_plan", "challenges", "generators", "plan_shuffle", "prove_shuffle",
    "shuffle_and_prove", "statement_digest", "verify_shuffle_proof",
]
