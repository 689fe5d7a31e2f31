"""The signed, hash-chained game log: every message of a game is one entry in one chain.

An entry is the msgpack array ``[version, game_id, sender, seq, prev, kind, body]``:
``sender`` is the author's seat, ``seq`` counts that author's entries from 0, ``prev`` is
the hash of the entry before it in the single global chain (32 zero bytes for the first;
the entries of a *group*, which may be made at once, all name the head before the group,
and the entry after it names their group hash)
and ``body`` is any msgpack data.  The author signs exactly those bytes with Ed25519, and
a record, on the wire and on disk, is the msgpack array ``[entry_bytes, signature]``.  The
entry's hash is ``hash_bytes("log-entry", entry_bytes, size=32)``.

Entry bytes must be canonical: exactly what msgpack-python's ``packb(..., use_bin_type=True)``
gives for the decoded value (shortest integer and length forms, 64-bit floats, no
duplicate map keys, no ext types).  So equal content means equal bytes and equal hashes.

``decode_record`` turns untrusted bytes into an ``Entry`` under strict size, length and
nesting limits and raises only ``MalformedRecord``.  ``LogVerifier`` accepts entries one by
one and raises ``LogViolation`` naming the seat to blame.  Two validly signed entries with
the same author and seq but different bytes are an ``EquivocationProof`` that anyone
holding the seats' public keys can check.

``LogWriter`` and ``read_log`` keep records in an append-only file, each prefixed by its
length as 4 big-endian bytes.
"""
from __future__ import annotations

import os
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import msgpack  # ships no type hints: what it returns is Any, so results are annotated where kept

from ..files import NotAFile, open_regular
from .group import hash_bytes
from .identity import SIGNATURE_BYTES, Identity, PublicIdentity

PROTOCOL_VERSION = 10
HASH_BYTES = 32
GAME_ID_BYTES = 32
GENESIS = bytes(HASH_BYTES)
MAX_KIND_CHARS = 64
#: Largest record accepted by default, in bytes.
MAX_RECORD_SIZE = 4 * 1024 * 1024
#: Largest item of a log file: a record, or the verdict after the records, which carries a
#: whole record as its evidence (protocol.md 4.8, 12.5) and a few hundred bytes more
MAX_ITEM_SIZE = MAX_RECORD_SIZE + 4096
#: the largest log file a reader takes in: a 12-seat game of 10 rounds writes a few tens of MiB
MAX_LOG_SIZE = 256 * 1024 * 1024
#: the most records a reader takes from one log file: a 12-seat game of 10 rounds writes a
#: few thousand; a file of millions of tiny items would take gigabytes as a list
MAX_LOG_RECORDS = 1 << 16
#: Longest msgpack array and map (in entries) inside a record.
MAX_ARRAY_LEN = 100_000
MAX_MAP_LEN = 10_000
#: arrays and maps in one unpacked record or entry, all levels together
MAX_CONTAINERS = 100_000
#: items in one unpacked record or entry, all levels together (each array's elements, each
#: map's keys and values): a 4 MiB body of small integers took 0.5 s to check item by item
#: (an attack stalled a seat's loop with them); the largest record of a 12-seat Saboteur 2
#: game holds about a thousand
MAX_ITEMS = 16_384
#: Deepest nesting of arrays and maps inside an entry's body.
MAX_BODY_DEPTH = 32

_LENGTH = struct.Struct(">I")
#: the bytes of the length before each item of a log file
LENGTH_PREFIX = _LENGTH.size


class MalformedRecord(ValueError):
    """Bytes that are not a well-formed log record; the message says what is wrong."""


class LogViolation(ValueError):
    """A peer broke the log rules.  ``peer`` is the seat the entry names as its author.

    ``reason`` is one of "version", "game-id", "unknown-sender", "signature", "sequence",
    "chain", "equivocation".  The first four are found before (or by) the signature check, so
    the named seat did not necessarily send the entry; the caller also knows which
    connection delivered it.
    """

    def __init__(self, peer: int, reason: str, message: str) -> None:
        super().__init__(f"seat {peer}: {reason}: {message}")
        self.peer = peer
        self.reason = reason


class LogFileError(Exception):
    """A log file cannot be read as a sequence of length-prefixed records."""


class BrokenLog(LogFileError):
    """The log file cannot be read on from ``offset``: ``records`` are the whole records before it."""

    def __init__(self, message: str, records: list[bytes], offset: int) -> None:
        super().__init__(message)
        self.records = records
        self.offset = offset


