"""A ``play`` table whose process dies is taken back by the next ``play`` (found by a
play-test: a crash lost the game, and the bot peers waited two minutes for nobody).

The table notes its game in the log folder while it plays (``UNFINISHED_PLAY``); the next
``play`` joins the game again through a bot peer still waiting for the seat, as ``join``
takes a seat back, and resumes it from the seat's own log.
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from test_network import _interruptible

from saboteur_p2p.crypto.identity import load_or_create
from saboteur_p2p.net.play import UNFINISHED_PLAY, bot_folder, host_table, identity_in_use, join_table, unfinished_play
from saboteur_p2p.net.session import Outcome
from saboteur_p2p.rules import GameConfig

#: our seat played by a bot, in a process of its own that the test kills outright
_TABLE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from saboteur_p2p.crypto.identity import load_or_create
    from saboteur_p2p.net.play import host_table
    from saboteur_p2p.rules import GameConfig
    logs = Path(sys.argv[1])
    host_table(load_or_create(logs / "me.identity"), "me", "127.0.0.1:0", GameConfig(3, rounds=1), "random", 2,
               "random", logs, None, 60.0, lambda text: None, started=lambda: False, bot_delay=0.05, on_leave="end",
               remember_play=True)
""")


def _killed_mid_game(table: subprocess.Popen[bytes], logs: Path) -> None:
    """Kill ``table`` outright a few moves into the game it notes in ``logs`` (a crash: nothing
    of ours runs, and the note stays)."""
    try:
        deadline = time.monotonic() + 60
        while not (logs / UNFINISHED_PLAY).exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (logs / UNFINISHED_PLAY).exists(), "the table never noted its game"
        time.sleep(0.5)  # a few moves in
    finally:
        table.send_signal(signal.SIGKILL)
        table.wait(10)


