"""A `gone` that the seat it names passes on itself: that seat is there, and whatever it made
before it stopped came first on its link, so only the seat that said it is named (real peer
processes and the hostile double of net_doubles.py)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from net_doubles import DoubleSession, Stage, Trick, _gone, as_record, start_double
from test_network import SMALL_GAME, Processes, free_port, host_args
from test_network import processes as processes  # the fixture: the test below takes it by name

WAIT = 12.0


def test_a_seat_called_gone_before_its_record_was_due_there_is_not_named_when_its_stay_runs_out(
        processes: Processes, tmp_path: Path) -> None:
    """The liar makes its shuffle and holds it, tells the next shuffler alone that it is gone,
    and sends the shuffle to the other seats only once the victim's stay (5 s) is nearly over:
    the victim's shuffle was never due at its own seat, but is at theirs.  The victim ends,
    naming the liar, and passes the gone on; the others named the victim after their wait (an
    attack).  Now every honest seat names the liar."""
    held: dict[str, Any] = {"pings": []}

    def lie(session: DoubleSession) -> None:
        victim = (session.seat + 1) % len(session.names)  # it shuffles after the liar
        held.update(victim=victim, record=session._honest_produce())
        session.transport.send(session.endpoints[victim], _gone(session, victim, "did not come back within 12 s"))
        held["gone_at"] = time.monotonic()
        session._check_gone = lambda now: None  # type: ignore[method-assign]  # it never ends the game itself
        session._heard_gone = lambda *a, **k: None  # type: ignore[method-assign]  # nor heeds another's ending
        resend = session._resend_to  # its held shuffle is in its log: no resend gives it away early
        session._resend_to = lambda seat: resend(seat) if "sent" in held and seat != victim else None  # type: ignore[method-assign]
        heard_ping = session._heard_ping

        def ping(env: Any, sender: int) -> None:
            if sender == victim:
                held["pings"].append(time.monotonic())
            heard_ping(env, sender)
        session._heard_ping = ping  # type: ignore[method-assign]

    def stay_nearly_over(session: DoubleSession) -> bool:
        return "gone_at" in held and any(p >= held["gone_at"] + 4.5 for p in held["pings"])

    def release(session: DoubleSession) -> None:
        victim = session.endpoints[held["victim"]]
        data = as_record(session, held["record"])
        send = session.transport.send
        for endpoint in session.endpoints.values():
            if endpoint != victim:
                send(endpoint, data)
        session.transport.send = lambda endpoint, d: True if endpoint == victim else send(endpoint, d)  # type: ignore[method-assign]
        held["sent"] = True

    def owes_shuffle(session: DoubleSession) -> bool:
        mine = session.node.my_expect()
        return mine is not None and mine.kind == "shuffle"

    port = free_port()
    host = processes.start("host", host_args(port, 4, wait=WAIT, rounds=1))
    h1 = start_double(f"127.0.0.1:{port}", "h1", Trick(()), tmp_path / "h1", wait=WAIT)
    time.sleep(0.3)
    trick = Trick((Stage(owes_shuffle, lie), Stage(stay_nearly_over, release, holds=True)))
    liar = start_double(f"127.0.0.1:{port}", "liar", trick, tmp_path / "liar", wait=WAIT)
    time.sleep(0.3)
    h2 = start_double(f"127.0.0.1:{port}", "h2", Trick(()), tmp_path / "h2", wait=WAIT)
    host.wait(SMALL_GAME)
    for honest in (h1, h2):
        honest.finish(60)
    liar.stop.set()
    liar.finish(10)
    assert "victim" in held, "the liar never owed a shuffle"
    text = host.text()
    assert f"nobody is blamed but liar (seat {liar.seat})" in text, text
    for honest in (h1, h2):
        assert honest.result is not None, honest.error
        assert honest.result.culprit == liar.seat, honest.result.message
