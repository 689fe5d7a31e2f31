"""The link endpoint speaks CurveZMQ itself (net/curvezmq.py inside net/zmtp.py): a libzmq
CURVE DEALER talks to it unchanged, only the seats' keys get in once the game starts, and
what an admitted peer sends is bounded like anything else.  A CurveZMQ client written by
hand (tests/curve_client.py) tries what a DEALER never would.  All on loopback; every wait
is bounded."""
from __future__ import annotations

import struct

import pytest
from curve_client import CurveClient, curve_dealer
from net_doubles import receive_inbound, receive_until

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import zmtp
from saboteur_p2p.net.transport import LINK_CONNECTION


def test_a_libzmq_curve_dealer_is_answered_through_the_box(context, link_seat) -> None:
    transport, identity = link_seat
    dealer, alice = curve_dealer(context, transport, identity)
    try:
        big = bytes(range(256)) * 4096  # a megabyte: long frames inside and out
        dealer.send(big)
        ((connection, data),) = receive_until(transport, 5)
        assert data == big and connection.startswith(LINK_CONNECTION)
        dealer.send(b"who am I")
        # the session is told the key the dealer proved, to know whose link it is (net/links.py)
        (inbound,) = receive_inbound(transport, 5)
        assert (inbound.connection, inbound.data, inbound.key) == (connection, b"who am I", alice.public.dh_key)
        transport.reply(connection, b"and back")
        assert dealer.poll(5000) and dealer.recv() == b"and back"
    finally:
        dealer.close()


def test_once_the_seats_are_known_only_their_keys_get_in(link_seat) -> None:
    transport, identity = link_seat
    table_seat, stranger = Identity.generate(), Identity.generate()
    transport.admit_links({table_seat.public.dh_key})
    for who, admitted in ((stranger, False), (table_seat, True)):
        client = CurveClient(transport, identity.public.dh_key, who.link_keys())
        assert client.handshake() is admitted
        if admitted:
            client.raw.sendall(client.message(b"a seat speaks"))
            assert [data for _, data in client.step(0.5)] == [b"a seat speaks"]
        client.raw.close()


@pytest.mark.parametrize("fault", ["replayed nonce", "tampered box", "plaintext frame"])
def test_a_message_that_is_replayed_or_tampered_with_closes_the_connection(link_seat, fault) -> None:
    transport, identity = link_seat
    client = CurveClient(transport, identity.public.dh_key)
    assert client.handshake()
    client.raw.sendall(client.message(b"first"))
    assert [data for _, data in client.step(0.5)] == [b"first"]
    if fault == "replayed nonce":
        bad = client.message(b"again", short=struct.pack(">Q", client.nonce))
    elif fault == "tampered box":
        good = client.message(b"changed")
        bad = good[:-1] + bytes([good[-1] ^ 1])
    else:
        bad = zmtp.frame(b"a frame in the clear")
    client.raw.sendall(bad)
    assert client.closed(2.0) and not transport.link.connections  # type: ignore[union-attr]
    client.raw.close()


def test_an_endless_multipart_message_inside_the_box_is_bounded(link_seat, monkeypatch) -> None:
    monkeypatch.setattr(zmtp, "MAX_HELD", 200_000)
    transport, identity = link_seat
    client = CurveClient(transport, identity.public.dh_key)
    assert client.handshake()
    got = []
    try:
        for _ in range(20):  # 20 frames of 60 kB with MORE inside the box: past MAX_HELD
            client.raw.sendall(client.message(b"z" * 60_000, flags=1))
            got += client.step(0.02)
    except (BrokenPipeError, ConnectionResetError):
        pass  # closed on us: what it should do
    assert client.closed(2.0) and not transport.link.connections  # type: ignore[union-attr]
    assert transport.link.held == 0 and got == []  # type: ignore[union-attr]
    client.raw.close()
