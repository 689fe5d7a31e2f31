"""The signed hash-chained log: decoding untrusted records, verification, equivocation, files."""
from __future__ import annotations

import contextlib
import random
import struct
from itertools import pairwise
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import (
    GENESIS,
    MAX_BODY_DEPTH,
    MAX_LOG_RECORDS,
    MAX_LOG_SIZE,
    MAX_RECORD_SIZE,
    PROTOCOL_VERSION,
    Entry,
    EquivocationProof,
    LogFileError,
    LogVerifier,
    LogViolation,
    LogWriter,
    MalformedRecord,
    TruncatedLog,
    decode_record,
    group_hash,
    make_entry,
    read_log,
)

GAME = bytes(range(32))
OTHER_GAME = bytes(32)
IDS = [Identity.generate(random.Random(seat).randbytes) for seat in range(4)]
KEYS = {seat: IDS[seat].public for seat in range(3)}  # seat 3 is not in the game


def signed_raw(identity: Identity, fields: list[Any]) -> bytes:
    """A record for arbitrary entry fields, signed, bypassing make_entry's checks."""
    raw = msgpack.packb(fields, use_bin_type=True)
    return msgpack.packb([raw, identity.sign(raw)], use_bin_type=True)


def _resign_header(record: bytes) -> bytes:
    """``record`` with its signature's bin8 header widened to bin16 (the same bytes inside)."""
    assert record[-66:-64] == b"\xc4\x40"
    return record[:-66] + b"\xc5\x00\x40" + record[-64:]


class Table:
    """Three honest seats writing to one chain, as a session would."""

    def __init__(self) -> None:
        self.verifier = LogVerifier(GAME, KEYS)
        self.seq = dict.fromkeys(KEYS, 0)

    def entry(
        self,
        seat: int,
        kind: str = "play",
        body: Any = None,
        *,
        signer: Identity | None = None,
        game_id: bytes = GAME,
        seq: int | None = None,
        prev: bytes | None = None,
    ) -> Entry:
        """The entry ``seat`` should write next, with any field overridden."""
        return make_entry(
            signer or IDS[seat],
            game_id,
            seat,
            self.seq[seat] if seq is None else seq,
            self.verifier.head if prev is None else prev,
            kind,
            body,
        )

    def accept(self, seat: int, kind: str = "play", body: Any = None) -> Entry:
        entry = self.entry(seat, kind, body)
        self.verifier.append(decode_record(entry.record))
        self.seq[seat] += 1
        return entry


def violation(table: Table, entry: Entry) -> LogViolation:
    before = (table.verifier.head, list(table.verifier.entries))
    with pytest.raises(LogViolation) as info:
        table.verifier.append(decode_record(entry.record))
    assert (table.verifier.head, table.verifier.entries) == before  # nothing accepted
    return info.value


def test_valid_chain_from_three_peers_is_accepted() -> None:
    table = Table()
    order = [0, 1, 2, 0, 0, 2, 1, 1, 0, 2]
    entries = [table.accept(seat, "play", {"n": i, "cards": [1, 2, 3]}) for i, seat in enumerate(order)]
    verifier = table.verifier
    assert verifier.entries == entries
    assert verifier.head == entries[-1].hash
    assert entries[0].prev == GENESIS
    assert all(b.prev == a.hash for a, b in pairwise(entries))
    assert [verifier.next_seq(seat) for seat in range(3)] == [4, 3, 3]
    assert verifier.proofs == []


def test_entry_fields_round_trip() -> None:
    entry = make_entry(IDS[0], GAME, 0, 5, b"\x07" * 32, "shuffle", {"deck": [b"\x01" * 32], "k": -3, "f": 0.5})
    decoded = decode_record(entry.record)
    assert decoded == entry
    assert (decoded.version, decoded.game_id, decoded.sender, decoded.seq, decoded.prev, decoded.kind) == (
        PROTOCOL_VERSION, GAME, 0, 5, b"\x07" * 32, "shuffle",
    )
    assert decoded.body == {"deck": [b"\x01" * 32], "k": -3, "f": 0.5}
    assert decoded.raw == msgpack.packb([PROTOCOL_VERSION, GAME, 0, 5, b"\x07" * 32, "shuffle", decoded.body], use_bin_type=True)
    assert IDS[0].public.verify(decoded.raw, decoded.signature)


