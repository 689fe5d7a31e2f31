"""A seat that comes back hears what the others hold before it signs anything (protocol.md 12.4).

A crash of the machine (not of the process) loses what was not synced to the disk.  Made
again, with fresh randomness, a lost record of its own would be a second version of it, and
the honest seat an equivocator (found by review): the resends bring back what the others
hold, and the seat's own records are synced before they go out (a liar that alone held one
could hide it through the wait: found by an attack).
"""
from __future__ import annotations

import os
import time
from pathlib import Path
from types import SimpleNamespace

from protocol_helpers import path_first, play_until, seeded_game
from session_doubles import SentLog

from saboteur_p2p.crypto.log import Entry, LogWriter, decode_record
from saboteur_p2p.net.heartbeat import CATCH_UP_S
from saboteur_p2p.net.lobby import SeatInfo, Table
from saboteur_p2p.net.seatstate import save_secrets
from saboteur_p2p.net.session import Session
from saboteur_p2p.net.wire import Envelope, open_envelope, seal
from saboteur_p2p.protocol.local import LocalGame, step
from saboteur_p2p.rules import GameConfig


def _back_without_its_commit(tmp_path: Path) -> tuple[LocalGame, Session, SentLog, bytes]:
    """Seat 1 comes back after its disk lost the commit it had sent: the game, its session
    (its files read back, its commit due again), its transport and the lost record."""
    game = seeded_game(GameConfig(3), 5)
    play_until(game, lambda head: head.kind == "commit" and head.speaker == 1)
    step(game, path_first)  # seat 1's commit: sent, then lost from its disk
    lost, seat = game.records[-1], game.nodes[1]
    assert decode_record(lost).sender == 1 and seat.identity is not None
    stem = f"game-{game.setup.game_id.hex()[:16]}-seat1"
    with LogWriter(tmp_path / f"{stem}.log") as writer:
        for record in game.records[:-1]:
            writer.append(record)
    save_secrets(seat, tmp_path / f"{stem}.secret")
    setup = game.setup
    infos = tuple(SeatInfo(name, pub.sign_key, pub.dh_key, f"tcp://127.0.0.1:{n + 1}")
                  for n, (name, pub) in enumerate(zip(setup.names, setup.seats, strict=True)))
    transport = SentLog()
    agent = SimpleNamespace(heard=lambda *_: None)
    session = Session(Table(setup.game_id, setup.config, infos, wait_ms=setup.wait_ms), seat.identity, transport, agent, tmp_path,  # type: ignore[arg-type]
                      lambda text: None, resuming=True)
    session._open_log()
    assert session.node.my_turn_to_speak()  # its commit is due again, as its log reads
    return game, session, transport, lost


def test_a_seat_back_after_losing_its_last_sent_record_takes_it_back_and_signs_no_second_version(tmp_path: Path) -> None:
    game, session, transport, lost = _back_without_its_commit(tmp_path)
    setup = game.setup

    def records_sent() -> list[bytes]:
        envelopes = [open_envelope(data) for _, data in transport.sent if data]
        return [env.body["record"] for env in envelopes if isinstance(env, Envelope) and env.kind == "record"]

    def ping(sender: int, records: int) -> None:
        identity = game.nodes[sender].identity
        assert identity is not None
        body = {"game_id": setup.game_id, "seat": sender, "to": 1, "records": records, "away": []}
        assert session._handle(b"c", seal(identity, "ping", body)) is None

    held = len(game.records) - 1
    assert session._speak() is None and len(session.node.log.entries) == held  # nobody has said what they hold
    ping(0, len(game.records))
    ping(2, held)
    assert session._speak() is None and len(session.node.log.entries) == held  # seat 0 holds one more
    identity = game.nodes[0].identity
    assert identity is not None
    assert session._handle(b"c", seal(identity, "record", {"record": lost})) is None  # seat 0's resend
    assert session.node.log.entries[-1].record == lost and session.node.seq == decode_record(lost).seq + 1
    ping(0, len(game.records))
    assert not session._catching_up(time.monotonic())
    session._speak()
    seq = decode_record(lost).seq
    assert [r for r in records_sent() if decode_record(r).sender == 1 and decode_record(r).seq == seq and r != lost] == []

def test_a_seat_back_that_hears_nobody_speaks_after_the_catch_up_limit(tmp_path: Path) -> None:
    """The wait is bounded: peers that never answer do not keep a seat that came back silent."""
    from net_doubles import session_for_tests

    session, _, _ = session_for_tests(tmp_path)
    now = time.monotonic()
    session.catch_up_until = now + CATCH_UP_S
    assert session._catching_up(now)
    assert not session._catching_up(now + CATCH_UP_S)


