"""A peer's two endpoints: a ZMTP 3.1 listener (NULL, or CURVE) that bounds whole messages.

Friends join at the table's address, and so can anyone on the LAN, before anyone knows who
they are; the seats talk at each one's link endpoint, where a hostile seat (or anyone who
learnt the seat's key) can connect too.  A ZeroMQ ROUTER bounds each *frame* (MAXMSGSIZE) and the number of
*complete* messages it queues (RCVHWM), but it keeps every frame of a multipart message in
memory until the last one arrives: one message of many frames from a stranger could take
all of the host's memory (libzmq has no limit on a whole message).  So each endpoint reads
raw TCP through a ZMQ_STREAM socket and speaks just enough ZMTP 3.1 itself (RFC 37: the
greeting, the NULL mechanism's READY or CurveZMQ's handshake and boxes (curvezmq.py),
message frames, PING/PONG) that a peer's ordinary DEALER socket talks to it unchanged, while
it holds at most ``limit`` bytes of a message in
progress per connection, ``MAX_HELD`` over all of them, and at most ``MAX_CONNECTIONS``
connections (shared fairly among the addresses they come from).  The wire is what a
ROUTER would speak: nothing changes for a compatible peer.

What it takes: single-frame messages, each handed on with the connection it came on.  A
frame or message past ``limit``, a malformed greeting or frame, a peer that is not a DEALER,
or one silent for ``SILENCE_S`` (our links PING after a second of sending nothing) closes the connection; a
multipart message within the limit is dropped whole, as the ROUTER's caller did.
"""
from __future__ import annotations

import functools
import ipaddress
import struct
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol, TypeVar

import zmq

from .curvezmq import CurveError, CurveServer

#: ZMTP 3.1 greeting, as a server of the NULL mechanism (RFC 37 section 3.2), and of CURVE
GREETING = b"\xff" + bytes(8) + b"\x7f" + b"\x03\x01" + b"NULL".ljust(20, b"\x00") + b"\x00" + bytes(31)
CURVE_GREETING = b"\xff" + bytes(8) + b"\x7f" + b"\x03\x01" + b"CURVE".ljust(20, b"\x00") + b"\x01" + bytes(31)
#: the greeting of a CURVE client (dialer.py): as-server is 0
CURVE_CLIENT_GREETING = CURVE_GREETING[:32] + bytes(32)
#: what CURVE adds to a frame: the MESSAGE name, a nonce, the box's tag and the inner flags
CURVE_OVERHEAD = 8 + 8 + 16 + 1
GREETING_SIZE = 64
#: frame flags
MORE, LONG, COMMAND = 0x01, 0x02, 0x04
#: a connection that has not finished its handshake by then, or is silent that long after, is closed
HANDSHAKE_S = 10.0
SILENCE_S = 15.0
#: connections are looked at for those timeouts at most this often (seconds)
SWEEP_S = 0.25
#: the largest frame before the handshake is done: a READY or CurveZMQ handshake command is a
#: few hundred bytes; a stranger's megabytes of metadata cost the loop ~0.1 us a byte to parse
HANDSHAKE_FRAME = 8192
#: connections held at once; a new one past this is closed at once
MAX_CONNECTIONS = 256
#: connections one machine (``machine_of``) may open in a second; more are closed at once,
#: without a greeting: a storm of reconnects from one machine (thousands a second) had each
#: one greeted and given a place, and the endpoint fell behind its socket (an attack)
OPENS_PER_S = 64
#: bytes of unfinished messages held over all connections; a connection that would take the
#: total past this is closed (with a 5 MiB limit, 256 connections could otherwise hold 2.5 GB)
MAX_HELD = 64 * 1024 * 1024
#: the socket types a joiner may use: of those ZeroMQ lets talk to a ROUTER, the ones that
#: send an envelope as one frame (a REQ puts an empty frame first, and wants one back); and
#: the types of server our own links (dialer.py, a DEALER on the wire) talk to
PEER_TYPES = (b"DEALER", b"ROUTER")
#: what each chunk read and each frame parsed costs of ``receive``'s budget, past its bytes:
#: 2-byte frames (whole empty messages) or connection notices (0 bytes) cost far more work
#: than their size, and a budget in bytes alone let one call take millions of them
COST = 1024
#: a TCP connection whose bytes go unacknowledged this long (ms) is dropped (TCP_USER_TIMEOUT),
#: rather than waiting out TCP's retransmission backoff after an outage
TCP_MAXRT_MS = 6000
#: messages queued to one connection, at most (ZeroMQ's SNDHWM): more than a spectator's feed
#: sends at once (FEED_WINDOW records and an answer)
SEND_QUEUE = 128


