"""Sessions on a clock the test moves, for the absence rules (protocol.md §12.4): seat 0's
session of a local game, fed envelopes with ``_handle`` and judged with ``_check_gone``."""
from __future__ import annotations

import time
import types
from collections.abc import Callable
from pathlib import Path

import pytest
from session_doubles import seated_session

from saboteur_p2p.net import heartbeat as heartbeat_module
from saboteur_p2p.net import session as session_module
from saboteur_p2p.net.presence import Presence
from saboteur_p2p.net.wire import seal
from saboteur_p2p.protocol.local import LocalGame


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        return self.now


def clocked_session(game: LocalGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[session_module.Session, Clock]:
    """Seat 0's session, on a clock the test moves, with a wait of 5 s."""
    session = seated_session(game, game.nodes[0], tmp_path)
    clock = Clock()
    fake_time = types.SimpleNamespace(monotonic=clock.monotonic, time=time.time, time_ns=time.time_ns)
    monkeypatch.setattr(session_module, "time", fake_time)
    monkeypatch.setattr(heartbeat_module, "time", fake_time)
    session.wait = 5.0
    session.presence = Presence(session.endpoints, clock.now)
    session._start_absence(clock.now)
    return session, clock


def ping_from(game: LocalGame, session: session_module.Session, seat: int, heard: list[int]) -> bytes:
    """A ping ``seat`` sends ``session``, saying when it last heard each seat (``heard``, ms)."""
    identity = game.nodes[seat].identity
    assert identity is not None
    return seal(identity, "ping", {"game_id": game.setup.game_id, "seat": seat, "to": session.seat, "away": [], "t": 0,
                                   "records": len(session.node.records), "got": [], "done": False, "heard": heard})


def judged_for(
    session: session_module.Session, clock: Clock, seconds: float, feed: Callable[[float], None] = lambda elapsed: None,
) -> session_module.SessionResult | None:
    """Half a second at a time for ``seconds``: ``feed(elapsed)`` hands the session what comes
    then, and the session judges who is away or gone.  How the game ended, if it did."""
    started = clock.now
    while clock.now < started + seconds:
        feed(clock.now - started)
        session._check_away(clock.now)
        result = session._check_gone(clock.now)
        if result is not None:
            return result
        clock.now += 0.5
    return None
