"""The command line when a table cannot be opened or joined (issue 12, defects 7, 9 and 10):
one clear line and status 2, within seconds; where the host can be reached and where the
logs go."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

COMMAND = [sys.executable, "-m", "saboteur_p2p"]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def run(*argv: str, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*COMMAND, *argv], capture_output=True, text=True, stdin=subprocess.DEVNULL, timeout=timeout)


def one_line_error(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("saboteur-p2p: error: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("bind, says", [
    ("nonsense", "is not ADDR:PORT"),
    ("127.0.0.1:99999", "is not ADDR:PORT"),
    ("10.254.253.252:7777", "10.254.253.252 is not an address of this machine; its addresses: 0.0.0.0 (all), 127.0.0.1"),
])
def test_a_bind_address_the_machine_cannot_listen_at_is_one_line(bind: str, says: str, tmp_path: Path):
    line = one_line_error(run("host", "--plain", "--bind", bind, "--log-dir", str(tmp_path)))
    assert says in line


def test_a_port_in_use_is_one_line(tmp_path: Path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        line = one_line_error(run("host", "--plain", "--bind", f"127.0.0.1:{port}", "--log-dir", str(tmp_path)))
    assert f"cannot listen at 127.0.0.1:{port}: Address already in use" in line


@pytest.mark.parametrize("command", ["host", "join 127.0.0.1:9", "play"])
def test_a_log_folder_that_cannot_be_made_is_one_line_naming_it(command: str, tmp_path: Path):
    """Before any table opens or is looked for: not when the game starts, with people seated."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    started = time.monotonic()
    line = one_line_error(run(*command.split(), "--plain", "--log-dir", str(blocker / "logs"), timeout=20))
    assert line == f"saboteur-p2p: error: cannot keep the game logs in {blocker / 'logs'}: Not a directory"
    assert time.monotonic() - started < 8  # refused at once, not when a game starts


def test_a_log_folder_named_by_a_file_says_it_is_a_file() -> None:
    """"cannot keep the game logs in afile: File exists" sent a person looking for a folder
    (found by an attack)."""
    import argparse
    import tempfile

    from saboteur_p2p.cli_table import _log_dir

    with tempfile.NamedTemporaryFile() as file, pytest.raises(ValueError) as info:
        _log_dir(argparse.Namespace(log_dir=file.name))
    assert str(info.value) == f"cannot keep the game logs in {file.name}: it is a file, not a folder"


def test_joining_a_table_that_is_not_there_fails_within_the_connect_timeout(tmp_path: Path):
    started = time.monotonic()
    done = run("join", f"127.0.0.1:{free_port()}", "--plain", "--connect-timeout", "1", "--log-dir", str(tmp_path),
               "--identity", str(tmp_path / "me.identity"))
    assert time.monotonic() - started < 10
    assert "no table answers at 127.0.0.1:" in one_line_error(done)


