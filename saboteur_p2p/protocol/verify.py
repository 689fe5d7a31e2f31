"""Checking a game log from outside: every signature, link, commitment, proof and share,
and every move replayed through the rules engine, as a spectator that holds no secret."""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from ..crypto.identity import PublicIdentity, verify_signature
from ..crypto.log import (
    PROTOCOL_VERSION,
    BrokenLog,
    LogFileError,
    MalformedRecord,
    TruncatedLog,
    decode_record,
    read_log,
)
from ..rules import GameConfig
from .ending import NOT_PROOF, judge, split_ending, stood_before
from .errors import UNSIGNED_REASONS
from .forfeit import forfeit_scores
from .messages import Genesis, MalformedMessage
from .node import GameSetup, Node, ProtocolViolation

#: ``progress(records checked, records in all)``
Progress = Callable[[int, int], None]
#: called with the spectator's node after each record it took in (the replay viewer's
#: players panel reads the table as it stood then)
Each = Callable[[Node], None]


@dataclass(frozen=True)
class Verdict:
    ok: bool
    records: int
    message: str
    scores: tuple[int, ...] | None = None
    #: the seat a signed record proves cheated
    culprit: int | None = None
    finished: bool = False
    #: the seat the log says went silent, where the log bears that out: its holder's word,
    #: since a log cut short reads the same (a *peer-gone* verdict, protocol.md §12.5)
    silent: int | None = None


def setup_from_genesis(record: bytes) -> GameSetup:
    """The agreed game, as its first record states it."""
    entry = decode_record(record)
    if entry.kind != "genesis" or entry.seq != 0:
        raise MalformedMessage("the log does not start with a genesis record")
    genesis = Genesis.decode(entry.body)
    seats = tuple(PublicIdentity(sign, dh) for sign, dh in genesis.seats)
    return GameSetup(entry.game_id, GameConfig.from_data(genesis.config), seats, genesis.names, genesis.table, genesis.wait_ms)


def seat_0_signer(record: bytes) -> str | None:
    """Seat 0's keys, as a person compares them (their fingerprint), if seat 0 signed this
    first record as a genesis of this protocol version with the signing key its body gives
    seat 0 under ``seats`` (another version's genesis proves nothing, as any record of one);
    else None.  The record is then its signer's, however wrong: only the keys are read from
    the body (found by review: a wrong name or an extra field named nobody, a wrong player
    count seat 0).  The keys are the record's own word, hence the fingerprint."""
    try:
        entry = decode_record(record)
    except MalformedRecord:
        return None
    if (entry.version, entry.kind, entry.sender) != (PROTOCOL_VERSION, "genesis", 0):
        return None  # (a genesis seat 0 signed with a seq other than 0 is its own mistake)
    seats = entry.body.get("seats") if isinstance(entry.body, dict) else None
    keys = seats[0] if isinstance(seats, list) and seats and isinstance(seats[0], list) else []
    sign_key, dh_key = [*keys, None, None][:2]
    if not isinstance(sign_key, bytes) or not verify_signature(sign_key, entry.raw, entry.signature):
        return None
    if isinstance(dh_key, bytes) and len(dh_key) == len(sign_key):
        try:
            return PublicIdentity(sign_key, dh_key).fingerprint()
        except ValueError:  # a key-agreement key of small order: seat 0 signed a bad genesis (found by an attack)
            pass
    return f"signing key {sign_key.hex()[:16]}…"


def _bad_genesis(record: bytes, error: Exception) -> Verdict:
    """The verdict on a first record that is not a valid genesis, naming seat 0 if it signed it."""
    detail = str(error) or type(error).__name__
    signer = seat_0_signer(record)
    if signer is None:
        return Verdict(False, 0, f"record 0: not a valid genesis record, and not signed by the seat 0 it names "
                                 f"(anyone may have made it): {detail}")
    return Verdict(False, 0, f"record 0: not a valid genesis record, signed by seat 0 (the host, {signer}): {detail}",
                   culprit=0)


def _signed_out_of_sequence(violation: ProtocolViolation, record: bytes, observer: Node) -> bool:
    """A record that follows the head (so nothing is missing before it in the file) with a seq
    other than its sender's next: its sender signed that very mistake, and is named for it.
    A copy of a record already taken in is not one: the head does not move within a group, so
    a copy of a group's record follows it too, and only the file repeats it."""
    if violation.reason != "sequence":
        return False
    try:
        entry = decode_record(record)
    except MalformedRecord:
        return False
    return entry.prev == observer.log.head and not observer.log.holds(entry)