@pytest.mark.slow
def test_a_play_table_killed_mid_game_is_taken_back_through_a_bot_peer_and_finished(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    _killed_mid_game(subprocess.Popen([sys.executable, "-c", _TABLE, str(logs)], preexec_fn=_interruptible), logs)
    me = load_or_create(logs / "me.identity")
    assert unfinished_play(logs, load_or_create(tmp_path / "other.identity")) == []  # not another identity's game
    seats = unfinished_play(logs, me)
    assert len(seats) == 2  # both bot peers still wait for the seat
    said: list[str] = []
    address, key = seats[0]
    result = join_table(me, "me", address, None, "random", logs, None, 60.0,
                        said.append, connect_timeout=10.0, host_key=key)
    assert result.outcome is Outcome.FINISHED, result.message
    assert any(line.startswith("resumed seat 0 from ") for line in said)
    # once the bot peers have stopped, nothing is left to take back, and the note goes
    deadline = time.monotonic() + 30
    while unfinished_play(logs, me) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not (logs / UNFINISHED_PLAY).exists()


def test_a_play_table_that_ends_leaves_no_note(tmp_path: Path) -> None:
    me = load_or_create(tmp_path / "me.identity")
    result = host_table(me, "me", "127.0.0.1:0", GameConfig(3, rounds=1), "random", 2, "random", tmp_path, None, 60.0,
                        lambda text: None, started=lambda: False, on_leave="end", remember_play=True)
    assert result.outcome is Outcome.FINISHED
    assert not (tmp_path / UNFINISHED_PLAY).exists() and unfinished_play(tmp_path, me) == []


def test_a_note_that_cannot_be_read_or_names_no_kept_game_is_forgotten(tmp_path: Path) -> None:
    for text in ("not json", '{"game": "0123456789abcdef", "seats": [["tcp://127.0.0.1:9", "00"]]}', '{"seats": 5}'):
        (tmp_path / UNFINISHED_PLAY).write_text(text)
        assert unfinished_play(tmp_path, load_or_create(tmp_path / "me.identity")) == []
        assert not (tmp_path / UNFINISHED_PLAY).exists()


def test_a_note_nested_too_deep_or_replaced_by_a_pipe_is_forgotten_not_a_crash_or_a_hang(tmp_path: Path) -> None:
    """A note nested 100,000 deep stopped ``play`` with a RecursionError, and a FIFO in its
    place hung it for ever (found by an attack); so did the seat's hand file."""
    import os

    from saboteur_p2p.client.model import SteadyHand
    from saboteur_p2p.net.play import noted_leave

    me = load_or_create(tmp_path / "me.identity")
    (tmp_path / UNFINISHED_PLAY).write_text("[" * 100_000 + "]" * 100_000)
    assert noted_leave(tmp_path, "end") == "end"
    assert unfinished_play(tmp_path, me) == [] and not (tmp_path / UNFINISHED_PLAY).exists()
    os.mkfifo(tmp_path / UNFINISHED_PLAY)
    assert noted_leave(tmp_path, "bot") == "bot"
    assert unfinished_play(tmp_path, me) == [] and not (tmp_path / UNFINISHED_PLAY).exists()
    hand = tmp_path / "seat.log.hand"
    hand.write_text("[" * 100_000 + "]" * 100_000)
    assert SteadyHand(str(hand))._slots == (0, [])
    hand.unlink()
    os.mkfifo(hand)
    assert SteadyHand(str(hand))._slots == (0, [])


def test_a_note_of_a_kept_game_whose_seat_answers_but_whose_key_is_not_one_is_forgotten(tmp_path: Path) -> None:
    """A note naming a game this folder keeps, whose endpoint answers, but whose key is one
    byte: every later ``play`` stopped with "The public key must be exactly 32 bytes long",
    naming no file (found by an attack on the note)."""
    import socket

    (tmp_path / "game-0123456789abcdef-seat0.log").write_bytes(b"")
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        for key in ("00", "zz", "00" * 33):
            (tmp_path / UNFINISHED_PLAY).write_text(
                f'{{"game": "0123456789abcdef", "seats": [["tcp://127.0.0.1:{port}", "{key}"]]}}')
            assert unfinished_play(tmp_path, load_or_create(tmp_path / "me.identity")) == [], key
            assert not (tmp_path / UNFINISHED_PLAY).exists()
        good, endpoint = "ab" * 32, f"tcp://127.0.0.1:{port}"
        (tmp_path / UNFINISHED_PLAY).write_text(f'{{"game": "0123456789abcdef", "seats": [["{endpoint}", "{good}"]]}}')
        assert unfinished_play(tmp_path, load_or_create(tmp_path / "me.identity")) == [(endpoint, bytes.fromhex(good))]


def test_a_new_tables_bot_peer_takes_another_folder_than_a_bot_still_playing_a_dead_tables_game(tmp_path: Path) -> None:
    """After a crash, 'play --new' started bot peers in the folders whose identities the dead
    table's bots still played with: each was refused its seat (found by review)."""
    import contextlib
    import fcntl

    (tmp_path / "heuristic-1").mkdir()
    lock = tmp_path / "heuristic-1" / "join-abcd.lock"
    with open(lock, "a") as held_by_the_old_bot:
        fcntl.flock(held_by_the_old_bot.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with contextlib.ExitStack() as held:
            assert bot_folder(tmp_path, "heuristic-1", held).name == "heuristic-1.2"
    with contextlib.ExitStack() as held:
        assert bot_folder(tmp_path, "heuristic-1", held).name == "heuristic-1"  # free again


def test_play_does_not_take_back_a_seat_its_identity_plays_elsewhere_now(tmp_path: Path) -> None:
    """A second play while the first still ran deleted the running game's note (found by review)."""
    import fcntl

    me = load_or_create(tmp_path / "me.identity")
    assert identity_in_use(tmp_path, me) is None
    path = tmp_path / f"join-{me.public.fingerprint()}.lock"
    with open(path, "a") as lock:
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        lock.write("12345\n")
        lock.flush()
        assert "another saboteur-p2p (process 12345) is playing with this identity" in (identity_in_use(tmp_path, me) or "")
    assert identity_in_use(tmp_path, me) is None


@pytest.mark.slow
def test_a_host_killed_mid_game_takes_its_seat_back_by_running_host_again(tmp_path: Path) -> None:
    """A host whose terminal closed ran ``host`` again and opened an empty table, while the
    others waited for seat 0 until the game ended (found by a play-test).  The same command
    now takes the seat back through a seat still waiting for it; ``--new`` opens a new table."""
    logs = tmp_path / "logs"
    logs.mkdir()
    command = [sys.executable, "-m", "saboteur_p2p", "host", "--bind", "127.0.0.1:0", "--seats", "3", "--rounds", "1",
               "--bot", "random", "--bots", "2", "--bots-kind", "random", "--bot-delay", "0.05", "--no-announce",
               "--wait", "60", "--log-dir", str(logs), "--identity", str(tmp_path / "host.identity")]
    # the terminal closed: its bot peers go on waiting for seat 0
    _killed_mid_game(subprocess.Popen(command, preexec_fn=_interruptible, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL), logs)
    again = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "taking your seat back in your unfinished game" in again.stdout and "'host --new'" in again.stdout
    assert "game over" in again.stdout, again.stdout
    assert not (logs / UNFINISHED_PLAY).exists()


@pytest.mark.parametrize(("noted", "command", "on_leave"), [
    ("end", "play", "end"), ("end", "host", "end"), ("bot", "play", "bot"), ("bot", "host", "bot"),
    (None, "play", "end"), (None, "host", "bot"),
])
def test_a_seat_taken_back_leaves_its_table_as_it_would_have_before_the_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, noted: str | None, command: str, on_leave: str,
) -> None:
    """A person who left a ``play`` table taken back after a crash handed the seat to a bot,
    which played on to the end and held the terminal (found by a play-test): at a fresh
    ``play`` leaving ends the game, every other seat being this machine's bot.  The rule is
    the table's, noted as it began, not the command's that takes the seat back (a review:
    ``host`` took back a ``play`` game, and ``play`` a ``host`` game where people sit); a note
    of the release before, which does not say, keeps that release's rule: the command's."""
    import argparse
    import json

    import saboteur_p2p.net.play as play
    from saboteur_p2p import cli_table
    from saboteur_p2p.net.session import SessionResult

    asked: dict[str, object] = {}

    def joined(*args: object, **kwargs: object) -> SessionResult:
        asked.update(kwargs, bind=args[3])
        return SessionResult(Outcome.QUIT, "you left the table; the game ends")

    note = {"game": "0" * 16, "seats": [["tcp://127.0.0.1:9", "6b" * 32]]} | ({"on_leave": noted} if noted else {})
    (tmp_path / UNFINISHED_PLAY).write_text(json.dumps(note))
    monkeypatch.setattr(play, "identity_in_use", lambda logs, identity: None)
    monkeypatch.setattr(play, "unfinished_play", lambda logs, identity: [("127.0.0.1:9", b"k" * 32)])
    monkeypatch.setattr(play, "join_table", joined)
    monkeypatch.setattr(cli_table, "_plain_agent", lambda args, say: (None, say))
    args = argparse.Namespace(command=command, wait=60.0, plain=True, name="me", code=None, turn_time=None, quiet=True,
                              **({"bind": "127.0.0.1:7806"} if command == "host" else {}))
    assert cli_table._resume_play(args, load_or_create(tmp_path / "me.identity"), tmp_path) == play.EXIT_CODES[Outcome.QUIT]
    assert asked["on_leave"] == on_leave
    # a host listens at its --bind again: spectators and friends found nothing there (a play-test)
    assert asked["bind"] == ("127.0.0.1:7806" if command == "host" else None)


def test_a_table_notes_what_its_person_s_leave_does(tmp_path: Path) -> None:
    from saboteur_p2p.crypto.identity import Identity
    from saboteur_p2p.net.play import _remember_play, noted_leave
    from saboteur_p2p.net.table import SeatInfo, Table

    me = Identity.generate()
    table = Table(b"\1" * 32, GameConfig(3), (SeatInfo("me", me.public.sign_key, me.public.dh_key, "tcp://127.0.0.1:1"),))
    for rule in ("end", "bot"):
        _remember_play(tmp_path, table, me, rule)
        assert noted_leave(tmp_path, "bot" if rule == "end" else "end") == rule


@pytest.mark.slow
def test_a_closed_terminal_at_a_play_table_leaves_the_game_to_be_taken_back(tmp_path: Path) -> None:
    """Closing the terminal of ``play`` ended the game (a hang-up was the person leaving, and a
    play table ends when its person leaves), though the README says the same command takes
    the seat back after a closed terminal (found by a play-test).  A hang-up now ends the
    process as a crash does: the note stays, and the bot peers wait for the seat."""
    logs = tmp_path / "logs"
    command = [sys.executable, "-m", "saboteur_p2p", "play", "--plain", "--name", "me", "--players", "3", "--bots", "random",
               "--rounds", "1", "--bot-delay", "0.05", "--log-dir", str(logs), "--identity", str(tmp_path / "me.identity")]
    # our seat is the line prompt's, and nobody types: the game waits at our first turn
    table = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             preexec_fn=_interruptible)
    try:
        deadline = time.monotonic() + 60
        while not (logs / UNFINISHED_PLAY).exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert (logs / UNFINISHED_PLAY).exists(), "the table never noted its game"
        time.sleep(1.0)  # into the game
        table.send_signal(signal.SIGHUP)  # what a closed terminal sends
        assert table.wait(20) == -signal.SIGHUP
        me = load_or_create(tmp_path / "me.identity")
        assert len(unfinished_play(logs, me)) == 2  # both bot peers wait for the seat
        assert identity_in_use(logs, me) is None  # and the same command may take it back
    finally:
        if table.poll() is None:
            table.kill()
            table.wait(10)
        for lock in logs.glob("*/join-*.lock"):  # the bot peers, each in its folder: stopped here
            with contextlib.suppress(ValueError, ProcessLookupError, IndexError):
                os.kill(int(lock.read_text().split()[0]), signal.SIGKILL)


