"""Envelopes refused before they cost anything: a table's start that seats what it must not,
an outsider's messages, and messages built to exhaust memory."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from net_doubles import session_for_tests
from session_doubles import signed_start

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.lobby import SeatInfo, Table
from saboteur_p2p.net.wire import seal
from saboteur_p2p.rules import GameConfig


@pytest.mark.parametrize("shared, refused", [
    ("endpoint", "two seats have one endpoint"),
    # a link is known by the key it proves (net/links.py): one seat's traffic must never be
    # taken for another's
    ("dh_key", "two seats have one key"),
    ("sign_key", "two seats have one key"),
])
def test_a_start_with_two_seats_at_one_endpoint_or_with_one_key_is_refused(shared: str, refused: str) -> None:
    from saboteur_p2p.net.wire import BadEnvelope, open_envelope

    identities = [Identity.generate() for _ in range(3)]
    seats = [SeatInfo(f"s{n}", i.public.sign_key, i.public.dh_key, f"tcp://127.0.0.1:{n + 5}") for n, i in enumerate(identities)]
    seats[2] = dataclasses.replace(seats[2], **{shared: getattr(seats[1], shared)})
    nonces = (bytes(32), bytes([1]) * 32, bytes([2]) * 32)
    table = signed_start(identities, seats, nonces, GameConfig(3))
    with pytest.raises(BadEnvelope, match=refused):
        Table.from_envelope(open_envelope(seal(identities[0], "start", table.to_data())))


@pytest.mark.parametrize("forged", ["missing", "one short", "another nonce", "another seat's", "garbage", "the host's"])
def test_a_start_whose_seat_does_not_prove_its_link_key_is_refused(forged: str) -> None:
    """Every joiner checks each seat's link-key proof in ``start`` (the host's own too), so a
    host cannot seat a key its holder does not hold, which would stall the game."""
    from saboteur_p2p.net.wire import BadEnvelope, open_envelope

    identities = [Identity.generate() for _ in range(3)]
    seats = [SeatInfo(f"s{n}", i.public.sign_key, i.public.dh_key, f"tcp://127.0.0.1:{n + 5}") for n, i in enumerate(identities)]
    nonces = (bytes(32), bytes([1]) * 32, bytes([2]) * 32)
    honest = signed_start(identities, seats, nonces, GameConfig(3))
    proofs = list(honest.link_proofs)
    assert Table.from_envelope(open_envelope(seal(identities[0], "start", honest.to_data()))) == honest
    if forged == "missing":
        proofs = []
    elif forged == "one short":
        proofs = proofs[:2]
    elif forged == "another nonce":
        proofs[2] = identities[2].prove_link_key(bytes([9]) * 32)
    elif forged == "another seat's":
        proofs[2] = proofs[1]
    elif forged == "garbage":
        proofs[2] = bytes(96)
    else:
        proofs[0] = identities[1].prove_link_key(nonces[0])
    data = dict(honest.to_data(), link_proofs=proofs)
    with pytest.raises(BadEnvelope, match=r"link-key proof per seat|does not prove that it holds its link key"):
        Table.from_envelope(open_envelope(seal(identities[0], "start", data)))


def test_an_outsiders_envelopes_are_dropped_before_their_signature_is_checked_and_reported_once(tmp_path: Path) -> None:
    from saboteur_p2p.net.wire import BadEnvelope, open_envelope

    session, _, said = session_for_tests(tmp_path)
    outsider = Identity.generate()
    # (a kilobyte of padding: a megabyte would spend the budget of the connections that prove
    # no key at once, test_message_budget)
    chat = seal(outsider, "chat", {"game_id": bytes(range(32)), "seat": 0, "text": "x", "padding": bytes(1 << 10)})
    forged = chat[:-1] + bytes([chat[-1] ^ 1])  # a broken signature: refused before it is checked
    with pytest.raises(BadEnvelope, match="chat from a key that may not send it"):
        open_envelope(forged, session._admits)
    for data in (chat, forged, chat):
        assert session._handle(b"outsider", data) is None
    reports = [line for line in said if "unidentified connection" in line]
    assert reports == ["dropped a bad message from an unidentified connection: chat from a key that may not send it"]
    hello_from_outsider = seal(outsider, "hello", {"version": 2})  # anyone may say hello (it is answered)
    session.transport = type("Replies", (), {"reply": lambda self, c, d: said.append(f"replied {len(d)}")})()
    assert session._handle(b"outsider", hello_from_outsider) is None
    assert said[-1].startswith("replied")


def test_an_envelope_of_millions_of_empty_containers_is_refused_before_it_is_built() -> None:
    import msgpack

    from saboteur_p2p.net.wire import MAX_WIRE_MESSAGE, BadEnvelope, open_envelope

    # 5 MiB of empty maps would take about 300 MiB and half a second to build: a seat on its
    # own proven link (no signature check) could send one a poll
    seat = Identity.generate()
    body = {f"k{i}": [{}] * 100_000 for i in range(52)}
    data = msgpack.packb(["ping", body, seat.public.sign_key, bytes(64)], use_bin_type=True)
    assert len(data) <= MAX_WIRE_MESSAGE
    with pytest.raises(BadEnvelope, match="more than 64 arrays and maps"):
        open_envelope(data, proven=seat.public.sign_key)
    # by kind: a ping holds a few, an ahead a shares map of up to three lists of 4,096 shares
    # (a 100 KB ping of empty arrays took 20 ms to decode, each one counted: an attack)
    fine = msgpack.packb(["ping", {"k": [{}] * 60}, seat.public.sign_key, bytes(64)], use_bin_type=True)
    assert len(open_envelope(fine, proven=seat.public.sign_key).body["k"]) == 60
    bomb = msgpack.packb(["ping", {"k": [[]] * 99_990}, seat.public.sign_key, bytes(64)], use_bin_type=True)
    with pytest.raises(BadEnvelope, match="more than 64 arrays and maps"):
        open_envelope(bomb, proven=seat.public.sign_key)
    shares = msgpack.packb(["ahead", {"k": [[{}, {}]] * 8000}, seat.public.sign_key, bytes(64)], use_bin_type=True)
    assert len(open_envelope(shares, proven=seat.public.sign_key).body["k"]) == 8000
    too_many = msgpack.packb(["ahead", {"k": [[]] * 30_000}, seat.public.sign_key, bytes(64)], use_bin_type=True)
    with pytest.raises(BadEnvelope, match="more than 24592 arrays and maps"):
        open_envelope(too_many, proven=seat.public.sign_key)


def test_an_ending_in_the_same_poll_as_the_games_last_record_stops_nothing(tmp_path: Path) -> None:
    """A `bye` or `gone` read after the game's last record, even in the same poll, is heard
    as while the seat lingers after the end: the game stays finished (found by an attack:
    it was judged as an ending, and a finished game was saved as stopped early)."""
    from saboteur_p2p.net.transport import Inbound

    session, identities, said = session_for_tests(tmp_path)
    game_id = bytes(range(32))
    gone = seal(identities[0], "gone", {"game_id": game_id, "seat": 0, "absent": 1, "why": "x"})
    bye = seal(identities[2], "bye", {"game_id": game_id, "seat": 2})
    session.node.finished = True
    for data in (gone, bye):
        assert session._take_inbound(Inbound(b"conn", data)) is None
    assert not any("ended the game" in line or "left the table" in line for line in said), said
