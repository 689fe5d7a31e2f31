"""Sockets only: two bound endpoints for everything inbound, one outbound link to each peer.

The table's own endpoint (the address friends join at) takes what comes from peers not yet
known: hellos, a spectator's requests.  It speaks ZMTP as a ROUTER would, through a listener
of our own that bounds whole messages (zmtp.py): a stranger's multipart message cannot fill
the host's memory there.  The second, the *link* endpoint, is the same listener speaking
CurveZMQ (curvezmq.py) under this peer's X25519 identity key: the seats of a game reach each
other there, each outbound link knowing the key of the seat it dials (from the table), so
moves and chat are not readable on the LAN and nobody can stand in the middle; once the
game starts it admits only the seats' keys (``admit_links``).  The outbound links speak ZMTP
as a DEALER would, through a client of our own (dialer.py) that bounds what the peer it
dials can make it hold, in the same way.

Both endpoints tag every inbound message with the connection it came on, so the session can
tell which peer sent garbage once that connection has introduced itself with a signed
``link``.  Nothing here knows the game: it moves envelopes and says which connection
they came on.

Links are meant to survive a flaky LAN: a connection whose bytes TCP cannot get
acknowledged for a few seconds is dropped and dialled again (a link PINGs after a second
of sending nothing, so it always has bytes in flight), and a connect attempt that has not
completed within a second is abandoned and tried again.
A peer that says it moved to another endpoint is reached at both until the new one has
completed a handshake (``replace``).  A peer that stops first hands what its links still
hold to the peers it is connected to (``close``, at most ``DRAIN_S``).
"""
from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
import time
from collections.abc import Collection, Iterable
from dataclasses import dataclass

import zmq

from .dialer import WRONG_KEY, Dialer
from .wire import MAX_WIRE_MESSAGE
from .zmtp import ZmtpListener

#: bytes taken from the sockets in one poll, at most (past one large message)
POLL_BYTES = 8 * 1024 * 1024
#: Outbound messages queued for a peer that is away, past which the newest are dropped
#: (and past dialer.QUEUE_BYTES of them).
SEND_HIGH_WATER = 10_000
#: What a peer may give as its endpoint: tcp://host:port, nothing else.
ENDPOINT = re.compile(r"tcp://[A-Za-z0-9.\-]{1,253}:[0-9]{1,5}")

#: What a closed link has handed to libzmq still goes out for up to this long (ms) ...
LINGER_MS = 1000
#: ... and before that, a peer that stops waits up to this long (s) for each link that is
#: connected but still holds messages to finish its handshake and take them: a peer that
#: names a cheater sends its ``abort`` and stops at once, and the others must get it even
#: if the one it tells is busy computing and has not yet answered the handshake.
DRAIN_S = 5.0
#: ... and for a link that is not connected, at most this long (s), as libzmq would linger
UNCONNECTED_S = 1.0


def dealer_connection(endpoint: str) -> bytes:
    """What ``Inbound.connection`` says of a message on the link we opened to ``endpoint``
    (an answer in the lobby, a spectator's feed): only that peer can send on it."""
    return b"dealer:" + endpoint.encode()


def valid_endpoint(endpoint: object) -> bool:
    if not isinstance(endpoint, str) or ENDPOINT.fullmatch(endpoint) is None:
        return False
    return 0 < int(endpoint.rsplit(":", 1)[1]) < 65536


def endpoint_host(endpoint: str) -> str:
    """The host part of ``tcp://host:port``."""
    return endpoint.removeprefix("tcp://").rsplit(":", 1)[0]


def numeric_host(host: str) -> str | None:
    """``host`` as a dotted IPv4 address, whatever numeric spelling it has (``127.1``,
    ``0x7f000001``, ``2130706433`` are all 127.0.0.1); None for a name or nonsense."""
    try:
        infos = socket.getaddrinfo(host, None, socket.AF_INET, 0, 0, socket.AI_NUMERICHOST)
    except (OSError, UnicodeError, ValueError):
        return None
    return str(infos[0][4][0]) if infos else None


def unknown_machine(host: str) -> str | None:
    """Why no machine answers to the name ``host`` (the resolver knows of none), or None:
    a number, a name that resolves, or a resolver that cannot say now (ZeroMQ keeps trying
    a name it cannot resolve, so a mistyped one would only time out)."""
    if numeric_host(host) is not None or host.startswith("["):
        return None
    try:
        socket.getaddrinfo(host, None)
    except socket.gaierror as exc:
        return str(exc.strerror) if exc.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)) else None
    except (OSError, UnicodeError, ValueError):
        return None
    return None


