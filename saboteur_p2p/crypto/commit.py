"""Commit-reveal for random choices that every peer helps make and none can steer.

Each participant picks a 32-byte random value and publishes
``hash_bytes("commit", *context, peer, value, nonce, size=32)``; once every commitment is
in, each reveals (value, nonce).  The result hashes the context and every (peer, value)
in participant order, so it is unpredictable as long as one participant is honest.

The context (game id, purpose, round...) keeps a commitment from being reused in another
round; the round object adds the committing seat to it, so one peer cannot copy another's
commitment and later its reveal.  The last peer to reveal sees the result before anyone
else and may refuse to reveal: ``missing_reveals()`` names such peers, and the caller must
treat that as a fault (blame and abort), never as a reason to run the round again without them.

``CommitReveal`` is sans-I/O: it takes commitments and reveals from the caller and raises
``CommitRevealError`` naming the peer for anything out of place.
"""
from __future__ import annotations

import hmac
import secrets
from collections.abc import Sequence

from .group import Part, RandomBytes, hash_bytes

VALUE_BYTES = 32
NONCE_BYTES = 32
COMMITMENT_BYTES = 32


class CommitRevealError(ValueError):
    """A peer's commitment or reveal is refused.  ``reason`` is one of "not-participant",
    "malformed", "duplicate", "no-commitment", "late" (a reveal before every commitment is
    in) or "mismatch" (the reveal does not open the commitment)."""

    def __init__(self, peer: int, reason: str, message: str) -> None:
        super().__init__(f"seat {peer}: {reason}: {message}")
        self.peer = peer
        self.reason = reason


def commit(value: bytes, *context: Part, rand: RandomBytes = secrets.token_bytes) -> tuple[bytes, bytes]:
    """(commitment, nonce) for ``value`` under ``context``."""
    nonce = rand(NONCE_BYTES)
    return hash_bytes("commit", *context, value, nonce, size=COMMITMENT_BYTES), nonce


def check_reveal(commitment: object, value: object, nonce: object, *context: Part) -> bool:
    """Whether (value, nonce) opens ``commitment`` under ``context``; never raises on bad input."""
    if not isinstance(commitment, bytes) or not isinstance(value, bytes) or not isinstance(nonce, bytes):
        return False
    if len(commitment) != COMMITMENT_BYTES or len(nonce) != NONCE_BYTES:
        return False
    return hmac.compare_digest(commitment, hash_bytes("commit", *context, value, nonce, size=COMMITMENT_BYTES))


def random_below(seed: bytes, n: int, *label: Part) -> int:
    """A uniform integer in [0, n) derived from ``seed``, without modulo bias.

    Rejection sampling over successive 256-bit hashes: a block at or above the largest
    multiple of n below 2**256 is discarded and the next counter tried.
    """
    if not 1 <= n <= 2**256:
        raise ValueError(f"random_below needs 1 <= n <= 2**256, got {n}")
    limit = 2**256 - 2**256 % n
    counter = 0
    while True:
        block = int.from_bytes(hash_bytes("commit-random", seed, n, *label, counter, size=32), "big")
        if block < limit:
            return block % n
        counter += 1


class CommitReveal:
    """One commit-reveal round among ``participants`` (seats, in the order the result uses)."""

    def __init__(self, context: Sequence[Part] | Part, participants: Sequence[int]) -> None:
        self.context: tuple[Part, ...] = (context,) if isinstance(context, (bytes, str, int)) else tuple(context)
        self.participants = list(participants)
        if not self.participants or len(set(self.participants)) != len(self.participants):
            raise ValueError(f"participants must be distinct and not empty, got {self.participants}")
        self.commitments: dict[int, bytes] = {}
        self.values: dict[int, bytes] = {}

    def peer_context(self, peer: int) -> tuple[Part, ...]:
        """The context ``peer`` commits under: the round's context and its seat."""
        return (*self.context, peer)

    def make_commitment(self, peer: int, rand: RandomBytes = secrets.token_bytes) -> tuple[bytes, bytes, bytes]:
        """Our own contribution as ``peer``: (value, commitment, nonce); publish the commitment now."""
        value = rand(VALUE_BYTES)
        commitment, nonce = commit(value, *self.peer_context(peer), rand=rand)
        return value, commitment, nonce

    def add_commitment(self, peer: int, commitment: object) -> None:
        self._check_participant(peer)
        if peer in self.commitments:
            raise CommitRevealError(peer, "duplicate", "a second commitment")
        if not isinstance(commitment, bytes) or len(commitment) != COMMITMENT_BYTES:
            raise CommitRevealError(peer, "malformed", f"a commitment is {COMMITMENT_BYTES} bytes")
        self.commitments[peer] = commitment

    def add_reveal(self, peer: int, value: object, nonce: object) -> None:
        self._check_participant(peer)
        if peer not in self.commitments:
            raise CommitRevealError(peer, "no-commitment", "revealed without having committed")
        if self.missing_commitments():
            raise CommitRevealError(peer, "late", f"revealed before seats {self.missing_commitments()} committed")
        if peer in self.values:
            raise CommitRevealError(peer, "duplicate", "a second reveal")
        if not isinstance(value, bytes) or len(value) != VALUE_BYTES:
            raise CommitRevealError(peer, "malformed", f"a revealed value is {VALUE_BYTES} bytes")
        if not check_reveal(self.commitments[peer], value, nonce, *self.peer_context(peer)):
            raise CommitRevealError(peer, "mismatch", "the reveal does not open the commitment")
        self.values[peer] = value

    def missing_commitments(self) -> list[int]:
        return [p for p in self.participants if p not in self.commitments]

    def missing_reveals(self) -> list[int]:
        """Participants that have not (validly) revealed, in participant order."""
        return [p for p in self.participants if p not in self.values]

    def is_complete(self) -> bool:
        return len(self.values) == len(self.participants)

    def result(self) -> bytes:
        """The 32-byte joint random value; RuntimeError (our mistake) before every reveal is in."""
        if not self.is_complete():
            raise RuntimeError(f"commit-reveal round not complete: waiting for seats {self.missing_reveals()}")
        pairs: list[Part] = []
        for peer in self.participants:
            pairs += [peer, self.values[peer]]
        return hash_bytes("commit-result", *self.context, *pairs, size=32)

    def random_below(self, n: int, *label: Part) -> int:
        """A uniform integer in [0, n) from the result; distinct labels give independent draws."""
        return random_below(self.result(), n, *label)

    def _check_participant(self, peer: int) -> None:
        if peer not in self.participants:
            raise CommitRevealError(peer, "not-participant", "not a participant of this round")
