"""Tournaments on a Dask cluster: a real scheduler and two workers as processes on loopback give
the same games as one process, also when a worker is killed in the middle of a tournament."""
from __future__ import annotations

import importlib.util
import os
import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from saboteur_p2p.cli import main
from saboteur_p2p.tournament import TournamentSpec, run_games, run_tournament
from saboteur_p2p.tournament import cluster as cluster_module

#: CI installs the cluster extra, so these run there; a checkout without it skips them
needs_dask = pytest.mark.skipif(
    importlib.util.find_spec("distributed") is None, reason="the cluster extra (dask[distributed]) is not installed",
)

SPEC = TournamentSpec(4, 40, ("heuristic", "random"), seed=9)
#: no dashboard; the diagnostics server that still starts listens on loopback only
NO_DASHBOARD = ("--no-dashboard", "--dashboard-address", "127.0.0.1:0")
#: seconds the processes get to start, and the whole test to end
START_TIMEOUT = 60.0


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _start(log, *args: str) -> subprocess.Popen[bytes]:
    """A dask command as a process of its own session (so it is killed with its children), logging to ``log``."""
    with open(log, "wb") as out:
        return subprocess.Popen([sys.executable, "-m", "dask", *args], stdout=out, stderr=out, start_new_session=True)


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=START_TIMEOUT) as client:
        client.wait_for_workers(count, timeout=START_TIMEOUT)


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


@pytest.fixture
def scheduler_and_two_workers(tmp_path):
    """A scheduler and two one-thread workers on loopback; yields its address and the worker processes."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    processes = [_start(tmp_path / "scheduler.log", "scheduler", "--host", "127.0.0.1", "--port", str(port), *NO_DASHBOARD)]
    try:
        workers = [
            _start(tmp_path / f"worker{i}.log", "worker", address, "--host", "127.0.0.1", "--nthreads", "1",
                   "--no-nanny", *NO_DASHBOARD)
            for i in range(2)
        ]
        processes += workers
        _wait_for_workers(address, 2)
        yield address, workers
    finally:
        for process in processes:
            _stop(process)


def _games(games):
    return [(g.index, g.seed, g.lineup, g.scores, g.winners, g.roles, g.round_winners) for g in games]


@needs_dask
@pytest.mark.slow
def test_a_cluster_plays_the_same_games_even_when_a_worker_dies(scheduler_and_two_workers):
    from distributed import Client

    address, workers = scheduler_and_two_workers
    # a resumed tournament starts part way
    assert _games(run_games(SPEC, start=30, cluster=address)) == _games(run_games(SPEC, start=30))

    lost: list[str] = []
    with Client(address, timeout=START_TIMEOUT) as watcher:
        pids = watcher.run(os.getpid)
        assert sorted(pids.values()) == sorted(w.pid for w in workers)  # each worker runs in its own process

        def kill_a_busy_worker(done: int) -> None:
            # once the first games are in, kill a worker while it is playing a batch
            if done < 8 or lost:
                return
            busy = {addr: keys for addr, keys in watcher.processing().items() if keys}
            if busy:
                addr, keys = next(iter(busy.items()))
                os.kill(pids[addr], signal.SIGKILL)
                lost.extend(str(key) for key in keys)

        report = run_tournament(SPEC, progress=kill_a_busy_worker, cluster=address)
    assert lost and all("saboteur-games" in key for key in lost)  # its batches were lost, and played again
    assert sum(w.poll() == -signal.SIGKILL for w in workers) == 1
    assert report.games == SPEC.total_games
    local = run_tournament(SPEC).to_data()
    clustered = report.to_data()
    del local["play_seconds"], clustered["play_seconds"]
    assert clustered == local


@needs_dask
def test_a_local_cluster_starts_and_stops_with_the_tournament():
    spec = TournamentSpec(3, 6, ("random",), seed=1)
    assert _games(run_games(spec, cluster="local:1")) == _games(run_games(spec))


def test_cluster_errors_are_one_line(monkeypatch, capsys):
    assert main(["tournament", "--games", "2", "--cluster", "local:0"]) == 2
    assert "local:N needs N" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "distributed", None)  # as if the extra were not installed
    assert main(["tournament", "--games", "2", "--cluster", "local:2"]) == 2
    err = capsys.readouterr().err
    assert "pip install 'saboteur-p2p[cluster]'" in err and err.count("\n") == 1
    assert cluster_module.EXTRA in err


@needs_dask
def test_an_address_with_no_scheduler_is_refused_in_one_line(monkeypatch, capsys):
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1.0)
    started = time.monotonic()
    assert main(["tournament", "--games", "2", "--cluster", f"tcp://127.0.0.1:{_free_port()}"]) == 2
    assert "cannot reach a Dask scheduler there" in capsys.readouterr().err
    assert time.monotonic() - started < START_TIMEOUT


@needs_dask
def test_an_address_that_listens_but_speaks_no_dask_is_refused_within_the_timeout(monkeypatch, capsys):
    """Dask's own timeout covers the connection, not its handshake: a listener that accepts and
    says nothing (or a web server) held the run for ever (found by review)."""
    monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1.0)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        started = time.monotonic()
        address = f"tcp://127.0.0.1:{listener.getsockname()[1]}"
        assert main(["tournament", "--games", "2", "--cluster", address]) == 2
    assert "something listens there, but no Dask scheduler answered within 1 s" in capsys.readouterr().err
    assert time.monotonic() - started < 10


@needs_dask
def test_a_scheduler_without_workers_is_refused_in_words(monkeypatch, tmp_path, capsys):
    """Dask's WorkerStartTimeoutError is an OSError: it was printed as 'error: 1: 30.0'."""
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = _start(tmp_path / "scheduler.log", "scheduler", "--host", "127.0.0.1", "--port", str(port), *NO_DASHBOARD)
    try:
        from distributed import Client

        with Client(address, timeout=START_TIMEOUT):  # the scheduler answers
            pass
        monkeypatch.setattr(cluster_module, "CONNECT_TIMEOUT", 1.0)
        assert main(["tournament", "--games", "2", "--cluster", address]) == 2
        assert f"--cluster {address}: no worker joined that scheduler within 1 s" in capsys.readouterr().err
    finally:
        _stop(scheduler)