class TruncatedLog(BrokenLog):
    """The log file ends part-way through a record (a crash during a write).

    ``records`` are the whole records before it and ``offset`` the file length they span;
    ``LogWriter(path, repair=True)`` cuts the file back to that length.
    """

    def __init__(self, path: str, records: list[bytes], offset: int, size: int) -> None:
        super().__init__(
            f"log file {path}: truncated final record at byte {offset} "
            f"({size - offset} trailing bytes; {len(records)} whole records before it)",
            records, offset,
        )


@dataclass(frozen=True)
class Entry:
    """One decoded, not yet verified, log entry.  Entries compare by their signed bytes."""

    version: int = field(compare=False)
    game_id: bytes = field(compare=False)
    sender: int = field(compare=False)
    seq: int = field(compare=False)
    prev: bytes = field(compare=False)
    kind: str = field(compare=False)
    body: Any = field(compare=False)
    raw: bytes
    signature: bytes
    hash: bytes = field(compare=False)

    @property
    def record(self) -> bytes:
        """The wire and file form, ``[entry_bytes, signature]``."""
        record: bytes = msgpack.packb([self.raw, self.signature], use_bin_type=True)
        return record


def entry_hash(raw: bytes) -> bytes:
    return hash_bytes("log-entry", raw, size=HASH_BYTES)


def make_entry(identity: Identity, game_id: bytes, sender: int, seq: int, prev: bytes, kind: str, body: Any) -> Entry:
    """Encode and sign an entry of ours.

    Raises ValueError (a local error) for anything ``decode_record`` would refuse, so we
    never send what our peers must reject.
    """
    try:
        raw: bytes = msgpack.packb([PROTOCOL_VERSION, game_id, sender, seq, prev, kind, body], use_bin_type=True)
    except (TypeError, ValueError, OverflowError) as exc:
        raise ValueError(f"cannot encode log entry {kind!r}: {exc}") from None
    signature = identity.sign(raw)
    try:
        return decode_record(msgpack.packb([raw, signature], use_bin_type=True))
    except MalformedRecord as exc:
        raise ValueError(f"refusing to make a log entry peers would reject: {exc}") from None


def decode_record(record_bytes: object, max_size: int = MAX_RECORD_SIZE, weight: list[int] | None = None) -> Entry:
    """Parse a record from an untrusted source.  Checks form only, not signature or chain.
    ``weight``, when given, is told the work the decoding took (``ContainerCount.weight`` of
    each part unpacked), whether the record is well formed or not."""
    if not isinstance(record_bytes, (bytes, bytearray, memoryview)):
        raise MalformedRecord(f"a record is bytes, not {type(record_bytes).__name__}")
    data = bytes(record_bytes)
    if len(data) > max_size:
        raise MalformedRecord(f"record of {len(data)} bytes is over the limit of {max_size}")
    outer = _unpack(data, max_size, "record", weight)
    if not isinstance(outer, list) or len(outer) != 2:
        raise MalformedRecord("a record is a 2-element array [entry_bytes, signature]")
    raw, signature = outer
    if not isinstance(raw, bytes):
        raise MalformedRecord("entry_bytes is not a msgpack bin")
    if not isinstance(signature, bytes) or len(signature) != SIGNATURE_BYTES:
        raise MalformedRecord(f"the signature is not a {SIGNATURE_BYTES}-byte bin")
    if msgpack.packb(outer, use_bin_type=True) != data:
        # else one entry could travel (and be logged) in several encodings
        raise MalformedRecord("the record is not in canonical msgpack form")

    fields = _unpack(raw, max_size, "entry", weight)
    if not isinstance(fields, list) or len(fields) != 7:
        raise MalformedRecord("an entry is a 7-element array [version, game_id, sender, seq, prev, kind, body]")
    version, game_id, sender, seq, prev, kind, body = fields
    if type(version) is not int:
        raise MalformedRecord("version is not an integer")
    if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_BYTES:
        raise MalformedRecord(f"game_id is not a {GAME_ID_BYTES}-byte bin")
    if type(sender) is not int or sender < 0:
        raise MalformedRecord("sender is not a non-negative integer")
    if type(seq) is not int or seq < 0:
        raise MalformedRecord("seq is not a non-negative integer")
    if not isinstance(prev, bytes) or len(prev) != HASH_BYTES:
        raise MalformedRecord(f"prev is not a {HASH_BYTES}-byte bin")
    if not isinstance(kind, str) or not 1 <= len(kind) <= MAX_KIND_CHARS:
        raise MalformedRecord(f"kind is not a string of 1 to {MAX_KIND_CHARS} characters")
    _check_body(body)
    if msgpack.packb(fields, use_bin_type=True) != raw:
        raise MalformedRecord("entry bytes are not in canonical msgpack form")
    return Entry(version, game_id, sender, seq, prev, kind, body, raw, signature, entry_hash(raw))


