"""Our outbound links (net/dialer.py): they talk to libzmq's own ROUTER sockets (NULL and
CURVE) as a DEALER would, and a peer they dial cannot make them hold more than a message's
limit however it frames its bytes.  All on loopback; every wait is bounded."""
from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest
import zmq
from net_doubles import receive_until
from test_network import free_port

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import zmtp
from saboteur_p2p.net.dialer import ClientConnection, Dialer
from saboteur_p2p.net.transport import POLL_BYTES, Transport, dealer_connection
from saboteur_p2p.net.wire import MAX_WIRE_MESSAGE


class RawServer:
    """A TCP server that speaks ZMTP by hand, as a ROUTER (NULL), one step at a time: free to
    send what no ZeroMQ socket would."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.listener.settimeout(5)
        self.endpoint = f"tcp://127.0.0.1:{self.listener.getsockname()[1]}"
        self.conn: socket.socket | None = None

    def accept(self, dialer: Dialer, greet: bool = True) -> socket.socket:
        """Take the dialer's next connection (polling it meanwhile); with ``greet``, do the
        NULL handshake as a ROUTER."""
        self.listener.setblocking(False)
        deadline = time.monotonic() + 5
        while True:
            pump(dialer, 0.02)
            try:
                self.conn, _ = self.listener.accept()
                break
            except BlockingIOError:
                assert time.monotonic() < deadline, "the dialer never connected"
        self.conn.settimeout(5)
        if greet:
            assert self.read(zmtp.GREETING_SIZE, dialer)[:12] == zmtp.GREETING[:12]
            self.conn.sendall(zmtp.GREETING + zmtp.ready_command(b"ROUTER"))
            ready = zmtp.ready_command(b"DEALER")
            assert self.read(len(ready), dialer) == ready
            assert dialer.ready
        return self.conn

    def read(self, n: int, dialer: Dialer, until: bytes | None = None) -> bytes:
        """``n`` bytes from the dialer (or fewer, once ``until`` is among them), within 5 s."""
        assert self.conn is not None
        self.conn.setblocking(False)
        data = b""
        deadline = time.monotonic() + 5
        while len(data) < n and time.monotonic() < deadline and not (until and until in data):
            pump(dialer, 0.02)
            try:
                data += self.conn.recv(n - len(data))
            except BlockingIOError:
                continue
        return data

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
        self.listener.close()


def pump(dialer: Dialer, seconds: float) -> list[bytes]:
    """Poll a dialer as Transport.poll does, for ``seconds``."""
    got: list[bytes] = []
    deadline = time.monotonic() + seconds
    while True:
        if dialer.socket is not None and dialer.socket.poll(10):
            got += dialer.receive(1 << 20)[0]
        dialer.tick(time.monotonic())
        if time.monotonic() >= deadline:
            return got


@pytest.fixture
def server() -> Iterator[RawServer]:
    raw = RawServer()
    yield raw
    raw.close()


@pytest.fixture
def dialer(context: zmq.Context, server: RawServer) -> Iterator[Dialer]:
    link = Dialer(context, server.endpoint, limit=64 * 1024, queue=100, linger_ms=0)
    yield link
    link.close(0)


@pytest.mark.parametrize("part", [b"x" * 1000, b""])
def test_a_message_that_never_ends_holds_at_most_the_limit(server: RawServer, dialer: Dialer, part: bytes) -> None:
    """A libzmq DEALER kept every frame of a multipart message until its last one came: the
    peer it dialled (a fake table, a hostile seat) could grow its memory without bound.  Ours
    keeps two parts at most and closes the link once the message passes the limit; empty
    parts, which add nothing to its size, are counted and dropped."""
    conn = server.accept(dialer)
    most = 0
    for _ in range(100):
        try:
            conn.sendall(zmtp.frame(part, zmtp.MORE) * 20)  # 20 kB a step, or 40 bytes of empty frames
        except OSError:
            break  # closed by the dialer
        pump(dialer, 0.01)
        if dialer.state is not None:
            assert len(dialer.state.parts) <= 2
            most = max(most, dialer.state.held)
    assert most <= 64 * 1024 + 8 * 1024  # the limit, and at most a chunk of raw TCP
    if part:
        assert "past the size limit" in dialer.trouble and dialer.state is None


def test_a_frame_past_the_limit_is_refused_from_its_header(server: RawServer, dialer: Dialer) -> None:
    conn = server.accept(dialer)
    conn.sendall(bytes([zmtp.LONG]) + (1 << 40).to_bytes(8, "big"))  # a terabyte is announced
    pump(dialer, 0.2)
    assert dialer.trouble == "a frame past the size limit" and dialer.state is None


@pytest.mark.parametrize("garbage", [
    b"GET / HTTP/1.1\r\n\r\n",  # not ZMTP
    zmtp.CURVE_GREETING,  # another mechanism
    zmtp.GREETING + zmtp.ready_command(b"PUB"),  # a socket a DEALER cannot talk to
    zmtp.GREETING + zmtp.frame(b"before ready"),
])
def test_a_peer_that_breaks_zmtp_is_hung_up_on_and_dialled_again(server: RawServer, dialer: Dialer, garbage: bytes) -> None:
    conn = server.accept(dialer, greet=False)
    conn.sendall(garbage)
    pump(dialer, 0.2)
    assert dialer.trouble and dialer.state is None and not dialer.shaken
    server.accept(dialer)  # redialled after REDIAL_S, and this time it goes well
    assert dialer.send(b"hello again")
    assert server.read(2 + len(b"hello again"), dialer) == zmtp.frame(b"hello again")


def test_messages_wait_for_the_handshake_and_the_queue_is_bounded(server: RawServer, dialer: Dialer) -> None:
    assert all(dialer.send(b"m%d" % i) for i in range(100))
    assert not dialer.send(b"one too many")
    server.accept(dialer)
    wanted = b"".join(zmtp.frame(b"m%d" % i) for i in range(100))
    assert server.read(len(wanted), dialer) == wanted


def test_the_link_answers_pings_and_pings_when_idle(server: RawServer, dialer: Dialer) -> None:
    conn = server.accept(dialer)
    conn.sendall(zmtp.command(b"PING", b"\x00\x00ctx"))
    assert server.read(2 + 8, dialer) == zmtp.command(b"PONG", b"ctx")
    assert server.read(2 + 7, dialer) == zmtp.command(b"PING", b"\x00\x00")  # after a second of nothing


def test_the_link_talks_to_a_libzmq_router(context: zmq.Context) -> None:
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    transport = Transport("127.0.0.1:0", context)
    endpoint = f"tcp://127.0.0.1:{port}"
    try:
        assert transport.connect(endpoint)
        transport.send(endpoint, b"hello router")
        deadline = time.monotonic() + 5
        while not router.poll(10):
            transport.poll(0.01)
            assert time.monotonic() < deadline
        who, data = router.recv_multipart()
        assert data == b"hello router"
        router.send_multipart([who, b"hello dealer"])
        assert receive_until(transport, 5) == [(dealer_connection(endpoint), b"hello dealer")]
    finally:
        transport.close()
        router.close()


def test_the_link_talks_to_a_libzmq_curve_router(context: zmq.Context) -> None:
    server, client = Identity.generate(), Identity.generate()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.CURVE_SERVER, 1)
    router.setsockopt(zmq.CURVE_SECRETKEY, server.link_keys()[1])
    port = router.bind_to_random_port("tcp://127.0.0.1")
    transport = Transport("127.0.0.1:0", context, link_keys=client.link_keys())
    endpoint = f"tcp://127.0.0.1:{port}"
    try:
        assert transport.connect(endpoint, server_key=server.public.dh_key)
        transport.send(endpoint, b"secret")
        deadline = time.monotonic() + 5
        while not router.poll(10):
            transport.poll(0.01)
            assert time.monotonic() < deadline
        frames = router.recv_multipart(copy=False)
        assert frames[1].bytes == b"secret"
        router.send_multipart([frames[0].bytes, b"x" * 70_000])  # a long frame back, boxed
        assert receive_until(transport, 5) == [(dealer_connection(endpoint), b"x" * 70_000)]
    finally:
        transport.close()
        router.close()


def test_a_link_to_the_wrong_server_key_never_completes(context: zmq.Context) -> None:
    """A CURVE server that is not the one we meant cannot open our HELLO: the link gets
    nowhere (libzmq's server drops it), and nothing we queued goes out."""
    server = Identity.generate()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.setsockopt(zmq.CURVE_SERVER, 1)
    router.setsockopt(zmq.CURVE_SECRETKEY, server.link_keys()[1])
    port = router.bind_to_random_port("tcp://127.0.0.1")
    transport = Transport("127.0.0.1:0", context, link_keys=Identity.generate().link_keys())
    endpoint = f"tcp://127.0.0.1:{port}"
    try:
        assert transport.connect(endpoint, server_key=Identity.generate().public.dh_key)
        transport.send(endpoint, b"for someone else")
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            transport.poll(0.01)
            assert not router.poll(0)
        assert not transport.outbound[endpoint].shaken
    finally:
        transport.outbound[endpoint].pending.clear()  # nothing to wait for at close
        transport.close()
        router.close()


def test_a_replaced_link_is_closed_once_the_new_one_has_shaken_hands(context: zmq.Context) -> None:
    a, b = Transport("127.0.0.1:0", context), Transport("127.0.0.1:0", context)
    silent = socket.create_server(("127.0.0.1", 0))  # takes the connection, never greets
    old = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
    try:
        assert a.connect(old) and a.replace(old, b.endpoint)
        a.send(b.endpoint, b"to both")  # while the new one is unproven, the old one gets it too
        assert [data for _, data in receive_until(b, 5, senders=[a])] == [b"to both"]
        assert old not in a.outbound and not a.replacing
    finally:
        a.close()
        b.close()
        silent.close()


def test_the_client_state_machine_needs_no_socket() -> None:
    """Sans-I/O: two halves of a handshake joined in memory."""
    client = ClientConnection(MAX_WIRE_MESSAGE)
    assert client.start() == zmtp.GREETING
    assert client.take(zmtp.GREETING[:30]) == [] and not client.out
    rest = zmtp.GREETING[30:] + zmtp.ready_command(b"ROUTER") + zmtp.frame(b"one") + zmtp.frame(b"two")
    assert client.take(rest) == [b"one", b"two"]
    assert client.ready and client.out == [zmtp.ready_command(b"DEALER")]
    assert client.take(zmtp.frame(b"a", zmtp.MORE) + zmtp.frame(b"b")) == []  # a multipart message is dropped whole
    assert client.message(b"hi") == zmtp.frame(b"hi")


def test_a_peer_that_drops_the_link_does_not_hold_a_stopping_peer() -> None:
    """A stopping peer waits for a connected link to hand over what it holds (up to DRAIN_S,
    5 s), but not for one whose peer keeps dropping it (refuses us): that peer will not take
    it, and the stop takes about what libzmq's linger took (1 s)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.05)
    stop = threading.Event()

    def refuse() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            time.sleep(0.3)  # connected a while (a CURVE server checking our HELLO) ...
            conn.sendall(b"no")  # ... then not ZMTP: hung up on, as by a peer that refuses us
            conn.close()

    thread = threading.Thread(target=refuse)
    thread.start()
    transport = Transport("127.0.0.1:0")
    endpoint = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    try:
        assert transport.connect(endpoint) and transport.send(endpoint, b"unwanted")
        started = time.monotonic()
        transport.close()
        assert time.monotonic() - started < 2.5
    finally:
        stop.set()
        thread.join()
        server.close()


def test_one_poll_takes_a_bounded_number_of_tiny_messages(server: RawServer, dialer: Dialer) -> None:
    """2-byte frames (empty messages) cost the budget as much as their work, not their bytes:
    one receive charged a whole 8 KiB chunk of them as one, and a fake table's flood of them
    made one Transport.poll take 18 s and return 3.7 million messages."""
    conn = server.accept(dialer)
    conn.setblocking(True)
    conn.sendall(zmtp.frame(b"") * 200_000)  # 400 kB: within what libzmq reads ahead
    time.sleep(0.3)
    messages, used = dialer.receive(POLL_BYTES)
    assert used >= POLL_BYTES and len(messages) <= POLL_BYTES // zmtp.COST + 8 * 1024 // 2


def test_after_a_drop_the_next_connection_starts_with_our_greeting(server: RawServer, dialer: Dialer) -> None:
    """libzmq dials again on the same socket and keeps its send queue: what was framed for
    the dead connection went out first on the next one, and the peer saw no greeting."""
    server.listener.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # little room in TCP
    first = server.accept(dialer)
    for i in range(100):  # frames handed to libzmq, and more, while the peer reads nothing
        assert dialer.send(b"%d " % i + b"." * 60_000)
    pump(dialer, 0.3)
    first.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    first.close()  # reset, with our frames unread
    server.accept(dialer)  # greets, and checks that our greeting and READY come first
    assert dialer.send(b"after")
    tail = zmtp.frame(b"after")
    assert tail in server.read(7_000_000, dialer, until=tail)  # (after what was still queued)


def test_shake_hands_waits_for_the_handshakes_and_keeps_what_came(context: zmq.Context) -> None:
    """A seat polls until its links have shaken hands before its first record's work; a
    message that came meanwhile is handed back, not dropped."""
    router = context.socket(zmq.ROUTER)  # libzmq's thread answers the handshake
    router.setsockopt(zmq.LINGER, 0)
    endpoint = f"tcp://127.0.0.1:{router.bind_to_random_port('tcp://127.0.0.1')}"
    nowhere = f"tcp://127.0.0.1:{free_port()}"
    transport = Transport("127.0.0.1:0", context)
    try:
        assert transport.connect(endpoint) and transport.connect(nowhere)
        transport.send(endpoint, b"hello")
        assert router.poll(300) == 0  # nothing can go out before the handshake ...
        got = transport.shake_hands([endpoint], 5.0)
        assert transport.all_ready([endpoint]) and got == []
        who, data = router.recv_multipart()
        assert data == b"hello"  # ... and it went out once the handshake was done
        router.send_multipart([who, b"welcome"])
        time.sleep(0.2)
        started = time.monotonic()
        got = transport.shake_hands([endpoint, nowhere], 0.5)  # one never answers: the limit
        assert 0.5 <= time.monotonic() - started < 2.0
        assert [inbound.data for inbound in got] == [b"welcome"]
    finally:
        transport.close()
        router.close()


def test_a_link_that_never_connects_holds_at_most_its_bytes(context: zmq.Context) -> None:
    """Our queue for a link counted messages only: a seat whose link to us never connected,
    while its pings drew resends of records up to 5 MiB each, had us hold 57 MiB (found by an
    attack).  Past its bytes, as past its count, a message is refused, and a resend brings it."""
    link = Dialer(context, f"tcp://127.0.0.1:{free_port()}", limit=64 * 1024, queue=100, linger_ms=0, queue_bytes=10_000)
    try:
        taken = [link.send(b"r" * 3000) for _ in range(5)]
        assert taken == [True, True, True, False, False]
        assert link.pending_bytes == 9000 and len(link.pending) == 3
        assert link.send(b"p" * 1000)  # what still fits is taken
    finally:
        link.close(0)