def test_a_worker_with_another_version_of_a_bot_file_plays_nothing(tmp_path):
    """A worker with another ``bots/good.py`` in its folder played other games under the same
    name and digest, and ``--resume`` folded two versions of the bot in one file (found by an
    attack): a batch first checks the bots' files the worker loads against this machine's."""
    from saboteur_p2p.tournament.cluster import OtherVersion, run_checked_batch
    from saboteur_p2p.tournament.results import bot_sources

    bot = tmp_path / "good.py"
    bot.write_text("from saboteur_p2p.botapi import BaseBot\n\n\nclass First(BaseBot):\n"
                   "    def act(self, view, legal):\n        return legal[0]\n")
    spec = TournamentSpec(3, 2, (f"{bot}:First", "random"), seed=4)
    ours = bot_sources(spec)
    assert [g.index for g in run_checked_batch(spec, 0, 2, ours)] == [0, 1]
    bot.write_text(bot.read_text().replace("legal[0]", "legal[-1]"))  # the worker's copy differs
    other = TournamentSpec(3, 2, (f"{bot}:First", "random"), seed=5)  # (a spec of its own: the digest is kept per spec)
    with pytest.raises(OtherVersion, match=rf"bot '{re.escape(str(bot))}:First': a worker finds a file of digest \w+, "
                                           rf"where this machine read digest {ours[f'{bot}:First']}"):
        run_checked_batch(other, 0, 2, {**ours})


@needs_dask
def test_a_cluster_whose_workers_have_other_bot_files_is_refused_in_words(monkeypatch):
    from saboteur_p2p.tournament import cluster

    spec = TournamentSpec(3, 4, ("random",), seed=1)
    monkeypatch.setattr(cluster, "bot_sources", lambda spec: {"random": "0123456789abcdef"})
    with pytest.raises(cluster.ClusterError, match=r"bot 'random': a worker finds a file of digest .* where this machine "
                                                   r"read digest 0123456789abcdef"):
        list(run_games(spec, cluster="local:1"))


def test_a_worker_that_imported_an_earlier_version_of_a_bot_refuses_the_new_one(tmp_path, monkeypatch):
    """A worker outlives a tournament and keeps the bot it imported: after the file changed,
    the digests agreed and the worker played the old version under the new one's name (found
    by review)."""
    from saboteur_p2p.tournament import cluster
    from saboteur_p2p.tournament.results import bot_sources

    monkeypatch.setattr(cluster, "_FIRST_PLAYED", {})
    bot = tmp_path / "good2.py"
    bot.write_text("from saboteur_p2p.botapi import BaseBot\n\n\nclass First(BaseBot):\n"
                   "    def act(self, view, legal):\n        return legal[0]\n")
    first = TournamentSpec(3, 1, (f"{bot}:First", "random"), seed=6)
    cluster.run_checked_batch(first, 0, 1, bot_sources(first))
    bot.write_text(bot.read_text().replace("legal[0]", "legal[-1]"))
    second = TournamentSpec(3, 1, (f"{bot}:First", "random"), seed=7)
    with pytest.raises(cluster.OtherVersion, match=r"imported another version of it .* restart the workers"):
        cluster.run_checked_batch(second, 0, 1, bot_sources(second))
