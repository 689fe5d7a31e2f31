"""Who at the table is here: when each peer was last heard, how its link behaves, and
whether it is away.

A peer is *away* when it has said nothing for longer than its link explains.  The limit is
never below ``AWAY_MIN`` and grows with what the link has shown: the longest recent silence
between two of its messages (a lossy link stalls while TCP retransmits) and the measured
round-trip time.  Time this peer itself spent not listening (a long computation between two
polls) does not count as anyone's silence.  Away and back notices are rate-limited so a
flaky link does not flood the log.
"""
from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterable

#: never judge a peer away sooner than this (seconds)
AWAY_MIN = 3.0
#: ... nor later than this, however badly its link has behaved
AWAY_MAX = 20.0
#: silences between messages remembered per peer
GAPS_KEPT = 40
#: at most one away/back notice per peer in this many seconds
NOTICE_EVERY = 10.0
#: the longest computation a peer may announce (seconds)
BUSY_MAX = 60.0
#: heartbeats a peer sends every so often (seconds): the gap a healthy link shows
PING_EVERY = 0.5


class Presence:
    """The presence of every other seat, as this peer sees it (times are time.monotonic())."""

    def __init__(self, seats: Iterable[int], now: float, wait: float | None = None) -> None:
        """``wait``: how long the table waits for an absent seat: no seat's away limit is more
        (a seat that grew its silences taught the peers to wait 20 s for each of its records,
        four times a --wait of 5 s: found by an attack)."""
        #: the longest a seat may be silent before it counts as away, whatever its silences were
        self.ceiling = AWAY_MAX if wait is None else min(AWAY_MAX, max(AWAY_MIN, wait))
        self.last_heard = dict.fromkeys(seats, now)
        #: when the last message of each seat came (``last_heard`` moves on for a busy seat too)
        self.arrived = dict.fromkeys(self.last_heard, now)
        self.away: set[int] = set()
        self.gaps: dict[int, deque[float]] = {seat: deque(maxlen=GAPS_KEPT) for seat in self.last_heard}
        #: smoothed round-trip time per seat (seconds), from echoed pings
        self.rtt: dict[int, float] = {}
        self._noticed: dict[int, float] = {}
        self._announced_away: set[int] = set()
        self._busy_until: dict[int, float] = {}
        self._records_wait: dict[int, float] = {}
        #: each seat's latest busy notices, by word or passed on: when each came, and until when
        self._busy_came: dict[int, deque[tuple[float, float]]] = {}
        #: messages heard from each seat
        self.count: dict[int, int] = dict.fromkeys(self.last_heard, 0)
        #: how long each seat back from an absence was silent, seconds
        self.silence: dict[int, float] = {}
        #: the latest time another seat we hear says (its ping's ``heard``) it heard this one,
        #: and which seat said so: the seat is at the table though our own link to it may be
        #: down (or it stopped talking to us alone)
        self.relayed: dict[int, float] = {}
        self.relayed_by: dict[int, int] = {}
        #: when this peer last did not poll, and for how long (the latest few stalls)
        self.deaf: deque[tuple[float, float]] = deque(maxlen=32)
        #: each seat's own --wait, the least its pings have announced
        self.waits: dict[int, float] = {}
        #: what our latest pings told the others (``heard_ms``): when each went, and when we
        #: had last heard each seat then (32 s of pings: the oldest a word may answer, its
        #: sender's round trip included)
        self.told: deque[tuple[float, dict[int, float]]] = deque(maxlen=64)

    def heard(self, seat: int, now: float) -> bool:
        """A message from ``seat`` arrived; True if it was away (it is back now)."""
        gap = now - self.last_heard[seat]
        quiet = now - self.arrived[seat]
        self.last_heard[seat] = now
        self.arrived[seat] = now
        self.count[seat] += 1
        if seat in self.away:
            self.away.discard(seat)  # an outage is not how the link behaves: not a gap
            # what "no word for N s" counted, a busy time included (the gap from the busy
            # time's end read "back after 0 s of silence" after "no word for 5 s": a play-test)
            self.silence[seat] = quiet
            return True
        if gap > 0:
            self.gaps[seat].append(gap)
        return False

    def heard_through(self, seat: int, by: int, when: float) -> None:
        """``by``, which we hear, says (in its ping) that it last heard ``seat`` at ``when``
        (our clock: its ping's trip, and any time it was queued, make that look later than it
        was).  Another seat's word no one can check: it keeps us waiting for a seat (as a seat
        that never moves does), and never makes us blame one."""
        if seat in self.last_heard and by in self.last_heard and seat != by and when > self.relayed.get(seat, float("-inf")):
            self.relayed[seat] = when
            self.relayed_by[seat] = by

    def heard_ms(self, now: float, seats: int) -> list[int]:
        """How long ago we last heard each of ``seats`` seats, in ms, by seat (0 for ourselves,
        and while a seat's announced busy time runs): what our pings tell the others (kept:
        ``told_silence``)."""
        heard = self.last_heard
        self.told.append((now, dict(heard)))
        return [max(0, int((now - heard[seat]) * 1000)) if seat in heard else 0 for seat in range(seats)]

    def told_silence(self, seat: int, before: float) -> tuple[float, float] | None:
        """When the last of our pings sent before ``before`` went, and how long it said
        ``seat`` had been silent then: all that another seat that judged it by ``before`` may
        have known of it from us.  Our oldest ping kept, if none went that early (the nearest
        to it we know: only in a game's first seconds, as a stall sends no pings and keeps the
        older ones); None if we sent none, or it did not tell of ``seat``."""
        chosen = None
        for chosen in reversed(self.told):
            if chosen[0] <= before:
                break
        if chosen is None or seat not in chosen[1]:
            return None
        sent, heard = chosen
        return sent, sent - heard[seat]

    def unheard_for(self, seat: int, now: float) -> float:
        """How long since ``seat`` was heard here, or by another seat we hear by its word: the
        silence the absence rules time (a seat that talks to the others, but not to us, is at
        the table; its records reach us through them)."""
        return now - max(self.last_heard[seat], self.relayed.get(seat, float("-inf")))

    def heard_elsewhere(self, seat: int, now: float) -> int | None:
        """The seat that heard ``seat`` lately and later than we did (by more than a heartbeat:
        a seat cut off from us all was last heard by everyone at about the same time), if any."""
        if self.relayed.get(seat, float("-inf")) > self.last_heard[seat] + PING_EVERY and self.unheard_for(seat, now) < AWAY_MIN:
            return self.relayed_by[seat]
        return None

    def round_trip(self, seat: int, seconds: float) -> None:
        """A round-trip time measured to ``seat`` (an echoed ping)."""
        if not 0 <= seconds < 60:
            return  # a clock or echo that makes no sense: ignore it
        old = self.rtt.get(seat)
        self.rtt[seat] = seconds if old is None else 0.8 * old + 0.2 * seconds

    def busy(self, seat: int, now: float, seconds: float, heard: bool = True) -> None:
        """``seat`` said it will be computing (a shuffle proof, say) for up to ``seconds``
        (at most BUSY_MAX): its silence counts only from then on, if we ``heard`` it say so
        itself; a notice another seat passed on moves on only our wait for its records (an
        old one passed on again must not make a vanished seat look present)."""
        if seconds > 0:
            until = now + min(seconds, BUSY_MAX)
            if heard:
                self.last_heard[seat] = max(self.last_heard[seat], until)
                self._busy_until[seat] = max(self._busy_until.get(seat, until), until)
            self._records_wait[seat] = max(self._records_wait.get(seat, until), until)
            self._busy_came.setdefault(seat, deque(maxlen=16)).append((now, until))

    def busy_until(self, seat: int) -> float:
        """When the computation ``seat`` last told us itself it was busy with ends (-inf if it
        told none): what its presence is judged by."""
        return self._busy_until.get(seat, float("-inf"))

    def records_wait_until(self, seat: int, came_by: float | None = None) -> float:
        """When the computation ``seat`` last announced ends, by its word or by a notice another
        seat passed on (-inf if none): what our wait for its protocol records counts from.
        With ``came_by``: by the notices (of the latest 16) that came here by then only."""
        if came_by is None:
            return self._records_wait.get(seat, float("-inf"))
        return max((until for came, until in self._busy_came.get(seat, ()) if came <= came_by), default=float("-inf"))

    def not_listening(self, seconds: float) -> None:
        """This peer did not poll for ``seconds``: nobody's silence grows by that time."""
        self.deaf.append((time.monotonic(), seconds))
        for seat in self.last_heard:
            self.last_heard[seat] += seconds
        for seat in self.relayed:
            self.relayed[seat] += seconds
        for seat in self.arrived:
            self.arrived[seat] += seconds

    def deaf_since(self, since: float) -> float:
        """How long this peer did not poll in the stalls that ended after ``since``: time its
        silence clocks skipped, which another seat's did not."""
        return sum(seconds for when, seconds in self.deaf if when >= since)

    def away_after(self, seat: int) -> float:
        """How long ``seat`` may be silent before it counts as away, given its link."""
        gaps = self.gaps[seat]
        longest = max(gaps, default=PING_EVERY)
        rtt = self.rtt.get(seat, 0.0)
        return min(self.ceiling, max(AWAY_MIN, 1.5 * longest, 4 * rtt + 2 * PING_EVERY))

    def silent_for(self, seat: int, now: float) -> float:
        """How long ``seat``'s silence counts for the absence rules (from the end of a busy
        time it announced)."""
        return now - self.last_heard[seat]

    def quiet_for(self, seat: int, now: float) -> float:
        """How long since a message of ``seat``'s last arrived: the silence to tell people (a
        busy time it announced included; "no word for 3 s" of a seat silent 65 s after a busy
        of 60 s misled: found by an attack)."""
        return now - self.arrived[seat]

    def heard_lately(self, seat: int, now: float) -> bool:
        """Whether ``seat`` was heard within half the away minimum, here or (by its word) by
        another seat we hear: it is surely present."""
        return self.unheard_for(seat, now) < AWAY_MIN / 2

    def is_silent(self, seat: int, now: float) -> bool:
        """Whether ``seat`` is away, or silent longer than its link explains (not yet noticed)."""
        return seat in self.away or self.silent_for(seat, now) > self.away_after(seat)

    def newly_away(self, now: float) -> list[int]:
        """The seats that have just become away."""
        gone = [s for s in self.last_heard if s not in self.away and now - self.last_heard[s] > self.away_after(s)]
        self.away.update(gone)
        return gone

    def notice_away(self, seat: int, now: float, back: bool = True, again: bool = False) -> bool:
        """Whether to tell the player that ``seat`` is away (at most once per NOTICE_EVERY,
        unless ``again``: what they were told of it last no longer holds); ``back``: whether to
        tell them too when it is heard again."""
        if not again and now - self._noticed.get(seat, -NOTICE_EVERY) < NOTICE_EVERY:
            return False
        self._noticed[seat] = now
        if back:
            self._announced_away.add(seat)
        return True

    def notice_back(self, seat: int) -> bool:
        """Whether to tell the player that ``seat`` is back (only if its absence was told)."""
        if seat in self._announced_away:
            self._announced_away.discard(seat)
            return True
        return False