class TooManyContainers(Exception):
    """More arrays and maps than ``counted_containers`` allows (raised from inside msgpack)."""


def counted_containers(limit: int = MAX_CONTAINERS, items: int | None = None) -> ContainerCount:
    """A hook for msgpack's ``list_hook`` and ``object_hook``, called with every array and map
    it makes: past ``limit`` of them (a 4 MiB record of four million empty maps would take 650
    MB), or past ``items`` items in them all (a map's keys and values), it stops the unpacking."""
    return ContainerCount(limit, items if items is not None else -1)


class ContainerCount:
    """``counted_containers``'s hook, which keeps its counts: ``made`` arrays and maps holding
    ``held`` items."""

    __slots__ = ("held", "limit", "made", "most")

    def __init__(self, limit: int, most: int) -> None:
        self.limit, self.most = limit, most
        self.made = self.held = 0

    def __call__(self, container: Any) -> Any:
        self.made += 1
        if self.made > self.limit:
            raise TooManyContainers(f"more than {self.limit} arrays and maps")
        if self.most >= 0:
            self.held += len(container) * 2 if type(container) is dict else len(container)
            if self.held > self.most:
                raise TooManyContainers(f"more than {self.most} items in its arrays and maps")
        return container

    def weight(self) -> int:
        """The work of checking what was unpacked: an item, and four for an array or map (an
        array of 3,800 empty arrays, 4 KiB, took 2 ms to decode and check: an attack)."""
        return self.held + 4 * self.made


def _unpack(data: bytes, max_size: int, what: str, weight: list[int] | None = None) -> Any:
    """``data`` unpacked within a record's limits; its ``ContainerCount.weight`` appended to
    ``weight`` when given, whether it unpacks or not."""
    hook = counted_containers(MAX_CONTAINERS, MAX_ITEMS)
    try:
        return msgpack.unpackb(
            data,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=max_size,
            max_bin_len=max_size,
            max_array_len=MAX_ARRAY_LEN,
            max_map_len=MAX_MAP_LEN,
            max_ext_len=0,
            list_hook=hook,
            object_hook=hook,
        )
    # msgpack signals bad input with a spread of types (ValueError and its subclasses,
    # TypeError for some map keys, its own UnpackException); none of them may escape.
    except Exception as exc:
        why = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__  # StackError says nothing more
        raise MalformedRecord(f"{what} is not valid msgpack within the limits: {why}"[:300]) from None
    finally:
        if weight is not None:
            weight.append(hook.weight())


#: the types msgpack gives for plain values (exact types: unpacking makes no subclasses)
_PLAIN = frozenset((type(None), bool, int, float, str, bytes))


def _check_body(body: Any) -> None:
    """Only plain msgpack types, nested at most MAX_BODY_DEPTH deep: level by level, each value
    looked at once, with no recursion."""
    level, depth = [body], 0
    while level:
        below: list[Any] = []
        for value in level:
            kind = type(value)
            if kind is list or kind is dict:
                if depth >= MAX_BODY_DEPTH:
                    raise MalformedRecord(f"body is nested more than {MAX_BODY_DEPTH} deep")
                below += value
                if kind is dict:
                    below += value.values()
            elif kind not in _PLAIN:
                raise MalformedRecord(f"body holds an unsupported msgpack type {kind.__name__}")
        level, depth = below, depth + 1


