"""Running a tournament's games: in this process, across worker processes, or on a Dask cluster.

Every runner yields game summaries in game order, so statistics and ratings (which depend on
the order) come out the same whatever runs the games.  Work goes out in batches of
consecutive games and only a few batches are in flight at a time: memory does not grow with
the number of games.
"""
from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from ..botapi import load_bot
from .spec import IN_FLIGHT_PER_WORKER, GameSummary, TournamentSpec, batch_size, batches, run_batch, run_one
from .stats import StatsCollector, TournamentReport


def check_bots(spec: TournamentSpec) -> None:
    """Fail early, in the parent, on a bad bot spec: each bot is loaded and made once (a
    parameter its class refuses fails here, named, not in every game)."""
    # what a bot prints as it loads goes to stderr, as in the games: it ran into the report (a bot author)
    with contextlib.redirect_stdout(sys.stderr):
        for name in spec.names:
            load_bot(name)


def run_games(spec: TournamentSpec, start: int = 0, cluster: str | None = None) -> Iterator[GameSummary]:
    """Play games ``start`` to the end of the tournament; yields summaries in game order.

    ``cluster``: a Dask scheduler address (``tcp://HOST:PORT``) or ``local:N``; without it,
    ``spec.jobs`` local processes (one: this process).
    """
    check_bots(spec)
    if cluster is not None:
        from .cluster import run_on_cluster

        yield from run_on_cluster(spec, start, cluster)
    elif spec.jobs <= 1:
        for index in range(start, spec.total_games):
            yield run_one(spec, index)
    else:
        yield from _run_in_processes(spec, start)


def ignore_interrupts() -> None:
    """In a worker process: leave Ctrl-C to the parent, which stops the workers and says
    where the results stand (a worker's own KeyboardInterrupt would only print a traceback)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


#: how often (seconds) a worker process looks whether the tournament that started it still runs
PARENT_CHECK_S = 1.0


def start_worker(parent: int) -> None:
    """A worker process's set-up: Ctrl-C left to the parent (``ignore_interrupts``), and an
    end of its own once the parent is gone.  A tournament killed outright (SIGKILL, SIGTERM,
    the OOM killer) left its workers idle for ever, holding the results file's lock, which
    they inherited: every ``--resume`` was refused (found by an attack)."""
    ignore_interrupts()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(1)  # orphaned: nothing here is wanted any more (its batch goes unanswered)

    threading.Thread(target=watch, name="saboteur-parent-watch", daemon=True).start()


class WorkerLost(ValueError):
    """A worker process stopped while it played a batch (killed, or a bot ended its process)."""


def _run_in_processes(spec: TournamentSpec, start: int) -> Iterator[GameSummary]:
    """The games on ``spec.jobs`` worker processes.  A worker that dies raises WorkerLost: with
    ``multiprocessing.Pool`` the batch it held was never answered, and the tournament waited
    for ever (found by an attack: a worker killed as the OOM killer would, or a bot calling
    ``os._exit``); the games before it are yielded, so ``--resume`` goes on from them."""
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    size = batch_size(spec.total_games - start, spec.jobs)
    work = batches(start, spec.total_games, size)
    pool = ProcessPoolExecutor(spec.jobs, mp_context=context, initializer=start_worker, initargs=(os.getpid(),))
    counted = start  # the games yielded so far end here
    try:
        pending: deque[Future[list[GameSummary]]] = deque()
        for first, stop in work:
            pending.append(pool.submit(run_batch, spec, first, stop))
            if len(pending) >= spec.jobs * IN_FLIGHT_PER_WORKER:
                break
        while pending:
            games = pending.popleft().result()
            yield from games
            counted += len(games)
            following = next(work, None)
            if following is not None:
                pending.append(pool.submit(run_batch, spec, *following))
    except BrokenProcessPool:  # on a batch's result, or on handing out the next one
        _stop_now(pool)
        raise WorkerLost(f"a worker process stopped while it played games from {counted} on (killed, or a bot ended "
                         f"its process): the games before {counted} are counted") from None
    except BaseException:
        _stop_now(pool)
        raise
    # every batch is in: the workers are stopped rather than waited for (a bot's thread left
    # running kept a worker, and the tournament, from ever ending; found by review)
    _stop_now(pool)


def _stop_now(pool: ProcessPoolExecutor) -> None:
    """Stop the workers at once, as Pool's exit did: they ignore Ctrl-C, and the parent's own
    stop (an interrupt, a lost worker, a reader that stopped early) leaves their batches unwanted."""
    workers = list((pool._processes or {}).values())  # shutdown forgets them
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.terminate()


@contextlib.contextmanager
def _interrupts_deferred() -> Iterator[None]:
    """Ctrl-C within the block takes effect at its end (in the main thread): a game is folded
    into the report and written to the results file whole, or not at all."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    heard: list[int] = []
    if signal.getsignal(signal.SIGINT) is None:  # a handler set outside Python stays
        yield
        return
    previous = signal.signal(signal.SIGINT, lambda number, frame: heard.append(number))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if heard:
            raise KeyboardInterrupt


def run_tournament(
    spec: TournamentSpec,
    progress: Callable[[int], None] | None = None,
    cluster: str | None = None,
    collector: StatsCollector | None = None,
    sink: Callable[[GameSummary], None] | None = None,
) -> TournamentReport:
    """Play the tournament (from where ``collector`` stands, if given) and fold every game into its report.

    ``sink`` sees each game, in order, as soon as it is folded (the results file writes it);
    ``progress`` is told how many games are done.
    """
    collector = collector or StatsCollector(spec)
    for game in run_games(spec, collector.report.games, cluster):
        with _interrupts_deferred():  # a report or results file left with half a game (a review)
            collector.add(game)
            if sink is not None:
                sink(game)
        if progress is not None:
            progress(collector.report.games)
    return collector.report
