"""Hostile peers: inputs that crashed a peer, a spectator or ``verify``, stalled a session for
ever without naming anyone, or could fill a peer's memory.  Each test was written failing,
before its fix."""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
import zmq
from clocked_sessions import clocked_session
from net_doubles import watch_requests
from protocol_helpers import dealt_game, play_until, seeded_game
from session_doubles import listening_seat, seated_session
from test_network import free_port

from saboteur_p2p.crypto.log import GENESIS, make_entry
from saboteur_p2p.net.links import NOTICE_BURST, NOTICE_EVERY
from saboteur_p2p.net.presence import BUSY_MAX
from saboteur_p2p.net.session import Outcome
from saboteur_p2p.net.watch import WATCH_EVERY, WatchFailed, watch_table
from saboteur_p2p.net.wire import seal
from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import GameConfig


def _genesis_with(game: LocalGame, **changes: Any) -> bytes:
    """A genesis record validly signed by seat 0, with fields of its body replaced."""
    body = game.setup.genesis().encode()
    body.update(changes)
    identity = game.nodes[0].identity
    assert identity is not None
    return make_entry(identity, game.setup.game_id, 0, 0, GENESIS, "genesis", body).record


# -- a genesis whose config is not what it should be -------------------------------------


@pytest.mark.parametrize("config", [
    {"players": float("inf")},
    {"players": 3, "rounds": float("-inf")},
])
def test_verify_refuses_a_genesis_whose_config_holds_an_infinite_number_and_does_not_crash(config: dict[str, Any]) -> None:
    """A log's genesis whose config says ``players: inf`` made ``int()`` raise OverflowError,
    which ``replay_records`` did not catch: ``saboteur-p2p verify`` died with a traceback on a
    hostile log file (NaN, a ValueError, was refused cleanly)."""
    game = seeded_game(GameConfig(3), 5)
    verdict = verify_records([_genesis_with(game, config=config)])
    assert not verdict.ok and verdict.culprit == 0
    assert "not a valid genesis record" in verdict.message


@pytest.mark.parametrize("changes", [
    {"players_extra": 1},                 # a field the genesis does not have
    {"names": ["", "b", "c"]},            # a name a genesis may not hold
    {"table": b"x"},                      # a table salt of the wrong size
    {"config": {"players": 4}},           # a config that does not fit the seats
])
def test_a_wrong_genesis_signed_by_seat_0_names_seat_0_whatever_is_wrong_in_it(changes: dict[str, Any]) -> None:
    """protocol.md §4.8: a genesis names seat 0 if seat 0 signed it.  verify read seat 0's key
    through the whole genesis, so a genesis wrong anywhere but its config named nobody (a
    wrong player count named seat 0): one signer, blamed or not by where the mistake was."""
    game = seeded_game(GameConfig(3), 5)
    verdict = verify_records([_genesis_with(game, **changes)])
    assert not verdict.ok and verdict.culprit == 0, verdict.message
    fingerprint = game.setup.seats[0].fingerprint()  # the key the record names, for a person to compare
    assert verdict.message.startswith(f"record 0: not a valid genesis record, signed by seat 0 (the host, {fingerprint}): ")
    # the same body signed by another key is nobody's
    body = game.setup.genesis().encode()
    body.update(changes)
    other = game.nodes[1].identity
    assert other is not None
    forged = verify_records([make_entry(other, game.setup.game_id, 0, 0, GENESIS, "genesis", body).record])
    assert not forged.ok and forged.culprit is None and "not signed by the seat 0 it names" in forged.message
    # and a genesis of another protocol version proves nothing, as any record of one
    identity = game.nodes[0].identity
    assert identity is not None
    with mock.patch("saboteur_p2p.crypto.log.PROTOCOL_VERSION", 99):
        other_version = make_entry(identity, game.setup.game_id, 0, 0, GENESIS, "genesis", body).record
    assert verify_records([other_version]).culprit is None


