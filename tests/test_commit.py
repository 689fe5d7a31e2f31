"""Commit-reveal rounds for joint random choices."""
from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from saboteur_p2p.crypto.commit import (
    CommitReveal,
    CommitRevealError,
    check_reveal,
    commit,
    random_below,
)

CONTEXT = (bytes(range(32)), "first-player", 1)
SEATS = [0, 1, 2, 3]


def contributions(seed: int = 0, seats: list[int] = SEATS) -> dict[int, tuple[bytes, bytes, bytes]]:
    """Each seat's (value, commitment, nonce), as each would make its own."""
    rand = random.Random(seed).randbytes
    round_ = CommitReveal(CONTEXT, seats)
    return {seat: round_.make_commitment(seat, rand) for seat in seats}


def run(order_commit: list[int], order_reveal: list[int], contrib: dict[int, tuple[bytes, bytes, bytes]]) -> bytes:
    round_ = CommitReveal(CONTEXT, SEATS)
    for seat in order_commit:
        round_.add_commitment(seat, contrib[seat][1])
    for seat in order_reveal:
        round_.add_reveal(seat, contrib[seat][0], contrib[seat][2])
    assert round_.is_complete() and round_.missing_reveals() == []
    return round_.result()


def test_commit_and_check_reveal() -> None:
    value = b"v" * 32
    commitment, nonce = commit(value, *CONTEXT)
    assert len(commitment) == 32 and len(nonce) == 32
    assert check_reveal(commitment, value, nonce, *CONTEXT)
    assert not check_reveal(commitment, b"w" * 32, nonce, *CONTEXT)
    assert not check_reveal(commitment, value, bytes(32), *CONTEXT)
    assert not check_reveal(commitment, value, nonce, *CONTEXT[:2], 2)
    assert not check_reveal(commitment, value, nonce)
    bads = [(None, value, nonce), (commitment, "text", nonce), (commitment, value, nonce[:5]), (commitment[:31], value, nonce)]
    for bad in bads:
        assert not check_reveal(*bad, *CONTEXT)


def test_same_result_for_every_order_of_arrival() -> None:
    contrib = contributions()
    results = {
        run(list(commits), list(reveals), contrib)
        for commits in itertools.permutations(SEATS)
        for reveals in itertools.permutations(SEATS)
    }
    assert len(results) == 1
    assert len(results.pop()) == 32
    assert run(SEATS, SEATS, contrib) != run(SEATS, SEATS, contributions(seed=1))


def test_result_depends_on_every_value_and_the_context() -> None:
    contrib = contributions()
    base = run(SEATS, SEATS, contrib)
    for seat in SEATS:
        changed = dict(contrib)
        changed[seat] = contributions(seed=9)[seat]
        assert run(SEATS, SEATS, changed) != base
    other = CommitReveal((*CONTEXT[:2], 2), SEATS)
    assert other.context != CommitReveal(CONTEXT, SEATS).context


def test_refusal_to_reveal_is_named() -> None:
    contrib = contributions()
    round_ = CommitReveal(CONTEXT, SEATS)
    assert round_.missing_commitments() == SEATS
    for seat in SEATS:
        round_.add_commitment(seat, contrib[seat][1])
    assert round_.missing_commitments() == []
    for seat in (0, 2):
        round_.add_reveal(seat, contrib[seat][0], contrib[seat][2])
    assert round_.missing_reveals() == [1, 3]
    assert not round_.is_complete()
    with pytest.raises(RuntimeError, match=r"\[1, 3\]"):
        round_.result()


def committed_round(contrib: dict[int, tuple[bytes, bytes, bytes]]) -> CommitReveal:
    round_ = CommitReveal(CONTEXT, SEATS)
    for seat in SEATS:
        round_.add_commitment(seat, contrib[seat][1])
    return round_


def refused(round_: CommitReveal, action: str, *args: object) -> CommitRevealError:
    with pytest.raises(CommitRevealError) as info:
        getattr(round_, action)(*args)
    return info.value


def test_revealing_a_different_value_is_a_mismatch() -> None:
    contrib = contributions()
    round_ = committed_round(contrib)
    value, _, nonce = contrib[2]
    error = refused(round_, "add_reveal", 2, b"\x00" * 32, nonce)
    assert (error.peer, error.reason) == (2, "mismatch")
    error = refused(round_, "add_reveal", 2, value, bytes(32))
    assert (error.peer, error.reason) == (2, "mismatch")
    assert 2 in round_.missing_reveals()
    round_.add_reveal(2, value, nonce)  # the true opening is still accepted


