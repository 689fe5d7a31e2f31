"""A seat that came back waits for the others' resends before it makes a record (protocol.md
§12.4): its run may have lost from the disk a record it had sent, and made again with fresh
randomness that record would be a second version (equivocation).  An attack got an honest
seat that came back named an equivocator by every honest peer: another seat sent it a
``gone`` naming it, which ended that wait at once (three times over, which cut the stay short)."""
from __future__ import annotations

from pathlib import Path

import pytest
from clocked_sessions import clocked_session, judged_for
from protocol_helpers import dealt_game, play_until

from saboteur_p2p.net.heartbeat import CATCH_UP_S
from saboteur_p2p.net.session import Outcome
from saboteur_p2p.net.wire import seal
from saboteur_p2p.rules import GameConfig


def _owing_seat_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):  # type: ignore[no-untyped-def]
    """Seat 0's session where it owes a record that is not a move, as a seat that came back."""
    game = dealt_game(GameConfig(3), 5)
    play_until(game, lambda e: e.speaker == 0 and e.kind != "action")
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    said: list[str] = []
    session.say = said.append
    session.catch_up_until = clock.now + CATCH_UP_S  # resumed from its files (Session._open_log)
    session.catch_up_held = len(session.node.records)
    gone = seal(game.nodes[1].identity, "gone", {  # type: ignore[arg-type]
        "game_id": game.setup.game_id, "seat": 1, "absent": 0, "why": "s0 sent no record within 1 s"})
    return game, session, clock, said, gone


def test_a_gone_naming_a_seat_that_came_back_does_not_make_it_make_its_record_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    game, session, clock, said, gone = _owing_seat_0(tmp_path, monkeypatch)
    records, seq = len(session.node.records), session.node.seq
    for _ in range(3):  # said again and again: the stay is not cut short
        assert session._handle(b"L1", gone, game.nodes[1].identity.public.dh_key) is None  # type: ignore[union-attr]
    assert (len(session.node.records), session.node.seq) == (records, seq)  # nothing made while it waits
    # the wait ends (nobody resent anything): the seat then makes the record it owes, sends it,
    # and ends the game naming the seat that called it gone
    result = judged_for(session, clock, CATCH_UP_S + 1.0, lambda elapsed: session._speak())
    assert session.node.seq == seq + 1
    assert result is not None and (result.outcome, result.culprit) == (Outcome.QUIT, 1), said


def test_a_gone_naming_a_seat_that_has_not_come_back_makes_it_send_its_record_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The rule the attack turned: a seat not waiting for resends sends the record it is said
    to withhold before it goes, so the others see it come."""
    game, session, _, said, gone = _owing_seat_0(tmp_path, monkeypatch)
    session.catch_up_until = 0.0
    seq = session.node.seq
    result = session._handle(b"L1", gone, game.nodes[1].identity.public.dh_key)  # type: ignore[union-attr]
    assert session.node.seq == seq + 1
    assert result is not None and (result.outcome, result.culprit) == (Outcome.QUIT, 1), said


def test_the_wait_for_resends_counts_from_the_last_record_taken_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat back far behind, on a busy machine, took longer than CATCH_UP_S to check what
    the others resent, and then made again a record of its own that was among them."""
    _, session, clock, _, _ = _owing_seat_0(tmp_path, monkeypatch)
    clock.now += CATCH_UP_S - 0.5
    session.catch_up_held -= 1  # as if a record came in just now
    assert session._catching_up(clock.now)
    clock.now += CATCH_UP_S - 0.5  # past the first deadline, within the new one
    assert session._catching_up(clock.now)
    clock.now += 1.0  # and nothing more came
    assert not session._catching_up(clock.now)
