"""Attacks on the table's ZMTP listener (net/zmtp.py): what a stranger's raw bytes, or an honest
but plain ZeroMQ peer, could do to it.  All on loopback; every wait is bounded."""
from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

import pytest
import zmq

from saboteur_p2p.net import zmtp
from saboteur_p2p.net.transport import POLL_BYTES, TABLE_MESSAGE_LIMIT


@pytest.fixture
def listener(context: zmq.Context) -> Iterator[zmtp.ZmtpListener]:
    listener = zmtp.ZmtpListener(context, "tcp://127.0.0.1:*", TABLE_MESSAGE_LIMIT)
    yield listener
    listener.close()


def _endpoint(listener: zmtp.ZmtpListener) -> str:
    return listener.socket.getsockopt(zmq.LAST_ENDPOINT).decode()


def _raw_joiner(listener: zmtp.ZmtpListener) -> socket.socket:
    """A TCP connection that has done the handshake as a DEALER, by hand."""
    host, port = _endpoint(listener).removeprefix("tcp://").rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=5)
    raw.sendall(zmtp.GREETING + zmtp.ready_command(b"DEALER"))
    return raw


def _pump(listener: zmtp.ZmtpListener, seconds: float) -> list[tuple[bytes, bytes]]:
    out: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        out += listener.receive(POLL_BYTES)
        time.sleep(0.01)
    return out


@pytest.mark.parametrize("tiny", [zmtp.frame(b"", zmtp.MORE), zmtp.frame(b"x", zmtp.MORE)])
def test_a_message_of_endless_tiny_frames_holds_a_bounded_amount(listener, tiny) -> None:
    """Zero-length frames add nothing to ``size``, one-byte frames one byte each, yet every
    frame was kept as a list entry (or a bytes object of ~34 bytes): 40,000 frames held
    40,000 entries, never counted, never closed (an endless stream of b"\\x01\\x00" grew the
    host by 4 bytes of memory per byte received, forever)."""
    raw = _raw_joiner(listener)
    try:
        raw.sendall(zmtp.frame(b"hi"))
        ((connection, _),) = _pump(listener, 0.3)
        raw.sendall(tiny * 40_000)  # 80-120 kB on the wire, within the 64 KiB limit of bodies
        _pump(listener, 0.5)
        state = listener.connections.get(connection)
        if state is not None:  # kept open: then it keeps at most the first part or two
            assert len(state.parts) <= 2
            assert listener.held == state.held <= 2 * TABLE_MESSAGE_LIMIT + 9
    finally:
        raw.close()


def test_one_receive_does_a_bounded_amount_of_work_on_a_flood_of_empty_messages(listener) -> None:
    """Each 2-byte frame b"\\x00\\x00" is a whole (empty) message: POLL_BYTES (8 MiB) of them
    made one receive() return 4 million messages after 3 s of CPU, which Transport.poll then
    wrapped in as many Inbound objects (hundreds of MB, and the session loop stalled)."""
    raw = _raw_joiner(listener)
    sender = threading.Thread(target=lambda: raw.sendall(zmtp.frame(b"") * 300_000), daemon=True)
    try:
        raw.sendall(zmtp.frame(b"hi"))
        assert len(_pump(listener, 0.3)) == 1
        sender.start()
        sender.join(10)  # 600 kB: it all fits in loopback's buffers and the two queued chunks
        time.sleep(0.2)
        biggest = 0
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            got = len(listener.receive(POLL_BYTES))
            biggest = max(biggest, got)
            if not got:
                break
        assert biggest <= 20_000
    finally:
        raw.close()
        sender.join(5)


