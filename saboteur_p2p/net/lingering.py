"""The game's last record, and after it: lingering until the others have it, and what comes
meanwhile.

A seat that took the game's last record stays up to 5 s (``_linger``): it says its final
count, resends what a peer still lacks, and feeds its spectators, so nobody waits for it.
What comes meanwhile is judged against the finished log (``_heard_lingering``): an abort
whose evidence shows the cheat here too names the same cheater; anything else changes
nothing (protocol.md §12.5).
"""
from __future__ import annotations

import time
from collections.abc import Callable

from ..protocol.node import GameSetup, Node
from .heartbeat import addressed_to
from .intake import Intake
from .links import Links
from .presence import Presence
from .table import Table
from .transport import Transport
from .verdicts import Outcome, SessionResult
from .watchers import Watcher
from .wire import BadEnvelope, Envelope, open_envelope


class Lingering:
    """Session mixin: the end of a finished game (``Session`` provides these attributes)."""

    setup: GameSetup
    seat: int
    node: Node
    intake: Intake
    presence: Presence
    transport: Transport
    names: list[str]
    watchers: dict[bytes, Watcher]
    links: Links
    table: Table

    # what the other parts of the session do, declared for the type checker only (a method
    # here would stand in front of theirs)
    _seat_of_key: Callable[[bytes], int | None]
    _within_budget: Callable[[bytes, bytes | None, int | None, bytes], bool]
    _ping: Callable[..., None]
    _lingering_for: Callable[[int], list[int]]
    _heard_ping: Callable[[Envelope, int], None]
    _heard_watch: Callable[[bytes, Envelope], None]
    _feed_watchers: Callable[[], None]
    _late_abort: Callable[[Envelope, int], SessionResult | None]
    _take_record: Callable[[bytes, int], SessionResult | None]
    _end: Callable[..., SessionResult]

    def _finish(self) -> SessionResult:
        state = self.node.state
        assert state is not None and state.scores is not None
        self._feed_watchers()  # the game's last records, before we go
        named = self._linger()
        if named is not None:
            return named
        scores = ", ".join(f"{self.names[i]} {s}" for i, s in enumerate(state.scores))
        unit = state.config.edition_rules.gold_unit  # nugget, or Saboteur 2's gold piece
        return self._end(Outcome.FINISHED, f"game over. {unit}s: {scores}", None, state.scores)

    def _linger(self, limit: float = 5.0) -> SessionResult | None:
        """Stay until every peer that is here, and every spectator we feed, has confirmed the
        last record (at most ``limit`` seconds), resending what it lacks; our own final count
        goes out first, so nobody waits for us.  A seat that stopped before the last record
        because of a cheat shows us its evidence meanwhile: if it checks here too, we name
        the same cheater (the result returned)."""
        deadline = time.monotonic() + limit
        total = len(self.node.records)
        while True:
            self._ping(time.monotonic(), done=True)
            behind = self._lingering_for(total)
            watching = any(w.held < total for w in self.watchers.values())  # a spectator still catching up
            if not (behind or watching) or time.monotonic() >= deadline:
                return None
            for inbound in self.transport.poll(0.1):
                named = self._heard_lingering(inbound.connection, inbound.data, inbound.key)
                if named is not None:
                    return named
            self._feed_watchers()

    def _heard_lingering(self, connection: bytes, data: bytes, key: bytes | None = None) -> SessionResult | None:
        """A message that comes while we linger after the game's last record: pings and a
        spectator's watch are answered; an abort, and a record the log does not hold, are
        judged against the finished log (the result if that names a cheater here too);
        anything else is ignored.  A seat's link spends its budget as in the game (a flood
        went on here, each message's signature checked), and vouches for its envelopes."""
        owner = self.links.owner(connection, key)
        if not self._within_budget(connection, key, owner, data):
            return None
        try:
            env = open_envelope(data, proven=self.table.seats[owner].sign_key if key is not None and owner is not None else None)
            sender = self._seat_of_key(env.key)
            ours = env.kind == "ping" and env.field("game_id", bytes, 32) == self.setup.game_id
            if sender is not None and ours and addressed_to(env, self.seat):
                self.presence.heard(sender, time.monotonic())
                self._heard_ping(env, sender)
            elif sender is None and env.kind == "watch":
                self._heard_watch(connection, env)
            elif sender is not None and env.kind == "abort" and env.field("game_id", bytes, 32) == self.setup.game_id:
                return self._late_abort(env, sender)
            elif sender is not None and env.kind == "record":
                record = env.field("record", bytes)
                if not self.intake.has(record):
                    # taken in as ever: one naming a head we moved past is out of turn, another
                    # version of one we hold an equivocation; one after the last record is dropped
                    return self._take_record(record, sender)
        except BadEnvelope:
            pass
        return None

