"""More hostile inputs, found by attacking the lobby, the records and ``verify``: each test was
written failing on main, before its fix (or is marked xfail, strict, with what is left)."""
from __future__ import annotations

import threading

import msgpack
import pytest
import zmq
from protocol_helpers import path_first

from saboteur_p2p.cli import main
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import LogWriter, decode_record
from saboteur_p2p.net.lobby import LobbyError, join_lobby
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.wire import seal
from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import GameConfig


@pytest.fixture
def context():
    ctx = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


def _table_that_answers(context: zmq.Context, *messages: bytes) -> tuple[zmq.Socket, int, threading.Thread]:
    """A fake host on a loopback port that answers the first hello with ``messages``."""
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")

    def answer() -> None:
        if router.poll(10_000):
            connection, _ = router.recv_multipart()
            for message in messages:
                router.send_multipart([connection, message])

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return router, port, thread


# -- the lobby: a host's messages to a joiner ---------------------------------------------


@pytest.mark.parametrize("seats", [5, None, 2.5, True])
def test_a_table_message_whose_seats_are_not_a_list_does_not_crash_the_joiner(context, seats):
    """A host's ``table`` message (who sits at the table) with ``seats`` that is not a list
    (a number, nil) escaped ``join_lobby`` as a bare TypeError (iterating it): the joiner died
    with a traceback.  It is ignored; the reject that follows is what the joiner reports."""
    host = Identity.generate()
    router, port, thread = _table_that_answers(
        context,
        seal(host, "table", {"seats": seats, "seats_total": 3}),
        seal(host, "reject", {"reason": "the table is full"}),
    )
    transport = Transport("127.0.0.1:0", context)
    try:
        with pytest.raises(LobbyError, match="the table is full"):
            join_lobby(Identity.generate(), "me", transport, f"127.0.0.1:{port}", None, lambda text: None, timeout=10)
    finally:
        thread.join(timeout=15)
        transport.close()
        router.close()


# -- verify: what a log file that anyone may have edited proves ----------------------------


@pytest.fixture(scope="module")
def finished_log() -> list[bytes]:
    from protocol_helpers import seeded_game

    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3, rounds=1), 3)
    while not game.spectator.finished and len(game.spectator.records) < 30:
        step(game, path_first)
    return list(game.spectator.records)


def _flip(record: bytes) -> bytes:
    """The record with one byte of its signed entry changed and its signature kept."""
    entry = decode_record(record)
    raw = bytearray(entry.raw)
    raw[-2] ^= 1
    return msgpack.packb([bytes(raw), entry.signature], use_bin_type=True)


@pytest.mark.parametrize("index", [3, 20])
def test_verify_does_not_name_the_seat_a_record_with_a_broken_signature_claims(finished_log, index):
    """A record whose bytes no longer match its signature (a bit flipped on disk, or an edit)
    was reported as '<reason> by seat N (name)' with ``culprit`` N: verify pinned on an honest
    seat a record it never signed.  Every peer treats such a record as proving nothing
    against the seat it names (UNSIGNED_REASONS); so does verify now."""
    records = list(finished_log)
    named = decode_record(records[index]).sender
    records[index] = _flip(records[index])
    verdict = verify_records(records)
    assert not verdict.ok and verdict.records == index
    assert verdict.culprit is None
    assert f"by seat {named}" not in verdict.message and "signature" in verdict.message


@pytest.mark.parametrize("edit", ["drop", "repeat", "swap"])
def test_verify_does_not_name_the_seat_of_a_record_a_file_edit_put_out_of_place(finished_log, edit):
    """A record dropped from a log file, repeated, or two swapped: the record after the gap was
    reported as 'chain (or sequence) by seat N (name)' with ``culprit`` N, though seat N signed
    exactly that record in its place.  Such a record proves nothing against its signer (as
    ending.NOT_PROOF says of a verdict's evidence), and verify now says the file is at fault."""
    records = list(finished_log)
    if edit == "drop":
        del records[20]
    elif edit == "repeat":
        records.insert(20, records[19])
    else:
        records[20], records[21] = records[21], records[20]
    verdict = verify_records(records)
    assert not verdict.ok and verdict.culprit is None
    assert "proves nothing against it" in verdict.message


