"""Records from the network into the node, in chain order.

Peers relay records as they get them, so a record may come twice, or before the one it
follows.  The intake drops copies, parks a signed record that came early until its
predecessor is taken in, and turns two different signed records for one sender's sequence
number into an equivocation proof.  It does no I/O: the session sends and says what it
reports.
"""
from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from ..crypto.log import Entry, EquivocationProof, LogViolation, MalformedRecord, decode_record
from ..protocol.errors import UNSIGNED_REASONS
from ..protocol.node import Node, ProtocolViolation
from ..protocol.stale import out_of_turn_at_a_past_point

#: records kept while they wait for their predecessor, at most ...
REORDER_LIMIT = 256
#: ... and their bytes, at most
WAITING_BYTES = 64 * 1024 * 1024


class Dropped(enum.StrEnum):
    """Why a record is dropped without blaming anyone."""

    MALFORMED = "malformed"  # it cannot be decoded
    UNSIGNED = "unsigned"  # it fails a check made before or by its signature check (or is of another game)


@dataclass
class Taken:
    """What became of a record: how many records the node took in (the record and any parked
    ones it unblocked), why it was dropped (and the detail), or the violation
    it shows with its evidence."""

    accepted: int = 0
    dropped: Dropped | None = None
    detail: str = ""
    violation: ProtocolViolation | None = None
    evidence: bytes = b""
    #: the work its decoding took (``ContainerCount.weight``): its sender pays for it (inflow.py)
    weight: int = 0


class Intake:
    def __init__(self, node: Node) -> None:
        self.node = node
        self.seen: set[bytes] = set()
        #: prev hash -> the records that came before it (several: the records of a group)
        self.waiting: dict[bytes, list[bytes]] = {}
        #: (records, bytes) parked, by sender: each seat has its share of the parking (REORDER_LIMIT
        #: and WAITING_BYTES over the seats), so one seat's records that name heads that never
        #: come cannot fill it for the others
        self.waiting_of: dict[int, tuple[int, int]] = {}
        #: index in the log of each accepted (sender, seq): a parked record that contradicts
        #: one is equivocation
        self.accepted: dict[tuple[int, int], int] = {}
        #: the log's records as a set of their bytes, and how many of them it holds (``holds``)
        self._held: set[bytes] = set()
        self._held_upto = 0

    def remember(self, index: int) -> Entry:
        """Note a log entry as taken in: its hash (copies are ignored) and its (sender, seq)."""
        entry = self.node.log.entries[index]
        self.seen.add(entry.hash)
        self.accepted[(entry.sender, entry.seq)] = index
        return entry

    def holds(self, record: bytes) -> bool:
        """Whether the log holds ``record``, byte for byte: known before it is decoded (a
        resend, or a flood's copy; the set is brought up to date here: the log may have grown,
        or been read back, since)."""
        records = self.node.records
        if self._held_upto > len(records):
            self._held, self._held_upto = set(), 0
        self._held.update(records[self._held_upto:])
        self._held_upto = len(records)
        return record in self._held

    def has(self, record: bytes) -> bool:
        """Whether this record was taken in already (False for one that cannot be decoded)."""
        if self.holds(record):
            return True
        try:
            return decode_record(record).hash in self.seen
        except MalformedRecord:
            return False

    def take(self, record: bytes, on_accept: Callable[[], None] | None = None) -> Taken:
        """Take a record in, and every parked record it unblocks (``on_accept`` after each)."""
        taken = Taken()
        if self.holds(record):
            return taken  # a copy we already have, known before it is decoded
        weight: list[int] = []
        try:
            entry = decode_record(record, weight=weight)
        except MalformedRecord as exc:
            taken.dropped, taken.detail = Dropped.MALFORMED, str(exc)
            return taken
        finally:
            taken.weight = sum(weight)
        if entry.hash in self.seen:
            return taken  # a copy we already have (resent to a peer that fell behind)
        if self._after_the_end(entry):
            return taken
        if entry.prev != self.node.log.head:
            self._park(entry, record, taken)
            return taken
        queue: list[tuple[bytes, Entry]] = [(record, entry)]
        while queue:
            record, entry = queue.pop(0)
            if entry.hash in self.seen or self._after_the_end(entry):
                continue
            if entry.prev != self.node.log.head:
                self._park(entry, record, taken)  # a parked record on a branch the log did not take
                if taken.violation is not None:
                    return taken
                continue
            try:
                self.node.receive(record, entry)
            except ProtocolViolation as violation:
                if violation.reason in UNSIGNED_REASONS:
                    taken.dropped, taken.detail = Dropped.UNSIGNED, str(violation)
                else:
                    taken.violation, taken.evidence = violation, record
                return taken
            self.remember(len(self.node.log.entries) - 1)
            taken.accepted += 1
            if on_accept is not None:
                on_accept()
            for early in self.waiting.pop(self.node.log.head, []):
                parked = decode_record(early)  # it decoded when it was parked
                self._unpark(parked.sender, len(early))
                queue.append((early, parked))
        return taken

    def _after_the_end(self, entry: Entry) -> bool:
        """Whether ``entry`` follows the game's last record: nothing is owed there, so it changes
        nothing, whether it reaches us after that record or before it (parked, then unblocked
        by it): every peer drops it alike (protocol.md §12.5)."""
        return self.node.finished and entry.prev == self.node.log.head

    def _park(self, entry: Entry, record: bytes, taken: Taken) -> None:
        """Keep a signed record that came before the one it follows (or prove equivocation)."""
        seat = entry.sender
        try:
            self.node.log.check_signed(entry)
        except LogViolation as exc:
            # a replay from another game or a forgery: it proves nothing against the seat it names,
            # and is reported as the same record would be at the head of the log
            taken.dropped, taken.detail = Dropped.UNSIGNED, str(ProtocolViolation(exc.peer, exc.reason, str(exc)))
            return
        index = self.accepted.get((seat, entry.seq))
        earlier = None if index is None else self.node.log.entries[index]
        if earlier is not None and earlier.raw != entry.raw:
            proof = EquivocationProof(earlier, entry)
            self.node.log.proofs.append(proof)
            taken.violation = ProtocolViolation(seat, "equivocation", f"two different records with seq {entry.seq}")
            taken.evidence = proof.to_bytes()
            return
        stale = out_of_turn_at_a_past_point(self.node, entry)
        if stale is not None:
            taken.violation, taken.evidence = stale, record  # out of turn wherever it reaches us
            return
        if entry.seq < self.node.log.next_seq(seat):
            return  # an old record of a branch we did not take
        seats = len(self.node.setup.seats)
        count, size = self.waiting_of.get(seat, (0, 0))
        if count >= max(1, REORDER_LIMIT // seats) or size + len(record) > WAITING_BYTES // seats:
            return  # this seat's share of the parking (REORDER_LIMIT, WAITING_BYTES over the seats) is full
        parked = self.waiting.setdefault(entry.prev, [])
        if record not in parked:
            parked.append(record)  # came before the one it follows
            self.waiting_of[seat] = (count + 1, size + len(record))

    def _unpark(self, seat: int, size: int) -> None:
        count, held = self.waiting_of[seat]  # counted when it was parked
        self.waiting_of[seat] = (count - 1, held - size)
