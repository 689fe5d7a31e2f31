"""Spectators, on the seat's side: feed them the log's records, and nothing else.

A spectator (``saboteur-p2p watch``) sends ``watch`` to a seated peer now and then, saying
how many records it holds; the peer answers ``watching`` and sends it, in log order, every
record it lacks.  Records are what every seat already broadcast to every other seat, so a
spectator never gets anything a seat could not publish: no shares sent ahead, no chat, no
secrets (protocol.md §12.8).  A peer feeds at most a few spectators, a bounded batch each
poll, and forgets one that has not said ``watch`` for a while.
"""
from __future__ import annotations

import time

from ..crypto.identity import Identity
from ..protocol.node import GameSetup, Node
from .transport import Transport
from .wire import Envelope, seal

WATCH_VERSION = 1
#: spectators one seat feeds at most
MAX_WATCHERS = 8
#: records sent to one spectator per poll at most
FEED_BATCH = 64
#: a spectator that has not said ``watch`` for this long is forgotten (seconds)
WATCHER_SILENT = 10.0


class Watchers:
    """Session mixin: the spectators this seat feeds (``Session`` provides these attributes)."""

    identity: Identity
    setup: GameSetup
    node: Node
    transport: Transport

    def _start_watchers(self) -> None:
        #: connection -> [records sent (or known held), when it last said watch]
        self.watchers: dict[bytes, list[float]] = {}

    def _heard_watch(self, connection: bytes, env: Envelope) -> None:
        """A spectator says it is there and how many records it holds."""
        version = env.field("version", int)
        held = env.field("records", int)
        if version != WATCH_VERSION:
            self._to_watcher(connection, "reject", {"reason": f"this table speaks watch version {WATCH_VERSION}"})
            return
        now = time.monotonic()
        watcher = self.watchers.get(connection)
        if watcher is None:
            if len(self.watchers) >= MAX_WATCHERS:
                self._to_watcher(connection, "reject", {"reason": f"this seat feeds {MAX_WATCHERS} spectators already"})
                return
            watcher = self.watchers[connection] = [0, now]
        if held < watcher[0]:
            watcher[0] = max(0, held)  # it lost some (or they are on their way): send them again
        watcher[1] = now
        self._to_watcher(connection, "watching", {"game_id": self.setup.game_id, "records": len(self.node.records)})

    def _feed_watchers(self, everything: bool = False) -> None:
        """Send each spectator the next records it lacks (a batch, or ``everything``)."""
        if not self.watchers:
            return
        now = time.monotonic()
        records = self.node.records
        for connection, watcher in list(self.watchers.items()):
            if now - watcher[1] > WATCHER_SILENT:
                del self.watchers[connection]
                continue
            first = int(watcher[0])
            last = len(records) if everything else min(len(records), first + FEED_BATCH)
            for record in records[first:last]:
                self._to_watcher(connection, "record", {"record": record})
            watcher[0] = last

    def _to_watcher(self, connection: bytes, kind: str, body: dict[str, object]) -> None:
        self.transport.reply(connection, seal(self.identity, kind, body))


__all__ = ["FEED_BATCH", "MAX_WATCHERS", "WATCHER_SILENT", "WATCH_VERSION", "Watchers"]
