"""Running a tournament's games on a Dask cluster (the optional extra ``saboteur-p2p[cluster]``).

Games go out in batches of consecutive indices, a few batches a worker at a time.  A batch
is decided by the spec and its indices alone, so when a worker dies and the scheduler runs
its batches again elsewhere the results are the same; results are put back in game order,
and a game whose index has already been yielded is dropped, so none is lost or counted twice.
Every worker must be able to import ``saboteur_p2p`` and the bots the spec names.
"""
from __future__ import annotations

import contextlib
import logging
import signal
import threading
import uuid
from collections.abc import Iterator
from typing import Any

from ..botapi import BotLoadError
from .results import ENGINE_SOURCE, bot_sources, source_words
from .spec import IN_FLIGHT_PER_WORKER, GameSummary, TournamentSpec, batch_size, batches, run_batch

EXTRA = "pip install 'saboteur-p2p[cluster]'"
#: seconds to wait for the scheduler to answer, and for the first worker to join it
CONNECT_TIMEOUT = 30.0


class ClusterError(ValueError):
    """The cluster cannot be used: Dask is missing, or the address is wrong or unreachable."""


class OtherVersion(BotLoadError):
    """A worker would play another version of a bot than the one this machine named."""


#: per worker process, the digests of the bots' files it plays, by spec (``bot_sources``)
_SOURCES_HERE: dict[TournamentSpec, dict[str, str]] = {}
#: per worker process, each bot's digest when it first played here: a worker keeps what it
#: imported for its life, which outlasts a tournament
_FIRST_PLAYED: dict[str, str] = {}


def run_checked_batch(spec: TournamentSpec, start: int, stop: int, sources: dict[str, str]) -> list[GameSummary]:
    """``run_batch`` on a worker, once the bots' files it loads are found to be the ones this
    machine read (``sources``, their digests): a worker with another ``bots/good.py`` in its
    folder played other games under the same name and digest, and ``--resume`` then folded two
    versions of a bot in one file (found by an attack)."""

    here = _SOURCES_HERE.get(spec)
    if here is None:
        here = _SOURCES_HERE[spec] = bot_sources(spec)
    for bot, digest in sources.items():
        if here.get(bot) != digest:
            found = f"a file of digest {here[bot]}" if bot in here else "no file of it"
            what = source_words(bot) if bot == ENGINE_SOURCE else f"bot {bot!r}"
            raise OtherVersion(f"{what}: a worker finds {found}, where this machine read digest {digest}: "
                               "every worker must have the same version of each bot (and of saboteur-p2p)")
        # the files agree, but a worker that played the bot before its file changed still plays
        # the version it imported then, under the new digest (found by review)
        played = _FIRST_PLAYED.setdefault(bot, digest)
        if played != digest:
            raise OtherVersion(f"bot {bot!r}: a worker imported another version of it (digest {played}) for an earlier "
                               "tournament and keeps it: restart the workers to play this one")
    return run_batch(spec, start, stop)


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ClusterError(f"--cluster needs Dask's distributed scheduler, which is not installed: {EXTRA}") from None
    return distributed


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def local_workers(address: str) -> int | None:
    """N for ``local:N`` (checked), None for a scheduler's address."""
    if not address.startswith("local:"):
        return None
    try:
        workers = int(address.removeprefix("local:"))
    except ValueError:
        workers = 0
    if workers < 1:
        raise ClusterError(f"--cluster {address}: local:N needs N, the number of worker processes, at least 1")
    return workers


@contextlib.contextmanager
def connect(address: str) -> Iterator[Any]:
    """A Dask client of the scheduler at ``address`` (``tcp://HOST:PORT``), or of a new local
    cluster of N worker processes on loopback (``local:N``)."""
    workers = local_workers(address)
    distributed = _distributed()
    if workers is not None:
        # the worker processes inherit an ignored Ctrl-C: this process stops them, quietly
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if _main_thread() else None
        try:
            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None,
                # its processes' logs say nothing a player needs: a batch that fails reaches
                # us through its future, and at Ctrl-C they would only print tracebacks
                silence_logs=logging.CRITICAL,
            )
        finally:
            if previous is not None:
                signal.signal(signal.SIGINT, previous)
        try:
            with cluster, distributed.Client(cluster) as client:
                yield client
        except KeyboardInterrupt:
            logging.getLogger("distributed").setLevel(logging.CRITICAL)  # no shutdown warnings after Ctrl-C
            raise
        return
    client = _client_within(distributed, address)
    with client:
        try:
            client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as exc:  # WorkerStartTimeoutError is an OSError whose args are no errno
            raise ClusterError(f"--cluster {address}: no worker joined that scheduler within {CONNECT_TIMEOUT:g} s "
                               "(start some with: dask worker ADDRESS)") from exc
        yield client