K = TypeVar("K")


class ZmtpError(ValueError):
    """A peer broke the ZMTP framing (or our limits): its connection is closed."""


@dataclass
class _Connection:
    opened: float
    heard: float
    #: the peer's IP address, as libzmq tells it ("" if it does not)
    address: str = ""
    buffer: bytearray = field(default_factory=bytearray)
    greeted: bool = False
    ready: bool = False
    #: the peer speaks ZMTP 3.1 or later (it answers PING)
    pings: bool = False
    #: when we last pinged it
    pinged: float = 0.0
    #: the first two frames of a message whose last frame has not come yet (two are enough
    #: to know it is multipart, and dropped; keeping every one let endless empty frames, which
    #: add nothing to ``size``, grow a list without bound), and the size of all its frames
    parts: list[bytes] = field(default_factory=list)
    size: int = 0
    #: the CurveZMQ state of an encrypted endpoint's connection
    curve: CurveServer | None = None

    @property
    def held(self) -> int:
        return len(self.buffer) + self.size


def command(name: bytes, body: bytes = b"") -> bytes:
    """A ZMTP command frame."""
    data = bytes([len(name)]) + name + body
    return frame(data, COMMAND)


def frame(data: bytes, flags: int = 0) -> bytes:
    """One ZMTP frame (short or long form by its size)."""
    if len(data) < 256:
        return bytes([flags, len(data)]) + data
    return bytes([flags | LONG]) + struct.pack(">Q", len(data)) + data


def socket_type_property(socket_type: bytes) -> bytes:
    """The metadata naming a socket type."""
    name = b"Socket-Type"
    return bytes([len(name)]) + name + struct.pack(">I", len(socket_type)) + socket_type


def ready_command(socket_type: bytes) -> bytes:
    return command(b"READY", socket_type_property(socket_type))


def properties(body: bytes) -> dict[bytes, bytes]:
    """The metadata of a READY or INITIATE command (name-length, name, value-length, value, ...)."""
    found: dict[bytes, bytes] = {}
    i = 0
    while i < len(body):
        n = body[i]
        name = body[i + 1:i + 1 + n]
        if len(name) != n or i + 1 + n + 4 > len(body):
            raise ZmtpError("a READY command with broken metadata")
        (size,) = struct.unpack_from(">I", body, i + 1 + n)
        start = i + 1 + n + 4
        if start + size > len(body):
            raise ZmtpError("a READY command with broken metadata")
        found[name.lower()] = body[start:start + size]
        i = start + size
    return found


def take_greeting(buffer: bytearray, *ours: bytes) -> bytes | None:
    """The peer's whole greeting, taken out of ``buffer`` (None until all 64 bytes are in):
    ZMTP 3 or later, of the same mechanism as one of ``ours``, else ZmtpError (at its first
    byte for a stranger who is not speaking ZMTP at all)."""
    if len(buffer) < GREETING_SIZE:
        if buffer and buffer[0] != 0xFF:
            raise ZmtpError("not a ZMTP greeting")
        return None
    greeting = bytes(buffer[:GREETING_SIZE])
    del buffer[:GREETING_SIZE]
    if greeting[0] != 0xFF or not greeting[9] & 1 or greeting[10] < 3 or all(greeting[12:32] != g[12:32] for g in ours):
        raise ZmtpError("not a ZMTP 3 greeting of this mechanism")
    return greeting