def test_a_seat_back_that_is_said_to_withhold_its_record_makes_it_once_its_wait_is_over(tmp_path: Path) -> None:
    """A peer that pings a huge count and then says the seat is gone had it leave without the
    record that proves the claim false, muted by the catch-up wait (found by review).  The
    seat stays through its wait (made at once, the record could be a second version of one
    its crash lost: found by an attack), then makes the record and names the liar."""
    game, session, transport, _ = _back_without_its_commit(tmp_path)
    liar = game.nodes[0].identity
    assert liar is not None
    ping = {"game_id": game.setup.game_id, "seat": 0, "to": 1, "records": 10**6, "away": []}
    assert session._handle(b"c", seal(liar, "ping", ping)) is None
    assert session._catching_up(time.monotonic())
    gone = {"game_id": game.setup.game_id, "seat": 0, "absent": 1, "why": "s1 withholds its commit"}

    def made() -> list[Entry]:
        envelopes = [open_envelope(data) for _, data in transport.sent if data]
        return [entry for entry in (decode_record(env.body["record"]) for env in envelopes if env.kind == "record")
                if entry.sender == 1 and entry.kind == "commit"]

    assert session._handle(b"c", seal(liar, "gone", gone)) is None  # it stays
    assert made() == []
    session.catch_up_until = time.monotonic()  # the wait runs out: no resend came
    assert session._speak() is None
    assert len({entry.hash for entry in made()}) == 1  # (sent to each other seat)
    result = session._check_gone(time.monotonic())
    assert result is not None and result.culprit == 0, result


def test_a_record_a_seat_sends_is_on_its_disk_first_so_a_liar_that_alone_holds_it_cannot_hide_it(
    tmp_path: Path, monkeypatch,
) -> None:
    """The log was synced only at a round's start: after a crash of the machine, the one
    other seat of a two-seat table (the only holder of the record lost) pinged a count that
    hid it, the catch-up wait ended, the seat made its move again with fresh randomness, and
    the liar's equivocation proof had the honest seat named, by its own session too (found by
    an attack).  What a crash of the machine keeps is what was synced; the record sent is in it."""
    from saboteur_p2p.crypto import log as log_module
    from saboteur_p2p.crypto.log import read_log

    game = seeded_game(GameConfig(2, edition="saboteur2", rounds=1), 3)
    play_until(game, lambda head: head.kind == "action" and head.speaker == 1 and len(game.records) > 40)
    step(game, path_first)  # the move seat 1 will make (the local game's own version is dropped)
    move = decode_record(game.records[-1]).body["action"]
    before = game.records[:-1]
    seat, setup = game.nodes[1], game.setup
    stem = f"game-{setup.game_id.hex()[:16]}-seat1"
    log_path = tmp_path / f"{stem}.log"
    with LogWriter(log_path) as writer:  # synced on closing: all that came before the move is on the disk
        for record in before:
            writer.append(record)
    save_secrets(seat, tmp_path / f"{stem}.secret")
    infos = tuple(SeatInfo(name, pub.sign_key, pub.dh_key, f"tcp://127.0.0.1:{n + 1}")
                  for n, (name, pub) in enumerate(zip(setup.names, setup.seats, strict=True)))
    table = Table(setup.game_id, setup.config, infos, wait_ms=setup.wait_ms)
    synced = [log_path.stat().st_size]  # the log's length at each fsync of it: what a crash of the machine keeps
    real = log_module.os.fsync

    def fsync(fd: int) -> None:
        real(fd)
        if os.readlink(f"/proc/self/fd/{fd}") == str(log_path):
            synced.append(os.fstat(fd).st_size)

    monkeypatch.setattr(log_module.os, "fsync", fsync)

    def seat_1(transport: SentLog, moves: list[str]) -> Session:
        agent = SimpleNamespace(heard=lambda *_: None, poll_move=lambda node: moves.pop() if moves else None,
                                start=lambda *a: None)
        session = Session(table, seat.identity, transport, agent, tmp_path, lambda text: None, resuming=True)  # type: ignore[arg-type]
        session._open_log()
        session.catch_up_until = 0.0  # heard from everyone (or waited out): it speaks
        return session

    def sent(transport: SentLog) -> list[bytes]:
        envelopes = [open_envelope(data) for _, data in transport.sent if data]
        return [env.body["record"] for env in envelopes if env.kind == "record" and decode_record(env.body["record"]).sender == 1]

    first = SentLog()
    session = seat_1(first, [move])
    assert session._speak() is None
    [made] = sent(first)
    assert decode_record(made).kind == "action"
    kept = synced[-1]  # the machine dies: only the part synced stays
    session.node.writer.close()
    os.truncate(log_path, kept)
    assert made in read_log(str(log_path))

    again = SentLog()
    back = seat_1(again, [move])
    assert back.node.log.entries[-1].record == made
    liar = game.nodes[0].identity
    assert liar is not None
    ping = {"game_id": setup.game_id, "seat": 0, "to": 1, "records": len(before), "away": []}  # the lie: it hides the move
    assert back._handle(b"c", seal(liar, "ping", ping)) is None
    back._speak()
    # the move sent again (the liar said it lacks it) is the same record: no second version
    assert [r for r in sent(again) if decode_record(r).seq == decode_record(made).seq and r != made] == []