def test_a_genesis_seat_0_signed_after_another_record_names_seat_0() -> None:
    """Nothing comes before a genesis: one seat 0 signed with another prev than the empty
    log's was blamed on the file ("the file misses, repeats or reorders records")."""
    game = seeded_game(GameConfig(3), 5)
    identity = game.nodes[0].identity
    assert identity is not None
    body = game.setup.genesis().encode()
    misplaced = make_entry(identity, game.setup.game_id, 0, 0, b"\x01" * 32, "genesis", body).record
    verdict = verify_records([misplaced])
    assert not verdict.ok and verdict.culprit == 0, verdict.message
    assert verdict.message.startswith("record 0: chain by seat 0 (") and "proves nothing" not in verdict.message
    other = game.nodes[1].identity
    assert other is not None  # the same, signed by another key, is nobody's
    forged = make_entry(other, game.setup.game_id, 0, 0, b"\x01" * 32, "genesis", body).record
    assert verify_records([forged]).culprit is None


def _fake_seat(port: int, records: list[bytes], stop: threading.Event, once: bool = False) -> threading.Thread:
    """A seat's table ROUTER on loopback that answers every ``watch`` (or only the first)
    with ``watching`` and the given records (a hostile seat feeding a spectator)."""
    from saboteur_p2p.crypto.identity import Identity

    identity = Identity.generate()
    watching = seal(identity, "watching", {"game_id": b"\0" * 32, "records": 1})
    return _fake_table(port, stop, [watching, *(seal(identity, "record", {"record": r}) for r in records)], once)


def _fake_table(port: int, stop: threading.Event, messages: list[bytes], once: bool = False) -> threading.Thread:
    """A table's ROUTER on loopback that answers every ``watch`` (or only the first) with ``messages``."""
    context = zmq.Context.instance()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    router.bind(f"tcp://127.0.0.1:{port}")

    def run() -> None:
        try:
            for connection in watch_requests(router, stop):
                for message in messages:
                    router.send_multipart([connection, message])
                if once:
                    stop.wait()
                    return
        finally:
            router.close(linger=0)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("change", [
    {"config": {"players": 4}},  # 3 seats and 3 names for 4 players: Node() refuses the setup
    {"config": {"players": float("inf")}},
])
def test_a_spectator_fed_a_bad_genesis_drops_it_and_fails_only_with_watch_failed(change: dict[str, Any]) -> None:
    """The seat a spectator watches is untrusted.  A genesis whose setup decodes but does not
    make a game (``Node(setup)`` raises ValueError), or whose config overflows ``int()``,
    escaped ``watch_table`` as a bare exception (the CLI catches only WatchFailed there): the
    spectator died instead of dropping the record and waiting for a genesis."""
    game = seeded_game(GameConfig(3), 5)
    bad = _genesis_with(game, **change)
    port = free_port()
    stop = threading.Event()
    seat = _fake_seat(port, [bad], stop)
    said: list[str] = []
    started = time.monotonic()
    try:
        with pytest.raises(WatchFailed):
            watch_table(f"127.0.0.1:{port}", lambda node: None, said.append, connect_timeout=1.5, quiet_timeout=3.0)
    finally:
        stop.set()
        seat.join(5)
    assert time.monotonic() - started < 10


def test_a_spectator_reads_the_game_only_from_a_genesis_its_seat_0_signed() -> None:
    """A hostile table sent a copy of the real genesis with one variant changed, signed by
    another key, then the real log: the spectator set up the game from the copy, dropped it
    as badly signed, and then named the honest host for its real genesis ('bad-genesis')."""
    game = dealt_game(GameConfig(3), 5)
    body = game.setup.genesis().encode()
    body["config"] = {**body["config"], "variants": ["selfish-dwarf"]}
    other = game.nodes[1].identity
    assert other is not None
    forged = make_entry(other, game.setup.game_id, 0, 0, GENESIS, "genesis", body).record
    port = free_port()
    stop = threading.Event()
    seat = _fake_seat(port, [forged, *game.records], stop, once=True)
    said: list[str] = []
    try:
        with pytest.raises(WatchFailed, match="went quiet"):  # the honest log, up to its first move, then nothing
            watch_table(f"127.0.0.1:{port}", lambda node: None, said.append, connect_timeout=5, quiet_timeout=1.0)
    finally:
        stop.set()
        seat.join(5)
    assert any("not a genesis signed by its seat 0" in line for line in said)