def test_the_host_gives_its_addresses_and_log_folder_and_refuses_a_second_seat_for_one_identity(tmp_path: Path):
    """With no --log-dir the logs go to the platform's user data directory (XDG_DATA_HOME here)."""
    port = free_port()
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    identity = str(tmp_path / "host.identity")
    host = subprocess.Popen([*COMMAND, "host", "--plain", "--bind", f"0.0.0.0:{port}", "--identity", identity,
                             "--seats", "3"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert host.stdout is not None
        lines = [host.stdout.readline() for _ in range(4)]
        text = "".join(lines)
        assert f"kept in {tmp_path / 'data' / 'saboteur-p2p' / 'logs'}" in text
        assert f"table open on port {port}" in text and "0.0.0.0" not in text
        assert "friends join with: saboteur-p2p join " in text and f":{port}" in text
        # a second player on this machine with the same identity file: refused, and told what to do
        done = run("join", f"127.0.0.1:{port}", "--plain", "--identity", identity, "--log-dir", str(tmp_path / "j"))
        line = one_line_error(done)
        assert "this identity already has a seat" in line and "--identity FILE" in line
    finally:
        host.kill()
        host.wait()


def test_the_client_shows_a_refusal_and_its_hint_whole_at_80x24():
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput

    from saboteur_p2p.client import runner
    from saboteur_p2p.client.agent import ClientAgent
    from saboteur_p2p.client.app import ClientApp
    from saboteur_p2p.net.invite import LobbyError
    from saboteur_p2p.net.lobby import IDENTITY_HINT, SEATED_IDENTITY

    agent = ClientAgent()

    class Refused:  # the screen, closed at once: the refusal came before anything was drawn
        def __init__(self, agent: ClientAgent, **kwargs: object) -> None:
            pass

        def run(self) -> None:
            pass

    def refused(agent: ClientAgent) -> None:
        raise LobbyError(f"the table refused us: {SEATED_IDENTITY}{IDENTITY_HINT}")

    original = runner.ClientApp
    runner.ClientApp = Refused  # type: ignore[assignment,misc]
    try:
        run = runner.run_client(refused, agent)
    finally:
        runner.ClientApp = original  # type: ignore[misc]
    assert isinstance(run.error, LobbyError)
    with create_pipe_input() as pipe:
        screen = ClientApp(agent, input=pipe, output=DummyOutput()).render_text(80, 24)
    maze = " ".join(line.split("│")[0].strip() for line in screen.splitlines())
    assert "this identity already has a seat" in maze and "saboteur-p2p join ... --identity FILE" in " ".join(maze.split())
    # said as a refusal, not a failure, and the title no longer says it waits (found by a play-test)
    assert "no seat: the table refused us" in maze and "the session failed" not in screen
    lines = screen.splitlines()
    assert "no game: see below" in lines[0] and "waiting for the table" not in screen and lines[-2].strip() == "q leaves"


@pytest.mark.parametrize("argv, says", [
    (["host", "--name", "a\x1b[2J"], "a name is 1 to 40 letters, digits, marks, symbols or spaces"),
    (["join", "127.0.0.1:9", "--name", " "], "a name is 1 to 40 letters, digits, marks, symbols or spaces"),
    (["play", "--name", "x" * 41], "a name is 1 to 40 letters, digits, marks, symbols or spaces"),
    (["host", "--wait", "-3"], "argument --wait: must be 0 to 3600 seconds, not -3"),
    (["join", "127.0.0.1:9", "--turn-time", "0.5"], "argument --turn-time: must be 1 to 3600 seconds, or off, not 0.5"),
    (["tournament", "--time-limit", "-1"], "argument --time-limit: must be 0.001 to 3600 seconds, not -1"),
])
def test_options_out_of_their_range_are_refused_before_anything_starts(argv: list[str], says: str, capsys):
    from saboteur_p2p.cli import main

    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize("login, name", [("", "you"), ("first.last@a-long-company-name.example.com", "you"), ("zoë", "zoë")])
def test_a_login_name_that_is_no_valid_name_is_not_the_default(login: str, name: str, monkeypatch):
    """argparse checks a default as if typed: an empty or long $USER stopped `play` and `join`
    with an error about --name, which the player never gave."""
    from saboteur_p2p.cli import build_parser

    monkeypatch.setenv("USER", login)
    assert build_parser().parse_args(["play"]).name == name
    assert build_parser().parse_args(["join", "127.0.0.1:9"]).name == (name if name != "you" else "player")


@pytest.mark.parametrize("command", [["host"], ["join", "127.0.0.1:9"]])
def test_with_the_full_screen_client_a_bad_log_folder_is_refused_before_it_opens(command, tmp_path, monkeypatch, capsys):
    from saboteur_p2p import cli_table
    from saboteur_p2p.cli import main
    from saboteur_p2p.client import runner

    def never(*args, **kwargs):
        raise AssertionError("the client opened")

    monkeypatch.setattr(cli_table, "_wants_client", lambda args: True)
    monkeypatch.setattr(runner, "run_in_client", never)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    assert main([*command, "--log-dir", str(blocker / "logs"), "--identity", str(tmp_path / "id")]) == 2
    assert f"cannot keep the game logs in {blocker / 'logs'}: Not a directory" in capsys.readouterr().err
