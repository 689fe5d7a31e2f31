"""ElGamal decks under a joint key, re-encryption shuffles and their cut-and-choose proofs.

A card is a point M nobody knows the logarithm of; an encrypted card is (C1, C2) =
(rG, M + rP) under the joint key P = sum of the peers' X_i.  Re-encryption adds (sG, sP).

Shuffle proof (cut-and-choose, soundness 2^-k): the shuffler publishes its output deck D'
and k shadow shuffles E_j of the input D.  A challenge bit b_j that the shuffler could not
predict (from a commit-reveal coin of the other peers, hashed with the shadows) asks it to
open either E_j as a shuffle of D (b_j = 0) or D' as a shuffle of E_j (b_j = 1).  An
opening reveals nothing about the real permutation: one shadow is opened one way only.
"""
from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from .group import (
    IDENTITY,
    InvalidPoint,
    Point,
    RandomBytes,
    Scalar,
    add,
    base_mul,
    check_point,
    check_scalar,
    hash_bytes,
    mul,
    random_scalar,
    ssub,
)

Ciphertext = tuple[Point, Point]


class ShuffleProofError(ValueError):
    """A shuffle or its proof is wrong; the message says which check failed."""


def initial_deck(cards: Sequence[Point]) -> list[Ciphertext]:
    """The public deck before any shuffle: each card encrypted with randomness 0."""
    return [(IDENTITY, m) for m in cards]


def reencrypt(c: Ciphertext, s: Scalar, joint: Point) -> Ciphertext:
    return add(c[0], base_mul(s)), add(c[1], mul(s, joint))


def shuffle_deck(deck: Sequence[Ciphertext], joint: Point, rand: RandomBytes) -> tuple[list[Ciphertext], list[int], list[Scalar]]:
    """Re-encrypt and permute: output[i] = reencrypt(deck[perm[i]], scalars[i])."""
    n = len(deck)
    perm = random_permutation(n, rand)
    scalars = [random_scalar(rand) for _ in range(n)]
    return [reencrypt(deck[perm[i]], scalars[i], joint) for i in range(n)], perm, scalars


def random_permutation(n: int, rand: RandomBytes) -> list[int]:
    """Fisher-Yates with unbiased indices from ``rand``."""
    perm = list(range(n))
    for i in range(n - 1, 0, -1):
        j = _below(i + 1, rand)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _below(bound: int, rand: RandomBytes) -> int:
    limit = (1 << 64) - ((1 << 64) % bound)
    while True:
        value = int.from_bytes(rand(8), "little")
        if value < limit:
            return value % bound


def check_permutation(perm: object, n: int, what: str) -> list[int]:
    if not isinstance(perm, (list, tuple)) or len(perm) != n or sorted(perm) != list(range(n)):
        raise ShuffleProofError(f"{what}: not a permutation of {n} positions")
    if not all(isinstance(i, int) and not isinstance(i, bool) for i in perm):
        raise ShuffleProofError(f"{what}: positions must be integers")
    return list(perm)


def check_deck(deck: object, n: int, what: str, points: bool = True) -> list[Ciphertext]:
    """Validate a received deck: n pairs of valid subgroup points.

    ``points=False`` checks only the shape: for shadow decks, which are only ever compared
    with re-encryptions of validated decks (a shadow card that is not a valid point cannot
    open to one, and cannot re-encrypt to a validated output card).
    """
    if not isinstance(deck, (list, tuple)) or len(deck) != n:
        raise ShuffleProofError(f"{what}: expected {n} encrypted cards")
    out = []
    for i, card in enumerate(deck):
        if not isinstance(card, (list, tuple)) or len(card) != 2:
            raise ShuffleProofError(f"{what}: card {i} is not a pair of points")
        if not points:
            if not all(isinstance(p, bytes) and len(p) == 32 for p in card):
                raise ShuffleProofError(f"{what}: card {i} is not a pair of 32-byte points")
            out.append((card[0], card[1]))
            continue
        try:
            out.append((check_point(card[0], f"{what} card {i} C1"), check_point(card[1], f"{what} card {i} C2")))
        except InvalidPoint as exc:
            raise ShuffleProofError(str(exc)) from None
    return out


