"""The session loop around a real node, at the moment a seat's own record shows another seat's
cheat: the honest seat names the cheater with its record as evidence, and never crashes."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from protocol_helpers import hear, play_until, seeded_game, signed_record

from saboteur_p2p.net.intake import Intake
from saboteur_p2p.net.lobby import SeatInfo, Table
from saboteur_p2p.net.session import Outcome, Session
from saboteur_p2p.net.wire import open_envelope
from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.protocol.node import Node, ProtocolViolation
from saboteur_p2p.rules import GameConfig


class SentLog:
    """A transport that keeps what it is given to send."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, bytes]] = []

    def send(self, endpoint: str, data: bytes) -> bool:
        self.sent.append((endpoint, data))
        return True

    def advertised(self, towards: str) -> str:
        return "tcp://127.0.0.1:9"


def seated_session(game: LocalGame, node: Node, tmp_path: Path) -> Session:
    """A Session for ``node``'s seat that drives ``node`` itself (at its point in the game)."""
    setup = game.setup
    seats = tuple(SeatInfo(name, pub.sign_key, pub.dh_key, f"tcp://127.0.0.1:{n + 1}")
                  for n, (name, pub) in enumerate(zip(setup.names, setup.seats, strict=True)))
    table = Table(setup.game_id, setup.config, setup.shuffle_rounds, seats)
    assert node.identity is not None
    session = Session(table, node.identity, SentLog(), None, tmp_path, lambda text: None)  # type: ignore[arg-type]
    session.node = node
    session.intake = Intake(node)
    for index in range(len(node.log.entries)):
        session.intake.remember(index)
    session.log_path = tmp_path / f"seat{node.seat}.log"
    return session


def sent_kinds(session: Session) -> list[Any]:
    return [open_envelope(data) for _, data in session.transport.sent]  # type: ignore[attr-defined]


def test_a_share_that_shows_a_card_played_as_another_kind_names_the_mover(tmp_path: Path) -> None:
    game = seeded_game(GameConfig(3, "saboteur2"), 2, 71)
    play_until(game, lambda e: e.kind == "action")
    mover = game.spectator.next_expected.speaker  # type: ignore[union-attr]
    cheater = game.nodes[mover]
    assert cheater.state is not None
    handle = cheater.state.hands[mover][0]
    # a card of its hand named as a Trapped! card on itself: illegal whatever its face, and
    # nobody else can tell until the card is shown to all, so the shares are made first
    hear(game, signed_record(game, mover, "action", {"action": f"trapped @{mover} #{handle}"}), mover)
    sessions = {seat: seated_session(game, game.nodes[seat], tmp_path) for seat in range(3) if seat != mover}
    result = None
    for _ in range(20):
        head = game.spectator.next_expected
        assert head is not None and head.kind == "shares", head
        if head.speaker == mover:
            record = signed_record(game, mover, head.kind, getattr(cheater, f"_make_{head.kind}")(head))
            verdicts = hear(game, record, mover)
            assert all(v is None for v in verdicts.values()), "found before an honest seat's own share"
            continue
        speaker = sessions[head.speaker]
        before = len(speaker.transport.sent)  # type: ignore[attr-defined]
        result = speaker._speak()  # the violation comes to light inside the node's own produce()
        if result is not None:
            break
        for envelope in sent_kinds(speaker)[before:]:
            if envelope.kind == "record":
                hear(game, envelope.body["record"], head.speaker, mover)
    assert result is not None and result.outcome is Outcome.CHEATER and result.culprit == mover
    aborts = [e for e in sent_kinds(speaker) if e.kind == "abort"]
    assert len(aborts) == 2 and {e.body["culprit"] for e in aborts} == {mover}
    assert aborts[0].body["reason"] == "illegal-action"
    # the evidence (our own share, which completes the reveal) shows the cheat to the other seat
    other = next(s for s in sessions if sessions[s] is not speaker)
    with pytest.raises(ProtocolViolation) as shown:
        game.nodes[other].receive(aborts[0].body["evidence"])
    assert (shown.value.peer, shown.value.reason) == (mover, "illegal-action")
