"""Two seats give one endpoint in their ``link`` (protocol.md §12.1).  An attack: a hostile
seat read a rejoining seat's new endpoint from its hello and at once gave it as its own; the
others followed it there, then refused the true owner's word as "the endpoint of" the liar,
naming the honest seat, and never reached it.  The first word is now judged by our link
there: refused by the key found there, it is withdrawn and the seat reached where it was."""
from __future__ import annotations

from pathlib import Path

from session_doubles import SentLog, listening_seat

from saboteur_p2p.net.dialer import WRONG_KEY
from saboteur_p2p.net.relink import RELINK_EVERY

CLAIMED = "tcp://127.0.0.1:7777"


def _claimed_first_by_seat_2(tmp_path: Path):  # type: ignore[no-untyped-def]
    _, session, said, _ = listening_seat(tmp_path)
    transport = session.transport
    assert isinstance(transport, SentLog)
    before = dict(session.endpoints)
    session._relink(2, CLAIMED, 5, now=100.0)  # the liar's word comes first: followed
    assert session.endpoints[2] == CLAIMED
    session._relink(1, CLAIMED, 5, now=100.5)  # the owner's: our link there has not answered yet
    assert session.endpoints[1] == before[1] and session.pending_links[1] == (CLAIMED, 5)
    return session, transport, said, before


def test_an_endpoint_claimed_first_by_a_seat_whose_key_does_not_answer_there_goes_to_the_second(tmp_path: Path) -> None:
    session, transport, said, before = _claimed_first_by_seat_2(tmp_path)
    transport.refusals[CLAIMED] = "no handshake within 10 s"  # proves nothing: a busy or flaky link
    session._follow_pending_links(100.5 + RELINK_EVERY)
    assert session.endpoints[2] == CLAIMED and session.pending_links[1] == (CLAIMED, 5)
    transport.refusals[CLAIMED] = WRONG_KEY
    session._follow_pending_links(100.5 + 2 * RELINK_EVERY)
    assert session.endpoints == {1: CLAIMED, 2: before[2]}  # the liar is reached where it was
    assert any(line.startswith(f"{session.names[2]} (seat 2) gave the endpoint {CLAIMED}, where another key answers")
               for line in said), said
    assert not any("gave the endpoint of" in line for line in said), said


def test_an_endpoint_where_the_first_seat_answers_stays_its_own(tmp_path: Path) -> None:
    session, transport, said, before = _claimed_first_by_seat_2(tmp_path)
    del transport.replacing[CLAIMED]  # seat 2's key took our link there: the second word is false
    session._follow_pending_links(100.5 + RELINK_EVERY)
    assert session.endpoints == {1: before[1], 2: CLAIMED}
    assert f"{session.names[1]} gave the endpoint of {session.names[2]} (seat 2); ignored" in said


def test_a_handshake_the_server_swept_as_too_slow_is_not_read_as_another_key(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A dialer busy past the server's HANDSHAKE_S had its handshake closed by the server's
    sweep, which read as "it does not hold the key we dialled": one hostile claim then sent an
    honest seat back to its dead endpoint (found by review).  A server that holds another key
    still reads so."""
    import time

    from saboteur_p2p.crypto.identity import Identity
    from saboteur_p2p.net import dialer, zmtp
    from saboteur_p2p.net.transport import Transport

    monkeypatch.setattr(zmtp, "HANDSHAKE_S", 0.5)
    monkeypatch.setattr(dialer, "HANDSHAKE_S", 0.5)
    server_id, client_id = Identity.generate(), Identity.generate()
    server = Transport("127.0.0.1:0", link_keys=server_id.link_keys())
    busy = Transport("127.0.0.1:0", link_keys=client_id.link_keys())
    wrong = Transport("127.0.0.1:0", link_keys=client_id.link_keys())
    try:
        server.admit_links({server_id.public.dh_key, client_id.public.dh_key})
        endpoint = server.link_endpoint
        busy.connect(endpoint, server_key=server_id.public.dh_key)  # the right key, then busy
        end = time.monotonic() + 1.5
        while time.monotonic() < end:
            server.poll(0.05)
        for _ in range(40):
            busy.poll(0.05)
            server.poll(0.01)
            if busy.refused(endpoint):
                break
        assert busy.refused(endpoint) and not busy.wrong_key(endpoint)
        wrong.connect(endpoint, server_key=Identity.generate().public.dh_key)  # another key, at once
        for _ in range(40):
            wrong.poll(0.02)
            server.poll(0.01)
            if wrong.refused(endpoint):
                break
        assert wrong.wrong_key(endpoint), wrong.refused(endpoint)
    finally:
        for transport in (busy, wrong, server):
            transport.close()