def test_verify_names_seat_0_for_a_genesis_it_signed_with_a_key_agreement_key_of_small_order() -> None:
    """Seat 0's fingerprint could not be made of an all-zero X25519 key: verify ended with
    'error: PublicIdentity.dh_key: ...' (exit 2) and named nobody."""
    game = seeded_game(GameConfig(3), 5)
    body = game.setup.genesis().encode()
    seats = [list(keys) for keys in body["seats"]]
    seats[0][1] = bytes(32)
    verdict = verify_records([_genesis_with(game, seats=seats)])
    assert not verdict.ok and verdict.culprit == 0
    assert verdict.message.startswith("record 0: not a valid genesis record, signed by seat 0 (the host, signing key ")


def test_a_verdicts_evidence_is_judged_on_a_copy_of_the_replayed_game() -> None:
    """A log cut short with a verdict whose 'evidence' is the log's next, valid record:
    judging it took that record into the replayed game, and replay showed its move as the log's."""
    from saboteur_p2p.protocol.ending import Ending
    from saboteur_p2p.protocol.verify import replay_records

    game = dealt_game(GameConfig(3), 5)
    play_until(game, lambda e: e.kind == "action" and len(game.records) > 12)
    records = list(game.records)
    cut = len(records) - 3
    trailer = Ending("cheater", records_sender(records[cut]), "illegal-action", evidence=records[cut], seat=1)
    verdict, node = replay_records([*records[:cut], trailer.to_bytes()])
    assert node is not None and len(node.records) == cut
    assert "its evidence does not show it" in verdict.message


def records_sender(record: bytes) -> int:
    from saboteur_p2p.crypto.log import decode_record

    return decode_record(record).sender


def test_a_table_that_floods_a_spectator_with_bad_messages_gets_a_few_short_notices() -> None:
    """Each bad envelope from the seat watched was one notice, quoting the message's kind in
    full (up to 64 KiB): a fake table grew the full-screen viewer's list of notices by
    gigabytes.  Now 20 at once, each cut short, and then how many were kept back."""
    port = free_port()
    stop = threading.Event()
    seat = _fake_table(port, stop, [b"\xa9" + b"not an envelope" * 500] * 500)
    said: list[str] = []
    try:
        with pytest.raises(WatchFailed):
            watch_table(f"127.0.0.1:{port}", lambda node: None, said.append, connect_timeout=1.5, quiet_timeout=3.0)
    finally:
        stop.set()
        seat.join(5)
    bad = [line for line in said if "dropped a bad message" in line]
    assert 1 <= len(bad) <= 20 + 4 and all(len(line) <= 300 for line in bad)  # the burst, then one a second
    assert said[-1].endswith("more such notices were kept back")


def test_a_spectator_fed_records_that_never_join_the_game_gives_up() -> None:
    """A seat answered every watch with records naming a head that never came: each arrival
    reset the spectator's quiet time, so it kept a core busy checking them for ever and said
    nothing (found by an attack; with ``watching`` sent too, by review).  Held back for the
    quiet time with none taken in, they end the watch."""
    from saboteur_p2p.crypto.identity import Identity

    game = dealt_game(GameConfig(3), 5)
    records = game.records
    parked = records[12:]  # record 11 never comes: the rest wait for it
    identity = Identity.generate()
    port = free_port()
    stop = threading.Event()
    watching = seal(identity, "watching", {"game_id": game.setup.game_id, "records": len(records)})
    seat = _fake_table(port, stop, [watching, *(seal(identity, "record", {"record": r}) for r in [*records[:11], *parked])])
    failed: list[str] = []

    def spectate() -> None:
        try:
            # quiet for longer than the spectator's watch comes (each drew the records again)
            watch_table(f"127.0.0.1:{port}", lambda node: None, lambda text: None, connect_timeout=5,
                        quiet_timeout=2 * WATCH_EVERY + 1)
        except WatchFailed as exc:
            failed.append(str(exc))

    spectator = threading.Thread(target=spectate, daemon=True)
    try:
        spectator.start()
        spectator.join(20)
    finally:
        stop.set()
        seat.join(5)
    assert not spectator.is_alive() and failed and "records that do not follow the game" in failed[0], failed


# -- busy notices that never end ----------------------------------------------------------