@dataclass
class ShuffleWitness:
    """What the shuffler keeps secret until the challenge: the real and the shadow shuffles."""

    perm: list[int]
    scalars: list[Scalar]
    shadow_perms: list[list[int]]
    shadow_scalars: list[list[Scalar]]


def shuffle_with_shadows(
    deck: Sequence[Ciphertext], joint: Point, rounds: int, rand: RandomBytes = secrets.token_bytes
) -> tuple[list[Ciphertext], list[list[Ciphertext]], ShuffleWitness]:
    output, perm, scalars = shuffle_deck(deck, joint, rand)
    shadows, shadow_perms, shadow_scalars = [], [], []
    for _ in range(rounds):
        shadow, p, s = shuffle_deck(deck, joint, rand)
        shadows.append(shadow)
        shadow_perms.append(p)
        shadow_scalars.append(s)
    return output, shadows, ShuffleWitness(perm, scalars, shadow_perms, shadow_scalars)


def deck_digest(*decks: Sequence[Ciphertext]) -> bytes:
    parts: list[bytes] = []
    for deck in decks:
        parts.append(len(deck).to_bytes(4, "big"))
        for c1, c2 in deck:
            parts.append(c1 + c2)
    return hash_bytes("deck-digest", b"".join(parts))


def challenge_bits(coin: bytes, statement: bytes, rounds: int) -> list[int]:
    """The k challenge bits from the joint coin and a digest of the whole statement."""
    digest = hash_bytes("shuffle-challenge", coin, statement)
    while len(digest) * 8 < rounds:
        digest += hash_bytes("shuffle-challenge-more", digest)
    return [(digest[i // 8] >> (i % 8)) & 1 for i in range(rounds)]


def open_shadows(witness: ShuffleWitness, bits: Sequence[int]) -> list[tuple[list[int], list[Scalar]]]:
    """For each shadow: (perm, scalars) of D -> E_j if its bit is 0, of E_j -> D' if 1."""
    openings = []
    for j, bit in enumerate(bits):
        sigma, t = witness.shadow_perms[j], witness.shadow_scalars[j]
        if bit == 0:
            openings.append((list(sigma), list(t)))
            continue
        where = [0] * len(sigma)  # where[card] = position of input card in shadow j
        for m, card in enumerate(sigma):
            where[card] = m
        tau = [where[witness.perm[i]] for i in range(len(sigma))]
        u = [ssub(witness.scalars[i], t[tau[i]]) for i in range(len(sigma))]
        openings.append((tau, u))
    return openings


def verify_shuffle(
    deck: Sequence[Ciphertext],
    output: Sequence[Ciphertext],
    shadows: Sequence[Sequence[Ciphertext]],
    bits: Sequence[int],
    openings: Sequence[tuple[Sequence[int], Sequence[Scalar]]],
    joint: Point,
) -> None:
    """Raise ShuffleProofError unless every opened shadow checks out."""
    n = len(deck)
    if len(shadows) != len(bits) or len(openings) != len(bits):
        raise ShuffleProofError(f"expected {len(bits)} shadows and openings")
    if len(output) != n or any(len(shadow) != n for shadow in shadows):
        raise ShuffleProofError(f"the output and every shadow must hold {n} cards")
    for j, (bit, opening) in enumerate(zip(bits, openings, strict=True)):
        if not isinstance(opening, (list, tuple)) or len(opening) != 2:
            raise ShuffleProofError(f"opening {j} is not a (permutation, scalars) pair")
        perm = check_permutation(opening[0], n, f"opening {j}")
        scalars = opening[1]
        if not isinstance(scalars, (list, tuple)) or len(scalars) != n:
            raise ShuffleProofError(f"opening {j}: expected {n} scalars")
        source, target = (deck, shadows[j]) if bit == 0 else (shadows[j], output)
        for i in range(n):
            try:
                s = check_scalar(scalars[i], f"opening {j} scalar {i}")
                if reencrypt(source[perm[i]], s, joint) != tuple(target[i]):
                    raise ShuffleProofError(f"shadow {j} (challenge {bit}) does not open at position {i}")
            except (InvalidPoint, ValueError) as exc:
                if isinstance(exc, ShuffleProofError):
                    raise
                raise ShuffleProofError(f"opening {j} position {i}: {exc}") from None
