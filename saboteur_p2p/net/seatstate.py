"""A seat's secrets on disk, so a peer that crashed can take its seat again.

Everything public is in the signed log; what only this seat knows is its deck key share
and the coin values it committed to and has not revealed yet.  They are written
(atomically, mode 0600) after every record this seat makes;
with the log they rebuild the seat exactly.
"""
from __future__ import annotations

import contextlib
import os
import time
from pathlib import Path
from typing import Any

import msgpack

from ..crypto.commit import check_reveal
from ..crypto.group import L, base_mul, hash_bytes
from ..crypto.log import LENGTH_PREFIX, BrokenLog, LogFileError, TruncatedLog, read_log
from ..files import NotAFile, open_regular, read_note, write_note, write_whole
from ..protocol.ending import names_a_cheat, split_ending
from ..protocol.errors import ProtocolViolation
from ..protocol.messages import printable
from ..protocol.node import GameSetup, Node

#: moves with the game protocol (9 now), so a seat of a game another release began is told so
#: rather than that its start was forged (found by review)
SECRETS_FORMAT = "saboteur-p2p/seat-secrets/5"
#: the most a seat secrets file may hold: a deck key and the coins of one game (at most 10,000)
MAX_SECRETS_BYTES = 2 << 20


def setup_digest(setup: GameSetup) -> bytes:
    """What the game this seat began with was: its id and every field of its genesis (rules,
    seats, names, the table's salt).  A seat takes its seat back only in that game: a start
    that gives the same id with another table would have a seat 0 whose log is still empty
    sign a genesis naming another table's salt (protocol.md §4.9), found by a review."""
    body: bytes = msgpack.packb(setup.genesis().encode(), use_bin_type=True)
    return hash_bytes("seat-setup", setup.game_id, body, size=32)


def export_secrets(node: Node) -> bytes:
    return msgpack.packb({
        "format": SECRETS_FORMAT,
        "game_id": node.setup.game_id,
        "setup": setup_digest(node.setup),
        "seat": node.seat,
        "x": node.secret,
        "coins": [[i, v, n] for i, (v, n) in node.my_coin.items()],
    }, use_bin_type=True)


class DamagedSeatFiles(ValueError):
    """This seat's own files cannot be read back as they were written: not another seat's fault."""


class OtherSetup(ValueError):
    """The start given names this seat's game, but not as the game began (another table,
    other seats, names or rules): the seat is not taken back in it."""


def import_secrets(node: Node, data: bytes) -> None:
    try:
        saved: Any = msgpack.unpackb(data, raw=False, strict_map_key=False, max_array_len=10_000, max_map_len=16)
    except Exception as exc:  # msgpack's spread of error types, some with no message
        raise DamagedSeatFiles(f"the saved seat secrets cannot be read ({type(exc).__name__})") from None
    if not isinstance(saved, dict):
        raise DamagedSeatFiles("the saved seat secrets are not a map")
    if isinstance(saved.get("format"), str) and saved["format"] != SECRETS_FORMAT:
        raise DamagedSeatFiles(f"the saved seat secrets were written by another release of saboteur-p2p "
                               f"({printable(saved['format'])[:60]}, not {SECRETS_FORMAT}): a game begun with it "
                               "cannot be taken back with this one")
    if saved.get("format") != SECRETS_FORMAT or saved.get("game_id") != node.setup.game_id or saved.get("seat") != node.seat:
        raise DamagedSeatFiles("the saved seat secrets belong to another game or seat")
    try:
        secret, coins = saved["x"], {i: (v, n) for i, v, n in saved["coins"]}
    except (KeyError, TypeError, ValueError):
        raise DamagedSeatFiles("the saved seat secrets lack the deck key or the coins") from None
    if not all(type(i) is int for i in coins):  # not int(): a float index was taken, an infinite one raised
        raise DamagedSeatFiles("a saved coin's index is not a whole number")
    if not (isinstance(secret, bytes) and len(secret) == 32 and 0 < int.from_bytes(secret, "little") < L):
        raise DamagedSeatFiles("the saved deck key is not a scalar of the group")
    if not all(isinstance(v, bytes) and isinstance(n, bytes) for v, n in coins.values()):
        raise DamagedSeatFiles("a saved coin is not a value and a nonce")
    if not isinstance(saved.get("setup"), bytes):
        raise DamagedSeatFiles("the saved seat secrets lack the game's setup")
    if saved["setup"] != setup_digest(node.setup):
        raise OtherSetup("the start we were given names this game, but its seats, names, rules or table are not "
                         "those the game began with: it is replayed or forged")
    node.secret = secret
    node.dealer.secret = secret
    node.my_coin = coins