def test_verify_does_not_name_the_seat_of_a_group_record_a_file_repeats(finished_log, tmp_path, capsys):
    """The records of a group (a commit round, say) all follow one head, so a copy of one of
    them follows the head too: verify took it for a record its seat signed with the wrong seq,
    named that seat, and confirmed a made-up verdict naming it.  A copy proves nothing."""
    entries = [decode_record(r) for r in finished_log]
    index = next(k for k in range(1, len(entries)) if entries[k].prev == entries[k - 1].prev)
    records = [*finished_log[:index + 1], finished_log[index], *finished_log[index + 1:]]
    verdict = verify_records(records)
    assert not verdict.ok and verdict.culprit is None
    assert "proves nothing against it" in verdict.message
    forged = Ending("cheater", entries[index].sender, "sequence", "made up", None, 0).to_bytes()
    path = tmp_path / "forged.log"
    with LogWriter(str(path)) as writer:
        for record in [*records, forged]:
            writer.append(record)
    assert main(["verify", str(path)]) != 0
    assert "cheated" not in capsys.readouterr().out


def test_verify_names_the_seat_that_signed_a_record_in_its_place_with_the_wrong_seq():
    """A record that follows the head, so that nothing is missing before it in the file, but
    with a seq its sender did not have next: only its sender could sign that, and it is named."""
    from protocol_helpers import seeded_game

    from saboteur_p2p.crypto.log import make_entry
    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3, rounds=1), 3)
    while len(game.spectator.records) < 20:
        step(game, path_first)
    head = game.spectator.next_expected
    assert head is not None
    node = game.nodes[head.speaker]
    skipped = make_entry(node.identity, game.setup.game_id, head.speaker, node.log.next_seq(head.speaker) + 1,
                         game.spectator.log.head, "action", {"action": "pass 0"})
    verdict = verify_records([*game.spectator.records, skipped.record])
    assert not verdict.ok and verdict.culprit == head.speaker and f"sequence by seat {head.speaker}" in verdict.message


@pytest.mark.parametrize("first", ["flipped", "garbage"])
def test_verify_does_not_name_seat_0_for_a_genesis_it_did_not_sign(finished_log, first):
    """A first record that does not decode, or whose signature does not match, was reported
    with ``culprit`` 0: seat 0 blamed for bytes it never signed (a genesis validly signed by
    seat 0 that makes no game is still seat 0's: test_hostile_peers)."""
    records = list(finished_log)
    records[0] = _flip(records[0]) if first == "flipped" else b"\x93garbage"
    verdict = verify_records(records)
    assert not verdict.ok and verdict.culprit is None


# -- other text from a peer or a file, printed in a player's terminal ---------------------

ESCAPE = "\x1b]0;owned\x07\x1b[2J\nseat 0 broke the protocol"


def clean(text: str) -> bool:
    """No escape sequence or forged line of ESCAPE's in ``text`` (its own line breaks are fine)."""
    return "\x1b" not in text and "\x07" not in text and "\nseat 0 broke" not in text


def test_an_abort_whose_reason_holds_control_characters_is_printed_clean(tmp_path):
    """A seat's ``abort`` says why in ``reason`` (64 characters), which the others printed as it
    came ('... saying X broke the protocol (REASON)'): chat and a gone's why are cleaned, not it."""
    from session_doubles import listening_seat

    game, session, said, hostile = listening_seat(tmp_path)
    abort = {"game_id": game.setup.game_id, "culprit": 1, "reason": ESCAPE[:64], "detail": "", "evidence": b"", "chain": []}
    result = session._handle(b"Lhostile", seal(hostile, "abort", abort), hostile.public.dh_key)
    assert result is not None and result.culprit == 2
    assert clean(result.message) and all(clean(line) for line in said), (result.message, said)


def test_a_verdict_trailer_whose_reason_holds_control_characters_is_printed_clean(finished_log):
    """The verdict after a stopped game's records is not signed: anyone may write its reason,
    which verify printed as it came ('the log says X cheated (REASON), but ...')."""
    from saboteur_p2p.protocol.ending import Ending

    trailer = Ending("cheater", 1, ESCAPE, ESCAPE, None, 0).to_bytes()
    verdict = verify_records([*finished_log[:20], trailer])
    assert verdict.culprit is None and clean(verdict.message), verdict.message