def decode_record_pair(data: object, tag: str, max_size: int = MAX_RECORD_SIZE) -> tuple[Entry, Entry]:
    """The two records of a proof ``msgpack [tag, record_a, record_b]`` (an equivocation
    proof, a split-table proof); MalformedRecord if it is not that."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise MalformedRecord(f"a proof is bytes, not {type(data).__name__}")
    outer = _unpack(bytes(data), 2 * max_size + 64, "proof")
    if not isinstance(outer, list) or len(outer) != 3 or outer[0] != tag:
        raise MalformedRecord(f'a proof is the array ["{tag}", record_a, record_b]')
    return decode_record(outer[1], max_size), decode_record(outer[2], max_size)


# -- verification ----------------------------------------------------------------------


@dataclass(frozen=True)
class EquivocationProof:
    """Two entries signed by one seat for the same game and seq with different contents."""

    entry_a: Entry
    entry_b: Entry

    @property
    def peer(self) -> int:
        return self.entry_a.sender

    def to_bytes(self) -> bytes:
        proof: bytes = msgpack.packb(["equivocation", self.entry_a.record, self.entry_b.record], use_bin_type=True)
        return proof

    @classmethod
    def from_bytes(cls, data: object, max_size: int = MAX_RECORD_SIZE) -> EquivocationProof:
        """Parse a proof; MalformedRecord if it is not two well-formed records."""
        return cls(*decode_record_pair(data, "equivocation", max_size))

    def verify(self, keys: Mapping[int, PublicIdentity]) -> bool:
        """Whether this proves that ``self.peer`` signed two different entries for one seq."""
        a, b = self.entry_a, self.entry_b
        key = keys.get(a.sender)
        return (
            key is not None
            and a.sender == b.sender
            and a.game_id == b.game_id
            and a.seq == b.seq
            and a.raw != b.raw
            and key.verify(a.raw, a.signature)
            and key.verify(b.raw, b.signature)
        )


class LogVerifier:
    """Accepts a game's entries in chain order and names the seat at fault for any that break the rules."""

    def __init__(self, game_id: bytes, keys: Mapping[int, PublicIdentity]) -> None:
        if not isinstance(game_id, bytes) or len(game_id) != GAME_ID_BYTES:
            raise ValueError(f"game_id must be {GAME_ID_BYTES} bytes")
        self.game_id = game_id
        self.keys = dict(keys)
        self.head = GENESIS
        self.entries: list[Entry] = []
        self.proofs: list[EquivocationProof] = []
        self._by_sender: dict[int, list[Entry]] = {seat: [] for seat in self.keys}

    def next_seq(self, seat: int) -> int:
        """The seq the next accepted entry from ``seat`` must carry."""
        return len(self._by_sender[seat])

    def holds(self, entry: Entry) -> bool:
        """Whether this very entry (the same signed bytes) was accepted already."""
        mine = self._by_sender.get(entry.sender, [])
        return 0 <= entry.seq < len(mine) and mine[entry.seq].raw == entry.raw

    def check_signed(self, entry: Entry) -> None:
        """Raise LogViolation unless ``entry`` is of this protocol version and game and carries
        its sender's signature (checks that prove nothing against the seat it names)."""
        seat = entry.sender
        if entry.version != PROTOCOL_VERSION:
            raise LogViolation(seat, "version", f"protocol version {entry.version}, expected {PROTOCOL_VERSION}")
        if entry.game_id != self.game_id:
            raise LogViolation(seat, "game-id", f"entry for game {entry.game_id.hex()[:16]}…, not this game")
        key = self.keys.get(seat)
        if key is None:
            raise LogViolation(seat, "unknown-sender", "no such seat in this game")
        if not key.verify(entry.raw, entry.signature):
            raise LogViolation(seat, "signature", f"bad signature on {entry.kind!r} seq {entry.seq}")

    def append(self, entry: Entry, *, in_group: bool = False) -> None:
        """Accept ``entry`` as the new head, or raise LogViolation and change nothing
        (except to keep an EquivocationProof in ``proofs``).

        An entry ``in_group`` is one of a group of entries that all follow the same head and
        may come in any order: it leaves the head as it is, and ``close_group`` moves the head
        on once the whole group is in."""
        self.check_signed(entry)
        seat = entry.sender
        mine = self._by_sender[seat]
        if self.holds(entry):
            raise LogViolation(seat, "sequence", f"replayed seq {entry.seq}")
        if entry.seq < len(mine):
            self.proofs.append(EquivocationProof(mine[entry.seq], entry))
            raise LogViolation(seat, "equivocation", f"two different entries signed for seq {entry.seq}")
        if entry.seq != len(mine):
            raise LogViolation(seat, "sequence", f"seq {entry.seq} out of order, expected {len(mine)}")
        if entry.prev != self.head:
            raise LogViolation(seat, "chain", f"prev {entry.prev.hex()[:16]}… is not the head {self.head.hex()[:16]}…")
        mine.append(entry)
        self.entries.append(entry)
        if not in_group:
            self.head = entry.hash

    def close_group(self, hashes: list[bytes]) -> None:
        """A group of entries following the head is complete: the head becomes the group hash
        of the old head and the entries' hashes, in the group's fixed order (not arrival)."""
        self.head = group_hash(self.head, hashes)


