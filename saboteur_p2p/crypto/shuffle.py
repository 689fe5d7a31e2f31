"""ElGamal decks under a joint key, and re-encryption shuffles.

A card is a point M nobody knows the logarithm of; an encrypted card is (C1, C2) =
(rG, M + rP) under the joint key P = sum of the peers' X_i.  Re-encryption adds (sG, sP).
A shuffle permutes a deck and re-encrypts every card; shuffle_proof.py proves it.
"""
from __future__ import annotations

from collections.abc import Sequence

from .group import (
    IDENTITY,
    InvalidPoint,
    Point,
    RandomBytes,
    Scalar,
    add,
    base_mul,
    check_point,
    mul,
)

Ciphertext = tuple[Point, Point]


class ShuffleProofError(ValueError):
    """A shuffle or its proof is wrong; the message says which check failed."""


def initial_deck(cards: Sequence[Point]) -> list[Ciphertext]:
    """The public deck before any shuffle: each card encrypted with randomness 0."""
    return [(IDENTITY, m) for m in cards]


def reencrypt(c: Ciphertext, s: Scalar, joint: Point) -> Ciphertext:
    return add(c[0], base_mul(s)), add(c[1], mul(s, joint))


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


def check_deck(deck: object, n: int, what: str, points: bool = True) -> list[Ciphertext]:
    """Validate a received deck: n pairs of valid subgroup points.

    ``points=False`` checks only the shape: for a seat's own output deck, made here.
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
