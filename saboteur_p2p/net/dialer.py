"""A peer's outbound links: a ZMTP 3.1 client of our own (NULL, or CURVE), a DEALER on the wire.

A seat dials every other seat's link endpoint, a joiner the table, a spectator a seat.  A
libzmq DEALER there would keep every frame of an unfinished multipart message until its
last one came (MAXMSGSIZE bounds a frame, the high-water mark counts whole messages), so
the peer it dials could grow the dialler's memory without bound.  So, as the listener does
for the endpoints (zmtp.py), each outbound link reads raw TCP through a ZMQ_STREAM socket
and speaks the client side of ZMTP itself: the greeting, NULL's READY or CurveZMQ's
HELLO/INITIATE (curvezmq.py), message frames, PING/PONG.  What it holds of a message in
progress is at most ``limit``, its send queue at most ``queue`` messages.

``ClientConnection`` is the protocol alone (bytes in, messages and bytes out, no socket);
``Dialer`` runs one over a STREAM socket that libzmq connects and reconnects.  Liveness is
TCP's: a PING goes out each second that nothing else does, and a connection whose bytes
go unacknowledged for TCP_MAXRT is dropped by the kernel and redialled; a peer that is
merely busy (it answers PINGs only between its records) is never hung up on.
"""
from __future__ import annotations

import time
from collections import deque

import zmq

from .curvezmq import CurveClient, CurveError
from .zmtp import (
    COMMAND,
    COST,
    CURVE_CLIENT_GREETING,
    CURVE_OVERHEAD,
    GREETING,
    HANDSHAKE_FRAME,
    HANDSHAKE_S,
    MORE,
    PEER_TYPES,
    ZmtpError,
    add_frame,
    frame,
    properties,
    ready_command,
    socket_type_property,
    take_frame,
    take_greeting,
)

#: a PING goes out on a ready link when nothing else has for this long (seconds)
PING_S = 1.0
#: a TCP connection whose bytes are not acknowledged for this long (ms) is dropped and redialled
TCP_MAXRT_MS = 6000
#: libzmq redials a dropped connection after 100 ms, backing off to at most this (ms) ...
RECONNECT_IVL_MAX_MS = 500
#: ... and abandons a TCP connect that has not completed by then (ms)
CONNECT_TIMEOUT_MS = 1000
#: raw TCP chunks (of at most 8 KiB) libzmq reads ahead of us on a link, at most: a large
#: message then crosses at TCP's pace rather than two chunks per poll of ours (an endpoint,
#: with up to 256 connections, reads two ahead: zmtp.py)
READ_AHEAD = 64
#: a link we hung up on (its peer broke ZMTP, or never finished the handshake) is dialled
#: again after this long (seconds)
REDIAL_S = 0.5