def is_wildcard(host: str) -> bool:
    """An address that names no machine: 0.0.0.0 (in any spelling), ::, * (bind-anywhere)."""
    if host in ("*", "::", "[::]", ""):
        return True
    numeric = numeric_host(host)
    return numeric is not None and ipaddress.ip_address(numeric).is_unspecified


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    numeric = numeric_host(host)
    return numeric is not None and ipaddress.ip_address(numeric).is_loopback


def normal_endpoint(endpoint: str) -> str | None:
    """``tcp://A.B.C.D:PORT`` for an endpoint whose host is a numeric IPv4 address in any
    spelling, else None (a name, which a peer's ``link`` may not give: it could be anything)."""
    if not valid_endpoint(endpoint):
        return None
    host = numeric_host(endpoint_host(endpoint))
    return None if host is None else f"tcp://{host}:{int(endpoint.rsplit(':', 1)[1])}"


@dataclass(frozen=True)
class Inbound:
    connection: bytes
    data: bytes
    #: the X25519 key the sender proved in its CurveZMQ handshake (at the link endpoint), or None
    key: bytes | None = None


class CannotListen(ValueError):
    """This machine cannot listen at the address asked for (in use, or not one of its own)."""


#: the first byte of a connection id from the link endpoint (the listeners' ids, ZeroMQ's, start with 0)
LINK_CONNECTION = b"L"
#: The largest message the table's own endpoint takes when the seats talk on a link endpoint:
#: only hellos and spectators' requests come there, a few hundred bytes each, so a flood of
#: large envelopes there costs a closed connection, not megabytes.
TABLE_MESSAGE_LIMIT = 64 * 1024


