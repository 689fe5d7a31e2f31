"""Worker threads for the long runs of point arithmetic in a shuffle proof.

libsodium's scalar multiplications and point additions run with the GIL released (PyNaCl
calls them through cffi), so a seat with two or more cores can check or prove a shuffle of
a hundred cards in about half the wall time by splitting the cards between threads.  The
results are the same whatever the split: every chunk's sums are added in chunk order, and
an error raised in any chunk is raised again, the first chunk's first.

``SABOTEUR_P2P_THREADS`` sets the number of threads (default: the cores this process may
use, at most 4; 1 = no worker threads); ``set_threads`` changes it in a running process.
Seats that share a machine share its cores (``share_cores``): ``play`` and ``host --bots``
give each of their seats its part, one thread each for five seats on two cores.
"""
from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import TypeVar

R = TypeVar("R")

#: the most threads a split uses: beyond four, the pool's overhead eats the gain on one deck
MOST_THREADS = 4
#: a chunk smaller than this many cards is not worth a thread's hand-over (about 50 µs)
MIN_CHUNK = 12

_threads = 1
_pool: ThreadPoolExecutor | None = None
_pool_pid = 0
#: the thread count the pool was made for (its workers and the caller)
_pool_size = 0


#: the environment variable that sets the threads of every split (a whole number; anything
#: else is ignored)
THREADS_VARIABLE = "SABOTEUR_P2P_THREADS"


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def share_cores(peers: int) -> int:
    """The threads each of ``peers`` seats on this machine should use: what
    ``SABOTEUR_P2P_THREADS`` says, else the cores shared among them, at most ``MOST_THREADS``
    (so five seats on two cores use one each: their threads would only take turns)."""
    text = os.environ.get(THREADS_VARIABLE, "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 4:  # int() refuses some digits isdigit() takes ("²")
        return max(1, min(int(text), 64))
    return max(1, min(cores() // max(peers, 1), MOST_THREADS))


def set_threads(count: int) -> None:
    """Use ``count`` threads (the caller's and ``count - 1`` workers) for each split from now on
    (a split already under way finishes with the pool it took)."""
    global _threads, _pool
    if count < 1:
        raise ValueError(f"at least one thread, not {count}")
    _threads = count
    _pool = None  # not shut down: a split in another thread may still be using it


def threads() -> int:
    """How many threads a split uses."""
    return _threads


def _workers(count: int) -> ThreadPoolExecutor:
    global _pool, _pool_pid, _pool_size
    pool = _pool
    if pool is None or _pool_pid != os.getpid() or _pool_size != count:  # a forked child has no threads
        pool = ThreadPoolExecutor(max_workers=count - 1, thread_name_prefix="crypto")
        _pool, _pool_pid, _pool_size = pool, os.getpid(), count
    return pool


def split(work: Callable[[int, int], R], n: int) -> list[R]:
    """``[work(start, stop), …]`` for consecutive chunks covering ``range(n)``, in order: one
    chunk in this thread, the others in worker threads.  One chunk (and one thread) when the
    cards are few, or when a worker thread splits again (it would wait for the pool it is
    part of); if chunks raise, the first of them raises, once all have finished."""
    count = _threads  # one reading: another thread may change it (set_threads)
    chunks = min(count, max(1, n // MIN_CHUNK))
    if chunks == 1 or getattr(_here, "worker", False):
        return [work(0, n)]
    bounds = [n * k // chunks for k in range(chunks + 1)]
    pool = _workers(count)
    futures: list[Future[R]] = [pool.submit(_as_worker, work, bounds[k], bounds[k + 1]) for k in range(1, chunks)]
    try:
        first = work(bounds[0], bounds[1])
    finally:
        wait(futures)  # never leave a chunk running behind an error
    return [first, *(future.result() for future in futures)]


def keep_to_this_thread() -> None:
    """Every split made in the calling thread from now on runs in it alone: for a thread of
    background work, which must not take the workers the turns use."""
    _here.worker = True


def _as_worker(work: Callable[[int, int], R], start: int, stop: int) -> R:
    _here.worker = True
    return work(start, stop)


#: ``worker``: whether this thread is one of the pool's
_here = threading.local()
_threads = share_cores(1)
