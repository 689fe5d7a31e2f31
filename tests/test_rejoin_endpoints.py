"""A seat that comes back takes the other seats' endpoints from a start one seat signed (§12.1,
§12.2).  An attack: a hostile host gave a rejoining seat false endpoints for the other joiner
and passed nothing on between them; the two honest seats never heard each other and named
each other gone, the host nobody.  The seat now also links where each seat's own signed
hello says it listened, so a seat still there hears it and follows it."""
from __future__ import annotations

import dataclasses
from pathlib import Path

from session_doubles import SentLog, signed_start

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.lobby import SeatInfo
from saboteur_p2p.net.session import Session
from saboteur_p2p.net.wire import open_envelope
from saboteur_p2p.rules import GameConfig


def _seat_2_of(table, tmp_path: Path, identity: Identity, resuming: bool) -> tuple[Session, SentLog]:  # type: ignore[no-untyped-def]
    transport = SentLog()
    session = Session(table, identity, transport, None, tmp_path, lambda text: None, resuming=resuming)  # type: ignore[arg-type]
    session._link_all()
    return session, transport


def test_a_seat_that_came_back_links_where_each_seat_said_it_listens_as_well(tmp_path: Path) -> None:
    identities = [Identity.generate() for _ in range(3)]
    seats = [SeatInfo(f"s{n}", i.public.sign_key, i.public.dh_key, f"tcp://127.0.0.1:{n + 5}") for n, i in enumerate(identities)]
    nonces = (bytes(32), bytes([1]) * 32, bytes([2]) * 32)
    honest = signed_start(identities, seats, nonces, GameConfig(3))
    # the host's start for the seat that came back: seat 1 moved, says the host (a lie)
    forged = dataclasses.replace(honest, seats=(seats[0], dataclasses.replace(seats[1], endpoint="tcp://127.0.0.1:4999"),
                                                seats[2]))
    session, transport = _seat_2_of(forged, tmp_path / "back", identities[2], resuming=True)
    assert session.endpoints[1] == "tcp://127.0.0.1:4999"  # the start's word is still followed
    links = {endpoint: open_envelope(data) for endpoint, data in transport.sent}
    # ... and seat 1 also hears our link where its own hello says it listens, so it follows us
    said = links["tcp://127.0.0.1:6"]
    assert said.kind == "link" and said.body["to"] == 1 and said.body["seat"] == 2
    assert "tcp://127.0.0.1:6" in transport.connected
    assert set(links) == {"tcp://127.0.0.1:5", "tcp://127.0.0.1:4999", "tcp://127.0.0.1:6"}

    # a new game's seat links where the start says, once each (its start was checked hello by hello)
    _, fresh = _seat_2_of(honest, tmp_path / "new", identities[2], resuming=False)
    assert sorted(endpoint for endpoint, _ in fresh.sent) == ["tcp://127.0.0.1:5", "tcp://127.0.0.1:6"]