class Transport:
    def __init__(self, bind: str, context: zmq.Context | None = None, link_keys: tuple[bytes, bytes] | None = None) -> None:
        """Listen at ``bind``; with ``link_keys`` (this peer's X25519 public and private key),
        also at an encrypted link endpoint on the same address, another port."""
        #: a context of its own (none given) is terminated at ``close``: without that, a process
        #: that stops at once (after its ``abort``) took what its links had handed to libzmq with it
        self._own_context = context is None
        self.context = context or zmq.Context()
        self.link_keys = link_keys
        # both endpoints bound whole messages, not only frames (zmtp.py)
        try:
            # with keys, a joiner who knows ours (--key, or the table's announcement) may speak
            # CurveZMQ there too, so the lobby and a spectator's feed are not in the clear
            self.table = self._listen(_endpoint(bind), MAX_WIRE_MESSAGE if link_keys is None else TABLE_MESSAGE_LIMIT,
                                      link_keys, either=True)
        except CannotListen:
            self._end_context()
            raise
        self.endpoint = _bound(self.table.socket)
        self.link: ZmtpListener | None = None
        #: where seats reach this peer: the encrypted endpoint, or the table's without keys
        self.link_endpoint = self.endpoint
        if link_keys is not None:
            try:
                self.link = self._listen(f"{self.endpoint.rsplit(':', 1)[0]}:*", MAX_WIRE_MESSAGE, link_keys)
            except CannotListen:
                self.table.close()
                self._end_context()
                raise
            self.link_endpoint = _bound(self.link.socket)
        #: our outbound links (dialer.py), by the endpoint each dials
        self.outbound: dict[str, Dialer] = {}
        #: a new endpoint of a peer -> the old one, kept until the new one has shaken hands
        self.replacing: dict[str, str] = {}

    def _listen(self, endpoint: str, limit: int, curve: tuple[bytes, bytes] | None = None, either: bool = False) -> ZmtpListener:
        try:
            return ZmtpListener(self.context, endpoint, limit, curve, either)
        except zmq.ZMQError as exc:
            raise CannotListen(f"cannot listen at {endpoint}: {os.strerror(exc.errno or 0)}") from None

    def admit_links(self, keys: set[bytes]) -> None:
        """Let only these X25519 keys (the seats') in at the encrypted link endpoint; a
        connection already in with another key is closed."""
        if self.link is not None:
            self.link.admit_only(frozenset(keys).__contains__)

    def advertised(self, towards: str) -> str:
        """The link endpoint a peer at ``towards`` (an endpoint or host) should use to reach us.

        A table bound to every interface (0.0.0.0) is announced at the address of the
        interface that routes to that peer, never as the wildcard, which on the peer's
        machine would mean the peer itself.
        """
        return self._reachable(self.link_endpoint, towards)

    def advertised_table(self, towards: str) -> str:
        """The table endpoint (hellos, spectators) a peer at ``towards`` should use to reach us."""
        return self._reachable(self.endpoint, towards)

    @staticmethod
    def _reachable(bound: str, towards: str) -> str:
        host = endpoint_host(bound)
        if not is_wildcard(host):
            return bound
        port = bound.rsplit(":", 1)[1]
        return f"tcp://{local_address_towards(endpoint_host(towards))}:{port}"

    def connect(self, endpoint: str, server_key: bytes | None = None, client_keys: tuple[bytes, bytes] | None = None) -> bool:
        """Open (once) the outbound link to a peer's bound endpoint; False if it is not one (or
        no socket can be had).  ``server_key``: the peer's X25519 key, for its encrypted link
        endpoint (this peer's own keys are then needed too: ``client_keys``, else its link keys)."""
        if endpoint in self.outbound:
            return True
        if not valid_endpoint(endpoint):
            return False
        curve = None
        own = client_keys or self.link_keys
        if server_key is not None and own is not None:
            curve = (server_key, *own)
        try:
            self.outbound[endpoint] = Dialer(self.context, endpoint, MAX_WIRE_MESSAGE, SEND_HIGH_WATER, curve, LINGER_MS)
        except zmq.ZMQError:
            return False  # out of sockets or file descriptors, or an address libzmq refuses: keep running
        return True

    def refused(self, endpoint: str) -> str:
        """Why the link to ``endpoint`` last broke off in its handshake (a CurveZMQ server that
        holds another key, say), or "" when it has not since its last completed handshake."""
        dialer = self.outbound.get(endpoint)
        return "" if dialer is None else dialer.trouble

    def replace(self, old: str, new: str, keep_old: bool = False, server_key: bytes | None = None) -> bool:
        """A peer now listens at ``new``: send there, and to ``old`` as well until ``new`` has
        completed a ZeroMQ handshake (an endpoint that does not work never cuts a good link).

        ``keep_old``: another peer uses ``old`` too, so it is never closed.  A ``new`` that
        replaces a link still waiting for its own handshake takes that link's place (the
        untried one is closed), so a peer that keeps moving holds at most two links open.
        """
        if new == old or new in self.outbound:
            return new in self.outbound
        pending = self.replacing.pop(old, None)
        if pending is not None:
            self.disconnect(old)  # never shook hands: dropped for the newer endpoint
            old = pending
        if not self.connect(new, server_key=server_key):
            return False
        if old in self.outbound and not keep_old:
            self.replacing[new] = old
        return True

    def wrong_key(self, endpoint: str) -> bool:
        """Whether the server at ``endpoint`` last closed our handshake as one that holds
        another key than we dialled (not a handshake that timed out, or a link that failed)."""
        return self.refused(endpoint) == WRONG_KEY

    def unproven(self, new: str) -> str | None:
        """The endpoint the link to ``new`` is to replace, while that link has not shaken
        hands (None if it replaces nothing)."""
        return self.replacing.get(new)

    def disconnect(self, endpoint: str) -> None:
        """Close the outbound link to an endpoint a peer has left."""
        self.replacing.pop(endpoint, None)
        for new in [n for n, o in self.replacing.items() if o == endpoint]:
            del self.replacing[new]
        link = self.outbound.pop(endpoint, None)
        if link is not None:
            link.close()

    def send(self, endpoint: str, data: bytes) -> bool:
        """Queue a message to a peer; False if its queue is full (it has been away long)."""
        old = self.replacing.get(endpoint)
        if old is not None:
            self._send(old, data)
        return self._send(endpoint, data)

    def _send(self, endpoint: str, data: bytes) -> bool:
        link = self.outbound.get(endpoint)
        return link is not None and link.send(data)

    def reply(self, connection: bytes, data: bytes) -> None:
        """Answer on an inbound connection (lobby replies to a joiner not yet known)."""
        if connection.startswith(LINK_CONNECTION) and self.link is not None:
            self.link.send(connection[len(LINK_CONNECTION):], data)
        else:
            self.table.send(connection, data)

    def address_of(self, connection: bytes) -> str:
        """The IP address an inbound connection comes from ("" if unknown, or not one of ours)."""
        if connection.startswith(LINK_CONNECTION) and self.link is not None:
            return self.link.address_of(connection[len(LINK_CONNECTION):])
        return self.table.address_of(connection)

    def poll(self, timeout: float) -> list[Inbound]:
        """The messages that arrive within ``timeout`` seconds (returns early on the first), at
        most POLL_BYTES of them at once: a sender faster than we read never grows the batch
        without bound (the rest wait in ZeroMQ, which then stops reading that connection)."""
        out: list[Inbound] = []
        size = 0
        poller = zmq.Poller()
        poller.register(self.table.socket, zmq.POLLIN)
        if self.link is not None:
            poller.register(self.link.socket, zmq.POLLIN)
        for link in self.outbound.values():
            if link.socket is not None:
                poller.register(link.socket, zmq.POLLIN)
        events = dict(poller.poll(max(0, int(timeout * 1000))))
        # the seats' link first: strangers at the table's address get what budget is left
        if self.link is not None:
            proven = self.link.receive_proven(POLL_BYTES)
            out += [Inbound(LINK_CONNECTION + connection, data, key) for connection, data, key in proven]
            size += self.link.used
        out += [Inbound(connection, data) for connection, data in self.table.receive(max(0, POLL_BYTES - size))]
        size += self.table.used
        now = time.monotonic()
        for endpoint, link in list(self.outbound.items()):  # answers in the lobby, a spectator's feed
            if link.socket is not None and link.socket in events and size < POLL_BYTES:
                messages, used = link.receive(POLL_BYTES - size)
                out += [Inbound(dealer_connection(endpoint), data) for data in messages]
                size += used
            link.tick(now)
        self._proven()
        return out

    def all_ready(self, endpoints: Iterable[str]) -> bool:
        """Every link to these endpoints has done its handshake."""
        return all(endpoint in self.outbound and self.outbound[endpoint].ready for endpoint in endpoints)

    def shake_hands(self, endpoints: Collection[str], limit: float) -> list[Inbound]:
        """Poll (at most ``limit`` seconds) until every link to these endpoints has done its
        handshake; what came meanwhile is returned, to be handled as any poll's."""
        got: list[Inbound] = []
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline and not self.all_ready(endpoints):
            got += self.poll(0.01)
        return got

    def _proven(self) -> None:
        """The new endpoint of a replaced link that has shaken hands: the old link is closed."""
        for new, old in list(self.replacing.items()):
            link = self.outbound.get(new)
            if link is None or not link.shaken:
                continue
            del self.replacing[new]
            if old not in self.replacing.values() and old not in self.replacing:
                self.disconnect(old)

    def drain(self, seconds: float = DRAIN_S) -> None:
        """Wait until every link has handed over what it holds: one that is connected for at
        most ``seconds`` from the start, one that is not (its peer is not there yet, or gone)
        while UNCONNECTED_S has not passed (it dials meanwhile, and once connected it is
        waited for as one that is); one whose connection drops meanwhile (its peer refused
        us, or went) no longer.  What comes meanwhile is dropped."""
        started = time.monotonic()
        drops = {endpoint: link.drops for endpoint, link in self.outbound.items()}
        while True:
            waited = time.monotonic() - started
            waiting = [
                d for e, d in self.outbound.items()
                if d.pending and d.drops == drops[e] and waited < (seconds if d.connected else UNCONNECTED_S)
            ]
            if not waiting:
                return
            self.poll(0.02)

    def close(self) -> None:
        self.drain()
        for link in self.outbound.values():
            link.close()
        self.table.close()
        if self.link is not None:
            self.link.close()
        self._end_context()

    def _end_context(self) -> None:
        if self._own_context:
            # waits while a link still sends what it was handed (LINGER_MS at most); any
            # socket left open is closed, bounded the same way
            self.context.destroy(linger=LINGER_MS)