def test_forged_signature_blames_the_named_sender() -> None:
    table = Table()
    table.accept(0)
    error = violation(table, table.entry(1, signer=IDS[2]))
    assert (error.peer, error.reason) == (1, "signature")


def test_wrong_game_id() -> None:
    table = Table()
    error = violation(table, table.entry(2, game_id=OTHER_GAME))
    assert (error.peer, error.reason) == (2, "game-id")


def test_a_group_follows_one_head_and_the_next_entry_names_the_group_hash_in_fixed_order() -> None:
    table = Table()
    root_entry = table.accept(0)
    root = table.verifier.head
    group = []
    for seat in (2, 1):  # arriving in another order than the group's fixed one (1, 2)
        entry = table.entry(seat)
        table.verifier.append(decode_record(entry.record), in_group=True)
        table.seq[seat] += 1
        group.append(entry)
        assert table.verifier.head == root  # the head waits for the whole group
    assert all(e.prev == root_entry.hash for e in group)
    fixed = [group[1].hash, group[0].hash]  # seat 1's, then seat 2's
    table.verifier.close_group(fixed)
    assert table.verifier.head == group_hash(root, fixed) != group_hash(root, fixed[::-1])
    table.accept(0)  # the entry after the group names its hash
    assert violation(table, table.entry(1, prev=group[0].hash)).reason == "chain"


def test_wrong_version() -> None:
    table = Table()
    record = signed_raw(IDS[1], [PROTOCOL_VERSION - 1, GAME, 1, 0, GENESIS, "play", None])  # an older peer
    with pytest.raises(LogViolation) as info:
        table.verifier.append(decode_record(record))
    assert (info.value.peer, info.value.reason) == (1, "version")


def test_unknown_sender() -> None:
    table = Table()
    error = violation(table, make_entry(IDS[3], GAME, 3, 0, GENESIS, "play", None))
    assert (error.peer, error.reason) == (3, "unknown-sender")


def test_replayed_entry_is_a_sequence_violation_not_equivocation() -> None:
    table = Table()
    first = table.accept(0)
    table.accept(1)
    error = violation(table, first)
    assert (error.peer, error.reason) == (0, "sequence")
    assert "replayed" in str(error)
    assert table.verifier.proofs == []


@pytest.mark.parametrize("seq", [1, 2, 7])
def test_skipped_sequence_number(seq: int) -> None:
    table = Table()
    table.accept(0)
    error = violation(table, table.entry(1, seq=seq))
    assert (error.peer, error.reason) == (1, "sequence")


def test_wrong_prev_hash() -> None:
    table = Table()
    first = table.accept(0)
    table.accept(1)
    error = violation(table, table.entry(2, prev=first.hash))
    assert (error.peer, error.reason) == (2, "chain")
    fresh = Table()
    error = violation(fresh, fresh.entry(2, prev=b"\x01" * 32))
    assert (error.peer, error.reason) == (2, "chain")


def test_equivocation_is_caught_and_proven() -> None:
    table = Table()
    table.accept(0)
    honest = table.accept(1, "play", {"card": 4})
    table.accept(2)
    # Seat 1 signs a second, different entry for the seq it already used.
    other = make_entry(IDS[1], GAME, 1, honest.seq, honest.prev, "play", {"card": 9})
    error = violation(table, other)
    assert (error.peer, error.reason) == (1, "equivocation")
    [proof] = table.verifier.proofs
    assert proof.peer == 1 and proof.verify(KEYS)

    portable = EquivocationProof.from_bytes(proof.to_bytes())
    assert portable == proof and portable.verify(KEYS)
    assert portable.verify({1: IDS[1].public})  # needs only the equivocator's key
    assert not portable.verify({1: IDS[0].public})
    assert not portable.verify({0: IDS[0].public})


