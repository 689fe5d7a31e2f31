"""Heartbeats: what each peer tells the others every half second, and the resends it prompts.

A ping says how many records the sender holds, which records of the current step, and its
*tip*: a hash of its log head and the current step's records.  A peer that holds fewer
records than we do is sent what it lacks; one that holds as many but another tip took
another version of a record (a seat sent each of us its own: equivocation), so it is sent our
last two steps, and its intake, parking the second version, proves it (protocol.md §12.3).
Pings also carry clocks for round-trip times, ``done`` at the end of a game, and how long
ago the sender heard each other seat: a seat it hears is at the table though our own link
to it is down.
"""
from __future__ import annotations

import time

from ..crypto.group import hash_bytes
from ..crypto.identity import Identity
from ..protocol.messages import Shares
from ..protocol.node import GameSetup, Node
from .presence import PING_EVERY, Presence
from .transport import Transport
from .wire import Envelope, seal

#: the longest a seat that came back waits to hear what the others hold before it speaks
CATCH_UP_S = 3.0
#: the longest wait between two batches of records sent again to a peer whose count of
#: records does not grow (see Resends)
RESEND_MAX = 8.0


class Resends:
    """When to send a peer records again.  After a batch, the next goes at the peer's next
    ping once what it says it holds shows it took the batch in (its count of records reached
    the batch's end, or, when it held as many as we do, its ``got`` named one more seat): a
    peer that was away, or restarted, catches up at once.  While it does not, each wait is
    twice the one before, up to RESEND_MAX.  A seat's pings cost it nothing, and one that
    kept saying it held no records drew 64 of ours every half second, 1,700 times the bytes
    it sent (found by an attack); one that says it took each batch walks our log once.  A
    seat's count of records never falls within one run of it: one that said it held fewer
    than it had said before, then that it took the batch in, walked our log again and again
    at the fast pace (found by an attack), so a seat whose count fell is paced until it runs
    again.  Nor does a seat's move to another endpoint send a batch at once more often than
    once per RESEND_MAX (a seat that moved between two ports once a second drew one each
    time: found by an attack)."""

    def __init__(self) -> None:
        self.last: dict[int, float] = {}
        self.wait: dict[int, float] = {}
        #: what each peer will say it holds once it has taken the last batch in: (records,
        #: seats of the current step)
        self.expect: dict[int, tuple[int, int]] = {}
        #: when each peer's pace was last started afresh (a newer run of it)
        self.fresh: dict[int, float] = {}
        #: the most records each peer has said it holds in this run of it
        self.most: dict[int, int] = {}
        #: the peers whose count fell in this run of them: never sent the next batch at once
        self.fell: set[int] = set()
        #: when a move of each peer to another endpoint last sent a batch at once
        self.moved: dict[int, float] = {}

    def said(self, seat: int, records: int) -> None:
        """A ping of ``seat`` said it holds ``records`` (its pings alone: a resend after a newer
        run's link still counted the older run's, and an honest seat that came back with fewer
        was paced as one whose count fell, found by review)."""
        if records < self.most.get(seat, 0):
            self.fell.add(seat)
        else:
            self.most[seat] = records

    def due(self, seat: int, now: float, held: tuple[int, int]) -> bool:
        """Whether a batch may go to ``seat`` now, which says it holds ``held``."""
        expected = self.expect.get(seat)
        if expected is not None and held >= expected and seat not in self.fell:
            del self.expect[seat]
            self.wait[seat] = PING_EVERY
        return now - self.last.get(seat, float("-inf")) >= self.wait.get(seat, PING_EVERY)

    def sent(self, seat: int, now: float, expect: tuple[int, int]) -> None:
        self.last[seat] = now
        self.wait[seat] = min(RESEND_MAX, 2 * self.wait.get(seat, PING_EVERY))
        self.expect[seat] = expect

    def now_due(self, seat: int, now: float) -> None:
        """The next batch to ``seat`` goes at once (it moved to another endpoint), at most once
        per RESEND_MAX."""
        if now - self.moved.get(seat, float("-inf")) >= RESEND_MAX:
            self.moved[seat] = now
            self.last.pop(seat, None)

    def restarted(self, seat: int, now: float) -> None:
        """A newer run of ``seat``: its pace starts afresh (at most once per RESEND_MAX, so a
        seat that says it restarted again and again is paced all the same)."""
        if now - self.fresh.get(seat, float("-inf")) >= RESEND_MAX:
            self.fresh[seat] = now
            for book in (self.last, self.wait, self.expect, self.most):
                book.pop(seat, None)
            self.fell.discard(seat)