@pytest.mark.parametrize("answer", ["reject", "welcome", "table"])
def test_what_a_host_says_to_a_joiner_is_printed_clean(context, answer):
    """A host's reject reason, its welcome's seat numbers and its table's names were printed
    by the joiner as they came (the names in ``start`` are checked, not these)."""
    host = Identity.generate()
    bodies = {
        "reject": {"reason": ESCAPE},
        "welcome": {"seat": ESCAPE, "seats_total": ESCAPE, "config": {"edition": ESCAPE}},
        "table": {"seats": [[ESCAPE]], "seats_total": 3},
    }
    messages = [seal(host, answer, bodies[answer])]
    if answer != "reject":
        messages.append(seal(host, "reject", {"reason": "full"}))
    router, port, thread = _table_that_answers(context, *messages)
    transport = Transport("127.0.0.1:0", context)
    said: list[str] = []
    try:
        with pytest.raises(LobbyError) as refused:
            join_lobby(Identity.generate(), "me", transport, f"127.0.0.1:{port}", None, said.append, timeout=10)
    finally:
        thread.join(timeout=15)
        transport.close()
        router.close()
    assert all(clean(line) for line in [*said, str(refused.value)]), (said, refused.value)


# -- a spectator's feed: only the seat it watches may feed it -------------------------------


@pytest.fixture(scope="module")
def whole_game() -> list[bytes]:
    from protocol_helpers import seeded_bytes

    from saboteur_p2p.protocol.local import play_local_game

    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=7, rand=seeded_bytes(7))
    return list(game.records)


@pytest.mark.parametrize("outsider_says", ["reject", "genesis"])
def test_a_spectator_takes_its_feed_only_from_the_seat_it_watches(context, monkeypatch, whole_game, outsider_says):
    """A spectator listens at a port of its own (its Transport's table endpoint), and
    ``watch_table`` took every message that came in, on any connection: anyone who reached
    that port could end the watch with a ``reject``, or feed it a genesis of a game of its own
    making first, so the real records were dropped as another game's.  ``join_lobby`` already
    takes only what comes on the connection it opened to the table; so does the spectator."""
    import time

    from net_doubles import watch_requests
    from protocol_helpers import seeded_game

    from saboteur_p2p.crypto.log import GENESIS, make_entry
    from saboteur_p2p.net import watch as watch_module
    from saboteur_p2p.net.watch import watch_table

    seat = Identity.generate()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    stop = threading.Event()
    spectators: list[Transport] = []

    class Captured(Transport):
        def __init__(self, bind: str) -> None:
            super().__init__(bind, context)
            spectators.append(self)

    monkeypatch.setattr(watch_module, "Transport", Captured)
    fake = seeded_game(GameConfig(3), 11)  # a game of the outsider's own making
    fake_genesis = make_entry(fake.nodes[0].identity, fake.setup.game_id, 0, 0, GENESIS, "genesis",
                              fake.setup.genesis().encode()).record
    outsider_message = seal(Identity.generate(), "reject", {"reason": "go away"}) if outsider_says == "reject" \
        else seal(Identity.generate(), "record", {"record": fake_genesis})

    def run_seat() -> None:
        told = False
        for connection in watch_requests(router, stop):
            if told:
                continue  # the whole game goes once: a spectator that took another's genesis waits in vain
            told = True
            router.send_multipart([connection, seal(seat, "watching", {"game_id": b"\0" * 32, "records": 1})])
            outsider = context.socket(zmq.DEALER)  # the outsider speaks first
            outsider.setsockopt(zmq.LINGER, 0)
            outsider.connect(spectators[0].endpoint)
            outsider.send(outsider_message)
            time.sleep(0.5)
            outsider.close()
            for record in whole_game:
                router.send_multipart([connection, seal(seat, "record", {"record": record})])

    thread = threading.Thread(target=run_seat, daemon=True)
    thread.start()
    try:
        watched = watch_table(f"127.0.0.1:{port}", lambda node: None, lambda text: None,
                              connect_timeout=5, quiet_timeout=3)
    finally:
        stop.set()
        thread.join(5)
        router.close()
    assert watched.finished and watched.records == len(whole_game), watched


# -- the intake's parking: one seat cannot take all of it ---------------------------------


