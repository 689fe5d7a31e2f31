"""Spectators (protocol.md §12.8): ``watch`` a real loopback table, every record checked."""
from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from test_network import free_port

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.play import host_table
from saboteur_p2p.net.session import Outcome, SessionResult
from saboteur_p2p.net.watch import Watched, WatchFailed, watch_table
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.protocol.node import Node
from saboteur_p2p.rules import GameConfig


def _table(tmp_path: Path, port: int, box: dict[str, SessionResult], host: Identity | None = None) -> threading.Thread:
    """A 3-seat table of bots (the host's seat a bot in this process, two bot peer processes),
    two rounds: long enough for a spectator to come in the middle."""

    def run() -> None:
        box["result"] = host_table(
            host or Identity.generate(), "host", f"127.0.0.1:{port}", GameConfig(3, rounds=2), "random", 2, "random",
            tmp_path, None, 30.0, lambda text: None, started=lambda: False,
        )

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _under_way(log_dir: Path) -> None:
    """Wait until the host's log holds the first round's deal (a few dozen records)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        logs = list(log_dir.glob("game-*-seat0.log"))
        if logs and logs[0].stat().st_size > 50_000:
            return
        time.sleep(0.05)
    raise AssertionError("the table did not get going")


@pytest.mark.slow
def test_a_spectator_from_the_start_and_one_who_comes_late_both_check_the_whole_game(tmp_path: Path) -> None:
    """One table, two spectators: the ``watch`` command from the start prints the game move by
    move; a spectator that comes in the middle (given the host's key: its feed is encrypted)
    gets the whole log, checks it and sees the same end; one given another key is refused."""
    port = free_port()
    box: dict[str, SessionResult] = {}
    host = Identity.generate()
    table = _table(tmp_path, port, box, host)
    command = subprocess.Popen([sys.executable, "-m", "saboteur_p2p", "watch", f"127.0.0.1:{port}"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _under_way(tmp_path)  # the late spectator must get every record from the first
        said: list[str] = []
        updates: list[int] = []
        seen: dict[str, Node] = {}

        def on_update(node: Node) -> None:
            updates.append(len(node.records))
            seen["node"] = node

        with pytest.raises(WatchFailed, match="does not hold the key given"):
            watch_table(f"127.0.0.1:{port}", lambda node: None, lambda text: None, seat_key=Identity.generate().public.dh_key)
        watched = watch_table(f"127.0.0.1:{port}", on_update, said.append, seat_key=host.public.dh_key)
        table.join(60)
        stdout, stderr = command.communicate(timeout=90)
    finally:
        command.kill()
    result = box["result"]
    assert result.outcome is Outcome.FINISHED
    # the late spectator
    assert watched == Watched(True, "the game is over", len(seen["node"].records))
    node = seen["node"]
    assert node.verify_all and node.seat is None  # it checked every sealed share, and holds no secret
    assert node.state is not None and tuple(node.state.scores) == result.scores
    (log,) = tmp_path.glob("game-*-seat0.log")
    assert watched.records == updates[-1] and updates == sorted(updates) and updates[0] == 1
    assert said[0].startswith("seats (compare these fingerprints with the players'): 0 \"host\" ")
    assert log.exists()
    # the command, from the start
    lines = stdout.splitlines()
    assert command.returncode == 0, stdout + stderr
    assert lines[0].startswith("seats (compare these fingerprints with the players'):")
    assert re.search(r"-- round 1: (host|random-\d) starts", stdout)  # players by name (issue 12)
    assert lines[-1] == f"the game is over (the {watched.records} records this spectator took in: each one checked)"
    gone = subprocess.run([sys.executable, "-m", "saboteur_p2p", "watch", f"127.0.0.1:{port}", "--connect-timeout", "1"],
                          capture_output=True, text=True, timeout=30)
    assert gone.returncode == 2 and gone.stderr.strip() == f"saboteur-p2p watch: no table answered at 127.0.0.1:{port} within 1 s"


def test_nothing_to_watch_is_a_clear_error_within_the_timeout() -> None:
    port = free_port()
    started = time.monotonic()
    try:
        watch_table(f"127.0.0.1:{port}", lambda node: None, lambda text: None, connect_timeout=1.0)
    except WatchFailed as exc:
        assert str(exc) == f"no table answered at 127.0.0.1:{port} within 1 s"
    else:
        raise AssertionError("watching nothing did not fail")
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost:abc", "127.0.0.1:0", "tcp://:9"])
def test_an_address_that_is_not_host_and_port_is_refused_at_once(address: str) -> None:
    """It waited the whole timeout, then said no table answered (a play-test)."""
    started = time.monotonic()
    with pytest.raises(WatchFailed, match=r"not a table address: .* \(expected HOST:PORT\)"):
        watch_table(address, lambda node: None, lambda text: None, connect_timeout=5.0)
    assert time.monotonic() - started < 1


def test_a_spectator_that_does_not_read_is_sent_no_more_than_the_window_past_its_count(tmp_path: Path) -> None:
    """A seat sends a spectator at most FEED_WINDOW records past the count it last reported, so
    an outsider that says ``watch`` and never reads costs the seat a bounded amount of memory."""
    from protocol_helpers import seeded_game
    from session_doubles import seated_session

    from saboteur_p2p.net.watchers import FEED_WINDOW, RESEND_EVERY
    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3), 3)
    while len(game.records) < FEED_WINDOW + 40:
        assert step(game, lambda seat, node: str(node.state.legal_actions()[0]))  # type: ignore[union-attr]
    session = seated_session(game, game.nodes[0], tmp_path)
    spectator = Identity.generate()
    session._handle(b"spectator", seal(spectator, "watch", {"version": 1, "records": 0}))
    for _ in range(5):
        session._feed_watchers()
    sent = [data for connection, data in session.transport.sent if connection == b"spectator"]  # type: ignore[attr-defined]
    records = [open_envelope(d).body["record"] for d in sent if open_envelope(d).kind == "record"]
    assert records == game.nodes[0].records[:FEED_WINDOW]  # in log order, and no further
    before = len(session.transport.sent)  # type: ignore[attr-defined]
    session.watchers[b"spectator"].resent -= RESEND_EVERY  # its next report comes a while later
    session._handle(b"spectator", seal(spectator, "watch", {"version": 1, "records": 30}))
    session._feed_watchers()
    sent = [data for connection, data in session.transport.sent[before:] if connection == b"spectator"]  # type: ignore[attr-defined]
    records = [open_envelope(d).body["record"] for d in sent if open_envelope(d).kind == "record"]
    # it holds 30: the window moves on to 30 + FEED_WINDOW, from its own count (what was on the
    # way is sent again: it may have been lost)
    assert records == game.nodes[0].records[30:30 + FEED_WINDOW]
    # back on a new connection, it is fed from what it holds, not from the start (found by review)
    before = len(session.transport.sent)  # type: ignore[attr-defined]
    session._handle(b"spectator again", seal(spectator, "watch", {"version": 1, "records": 30}))
    session._feed_watchers()
    sent = [data for connection, data in session.transport.sent[before:] if connection == b"spectator again"]  # type: ignore[attr-defined]
    assert [open_envelope(d).body["record"] for d in sent if open_envelope(d).kind == "record"] == \
        game.nodes[0].records[30:30 + FEED_WINDOW]
    session._handle(b"spectator", seal(spectator, "watch", {"version": 2, "records": 0}))
    refused = open_envelope(session.transport.sent[-1][1])  # type: ignore[attr-defined]
    assert refused.kind == "reject" and "watch version 1" in refused.body["reason"]


def test_one_machine_that_takes_every_spectators_place_gives_one_up_to_another(tmp_path: Path) -> None:
    """Anyone on the LAN may watch, and a seat feeds MAX_WATCHERS spectators: one machine that
    took every place kept everyone else out for the whole game.  The places are now shared
    by address, as the listener shares its connections: a newcomer from another machine
    takes the longest-fed place of the machine fed most, never one that machine would need
    to keep its fair share."""
    from protocol_helpers import seeded_game
    from session_doubles import SentLog, seated_session

    from saboteur_p2p.net.watchers import MAX_WATCHERS

    game = seeded_game(GameConfig(3), 3)
    session = seated_session(game, game.nodes[0], tmp_path)
    transport = session.transport
    assert isinstance(transport, SentLog)

    def watch(connection: bytes, address: str) -> str:
        transport.addresses[connection] = address
        session._handle(connection, seal(Identity.generate(), "watch", {"version": 1, "records": 0}))
        return str(open_envelope(transport.sent[-1][1]).kind)

    squatters = [b"squat%d" % n for n in range(MAX_WATCHERS)]
    assert [watch(c, "10.0.0.66") for c in squatters] == ["watching"] * MAX_WATCHERS
    assert watch(b"squat-more", "10.0.0.66") == "reject"  # no more for the machine that has them all
    assert watch(b"friend", "10.0.0.7") == "watching"  # the longest-fed squatter made room
    assert squatters[0] not in session.watchers and b"friend" in session.watchers
    evicted = [open_envelope(d) for c, d in transport.sent if c == squatters[0]][-1]
    assert evicted.kind == "reject" and "other machines" in evicted.body["reason"]
    assert watch(b"squat-again", "10.0.0.66") == "reject"  # it cannot take the place back
    # fair shares: 4 each for two machines, and then nobody's place is taken
    for n in range(3):
        assert watch(b"friend%d" % n, "10.0.0.7") == "watching"
    assert watch(b"friend-more", "10.0.0.7") == "reject"
    assert sorted(w.address for w in session.watchers.values()) == ["10.0.0.66"] * 4 + ["10.0.0.7"] * 4


def test_a_spectator_that_says_watch_many_times_a_second_is_not_sent_the_log_each_time(tmp_path: Path) -> None:
    """`watch` with `records` 0, said many times a second, had the seat answer each one and
    send its log again each time: 0.6 MB sent brought back 416 MB in 20 s (found by review)."""
    from protocol_helpers import seeded_game
    from session_doubles import seated_session

    from saboteur_p2p.net.watchers import FEED_WINDOW, RESEND_EVERY
    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3), 3)
    while len(game.records) < FEED_WINDOW + 40:
        assert step(game, lambda seat, node: str(node.state.legal_actions()[0]))  # type: ignore[union-attr]
    session = seated_session(game, game.nodes[0], tmp_path)
    flooder = Identity.generate()
    for _ in range(200):  # well within a second
        session._handle(b"flooder", seal(flooder, "watch", {"version": 1, "records": 0}))
        session._feed_watchers()
    sent = [open_envelope(data).kind for connection, data in session.transport.sent if connection == b"flooder"]  # type: ignore[attr-defined]
    assert sent.count("watching") == 1 and sent.count("record") == FEED_WINDOW
    session.watchers[b"flooder"].resent -= RESEND_EVERY  # a while on: a spectator that lost records
    session._handle(b"flooder", seal(flooder, "watch", {"version": 1, "records": 0}))
    session._feed_watchers()
    sent = [open_envelope(data).kind for connection, data in session.transport.sent if connection == b"flooder"]  # type: ignore[attr-defined]
    assert sent.count("record") == 2 * FEED_WINDOW  # is sent them again
    # a count past what it was sent widened the window to the whole log (found by an attack:
    # 0 then 10**9 every RESEND_EVERY drew 570 times the bytes it sent): it counts as what was sent
    session.watchers[b"flooder"].resent -= RESEND_EVERY
    for held in (0, 10**9):
        session._handle(b"flooder", seal(flooder, "watch", {"version": 1, "records": held}))
    session._feed_watchers()
    sent = [open_envelope(data).kind for connection, data in session.transport.sent if connection == b"flooder"]  # type: ignore[attr-defined]
    assert sent.count("record") == 3 * FEED_WINDOW, sent.count("record")


def test_a_seat_whose_game_stops_early_tells_its_spectators_why_and_they_check_it(tmp_path: Path) -> None:
    """A spectator was told nothing when its seat's game stopped early: it said, 30 s later,
    only that the seat went quiet (found by a play-test).  The seat now sends it the records it
    lacks and then ``stopped`` with its log's verdict, which the spectator checks against them."""
    from protocol_helpers import seeded_game
    from session_doubles import SentLog, seated_session

    from saboteur_p2p.net.watch import _stopped
    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3), 3)
    while len(game.records) < 20:
        assert step(game, lambda seat, node: str(node.state.legal_actions()[0]))  # type: ignore[union-attr]
    session = seated_session(game, game.nodes[0], tmp_path)
    transport = session.transport
    assert isinstance(transport, SentLog)
    spectator = Identity.generate()
    session._handle(b"spectator", seal(spectator, "watch", {"version": 1, "records": 0}))
    due = game.nodes[0].next_expected
    assert due is not None and due.speaker != 0
    session._end(Outcome.PEER_GONE, f"seat {due.speaker} went silent", due.speaker)
    sent = [open_envelope(data) for connection, data in transport.sent if connection == b"spectator"]
    assert [env.kind for env in sent][-1] == "stopped"
    watcher = Node(game.setup, None)
    for env in sent:
        if env.kind == "record":
            watcher.receive(env.body["record"])
    assert watcher.records == game.nodes[0].records  # every record first, then why it stopped
    stopped = sent[-1].body
    watched = _stopped("127.0.0.1:9", watcher, stopped["verdict"], stopped["records"])
    name = game.setup.names[due.speaker]
    assert watched == Watched(False, f"the seat at 127.0.0.1:9 stopped: the log says seat {due.speaker} ({name}) went "
                              "silent; the next record was due from it (a claim: a log cut short there reads the same; "
                              "the other seats' logs hold that record if it was sent)", len(watcher.records))
    # a spectator that holds fewer records says so; one given junk says it cannot read it
    short = Node(game.setup, None)
    short.receive(watcher.records[0])
    # a spectator that holds fewer records reports the seat's word unchecked: judged against
    # fewer records, a true verdict read as a false one (found by review)
    behind = _stopped("h:1", short, stopped["verdict"], stopped["records"])
    assert behind == Watched(False, f"the seat at h:1 says its game stopped (peer-gone, naming seat {due.speaker}); not "
                                    f"checked: this spectator holds 1 of its {len(watcher.records)} records", 1)
    junk = _stopped("h:1", short, b"junk", 5)
    assert junk == Watched(False, "the seat at h:1 says its game stopped, with a verdict that cannot be read", 1)