def test_tampered_equivocation_proofs_do_not_verify() -> None:
    a = make_entry(IDS[1], GAME, 1, 3, GENESIS, "play", {"card": 4})
    b = make_entry(IDS[1], GAME, 1, 3, GENESIS, "play", {"card": 9})
    assert EquivocationProof(a, b).verify(KEYS)
    forged_b = decode_record(msgpack.packb([b.raw, IDS[2].sign(b.raw)], use_bin_type=True))
    other_seq = make_entry(IDS[1], GAME, 1, 4, GENESIS, "play", {"card": 9})
    other_game = make_entry(IDS[1], OTHER_GAME, 1, 3, GENESIS, "play", {"card": 9})
    other_sender = make_entry(IDS[2], GAME, 2, 3, GENESIS, "play", {"card": 9})
    for bad in [(a, a), (a, forged_b), (a, other_seq), (a, other_game), (a, other_sender)]:
        assert not EquivocationProof(*bad).verify(KEYS)
    # Bit flips in the serialised proof: either unparseable or not a valid proof.
    data = EquivocationProof(a, b).to_bytes()
    for index in range(0, len(data), 3):
        bad_bytes = data[:index] + bytes([data[index] ^ 0x10]) + data[index + 1 :]
        try:
            proof = EquivocationProof.from_bytes(bad_bytes)
        except MalformedRecord:
            continue
        assert not proof.verify(KEYS) or proof == EquivocationProof(a, b)


# -- malformed records -----------------------------------------------------------------


def good_fields() -> list[Any]:
    return [PROTOCOL_VERSION, GAME, 0, 0, GENESIS, "play", {"x": 1}]


def nested(depth: int) -> Any:
    body: Any = 0
    for _ in range(depth):
        body = [body]
    return body


MALFORMED = {
    "empty": b"",
    "garbage": b"\xc1\xff\x00garbage",
    "not an array": msgpack.packb({"a": 1}),
    "three elements": msgpack.packb([b"x", bytes(64), b"y"]),
    "entry is str": msgpack.packb(["entry", bytes(64)], use_bin_type=True),
    "short signature": msgpack.packb([msgpack.packb(good_fields(), use_bin_type=True), bytes(63)], use_bin_type=True),
    "trailing bytes": signed_raw(IDS[0], good_fields()) + b"\x00",
    "entry not msgpack": msgpack.packb([b"\xc1", bytes(64)], use_bin_type=True),
    "entry too short": signed_raw(IDS[0], good_fields()[:6]),
    "version is bool": signed_raw(IDS[0], [True, *good_fields()[1:]]),
    "version is str": signed_raw(IDS[0], ["1", *good_fields()[1:]]),
    "game id short": signed_raw(IDS[0], [1, GAME[:31], 0, 0, GENESIS, "play", None]),
    "game id str": signed_raw(IDS[0], [1, "g" * 32, 0, 0, GENESIS, "play", None]),
    "negative sender": signed_raw(IDS[0], [1, GAME, -1, 0, GENESIS, "play", None]),
    "float seq": signed_raw(IDS[0], [1, GAME, 0, 0.0, GENESIS, "play", None]),
    "negative seq": signed_raw(IDS[0], [1, GAME, 0, -5, GENESIS, "play", None]),
    "prev long": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS + b"\x00", "play", None]),
    "kind bytes": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, b"play", None]),
    "kind empty": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "", None]),
    "kind too long": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "k" * 65, None]),
    "too deep": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", nested(MAX_BODY_DEPTH + 1)]),
    "deeper than msgpack's stack": msgpack.packb([b"\x97" + b"\x91" * 5000 + b"\xc0", bytes(64)], use_bin_type=True),
    "ext type": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", msgpack.ExtType(5, b"abc")]),
    "int map key": msgpack.packb(
        [msgpack.packb([1, GAME, 0, 0, GENESIS, "play", {1: 2}], use_bin_type=True), bytes(64)], use_bin_type=True
    ),
    "invalid utf-8": msgpack.packb(
        [b"\x97\x01\xc4\x20" + GAME + b"\x00\x00\xc4\x20" + GENESIS + b"\xa2\xff\xfe\xc0", bytes(64)], use_bin_type=True
    ),
    "non-canonical int": msgpack.packb(
        [b"\x97\x01\xc4\x20" + GAME + b"\xcc\x00\x00\xc4\x20" + GENESIS + b"\xa4play\xc0", bytes(64)], use_bin_type=True
    ),
    "duplicate map key": msgpack.packb(
        [b"\x97\x01\xc4\x20" + GAME + b"\x00\x00\xc4\x20" + GENESIS + b"\xa4play\x82\xa1a\x01\xa1a\x02", bytes(64)],
        use_bin_type=True,
    ),
    "too many maps": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", [[{}] * 50_000, [{}] * 50_001]]),
    # one item past MAX_ITEMS (a 4 MiB body of small integers took 0.5 s to check: an attack)
    "too many items": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", [[0] * 8_188, [0] * 8_188]]),
    "too many items in a map": signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", {str(n): 0 for n in range(8_189)}]),
    # one signed entry in another encoding of the record: the log files would differ
    "record as array16": b"\xdc\x00\x02" + signed_raw(IDS[0], good_fields())[1:],
    "signature as bin16": _resign_header(signed_raw(IDS[0], good_fields())),
    "huge array header": b"\x92\xdd\xff\xff\xff\xff",
    "huge bin header": b"\x92\xc6\xff\xff\xff\xff",
}