@pytest.mark.parametrize("answer", ["y", "n"])
def test_a_person_is_offered_to_stop_the_process_that_plays_their_seat_and_take_it_back(tmp_path, monkeypatch, answer):
    """A player whose terminal closed left a process playing their seat (a bot in it), and
    running join again said only to stop that process: with the terminal gone, they had to
    find it and kill it (a play-test).  At a terminal they are asked; "y" stops it (as a
    crash: the seat's files stay, to take the seat back from), anything else refuses as before."""
    from saboteur_p2p import cli_table
    from saboteur_p2p.net.invite import LobbyError

    identity_path, log_dir = tmp_path / "me.identity", tmp_path / "logs"
    identity = load_or_create(str(identity_path))
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from saboteur_p2p.crypto.identity import load_or_create
        from saboteur_p2p.net.play import _one_process_per_identity
        with _one_process_per_identity(Path({str(log_dir)!r}), load_or_create({str(identity_path)!r})):
            print("holding", flush=True)
            time.sleep(60)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        asked: list[str] = []
        monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
        monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or answer)
        if answer == "y":
            cli_table._check_identity_free(identity, log_dir)
            assert holder.wait(5) == -signal.SIGTERM
            assert identity_in_use(log_dir, identity) is None
        else:
            with pytest.raises(LobbyError, match=rf"another saboteur-p2p \(process {holder.pid}\) is playing"):
                cli_table._check_identity_free(identity, log_dir)
            assert holder.poll() is None
        assert asked == [f"stop process {holder.pid} now and take the seat back (a host's bot seats stop with it)? [y/N] "]
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_whose_number_is_not_a_saboteur_process_of_this_machine_is_never_offered_to_stop(tmp_path, monkeypatch):
    """The number in the lock file is read, not trusted (a review): 0, -1 (every process of the
    user, to os.kill), a process that is not saboteur-p2p, or one gone: no offer, the refusal
    as before, and nothing signalled."""
    from saboteur_p2p import cli_table
    from saboteur_p2p.net import play
    from saboteur_p2p.net.invite import LobbyError

    identity = load_or_create(str(tmp_path / "me.identity"))
    log_dir = tmp_path / "logs"
    other = subprocess.Popen(["sleep", "60"])  # a process of this machine that is not saboteur-p2p
    try:
        monkeypatch.setattr(play, "_held", lambda path: True)
        monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
        monkeypatch.setattr("builtins.input", lambda prompt: pytest.fail("asked to stop a process it must not"))
        killed: list[int] = []
        monkeypatch.setattr(os, "kill", lambda pid, sig: killed.append(pid))
        log_dir.mkdir()
        lock = log_dir / f"join-{identity.public.fingerprint()}.lock"
        for number in ("0", "-1", "1", str(other.pid), "999999999", "nonsense"):
            lock.write_text(number + "\n")
            assert play.identity_holder(log_dir, identity) is None, number
            with pytest.raises(LobbyError, match="is playing with this identity"):
                cli_table._check_identity_free(identity, log_dir)
        assert killed == [] and other.poll() is None
    finally:
        monkeypatch.undo()  # os.kill is the real one again, else the 60 s sleep is waited out
        other.kill()
        other.wait()
