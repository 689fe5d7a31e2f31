"""A seat whose person leaves, or runs out of time, is played by a bot on its own node
(protocol.md §12.7): the table plays on, and every peer says so."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.play import host_table
from saboteur_p2p.net.session import Outcome, SessionResult
from saboteur_p2p.protocol.verify import verify_file
from saboteur_p2p.rules import GameConfig, State


class SlowThenGone:
    """A person who lets the turn timer run out at their first move, and leaves at their second."""

    def __init__(self) -> None:
        self.decisions: list[int] = []
        self.wants_to_quit = False
        self.told_handed_over = threading.Event()

    def start(self, seat: int, node: object) -> None:
        self.seat = seat

    def poll_move(self, node) -> str | None:  # type: ignore[no-untyped-def]
        decision = len(node.records)
        if decision not in self.decisions:
            self.decisions.append(decision)
        if len(self.decisions) >= 2:
            self.wants_to_quit = True  # the second time we are asked, we get up and go
        return None

    def heard(self, state: State) -> None:
        return None

    def chat(self, seat: int, name: str, text: str) -> None:
        return None

    def poll_chat(self) -> str | None:
        return None

    def handed_over(self) -> None:
        self.told_handed_over.set()


@pytest.mark.slow
def test_a_person_who_runs_out_of_time_then_leaves_is_played_by_a_bot_and_the_game_ends_normally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SABOTEUR_P2P_VERBOSE", "1")  # the bot peers print what they are told
    agent = SlowThenGone()
    said: list[str] = []
    children: list[object] = []
    result: SessionResult = host_table(
        Identity.generate(), "alice", "127.0.0.1:0", GameConfig(3, rounds=1), None, 2, "random", tmp_path, None, 30.0,
        said.append, agent=agent, started=lambda: False, children=children, turn_time=0.3, stand_in_delay=0.0,  # type: ignore[arg-type]
    )
    assert result.outcome is Outcome.FINISHED, result.message
    assert agent.told_handed_over.is_set()
    timer = [line for line in said if line.startswith("your 0.3 s ran out")]
    assert timer == ["your 0.3 s ran out: a bot chose your move"] * len(timer), timer  # no deck handles
    assert len(timer) == 1, said  # the first move only: after that the person is gone
    assert "you left the table: a bot plays your seat until the game ends" in said
    outputs = [(tmp_path / name / "output.txt").read_text() for name in ("random-1", "random-2")]
    for text in outputs:
        assert "alice's turn timer ran out: a bot on their machine chose their move" in text
        assert "alice left the table: a bot on their machine plays their seat" in text
    (log,) = tmp_path.glob("game-*-seat0.log")
    verdict = verify_file(str(log))
    assert verdict.ok and verdict.finished, verdict.message
    assert verdict.scores == result.scores


def test_at_a_table_of_one_person_and_bots_leaving_ends_the_game(tmp_path: Path) -> None:
    """``play`` (you and bots on this machine) ends the game when you leave: nobody is left to watch."""
    agent = SlowThenGone()
    agent.decisions = [-1]  # gone at the first move
    said: list[str] = []
    result: SessionResult = host_table(
        Identity.generate(), "alice", "127.0.0.1:0", GameConfig(3, rounds=1), None, 2, "random", tmp_path, None, 30.0,
        said.append, agent=agent, started=lambda: False, on_leave="end",  # type: ignore[arg-type]
    )
    assert (result.outcome, result.culprit) == (Outcome.QUIT, 0)
    assert result.message.startswith("you left the table; the game ends")
    assert not agent.told_handed_over.is_set()
    assert not any("a bot" in line for line in said)