def addressed_to(env: Envelope, seat: int | None) -> bool:
    """Whether a ``link`` or ``ping`` names ``seat`` as its recipient: one a seat sent another
    and that other relayed says nothing of its sender (protocol.md 12.1)."""
    to = env.body.get("to")
    return type(to) is int and to == seat


class Heartbeat:
    """Session mixin: pings out, pings in, resends (``Session`` provides these attributes)."""

    identity: Identity
    setup: GameSetup
    node: Node
    transport: Transport
    presence: Presence
    endpoints: dict[int, str]
    seat: int
    wait: float
    last_ping: float
    records_of: dict[int, int]
    got_of: dict[int, set[int]]
    tip_of: dict[int, bytes | None]
    done: set[int]
    their_ping: dict[int, tuple[int, float]]
    resends: Resends
    #: the peers whose count of records we have heard in this run
    counted: set[int]
    #: until when a seat that came back waits to hear what the others hold (0: it does not)
    catch_up_until: float
    catch_up_held: int
    #: seats that came back, owed again the shares we sent them ahead (relink.py)
    ahead_again: set[int]

    def _ping(self, now: float, done: bool = False) -> None:
        """Tell every peer how many records we hold (and, ``done``, that the game is over for
        us); each ping carries our clock and echoes the peer's last one, for round-trip times."""
        self.last_ping = now
        base = {
            "game_id": self.setup.game_id, "seat": self.seat, "records": len(self.node.records),
            "got": sorted(self.node.step_got), "tip": self._tip(), "away": sorted(self.presence.away), "t": int(now * 1000),
            "done": done, "heard": self.presence.heard_ms(now, len(self.setup.names)), "wait": self.wait,
        }
        for seat, endpoint in self.endpoints.items():
            body = dict(base, to=seat)
            theirs = self.their_ping.get(seat)
            if theirs is not None:
                body["echo"], body["held"] = theirs[0], int((now - theirs[1]) * 1000)
            self.transport.send(endpoint, seal(self.identity, "ping", body))

    def _tip(self) -> bytes:
        """What our log holds, in 32 bytes: its head and the records of the current step so far.
        Two peers that hold as many records but another tip took different records (§12.3)."""
        node = self.node
        return hash_bytes("tip", node.log.head, *(node.step_got[s] for s in sorted(node.step_got)), size=32)

    def _heard_ping(self, env: Envelope, sender: int) -> None:
        now = time.monotonic()
        self.records_of[sender] = env.field("records", int)
        self.resends.said(sender, self.records_of[sender])
        self.counted.add(sender)
        tip = env.body.get("tip")
        self.tip_of[sender] = tip if isinstance(tip, bytes) and len(tip) == 32 else None
        got = env.body.get("got", [])
        got = got if isinstance(got, list) and len(got) <= 256 else []
        # seats only: any number counted as one more seat's record for the resends' pace (found by review)
        self.got_of[sender] = {s for s in got if type(s) is int and 0 <= s < len(self.setup.names)}
        if env.body.get("done") is True:
            self.done.add(sender)
        heard = env.body.get("heard")
        if isinstance(heard, list) and len(heard) <= 256:
            # when it last heard each seat: there, even if our own link to one is down (§12.4)
            for seat, ms in enumerate(heard):
                if type(ms) is int and 0 <= ms < 2**31 and seat in self.endpoints:
                    self.presence.heard_through(seat, sender, now - ms / 1000)
        wait = env.body.get("wait")
        if isinstance(wait, (int, float)) and not isinstance(wait, bool) and 0 <= wait <= 3600:  # (NaN fails both)
            # the least it said: a seat that restarts may set a shorter one (a longer one it
            # says later only makes us name a seat that calls another gone: not taken)
            self.presence.waits[sender] = min(float(wait), self.presence.waits.get(sender, float(wait)))
        sent = env.body.get("t")
        if isinstance(sent, int):
            self.their_ping[sender] = (sent, now)
        echo, held = env.body.get("echo"), env.body.get("held")
        if isinstance(echo, int) and isinstance(held, int):
            self.presence.round_trip(sender, now - echo / 1000 - held / 1000)
        self._resend_to(sender)
        if sender in self.ahead_again and self.records_of[sender] >= len(self.node.records):
            self._send_ahead_again(sender)

    def _send_ahead_again(self, seat: int) -> None:
        """A seat that came back and now holds every record we do is sent again the shares we
        sent it ahead of our records (§12.6): its run lost them, and its drawn or mapped card
        would show only once each seat's record brought it (found by a play-test)."""
        self.ahead_again.discard(seat)
        shares = self.node.share_book.made_ahead_for(seat)
        if shares is not None:
            self._send_shares_ahead(seat, shares)

    def _say_busy(self, seconds: float) -> None:
        """Tell every seat we will not answer for up to ``seconds`` (a shuffle's proof to make,
        our bot thinking): our silence meanwhile is not an absence (§12.5)."""
        data = seal(self.identity, "busy", {"game_id": self.setup.game_id, "seat": self.seat, "seconds": seconds})
        for endpoint in self.endpoints.values():
            self.transport.send(endpoint, data)

    def _send_shares_ahead(self, seat: int, shares: Shares) -> None:
        """Shares we owe ``seat``, sent before the records that log them (§12.6)."""
        endpoint = self.endpoints.get(seat)
        if endpoint is not None:
            body = {"game_id": self.setup.game_id, "seat": self.seat, "shares": shares.encode()}
            self.transport.send(endpoint, seal(self.identity, "ahead", body))

    def _catching_up(self, now: float) -> bool:
        """Whether a seat that came back still waits before it makes a record (§12.4): until
        every peer that is not away has told it that it holds no more records than we do, for
        at most ``CATCH_UP_S`` after the last record we took in: what a crash of the machine
        lost of the log's tail comes back in their resends.  Our own records are synced before
        they go out (``Session._broadcast``): made again, with fresh randomness, one lost would
        be a second version of it, and a liar that alone held it could outwait this wait."""
        if now >= self.catch_up_until:
            return False
        held = len(self.node.records)
        if held > self.catch_up_held:
            # records still come in: the wait is counted from the last (a seat that came back
            # far behind, on a busy machine, took longer than CATCH_UP_S to check them, then
            # made again a record of its own that was among them: found by an attack)
            self.catch_up_held = held
            self.catch_up_until = now + CATCH_UP_S
        if all(s in self.counted and self.records_of[s] <= held for s in self.endpoints if s not in self.presence.away):
            self.catch_up_until = 0.0
            return False
        return True

    def _lingering_for(self, total: int) -> list[int]:
        """The peers that keep us after the game's last record (``total`` records): one that
        holds fewer and has not said it is done, and one that holds as many but another tip,
        which took another version of a record (a seat signed two of the game's last one):
        until our resends show it ours and its show us its version (equivocation, §12.3),
        the game is not over."""
        tip = self._tip()
        return [s for s in self.endpoints if s not in self.presence.away and (
            (self.records_of[s] < total and s not in self.done)
            or (self.records_of[s] == total and self.tip_of.get(s) not in (None, tip)))]

    def _resend_to(self, seat: int) -> None:
        """A peer that reports fewer records than we hold gets the rest (it was away), and one
        that holds as many gets the records of the current group it lacks (a group's records
        come in any order, so two peers may hold different ones)."""
        theirs = self.records_of[seat]
        node = self.node
        mine = node.records
        if theirs > len(mine):
            return
        if theirs == len(mine):
            start = node.step_starts[-1]
            missing = [i for i in range(start, len(mine)) if node.log.entries[i].sender not in self.got_of[seat]]
            tip = self.tip_of.get(seat)
            if mine and tip is not None and tip != self._tip():
                # as many records, other ones: records of a group we each lack, or a seat sent us
                # and them two versions of a record.  Our last two steps show them all of ours;
                # an intake that parks another version of a record it took proves equivocation.
                start = node.step_start(max(0, node.step_start(len(mine) - 1) - 1))
                missing = sorted({*missing, *range(start, len(mine))})
        else:
            # they may hold any of that step's records: send it whole, and the step before it,
            # in case what they hold there is another version of a record than ours (a fork
            # stalls the chain, so it lies in the last step both of us completed)
            start = node.step_start(max(0, node.step_start(theirs) - 1))
            missing = list(range(start, min(len(mine), start + 64)))
        now = time.monotonic()
        held = (theirs, len(self.got_of[seat]))
        if not missing or not self.resends.due(seat, now, held):
            return  # at most one batch a heartbeat, however many pings come, and fewer while they bring nothing
        # taken in, the batch brings them to its last record, or (as many records) one more seat's
        self.resends.sent(seat, now, (missing[-1] + 1, 0) if theirs < len(mine) else (theirs, held[1] + 1))
        endpoint = self.endpoints[seat]
        for index in missing:
            self.transport.send(endpoint, seal(self.identity, "record", {"record": mine[index]}))


__all__ = ["RESEND_MAX", "Heartbeat", "Resends"]