def _client_within(distributed: Any, address: str) -> Any:
    """A client of the scheduler at ``address``, or ClusterError once CONNECT_TIMEOUT has
    passed.  Dask's own timeout covers the TCP connection, not its handshake: an address
    where something listens but does not speak Dask's protocol held the run for ever (found
    by review), so the client is made in a thread waited for no longer than that."""
    made: list[Any] = []
    failed: list[BaseException] = []
    lock = threading.Lock()
    given_up = threading.Event()

    def make() -> None:
        try:
            client = distributed.Client(address, timeout=CONNECT_TIMEOUT)
        except BaseException as exc:  # handed to the caller, which words it
            failed.append(exc)
            return
        with lock:
            if not given_up.is_set():
                made.append(client)
                return
        client.close()  # it answered after all, but too late: nobody uses it

    maker = threading.Thread(target=make, name="dask-connect", daemon=True)  # left behind if it never answers
    maker.start()
    maker.join(CONNECT_TIMEOUT * 1.2 + 1.0)
    with lock:
        given_up.set()
        if made:
            return made[0]
    if failed and not isinstance(failed[0], (OSError, ValueError, TypeError)):
        raise failed[0]
    if failed:
        raise ClusterError(f"--cluster {address}: cannot reach a Dask scheduler there ({failed[0]})")
    raise ClusterError(f"--cluster {address}: cannot reach a Dask scheduler there: something listens there, "
                       f"but no Dask scheduler answered within {CONNECT_TIMEOUT:g} s")


def run_on_cluster(spec: TournamentSpec, start: int, address: str) -> Iterator[GameSummary]:
    """Games ``start`` to the end of the tournament, played on the cluster; yields them in game order."""
    local_workers(address)
    distributed = _distributed()
    with connect(address) as client:
        workers = max(1, sum(client.nthreads().values()))
        window = workers * IN_FLIGHT_PER_WORKER
        work = batches(start, spec.total_games, batch_size(spec.total_games - start, workers))
        run = uuid.uuid4().hex[:12]
        sources = bot_sources(spec)  # what each worker's bots must be (run_checked_batch)
        in_flight: dict[Any, int] = {}
        finished: dict[int, list[GameSummary]] = {}
        completed = distributed.as_completed()

        def submit() -> None:
            # batches waiting to be yielded count against the window too, so a slow batch
            # holds back new work instead of letting finished results pile up
            while len(in_flight) + len(finished) < window:
                span = next(work, None)
                if span is None:
                    return
                future = client.submit(run_checked_batch, spec, *span, sources, key=f"saboteur-games-{run}-{span[0]}")
                in_flight[future] = span[0]
                completed.add(future)

        submit()
        following = start
        while in_flight:
            future = next(completed)
            first = in_flight.pop(future)
            try:
                finished[first] = future.result()
            except OtherVersion as exc:
                raise ClusterError(f"the cluster could not play the batch from game {first}: {exc}") from exc
            except Exception as exc:  # the scheduler gave up on the batch (workers kept dying, or it raised)
                hint = ""
                if isinstance(exc, BotLoadError) and "no file" in str(exc):  # a bot file not where the worker looks
                    hint = ("; a worker loads a bot file by the path given, from its own working folder: "
                            "the file must be there on every worker")
                elif type(exc).__name__ == "KilledWorker":  # dask's words alone named no cause (an attack)
                    hint = ("; the workers that played it died each time (killed, out of memory, or a bot that "
                            "ended its process)")
                elif type(exc).__name__ in ("CancelledError", "FutureCancelledError"):
                    hint = "; the scheduler cancelled it: it may have stopped, or lost its connection to us"
                raise ClusterError(f"the cluster could not play the batch from game {first}: {exc!r}{hint}") from exc
            future.release()
            while following in finished:
                for game in finished.pop(following):
                    if game.index == following:  # a game already yielded is not yielded again
                        yield game
                        following += 1
            submit()
        if following != spec.total_games:
            raise ClusterError(f"the cluster returned games up to {following}, not {spec.total_games}")
