"""The table's endpoint speaks ZMTP itself (net/zmtp.py): an ordinary DEALER talks to it as
to a ROUTER, and whatever a stranger sends, it holds a bounded amount.  All on loopback;
every wait is bounded."""
from __future__ import annotations

import socket
import time
from collections.abc import Iterator

import pytest
import zmq
from net_doubles import receive_until

from saboteur_p2p.net import zmtp
from saboteur_p2p.net.transport import TABLE_MESSAGE_LIMIT, Transport


@pytest.fixture
def table(context: zmq.Context) -> Iterator[Transport]:
    from saboteur_p2p.crypto.identity import Identity

    transport = Transport("127.0.0.1:0", context, link_keys=Identity.generate().link_keys())
    yield transport
    transport.close()


def _dealer(context: zmq.Context, endpoint: str, heartbeat_ms: int = 1000, timeout_ms: int = 6000) -> zmq.Socket:
    """A libzmq DEALER with ZeroMQ's heartbeats, as a peer of another implementation may dial
    a table: it must be taken as our own links are."""
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.HEARTBEAT_IVL, heartbeat_ms)
    dealer.setsockopt(zmq.HEARTBEAT_TIMEOUT, timeout_ms)
    dealer.setsockopt(zmq.HEARTBEAT_TTL, timeout_ms)
    dealer.connect(endpoint)
    return dealer


def _answer(dealer: zmq.Socket, seconds: float = 5.0) -> bytes | None:
    if dealer.poll(int(seconds * 1000)):
        return dealer.recv()
    return None


@pytest.mark.parametrize("keyed", ["right", "wrong"])
def test_a_curve_dealer_that_knows_the_table_s_key_talks_to_it_encrypted(context, table, keyed) -> None:
    """The table's endpoint takes NULL or CURVE, as each client's greeting says: a libzmq
    DEALER given the table's key is answered (the wire carries boxes, not the message); one
    given another key never gets in, and the endpoint stays open to everyone else."""
    from saboteur_p2p.crypto.identity import Identity

    assert table.link_keys is not None
    server = table.link_keys[0] if keyed == "right" else Identity.generate().link_keys()[0]
    public, secret = Identity.generate().link_keys()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    for option, key in ((zmq.CURVE_SERVERKEY, server), (zmq.CURVE_PUBLICKEY, public), (zmq.CURVE_SECRETKEY, secret)):
        dealer.setsockopt(option, key)
    dealer.connect(table.endpoint)
    plain = _dealer(context, table.endpoint)
    try:
        dealer.send(b"secret hello")
        plain.send(b"plain hello")
        got = receive_until(table, 3, want=2)
        assert (b"secret hello" in [d for _, d in got]) == (keyed == "right"), got
        assert b"plain hello" in [d for _, d in got]
        if keyed == "right":
            ((connection, _),) = [(c, d) for c, d in got if d == b"secret hello"]
            table.reply(connection, b"welcome")
            assert _answer(dealer) == b"welcome"
    finally:
        dealer.close()
        plain.close()


@pytest.mark.parametrize("size", [0, 1, 255, 256, 5000, TABLE_MESSAGE_LIMIT])
def test_a_dealer_talks_to_the_table_as_to_a_router(context, table, size) -> None:
    dealer = _dealer(context, table.endpoint)
    try:
        message = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
        dealer.send(message)
        ((connection, data),) = receive_until(table, 5)
        assert data == message
        table.reply(connection, message + b"!")  # long frames both ways past 255 bytes
        assert _answer(dealer) == message + b"!"
    finally:
        dealer.close()


def test_a_message_past_the_limit_closes_its_connection_and_nobody_else_s(context, table) -> None:
    big, honest = _dealer(context, table.endpoint), _dealer(context, table.endpoint)
    try:
        honest.send(b"hello")
        big.send(b"hi")
        ids = {data: connection for connection, data in receive_until(table, 5, want=2)}
        big.send(b"x" * (TABLE_MESSAGE_LIMIT + 1))
        assert receive_until(table, 1.0) == []
        # closed (its DEALER dials again at once, on a new connection); the other one kept
        assert ids[b"hi"] not in table.table.connections and ids[b"hello"] in table.table.connections
        honest.send(b"still here")
        assert receive_until(table, 5) == [(ids[b"hello"], b"still here")]
    finally:
        big.close()
        honest.close()