class ClientConnection:
    """One connection's ZMTP 3.1 client state, as a DEALER's (sans-I/O).

    ``start`` gives the greeting to send; ``take`` takes bytes from the peer and gives the
    whole single-frame messages among them, leaving in ``out`` what must be sent back (the
    handshake's next command, a PONG).  A broken frame, a message past ``limit``, a refused
    handshake raise ZmtpError or CurveError: the connection is done."""

    def __init__(self, limit: int, curve: CurveClient | None = None) -> None:
        self.limit = limit
        self.curve = curve
        self.frame_limit = limit if curve is None else limit + CURVE_OVERHEAD
        self.buffer = bytearray()
        self.greeted = False
        self.ready = False
        #: bytes to send, in order (the caller takes them)
        self.out: list[bytes] = []
        #: the first two frames of an unfinished message (one of more is dropped whole) and its size
        self.parts: list[bytes] = []
        self.size = 0

    def start(self) -> bytes:
        return GREETING if self.curve is None else CURVE_CLIENT_GREETING

    def message(self, data: bytes) -> bytes:
        """The bytes of one single-frame message (the handshake must be done)."""
        assert self.ready
        return frame(data) if self.curve is None else frame(self.curve.seal(0, data))

    def ping(self) -> bytes:
        """A ZMTP 3.1 PING (no TTL, no context)."""
        return self._command(b"\x04PING" + bytes(2))

    def _command(self, body: bytes) -> bytes:
        if self.curve is not None and self.ready:
            return frame(self.curve.seal(2, body))
        return frame(body, COMMAND)

    @property
    def held(self) -> int:
        return len(self.buffer) + self.size

    def take(self, data: bytes) -> list[bytes]:
        buffer = self.buffer
        buffer += data
        if not self.greeted:
            # (as-server is not checked: libzmq's CURVE server sends 0 there)
            if take_greeting(buffer, self.start()) is None:
                return []
            self.greeted = True
            self.out.append(ready_command(b"DEALER") if self.curve is None else frame(self.curve.hello(), COMMAND))
        messages: list[bytes] = []
        while True:
            parsed = take_frame(buffer, self.frame_limit if self.ready else min(self.frame_limit, HANDSHAKE_FRAME))
            if parsed is None:
                return messages
            flags, body = parsed
            if flags & COMMAND:
                if self.curve is not None and self.ready:
                    raise ZmtpError("a command in the clear on an encrypted link")
                self._on_command(body)
                continue
            if not self.ready:
                raise ZmtpError("a message before READY")
            if self.curve is not None:
                inner, body = self.curve.open(body)
                if inner & 2:  # a command inside the box (PING, PONG)
                    self._on_command(body)
                    continue
                flags = inner & MORE
            message = add_frame(self, body, bool(flags & MORE), self.limit)
            if message is not None:
                messages.append(message)

    def _on_command(self, body: bytes) -> None:
        if not body or len(body) < 1 + body[0]:
            raise ZmtpError("a broken command")
        name, rest = body[1:1 + body[0]], body[1 + body[0]:]
        if name == b"ERROR":
            reason = rest[1:1 + rest[0]] if rest else b""
            raise ZmtpError(f"the peer refused the link: {reason.decode('ascii', 'replace')[:100]}")
        if not self.ready:
            self._handshake(name, body, rest)
        elif name == b"PING":
            if len(rest) < 2:
                raise ZmtpError("a broken PING")
            self.out.append(self._command(b"\x04PONG" + rest[2:18]))
        # PONG and commands of later versions: nothing to do

    def _handshake(self, name: bytes, body: bytes, rest: bytes) -> None:
        curve = self.curve
        if curve is None:
            if name != b"READY":
                raise ZmtpError(f"a {name!r} command before READY")
            metadata = rest
        elif name == b"WELCOME":
            self.out.append(frame(curve.welcome(body, socket_type_property(b"DEALER")), COMMAND))
            return
        elif name == b"READY":
            metadata = curve.ready_from(body)
        else:
            raise ZmtpError(f"a {name!r} command in a CurveZMQ handshake")
        socket_type = properties(metadata).get(b"socket-type")
        if socket_type not in PEER_TYPES:
            raise ZmtpError(f"a DEALER cannot talk to a {socket_type!r} socket")
        self.ready = True


