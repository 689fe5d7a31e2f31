"""What a seat's cheap messages may draw from us: records sent again (heartbeat.Resends,
protocol.md §12.3), ever fewer while its count of records does not grow, and at every ping
while it catches up; the table's start, once a second for a seat's hello (§12.2)."""
from __future__ import annotations

import time
from collections.abc import Callable
from itertools import count, pairwise
from pathlib import Path

import pytest
from clocked_sessions import clocked_session
from protocol_helpers import path_first, seeded_game

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.heartbeat import RESEND_MAX
from saboteur_p2p.net.presence import PING_EVERY
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.protocol.local import step
from saboteur_p2p.rules import GameConfig


def ping(game, session, seat: int, records: int, got: list[int] | None = None) -> bytes:  # type: ignore[no-untyped-def]
    identity = game.nodes[seat].identity
    return seal(identity, "ping", {"game_id": game.setup.game_id, "seat": seat, "to": session.seat, "away": [], "t": 0,
                                   "records": records, "got": got or [], "done": False, "heard": []})


def test_a_seat_that_keeps_saying_it_holds_nothing_draws_ever_fewer_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat's ping saying it held no records drew up to 64 of ours every half second, for as
    long as it pinged: 1,700 times the bytes it sent at 10 seats (found by an attack).  While
    it does not take a batch in, each wait is twice the one before, up to RESEND_MAX; made-up
    seats in its `got` do not count (found by review).  A seat that takes each batch in (its
    count reaches the batch's end), a restarted one included, is sent the next at its next ping."""
    game = seeded_game(GameConfig(3), 5)
    while len(game.records) < 150:
        assert step(game, path_first)
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    records = session.node.records
    sent = session.transport.sent  # type: ignore[attr-defined]

    def batches(seat: int, seconds: float, says: Callable[[int], tuple[int, list[int]]]) -> list[float]:
        """When batches went to ``seat``, pinging every PING_EVERY with ``says(reached)``: its
        count and `got`, given how far the records sent to it so far reach."""
        started, times, reached = clock.now, [], 0
        while clock.now < started + seconds:
            before = len(sent)
            held, got = says(reached)
            assert session._handle(b"L%d" % seat, ping(game, session, seat, held, got)) is None
            came = [records.index(open_envelope(d).body["record"]) for _, d in sent[before:] if open_envelope(d).kind == "record"]
            if came:
                times.append(clock.now - started)
                reached = max(reached, max(came) + 1)
            clock.now += PING_EVERY
        return times

    stuck = batches(2, 60.0, lambda reached: (0, []))
    assert stuck[:5] == [0.0, 1.0, 3.0, 7.0, 15.0], stuck
    assert [b - a for a, b in pairwise(stuck[4:])] == [RESEND_MAX] * 5, stuck  # 23, 31, 39, 47, 55
    # made-up seats in `got`, one more each ping: paced the same
    more = count(1)
    liar = batches(1, 16.0, lambda reached: (0, list(range(next(more)))))
    assert liar == [0.0, 1.0, 3.0, 7.0, 15.0], liar
    # seat 2 restarts (a newer run: fewer records than it said it held), and takes each batch in
    session._relink(2, session.endpoints[2], time.time_ns(), clock.now)
    caught = batches(2, 10.0, lambda reached: (reached, []))
    assert len(caught) >= 3 and caught == [n * PING_EVERY for n in range(len(caught))], caught


def test_a_seat_whose_count_falls_or_that_moves_between_endpoints_is_paced_as_one_that_holds_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat that said by turns that it held no records and that it took the last batch in
    had the pace started afresh at every other ping, and walked our log (its shuffles first)
    about once a second; one that said once a second that it moved to the other of two ports
    drew a batch at each move: 120 batches a minute, 800 times the bytes it sent, at 8 seats
    (found by an attack).  Both draw no more than a seat that keeps saying it holds nothing."""
    import types

    from saboteur_p2p.net import relink

    game = seeded_game(GameConfig(3), 5)
    while len(game.records) < 150:
        assert step(game, path_first)
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    monkeypatch.setattr(relink, "time", types.SimpleNamespace(monotonic=clock.monotonic, time=time.time, time_ns=time.time_ns))
    records = session.node.records
    sent = session.transport.sent  # type: ignore[attr-defined]
    base = session.endpoints[1].rsplit(":", 1)[0]

    def batches(seat: int, says: Callable[[int, int], int], moves: bool = False) -> int:
        started, drawn, reached = clock.now, 0, 0
        for n in count():
            if clock.now >= started + 60.0:
                return drawn
            before = len(sent)
            assert session._handle(b"L%d" % seat, ping(game, session, seat, says(n, reached))) is None
            if moves and n % 2 == 0:  # once a second, the other of two ports
                link = {"game_id": game.setup.game_id, "seat": seat, "to": session.seat,
                        "endpoint": f"{base}:{7001 + n // 2 % 2}", "incarnation": 1}
                session._handle(b"L%d" % seat, seal(game.nodes[seat].identity, "link", link))
            out = [open_envelope(d) for _, d in sent[before:] if d]  # (b"": a link's first contact)
            came = [records.index(env.body["record"]) for env in out if env.kind == "record"]
            if came:
                drawn += 1
                reached = max(came) + 1
            clock.now += PING_EVERY
        raise AssertionError("unreachable")

    stuck = batches(2, lambda n, reached: 0)
    assert stuck == 10  # 0, 1, 3, 7, 15, then every RESEND_MAX
    assert batches(1, lambda n, reached: 0 if n % 2 else reached) <= stuck + 1  # falls, then took it in, by turns
    assert batches(1, lambda n, reached: 0, moves=True) <= stuck + 1


def test_a_seats_hello_said_again_and_again_draws_the_start_once_a_second(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the game runs, a seat's hello (its restart) is answered with the table's start.
    Each copy of one signed hello, replayed by anyone, drew the whole start: 108 KB in, 800 KB
    out at 6 seats (found by an attack).  Now a seat's hello is answered at most once a second
    on a connection (on the seat's own, its restart is answered: found by review); a
    stranger's is refused, as before."""
    game = seeded_game(GameConfig(3), 5)
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    sent = session.transport.sent  # type: ignore[attr-defined]
    identity = game.nodes[2].identity
    assert identity is not None
    hello = seal(identity, "hello", {})
    answered = []
    for _ in range(40):  # 20 hellos a second for 2 s
        before = len(sent)
        assert session._handle(b"anyone", hello) is None
        answered += [open_envelope(d).kind for _, d in sent[before:]]
        clock.now += 0.05
    assert answered == ["start", "start"], answered
    # the seat's own restart, on its own connection, is answered though the replays go on
    before = len(sent)
    assert session._handle(b"the seat itself", hello) is None
    assert [open_envelope(d).kind for _, d in sent[before:]] == ["start"]
    before = len(sent)
    assert session._handle(b"stranger", seal(Identity.generate(), "hello", {})) is None
    assert [open_envelope(d).kind for _, d in sent[before:]] == ["reject"]


def test_an_honest_seat_back_on_a_new_port_with_fewer_records_is_not_paced_as_one_whose_count_fell(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A newer run's link (a new port: ``join`` binds any) sent a batch at once, counted against
    the older run's last ping, and the seat, back with the fewer records its crash left, was
    paced as one whose count fell: 15.5 s rather than 3 to catch up (found by
    review).  The pace counts a seat's pings alone."""
    import types

    from saboteur_p2p.net import relink

    game = seeded_game(GameConfig(3), 5)
    while len(game.records) < 300 and step(game, path_first):
        pass
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    monkeypatch.setattr(relink, "time", types.SimpleNamespace(monotonic=clock.monotonic, time=time.time, time_ns=time.time_ns))
    records = session.node.records
    sent = session.transport.sent  # type: ignore[attr-defined]
    identity = game.nodes[1].identity

    def link(endpoint: str, incarnation: int) -> bytes:
        return seal(identity, "link", {"game_id": game.setup.game_id, "seat": 1, "to": session.seat,
                                       "endpoint": endpoint, "incarnation": incarnation})

    session._handle(b"L1", link(session.endpoints[1], 1))
    session._handle(b"L1", ping(game, session, 1, len(records) - 3))  # the older run, nearly caught up
    clock.now += 20.0
    session._handle(b"L1", link(f"{session.endpoints[1].rsplit(':', 1)[0]}:7555", time.time_ns()))  # back, on a new port
    reached, started = 30, clock.now  # its crash lost the rest
    while reached < len(records) and clock.now < started + 60:
        before = len(sent)
        session._handle(b"L1", ping(game, session, 1, reached))
        came = [records.index(env.body["record"]) for env in (open_envelope(d) for _, d in sent[before:] if d)
                if env.kind == "record"]
        reached = max([reached, *(c + 1 for c in came)])
        clock.now += PING_EVERY
    assert reached == len(records) and clock.now - started <= 4.0, clock.now - started