def save_secrets(node: Node, path: Path) -> None:
    # whole (the process may die: the case rejoin is for), and on the disk before the record
    # that needs them goes out: after a power loss the others send that record back (a coin
    # committed to), and secrets saved before it, or none at all, lost the game at its reveal
    # (found by an attack).  A few saves a round: only records of SECRET_KINDS change them
    write_whole(path, export_secrets(node), mode=0o600, tmp=path.with_suffix(".tmp"))


def restore(node: Node, secrets_path: Path, log_path: Path, stopped_too: bool = False) -> int:
    """Rebuild a seat from its secrets and its own log; returns how many records it had.
    A log that ends with a verdict is a game this seat stopped: taken back only with
    ``stopped_too`` (``join --take-back``), never after a cheat."""
    try:
        with open_regular(secrets_path, "the saved seat secrets") as f:
            data = f.read(MAX_SECRETS_BYTES + 1)  # a file of ours, but read as any: bounded
    except NotAFile as exc:
        raise DamagedSeatFiles(str(exc)) from None
    if len(data) > MAX_SECRETS_BYTES:
        raise DamagedSeatFiles(f"the saved seat secrets {secrets_path} hold more than {MAX_SECRETS_BYTES >> 20} MiB")
    import_secrets(node, data)
    try:
        records = read_log(log_path)
    except BrokenLog as cut:
        # the tail that was being written when we died, or one a power loss left as zeros (a
        # file system may keep an unsynced tail's length but not its bytes: such a seat could
        # not take its seat back, and the game was lost, found by an attack); others' resends
        # bring the records again.  Any other damage is not ours to mend
        if not isinstance(cut, TruncatedLog) and not _zeros_from(log_path, cut.offset):
            raise DamagedSeatFiles(str(cut)) from None
        records = cut.records
        os.truncate(log_path, cut.offset)
    except LogFileError as exc:
        raise DamagedSeatFiles(str(exc)) from None
    assert node.seat is not None
    kept, ending = split_ending(records)  # a verdict written when the game stopped is no record
    if ending is not None and names_a_cheat(records[-1]):
        # taken back, the seat would let the cheater make its move again, and never hold it
        # against the version its verdict keeps (found by an attack)
        by = f" by seat {ending.culprit} ({ending.reason})" if ending.outcome == "cheater" else " (its verdict's end was lost)"
        raise GameStopped(f"its game stopped for a cheat{by}; a game stopped for a cheat is not taken up "
                               f"again (saboteur-p2p verify {log_path} checks it)")
    if ending is not None and not stopped_too:
        # a plain join to what looked like a new table took the seat back into a game it had
        # stopped, when that table's host (one of its seats) answered with the game's old
        # start: its missing seat was then named, and the verdict naming the host was gone
        # (found by an attack)
        if ending.outcome == "peer-gone" and ending.culprit == node.seat:
            said = "this seat lost the table"
        elif ending.outcome == "peer-gone" and ending.culprit is not None:
            said = f"seat {ending.culprit} went silent"
        else:
            said = f"it ended: {ending.outcome}" + (f", {printable(ending.reason)}" if ending.reason else "")
        raise GameStopped(f"its game stopped here ({said}), and a join does not take it up again unless asked: "
                          "join --take-back takes the seat back, if the table still plays that game")
    for index, record in enumerate(kept):
        try:
            node.receive(record)
        except ProtocolViolation as violation:
            if index == len(kept) - 1 and record is records[-1] and _torn(record, os.path.getsize(log_path)):
                # the last write, its length kept and its end lost to a power loss (the zeros
                # seldom begin where a record does: found by an attack): others resend it
                os.truncate(log_path, os.path.getsize(log_path) - len(record) - LENGTH_PREFIX)
                records.pop()
                break
            # every record in our log was checked when it came: one that fails now was damaged here
            raise DamagedSeatFiles(
                f"record {index} of the log no longer checks ({violation.reason}): the file was damaged on this machine"
            ) from None
    _check_own(node)
    return len(split_ending(records)[0])


#: zero bytes that end a record the disk lost the end of: a signature ends so once in 2**128
TORN_ZEROS = 16
#: a disk loses whole sectors: a tail of zeros that begins at a multiple of this many bytes
#: of the file is such a loss however short it is
SECTOR = 512


def _torn(record: bytes, end: int) -> bool:
    """Whether ``record``, which ends the log at file offset ``end`` and fails its checks, is a
    write whose end a power loss left as zeros: TORN_ZEROS of them, or all the bytes from the
    last sector boundary before the end (a record whose last 1-15 bytes fell in a lost sector)."""
    zeros = len(record) - len(record.rstrip(b"\0"))
    # the bytes from the last sector boundary before the end: all zeros if that sector was
    # lost (more zeros before it are the record's own: a byte of zero there was missed, review)
    lost = end - (end - 1) // SECTOR * SECTOR
    return zeros >= TORN_ZEROS or zeros >= lost


