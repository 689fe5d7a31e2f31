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
``Dialer`` runs one over a STREAM socket per TCP connection (libzmq dials until one opens;
a closed one takes its socket with it, and a new socket dials).  Liveness is TCP's: a PING
goes out each second that nothing else does, and a connection whose bytes go
unacknowledged for TCP_MAXRT is dropped by the kernel and redialled; a peer that is merely
busy (it answers PINGs only between its records) is never hung up on.
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
    TCP_MAXRT_MS,
    ZmtpError,
    add_frame,
    frame,
    properties,
    ready_command,
    socket_type_property,
    take_frame,
    take_greeting,
    unwrap_frame,
)

#: why a link broke off when its server closed our CurveZMQ HELLO: it holds another key
WRONG_KEY = "the peer closed the CurveZMQ handshake: it does not hold the key we dialled"
#: a PING goes out on a ready link when nothing else has for this long (seconds)
PING_S = 1.0
#: until a connection opens, libzmq tries again after 100 ms, backing off to at most this (ms),
#: and abandons a TCP connect that has not completed by CONNECT_TIMEOUT_MS.  Once one has
#: opened, the socket is ours for that connection alone: when it closes, the socket is closed
#: (with what libzmq still held for it) and a new one dials.  libzmq would dial again on the
#: same socket, keeping its send queue, and write what was framed (and, under CURVE, boxed)
#: for the dead connection onto the new one, ahead of our greeting.
RECONNECT_IVL_MAX_MS = 500
CONNECT_TIMEOUT_MS = 1000
#: a link whose peer closed the connection dials again after this long (seconds) ...
REDIAL_S = 0.1
#: ... and one we hung up on (its peer broke ZMTP, refused our key, or never finished the
#: handshake) after this long, doubled for each such hang-up in a row up to REDIAL_MAX_S:
#: a peer that refuses us is not made to do a CurveZMQ handshake twice a second for ever
HANG_UP_REDIAL_S = 0.5
REDIAL_MAX_S = 8.0
#: raw TCP chunks (of at most 8 KiB) libzmq reads ahead of us on a link, at most: a large
#: message then crosses at TCP's pace rather than two chunks per poll of ours (an endpoint,
#: with up to 256 connections, reads two ahead: zmtp.py)
READ_AHEAD = 64
#: frames handed to libzmq and not yet on the wire, at most: the rest wait in our own queue,
#: which outlives a connection (what libzmq holds when one closes is lost)
SEND_AHEAD = 64
#: bytes our own queue holds for a link, at most, past which a message is dropped as when the
#: queue's count is full (a seat whose link to us never connects, while it asks for resends,
#: held 57 MiB in 10,000 queued records before: found by an attack); a resend brings it later
QUEUE_BYTES = 32 * 1024 * 1024


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
        #: frames parsed so far (each costs the caller's budget)
        self.frames = 0
        #: the server speaks ZMTP 3.1 or later, so it answers PING (3.0 would not know it)
        self.pings = False

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
            # (as-server is not checked: libzmq's CURVE server sends 0 there, ours 1)
            greeting = take_greeting(buffer, self.start())
            if greeting is None:
                return []
            self.greeted = True
            self.pings = (greeting[10], greeting[11]) >= (3, 1)
            self.out.append(ready_command(b"DEALER") if self.curve is None else frame(self.curve.hello(), COMMAND))
        messages: list[bytes] = []
        while True:
            parsed = take_frame(buffer, self.frame_limit if self.ready else min(self.frame_limit, HANDSHAKE_FRAME))
            if parsed is None:
                return messages
            self.frames += 1
            is_command, flags, body = unwrap_frame(*parsed, self.curve, self.ready)
            if is_command:
                self._on_command(body)
                continue
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
        elif name == b"READY":
            raise ZmtpError("a READY out of turn")
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
    """One outbound link to ``endpoint``: a STREAM socket per TCP connection, a
    ``ClientConnection`` for its ZMTP, and a queue of messages waiting for a ready connection
    (at most ``queue``), which outlives each connection."""

    def __init__(
        self, context: zmq.Context[zmq.Socket[bytes]], endpoint: str, limit: int, queue: int,
        curve: tuple[bytes, bytes, bytes] | None = None, linger_ms: int = 1000, queue_bytes: int = QUEUE_BYTES,
    ) -> None:
        """``queue``, ``queue_bytes``: the messages, and their bytes, held for a link not yet
        connected, at most.  ``curve``: the server's X25519 key, then ours (public, private):
        the link is encrypted, and proves our key to the server.  ``linger_ms``: how long what
        was handed to libzmq may still go out once the link is closed."""
        self.context = context
        self.endpoint = endpoint
        self.limit = limit
        self.curve = curve
        self.linger_ms = linger_ms
        self.pending: deque[bytes] = deque()
        self.pending_bytes = 0
        self.queue_bytes = queue_bytes
        self.queue = queue
        self.socket: zmq.Socket[bytes] | None = None
        #: the socket's one connection, once libzmq says it is open (its id), and its ZMTP state
        self.connection: bytes | None = None
        self.state: ClientConnection | None = None
        self.opened = 0.0  # when its connection opened
        self.sent = 0.0  # when we last sent anything on the connection
        #: a handshake has been completed (Transport.replace waits for one)
        self.shaken = False
        #: why we last hung up since the last completed handshake ("" if not): a peer that breaks
        #: ZMTP or refuses our key
        self.trouble = ""
        #: hang-ups since the last completed handshake (each doubles the wait to redial)
        self.refusals = 0
        #: connections lost so far (closed by the peer, or hung up on)
        self.drops = 0
        self.redial_at: float | None = None
        self._dial()

    def _dial(self) -> None:
        sock = self.context.socket(zmq.STREAM)
        sock.setsockopt(zmq.LINGER, self.linger_ms)
        sock.setsockopt(zmq.RCVHWM, READ_AHEAD)  # then TCP pushes back
        sock.setsockopt(zmq.SNDHWM, SEND_AHEAD)
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
        self.dialled_at = time.monotonic()

    @property
    def connected(self) -> bool:
        """A TCP connection is open (its handshake may still be under way)."""
        return self.connection is not None

    @property
    def ready(self) -> bool:
        return self.state is not None and self.state.ready

    def send(self, data: bytes) -> bool:
        """Queue one message; False if the queue is full (the peer has been away long)."""
        if len(self.pending) >= self.queue or self.pending_bytes + len(data) > self.queue_bytes:
            return False
        self.pending.append(data)
        self.pending_bytes += len(data)
        self.flush()
        return True

    def flush(self) -> None:
        """Hand queued messages to the connection, while it is ready and libzmq takes them."""
        while self.pending and self.ready:
            assert self.state is not None
            if not self._raw(self.state.message(self.pending[0])):
                return
            self.pending_bytes -= len(self.pending.popleft())

    def _raw(self, data: bytes) -> bool:
        if self.socket is None or self.connection is None:
            return False
        try:
            self.socket.send_multipart([self.connection, data], zmq.NOBLOCK)
        except zmq.ZMQError:  # libzmq's queue is full (Again), or the connection is going
            return False
        self.sent = time.monotonic()
        return True

    def receive(self, budget: int) -> tuple[list[bytes], int]:
        """The whole messages the peer sent so far, reading at most about ``budget`` (each
        raw chunk and each frame in it costs COST more than its bytes, as at the endpoints:
        a flood of 2-byte frames is not 4,000 times cheaper than its work), and how much of
        the budget that took."""
        messages: list[bytes] = []
        read = 0
        while self.socket is not None and read < budget:
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                break
            read += COST
            if len(frames) != 2:  # never from a STREAM socket
                continue
            connection, data = frames
            read += len(data)
            if not data:  # libzmq's notice: the socket's connection opened, or closed
                if self.connection is None:
                    self._opened(connection)
                else:
                    state = self.state
                    if state is not None and state.curve is not None and state.greeted and not state.ready:
                        # closed on our HELLO: a server that cannot open it holds another key;
                        # unless seen late, as a server's sweep of handshakes that take
                        # HANDSHAKE_S closes them (a busy dialer's: found by review)
                        late = time.monotonic() - self.dialled_at >= HANDSHAKE_S / 2
                        self.trouble = "the peer closed the CurveZMQ handshake" if late else WRONG_KEY
                    self._lost(REDIAL_S)  # (before libzmq dials again on this socket)
                    break
                continue
            state = self.state
            if connection != self.connection or state is None:
                continue
            parsed = state.frames
            try:
                messages += state.take(data)
            except (ZmtpError, CurveError) as exc:
                self.hang_up(str(exc))
                break
            finally:
                read += COST * (state.frames - parsed)
            if not all(self._raw(out) for out in state.out):  # a handshake command or PONG libzmq would not take
                self.hang_up("could not answer the peer")
                break
            state.out.clear()
            if state.ready:
                self.shaken = True
                self.refusals = 0
                self.trouble = ""  # it took us now: the link is not refused (splitting.py looks)
            self.flush()
        return messages, read

    def _opened(self, connection: bytes) -> None:
        self.connection = connection
        curve = None if self.curve is None else CurveClient(*self.curve)
        self.state = ClientConnection(self.limit, curve)
        self.opened = time.monotonic()
        if not self._raw(self.state.start()):
            self.hang_up("could not greet the peer")

    def _lost(self, redial: float) -> None:
        """The connection is over: the socket goes (with what libzmq still held for it) and
        a new one dials after ``redial`` seconds."""
        if self.connection is not None:
            self.drops += 1
        self.connection = None
        self.state = None
        if self.socket is not None:
            self.socket.close(linger=0)
            self.socket = None
        self.redial_at = time.monotonic() + redial

    def hang_up(self, why: str) -> None:
        """Close the link on a peer that broke ZMTP or refused us; dial again later."""
        self.trouble = why
        self.refusals += 1
        self._lost(min(REDIAL_MAX_S, HANG_UP_REDIAL_S * 2 ** (self.refusals - 1)))

    def tick(self, now: float) -> None:
        """Timers: dial again after a close or a hang-up, give up on a handshake that hangs,
        PING an idle link, hand over what waits (libzmq times out a connect itself)."""
        if self.socket is None:
            if self.redial_at is not None and now >= self.redial_at:
                try:
                    self._dial()
                except zmq.ZMQError:  # out of sockets: try again later
                    self.redial_at = now + HANG_UP_REDIAL_S
            return
        if self.state is None:
            return  # libzmq is dialling
        if not self.state.ready:
            if now - self.opened > HANDSHAKE_S:
                self.hang_up(f"no handshake within {HANDSHAKE_S:.0f} s")
            return
        self.flush()
        if self.state.pings and now - self.sent >= PING_S:
            self._raw(self.state.ping())

    def close(self, linger_ms: int | None = None) -> None:
        if self.socket is not None:
            self.socket.close(linger=self.linger_ms if linger_ms is None else linger_ms)
            self.socket = None
        self.connection = None
        self.state = None
        self.redial_at = None
