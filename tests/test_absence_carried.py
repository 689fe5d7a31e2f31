"""A `gone` that the seat it names passes on itself: that seat is there, and whatever it made
before it stopped came first on its link.  So only the seat that said it is named, unless the
record it owes was due at its own seat (real peer processes and the hostile double of
net_doubles.py)."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from net_doubles import DoubleRun, DoubleSession, Stage, Trick, _gone, as_record, own_protocol_record, start_double
from test_network import SMALL_GAME, Peer, Processes, free_port, host_args
from test_network import processes as processes  # the fixture: the tests below take it by name

from saboteur_p2p.net.wire import BadEnvelope, open_envelope, seal

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

    trick = Trick((Stage(owes_shuffle, lie), Stage(stay_nearly_over, release, holds=True)))
    host, liar = play_with_liar(processes, tmp_path, trick, WAIT, rounds=1)
    assert "victim" in held, "the liar never owed a shuffle"
    assert f"nobody is blamed but liar (seat {liar.seat})" in host.text(), host.text()


def test_a_liar_that_passes_on_an_honest_gone_naming_itself_is_still_named(processes: Processes, tmp_path: Path) -> None:
    """The liar withholds its shuffle, answering all the while, and says it is busy: to the
    host at once, to the others 0.8 s later (a notice that moves a wait by 1 s or less is not
    passed on), so the host's wait runs out first.  The host rightly says the liar is gone;
    the liar passes that on to the others itself, and they named the honest host as the one
    who stopped the game (an attack on the rule of the test above).  The liar's own pings say
    it held its move, after which its shuffle was due: the others judge it by their own wait,
    and name it."""
    wait = 12.0
    later: list[tuple[float, str, bytes]] = []
    held: dict[str, int | None] = {}

    def flush(session: DoubleSession) -> None:
        while later and later[0][0] <= time.monotonic():
            _, endpoint, data = later.pop(0)
            session.transport.send(endpoint, data)

    def withhold(session: DoubleSession) -> None:
        busy = seal(session.identity, "busy", {"game_id": session.setup.game_id, "seat": session.seat, "seconds": 6.0})
        session.transport.send(session.endpoints[0], busy)
        later.extend((time.monotonic() + 0.8, endpoint, busy) for seat, endpoint in session.endpoints.items() if seat)
        handle, resend = session._handle, session._resend_to

        def carry(connection: bytes, data: bytes, key: bytes | None = None) -> Any:
            try:
                env = open_envelope(data)
            except BadEnvelope:
                return handle(connection, data, key)
            if env.kind == "gone" and env.body.get("absent") == session.seat and "carried" not in held:
                held["carried"] = signer = session.table.seat_of(env.key)
                for seat, endpoint in session.endpoints.items():
                    if seat != signer:
                        session.transport.send(endpoint, data)
            return None if env.kind in ("gone", "bye", "abort") else handle(connection, data, key)  # it heeds no ending
        session._handle = carry  # type: ignore[method-assign, assignment]
        session._check_gone = lambda now: flush(session)  # type: ignore[method-assign, assignment]  # it ends nothing itself
        session._resend_to = lambda seat: None if later and seat else resend(seat)  # type: ignore[method-assign]

    def quiet(session: DoubleSession) -> None:
        session._announce_busy = lambda: None  # type: ignore[method-assign]  # its busy notices are the trick's

    trick = Trick((Stage(lambda session: True, quiet), Stage(own_protocol_record, withhold)), cheats=True)
    host, liar = play_with_liar(processes, tmp_path, trick, wait, rounds=3)  # shuffles of the next rounds' decks after moves
    assert held.get("carried") == 0, liar.result.message if liar.result else liar.error  # the host's gone, passed on
    assert f"liar (seat {liar.seat}) sent no shuffle record" in host.text(), host.text()


def play_with_liar(processes: Processes, tmp_path: Path, trick: Trick, wait: float, rounds: int) -> tuple[Peer, DoubleRun]:
    """A table of a host process, two honest doubles and the liar (its seat falls as they
    join), played out; asserts that both honest doubles named the liar."""
    port = free_port()
    host = processes.start("host", host_args(port, 4, wait=wait, rounds=rounds))
    h1 = start_double(f"127.0.0.1:{port}", "h1", Trick(()), tmp_path / "h1", wait=wait)
    time.sleep(0.3)
    liar = start_double(f"127.0.0.1:{port}", "liar", trick, tmp_path / "liar", wait=wait)
    time.sleep(0.3)
    h2 = start_double(f"127.0.0.1:{port}", "h2", Trick(()), tmp_path / "h2", wait=wait)
    host.wait(SMALL_GAME)
    for honest in (h1, h2):
        honest.finish(60)
    liar.stop.set()
    liar.finish(10)
    for honest in (h1, h2):
        assert honest.result is not None, honest.error
        assert honest.result.culprit == liar.seat, honest.result.message
    return host, liar