def test_a_multipart_message_is_dropped_whole_and_one_past_the_limit_in_total_closes_the_connection(context, table) -> None:
    dealer = _dealer(context, table.endpoint)
    try:
        dealer.send_multipart([b"a", b"b"])
        dealer.send(b"single")
        ((connection, data),) = receive_until(table, 5)
        assert data == b"single"  # the two-frame message never surfaced; the connection goes on
        part = b"y" * 1000
        dealer.send_multipart([part] * (TABLE_MESSAGE_LIMIT // len(part) + 1))  # each frame small, the whole too big
        time.sleep(0.3)
        assert receive_until(table, 0.5) == [] and connection not in table.table.connections
    finally:
        dealer.close()


PLAIN_GREETING = b"\xff" + bytes(8) + b"\x7f\x03\x01" + b"PLAIN".ljust(20, b"\0") + bytes(32)


@pytest.mark.parametrize("garbage", [b"GET / HTTP/1.0\r\n\r\n", PLAIN_GREETING])
def test_bytes_that_are_not_a_zmtp_null_or_curve_greeting_close_the_connection(table, garbage) -> None:
    host, port = table.endpoint.removeprefix("tcp://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        raw.sendall(garbage)
        deadline = time.monotonic() + 5
        closed = False
        raw.settimeout(0.2)
        while time.monotonic() < deadline and not closed:
            table.poll(0.05)
            try:
                closed = raw.recv(4096) == b""  # the greeting first, then the close
            except TimeoutError:
                continue
            except ConnectionResetError:
                closed = True
        assert closed and not table.table.connections


def test_a_connection_that_never_finishes_its_handshake_is_closed(table, monkeypatch) -> None:
    monkeypatch.setattr(zmtp, "HANDSHAKE_S", 0.3)
    host, port = table.endpoint.removeprefix("tcp://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5):
        receive_until(table, 0.2)
        assert len(table.table.connections) == 1
        receive_until(table, 0.6)
        assert not table.table.connections


def test_connections_past_the_cap_are_closed_at_once(table, monkeypatch) -> None:
    monkeypatch.setattr(zmtp, "MAX_CONNECTIONS", 2)
    host, port = table.endpoint.removeprefix("tcp://").rsplit(":", 1)
    raws = [socket.create_connection((host, int(port)), timeout=5) for _ in range(4)]
    try:
        receive_until(table, 0.5)
        assert len(table.table.connections) == 2
    finally:
        for raw in raws:
            raw.close()


@pytest.mark.slow
def test_the_table_answers_heartbeats_so_an_idle_joiner_keeps_its_connection(context, table) -> None:
    # a stall of the test's own loop is no silence
    dealer = _dealer(context, table.endpoint, heartbeat_ms=200, timeout_ms=1500)
    try:
        dealer.send(b"first")
        ((first, _),) = receive_until(table, 5)
        receive_until(table, 4.0)  # nearly three timeouts of silence from the joiner's side: PONGs keep it
        dealer.send(b"second")
        ((second, data),) = receive_until(table, 5)
        assert data == b"second" and second == first  # the same connection: never dropped
    finally:
        dealer.close()


def _raw_joiner(endpoint: str) -> socket.socket:
    """A TCP connection that has done the ZMTP handshake as a DEALER, by hand: free to send
    any frames, as a DEALER socket never would (it sends only whole messages)."""
    host, port = endpoint.removeprefix("tcp://").rsplit(":", 1)
    raw = socket.create_connection((host, int(port)), timeout=5)
    raw.sendall(zmtp.GREETING + zmtp.ready_command(b"DEALER"))
    return raw


def test_unfinished_messages_over_all_connections_are_bounded_and_counted_back_down(table, monkeypatch) -> None:
    monkeypatch.setattr(zmtp, "MAX_HELD", 150_000)
    raws = [_raw_joiner(table.endpoint) for _ in range(4)]
    try:
        for i, raw in enumerate(raws):
            raw.sendall(zmtp.frame(str(i).encode()))
        ids = {data: connection for connection, data in receive_until(table, 5, want=4)}
        assert len(ids) == 4 and table.table.held == 0
        for raw in raws:  # each starts a message of 60,000 bytes that never ends
            raw.sendall(zmtp.frame(b"z" * 60_000, zmtp.MORE))
            receive_until(table, 0.3)
        kept = [ids[data] for data in sorted(ids) if ids[data] in table.table.connections]
        assert kept == [ids[b"0"], ids[b"1"]] and 120_000 <= table.table.held <= 150_000  # the last two were closed
        assert table.table.held == sum(state.held for state in table.table.connections.values())
    finally:
        for raw in raws:
            raw.close()
    receive_until(table, 1.0)  # the peers' closing is noticed, and what they held let go
    assert table.table.held == 0 and not table.table.connections


@pytest.mark.parametrize(("kind", "kept"), [(b"DEALER", True), (b"ROUTER", True), (b"REQ", False), (b"PUB", False)])
def test_only_sockets_that_send_an_envelope_as_one_frame_are_taken(table, kind, kept) -> None:
    host, port = table.endpoint.removeprefix("tcp://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=5) as raw:
        raw.sendall(zmtp.GREETING + zmtp.ready_command(kind) + zmtp.frame(b"hello"))
        got = receive_until(table, 1.5)
        assert ([data for _, data in got] == [b"hello"]) is kept
        assert bool(table.table.connections) is kept
