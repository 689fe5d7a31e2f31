"""ElGamal decks and re-encryption shuffles (crypto/shuffle.py); their proofs are tested in
test_shuffle_proof.py."""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saboteur_p2p.crypto.group import IDENTITY, Point, base_mul, hash_to_point, mul, sadd, scalar_from_int, sub
from saboteur_p2p.crypto.shuffle import ShuffleProofError, check_deck, initial_deck, random_permutation, reencrypt

P = 2**255 - 19
SECRET = scalar_from_int(0x5EC12E7)
JOINT = base_mul(SECRET)
OFF_CURVE = (2).to_bytes(32, "little")  # no point of the curve has y = 2
BAD_POINTS = [IDENTITY, bytes(32), (P - 1).to_bytes(32, "little"), OFF_CURVE, (P + 1).to_bytes(32, "little")]


def rand_of(seed: int):
    rng = random.Random(seed)
    return lambda n: rng.randbytes(n)


def cards(n: int) -> list[Point]:
    return [hash_to_point("test-card", i) for i in range(n)]


def decrypt(c: tuple[Point, Point]) -> Point:
    return sub(c[1], mul(SECRET, c[0]))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32))
def test_a_reencrypted_deck_decrypts_to_the_same_cards_in_the_permuted_order(n, seed):
    rand = rand_of(seed)
    deck = initial_deck(cards(n))
    perm = random_permutation(n, rand)
    assert sorted(perm) == list(range(n))
    scalars = [scalar_from_int(rand_of(seed + i)(8)[0] + 1) for i in range(n)]
    output = [reencrypt(deck[perm[i]], scalars[i], JOINT) for i in range(n)]
    assert [decrypt(c) for c in output] == [cards(n)[j] for j in perm]
    assert all(c1 != IDENTITY for c1, _ in output)
    twice = reencrypt(output[0], sadd(scalars[0], scalar_from_int(1)), JOINT)
    assert decrypt(twice) == decrypt(output[0]) and twice != output[0]


def test_random_permutations_are_uniform_over_small_decks():
    rand = rand_of(11)
    counts: dict[tuple[int, ...], int] = {}
    for _ in range(6000):
        perm = tuple(random_permutation(3, rand))
        counts[perm] = counts.get(perm, 0) + 1
    assert len(counts) == 6 and all(850 < c < 1150 for c in counts.values())


@pytest.mark.parametrize("bad", BAD_POINTS, ids=["identity", "order-4", "order-2", "off-curve", "non-canonical"])
def test_check_deck_refuses_invalid_points_and_wrong_shapes(bad):
    deck = initial_deck(cards(3))
    good = [(base_mul(scalar_from_int(i + 1)), c2) for i, (_, c2) in enumerate(deck)]
    assert check_deck(good, 3, "deck") == good
    for wrong in ([(bad, good[0][1]), *good[1:]], good[:2], good + good[:1], "deck", [good[0][0]] * 3, [(good[0][0],)] * 3):
        with pytest.raises(ShuffleProofError):
            check_deck(wrong, 3, "deck")
    with pytest.raises(ShuffleProofError):
        check_deck([(b"short", good[0][1]), *good[1:]], 3, "shadow", points=False)
