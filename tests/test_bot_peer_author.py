"""Findings of a bot author seating bots of their own at networked tables (2026-12-06), one
test each: a bot peer's thinking is told to the table as busy, and its failures are said
where its author reads, whole."""
from __future__ import annotations

from pathlib import Path

from session_doubles import dealt_game, seated_session
from test_session_speak import sent_kinds

from saboteur_p2p.net.agents import THINKING_TOLD, BotAgent
from saboteur_p2p.rules import GameConfig

SLOW = """
import time
from saboteur_p2p.botapi import BaseBot

class Slow(BaseBot):
    def act(self, view, legal):
        time.sleep(0.05)
        return legal[0]

class Raiser(BaseBot):
    def act(self, view, legal):
        raise KeyError("missing")
"""


def _seat_with(tmp_path: Path, authors: str | None = None, bundled: str = "heuristic"):  # type: ignore[no-untyped-def]
    """The session of the seat to move, played by the author's bot class ``authors`` (from a
    file), else by the ``bundled`` bot."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    (tmp_path / "authors.py").write_text(SLOW)
    game = dealt_game(GameConfig(3), 5)
    node = game.nodes[game.nodes[0].state.current]
    agent = BotAgent(f"{tmp_path / 'authors.py'}:{authors}" if authors else bundled)
    session = seated_session(game, node, tmp_path / "seat", agent=agent)
    agent.start(node.seat, node)
    return session, agent, node


def test_a_bot_of_its_authors_is_told_busy_to_the_table_before_it_thinks(tmp_path: Path) -> None:
    """A bot thinking 4 s of its 5 s was told "away (no word for 3 s)" by the others, and a
    table with --wait 1 ended the game naming it: the seat's loop answers nobody while its bot
    thinks.  Before each move of an author's bot the seat now says it is busy for the bot's
    time limit (and a second)."""
    session, agent, node = _seat_with(tmp_path, "Slow")
    assert agent.poll_move(node) is not None
    busy = [env for env in sent_kinds(session) if env.kind == "busy"]
    assert len(busy) == 2 and {env.body["seconds"] for env in busy} == {agent.time_limit + 1.0}  # to each other seat
    assert busy[0].body["seat"] == node.seat


def test_a_bundled_bot_is_told_busy_until_it_is_timed_fast(tmp_path: Path) -> None:
    """The bundled bots answer in milliseconds: no busy for each of their moves (it would
    double the messages of a move), once one move showed it; before the first, and after a
    slow one, it is told.  A bundled bot given parameters (`ismcts:time=4`, which thought 4 s
    on its first move unannounced: found by review) is told always."""
    session, agent, node = _seat_with(tmp_path)
    assert agent.poll_move(node) is not None  # not timed yet: told
    assert [env.kind for env in sent_kinds(session)].count("busy") == 2
    assert agent.poll_move(node) is not None  # timed, fast: not told
    assert [env.kind for env in sent_kinds(session)].count("busy") == 2
    agent.slowest = THINKING_TOLD
    assert agent.poll_move(node) is not None
    assert [env.kind for env in sent_kinds(session)].count("busy") == 4
    tuned, agent, node = _seat_with(tmp_path / "tuned", bundled="heuristic-v1")
    agent.slowest = 0.0
    assert agent.poll_move(node) is not None and not [e for e in sent_kinds(tuned) if e.kind == "busy"]
    tuned, agent, node = _seat_with(tmp_path / "params", bundled="ismcts:playouts=2")
    agent.slowest = 0.0
    assert agent.poll_move(node) is not None and [e.kind for e in sent_kinds(tuned)].count("busy") == 2


def test_a_bot_peers_failure_is_said_whole_where_its_author_reads(tmp_path: Path) -> None:
    """A `join --bot` seat whose bot raised told it as its chat only; the chat's room ran out,
    and its own output showed "chat: 5 lines are waiting to go out ...; not sent: my bot
    (Raiser) failed, raised: act(): K", cut short, eleven times."""
    session, agent, node = _seat_with(tmp_path, "Raiser")
    said: list[str] = []
    session.say = said.append  # type: ignore[method-assign]
    for _ in range(8):  # more failures than the chat has room for
        agent.guard.broken = False
        agent.poll_move(node)
    for _ in range(8):
        session._relay_agent_chat()
    assert len(said) == 8 and all("KeyError('missing')" in line and line.startswith("my bot (Raiser) failed") for line in said)
    assert not any("waiting to go out" in line for line in said)  # the chat's room is the table's business
    assert [env.kind for env in sent_kinds(session)].count("chat") >= 1
