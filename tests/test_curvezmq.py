"""The link endpoint speaks CurveZMQ itself (net/curvezmq.py inside net/zmtp.py): a libzmq
CURVE DEALER talks to it unchanged, only the seats' keys get in once the game starts, and
what an admitted peer sends is bounded like anything else.  A CurveZMQ client written here
by hand (PyNaCl) tries what a DEALER never would.  All on loopback; every wait is bounded."""
from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Iterator

import pytest
import zmq
from nacl.public import Box, PrivateKey, PublicKey

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import curvezmq, zmtp
from saboteur_p2p.net.transport import LINK_CONNECTION, Transport


@pytest.fixture
def seat(context: zmq.Context) -> Iterator[tuple[Transport, Identity]]:
    identity = Identity.generate()
    transport = Transport("127.0.0.1:0", context, link_keys=identity.link_keys())
    yield transport, identity
    transport.close()


def _receive(transport: Transport, seconds: float, want: int = 1) -> list[tuple[bytes, bytes]]:
    got: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(got) < want:
        got += [(i.connection, i.data) for i in transport.poll(0.05)]
    return got


class HandClient:
    """A CurveZMQ client over a raw socket, by RFC 26: it can send what libzmq never would."""

    def __init__(self, endpoint: str, server_key: bytes, keys: tuple[bytes, bytes] | None = None) -> None:
        host, port = endpoint.removeprefix("tcp://").rsplit(":", 1)
        self.raw = socket.create_connection((host, int(port)), timeout=5)
        public, secret = keys if keys is not None else Identity.generate().link_keys()
        self.public, self.secret, self.server = public, PrivateKey(secret), PublicKey(server_key)
        self.transient = PrivateKey.generate()
        self.nonce = 0
        self.buffer = b""

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.raw.recv(65536)
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def _frame(self) -> tuple[int, bytes]:
        flags = self._read(1)[0]
        size = struct.unpack(">Q", self._read(8))[0] if flags & zmtp.LONG else self._read(1)[0]
        return flags, self._read(size)

    def short(self) -> bytes:
        self.nonce += 1
        return struct.pack(">Q", self.nonce)

    def handshake(self) -> None:
        self.raw.sendall(zmtp.CURVE_GREETING[:32] + b"\x00" + bytes(31))  # as a client
        assert self._read(64)[12:17] == b"CURVE"
        short = self.short()
        signature = Box(self.transient, self.server).encrypt(bytes(64), curvezmq.HELLO_PREFIX + short).ciphertext
        hello = b"\x05HELLO\x01\x00" + bytes(72) + bytes(self.transient.public_key) + short + signature
        self.raw.sendall(zmtp.frame(hello, zmtp.COMMAND))
        _, welcome = self._frame()
        assert welcome[:8] == b"\x07WELCOME"
        opened = Box(self.transient, self.server).decrypt(welcome[24:], b"WELCOME-" + welcome[8:24])
        self.server_transient, cookie = PublicKey(opened[:32]), opened[32:]
        self.box = Box(self.transient, self.server_transient)
        vouch_nonce = bytes(16)
        vouch = Box(self.secret, self.server_transient).encrypt(
            bytes(self.transient.public_key) + bytes(self.server), curvezmq.VOUCH_PREFIX + vouch_nonce).ciphertext
        metadata = zmtp._socket_type(b"DEALER")
        short = self.short()
        box = self.box.encrypt(self.public + vouch_nonce + vouch + metadata, curvezmq.INITIATE_PREFIX + short).ciphertext
        self.raw.sendall(zmtp.frame(b"\x08INITIATE" + cookie + short + box, zmtp.COMMAND))

    def ready(self) -> bool:
        try:
            _, body = self._frame()
        except (ConnectionError, TimeoutError):
            return False
        return body.startswith(b"\x05READY")

    def message(self, payload: bytes, more: bool = False, short: bytes | None = None) -> bytes:
        short = short or self.short()
        box = self.box.encrypt(bytes([1 if more else 0]) + payload, curvezmq.CLIENT_PREFIX + short).ciphertext
        return zmtp.frame(b"\x07MESSAGE" + short + box)


