"""A seat that comes back takes the other seats' endpoints from a start one seat signed (§12.1,
§12.2).  An attack: a hostile host gave a rejoining seat false endpoints for the other joiner
and passed nothing on between them; the two honest seats never heard each other and named
each other gone, the host nobody.  The seat now also links where each seat's own signed
hello says it listened, so a seat still there hears it and follows it."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
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


def _table(seats_count: int = 3):  # type: ignore[no-untyped-def]
    identities = [Identity.generate() for _ in range(seats_count)]
    seats = [SeatInfo(f"s{n}", i.public.sign_key, i.public.dh_key, f"tcp://127.0.0.1:{n + 5}") for n, i in enumerate(identities)]
    nonces = tuple(bytes([n]) * 32 for n in range(seats_count))
    return identities, seats, signed_start(identities, seats, nonces, GameConfig(seats_count))


def test_a_running_games_start_must_carry_each_seats_own_hello_though_its_seat_moved() -> None:
    """The host left junk (or another seat's hello) where a seat's hello goes: the seat that
    came back had no endpoint of that seat's own word to link to (found by review)."""
    from saboteur_p2p.net.wire import BadEnvelope

    _, seats, honest = _table()
    moved = dataclasses.replace(honest, seats=(seats[0], dataclasses.replace(seats[1], endpoint="tcp://127.0.0.1:4999"),
                                               seats[2]))
    moved.check_hellos(running=True)  # a seat that moved since is as its hello says, but for where
    with pytest.raises(BadEnvelope):
        moved.check_hellos()  # (a new game's start: every field, the endpoint too)
    for hellos in ((b"junk", honest.hellos[1]), (honest.hellos[1], honest.hellos[1])):
        with pytest.raises(BadEnvelope, match="seat 1"):
            dataclasses.replace(moved, hellos=hellos).check_hellos(running=True)


def test_a_seat_that_came_back_links_each_seat_at_its_own_endpoint_when_the_start_swaps_two(tmp_path: Path) -> None:
    identities, seats, honest = _table(4)
    swapped = dataclasses.replace(honest, seats=(seats[0], dataclasses.replace(seats[1], endpoint=seats[2].endpoint),
                                                 dataclasses.replace(seats[2], endpoint=seats[1].endpoint), seats[3]))
    session, _ = _seat_2_of(swapped, tmp_path, identities[3], resuming=True)
    assert session.endpoints == {0: seats[0].endpoint, 1: seats[1].endpoint, 2: seats[2].endpoint}


def test_another_seats_word_cannot_take_the_link_to_where_a_seat_began(tmp_path: Path) -> None:
    """A host that gave a false endpoint for seat 1, then said seat 1's own endpoint was its
    new one: followed, it took the link we had opened to seat 1 there (found by review)."""
    identities, seats, honest = _table()
    forged = dataclasses.replace(honest, seats=(seats[0], dataclasses.replace(seats[1], endpoint="tcp://127.0.0.1:4999"),
                                                seats[2]))
    said: list[str] = []
    session, _ = _seat_2_of(forged, tmp_path, identities[2], resuming=True)
    session.say = said.append  # type: ignore[method-assign]
    session._relink(0, seats[1].endpoint, 10**20, now=100.0)
    assert session.endpoints[0] == seats[0].endpoint
    assert said == ["s0 gave the endpoint where s1 (seat 1) began the game; ignored"]


def test_mending_swapped_endpoints_never_puts_two_seats_at_one(tmp_path: Path) -> None:
    """Seat 0 (which has no hello) given seat 1's own endpoint, seat 1 seat 2's, seat 2 junk:
    moving seat 1 to its own put it with seat 0, and one link per endpoint left seat 1
    never dialled with its own key (found by review).  Then nothing is moved."""
    identities, seats, honest = _table(4)
    rotated = dataclasses.replace(honest, seats=(dataclasses.replace(seats[0], endpoint=seats[1].endpoint),
                                                 dataclasses.replace(seats[1], endpoint=seats[2].endpoint),
                                                 dataclasses.replace(seats[2], endpoint="tcp://127.0.0.1:4999"), seats[3]))
    session, _ = _seat_2_of(rotated, tmp_path, identities[3], resuming=True)
    assert session.endpoints == {0: seats[1].endpoint, 1: seats[2].endpoint, 2: "tcp://127.0.0.1:4999"}


def test_the_start_a_seat_serves_gives_the_endpoints_it_reaches_the_seats_at_now(tmp_path: Path) -> None:
    """A seat's start for a rejoiner gave the game's first endpoints, whatever links had
    moved since: a seat that had come back on another port was reached only through relays
    (found by review)."""
    from saboteur_p2p.net.table import Table
    from saboteur_p2p.net.wire import seal

    identities, seats, honest = _table()
    transport = SentLog()
    session = Session(honest, identities[0], transport, None, tmp_path, lambda text: None)  # type: ignore[arg-type]
    session._relink(1, "tcp://127.0.0.1:7001", 10**20, now=100.0)  # seat 1 came back on another port
    session._answer_hello(b"conn", open_envelope(seal(identities[2], "hello", {})), 2)
    served = Table.from_envelope(open_envelope(transport.sent[-1][1]))
    assert [seat.endpoint for seat in served.seats] == ["tcp://127.0.0.1:9", "tcp://127.0.0.1:7001", seats[2].endpoint]
    served.check_hellos(running=True)  # the hellos as they were said