def _bound(sock: zmq.Socket) -> str:
    endpoint = sock.getsockopt(zmq.LAST_ENDPOINT)
    assert isinstance(endpoint, bytes)
    return endpoint.decode()


def _endpoint(address: str) -> str:
    if address.startswith("tcp://"):
        return address
    host, _, port = address.rpartition(":")
    if not host:
        host, port = address, "*"
    return f"tcp://{host}:{port or '*'}"


def local_address_towards(host: str) -> str:
    """The address of this machine's interface that reaches ``host`` (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((host, 9))
            return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"


#: the ioctl that reads an interface's IPv4 address (Linux)
_SIOCGIFADDR = 0x8915


def interface_addresses() -> list[str]:
    """This machine's IPv4 addresses other than loopback, to tell friends where a table is.

    Read from every network interface (on Linux), else from the routing decision towards a
    public address (no packet is sent) and the host name; empty when the machine has no
    network but loopback.
    """
    found: list[str] = []
    candidates = [address for _, name in socket.if_nameindex() if (address := _interface_ipv4(name))]
    if not candidates:
        candidates.append(local_address_towards("192.0.2.1"))
        with contextlib.suppress(OSError):
            candidates += [str(info[4][0]) for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)]
    for address in candidates:
        if not is_loopback(address) and not is_wildcard(address) and address not in found:
            found.append(address)
    return found


def _interface_ipv4(name: str) -> str | None:
    """The IPv4 address of interface ``name``, or None (none, or not Linux)."""
    try:
        import fcntl
        import struct

        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            packed = fcntl.ioctl(probe.fileno(), _SIOCGIFADDR, struct.pack("256s", name[:15].encode()))
        return socket.inet_ntoa(packed[20:24])
    except (ImportError, OSError):
        return None
