"""The sockets (net/transport.py): seats reach each other on an encrypted link endpoint
(CurveZMQ under their identity keys), which refuses a peer that does not know its key, and
what crosses the wire there cannot be read.  All on loopback; every wait is bounded."""
from __future__ import annotations

import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import zmq
from test_network import free_port

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.transport import LINK_CONNECTION, Transport

SECRET = b"a move nobody on the LAN should read: path 12 at 3,-1"


@pytest.fixture
def pair() -> Iterator[tuple[Transport, Transport, Identity, Identity]]:
    context = zmq.Context()
    alice, bob = Identity.generate(), Identity.generate()
    a = Transport("127.0.0.1:0", context, link_keys=alice.link_keys())
    b = Transport("127.0.0.1:0", context, link_keys=bob.link_keys())
    try:
        yield a, b, alice, bob
    finally:
        b.close()  # the receiver first: a sender whose peer is there but not polled would
        a.close()  # wait for its handshake (Transport.drain)
        context.term()


def _receive(transport: Transport, seconds: float, sender: Transport | None = None) -> list[tuple[bytes, bytes]]:
    """What ``transport`` gets within ``seconds``, polling ``sender`` as well (a link's
    handshake goes on as its owner polls, as a session's loop always does)."""
    got: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not got:
        if sender is not None:
            sender.poll(0)
        got += [(inbound.connection, inbound.data) for inbound in transport.poll(0.05)]
    return got


def test_a_seat_that_knows_the_key_reaches_the_link_endpoint_and_is_answered(pair) -> None:
    a, b, _, bob = pair
    assert b.link_endpoint != b.endpoint and b.advertised("tcp://127.0.0.1:1") == b.link_endpoint
    assert a.connect(b.link_endpoint, server_key=bob.public.dh_key)
    assert not a.all_ready([b.link_endpoint])  # nobody polled: no handshake yet
    a.send(b.link_endpoint, SECRET)
    ((connection, data),) = _receive(b, 5, a)
    assert data == SECRET and connection.startswith(LINK_CONNECTION)
    assert a.all_ready([b.link_endpoint]) and not a.all_ready([b.link_endpoint, b.endpoint])
    b.reply(connection, b"heard you")
    assert _receive(a, 5, b) == [(b"dealer:" + b.link_endpoint.encode(), b"heard you")]


@pytest.mark.parametrize("who", ["plaintext", "wrong key"])
def test_the_link_endpoint_takes_nothing_from_a_peer_that_does_not_know_its_key(pair, who: str) -> None:
    a, b, alice, _ = pair
    key = None if who == "plaintext" else alice.public.dh_key  # the key of another seat, not b's
    assert a.connect(b.link_endpoint, server_key=key)
    a.send(b.link_endpoint, SECRET)
    assert _receive(b, 1.5) == []


