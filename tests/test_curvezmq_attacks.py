"""Attacks on the link endpoint's own CurveZMQ server (net/curvezmq.py inside net/zmtp.py):
crafted handshakes, keys that are not points of use, boxes moved about, a stranger who got in
before the seats were known, and libzmq CURVE DEALERs as the session configures them.  All on
loopback; every wait is bounded; the transport is polled in the test's own thread (an
exception escaping ``Transport.poll`` fails the test where it happens)."""
from __future__ import annotations

import os
import struct
import time
from collections.abc import Iterator

import pytest
import zmq
from curve_client import CurveClient, curve_dealer, poll_for
from nacl.public import Box
from net_doubles import receive_until

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import curvezmq, zmtp
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.wire import MAX_WIRE_MESSAGE

#: X25519 points of small order (u = 0, u = 1, and one of order 8), as libsodium's blacklist has them
LOW_ORDER = [
    bytes(32),
    (1).to_bytes(32, "little"),
    bytes.fromhex("e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"),
]


# -- crashes: what escapes Transport.poll ------------------------------------------------------


@pytest.mark.parametrize("point", range(len(LOW_ORDER)))
def test_a_hello_from_a_low_order_transient_key_closes_the_connection_without_crashing(link_seat, point) -> None:
    """Box(S, C') with C' of small order: libsodium's crypto_box_beforenm refuses the all-zero
    shared key and PyNaCl raises nacl.exceptions.RuntimeError, which is not a CurveError: it
    escaped ``ZmtpListener.receive`` and ``Transport.poll``, so any stranger who can reach the
    link endpoint (no key needed) could stop a seat's session with one 200-byte HELLO."""
    transport, identity = link_seat
    client = CurveClient(transport, identity.public.dh_key)
    client.hello(transient=LOW_ORDER[point])
    assert client.closed()  # raised out of poll before the fix
    assert transport.link is not None and not transport.link.connections
    client.raw.close()


@pytest.mark.parametrize("point", range(len(LOW_ORDER)))
def test_an_initiate_for_a_low_order_permanent_key_closes_the_connection_without_crashing(link_seat, point) -> None:
    """The same through the vouch: Box(S', C) with the client's claimed permanent key C of small
    order raised RuntimeError out of ``curve.initiate`` (an honest transient key gets that far)."""
    transport, identity = link_seat
    client = CurveClient(transport, identity.public.dh_key)
    client.hello()
    client.welcome()
    client.initiate(client=LOW_ORDER[point], vouch=os.urandom(80))
    assert client.closed()
    assert transport.link is not None and not transport.link.connections
    client.raw.close()


# -- authentication --------------------------------------------------------------------------


def test_a_stranger_connected_before_the_seats_were_known_is_not_heard_after(link_seat) -> None:
    """Until ``admit_links`` any key gets in (the lobby); a stranger who shook hands then kept
    its connection once the game started and the endpoint admitted only the seats' keys, and
    everything it sent still came through as link traffic."""
    transport, identity = link_seat
    stranger = CurveClient(transport, identity.public.dh_key)
    assert stranger.handshake()
    transport.admit_links({Identity.generate().public.dh_key})  # the game starts: one other seat
    stranger.raw.sendall(stranger.message(b"still here"))
    got = poll_for(transport, 0.5)
    assert got == []
    stranger.raw.close()


def test_a_command_in_the_clear_after_the_handshake_closes_the_connection(link_seat) -> None:
    """Once encrypted every frame must be a MESSAGE box (RFC 26; libzmq's decode refuses any
    other): a PING in the clear was answered (keeping the connection 'heard'), and an ERROR in the
    clear closed it, so anyone who can inject into the TCP stream drives the connection."""
    transport, identity = link_seat
    client = CurveClient(transport, identity.public.dh_key)
    assert client.handshake()
    client.raw.sendall(zmtp.command(b"PING", b"\x00\x00hi"))
    assert client.closed(0.5)
    client.raw.close()