def group_hash(root: bytes, hashes: list[bytes]) -> bytes:
    """What the entry after a group names as ``prev``: it commits to every entry of the group."""
    return hash_bytes("log-group", root, *hashes, size=HASH_BYTES)


# -- the log file ----------------------------------------------------------------------


class LogWriter:
    """Appends length-prefixed records to a file.  ``sync()`` makes them durable.

    Opening a file whose last record is cut short raises TruncatedLog, since appending
    after it would misframe everything that follows; ``repair=True`` cuts the partial
    record off instead.
    """

    def __init__(self, path: str | os.PathLike[str], *, repair: bool = False) -> None:
        self.path = os.fspath(path)
        try:
            _scan(self.path)
        except FileNotFoundError:
            pass
        except TruncatedLog as exc:
            if not repair:
                raise
            os.truncate(self.path, exc.offset)
        self._file: BinaryIO = open(self.path, "ab")  # noqa: SIM115 - held open across appends until close()

    def append(self, record_bytes: bytes) -> None:
        """Append an item: a record, or the verdict that follows the records."""
        if not 0 < len(record_bytes) <= MAX_ITEM_SIZE:
            raise ValueError(f"item of {len(record_bytes)} bytes is outside 1..{MAX_ITEM_SIZE}")
        self._file.write(_LENGTH.pack(len(record_bytes)) + bytes(record_bytes))

    def flush(self) -> None:
        """Hand what was appended to the operating system (it survives the process dying)."""
        self._file.flush()

    def sync(self) -> None:
        """Flush to the operating system and fsync to the disk."""
        self._file.flush()
        os.fsync(self._file.fileno())

    def close(self) -> None:
        if not self._file.closed:
            self.sync()
            self._file.close()

    def __enter__(self) -> LogWriter:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def read_log(path: str | os.PathLike[str]) -> list[bytes]:
    """All records in a log file, in order.

    Raises TruncatedLog (carrying the whole records) if the file ends inside a record,
    BrokenLog (carrying them too) if a length prefix is over MAX_ITEM_SIZE (the file is
    corrupt from there), LogFileError if the path is not a regular file (a pipe would read as
    empty, a FIFO block for ever) or the file is too large, and OSError if it cannot be read.
    """
    return _scan(os.fspath(path))


def _scan(path: str) -> list[bytes]:
    """The records of a log file, read one at a time (an untrusted file: every length is
    checked before it is read, and the whole file is bounded by MAX_LOG_SIZE)."""
    # a regular file only (files.py): a FIFO's open waits for a writer, and a pipe's size
    # reads as 0, so its records would read as none
    try:
        opened = open_regular(path, "log file")
    except NotAFile:
        raise LogFileError(f"{path} is not a regular file (a folder, pipe or device): give the path of a log file") from None
    with opened as f:
        size = os.fstat(f.fileno()).st_size
        if size > MAX_LOG_SIZE:
            raise LogFileError(
                f"log file {path} holds {size / 2**20:.0f} MiB, over the limit of {MAX_LOG_SIZE >> 20} MiB "
                "for one game's log (not a log, or corrupt)"
            )
        records: list[bytes] = []
        offset = 0
        while offset < size:
            prefix = f.read(_LENGTH.size)
            if len(prefix) < _LENGTH.size:
                raise TruncatedLog(path, records, offset, size)
            (length,) = _LENGTH.unpack(prefix)
            if not 0 < length <= MAX_ITEM_SIZE:
                raise BrokenLog(
                    f"log file {path}: the item at byte {offset} claims {length} bytes, "
                    f"outside 1..{MAX_ITEM_SIZE} (corrupt)",
                    records, offset,
                )
            record = f.read(length)
            if len(record) < length:
                raise TruncatedLog(path, records, offset, size)
            if len(records) == MAX_LOG_RECORDS:
                raise LogFileError(
                    f"log file {path} holds more than {MAX_LOG_RECORDS} records, over the limit for one game's log "
                    "(not a log, or corrupt)"
                )
            records.append(record)
            offset += _LENGTH.size + length
        return records
