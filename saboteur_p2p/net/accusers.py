"""What another seat could know when its wait for a seat ran out and it said that seat was
gone (protocol.md §12.4): the judgments ``Absence`` makes of such a word before it names
anyone.  Each seat hears its own messages (and a player may give a --wait other than the
table's): a word that is right by what its sender knew may look early here, and a liar
times its messages to make it so.

Mixed into ``Session`` through ``Absence``, which provides ``presence``, ``wait`` and
``_head_moved``.
"""
from __future__ import annotations

from dataclasses import dataclass

from .presence import AWAY_MIN, BUSY_MAX, Presence

#: a protocol record that comes here this close to the end of our own wait for it (at most
#: half the wait), or later, came late: another seat's wait for it, started by the resends
#: that brought that seat the record before it (whose order a withholding seat chooses), may
#: have run out first, honestly; or that seat said it was withheld too soon, and its maker was
#: only slow.  Nothing here tells the two apart, so a `gone` saying it was withheld blames
#: nobody then (found by attacks: naming the `gone`'s sender named an honest seat whose wait
#: ran out first; naming the record's maker named an honest seat a liar said withheld it)
LATE_GRACE = 3.0


def late_grace(wait: float) -> float:
    """LATE_GRACE of a seat whose wait is ``wait``: at most half of it."""
    return min(LATE_GRACE, wait / 2)


def due_start(head: float, busy_until: float) -> float:
    """When a protocol record owed since the log's head moved at ``head`` is due, the seat
    having said it is busy until ``busy_until``: the later of the two, a busy notice moving it
    on by at most BUSY_MAX (a seat that says busy again and again still owes its record)."""
    return max(head, min(busy_until, head + BUSY_MAX))


#: the least time (s) a ping of ours must have gone before another seat's word for that seat to
#: have read it first (``AccuserView._word_trip``)
WORD_TRIP_MIN = 0.5


@dataclass(frozen=True)
class GoneClaim:
    """Another seat ended the game saying ``absent``, which owes the ``kind`` record our log
    waits for at ``head``, is gone (or withholds it); ``heard`` is how many messages we had
    heard from ``absent`` then."""

    sender: int
    absent: int
    head: bytes
    kind: str
    heard: int
    #: when we took the word as a claim (time.monotonic): our own wait for the seat counts from then
    since: float
    #: ``absent`` had been silent longer than our wait, and only another seat's word that it
    #: hears it, or our own time not listening, kept us from naming it: then nothing it does
    #: later tells us who was right (a colluder vouched for a silent liar, which came back; our
    #: loop stalled as the accuser's wait ran out: attacks)
    unclear: bool = False
    #: the protocol record ``absent`` owed had been due here about as long as the accuser's own
    #: wait: if it comes, nobody is blamed (the accuser may have been right by its wait)
    owed_long: bool = False

    @property
    def withheld(self) -> bool:
        """A claim about a record no person makes (the seat may be present and still stall)."""
        return self.kind != "action"


class AccuserView:
    """Judgments of what an accuser could know (a mixin of ``Absence``)."""

    presence: Presence
    wait: float
    #: when our log's head last moved (by the clock: not moved on by our own stalls, which an
    #: accuser's wait did not see): a protocol record owed since is due from then
    _head_moved: float

    def _back_since_told(self, absent: int, accuser: int, now: float, right: float) -> bool:
        """Whether ``absent`` is back here only since our pings told ``accuser`` it was silent:
        the last ping of ours that can have reached the accuser before its word left
        (``_word_trip``, and our own time not listening since: the word may have waited here)
        found the seat silent here (``AWAY_MIN``, at most half our wait: not its away limit,
        which its own pings' echoes and gaps raise), and by it the seat had been silent at least
        ``right`` (our wait, or the accuser's if shorter: ``_right_after``) when the word came.
        A seat heard here all along (a heartbeat's silence) never counts, whatever round trip
        the accuser's pings claim."""
        # the word may have waited here while our loop did not listen: those pings went after it
        before = now - self._word_trip(accuser)
        told = self.presence.told_silence(absent, before - self.presence.deaf_since(before))
        if told is None:
            return False
        sent, silence = told
        return silence >= self._least_silence() and silence + (now - sent) >= right

    def _right_after(self, accuser: int) -> float:
        """How long a seat must have kept us waiting for ``accuser``'s word that it is gone to
        be right by the accuser's own wait: that wait, as its pings announced it, less
        LATE_GRACE of it (our clocks and links differ); at least min(3 s, half our wait),
        whatever it announced, or if it announced none."""
        least = self._least_silence()
        theirs = self.presence.waits.get(accuser)
        return least if theirs is None else max(least, theirs - late_grace(theirs))

    def _least_silence(self) -> float:
        """The least silence that counts as one in these judgments: longer than a heartbeat's
        (``AWAY_MIN``), at most half our wait; a fixed bound, as the seat's away limit rests on
        its own pings' echoes and gaps."""
        return min(AWAY_MIN, self.wait / 2)

    def _due_since(self, seat: int) -> float:
        """When the protocol record ``seat`` owes here was due, as a seat that heard what we
        heard in time counts it: when our log's head last moved, or the end of the busy time
        the seat announced by ``_least_silence`` after that (as ``_stall_deadline`` counts it).
        A later notice moves our own wait on, but another seat's wait may have run out before
        it could hear of it (a liar said busy to one seat alone as the others' wait ran out,
        then sent it the record: it named the accuser; an attack).  By the clock: our own
        stalls move our wait on, not the accuser's (a liar stalled our loop with messages
        slow to decode, and the record looked due a few seconds: an attack)."""
        head = self._head_moved
        return due_start(head, self.presence.records_wait_until(seat, came_by=head + self._least_silence()))

    def _word_trip(self, seat: int) -> float:
        """How long before a word of ``seat``'s came here a ping of ours must have gone for
        ``seat`` to have heard it first: two trips, and a margin for its loop (at least half a
        second, so that an earlier ping counts rather than a later one: it errs towards blaming
        nobody); at most half our wait (the round trip is the sender's word: its pings' echoes)."""
        return min(max(WORD_TRIP_MIN, 2 * self.presence.rtt.get(seat, 0.0)), self.wait / 2)

    def _vouched_out(self, claim: GoneClaim, now: float) -> int | None:
        """The seat whose word that it hears the seat a claim about a move names is all that
        keeps us from naming it, once our own wait since the claim (in time we listened) has
        run out with that seat silent here; None while it has not.  Without such a word our
        own silence names it in time; with it, a claim waited for the move for ever (two
        colluders), past the wait we told the player."""
        listened = now - claim.since - self.presence.deaf_since(claim.since)
        absent = claim.absent
        if listened <= self.wait or not self.presence.is_silent(absent, now):
            return None
        return self.presence.heard_elsewhere(absent, now)


__all__ = ["LATE_GRACE", "WORD_TRIP_MIN", "AccuserView", "GoneClaim", "late_grace"]