def take_frame(buffer: bytearray, limit: int) -> tuple[int, bytes] | None:
    """The first whole frame in ``buffer`` as (flags, body), taken out of it; None if it is not
    all here yet.  A frame past ``limit`` or with unknown flags raises ZmtpError as soon as
    its header is in, before its body is waited for."""
    if len(buffer) < 2:
        return None
    flags = buffer[0]
    if flags & ~(MORE | LONG | COMMAND) or (flags & COMMAND and flags & MORE):
        raise ZmtpError(f"a frame with flags {flags:#x}")
    if flags & LONG:
        if len(buffer) < 9:
            return None
        (size,) = struct.unpack_from(">Q", buffer, 1)
        start = 9
    else:
        size, start = buffer[1], 2
    if size > limit:
        raise ZmtpError("a frame past the size limit")
    if len(buffer) < start + size:
        return None
    body = bytes(buffer[start:start + size])
    del buffer[:start + size]
    return flags, body


class Assembling(Protocol):
    """What a connection holds of the message whose frames are coming in."""

    parts: list[bytes]
    size: int


def add_frame(held: Assembling, body: bytes, more: bool, limit: int) -> bytes | None:
    """Add a frame to the message in ``held``: the message once its last frame is in, if it is
    a single frame (one of several is no envelope of ours: dropped whole); else None.  Only
    the first two frames are kept (two are enough to know it is multipart: keeping every one
    let endless empty frames, which add nothing to the size, grow a list without bound); a
    message past ``limit`` raises ZmtpError."""
    if len(held.parts) < 2:
        held.parts.append(body)
    held.size += len(body)
    if held.size > limit:
        raise ZmtpError("a message past the size limit")
    if more:
        return None
    parts, held.parts, held.size = held.parts, [], 0
    return parts[0] if len(parts) == 1 else None


class Opens(Protocol):
    """CurveZMQ's MESSAGE boxes, either end (curvezmq.py)."""

    def open(self, body: bytes) -> tuple[int, bytes]: ...


def unwrap_frame(flags: int, body: bytes, curve: Opens | None, ready: bool) -> tuple[bool, int, bytes]:
    """A frame as either end of a connection takes it: whether it is a command, its flags and
    its body, CURVE's box opened (a command inside a box is a PING or a PONG).  ZmtpError for
    a command in the clear once CURVE is ready, or a message before READY."""
    if flags & COMMAND:
        if curve is not None and ready:
            raise ZmtpError("a command in the clear on an encrypted connection")
        return True, flags, body
    if not ready:
        raise ZmtpError("a message before READY")
    if curve is None:
        return False, flags, body
    inner, body = curve.open(body)
    return bool(inner & 2), inner & MORE, body


@functools.lru_cache(maxsize=4096)
def machine_of(address: str) -> str:
    """What places are shared by: an IPv4 address (also written as IPv4-mapped IPv6), or an
    IPv6 address's /64 (a host on an IPv6 LAN may give itself any address of its prefix, so
    by the address one machine could take every place); else the text as it is.  Kept for the
    addresses last asked: a full endpoint asks it of every place at each new connection, and
    parsed anew each time, a storm of reconnects (900 a second) outran the table (an attack)."""
    try:
        ip = ipaddress.ip_address(address.partition("%")[0])  # fe80::1%eth0: the zone is no part of it
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def make_room_for(address: str, held: Mapping[K, tuple[str, float]]) -> K | None:
    """Places shared fairly among machines (``machine_of``), all taken (``held``: place -> its
    address and since when it is held): the place a newcomer from ``address`` takes, the
    oldest of the machine that holds the most, if that machine would still hold more than
    the newcomer's; None if the newcomer is turned away.  So one machine's many places keep
    nobody out."""
    machines = {place: machine_of(owner) for place, (owner, _) in held.items()}
    counts = Counter(machines.values())
    if not counts:
        return None
    most, most_held = counts.most_common(1)[0]
    if most_held <= counts[machine_of(address)] + 1:
        return None
    return min((place for place, machine in machines.items() if machine == most), key=lambda place: held[place][1])