# -- what holds (each was tried): boxes moved about, handshakes out of order ------------------


@pytest.mark.parametrize("attack", [
    "replayed", "reordered", "reflected server box", "client box with server prefix", "nonce zero",
    "second hello", "initiate before hello", "message before ready", "another connection's cookie",
    "bad vouch", "vouch for another server", "wrong version", "short hello", "metadata garbage",
    "command in box then garbage",
])
def test_what_the_server_refuses(link_seat, attack) -> None:
    transport, identity = link_seat
    client = CurveClient(transport, identity.public.dh_key)
    if attack in ("second hello", "initiate before hello", "message before ready", "wrong version", "short hello"):
        if attack == "initiate before hello":
            client.raw.sendall(zmtp.frame(b"\x08INITIATE" + os.urandom(300), zmtp.COMMAND))
        elif attack == "message before ready":
            client.hello()
            client.welcome()
            client.raw.sendall(zmtp.frame(b"\x07MESSAGE" + os.urandom(40)))
        elif attack == "wrong version":
            short = client.short()
            sig = Box(client.transient, client.server).encrypt(bytes(64), curvezmq.HELLO_PREFIX + short).ciphertext
            hello = b"\x05HELLO\x02\x00" + bytes(72) + bytes(client.transient.public_key) + short + sig
            client.raw.sendall(zmtp.frame(hello, zmtp.COMMAND))
        elif attack == "short hello":
            client.raw.sendall(zmtp.frame(b"\x05HELLO\x01\x00" + bytes(10), zmtp.COMMAND))
        else:
            client.hello()
            client.welcome()
            client.hello()
        assert client.closed()
        assert transport.link is not None and not transport.link.connections
        return
    if attack in ("another connection's cookie", "bad vouch", "vouch for another server", "metadata garbage"):
        client.hello()
        client.welcome()
        if attack == "another connection's cookie":
            other = CurveClient(transport, identity.public.dh_key)
            other.hello()
            other.welcome()
            client.cookie = other.cookie
            client.initiate()
            assert client.closed()
            assert transport.link is not None and len(transport.link.connections) == 1  # the other's
            other.raw.close()
            return
        elif attack == "bad vouch":
            client.initiate(vouch=os.urandom(80))
        elif attack == "vouch for another server":
            nonce = bytes(16)
            vouch = Box(client.secret, client.server_transient).encrypt(
                bytes(client.transient.public_key) + Identity.generate().public.dh_key, curvezmq.VOUCH_PREFIX + nonce).ciphertext
            client.initiate(vouch=vouch)
        else:
            vouch_nonce = bytes(16)
            vouch = Box(client.secret, client.server_transient).encrypt(
                bytes(client.transient.public_key) + bytes(client.server), curvezmq.VOUCH_PREFIX + vouch_nonce).ciphertext
            short = client.short()
            garbage = b"\x0bSocket-Type\xff\xff\xff\xff"
            box = client.box.encrypt(client.public + vouch_nonce + vouch + garbage, curvezmq.INITIATE_PREFIX + short).ciphertext
            client.raw.sendall(zmtp.frame(b"\x08INITIATE" + client.cookie + short + box, zmtp.COMMAND))
        assert client.closed()
        assert transport.link is not None and not transport.link.connections
        return
    assert client.handshake()
    client.raw.sendall(client.message(b"one"))
    assert [d for _, d in client.step(0.3)] == [b"one"]
    if attack == "replayed":
        client.raw.sendall(client.message(b"two", short=struct.pack(">Q", client.nonce)))
    elif attack == "reordered":
        late = client.message(b"three")
        client.raw.sendall(client.message(b"four") + late)
    elif attack == "reflected server box":
        state = next(iter(transport.link.connections.values()))  # type: ignore[union-attr]
        sealed = state.curve.seal(0, b"from the server")  # what the server would send
        client.raw.sendall(zmtp.frame(sealed))
    elif attack == "client box with server prefix":
        short = client.short()
        box = client.box.encrypt(b"\x00evil", curvezmq.SERVER_PREFIX + short).ciphertext
        client.raw.sendall(zmtp.frame(b"\x07MESSAGE" + short + box))
    elif attack == "nonce zero":
        client.raw.sendall(client.message(b"zero", short=bytes(8)))
    else:
        client.raw.sendall(client.message(b"\x04PING\x00\x00", flags=2) + client.message(b"", flags=2))
    got = []
    deadline = time.monotonic() + 1
    while time.monotonic() < deadline and transport.link.connections:  # type: ignore[union-attr]
        got += client.step(0.05)
    assert not transport.link.connections  # type: ignore[union-attr]
    # a reordered box closes the connection; what came before it in the same read may be dropped too
    assert [d for _, d in got] in (([], [b"four"]) if attack == "reordered" else ([],))
    client.raw.close()