def test_copying_another_seats_commitment_does_not_let_it_open() -> None:
    contrib = contributions()
    round_ = CommitReveal(CONTEXT, SEATS)
    for seat in SEATS:
        # Seat 3 copies seat 1's commitment, hoping to reveal seat 1's value later.
        round_.add_commitment(seat, contrib[1 if seat == 3 else seat][1])
    round_.add_reveal(1, contrib[1][0], contrib[1][2])
    error = refused(round_, "add_reveal", 3, contrib[1][0], contrib[1][2])
    assert (error.peer, error.reason) == (3, "mismatch")


def test_out_of_place_messages_are_refused_with_reasons() -> None:
    contrib = contributions()
    round_ = CommitReveal(CONTEXT, SEATS)
    round_.add_commitment(0, contrib[0][1])
    error = refused(round_, "add_reveal", 1, contrib[1][0], contrib[1][2])
    assert (error.peer, error.reason) == (1, "no-commitment")
    error = refused(round_, "add_reveal", 0, contrib[0][0], contrib[0][2])
    assert (error.peer, error.reason) == (0, "late")
    error = refused(round_, "add_commitment", 0, contrib[0][1])
    assert (error.peer, error.reason) == (0, "duplicate")
    error = refused(round_, "add_commitment", 7, contrib[0][1])
    assert (error.peer, error.reason) == (7, "not-participant")
    error = refused(round_, "add_commitment", 1, b"short")
    assert (error.peer, error.reason) == (1, "malformed")
    for seat in (1, 2, 3):
        round_.add_commitment(seat, contrib[seat][1])
    round_.add_reveal(0, contrib[0][0], contrib[0][2])
    error = refused(round_, "add_reveal", 0, contrib[0][0], contrib[0][2])
    assert (error.peer, error.reason) == (0, "duplicate")
    error = refused(round_, "add_reveal", 1, contrib[1][0][:31], contrib[1][2])
    assert (error.peer, error.reason) == (1, "malformed")
    error = refused(round_, "add_reveal", 1, contrib[1][0], None)
    assert (error.peer, error.reason) == (1, "mismatch")
    assert isinstance(error, ValueError)


def test_participants_must_be_distinct() -> None:
    with pytest.raises(ValueError):
        CommitReveal(CONTEXT, [0, 1, 0])
    with pytest.raises(ValueError):
        CommitReveal(CONTEXT, [])


def test_random_below_covers_its_range_evenly() -> None:
    n, draws = 7, 7000
    counts = Counter(random_below(i.to_bytes(4, "big"), n) for i in range(draws))
    assert set(counts) == set(range(n))
    # Each count is Binomial(7000, 1/7): mean 1000, sd ~29; 5 sd either side.
    assert all(855 < c < 1145 for c in counts.values()), counts


def test_random_below_edges_and_labels() -> None:
    seed = bytes(32)
    assert random_below(seed, 1) == 0
    assert 0 <= random_below(seed, 2**256) < 2**256
    assert random_below(seed, 52) == random_below(seed, 52)
    assert len({random_below(seed, 2**64, "draw", i) for i in range(20)}) == 20
    for bad in (0, -1, 2**256 + 1):
        with pytest.raises(ValueError):
            random_below(seed, bad)


def test_random_below_rejects_rather_than_reducing() -> None:
    # n = 3/4 of 2**256: a quarter of all blocks must be rejected.  Reducing modulo n instead
    # would put half the draws below 2**254, where a uniform draw puts a third.
    n = 3 * 2**254
    low = sum(random_below(i.to_bytes(4, "big"), n) < 2**254 for i in range(600))
    assert 150 < low < 250  # uniform: mean 200, sd ~11.5; reduced: mean 300


def test_round_random_below_uses_the_result() -> None:
    contrib = contributions()
    round_ = committed_round(contrib)
    for seat in SEATS:
        round_.add_reveal(seat, contrib[seat][0], contrib[seat][2])
    assert round_.random_below(5) == random_below(round_.result(), 5)
    assert 0 <= round_.random_below(5, "goal") < 5
