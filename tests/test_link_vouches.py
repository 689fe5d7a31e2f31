"""A seat's link vouches for its own envelopes (protocol.md §12.1).

Every box on a link connection is authenticated by the X25519 key its CurveZMQ handshake
proved, so a seat's own envelope there is not signature-checked again: a record costs each
receiver one signature check, the record's own.  Everything else is checked as before: an
envelope on a connection that proved no key, and one on a seat's link in another key's name.
"""
from __future__ import annotations

from pathlib import Path

import msgpack
import pytest
from net_doubles import session_for_tests

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.wire import BadEnvelope, open_envelope, seal

GAME_ID = bytes(range(32))


def broken(envelope: bytes, key: bytes | None = None) -> bytes:
    """The envelope with its signature spoilt (and, given ``key``, in that key's name)."""
    kind, body, signer, signature = msgpack.unpackb(envelope)
    return msgpack.packb([kind, body, key or signer, signature[:-1] + bytes([signature[-1] ^ 1])], use_bin_type=True)


def ping(identity: Identity, seat: int, records: int) -> bytes:
    return seal(identity, "ping", {"game_id": GAME_ID, "seat": seat, "to": 1, "records": records, "away": []})


def test_open_envelope_skips_the_signature_only_of_the_proven_key() -> None:
    alice, bob = Identity.generate(), Identity.generate()
    spoilt = broken(ping(alice, 2, 7))
    with pytest.raises(BadEnvelope, match="ping: bad signature"):
        open_envelope(spoilt)
    with pytest.raises(BadEnvelope, match="ping: bad signature"):
        open_envelope(spoilt, proven=bob.public.sign_key)
    env = open_envelope(spoilt, proven=alice.public.sign_key)
    assert (env.kind, env.body["records"], env.key) == ("ping", 7, alice.public.sign_key)
    with pytest.raises(BadEnvelope, match="not msgpack"):
        open_envelope(b"\xc1", proven=alice.public.sign_key)  # the shape is still checked
    with pytest.raises(BadEnvelope, match="unknown kind"):
        open_envelope(msgpack.packb(["gossip", {}, alice.public.sign_key, bytes(64)]), proven=alice.public.sign_key)


def test_a_seats_own_envelope_on_its_link_is_taken_without_a_signature_check(tmp_path: Path) -> None:
    session, identities, said = session_for_tests(tmp_path)
    link_key = identities[2].public.dh_key  # what the CurveZMQ handshake of seat 2's link proved
    session._handle(b"link-of-2", broken(ping(identities[2], 2, 5)), link_key)
    assert session.records_of[2] == 5
    assert said == []


def test_a_spoilt_signature_still_counts_where_no_link_vouches(tmp_path: Path) -> None:
    """On a connection that proved no key, and in another seat's name on seat 2's link, a
    spoilt signature drops the envelope, reported as the connection's (never the named seat's)."""
    session, identities, said = session_for_tests(tmp_path)
    session._handle(b"unproven", broken(ping(identities[2], 2, 5)))
    in_seat_0s_name = broken(ping(identities[2], 0, 6), key=identities[0].public.sign_key)
    session._handle(b"link-of-2", in_seat_0s_name, identities[2].public.dh_key)
    assert session.records_of == {0: 0, 2: 0}
    assert said == [
        "dropped a bad message from an unidentified connection: ping: bad signature",
        "dropped a bad message from seat 2 (s2): ping: bad signature",
    ]