def test_each_connection_gets_a_fresh_server_transient_key_and_cookie(link_seat) -> None:
    transport, identity = link_seat
    seen = set()
    for _ in range(3):
        client = CurveClient(transport, identity.public.dh_key)
        client.hello()
        client.welcome()
        seen.add((bytes(client.server_transient), client.cookie))
        client.raw.close()
    assert len({t for t, _ in seen}) == 3 and len({c for _, c in seen}) == 3


# -- interop: libzmq CURVE DEALERs as the session configures them ---------------------------


@pytest.fixture
def pair(context: zmq.Context) -> Iterator[tuple[Transport, Transport, Identity]]:
    a_id, b_id = Identity.generate(), Identity.generate()
    a = Transport("127.0.0.1:0", context, link_keys=a_id.link_keys())
    b = Transport("127.0.0.1:0", context, link_keys=b_id.link_keys())
    yield a, b, a_id
    a.close()  # the receiver first: a sender whose peer is there but not polled would
    b.close()  # wait for its handshake (Transport.drain)


def test_a_reply_of_the_largest_wire_message_reaches_a_curve_dealer(pair) -> None:
    """Transport.connect caps a DEALER at MAXMSGSIZE = MAX_WIRE_MESSAGE, which libzmq checks
    against the frame on the wire: a CURVE frame is the message plus 33 bytes (MESSAGE name,
    nonce, tag, flags), so a reply within the wire limit but within 33 bytes of it broke the
    DEALER's connection (and its reconnects got it no further)."""
    a, b, a_id = pair
    assert b.connect(a.link_endpoint, server_key=a_id.public.dh_key)
    big = os.urandom(MAX_WIRE_MESSAGE)
    assert b.send(a.link_endpoint, big)  # the DEALER's way: fine
    ((connection, data),) = receive_until(a, 10, senders=[b])
    assert data == big
    a.reply(connection, big)
    got = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and not got:
        poll_for(a, 0.05)
        got += [(i.connection, i.data) for i in b.poll(0.05)]
    assert [d for _, d in got] == [big]


@pytest.mark.slow
def test_an_idle_curve_dealer_keeps_its_connection(pair, monkeypatch) -> None:
    monkeypatch.setattr(zmtp, "SILENCE_S", 1.5)
    a, b, a_id = pair
    assert b.connect(a.link_endpoint, server_key=a_id.public.dh_key)
    b.send(a.link_endpoint, b"hi")
    ((first, _),) = receive_until(a, 5, senders=[b])
    deadline = time.monotonic() + 4.5  # three times SILENCE_S, nothing sent
    while time.monotonic() < deadline:
        a.poll(0.05)
        b.poll(0.0)
    b.send(a.link_endpoint, b"still")
    ((again, data),) = receive_until(a, 5, senders=[b])
    assert data == b"still" and again == first  # the same connection: never closed