class _Notices:
    """A STREAM socket with an endless queue of connections opened and closed at once."""

    def __init__(self, total: int) -> None:
        self.total, self.calls = total, 0

    def recv_multipart(self, flags: int = 0, copy: bool = True) -> list[bytes] | list[zmq.Frame]:
        self.calls += 1
        if self.calls > self.total:
            raise zmq.Again()
        frames = [b"\x00" + ((self.calls + 1) // 2).to_bytes(4, "big"), b""]
        return frames if copy else [zmq.Frame(frame) for frame in frames]

    def send_multipart(self, frames: list[bytes], flags: int = 0) -> None:
        pass


def test_connection_notices_count_against_the_budget(listener) -> None:
    """A notice of a connection opened or closed is 0 bytes, so it never counted against
    ``budget``: a stranger opening and closing connections as fast as we take them kept
    receive() from returning at all."""
    real = listener.socket
    fake = _Notices(200_000)
    listener.socket = fake  # type: ignore[assignment]
    try:
        listener.receive(POLL_BYTES)
    finally:
        listener.socket = real
    assert fake.calls <= 20_000


def test_an_idle_dealer_without_heartbeats_keeps_its_connection(context, listener, monkeypatch) -> None:
    """A plain DEALER (no ZMQ_HEARTBEAT_IVL: libzmq's default) sends nothing while idle; the
    listener closed it after SILENCE_S, as a ROUTER never would, and a reply addressed to
    that connection was lost.  The listener can ping it: libzmq answers every PING."""
    monkeypatch.setattr(zmtp, "SILENCE_S", 1.0)
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(_endpoint(listener))
    try:
        dealer.send(b"hello")
        ((connection, _),) = _pump(listener, 0.5)
        _pump(listener, 2.5)  # idle, well past SILENCE_S
        assert connection in listener.connections
        assert listener.send(connection, b"welcome")
        assert dealer.poll(2000) and dealer.recv() == b"welcome"
    finally:
        dealer.close()


def test_replies_queued_for_a_connection_that_never_reads_are_bounded(listener) -> None:
    """ZMQ_STREAM's default SNDHWM is 1,000 messages per connection: a stranger that says
    hello or watch again and again and never reads had up to 1,000 replies each held in
    libzmq (x 256 connections), whatever MAX_HELD says.  300 replies of 1 MiB were all taken."""
    raw = _raw_joiner(listener)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        raw.sendall(zmtp.frame(b"hi"))
        ((connection, _),) = _pump(listener, 0.3)
        taken = sum(listener.send(connection, b"r" * 65_536) for _ in range(1_000))
        assert taken <= 300
    finally:
        raw.close()


def test_a_peer_that_closes_while_its_queue_is_full_is_forgotten_soon(listener, monkeypatch) -> None:
    """The notice that a peer closed is pushed into the same pipe as its data: with RCVHWM 2
    and two chunks waiting, libzmq drops it, so the connection stayed in ``connections``
    (a slot of MAX_CONNECTIONS, and what it held counted in MAX_HELD) until SILENCE_S,
    while the stranger holds no socket at all."""
    monkeypatch.setattr(zmtp, "SILENCE_S", 4.0)
    raws = [_raw_joiner(listener) for _ in range(5)]
    for raw in raws:
        raw.sendall(zmtp.frame(b"x" * 60_000, zmtp.MORE))  # 60 kB: more than two queued chunks
    time.sleep(0.3)
    for raw in raws:
        raw.close()
    time.sleep(0.2)
    _pump(listener, 3.0)  # a ping goes out after SILENCE_S / 3 (and a sweep), and finds them gone: before SILENCE_S
    assert not listener.connections and listener.held == 0


def test_one_address_cannot_take_every_connection_slot(context, listener, monkeypatch) -> None:
    """MAX_CONNECTIONS counted every connection alike, refusing newcomers: one stranger with
    256 raw connections (one ping each per SILENCE_S) kept every joiner from the table."""
    monkeypatch.setattr(zmtp, "MAX_CONNECTIONS", 8)
    host, port = _endpoint(listener).removeprefix("tcp://").rsplit(":", 1)
    squatters = []
    for _ in range(8):  # from another loopback address than the joiner's
        raw = socket.create_connection((host, int(port)), timeout=5, source_address=("127.0.0.2", 0))
        raw.sendall(zmtp.GREETING + zmtp.ready_command(b"DEALER"))
        squatters.append(raw)
    _pump(listener, 0.3)
    assert len(listener.connections) == 8
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.RECONNECT_IVL, 100)
    dealer.connect(_endpoint(listener))
    try:
        dealer.send(b"hello")
        got = []
        deadline = time.monotonic() + 3
        while not got and time.monotonic() < deadline:
            got = listener.receive(POLL_BYTES)
            time.sleep(0.01)
        assert [data for _, data in got] == [b"hello"]
        assert listener.send(got[0][0], b"welcome") and dealer.poll(2000) and dealer.recv() == b"welcome"
        assert len(listener.connections) <= 8
    finally:
        dealer.close()
        for raw in squatters:
            raw.close()


def test_places_are_shared_by_machine_and_an_ipv6_host_counts_as_its_slash_64() -> None:
    """Places were shared by address: a host on an IPv6 LAN may give itself any address of
    its /64, so eight addresses of one prefix held eight places "fairly" and turned everyone
    else away.  An IPv4-mapped address is its IPv4 address."""
    squatter = {n: (f"fd00:1:2:3::{n:x}", float(n)) for n in range(1, 9)}
    assert zmtp.make_room_for("fd00:1:2:4::1", squatter) == 1  # another /64: the prefix's oldest goes
    assert zmtp.make_room_for("fd00:1:2:3::99", squatter) is None  # the same /64 gets no more
    ipv4 = {n: (f"192.168.1.{n}", float(n)) for n in range(1, 9)}
    assert zmtp.make_room_for("192.168.1.20", ipv4) is None  # eight machines, one place each
    crowd = {**ipv4, 9: ("192.168.1.8", 9.0), 10: ("::ffff:192.168.1.8", 10.0)}
    assert zmtp.make_room_for("192.168.1.20", crowd) == 8  # .8 holds three: its oldest goes
    assert zmtp.machine_of("fe80::1%eth0") == "fe80::/64" and zmtp.machine_of("not an address") == "not an address"


def test_one_machine_opens_at_most_so_many_connections_a_second(listener, monkeypatch) -> None:
    """A storm of reconnects from one machine (thousands a second) had each connection greeted
    and given a place: the table fell behind its socket, took gigabytes and stalled the game
    (found by an attack).  Past OPENS_PER_S in a second a machine's new connections are closed
    at once; the count starts again each second, and other machines are not counted with it."""
    assert not any(listener._too_many_opens("10.0.0.5", 100) for _ in range(zmtp.OPENS_PER_S))
    assert listener._too_many_opens("10.0.0.5", 100)
    assert not listener._too_many_opens("10.0.0.6", 100)
    assert not listener._too_many_opens("10.0.0.5", 101)
    for n in range(2 * zmtp.MAX_CONNECTIONS):  # the counts kept stay bounded
        listener._too_many_opens(f"10.1.{n // 256}.{n % 256}", 102 + n // 300)
    assert len(listener.opens) <= zmtp.MAX_CONNECTIONS
    # over real sockets: past the limit in one second, connections get no greeting
    monkeypatch.setattr(zmtp, "OPENS_PER_S", 5)
    host, port = _endpoint(listener).removeprefix("tcp://").rsplit(":", 1)
    raws = [socket.create_connection((host, int(port)), timeout=5) for _ in range(12)]
    try:
        _pump(listener, 0.3)
        assert len(listener.connections) <= 10  # 5 a second, the connects spanning a second's turn at most
    finally:
        for raw in raws:
            raw.close()
