"""Bot peers started on this machine by ``play`` and ``host --bots``: their folders, and a
bot that stops before it takes its seat."""
from __future__ import annotations

import contextlib
import re
from pathlib import Path
from typing import Any

import pytest

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import play
from saboteur_p2p.net.invite import LobbyError
from saboteur_p2p.rules import GameConfig


def _commands(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    started: list[list[str]] = []

    def popen(command: list[str], **options: Any) -> object:
        started.append(command)
        return object()

    monkeypatch.setattr(play.subprocess, "Popen", popen)
    return started


def _option(command: list[str], name: str) -> str:
    return command[command.index(name) + 1]


def test_two_tables_at_once_give_their_bots_folders_and_identities_of_their_own(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """Two ``play`` tables on one machine: the second's bots must not take the first's
    identities (they would be refused their seats, one process per seat, and the table would
    wait for ever); once the first table is done, its folders are free again."""
    started = _commands(monkeypatch)
    with contextlib.ExitStack() as first:
        play.spawn_bot_peers("127.0.0.1:1", 2, "random", tmp_path, None, 1.0, held=first)
        with contextlib.ExitStack() as second:
            play.spawn_bot_peers("127.0.0.1:2", 2, "random", tmp_path, None, 1.0, held=second)
            folders = [_option(command, "--log-dir") for command in started]
            identities = [_option(command, "--identity") for command in started]
            assert folders == [str(tmp_path / name) for name in ("random-1", "random-2", "random-1.2", "random-2.2")]
            assert len(set(identities)) == 4
            assert [_option(command, "--name") for command in started] == ["random-1", "random-2"] * 2
    started.clear()
    play.spawn_bot_peers("127.0.0.1:3", 1, "random", tmp_path, None, 1.0)
    assert _option(started[0], "--log-dir") == str(tmp_path / "random-1")
    assert _option(started[0], "--identity") == str(tmp_path / "random-1.identity")  # as before: the same bot


def test_a_bot_peer_that_stops_before_taking_its_seat_ends_the_lobby_and_says_why(tmp_path: Path) -> None:
    """The table would wait for a seat nobody will take: the host is told which bot stopped,
    what it said last and where its output is, rather than "Waiting for the table..." for ever."""
    with pytest.raises(LobbyError) as error:
        play.host_table(Identity.generate(), "ann", "127.0.0.1:0", GameConfig(3), "random", 2, "no-such-bot",
                        tmp_path, None, 5.0, lambda text: None)
    said = str(error.value)
    # both bot peers stop; whichever the lobby sees stopped first is named (a race)
    stopped = re.search(r"the bot peer (no-such-bot-[12]) stopped before the game began", said)
    assert stopped is not None, said
    assert "no-such-bot" in said.split("began:", 1)[1]  # its own error, naming the bot it could not load
    assert str(tmp_path / stopped.group(1) / "output.txt") in said


def test_a_table_that_fails_stops_its_bot_peers_and_frees_their_folders(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    """A defect or an error in the lobby (not a close the lobby expects) must not leave this
    machine's bot peers waiting for a table that is gone, nor their folders taken."""

    def failing_lobby(*args: Any, **options: Any) -> None:
        spawn = args[7]
        spawn()  # the bot peers start, as the real lobby starts them
        raise RuntimeError("the lobby broke")

    monkeypatch.setattr(play, "host_lobby", failing_lobby)
    children: list[Any] = []
    with pytest.raises(RuntimeError, match="the lobby broke"):
        play.host_table(Identity.generate(), "ann", "127.0.0.1:0", GameConfig(3), "random", 2, "random",
                        tmp_path, None, 60.0, lambda text: None, children=children)
    assert len(children) == 2
    assert all(child.returncode is not None for child in children)  # stopped, and waited for
    started = _commands(monkeypatch)
    play.spawn_bot_peers("127.0.0.1:1", 1, "random", tmp_path, None, 1.0)
    assert _option(started[0], "--log-dir") == str(tmp_path / "random-1")  # the folder is free again