@pytest.mark.slow
def test_an_idle_curve_dealer_without_heartbeats_keeps_its_connection(context, link_seat, monkeypatch) -> None:
    monkeypatch.setattr(zmtp, "SILENCE_S", 1.5)
    transport, identity = link_seat
    dealer, _ = curve_dealer(context, transport, identity)
    try:
        dealer.send(b"hi")
        ((first, _),) = receive_until(transport, 5)
        poll_for(transport, 4.5)
        dealer.send(b"still")
        ((again, data),) = receive_until(transport, 5)
        assert data == b"still" and again == first
    finally:
        dealer.close()


def test_a_dealer_with_the_wrong_server_key_gets_nothing_and_holds_nothing(pair, context) -> None:
    a, b, _ = pair
    assert b.connect(a.link_endpoint, server_key=Identity.generate().public.dh_key)
    b.send(a.link_endpoint, b"let me in")
    server = context.socket(zmq.DEALER)  # and one that thinks it is the server too
    server.setsockopt(zmq.LINGER, 0)
    server.setsockopt(zmq.CURVE_SERVER, 1)
    server.setsockopt(zmq.CURVE_SECRETKEY, Identity.generate().link_keys()[1])
    server.connect(a.link_endpoint)
    server.send(b"me too")
    try:
        assert poll_for(a, 1.5) == []
        assert a.link is not None and len(a.link.connections) <= 2 and a.link.held <= 2 * zmtp.GREETING_SIZE  # a greeting begun
    finally:
        server.close()


def test_a_curve_dealer_reconnecting_is_heard_again(pair, context) -> None:
    a, b, a_id = pair
    for round_ in range(3):
        assert b.connect(a.link_endpoint, server_key=a_id.public.dh_key)
        b.send(a.link_endpoint, b"round %d" % round_)
        assert [d for _, d in receive_until(a, 5, senders=[b])] == [b"round %d" % round_]
        b.disconnect(a.link_endpoint)
    poll_for(a, 0.3)
    assert a.link is not None and len(a.link.connections) <= 1


# -- resource bounds ------------------------------------------------------------------------


def test_a_strangers_handshake_cannot_make_the_server_parse_megabytes_of_metadata(link_seat, monkeypatch) -> None:
    """Handshake commands were taken up to the message limit (5 MiB) before anyone is known, and
    the INITIATE's metadata is parsed in Python property by property (5 bytes each: about 0.6 s
    of the session's loop per 5 MiB INITIATE, ~100x the cost per byte of a message), before
    the client's key is even checked against the seats: any stranger, with a key of its own,
    could keep a seat's loop busy for as long as it sends.  A CURVE handshake command is a few
    hundred bytes (libzmq's metadata: Socket-Type, Identity <= 255)."""
    parsed: list[int] = []
    real = zmtp.properties
    monkeypatch.setattr(zmtp, "properties", lambda body: parsed.append(len(body)) or real(body))
    transport, identity = link_seat
    client = CurveClient(transport, identity.public.dh_key)
    client.raw.settimeout(2)
    client.hello()
    client.welcome()
    vouch_nonce = bytes(16)
    vouch = Box(client.secret, client.server_transient).encrypt(
        bytes(client.transient.public_key) + bytes(client.server), curvezmq.VOUCH_PREFIX + vouch_nonce).ciphertext
    metadata = zmtp.socket_type_property(b"DEALER") + b"\x00\x00\x00\x00\x00" * (4 * 1024 * 1024 // 5)
    short = client.short()
    box = client.box.encrypt(client.public + vouch_nonce + vouch + metadata, curvezmq.INITIATE_PREFIX + short).ciphertext
    frame = zmtp.frame(b"\x08INITIATE" + client.cookie + short + box, zmtp.COMMAND)
    client.raw.settimeout(0.05)
    sent = 0
    deadline = time.monotonic() + 10
    while sent < len(frame) and time.monotonic() < deadline:
        try:
            sent += client.raw.send(frame[sent:sent + 65536])
        except (TimeoutError, BlockingIOError):
            pass
        except OSError:
            break  # closed on us: what it should do
        client.step(0.01)
    client.closed(1.0)
    assert all(size <= zmtp.HANDSHAKE_FRAME for size in parsed), parsed
    client.raw.close()
