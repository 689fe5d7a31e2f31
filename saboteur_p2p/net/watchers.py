"""Spectators, on the seat's side: feed them the log's records, and nothing else.

A spectator (``saboteur-p2p watch``) sends ``watch`` to a seated peer now and then, saying
how many records it holds; the peer answers ``watching`` and sends it, in log order, every
record it lacks.  Records are what every seat already broadcast to every other seat, so a
spectator never gets anything a seat could not publish: no shares sent ahead, no chat, no
secrets (protocol.md §12.8).  A peer feeds at most a few spectators, a bounded batch each
poll, and forgets one that has not said ``watch`` for a while.  The places are shared
fairly among the addresses spectators come from: one machine that takes them all gives one
up to a newcomer from elsewhere.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

from ..crypto.identity import Identity
from ..protocol.node import GameSetup, Node
from .transport import Transport
from .wire import Envelope, seal
from .zmtp import make_room_for

WATCH_VERSION = 1
#: spectators one seat feeds at most
MAX_WATCHERS = 8
#: records sent to a spectator beyond what it last said it holds, at most
FEED_WINDOW = 64
#: a spectator that has not said ``watch`` for this long is forgotten (seconds)
WATCHER_SILENT = 10.0
#: a spectator is answered ``watching`` at most this often, and sent again the records it
#: says it lacks at most every RESEND_EVERY (seconds): a ``watch`` said many times a second
#: with ``records`` 0 had a seat sign and send its log again each time, about 690 times the
#: bytes the spectator sent (found by review)
ANSWER_EVERY = 1.0
RESEND_EVERY = 2.0


@dataclass
class Watcher:
    """One spectator: records sent to it, records it said it holds, when it last said so."""

    sent: int = 0
    held: int = 0
    heard: float = field(default_factory=time.monotonic)
    #: where it comes from, and since when it is fed
    address: str = ""
    since: float = field(default_factory=time.monotonic)
    #: when it was last answered (never: 0), and last sent records again (or first fed)
    answered: float = 0.0
    resent: float = field(default_factory=time.monotonic)


class Watchers:
    """Session mixin: the spectators this seat feeds (``Session`` provides these attributes)."""

    identity: Identity
    setup: GameSetup
    node: Node
    transport: Transport

    def _start_watchers(self) -> None:
        self.watchers: dict[bytes, Watcher] = {}

    def _heard_watch(self, connection: bytes, env: Envelope) -> None:
        """A spectator says it is there and how many records it holds."""
        version = env.field("version", int)
        held = env.field("records", int)
        if version != WATCH_VERSION:
            self._to_watcher(connection, "reject", {"reason": f"this table speaks watch version {WATCH_VERSION}"})
            return
        watcher = self.watchers.get(connection)
        if watcher is None:
            address = self.transport.address_of(connection)
            if len(self.watchers) >= MAX_WATCHERS and not self._make_room(address):
                self._to_watcher(connection, "reject", {"reason": f"this seat feeds {MAX_WATCHERS} spectators already"})
                return
            # a spectator that comes back on a new connection is fed from what it says it holds
            # (from 0 it took a window a second to catch up: found by review)
            watcher = self.watchers[connection] = Watcher(address=address, sent=min(max(0, held), len(self.node.records)))
        now = time.monotonic()
        # it cannot hold more than it was sent: a count past that would widen the window below
        # to the whole log (found by an attack: 1 KB of watch messages drew 0.5 MB of records)
        watcher.held = min(max(0, held), watcher.sent)
        if watcher.held < watcher.sent and now - watcher.resent >= RESEND_EVERY:
            watcher.sent = watcher.held  # it lost some (or they are on their way): send them again
            watcher.resent = now
        watcher.heard = now
        if now - watcher.answered >= ANSWER_EVERY:
            watcher.answered = now
            self._to_watcher(connection, "watching", {"game_id": self.setup.game_id, "records": len(self.node.records)})

    def _make_room(self, address: str) -> bool:
        """Full: forget the longest-fed spectator of the address fed most, if that address
        would still be fed more than ``address`` is (the listener's rule for connections)."""
        oldest = make_room_for(address, {c: (w.address, w.since) for c, w in self.watchers.items()})
        if oldest is None:
            return False
        self._to_watcher(oldest, "reject", {"reason": "this seat feeds spectators from other machines now"})
        del self.watchers[oldest]
        return True

    def _feed_watchers(self) -> None:
        """Send each spectator the records it lacks, at most FEED_WINDOW past what it says it
        holds: one that does not read costs a bounded amount of memory, whoever it is."""
        if not self.watchers:
            return
        now = time.monotonic()
        records = self.node.records
        for connection, watcher in list(self.watchers.items()):
            if now - watcher.heard > WATCHER_SILENT:
                del self.watchers[connection]
                continue
            last = min(len(records), watcher.held + FEED_WINDOW)
            for record in records[watcher.sent:last]:
                self._to_watcher(connection, "record", {"record": record})
            watcher.sent = max(watcher.sent, last)

    def _tell_watchers_stopped(self, verdict: bytes) -> None:
        """The game stopped before its end: each spectator is sent the records it lacks (as a
        feed would, within its window) and then ``stopped`` with this seat's verdict (the
        trailer its log ends with, protocol.md §12.8), which it checks against the records."""
        self._feed_watchers()
        for connection in self.watchers:
            self._to_watcher(connection, "stopped", {"verdict": verdict, "records": len(self.node.records)})

    def _to_watcher(self, connection: bytes, kind: str, body: dict[str, object]) -> None:
        self.transport.reply(connection, seal(self.identity, kind, body))


__all__ = [
    "ANSWER_EVERY", "FEED_WINDOW", "MAX_WATCHERS", "RESEND_EVERY", "WATCHER_SILENT", "WATCH_VERSION", "Watcher", "Watchers",
]