def test_a_seat_that_keeps_saying_busy_cannot_withhold_a_protocol_record_for_ever(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat owes a protocol record (its key share), keeps pinging, and sends ``busy`` with
    60 s every 30 s.  Each busy moved the start of its silence 60 s on, so the withheld-record
    rule (``--wait`` from the later of the head's change and the end of the last busy) never
    fired: the table waited for ever and named nobody.  One step's busy credit must be bounded
    (at most BUSY_MAX past the head's change), so the seat is named after wait + BUSY_MAX."""
    game = seeded_game(GameConfig(3), 5)
    head = play_until(game, lambda e: e.speaker == 1 and e.kind != "action" and len(game.spectator.outstanding) == 1)
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    gid = game.setup.game_id
    staller, other = game.nodes[1].identity, game.nodes[2].identity
    assert staller is not None and other is not None
    records = len(session.node.records)
    result = None
    started = clock.now
    while clock.now - started < 600 and result is None:
        for seat, identity in ((1, staller), (2, other)):
            ping = {"game_id": gid, "seat": seat, "to": 0, "records": records, "got": [], "away": [], "t": 0, "done": False}
            assert session._handle(b"L%d" % seat, seal(identity, "ping", ping)) is None
        if int((clock.now - started) * 2) % 60 == 0:  # every 30 s
            busy = {"game_id": gid, "seat": 1, "seconds": BUSY_MAX}
            assert session._handle(b"L1", seal(staller, "busy", busy)) is None
        result = session._check_gone(clock.now)
        clock.now += 0.5
    assert result is not None, f"the table waited {clock.now - started:.0f} s for seat 1's {head.kind} and named nobody"
    assert (result.outcome, result.culprit) == (Outcome.PEER_GONE, 1)
    assert clock.now - started <= session.wait + BUSY_MAX + 2


# -- envelopes relayed by another seat ----------------------------------------------------


def test_a_seat_that_relays_another_seats_link_or_ping_on_its_own_link_is_named_and_gains_nothing(tmp_path: Path) -> None:
    """Seat 2 relays, on its own link, the ``link`` and a ``ping`` seat 1 sent it, then sends
    garbage there.  The victim once mapped a connection to the last seat whose ``link`` came
    on it, so it reported the garbage as seat 1's, and seat 1's relayed pings made it look
    present.  A link proves its seat's key (CurveZMQ): what another seat signed is dropped on
    it, and the relayer is the one named.  Where no link vouches (a peer without a link
    endpoint), the relayed ping names seat 2 as its recipient, not us: it counts for nothing."""
    game = dealt_game(GameConfig(3), 5)
    session = seated_session(game, game.nodes[0], tmp_path)
    said: list[str] = []
    session.say = said.append
    gid = game.setup.game_id
    honest, hostile = game.nodes[1].identity, game.nodes[2].identity
    assert honest is not None and hostile is not None
    proven = hostile.public.dh_key  # the key seat 2's link proved in its handshake
    own_link = {"game_id": gid, "seat": 2, "to": 0, "endpoint": session.endpoints[2], "incarnation": 1}
    assert session._handle(b"Lhostile", seal(hostile, "link", own_link), proven) is None
    assert not said
    # what seat 1 sent seat 2 (its endpoint as seat 0 knows it: nothing to relink)
    relayed = seal(honest, "link", {"game_id": gid, "seat": 1, "to": 2, "endpoint": session.endpoints[1], "incarnation": 1})
    heard_before = dict(session.presence.last_heard)
    assert session._handle(b"Lhostile", relayed, proven) is None
    ping = {"game_id": gid, "seat": 1, "to": 2, "records": len(session.node.records), "got": [], "away": [], "t": 0,
            "done": False}
    assert session._handle(b"Lhostile", seal(honest, "ping", ping), proven) is None
    assert session.presence.last_heard[1] == heard_before[1], "seat 1 was heard through seat 2's relay"
    assert session._handle(b"Lhostile", b"\xc1garbage", proven) is None
    assert said == [
        f"dropped a link signed by {session.names[1]} (seat 1) that {session.names[2]} (seat 2) relayed on its link",
        f"dropped a bad message from seat 2 ({session.names[2]}): not msgpack: FormatError",
    ], said
    # on a peer without a link endpoint (this one's stand-in transport), a connection that
    # proves no key is known by the seat that signs on it: seat 1's ping to seat 2, relayed
    # there, still counts for nothing; its ping to us counts
    assert session._handle(b"table", seal(honest, "ping", ping)) is None
    assert session.presence.last_heard[1] == heard_before[1], "a ping to seat 2 made seat 1 look present to us"
    assert session._handle(b"table", seal(honest, "ping", {**ping, "to": 0})) is None
    assert session.presence.last_heard[1] > heard_before[1]


def test_an_ending_of_an_earlier_game_passed_on_by_another_seat_does_not_clear_its_signer(tmp_path: Path) -> None:
    """Endings (bye, abort, gone) are their signer's word whoever carries them (§12.5), and a
    seat heard signing for another game is excused when the game ends for its silence.  Seat 2
    passed on, on its own link, a ``bye`` seat 1 signed in a game the two played before: seat 1
    was excused, and the host suspected of starting two games (found by an attack).  Only what
    comes on the signer's own link says it plays another game."""
    game = dealt_game(GameConfig(3), 5)
    session = seated_session(game, game.nodes[0], tmp_path)
    said: list[str] = []
    session.say = said.append
    honest, hostile = game.nodes[1].identity, game.nodes[2].identity
    assert honest is not None and hostile is not None
    earlier = bytes(32 * [7])
    old_bye = seal(honest, "bye", {"game_id": earlier, "seat": 1})
    assert session._handle(b"Lhostile", old_bye, hostile.public.dh_key) is None
    assert not [line for line in said if "another game" in line], said
    assert session._end_gone(1, "seat 1 did not come back").message.find("not to blame") < 0
    # on seat 1's own link it is seat 1's own doing, as before
    assert session._handle(b"Lhonest", old_bye, honest.public.dh_key) is None
    assert [line for line in said if "another game" in line], said


def test_a_seats_envelopes_replayed_at_the_table_endpoint_do_not_make_it_look_present(tmp_path: Path) -> None:
    """A spectator is fed ``record`` envelopes signed by the seat it watches, in the clear at
    that seat's table endpoint (protocol.md section 12.8), so anyone on the LAN can hold
    envelopes a seat signed, and a hostile seat holds its pings.  Once the seats talk on
    encrypted links, a seat sends nothing at another's table endpoint but a ``hello``; yet an
    envelope signed by a seat that came there (or back on a DEALER we opened) counted as that
    seat heard: replayed there every few seconds, a seat that had vanished never looked away
    (a move it owed was waited for for ever), and a seat that said it was gone was blamed,
    since the vanished one was "still heard here"."""
    from saboteur_p2p.net.transport import Transport

    game = dealt_game(GameConfig(3), 5)
    me, vanished = game.nodes[0].identity, game.nodes[1].identity
    assert me is not None and vanished is not None
    transport = Transport("127.0.0.1:0", link_keys=me.link_keys())
    try:
        session = seated_session(game, game.nodes[0], tmp_path, transport)
        said: list[str] = []
        session.say = said.append
        fed = seal(vanished, "record", {"record": session.node.records[0]})  # what seat 1 fed a spectator
        ping = seal(vanished, "ping", {"game_id": game.setup.game_id, "seat": 1, "to": 0, "records": len(session.node.records),
                                       "got": [], "away": [], "t": 0, "done": False})  # relayed by seat 2
        heard, count = session.presence.last_heard[1], session.presence.count[1]
        for connection in (b"\0table", b"dealer:" + session.endpoints[2].encode()):
            for data in (fed, ping):
                assert session._handle(connection, data) is None
        assert (session.presence.last_heard[1], session.presence.count[1]) == (heard, count), "seat 1 heard through a replay"
        assert said and "seat 1" in said[0] and "proved no key" in said[0], said
        # on its own link, seat 1 is heard as ever
        assert session._handle(b"Lseat1", ping, vanished.public.dh_key) is None
        assert session.presence.count[1] == count + 1
    finally:
        transport.close()


def test_a_seat_that_opens_connection_after_connection_does_not_grow_the_table_of_links_without_bound(tmp_path: Path) -> None:
    """Every connection a seat signs on is remembered (``links``: connection id -> seat), and
    nothing forgot one: a seat that reconnects again and again (a new connection id each time,
    one ping on each) grew the victim's memory for as long as the game lasts."""
    game, session, _, hostile = listening_seat(tmp_path)
    ping = seal(hostile, "ping", {"game_id": game.setup.game_id, "seat": 2, "to": session.seat,
                                  "records": len(session.node.records), "got": [], "away": [], "t": 0, "done": False})
    for n in range(3000):
        assert session._handle(b"L" + n.to_bytes(4, "big"), ping) is None
    assert len(session.links) <= 1000, f"{len(session.links)} connections remembered for one seat"


# -- one ZeroMQ message of many frames ------------------------------------------------------


def _rss_mib() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024
    return 0


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmRSS from /proc")
@pytest.mark.slow
def test_an_outsider_cannot_make_the_table_hold_a_multipart_message_of_unbounded_size() -> None:
    """A ZeroMQ ROUTER bounded one *frame* (MAXMSGSIZE) and the number of *complete messages*
    (RCVHWM), and buffered every frame of a multipart message until its last one: anyone who
    could reach the table's address (no key needed) sent one message of 1500 frames of 60 KB
    and the table held 90 MB for it.  The table's own listener (net/zmtp.py) reads all of it
    here, polled as the session polls, and holds no more than its limit."""
    import subprocess
    import sys

    from saboteur_p2p.crypto.identity import Identity
    from saboteur_p2p.net.transport import Transport

    transport = Transport("127.0.0.1:0", link_keys=Identity.generate().link_keys())
    before = _rss_mib()
    script = (
        "import sys, time, zmq\n"
        "d = zmq.Context().socket(zmq.DEALER); d.setsockopt(zmq.LINGER, 0); d.connect(sys.argv[1])\n"
        "d.send_multipart([b'x' * 60000] * 1500)\n"
        "time.sleep(20)\n"
    )
    sender = subprocess.Popen([sys.executable, "-c", script, transport.endpoint])
    grown = 0.0
    try:
        deadline = time.monotonic() + 4
        while time.monotonic() < deadline:
            assert transport.poll(0.05) == []  # read as the session reads: nothing of it is a message
            grown = max(grown, _rss_mib() - before)
    finally:
        sender.kill()
        sender.wait(5)
        transport.close()
    assert grown < 40, f"the table held {grown} MiB for one message from an outsider"


def test_a_seat_that_floods_its_link_with_garbage_gets_a_few_notices_not_one_a_message(tmp_path: Path) -> None:
    """Each bad message was told as it came: a seat sending garbage as fast as it could filled
    every other player's screen and output with notices.  Now a seat's notices come at most
    NOTICE_BURST at once, then one a second, and the next one told says how many went untold."""
    _, session, said, hostile = listening_seat(tmp_path)
    for _ in range(1000):
        assert session._handle(b"Lhostile", b"\xc1garbage", hostile.public.dh_key) is None
    assert NOTICE_BURST <= len(said) <= NOTICE_BURST + 2, len(said)
    assert all(line.startswith(f"dropped a bad message from seat 2 ({session.names[2]})") for line in said)
    # later, the next notice tells what went untold
    session.links.dropped(2, "dropped a bad message from seat 2", time.monotonic() + 5 * NOTICE_EVERY)
    told = int(said[-1].rsplit("(and ", 1)[1].split()[0])
    assert len(said) + told == 1001, said[-1]  # every message: told, or counted in the last notice
    # a flood that stops is still counted, once the seat may be told of again
    later = time.monotonic() + 100 * NOTICE_EVERY  # its notices are all back
    for _ in range(NOTICE_BURST + 100):
        session.links.dropped(2, "dropped a bad message from seat 2", later)
    session.links.tell_untold(later)
    assert said[-1] == "dropped a bad message from seat 2", "told before its notices came back"
    session.links.tell_untold(later + 10 * NOTICE_EVERY)
    assert said[-1] == f"dropped 100 more bad messages of {session.names[2]}'s, untold", said[-1]
    session.links.tell_untold(later + 20 * NOTICE_EVERY)
    assert said.count(said[-1]) == 1  # told once