def test_well_formed_baseline_decodes() -> None:
    decode_record(signed_raw(IDS[0], good_fields()))
    decode_record(signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", nested(MAX_BODY_DEPTH)]))
    decode_record(signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "k" * 64, None]))
    # MAX_ITEMS items in all: the entry's 7, the body's 2 lists, and 16 375 in them
    decode_record(signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", [[0] * 8_188, [{}] * 8_187]]))


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_records_are_refused(name: str) -> None:
    with pytest.raises(MalformedRecord):
        decode_record(MALFORMED[name])


def test_oversized_record_is_refused() -> None:
    body = bytes(MAX_RECORD_SIZE)
    record = signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", body])
    with pytest.raises(MalformedRecord, match="over the limit"):
        decode_record(record)
    small = signed_raw(IDS[0], [1, GAME, 0, 0, GENESIS, "play", bytes(2000)])
    decode_record(small)
    with pytest.raises(MalformedRecord):
        decode_record(small, max_size=1000)


@pytest.mark.parametrize("value", [None, "text", 17, [b"a"]])
def test_non_bytes_input_is_malformed(value: object) -> None:
    with pytest.raises(MalformedRecord):
        decode_record(value)


def test_make_entry_refuses_what_peers_would_reject() -> None:
    for args in [
        (GAME[:5], 0, 0, GENESIS, "play", None),
        (GAME, 0, 0, GENESIS, "", None),
        (GAME, 0, 0, GENESIS, "play", nested(MAX_BODY_DEPTH + 1)),
        (GAME, 0, 0, GENESIS, "play", {1: "int key"}),
        (GAME, 0, 0, GENESIS, "play", object()),
    ]:
        with pytest.raises(ValueError):
            make_entry(IDS[0], *args)


msgpack_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats() | st.text(max_size=20) | st.binary(max_size=40),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=5), children, max_size=5),
    max_leaves=15,
)
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(FUZZ, max_examples=500)
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data: bytes) -> None:
    with contextlib.suppress(MalformedRecord):
        decode_record(data)


@FUZZ
@given(msgpack_values)
def test_fuzz_random_msgpack_record(value: Any) -> None:
    with contextlib.suppress(MalformedRecord):
        decode_record(msgpack.packb(value, use_bin_type=True))


VALID_FIELDS = [PROTOCOL_VERSION, GAME, 1, 2, GENESIS, "play"]


@FUZZ
@given(
    (
        st.tuples(*(st.just(v) | msgpack_values for v in VALID_FIELDS), msgpack_values).map(list)
        | st.lists(msgpack_values, max_size=9)
    ),
    st.binary(min_size=62, max_size=66),
)
def test_fuzz_random_entry_fields(fields: list[Any], signature: bytes) -> None:
    """Entries whose fields are each either valid or random msgpack data."""
    raw = msgpack.packb(fields, use_bin_type=True)
    try:
        entry = decode_record(msgpack.packb([raw, signature], use_bin_type=True))
    except MalformedRecord:
        return
    assert entry.raw == raw and len(entry.signature) == 64
    with pytest.raises(LogViolation):
        LogVerifier(GAME, KEYS).append(entry)  # a random signature never verifies