def test_the_watch_command_reports_a_stopped_seats_verdict_at_once(tmp_path: Path) -> None:
    """The spectator's side of ``stopped`` over a real loopback connection: a seat that feeds
    it a game's records and then its verdict ends the watch at once with that verdict checked
    (it waited its whole quiet timeout before), and the records it took in are the seat's."""
    from protocol_helpers import seeded_game

    from saboteur_p2p.net.transport import Transport
    from saboteur_p2p.protocol.ending import Ending
    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3), 3)
    while len(game.records) < 20:
        assert step(game, lambda seat, node: str(node.state.legal_actions()[0]))  # type: ignore[union-attr]
    due = game.spectator.next_expected
    assert due is not None
    seat = Transport("127.0.0.1:0")
    host = game.nodes[0].identity
    assert host is not None
    verdict = Ending("peer-gone", due.speaker, "", "went silent", None, 0).to_bytes()
    box: dict[str, Watched] = {}
    spectator = threading.Thread(target=lambda: box.update(watched=watch_table(
        seat.endpoint.removeprefix("tcp://"), lambda node: None, lambda text: None, connect_timeout=10, quiet_timeout=30)))
    started = time.monotonic()
    spectator.start()
    try:
        fed = False
        while spectator.is_alive() and time.monotonic() - started < 20:
            for inbound in seat.poll(0.1):
                if open_envelope(inbound.data).kind != "watch" or fed:
                    continue
                seat.reply(inbound.connection, seal(host, "watching", {"game_id": game.setup.game_id, "records": 20}))
                for record in game.records:
                    seat.reply(inbound.connection, seal(host, "record", {"record": record}))
                seat.reply(inbound.connection, seal(host, "stopped", {"verdict": verdict, "records": len(game.records)}))
                fed = True
        spectator.join(5)
    finally:
        seat.close()
    name = game.setup.names[due.speaker]
    assert box["watched"] == Watched(False, f"the seat at {seat.endpoint.removeprefix('tcp://')} stopped: the log says "
                                            f"seat {due.speaker} ({name}) went silent; the next record was due from it "
                                            "(a claim: a log cut short there reads the same; the other seats' logs hold "
                                            "that record if it was sent)", len(game.records))
    assert time.monotonic() - started < 15  # at once, not after the 30 s a quiet seat is given


