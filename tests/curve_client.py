"""A CurveZMQ client written by hand (RFC 26, PyNaCl), driven step by step, for the tests of
the link endpoint's own CurveZMQ server: it can send what a libzmq DEALER never would.  The
test's own thread polls the transport between its steps, so an exception escaping
``Transport.poll`` fails the test where it happens."""
from __future__ import annotations

import os
import socket
import struct
import time

import zmq
from nacl.public import Box, PrivateKey, PublicKey

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import curvezmq, zmtp
from saboteur_p2p.net.transport import Transport


def poll_for(transport: Transport, seconds: float) -> list[tuple[bytes, bytes]]:
    got: list[tuple[bytes, bytes]] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        got += [(i.connection, i.data) for i in transport.poll(0.02)]
    return got


def curve_dealer(context: zmq.Context, transport: Transport, server: Identity) -> tuple[zmq.Socket, Identity]:
    """A libzmq CURVE DEALER, as a seat opens one, connected to ``transport``'s link endpoint
    (``server``'s), with a fresh identity of its own (returned with it)."""
    client = Identity.generate()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.CURVE_SERVERKEY, server.public.dh_key)
    dealer.setsockopt(zmq.CURVE_PUBLICKEY, client.link_keys()[0])
    dealer.setsockopt(zmq.CURVE_SECRETKEY, client.link_keys()[1])
    dealer.connect(transport.link_endpoint)
    return dealer, client


class CurveClient:
    """A CurveZMQ client by hand, driven step by step: the test polls the server in between."""

    def __init__(self, transport: Transport, server_key: bytes, keys: tuple[bytes, bytes] | None = None) -> None:
        host, port = transport.link_endpoint.removeprefix("tcp://").rsplit(":", 1)
        self.transport = transport
        self.raw = socket.create_connection((host, int(port)), timeout=2)
        self.raw.settimeout(0.05)
        public, secret = keys if keys is not None else Identity.generate().link_keys()
        self.public, self.secret, self.server = public, PrivateKey(secret), PublicKey(server_key)
        self.transient = PrivateKey.generate()
        self.nonce = 0
        self.buffer = b""
        self.raw.sendall(zmtp.CURVE_GREETING[:32] + b"\x00" + bytes(31))

    def step(self, seconds: float = 0.2) -> list[tuple[bytes, bytes]]:
        return poll_for(self.transport, seconds)

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            self.step(0.05)
            try:
                chunk = self.raw.recv(1 << 20)
            except (TimeoutError, BlockingIOError):
                continue
            if not chunk:
                raise ConnectionError("closed")
            self.buffer += chunk
        out, self.buffer = self.buffer[:n], self.buffer[n:]
        return out

    def frame(self) -> tuple[int, bytes]:
        flags = self._read(1)[0]
        size = struct.unpack(">Q", self._read(8))[0] if flags & zmtp.LONG else self._read(1)[0]
        return flags, self._read(size)

    def short(self) -> bytes:
        self.nonce += 1
        return struct.pack(">Q", self.nonce)

    def hello(self, transient: bytes | None = None) -> None:
        short = self.short()
        if transient is None:
            transient = bytes(self.transient.public_key)
            signature = Box(self.transient, self.server).encrypt(bytes(64), curvezmq.HELLO_PREFIX + short).ciphertext
        else:
            signature = os.urandom(80)  # no box can be made with such a key: the server must refuse it anyway
        self.raw.sendall(zmtp.frame(b"\x05HELLO\x01\x00" + bytes(72) + transient + short + signature, zmtp.COMMAND))

    def welcome(self) -> None:
        assert self._read(64)[12:17] == b"CURVE"
        _, welcome = self.frame()
        assert welcome[:8] == b"\x07WELCOME"
        opened = Box(self.transient, self.server).decrypt(welcome[24:], b"WELCOME-" + welcome[8:24])
        self.server_transient, self.cookie = PublicKey(opened[:32]), opened[32:]
        self.box = Box(self.transient, self.server_transient)

    def initiate(self, client: bytes | None = None, vouch: bytes | None = None) -> None:
        vouch_nonce = os.urandom(16)
        if vouch is None:
            vouch = Box(self.secret, self.server_transient).encrypt(
                bytes(self.transient.public_key) + bytes(self.server), curvezmq.VOUCH_PREFIX + vouch_nonce).ciphertext
        short = self.short()
        plain = (client or self.public) + vouch_nonce + vouch + zmtp.socket_type_property(b"DEALER")
        box = self.box.encrypt(plain, curvezmq.INITIATE_PREFIX + short).ciphertext
        self.raw.sendall(zmtp.frame(b"\x08INITIATE" + self.cookie + short + box, zmtp.COMMAND))

    def handshake(self) -> bool:
        self.hello()
        self.welcome()
        self.initiate()
        try:
            _, body = self.frame()
        except (ConnectionError, OSError):
            return False
        return body.startswith(b"\x05READY")

    def message(self, payload: bytes, flags: int = 0, short: bytes | None = None) -> bytes:
        short = short or self.short()
        box = self.box.encrypt(bytes([flags]) + payload, curvezmq.CLIENT_PREFIX + short).ciphertext
        return zmtp.frame(b"\x07MESSAGE" + short + box)

    def closed(self, seconds: float = 1.0) -> bool:
        """The server closed this connection (within ``seconds``)."""
        deadline = time.monotonic() + seconds
        self.raw.settimeout(0.02)
        while time.monotonic() < deadline:
            self.step(0.02)
            try:
                chunk = self.raw.recv(1 << 20)
            except (TimeoutError, BlockingIOError):
                continue
            except OSError:
                return True
            if not chunk:
                return True
            self.buffer += chunk
        return False