class _Tap:
    """A TCP relay that keeps every byte it passes on: what someone on the LAN would see."""

    def __init__(self, upstream: str) -> None:
        host, port = upstream.removeprefix("tcp://").rsplit(":", 1)
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.endpoint = f"tcp://127.0.0.1:{self.listener.getsockname()[1]}"
        self.seen = bytearray()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        self.listener.settimeout(10)
        with self.listener:
            inside, _ = self.listener.accept()
        outside = socket.create_connection(self.upstream, timeout=10)
        for source, sink in ((inside, outside), (outside, inside)):
            threading.Thread(target=self._pump, args=(source, sink), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        source.settimeout(10)
        try:
            while data := source.recv(65536):
                self.seen += data
                sink.sendall(data)
        except OSError:
            pass


@pytest.mark.parametrize("endpoint", ["link", "table"])
def test_what_crosses_the_link_cannot_be_read_on_the_wire(pair, endpoint: str) -> None:
    """The same message through a tap: readable on the table's own endpoint (hellos and
    spectators), never on the link endpoint the seats use."""
    a, b, _, bob = pair
    target = b.link_endpoint if endpoint == "link" else b.endpoint
    tap = _Tap(target)
    assert a.connect(tap.endpoint, server_key=bob.public.dh_key if endpoint == "link" else None)
    a.send(tap.endpoint, SECRET)
    ((_, data),) = _receive(b, 5, a)
    assert data == SECRET
    assert (SECRET in tap.seen) == (endpoint == "table")


def test_a_seat_that_keeps_moving_holds_at_most_two_links_open() -> None:
    """Each link to a new endpoint replaces the one still waiting for its handshake."""
    transport = Transport("127.0.0.1:0")
    try:
        transport.connect("tcp://127.0.0.1:1")
        old = "tcp://127.0.0.1:1"
        for port in range(2, 60):
            new = f"tcp://192.0.2.9:{port}"  # nobody answers there
            assert transport.replace(old, new)
            old = new
        assert set(transport.outbound) == {"tcp://127.0.0.1:1", "tcp://192.0.2.9:59"}
        assert transport.replacing == {"tcp://192.0.2.9:59": "tcp://127.0.0.1:1"}
    finally:
        transport.close()


LAST_WORDS = """
import sys
from saboteur_p2p.net.transport import Transport
transport = Transport("127.0.0.1:0")
transport.connect(sys.argv[1])
assert transport.send(sys.argv[1], b"last words")
print("sent", flush=True)
transport.close()
"""


def _last_words(busy: float | None = None) -> list[bytes]:
    """What a peer gets of the one message a process sends it just before it closes its
    transport.  The peer starts listening only after the sender has closed its transport
    (``busy`` None), or listens from the start but polls only ``busy`` seconds after it sent."""
    port = free_port()
    early = None if busy is None else Transport(f"127.0.0.1:{port}")
    sender = subprocess.Popen([sys.executable, "-c", LAST_WORDS, f"tcp://127.0.0.1:{port}"],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert sender.stdout is not None and sender.stdout.readline().strip() == "sent"
        time.sleep(busy or 0.0)
        receiver = early or Transport(f"127.0.0.1:{port}")
        try:
            got = _receive(receiver, 5.0)
        finally:
            receiver.close()
        assert sender.wait(10) == 0
        return [data for _, data in got]
    finally:
        sender.kill()
        sender.wait()


def test_what_a_peer_sends_just_before_it_stops_still_goes_out() -> None:
    """A seat that names a cheater sends its ``abort`` and stops.  Its process ended with the
    message still queued, and the ZeroMQ context (shared, never terminated) took it along: an
    honest peer then waited out the whole ``--wait`` for a verdict that never came."""
    assert _last_words() == [b"last words"]


def test_what_a_peer_sends_as_it_stops_reaches_a_peer_that_is_busy_computing() -> None:
    """The seat told may be busy (a shuffle's proof): its kernel takes the connection, but the
    handshake waits for its loop.  A libzmq DEALER gave up after its linger (1 s), and the
    busy seat then waited out the whole ``--wait``; a link that is connected waits for the
    handshake (up to DRAIN_S) and hands the message over."""
    assert _last_words(busy=2.0) == [b"last words"]


def test_a_link_that_hung_up_once_is_not_refused_after_its_next_handshake() -> None:
    """``refused`` says why a link broke off in its handshake since it last completed one: a
    hang-up long past (a peer busy proving) made every seat show its genesis at that seat's
    table endpoint for the rest of the game, as if the seat played another (found by review)."""
    from saboteur_p2p.crypto.identity import Identity

    ours, theirs = Identity.generate(), Identity.generate()
    a = Transport("127.0.0.1:0", link_keys=ours.link_keys())
    b = Transport("127.0.0.1:0", link_keys=theirs.link_keys())
    try:
        endpoint = b.link_endpoint

        def until_ready() -> None:
            deadline = time.monotonic() + 10
            while not a.outbound[endpoint].ready and time.monotonic() < deadline:
                a.poll(0.01)
                b.poll(0.01)
            assert a.outbound[endpoint].ready

        assert a.connect(endpoint, server_key=theirs.public.dh_key)
        until_ready()
        a.outbound[endpoint].hang_up("no handshake within 10 s")
        assert a.refused(endpoint) == "no handshake within 10 s"
        until_ready()
        assert a.refused(endpoint) == ""
    finally:
        a.close()
        b.close()