class Dialer:
    """One outbound link to ``endpoint``: a STREAM socket that libzmq connects (and redials
    when the connection drops), a ``ClientConnection`` for each connection, and a queue of
    messages waiting for a ready connection (at most ``queue``)."""

    def __init__(
        self, context: zmq.Context[zmq.Socket[bytes]], endpoint: str, limit: int, queue: int,
        curve: tuple[bytes, bytes, bytes] | None = None, linger_ms: int = 1000,
    ) -> None:
        """``curve``: the server's X25519 key, then ours (public, private): the link is
        encrypted, and proves our key to the server."""
        self.context = context
        self.endpoint = endpoint
        self.limit = limit
        self.curve = curve
        self.linger_ms = linger_ms
        self.pending: deque[bytes] = deque()
        self.queue = queue
        self.socket: zmq.Socket[bytes] | None = None
        #: the connection libzmq has open (its id on the STREAM socket), and its ZMTP state
        self.connection: bytes | None = None
        self.state: ClientConnection | None = None
        self.opened = 0.0
        self.sent = 0.0  # when we last sent anything on the connection
        #: a handshake has been completed (Transport.replace waits for one)
        self.shaken = False
        #: why we last hung up ("" if never): a peer that breaks ZMTP, for the curious
        self.trouble = ""
        #: connections lost so far (closed by the peer, or hung up on)
        self.drops = 0
        self.redial_at: float | None = None
        self._open_socket()

    def _open_socket(self) -> None:
        sock = self.context.socket(zmq.STREAM)
        sock.setsockopt(zmq.LINGER, self.linger_ms)
        sock.setsockopt(zmq.RCVHWM, READ_AHEAD)  # then TCP pushes back
        sock.setsockopt(zmq.TCP_MAXRT, TCP_MAXRT_MS)
        sock.setsockopt(zmq.RECONNECT_IVL, 100)
        sock.setsockopt(zmq.RECONNECT_IVL_MAX, RECONNECT_IVL_MAX_MS)
        sock.setsockopt(zmq.CONNECT_TIMEOUT, CONNECT_TIMEOUT_MS)
        try:
            sock.connect(self.endpoint)
        except zmq.ZMQError:
            sock.close(linger=0)
            raise
        self.socket = sock
        self.redial_at = None

    @property
    def connected(self) -> bool:
        """A TCP connection is open (its handshake may still be under way)."""
        return self.connection is not None

    @property
    def ready(self) -> bool:
        return self.state is not None and self.state.ready

    def send(self, data: bytes) -> bool:
        """Queue one message; False if the queue is full (the peer has been away long)."""
        if len(self.pending) >= self.queue:
            return False
        self.pending.append(data)
        self.flush()
        return True

    def flush(self) -> None:
        """Hand queued messages to the connection, while it is ready and takes them."""
        while self.pending and self.ready:
            assert self.state is not None
            if not self._raw(self.state.message(self.pending[0])):
                return
            self.pending.popleft()

    def _raw(self, data: bytes) -> bool:
        if self.socket is None or self.connection is None:
            return False
        try:
            self.socket.send_multipart([self.connection, data], zmq.NOBLOCK)
        except zmq.Again:
            return False
        except zmq.ZMQError:  # the connection went before libzmq told us
            self._closed()
            return False
        self.sent = time.monotonic()
        return True

    def receive(self, budget: int) -> tuple[list[bytes], int]:
        """The whole messages the peer sent so far, reading at most about ``budget`` bytes,
        and how many bytes that took."""
        messages: list[bytes] = []
        read = 0
        while self.socket is not None and read < budget:
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            if len(frames) != 2:  # never from a STREAM socket
                continue
            connection, data = frames
            read += len(data) + COST
            if not data:  # libzmq's notice: a connection opened, or (the one we have) closed
                if connection == self.connection:
                    self._closed()
                else:
                    self._opened(connection)
                continue
            if connection != self.connection or self.state is None:
                continue
            state = self.state
            try:
                messages += state.take(data)
            except (ZmtpError, CurveError) as exc:
                self.hang_up(str(exc))
                break
            for out in state.out:
                self._raw(out)
            state.out.clear()
            if state.ready and not self.shaken:
                self.shaken = True
            self.flush()
        return messages, read

    def _opened(self, connection: bytes) -> None:
        self.connection = connection
        curve = None if self.curve is None else CurveClient(*self.curve)
        self.state = ClientConnection(self.limit, curve)
        self.opened = time.monotonic()
        self._raw(self.state.start())

    def _closed(self) -> None:
        """The connection closed; libzmq dials again by itself."""
        if self.connection is not None:
            self.drops += 1
        self.connection = None
        self.state = None

    def hang_up(self, why: str) -> None:
        """Close the link (a STREAM socket does not redial a connection its owner closed) and
        dial again after REDIAL_S."""
        self.trouble = why
        self._closed()
        if self.socket is not None:
            self.socket.close(linger=0)
            self.socket = None
        self.redial_at = time.monotonic() + REDIAL_S

    def tick(self, now: float) -> None:
        """Timers: dial again after a hang-up, give up on a handshake that hangs, PING an
        idle link, hand over what waits."""
        if self.socket is None:
            if self.redial_at is not None and now >= self.redial_at:
                try:
                    self._open_socket()
                except zmq.ZMQError:
                    self.redial_at = now + REDIAL_S
            return
        if self.state is None:
            return
        if not self.state.ready:
            if now - self.opened > HANDSHAKE_S:
                self.hang_up("no handshake within 10 s")
            return
        self.flush()
        if now - self.sent >= PING_S:
            self._raw(self.state.ping())

    def close(self, linger_ms: int | None = None) -> None:
        if self.socket is not None:
            self.socket.close(linger=self.linger_ms if linger_ms is None else linger_ms)
            self.socket = None
        self._closed()