def _seat_0_signed_a_misplaced_genesis(violation: ProtocolViolation, index: int, record: bytes) -> bool:
    """A first record seat 0 signed whose prev is not the empty log's: nothing can come before
    a genesis, so seat 0 signed that mistake (it was blamed on the file, found by an attack)."""
    return index == 0 and violation.reason in ("sequence", "chain") and seat_0_signer(record) is not None


#: what a record refused for a reason that proves nothing against its named sender is
_UNPROVEN = {
    "version": "is of another protocol version",
    "game-id": "is of another game",
    "malformed-record": "cannot be read as a record",
    "unknown-sender": "names a sender this game does not have",
}


def verify_records(records: list[bytes]) -> Verdict:
    return replay_records(records)[0]


def replay_records(
    blobs: list[bytes], progress: Progress | None = None, each: Each | None = None,
) -> tuple[Verdict, Node | None]:
    """Check every record as a spectator; returns the verdict and the spectator's node.

    A log that stops before the game's end may end with a verdict (ending.py): it is checked
    against the records, and the verdict says whether it holds.  ``progress(done, total)`` is
    called after each record checked, ``each(node)`` after each record taken in."""
    records, ending = split_ending(blobs)
    if not records:
        return Verdict(False, 0, "the log is empty"), None
    try:
        setup = setup_from_genesis(records[0])
        observer = Node(setup, None)
    except (MalformedRecord, MalformedMessage, ValueError, KeyError, TypeError) as exc:
        return _bad_genesis(records[0], exc), None
    for index, record in enumerate(records):
        try:
            observer.receive(record)
        except ProtocolViolation as violation:
            if 0 <= violation.peer < len(setup.names):
                who = f"seat {violation.peer} ({setup.names[violation.peer]})"
            else:
                who = "an unknown sender"
            if violation.reason in NOT_PROOF and not _signed_out_of_sequence(violation, record, observer) \
                    and not _seat_0_signed_a_misplaced_genesis(violation, index, record):
                # not signed by the seat it names (or not of this game), or signed but not in its
                # place (the file lost, repeated or reordered records): anyone may have made the
                # file so, and it proves nothing against that seat, as at every peer (§8)
                what = _UNPROVEN.get(violation.reason, "is not signed as it claims") if violation.reason in UNSIGNED_REASONS \
                    else "does not follow the records before it (the file misses, repeats or reorders records)"
                why = f"record {index}: {violation.reason}: the record {what}; it names {who}, " \
                      f"but proves nothing against it: {violation.detail}"
                return Verdict(False, index, why), observer
            why = f"record {index}: {violation.reason} by {who}: {violation.detail}"
            if ending is not None and ending.outcome == "cheater" and ending.culprit == violation.peer \
                    and violation.reason not in UNSIGNED_REASONS:
                # a seat that took the record in before it could check all of it (a sealed share
                # for another seat, a shuffle proof checked later: §8.3) keeps it in its log, and
                # the record, signed by the seat its verdict names, shows the cheat by itself
                said = f"stopped: {who} cheated ({violation.reason}), evidence checks (record {index}, in the log)"
                return Verdict(True, index, f"{said}; {why}", culprit=violation.peer), observer
            return Verdict(False, index, why, culprit=violation.peer), observer
        if each is not None:
            each(observer)
        if progress is not None:
            progress(index + 1, len(records))
    state = observer.state
    if observer.finished and state is not None and state.scores is not None:
        scores = ", ".join(f"{setup.names[i]} {s}" for i, s in enumerate(state.scores))
        summary = f"OK: {len(records)} records, final scores: {scores}"
        if ending is not None and ending.outcome == "cheater":
            # a record out of turn that reached another seat before the game's last record
            # was still a cheat, named by a seat that had finished (after the records)
            holds, said = judge(ending, observer, setup.names)
            if holds and stood_before(ending.reason, ending.evidence, observer):
                summary = f"{said} (after the game's end); {len(records)} records, final scores: {scores}"
                return Verdict(True, len(records), summary, state.scores, culprit=ending.culprit, finished=True), observer
            if holds:
                # as the sessions, no score (an attack): two versions of a record of the last step
                # (the seats may hold other games; the scores here are this log's version), or a
                # cheat in the game's own records
                why = f"in the game's last step; {len(records)} records; no score stands: other seats may hold the " \
                      f"other version (this log's scores would be {scores})" if ending.reason == "equivocation" else \
                      f"in the game's own records; {len(records)} records; no score stands"
                return Verdict(True, len(records), f"{said} {why}", culprit=ending.culprit), observer
        return Verdict(True, len(records), summary, state.scores, finished=True), observer
    head = observer.next_expected
    waiting = "" if head is None else f"; the next record was due from seat {head.speaker} ({head.kind})"
    round_ = 0 if state is None else state.round
    summary = f"OK so far: {len(records)} valid records, but the game stops in round {round_}{waiting}"
    if ending is None:
        return Verdict(True, len(records), summary), observer
    holds, said = judge(ending, observer, setup.names)
    summary = f"{said}; {len(records)} valid records, round {round_}{waiting}"
    kept: tuple[int, ...] | None = None
    if holds and ending.outcome == "peer-gone" and ending.culprit is not None:
        forfeit = forfeit_scores(observer, ending.culprit)  # it withheld the final reveal of the gold
        if forfeit is not None:
            # a log cut short where that seat owed its record reads the same as one whose seat
            # went silent there: the score rests on the word of the log's holder (found by review)
            summary = f"{summary}; {forfeit.describe(setup.names)} (on the word of this log's seat: verify cannot " \
                      "tell a seat that went silent from a log cut short there; compare the other seats' logs)"
            kept = forfeit.scores
    if ending.outcome == "peer-gone":
        return Verdict(True, len(records), summary, kept, silent=ending.culprit if holds else None), observer
    return Verdict(True, len(records), summary, kept, culprit=ending.culprit if holds else None), observer