def test_a_libzmq_curve_dealer_is_answered_through_the_box(context, seat) -> None:
    transport, identity = seat
    alice = Identity.generate()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.CURVE_SERVERKEY, identity.public.dh_key)
    dealer.setsockopt(zmq.CURVE_PUBLICKEY, alice.link_keys()[0])
    dealer.setsockopt(zmq.CURVE_SECRETKEY, alice.link_keys()[1])
    dealer.connect(transport.link_endpoint)
    try:
        big = bytes(range(256)) * 4096  # a megabyte: long frames inside and out
        dealer.send(big)
        ((connection, data),) = _receive(transport, 5)
        assert data == big and connection.startswith(LINK_CONNECTION)
        transport.reply(connection, b"and back")
        assert dealer.poll(5000) and dealer.recv() == b"and back"
    finally:
        dealer.close()


class Pump:
    """Polls a transport in a thread (the hand client blocks on its socket meanwhile) and
    keeps what comes in; the test reads ``got`` and never polls itself."""

    def __init__(self, transport: Transport) -> None:
        self.transport = transport
        self.got: list[tuple[bytes, bytes]] = []
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        while self.running:
            self.got += [(i.connection, i.data) for i in self.transport.poll(0.02)]

    def wait(self, condition, seconds: float = 3.0) -> bool:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if condition():
                return True
            time.sleep(0.01)
        return bool(condition())

    def stop(self) -> None:
        self.running = False
        self.thread.join(5)


@pytest.fixture
def pumped(seat) -> Iterator[tuple[Transport, Identity, Pump]]:
    transport, identity = seat
    pump = Pump(transport)
    yield transport, identity, pump
    pump.stop()


def test_once_the_seats_are_known_only_their_keys_get_in(pumped) -> None:
    transport, identity, pump = pumped
    table_seat, stranger = Identity.generate(), Identity.generate()
    transport.admit_links({table_seat.public.dh_key})
    for who, admitted in ((stranger, False), (table_seat, True)):
        client = HandClient(transport.link_endpoint, identity.public.dh_key, who.link_keys())
        client.handshake()
        assert client.ready() is admitted
        if admitted:
            client.raw.sendall(client.message(b"a seat speaks"))
            assert pump.wait(lambda: [d for _, d in pump.got] == [b"a seat speaks"])
        client.raw.close()


@pytest.mark.parametrize("fault", ["replayed nonce", "tampered box", "plaintext frame"])
def test_a_message_that_is_replayed_or_tampered_with_closes_the_connection(pumped, fault) -> None:
    transport, identity, pump = pumped
    client = HandClient(transport.link_endpoint, identity.public.dh_key)
    client.handshake()
    assert client.ready()
    client.raw.sendall(client.message(b"first"))
    assert pump.wait(lambda: len(pump.got) == 1)
    connection = pump.got[0][0].removeprefix(LINK_CONNECTION)
    if fault == "replayed nonce":
        bad = client.message(b"again", short=struct.pack(">Q", client.nonce))
    elif fault == "tampered box":
        good = client.message(b"changed")
        bad = good[:-1] + bytes([good[-1] ^ 1])
    else:
        bad = zmtp.frame(b"a frame in the clear")
    client.raw.sendall(bad)
    assert pump.wait(lambda: connection not in transport.link.connections)  # type: ignore[union-attr]
    assert len(pump.got) == 1  # nothing more came through
    client.raw.close()


def test_an_endless_multipart_message_inside_the_box_is_bounded(pumped, monkeypatch) -> None:
    monkeypatch.setattr(zmtp, "MAX_HELD", 200_000)
    transport, identity, pump = pumped
    client = HandClient(transport.link_endpoint, identity.public.dh_key)
    client.handshake()
    assert client.ready()
    try:
        for _ in range(20):  # 20 frames of 60 kB with MORE inside the box: past MAX_HELD
            client.raw.sendall(client.message(b"z" * 60_000, more=True))
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed on us: what it should do
    assert pump.wait(lambda: not transport.link.connections)  # type: ignore[union-attr]
    assert transport.link.held == 0 and pump.got == []  # type: ignore[union-attr]
    client.raw.close()