def _zeros_from(path: Path, offset: int) -> bool:
    """Whether the file holds only zero bytes from ``offset`` on."""
    with open(path, "rb") as f:
        f.seek(offset)
        while chunk := f.read(1 << 16):
            if chunk.count(0) != len(chunk):
                return False
    return True


def _check_own(node: Node) -> None:
    """DamagedSeatFiles unless the restored secrets are the ones this seat's records in its log
    were made with: a deck key or coin read back wrong would make shares or a reveal that the
    others must name as a cheat of this seat's."""
    assert node.seat is not None and node.secret is not None
    published = node.keys.get(node.seat)
    if published is not None and base_mul(node.secret) != published:
        raise DamagedSeatFiles("the saved deck key is not the key share this seat published in its log")
    for index, commitments in node.coin_commitments.items():
        if node.seat in commitments and node.seat not in node.coin_values.get(index, {}) and index not in node.my_coin:
            # saved before the commit that its log holds: the reveal due cannot be made
            raise DamagedSeatFiles(f"the saved secrets lack coin {index}, which this seat committed to in its log")
    for index, (value, nonce) in node.my_coin.items():
        committed = node.coin_commitments.get(index, {}).get(node.seat)
        if committed is not None and not check_reveal(committed, value, nonce, *node.commit_context(("coin", index))):
            raise DamagedSeatFiles(f"the saved coin {index} is not the one this seat committed to in its log")


def next_run(path: Path) -> int:
    """This run's number for the seat whose log is ``path`` (its ``link``'s ``incarnation``):
    the clock's nanoseconds, but past the last run's, kept in ``path.run`` (up to MAX_RUN - 1,
    which no clock before the year 2116 reaches).  A seat restarted while the clock read
    earlier than at its first run (no hardware clock, a snapshot restored) sent links the
    others took for a stale run's, and never rejoined (found by an attack)."""
    store = path.with_name(path.name + ".run")
    try:
        last = read_note(store, "run file")
    except (OSError, ValueError):
        last = 0
    kept = last + 1 if type(last) is int and 0 <= last < MAX_RUN else 0  # a number no run sends is no run's
    run = min(max(time.time_ns(), kept), MAX_RUN - 1)  # a clock past 2116 sends no number a peer refuses
    with contextlib.suppress(OSError, ValueError):
        write_note(store, run)
    return run


#: run numbers stay below this (a link's ``incarnation`` is a msgpack int: at most 2**64 - 1)
MAX_RUN = 1 << 62


class GameStopped(RuntimeError):
    """The seat's log ends with a verdict: after a cheat its game is over for good; else it is
    taken up again only when the person asks (``join --take-back``)."""


class SeatLost(RuntimeError):
    """This seat's saved state is incomplete: it cannot rejoin its game."""


def open_seat(node: Node, log_dir: Path, resuming: bool, stopped_too: bool = False) -> tuple[Path, Path, int | None]:
    """The seat's log and secrets paths in ``log_dir``, and how many records it was rebuilt
    from (None for a fresh seat, whose secrets are written now).  SeatLost when the seat
    cannot be taken back: a file missing, none of them for a game running when we joined
    (the seat must not start over with new secrets), or files damaged here."""
    assert node.seat is not None
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = f"game-{node.setup.game_id.hex()[:16]}-seat{node.seat}"
    log_path, secrets_path = log_dir / f"{stem}.log", log_dir / f"{stem}.secret"
    if secrets_path.exists() and log_path.exists():
        try:
            return log_path, secrets_path, restore(node, secrets_path, log_path, stopped_too)
        except OtherSetup as exc:
            raise SeatLost(f"cannot take seat {node.seat} back: {exc}") from None
        except DamagedSeatFiles as exc:
            raise SeatLost(f"cannot take seat {node.seat} back: its files in {log_dir} are damaged: {exc}") from None
        except GameStopped as exc:
            raise SeatLost(f"cannot take seat {node.seat} back: {exc}") from None
    if log_path.exists() or secrets_path.exists():
        missing = secrets_path if log_path.exists() else log_path
        raise SeatLost(f"cannot take seat {node.seat} back: {missing} is missing (a seat needs both its log and its secrets)")
    if resuming:
        raise SeatLost(
            f"cannot take seat {node.seat} back: {log_dir} holds no log or secrets of seat {node.seat} "
            "of this game (a seat needs both its log and its secrets)"
        )
    save_secrets(node, secrets_path)
    return log_path, secrets_path, None
