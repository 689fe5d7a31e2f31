"""How a stopped game's log says why it stopped: a verdict trailer after the last record.

A seat whose game stops before its end (a cheat, a seat gone, a seat that left) appends one
*verdict* to its log file, after the records: the msgpack array ``["verdict", {"outcome",
"culprit", "reason", "detail", "evidence"}]``.  It is not a record and nobody signs it, so it
is believed only as far as it can be checked: ``verify`` replays the records, then checks
the evidence itself (an equivocation proof, a split-table proof, or the refused record, which must bring the
same violation to light), or, for a seat gone, that the log was indeed waiting for it.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import msgpack

from ..crypto.log import MAX_RECORD_SIZE, EquivocationProof, MalformedRecord, counted_containers, decode_record
from .errors import UNSIGNED_REASONS
from .messages import printable
from .node import Node, ProtocolViolation
from .split import split_table
from .stale import out_of_turn_at_a_past_point

VERDICT_TAG = "verdict"
OUTCOMES = ("cheater", "peer-gone", "quit")
#: the reasons of a *peer-gone* verdict whose seat saw the absent seat play another game:
#: heard signing for it, or its link endpoint refused ours (protocol.md §4.9, §11)
OTHER_GAME = "other-game"
LINK_REFUSED = "link-refused"
#: a seat stopped the game saying another withheld a record, which then came late (at the end
#: of the log's seat's own wait): nobody is blamed
LATE_RECORD = "late-record"
#: a seat stopped the game saying another was gone whose silence the log's seat could not judge
#: (a third seat said it heard it, the log's seat did not listen, the log's seat's pings had
#: told the table it was silent, or the sender's own wait, shorter, may have run out), and
#: which then came back, or stayed silent while a third seat vouched for it: nobody is blamed
UNCLEAR_SILENCE = "unclear-silence"
GONE_NOTES = {
    OTHER_GAME: "signed its messages for another game",
    LINK_REFUSED: "refused its link (it admits only the seats of its own game)",
}
#: refusals that show nothing against the seat a record names: unsigned or of another game,
#: a copy, or a record that does not follow the log (a stale branch)
NOT_PROOF = UNSIGNED_REASONS | {"sequence", "chain"}


@dataclass(frozen=True)
class Ending:
    """Why a game stopped, as the seat that wrote the log saw it."""

    outcome: str
    culprit: int | None
    reason: str = ""
    detail: str = ""
    evidence: bytes | None = None
    #: the seat whose log this is (None: not said)
    seat: int | None = None

    def to_bytes(self) -> bytes:
        # a record is the evidence, whole: the log file's items hold a record and this much more
        evidence = self.evidence if self.evidence is not None and len(self.evidence) <= MAX_RECORD_SIZE else None
        body = {"outcome": self.outcome, "culprit": self.culprit, "reason": _cut(self.reason, 64),
                "detail": _cut(self.detail, 500), "evidence": evidence, "seat": self.seat}
        data: bytes = msgpack.packb([VERDICT_TAG, body], use_bin_type=True)
        return data

    @classmethod
    def from_bytes(cls, data: bytes) -> Ending | None:
        """The verdict in ``data``; None if it is not one (a record); an *unreadable* verdict
        if it is tagged as one but cannot be read (it is never taken for a record)."""
        if data[:len(_TAGGED)] != _TAGGED:
            return None  # a record (or junk): not unpacked here, whatever its size
        hook = counted_containers(2)  # the array and its body: no more
        try:
            value: Any = msgpack.unpackb(
                data, raw=False, max_bin_len=MAX_RECORD_SIZE, max_str_len=4096, max_array_len=2, max_map_len=16,
                list_hook=hook, object_hook=hook,
            )
        except Exception:  # msgpack's spread of error types, and the hook's: none may escape
            return cls("unreadable", None)
        body = value[1] if isinstance(value[1], dict) else {}  # value is [VERDICT_TAG, ...]: its bytes begin so
        outcome, culprit, seat, evidence = body.get("outcome"), body.get("culprit"), body.get("seat"), body.get("evidence")
        if outcome not in OUTCOMES or not (_seat_or_none(culprit) and _seat_or_none(seat)):
            return cls("unreadable", None)
        reason, detail = body.get("reason", ""), body.get("detail", "")
        # cut as to_bytes cuts them: a forged verdict's 4,000-character reason pushed the
        # words that refute it screens away in a spectator's line (found by an attack)
        return cls(
            outcome, culprit,
            _cut(printable(reason), 64) if isinstance(reason, str) else "",
            _cut(printable(detail), 500) if isinstance(detail, str) else "",
            evidence if isinstance(evidence, bytes) else None, seat,
        )


#: how every verdict's bytes begin: a 2-array, then the tag as a 7-character str
_TAGGED = b"\x92\xa7" + VERDICT_TAG.encode()


#: how a cheater verdict's bytes begin (``to_bytes`` writes its six fields, the outcome first):
#: what one whose end a power loss left as zeros still says
_CHEATER = _TAGGED + b"\x86" + msgpack.packb("outcome") + msgpack.packb("cheater")
#: the bytes of it that tell it from the other outcomes: through the outcome's header, which
#: says 7 characters, and only "cheater" has 7 (OUTCOMES)
_CHEATER_TOLD = len(_TAGGED) + 1 + len(msgpack.packb("outcome")) + 1


def names_a_cheat(blob: bytes) -> bool:
    """Whether ``blob`` is a verdict that a seat cheated, readable or not: torn at its end
    (zeros from some byte on), it read as unreadable and let the seat be taken back into a
    game stopped for a cheat (review), so what is left of it before the zeros is read too."""
    found = Ending.from_bytes(blob)
    if found is None:
        return False
    if found.outcome == "cheater" or blob.startswith(_CHEATER):
        return True
    kept = blob.rstrip(b"\0")  # "cheater" and the bytes before it hold no zero byte
    return len(kept) >= _CHEATER_TOLD and _CHEATER.startswith(kept)


def _cut(text: str, limit: int) -> str:
    """At most ``limit`` bytes of UTF-8, cut at a character."""
    return text.encode()[:limit].decode(errors="ignore")


def _seat_or_none(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool))


def split_ending(blobs: list[bytes]) -> tuple[list[bytes], Ending | None]:
    """A log file's records, and its verdict: the last one, if no record follows it (a seat
    that rejoined its game after it wrote one played on: that verdict no longer says why the
    log stops, and verify read it as if it did, found by an attack)."""
    records: list[bytes] = []
    ending = None
    for blob in blobs:
        found = Ending.from_bytes(blob)
        if found is None:
            records.append(blob)
            ending = None
        else:
            ending = found
    return records, ending


def judge(ending: Ending, observer: Node, names: tuple[str, ...]) -> tuple[bool, str]:
    """Whether the log bears the verdict out, and what to say: checked against the replayed log."""
    culprit = ending.culprit
    known = culprit is not None and 0 <= culprit < len(names)
    who = f"seat {culprit} ({names[culprit]})" if culprit is not None and known else "no seat of this game"
    if ending.outcome == "unreadable":
        return False, "stopped: the log ends with a verdict that cannot be read"
    if ending.outcome == "quit":  # nothing in the log can show who left: it is reported, nobody is named
        said = f"stopped: the log says {who} left the table or stopped the game (a claim verify cannot check)"
        if ending.reason == LATE_RECORD:
            said += ("; it said a seat withheld a record, which came to the log's seat late, at the end of its own "
                     "wait: the log's seat blames nobody")
        elif ending.reason == UNCLEAR_SILENCE:
            said += ("; it said a seat was gone whose silence the log's seat could not judge (another seat said it "
                     "heard it, the log's seat was busy, it came back only after the log's seat's pings had told the "
                     "table it was silent longer than its wait, or it had kept the log's seat waiting long enough that "
                     "a seat with a shorter wait may rightly have said so): the log's seat blames nobody")
        return False, said
    if ending.outcome == "peer-gone":
        if known and culprit == ending.seat:
            return False, f"stopped: the log's own seat, {who}, lost the table (a claim verify cannot check)"
        if known and any(e.speaker == culprit for e in observer.outstanding):
            # absence leaves no signed trace: the log bears the claim out only as far as one log
            # can, and a log cut short there reads the same (found by review: an unsigned trailer
            # added to a cut copy of a log named an honest seat)
            said = (f"stopped: the log says {who} went silent; the next record was due from it (a claim: a log cut "
                    "short there reads the same; the other seats' logs hold that record if it was sent)")
            note = GONE_NOTES.get(ending.reason)
            if note is not None:  # the log's seat's own word: nothing here can show it
                said += (f" (but the log's seat says it {note}: if the host started the seats on different games, "
                         f"it waited in vain as well and is not to blame; verify cannot check this)")
            return True, said
        return False, f"stopped: the log says {who} went silent, but it owed no record where the log ends"
    violation = _evidence_shows(ending.evidence, observer)
    if violation is not None and violation.peer == culprit == -1 and violation.reason == "bad-deck":
        return True, "stopped: a card opened to no card, so a shuffle was false (bad-deck); no one seat can be named"
    if violation is not None and known and violation.peer == culprit:
        return True, f"stopped: {who} cheated ({violation.reason}), evidence checks"
    return False, f"stopped: the log says {who} cheated ({ending.reason}), but its evidence does not show it"


def stood_before(reason: str, evidence: bytes | None, node: Node) -> bool:
    """Whether a game whose last record ``node`` holds stands, though a cheat is named after
    it: the cheat is a record out of turn that the log does not hold, or a second version of
    a record of a step before the last (made up once every seat held the game).  Two versions
    of the last step's records may have given the seats other games (a Saboteur 2 game's last
    steal changes the scores: found by an attack), and any other cheat is in the game's own
    records: no score stands then.  The sessions (``net/verdicts.py``) and ``verify`` judge alike."""
    state = node.state
    if evidence is None or state is None or state.scores is None:
        return False
    if reason == "out-of-turn":
        return evidence not in node.records
    if reason != "equivocation":
        return False
    try:
        proof = EquivocationProof.from_bytes(evidence)
    except (MalformedRecord, ValueError):
        return False
    versions = (proof.entry_a.record, proof.entry_b.record)
    records, starts = node.records, node.step_starts
    held = next((i for i, record in enumerate(records) if record in versions), None)
    # where the last step began (the step list ends with where a next one would begin)
    last_step = starts[-2] if len(starts) > 1 and starts[-1] == len(records) else starts[-1]
    return held is not None and held < last_step


def _evidence_shows(evidence: bytes | None, observer: Node) -> ProtocolViolation | None:
    """The violation the evidence brings to light when offered to the replayed log, if any."""
    if evidence is None:
        return None
    try:
        proof = EquivocationProof.from_bytes(evidence)
    except (MalformedRecord, ValueError):
        proof = None
    if proof is not None:
        same_game = proof.entry_a.game_id == observer.setup.game_id
        if same_game and proof.verify(dict(enumerate(observer.setup.seats))):
            return ProtocolViolation(proof.peer, "equivocation", "two different records with one seq")
        return None
    split = split_table(evidence, observer.setup)
    if split is not None:
        return split
    try:
        # on a copy: evidence that is a valid next record was taken in, and replay showed its
        # move as the log's (found by an attack)
        copy.deepcopy(observer).receive(evidence)
    except ProtocolViolation as violation:
        if violation.reason == "chain":  # it extends an earlier point of the log: out of turn there?
            try:
                return out_of_turn_at_a_past_point(observer, decode_record(evidence))
            except MalformedRecord:
                return None
        if violation.reason in NOT_PROOF:
            return None  # proves nothing against the seat it names
        return violation
    return None


__all__ = [
    "GONE_NOTES", "LATE_RECORD", "LINK_REFUSED", "OTHER_GAME", "UNCLEAR_SILENCE", "Ending", "judge", "split_ending",
    "stood_before",
]