def verify_file(path: str) -> Verdict:
    return replay_file(path)[0]


def describe_setup(setup: GameSetup) -> list[str]:
    """What a person must check a verdict against: who the seats are (their fingerprints, to
    compare with the players'), and how the shuffles were proven.  A log states both itself,
    so a log made up by one person verifies too: only these lines tell it apart."""
    named = enumerate(zip(setup.names, setup.seats, strict=True))
    # each name quoted (its own quotes escaped): a name may hold what looks like a fingerprint
    seats = ", ".join(f"{seat} {json.dumps(name, ensure_ascii=False)} {key.fingerprint()}" for seat, (name, key) in named)
    return [
        f"seats (compare these fingerprints with the players'): {seats}",
        "proof parameters: Terelius-Wikstrom proofs of a shuffle (a bad shuffle passes with negligible probability)",
    ]


def _bare(fingerprint: str) -> str:
    return fingerprint.strip().lower().replace("-", "")


def unexpected_seats(setup: GameSetup, expected: list[str]) -> str | None:
    """Why the log's seats are not the ``expected`` fingerprints (any order, each once), or None.

    Compared as sets, a log whose one key held two seats passed ``--expect`` with two
    fingerprints for three seats (found by an attack)."""
    # with or without its dashes, in either case (a play-test typed one without them)
    given = {_bare(fingerprint): fingerprint.strip().lower() for fingerprint in expected if fingerprint.strip()}
    wanted = Counter(_bare(fingerprint) for fingerprint in expected if fingerprint.strip())
    seats = [_bare(key.fingerprint()) for key in setup.seats]
    shown = {bare: key.fingerprint() for bare, key in zip(seats, setup.seats, strict=True)}
    found = Counter(seats)
    if found == wanted:
        return None
    strangers = [f"seat {s} ({setup.names[s]}) is {shown[bare]}" for s, bare in enumerate(seats) if bare not in wanted]
    twice = [f"seats {', '.join(str(s) for s, held in enumerate(seats) if held == bare)} are all {shown[bare]}"
             for bare, times in sorted(found.items()) if times > max(1, wanted[bare])]
    missing = sorted(given[bare] for bare in set(wanted) - set(found))
    parts = strangers + twice + ([f"nobody is {', '.join(missing)}"] if missing else [])
    return "the log's seats are not the expected ones: " + ("; ".join(parts) or "a fingerprint is given more times than "
                                                           "seats hold it")


def replay_file(path: str, progress: Progress | None = None, each: Each | None = None) -> tuple[Verdict, Node | None]:
    try:
        records = read_log(path)
    except BrokenLog as exc:  # the records before the break are checked all the same
        verdict, observer = replay_records(exc.records, progress, each)
        if isinstance(exc, TruncatedLog):
            where = "its first record" if exc.offset == 0 else "a record"
            damage = f"the file ends inside {where} at byte {exc.offset}"
        else:
            damage = f"the file is corrupt from byte {exc.offset}: {exc}"
        if not exc.records:
            return replace(verdict, ok=False, message=f"DAMAGED LOG: {damage}"), observer
        # the records before the damage are checked, but the log is not whole: its verdict must
        # not open with "OK" (the command exits 1; found by a play-test)
        before = verdict.message.removeprefix("OK: ").removeprefix("OK so far: ")
        message = f"DAMAGED LOG: {damage}; the records before it: {before}"
        return replace(verdict, ok=False, message=message), observer
    except (LogFileError, OSError) as exc:
        return Verdict(False, 0, f"cannot read the log {path}: {exc}"), None
    return replay_records(records, progress, each)