def test_a_seat_that_says_it_holds_records_it_never_sends_does_not_keep_a_spectator_for_ever(tmp_path: Path) -> None:
    """A seat sent some records, then only `watching` saying it held more: each one counted as
    hearing from it, and the spectator waited for ever, saying nothing (found by an attack).
    Past the quiet timeout it stops, saying how many the seat claims and how many came."""
    from protocol_helpers import seeded_game

    from saboteur_p2p.net.transport import Transport
    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3), 3)
    while len(game.records) < 20:
        assert step(game, lambda seat, node: str(node.state.legal_actions()[0]))  # type: ignore[union-attr]
    seat = Transport("127.0.0.1:0")
    host = game.nodes[0].identity
    assert host is not None
    box: dict[str, object] = {}

    def spectate() -> None:
        try:
            watch_table(seat.endpoint.removeprefix("tcp://"), lambda node: None, lambda text: None,
                        connect_timeout=10, quiet_timeout=2)
        except Exception as exc:  # the failure is what the test reads
            box["failed"] = exc

    spectator = threading.Thread(target=spectate)
    started = time.monotonic()
    spectator.start()
    try:
        fed = False
        while spectator.is_alive() and time.monotonic() - started < 15:
            for inbound in seat.poll(0.1):
                if open_envelope(inbound.data).kind != "watch":
                    continue
                if not fed:
                    for record in game.records[:10]:
                        seat.reply(inbound.connection, seal(host, "record", {"record": record}))
                    fed = True
                seat.reply(inbound.connection, seal(host, "watching", {"game_id": game.setup.game_id, "records": 20}))
        spectator.join(5)
    finally:
        seat.close()
    assert not spectator.is_alive() and time.monotonic() - started < 12
    assert "says it holds 20 records, and for 2 s sent none past the 10 this spectator holds" in str(box["failed"])


def test_the_watch_command_says_caught_cheating_by_its_status_only_for_a_cheat() -> None:
    """`watch` exited 3, "a seat was caught cheating", for a seat that left or went too (found
    by an attack): 3 for a cheat, 4 for a game stopped otherwise, 0 for one that finished."""
    from saboteur_p2p.cli_table import _watch_status

    assert _watch_status(Watched(True, "the game is over", 9)) == 0
    assert _watch_status(Watched(False, "seat 1 broke the protocol: bad-share: ...", 9, True)) == 3
    assert _watch_status(Watched(False, "the seat at h:1 says its game stopped (peer-gone)", 9)) == 4