def test_one_seat_cannot_fill_the_intake_s_parking_and_stop_the_others_records_coming_early():
    """A record that comes before the one it follows is parked (REORDER_LIMIT records at
    most).  A seat that signs that many records of its own naming heads that never come
    filled the parking for the rest of the game: every honest record that came early was then
    dropped without a word, and came only when a heartbeat had it sent again.  Each seat now
    has its share of the parking."""
    from protocol_helpers import seeded_bytes
    from test_intake import game_of, played

    from saboteur_p2p.crypto.log import make_entry
    from saboteur_p2p.net.intake import REORDER_LIMIT, Intake
    from saboteur_p2p.protocol.node import Node

    identities = [Identity.generate(seeded_bytes(n)) for n in range(3)]
    game = game_of(identities, 5)
    records = played(game, 14)
    # a record that follows the one before it alone (not one of a group's)
    k = next(k for k in range(4, 13) if decode_record(records[k + 1]).prev == decode_record(records[k]).hash)
    intake = Intake(Node(game.setup, None))
    for record in records[:k]:
        assert intake.take(record).accepted == 1
    hostile = next(s for s in range(3) if s not in (decode_record(records[k]).sender, decode_record(records[k + 1]).sender))
    first = intake.node.log.next_seq(hostile) + 1
    for n in range(REORDER_LIMIT):
        nowhere = b"\xee" + n.to_bytes(31, "big")  # a head that never comes
        junk = make_entry(identities[hostile], game.setup.game_id, hostile, first + n, nowhere, "action", {})
        taken = intake.take(junk.record)
        assert taken.violation is None and taken.accepted == 0
    assert intake.take(records[k + 1]).accepted == 0  # early: parked, if there is room
    assert intake.take(records[k]).accepted == 2  # its predecessor brings it in


# -- the genesis: equal in Python is not the same record ----------------------------------


@pytest.mark.parametrize("change", [{"players": 3.0}, {"rounds": True}])
def test_a_genesis_whose_config_equals_the_agreed_one_only_in_python_is_bad_genesis(change):
    """Seat 0's genesis was compared with the agreed one as Python values, where 3.0 == 3 and
    True == 1: a genesis saying ``players: 3.0`` (or ``rounds: true``) was taken by every seat,
    and the game played on, but ``verify`` (and a spectator) reads the config strictly and
    refuses that log: seat 0 could make its game one nobody can check afterwards.  The seats
    now refuse it as ``bad-genesis`` by seat 0."""
    from protocol_helpers import assert_blamed, game_at, hear, signed_record

    game = game_at("genesis")
    body = game.setup.genesis().encode()
    body["config"] = {**body["config"], **change}
    assert verify_records([signed_record(game, 0, "genesis", body)]).ok is False  # verify refuses it
    verdicts = hear(game, signed_record(game, 0, "genesis", body), 0)
    assert_blamed(game, verdicts, 0, "bad-genesis")


def test_an_item_tagged_as_a_verdict_is_unpacked_within_a_verdict_s_size():
    """Four million empty maps after a verdict's tag were built in full (327 MB) before the
    item was found unreadable: a verdict is an array and its body, no more."""
    from saboteur_p2p.protocol.ending import Ending

    bomb = b"\x92\xa7verdict" + msgpack.packb([{}] * 100_000) * 40
    assert Ending.from_bytes(bomb[:4 * 2**20]) == Ending("unreadable", None)
    assert Ending.from_bytes(Ending("quit", 1, seat=0).to_bytes()) == Ending("quit", 1, seat=0)


def test_a_refused_record_of_the_largest_size_stays_the_evidence_of_the_verdict_in_the_log(tmp_path):
    """A seat refuses a validly signed record and writes why after its log's records, the
    record as evidence, so that ``verify`` can name the cheater from the file alone.  The
    verdict item was held to 4 MiB like a record, so evidence over 4 MiB - 4 KiB was left
    out: a cheater whose bad record was that large left every honest log's verdict without
    its evidence (found by a hostile-peer review, 2026-12-05)."""
    from saboteur_p2p.crypto.log import MAX_RECORD_SIZE, LogWriter, read_log
    from saboteur_p2p.protocol.ending import Ending

    evidence = bytes(range(256)) * (MAX_RECORD_SIZE // 256)
    assert len(evidence) == MAX_RECORD_SIZE
    path = tmp_path / "seat.log"
    with LogWriter(path) as writer:
        writer.append(b"\x01" * 100)  # a record before it (read back as an item)
        writer.append(Ending("cheater", 2, "bad-message", "a record too large to check", evidence, 0).to_bytes())
    items = read_log(path)
    verdict = Ending.from_bytes(items[-1])
    assert verdict is not None and verdict.culprit == 2 and verdict.evidence == evidence