def _peer_address(notice: zmq.Frame) -> str:
    """The peer's address that libzmq attaches to the notice of a new connection."""
    try:
        return str(notice.get("Peer-Address"))
    except (zmq.ZMQError, ValueError):
        return ""


class ZmtpListener:
    """A bound ZMQ_STREAM socket speaking ZMTP 3.1 to DEALERs, within a size limit."""

    def __init__(
        self, context: zmq.Context[zmq.Socket[bytes]], endpoint: str, limit: int, curve: tuple[bytes, bytes] | None = None,
        either: bool = False,
    ) -> None:
        """``curve``: this endpoint's X25519 key pair (public, private): it speaks CurveZMQ as a
        server, and ``admit`` says which client keys it lets in (any, until it is set).  With
        ``either``, each client chooses: NULL or CURVE.  The greeting's first 11 bytes are
        the same for both; the rest goes out once the client's greeting has named its
        mechanism (ZMTP lets a peer send its greeting in parts, and libzmq sends the rest of
        its own once it has read our major version)."""
        self.limit = limit
        self.curve = curve
        self.either = either and curve is not None
        self.greeting = GREETING if curve is None else CURVE_GREETING
        self.admit: Callable[[bytes], bool] = lambda key: True
        self.socket = context.socket(zmq.STREAM)
        self.socket.setsockopt(zmq.LINGER, 0)
        # raw TCP chunks of at most 8 KiB each: two queued per connection, then TCP pushes back
        self.socket.setsockopt(zmq.RCVHWM, 2)
        self.socket.setsockopt(zmq.TCP_MAXRT, TCP_MAXRT_MS)
        # replies queued per connection (libzmq's default is 1,000): one that never reads holds
        # at most this many, not 1,000 x 256 connections
        self.socket.setsockopt(zmq.SNDHWM, SEND_QUEUE)
        try:
            self.socket.bind(endpoint)
        except zmq.ZMQError:
            self.socket.close(linger=0)
            raise
        self.connections: dict[bytes, _Connection] = {}
        #: bytes of unfinished messages held over all connections (``MAX_HELD``)
        self.held = 0
        #: frames parsed so far (each costs COST of ``receive``'s budget)
        self.frames = 0
        #: when connections were last swept for silence (``_sweep``: at most every SWEEP_S)
        self.swept = 0.0
        #: how much of its budget the last ``receive`` took
        self.used = 0
        #: per machine, the second its opens are counted in and how many it opened in it
        self.opens: dict[str, tuple[int, int]] = {}

    def close(self) -> None:
        self.socket.close(linger=0)

    def admit_only(self, admit: Callable[[bytes], bool]) -> None:
        """From now on let in only the client keys ``admit`` accepts, and close the connections
        that got in before with any other (a stranger who shook hands in the lobby)."""
        self.admit = admit
        for connection, state in list(self.connections.items()):
            if state.curve is not None and state.curve.client is not None and not admit(state.curve.client):
                self._close(connection)

    def address_of(self, connection: bytes) -> str:
        state = self.connections.get(connection)
        return "" if state is None else state.address

    def send(self, connection: bytes, data: bytes) -> bool:
        """Queue one single-frame message to a connection; False if it is gone or its queue is full."""
        state = self.connections.get(connection)
        if state is None or not state.ready:
            return False
        return self._raw(connection, frame(data) if state.curve is None else frame(state.curve.seal(0, data)))

    def _command_to(self, connection: bytes, state: _Connection, body: bytes) -> None:
        """A ZMTP command to a connection: in the clear, or inside a MESSAGE once encrypted."""
        if state.curve is not None and state.ready:
            self._raw(connection, frame(state.curve.seal(2, body)))
        else:
            self._raw(connection, frame(body, COMMAND))

    def receive(self, budget: int) -> list[tuple[bytes, bytes]]:
        """The messages complete so far, as (connection, data) (``receive_proven``)."""
        return [(connection, data) for connection, data, _ in self.receive_proven(budget)]

    def receive_proven(self, budget: int) -> list[tuple[bytes, bytes, bytes | None]]:
        """The messages complete so far, as (connection, data, the client's permanent key if
        it proved one in a CurveZMQ handshake), reading at most about ``budget`` bytes from
        the socket (``used`` says how much it took); and, now and then, the housekeeping of
        silent connections."""
        out: list[tuple[bytes, bytes, bytes | None]] = []
        read = 0
        now = time.monotonic()
        while read < budget:
            try:
                frames = self.socket.recv_multipart(zmq.NOBLOCK, copy=False)
            except zmq.Again:
                break
            if len(frames) != 2:  # never from a STREAM socket, but not trusted either
                read += COST
                continue
            connection, data = frames[0].bytes, frames[1].bytes
            read += len(data) + COST
            state = self.connections.get(connection)
            if not data:  # ZeroMQ's notice of a connection opened, or closed by the peer
                if state is None:
                    self._opened(connection, now, _peer_address(frames[1]))
                else:
                    self._forget(connection)
                continue
            if state is None:
                continue  # bytes after we closed it: ignored
            state.heard = now
            before, parsed = state.held, self.frames
            try:
                out += self._take(connection, state, data)
                if self.held - before + state.held > MAX_HELD:
                    raise ZmtpError("the table holds too much from its connections")
            except (ZmtpError, CurveError):
                self.held += state.held - before  # as it stands, for _close to take out
                self._close(connection)
                continue
            finally:
                read += COST * (self.frames - parsed)
            self.held += state.held - before
        if now - self.swept >= SWEEP_S:  # its timeouts are whole seconds: not at every poll
            self.swept = now
            self._sweep(now)
        self.used = read
        return out

    def _opened(self, connection: bytes, now: float, address: str = "") -> None:
        if self._too_many_opens(machine_of(address), int(now)):
            self._raw(connection, b"")  # an empty message closes it
            return
        if len(self.connections) >= MAX_CONNECTIONS:
            # full: one stranger's many connections cannot keep every joiner out
            oldest = make_room_for(address, {c: (s.address, s.opened) for c, s in self.connections.items()})
            if oldest is None:
                self._raw(connection, b"")  # an empty message closes it
                return
            self._close(oldest)
        self.connections[connection] = _Connection(now, now, address)
        self._raw(connection, self.greeting[:11] if self.either else self.greeting)

    def _too_many_opens(self, machine: str, second: int) -> bool:
        """Count one more connection of ``machine`` in this ``second``: whether it is over
        OPENS_PER_S (the counts kept bounded: past MAX_CONNECTIONS machines, an older
        second's are dropped)."""
        since, count = self.opens.get(machine, (second, 0))
        count = count + 1 if since == second else 1
        if machine not in self.opens and len(self.opens) >= MAX_CONNECTIONS:
            self.opens = {m: seen for m, seen in self.opens.items() if seen[0] == second}
        self.opens[machine] = (second, count)
        return count > OPENS_PER_S

    def _take(self, connection: bytes, state: _Connection, data: bytes) -> list[tuple[bytes, bytes, bytes | None]]:
        buffer = state.buffer
        buffer += data
        if not state.greeted:
            greeting = take_greeting(buffer, *((GREETING, CURVE_GREETING) if self.either else (self.greeting,)))
            if greeting is None:
                return []
            state.greeted = True
            state.pings = (greeting[10], greeting[11]) >= (3, 1)
            curve = self.curve is not None and greeting[12:32] == CURVE_GREETING[12:32]
            if self.either:
                self._raw(connection, (CURVE_GREETING if curve else GREETING)[11:])
            if not curve:
                self._raw(connection, ready_command(b"ROUTER"))
            else:
                assert self.curve is not None
                state.curve = CurveServer(*self.curve)  # the client says HELLO first
        out: list[tuple[bytes, bytes, bytes | None]] = []
        frame_limit = self.limit if state.curve is None else self.limit + CURVE_OVERHEAD
        while True:
            parsed = self._frame(buffer, frame_limit if state.ready else min(frame_limit, HANDSHAKE_FRAME))
            if parsed is None:  # a frame past the limit raised already: this one is within it
                return out
            is_command, flags, body = unwrap_frame(*parsed, state.curve, state.ready)
            if is_command:
                self._command(connection, state, body)
                continue
            message = add_frame(state, body, bool(flags & MORE), self.limit)
            if message is not None:
                out.append((connection, message, None if state.curve is None else state.curve.client))

    def _frame(self, buffer: bytearray, limit: int) -> tuple[int, bytes] | None:
        parsed = take_frame(buffer, limit)
        if parsed is not None:
            self.frames += 1
        return parsed

    def _command(self, connection: bytes, state: _Connection, body: bytes) -> None:
        if not body or len(body) < 1 + body[0]:
            raise ZmtpError("a broken command")
        name, rest = body[1:1 + body[0]], body[1 + body[0]:]
        curve = state.curve
        if curve is not None and not state.ready:
            if name == b"HELLO":
                self._raw(connection, frame(curve.hello(body), COMMAND))
            elif name == b"INITIATE":
                client, metadata = curve.initiate(body)
                self._check_type(metadata)
                if not self.admit(client):
                    reason = b"not a seat of this table"
                    self._raw(connection, command(b"ERROR", bytes([len(reason)]) + reason))
                    raise ZmtpError("a client key this endpoint does not admit")
                self._raw(connection, frame(curve.ready(socket_type_property(b"ROUTER")), COMMAND))
                state.ready = True
            elif name == b"ERROR":
                raise ZmtpError("the peer gave up")
            else:
                raise ZmtpError(f"a {name!r} command in a CurveZMQ handshake")
            return
        if name == b"READY":
            if state.ready or curve is not None:
                raise ZmtpError("a READY out of turn")
            self._check_type(rest)
            state.ready = True
        elif name == b"PING":
            if len(rest) < 2:
                raise ZmtpError("a broken PING")
            self._command_to(connection, state, bytes([4]) + b"PONG" + rest[2:18])
        elif name == b"ERROR":
            raise ZmtpError("the peer gave up")
        # PONG and commands of later versions: nothing to do

    @staticmethod
    def _check_type(metadata: bytes) -> None:
        socket_type = properties(metadata).get(b"socket-type")
        if socket_type not in PEER_TYPES:
            raise ZmtpError(f"a {socket_type!r} socket cannot talk to a ROUTER")

    def _sweep(self, now: float) -> None:
        """Close connections that never finished their handshake, or fell silent; ping those
        quiet for a third of SILENCE_S (a DEALER without heartbeats sends nothing while idle,
        but answers every PING with a PONG: an honest idle peer is never closed)."""
        for connection, state in list(self.connections.items()):
            if (not state.ready and now - state.opened > HANDSHAKE_S) or now - state.heard > SILENCE_S:
                self._close(connection)
            elif state.ready and state.pings and now - max(state.heard, state.pinged) > SILENCE_S / 3:
                state.pinged = now
                self._command_to(connection, state, b"\x04PING\x00\x00")  # TTL 0: no timeout asked of it

    def _close(self, connection: bytes) -> None:
        self._forget(connection)
        self._raw(connection, b"")

    def _forget(self, connection: bytes) -> None:
        state = self.connections.pop(connection, None)
        if state is not None:
            self.held -= state.held

    def _raw(self, connection: bytes, data: bytes) -> bool:
        try:
            self.socket.send_multipart([connection, data], zmq.NOBLOCK)
            return True
        except zmq.ZMQError as exc:
            if exc.errno == zmq.EHOSTUNREACH:
                # gone, though we never heard: libzmq drops the notice of a peer's closing when
                # its queue is full (RCVHWM), so a PING or a reply is how we find out
                self._forget(connection)
            return False
