"""Checking a game log from outside: every signature, link, commitment, proof and share,
and every move replayed through the rules engine, as a spectator that holds no secret."""
from __future__ import annotations

from dataclasses import dataclass

from ..crypto.identity import PublicIdentity
from ..crypto.log import LogFileError, MalformedRecord, TruncatedLog, decode_record, read_log
from ..rules import GameConfig
from .messages import Genesis, MalformedMessage
from .node import GameSetup, Node, ProtocolViolation


@dataclass(frozen=True)
class Verdict:
    ok: bool
    records: int
    message: str
    scores: tuple[int, ...] | None = None
    culprit: int | None = None
    finished: bool = False


def setup_from_genesis(record: bytes) -> GameSetup:
    """The agreed game, as its first record states it."""
    entry = decode_record(record)
    if entry.kind != "genesis" or entry.seq != 0:
        raise MalformedMessage("the log does not start with a genesis record")
    genesis = Genesis.decode(entry.body)
    seats = tuple(PublicIdentity(sign, dh) for sign, dh in genesis.seats)
    return GameSetup(entry.game_id, GameConfig.from_data(genesis.config), seats, genesis.names, genesis.shuffle_rounds)


def verify_records(records: list[bytes]) -> Verdict:
    return replay_records(records)[0]


def replay_records(records: list[bytes]) -> tuple[Verdict, Node | None]:
    """Check every record as a spectator; returns the verdict and the spectator's node."""
    if not records:
        return Verdict(False, 0, "the log is empty"), None
    try:
        setup = setup_from_genesis(records[0])
        observer = Node(setup, None)
    except (MalformedRecord, MalformedMessage, ValueError, KeyError, TypeError) as exc:
        return Verdict(False, 0, f"record 0: not a valid genesis record: {exc!r}", culprit=0), None
    for index, record in enumerate(records):
        try:
            observer.receive(record)
        except ProtocolViolation as violation:
            if 0 <= violation.peer < len(setup.names):
                who = f"seat {violation.peer} ({setup.names[violation.peer]})"
            else:
                who = "an unknown sender"
            why = f"record {index}: {violation.reason} by {who}: {violation.detail}"
            return Verdict(False, index, why, culprit=violation.peer), observer
    state = observer.state
    if observer.finished and state is not None and state.scores is not None:
        scores = ", ".join(f"{setup.names[i]} {s}" for i, s in enumerate(state.scores))
        summary = f"OK: {len(records)} records, final scores: {scores}"
        return Verdict(True, len(records), summary, state.scores, finished=True), observer
    head = observer.next_expected
    waiting = "" if head is None else f"; the next record was due from seat {head.speaker} ({head.kind})"
    round_ = 0 if state is None else state.round
    summary = f"OK so far: {len(records)} valid records, but the game stops in round {round_}{waiting}"
    return Verdict(True, len(records), summary), observer


def verify_file(path: str) -> Verdict:
    return replay_file(path)[0]


def replay_file(path: str) -> tuple[Verdict, Node | None]:
    try:
        records = read_log(path)
    except TruncatedLog as exc:
        verdict, observer = replay_records(exc.records)
        message = f"{verdict.message}; then the file ends inside a record at byte {exc.offset}"
        return Verdict(False, verdict.records, message, verdict.scores, verdict.culprit), observer
    except (LogFileError, OSError) as exc:
        return Verdict(False, 0, f"cannot read the log {path}: {exc}"), None
    return replay_records(records)
