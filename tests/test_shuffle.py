"""ElGamal decks, re-encryption shuffles and their cut-and-choose proofs (crypto/shuffle.py).

An honest shuffle verifies for every challenge; a shuffle whose output deck loses, doubles
or replaces a card fails every challenge that opens the output (bit 1), and only those:
so it escapes k challenge bits with probability 2^-k, never more.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from saboteur_p2p.crypto.group import IDENTITY, G, Point, add, base_mul, hash_to_point, mul, sadd, scalar_from_int, sub
from saboteur_p2p.crypto.shuffle import (
    ShuffleProofError,
    challenge_bits,
    check_deck,
    check_permutation,
    deck_digest,
    initial_deck,
    open_shadows,
    reencrypt,
    shuffle_with_shadows,
    verify_shuffle,
)

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


def shuffled(n: int, rounds: int, seed: int):
    deck = initial_deck(cards(n))
    output, shadows, witness = shuffle_with_shadows(deck, JOINT, rounds, rand_of(seed))
    return deck, output, shadows, witness


bits_of = st.lists(st.integers(0, 1), min_size=1, max_size=6)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 12), bits=bits_of, seed=st.integers(0, 2**32))
def test_an_honest_shuffle_verifies_for_every_challenge_and_keeps_every_card(n, bits, seed):
    deck, output, shadows, witness = shuffled(n, len(bits), seed)
    verify_shuffle(deck, output, shadows, bits, open_shadows(witness, bits), JOINT)
    assert sorted(map(decrypt, output)) == sorted(cards(n))
    assert [decrypt(output[i]) for i in range(n)] == [cards(n)[witness.perm[i]] for i in range(n)]


def _duplicate(output, n, i):
    output[i] = output[(i + 1) % n]


def _replace(output, n, i):
    output[i] = reencrypt((IDENTITY, hash_to_point("not-a-card")), scalar_from_int(77), JOINT)


def _copy_afresh(output, n, i):
    # the card next to it, encrypted anew: no ciphertext repeats, a plaintext does
    plain = decrypt(output[(i + 1) % n])
    output[i] = reencrypt((IDENTITY, plain), scalar_from_int(78), JOINT)


def _reencrypt_in_place(output, n, i):
    # the same card, re-encrypted: a shuffle that was never proven (the shuffler's own
    # randomness changed after the proof) is caught the same way
    output[i] = reencrypt(output[i], scalar_from_int(79), JOINT)


@pytest.mark.parametrize("change", [_duplicate, _replace, _copy_afresh, _reencrypt_in_place], ids=lambda f: f.__name__.strip("_"))
@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 12), position=st.integers(0, 11), bits=bits_of, seed=st.integers(0, 2**32))
def test_a_changed_output_card_fails_exactly_the_challenges_that_open_the_output(change, n, position, bits, seed):
    deck, output, shadows, witness = shuffled(n, len(bits), seed)
    change(output, n, position % n)
    openings = open_shadows(witness, bits)
    if 1 in bits:
        with pytest.raises(ShuffleProofError):
            verify_shuffle(deck, output, shadows, bits, openings, JOINT)
    else:
        verify_shuffle(deck, output, shadows, bits, openings, JOINT)  # the 2^-k escape
    for j, bit in enumerate(bits):
        # one challenge at a time: every opening of the output (bit 1) sees the change
        one = [shadows[j]], [bit], [openings[j]]
        if bit:
            with pytest.raises(ShuffleProofError):
                verify_shuffle(deck, output, *one, JOINT)
        else:
            verify_shuffle(deck, output, *one, JOINT)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 12), bits=bits_of, seed=st.integers(0, 2**32), extra=st.booleans())
def test_an_output_deck_with_a_card_dropped_or_added_fails_every_challenge(n, bits, seed, extra):
    deck, output, shadows, witness = shuffled(n, len(bits), seed)
    changed = [*output, output[0]] if extra else output[:-1]
    with pytest.raises(ShuffleProofError):
        verify_shuffle(deck, changed, shadows, bits, open_shadows(witness, bits), JOINT)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 12), bits=bits_of, seed=st.integers(0, 2**32), data=st.data())
def test_a_tampered_opening_fails(n, bits, seed, data):
    deck, output, shadows, witness = shuffled(n, len(bits), seed)
    openings = [(list(p), list(s)) for p, s in open_shadows(witness, bits)]
    j = data.draw(st.integers(0, len(bits) - 1), label="shadow")
    i = data.draw(st.integers(0, n - 1), label="position")
    how = data.draw(st.sampled_from(["scalar", "swap", "repeat", "short", "other challenge"]), label="how")
    perm, scalars = openings[j]
    if how == "scalar":
        scalars[i] = sadd(scalars[i], scalar_from_int(1))
    elif how == "swap":
        k = (i + 1) % n
        perm[i], perm[k] = perm[k], perm[i]
    elif how == "repeat":
        perm[i] = perm[(i + 1) % n]
    elif how == "short":
        openings[j] = (perm[:-1], scalars[:-1])
    else:
        flipped = list(bits)
        flipped[j] = 1 - flipped[j]
        openings[j] = open_shadows(witness, flipped)[j]
    with pytest.raises(ShuffleProofError):
        verify_shuffle(deck, output, shadows, bits, openings, JOINT)


def test_a_proof_for_another_deck_or_key_fails():
    deck, output, shadows, witness = shuffled(6, 4, 1)
    bits = [0, 1, 0, 1]
    openings = open_shadows(witness, bits)
    other_deck = initial_deck([hash_to_point("other", i) for i in range(6)])
    with pytest.raises(ShuffleProofError):
        verify_shuffle(other_deck, output, shadows, bits, openings, JOINT)
    with pytest.raises(ShuffleProofError):
        verify_shuffle(deck, output, shadows, bits, openings, add(JOINT, G))
    with pytest.raises(ShuffleProofError):
        verify_shuffle(deck, output, shadows, bits[:3], openings, JOINT)


@pytest.mark.parametrize("bad", BAD_POINTS, ids=["identity", "order-4", "order-2", "off-curve", "non-canonical"])
@pytest.mark.parametrize("bit", [0, 1])
def test_an_invalid_point_in_a_shadow_is_a_failed_proof_never_another_error(bad, bit):
    """Shadow decks are checked for shape only (check_deck(points=False)); the proof must
    still refuse them with ShuffleProofError when they are opened either way."""
    deck, output, shadows, witness = shuffled(5, 1, 2)
    openings = open_shadows(witness, [bit])
    shadows[0][2] = (bad, shadows[0][2][1])
    with pytest.raises(ShuffleProofError):
        verify_shuffle(deck, output, shadows, [bit], openings, JOINT)


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


@pytest.mark.parametrize("perm", [[0, 0, 1], [0, 1], [0, 1, 3], [0, 1, True], "012", [0, 1, 2.0]])
def test_check_permutation_refuses_anything_but_a_permutation(perm):
    with pytest.raises(ShuffleProofError):
        check_permutation(perm, 3, "opening")


def test_challenge_bits_depend_on_the_coin_and_the_whole_statement():
    deck, output, shadows, _ = shuffled(4, 40, 3)
    statement = deck_digest(deck, output, *shadows)
    bits = challenge_bits(b"coin", statement, 40)
    assert len(bits) == 40 and set(bits) == {0, 1}
    assert challenge_bits(b"coin", statement, 40) == bits
    assert challenge_bits(b"coin", statement, 600)[:40] == bits
    assert challenge_bits(b"nioc", statement, 40) != bits
    changed = list(output)
    changed[0] = changed[1]
    assert challenge_bits(b"coin", deck_digest(deck, changed, *shadows), 40) != bits
    assert deck_digest(deck[:2], deck[2:]) != deck_digest(deck[:3], deck[3:])  # lengths are bound in