@FUZZ
@given(st.data())
def test_fuzz_mutated_valid_records(data: st.DataObject) -> None:
    record = bytearray(make_entry(IDS[0], GAME, 0, 3, GENESIS, "play", {"cards": [1, 2, 3], "s": "x"}).record)
    for _ in range(data.draw(st.integers(1, 4))):
        index = data.draw(st.integers(0, len(record) - 1))
        record[index] = data.draw(st.integers(0, 255))
    cut = data.draw(st.integers(0, len(record)))
    try:
        entry = decode_record(bytes(record[:cut]))
    except MalformedRecord:
        return
    verifier = LogVerifier(GAME, KEYS)
    with contextlib.suppress(LogViolation):
        verifier.append(entry)


# -- the log file ----------------------------------------------------------------------


def some_records(n: int) -> list[bytes]:
    table = Table()
    return [table.accept(i % 3, "play", {"i": i}).record for i in range(n)]


def test_log_file_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "game.log"
    records = some_records(6)
    with LogWriter(path) as writer:
        for record in records[:4]:
            writer.append(record)
        writer.sync()
    with LogWriter(path) as writer:  # reopening appends
        for record in records[4:]:
            writer.append(record)
    assert read_log(path) == records
    verifier = LogVerifier(GAME, KEYS)
    for record in read_log(path):
        verifier.append(decode_record(record))
    assert len(verifier.entries) == 6


def test_truncated_tail_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "game.log"
    records = some_records(3)
    with LogWriter(path) as writer:
        for record in records:
            writer.append(record)
    whole = path.read_bytes()
    for cut in (1, 3, 4, 10, len(records[-1]) + 3):
        path.write_bytes(whole[:-cut])
        with pytest.raises(TruncatedLog) as info:
            read_log(path)
        assert info.value.records == records[:2]
        assert str(path) in str(info.value)
        with pytest.raises(TruncatedLog):
            LogWriter(path)
    # Repair cuts the partial record off; appending then frames correctly.
    with LogWriter(path, repair=True) as writer:
        writer.append(records[2])
    assert read_log(path) == records


def test_corrupt_length_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "game.log"
    path.write_bytes(b"\xff\xff\xff\xff" + bytes(10))
    with pytest.raises(LogFileError, match=r"claims 4294967295 bytes, outside 1\.\.4198400"):
        read_log(path)


def test_a_file_of_zeros_is_corrupt_at_its_first_record_not_millions_of_empty_ones(tmp_path: Path) -> None:
    """The writer never writes an empty record, so a length of 0 is a corrupt file."""
    path = tmp_path / "game.log"
    records = some_records(2)
    with LogWriter(path) as writer:
        for record in records:
            writer.append(record)
    at = path.stat().st_size
    with open(path, "ab") as file:
        file.write(bytes(16 * 2**20))
    with pytest.raises(LogFileError, match=f"the item at byte {at} claims 0 bytes"):
        read_log(path)


def test_a_file_larger_than_any_game_s_log_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "game.log"
    with open(path, "wb") as file:
        file.truncate(MAX_LOG_SIZE + 1)  # sparse: nothing is written to the disk
    with pytest.raises(LogFileError, match="over the limit of 256 MiB"):
        read_log(path)


def test_a_file_of_more_items_than_any_game_s_log_is_refused_while_it_is_read(tmp_path: Path) -> None:
    """A file of tiny items (found by a review: 252 MiB of 2-byte "records" took 2.7 GB and
    29 s before the first was checked) is refused once it passes MAX_LOG_RECORDS."""
    path = tmp_path / "game.log"
    item = struct.pack(">I", 2) + b"\x90\x90"
    path.write_bytes(item * (MAX_LOG_RECORDS + 1))
    with pytest.raises(LogFileError, match=f"more than {MAX_LOG_RECORDS} records"):
        read_log(path)
    path.write_bytes(item * MAX_LOG_RECORDS)
    assert len(read_log(path)) == MAX_LOG_RECORDS


def test_empty_log(tmp_path: Path) -> None:
    path = tmp_path / "game.log"
    LogWriter(path).close()
    assert read_log(path) == []
