"""A message that reaches a defect of ours (an exception no check expected) does not crash the
session: nobody is accused, an unlogged word is dropped and the game goes on, and after a
record (or a defect anywhere in the loop) the seat leaves with a clear message, its log kept
and the traceback beside it (net/defects.py)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from net_doubles import next_record, session_for_tests
from session_doubles import SentLog

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import decode_record, read_log
from saboteur_p2p.net.session import Session
from saboteur_p2p.net.verdicts import Outcome
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.protocol.ending import split_ending
from saboteur_p2p.protocol.errors import ProtocolViolation

GAME = bytes(range(32))


def _defect(*args: Any, **kwargs: Any) -> None:
    raise KeyError("a defect the test planted")


def _seat1(tmp_path: Path) -> tuple[Session, list[Identity], list[str]]:
    session, identities, said = session_for_tests(tmp_path)
    session.log_path = tmp_path / "seat1.log"
    return session, identities, said


def _byes(session: Session) -> list[str]:
    sent = session.transport.sent  # type: ignore[attr-defined]
    return [endpoint for endpoint, data in sent if open_envelope(data).kind == "bye"]


def test_a_record_that_reaches_a_defect_ends_our_game_accusing_nobody(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session, identities, _ = _seat1(tmp_path)
    record = next_record(session, {"anything": 1}, kind="genesis", sender=0, identity=identities[0])
    monkeypatch.setattr(session.node, "receive", _defect)
    result = session._handle(b"seat 0's link", seal(identities[0], "record", {"record": record}), identities[0].public.dh_key)
    assert result is not None and result.outcome is Outcome.QUIT
    assert result.culprit == 1  # this seat leaves; seat 0 is not named a cheater
    assert "a record from s0 (seat 0) reached a defect in saboteur-p2p (KeyError" in result.message
    assert "proves nothing against anyone" in result.message
    assert sorted(_byes(session)) == ["tcp://127.0.0.1:1", "tcp://127.0.0.1:3"]  # the others stop at once
    traceback_file = tmp_path / "seat1.log.defect.txt"
    assert "a defect the test planted" in traceback_file.read_text()
    assert str(traceback_file) in result.message


def test_an_unlogged_word_that_reaches_a_defect_is_dropped_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    session, identities, said = _seat1(tmp_path)
    monkeypatch.setattr(session.node, "take_ahead", _defect)
    ahead = seal(identities[2], "ahead", {"game_id": GAME, "seat": 2, "shares": {}})
    assert session._handle(b"seat 2's link", ahead, identities[2].public.dh_key) is None
    assert any("dropped a ahead from s2 (seat 2): it reached a defect in saboteur-p2p (KeyError" in line for line in said)
    assert _byes(session) == []
    assert session.node.aborted is None
    assert "a defect the test planted" in (tmp_path / "seat1.log.defect.txt").read_text()


class _QuietTransport(SentLog):
    """Enough of a transport for ``Session.run``: nothing ever comes in."""

    def admit_links(self, keys: object) -> None:
        pass

    def connect(self, endpoint: str, server_key: bytes | None = None) -> None:
        pass

    def shake_hands(self, endpoints: object, seconds: float) -> list[object]:
        return []

    def poll(self, seconds: float) -> list[object]:
        return []


class _Agent:
    def start(self, seat: int, node: object) -> None:
        pass

    def heard(self, state: object) -> None:
        pass


def test_a_defect_anywhere_in_the_loop_ends_the_run_cleanly_with_the_log_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Before, the exception left ``Session.run`` and the process died with a traceback."""
    session, _, said = _seat1(tmp_path)
    session.transport = _QuietTransport()  # type: ignore[assignment]
    session.agent = _Agent()  # type: ignore[assignment]
    monkeypatch.setattr(session.node, "ahead_failure", _defect)
    result = session.run()
    assert result.outcome is Outcome.QUIT and result.culprit == 1
    assert "reached a defect in saboteur-p2p (KeyError" in result.message
    assert result.log_path is not None
    _, ending = split_ending(read_log(result.log_path))
    assert ending is not None and ending.outcome == "quit" and ending.culprit == 1  # why it stopped, after the records
    assert any(line.startswith("log saved:") for line in said)


def test_a_seat_named_gone_while_a_check_is_under_way_waits_for_the_check(tmp_path: Path) -> None:
    """A check left for the background that finds a cheat outweighs an absence: the game ends
    naming the cheater, not the absent seat (its gold would otherwise be forfeit)."""
    session, identities, _ = _seat1(tmp_path)
    genesis = next_record(session, {"anything": 1}, kind="genesis", sender=0, identity=identities[0])
    session.node.log.entries.append(decode_record(genesis))  # a record for the verdict to point at

    def cheat_found() -> None:
        raise ProtocolViolation(0, "bad-share", "found late")

    session.node.ahead.check_later(cheat_found, genesis)
    result = session._end(Outcome.PEER_GONE, "s2 is gone", 2)
    assert result.outcome is Outcome.CHEATER and result.culprit == 0
