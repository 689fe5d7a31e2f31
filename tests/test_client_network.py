"""The client at a real network table: the launcher runs net.play.host_table in its background
thread with bot peer processes on loopback, and the person plays through the keyboard."""
from __future__ import annotations

from pathlib import Path

import pytest
from test_client_app import ENTER, Harness, play_out

from saboteur_p2p.client.agent import ClientAgent
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.play import host_table
from saboteur_p2p.net.session import Outcome, SessionResult
from saboteur_p2p.rules import GameConfig


@pytest.mark.slow
def test_hosting_in_the_client_starting_early_and_playing_a_round_to_the_end(tmp_path: Path):
    """Four seats, two bot peers: the host types :start to play with three; one round, then the end."""
    agent = ClientAgent(hosting=True)
    children: list[object] = []
    identity = Identity.generate()

    def session(agent: ClientAgent) -> SessionResult:
        return host_table(
            identity, "alice", "127.0.0.1:0", GameConfig(4, rounds=1), None, 2, ["random", "heuristic"], tmp_path,
            None, 30.0, agent.say, agent=agent, started=agent.start_requested, children=children,  # type: ignore[arg-type]
        )

    def script(h: Harness) -> None:
        h.wait_for(lambda: "Type :start" in h.screen(), "the lobby screen")
        h.wait_for(lambda: sum("sits down" in line.text for line in h.agent.log_lines()) == 2, "two bot peers", 60)
        assert not any("takes seat" in line.text for line in h.agent.log_lines())  # no seat said that is not theirs
        h.keys(":start" + ENTER)
        h.wait_for(lambda: h.agent.snapshot().view is not None, "the first deal", 60)
        assert h.agent.snapshot().leave_ends is not None  # the session said what leaving does
        names = h.agent.snapshot().names
        # the host's bot peers sit in the order they were started (their numbers), whichever joined first
        assert names == ("alice", "random-1", "heuristic-2"), names
        said = [line.text for line in h.agent.log_lines() if "bot peers sit in the order they were started" in line.text]
        assert said and "random-1 at seat 1" in said[0] and "heuristic-2 at seat 2" in said[0], said
        play_out(h, lambda: h.agent.snapshot().ended is not None)
        h.finish()
        h.wait_for(lambda: "Game over" in h.screen(), "the ranking")
        h.keys("q")
        h.wait_for(h.closed, "the client to close")

    harness = Harness(agent=agent)
    harness.play(script, timeout=120, session=session)
    run = harness.run
    assert run is not None and run.error is None and not run.quit
    assert isinstance(run.result, SessionResult) and run.result.outcome is Outcome.FINISHED
    assert run.result.scores == agent.snapshot().view.scores  # type: ignore[union-attr]
    ended = agent.snapshot().ended
    assert ended is not None and ended.startswith("game over. nuggets: alice ")
    # the scores once in the log: the narration's line, which names us "you" (the session's
    # own result line, with our name, said them a second time)
    texts = [line.text for line in agent.log_lines()]
    assert run.result.said and ended.splitlines()[0] not in texts
    assert sum(text.startswith("== game over. nuggets: you ") for text in texts) == 1
    assert sorted(p.name for p in tmp_path.iterdir() if p.is_dir()) == ["heuristic-2", "random-1"]
    for child in children:
        assert child.wait(30) == 0  # type: ignore[attr-defined]
