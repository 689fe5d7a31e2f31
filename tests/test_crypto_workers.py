"""Worker threads for a shuffle proof's multiplications (crypto/workers.py): the split covers
every card once and in order, an error in any chunk is raised once all chunks are done, a
forked child gets threads of its own, and a proof made or checked by several threads is the
one a single thread makes or checks, a bad point in any chunk included."""
from __future__ import annotations

import dataclasses
import multiprocessing
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_shuffle_proof import BAD_POINTS, CONTEXT, JOINT, honest, rejects

from saboteur_p2p.crypto import workers
from saboteur_p2p.crypto.shuffle import check_deck
from saboteur_p2p.crypto.shuffle_proof import invalid_point, verify_shuffle_proof
from saboteur_p2p.net import play


@pytest.fixture
def threads() -> Iterator[None]:
    """Three threads for the test (whatever this machine has), the default back after."""
    before = workers.threads()
    workers.set_threads(3)
    yield
    workers.set_threads(before)


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("n", [0, 1, 11, 12, 35, 36, 37, 100])
def test_the_chunks_cover_every_card_once_in_order(n: int) -> None:
    seen: list[tuple[int, int, str]] = []

    def work(start: int, stop: int) -> list[int]:
        seen.append((start, stop, threading.current_thread().name))
        return list(range(start, stop))

    parts = workers.split(work, n)
    assert [i for part in parts for i in part] == list(range(n))
    assert len(parts) == min(3, max(1, n // workers.MIN_CHUNK))
    # the first chunk is the caller's, the others the workers'
    assert [name == threading.current_thread().name for *_, name in sorted(seen)] == [True] + [False] * (len(parts) - 1)


@pytest.mark.usefixtures("threads")
def test_an_error_in_a_chunk_is_raised_after_every_chunk_is_done() -> None:
    finished: list[int] = []

    def work(start: int, stop: int) -> int:
        if start == 0:
            raise KeyError("the first chunk")
        if stop == 60:
            raise ValueError("the last chunk")
        time.sleep(0.05)
        finished.append(start)
        return start

    with pytest.raises(KeyError):
        workers.split(work, 60)
    assert finished == [20]  # the middle chunk ran to its end before the error came out
    finished.clear()
    with pytest.raises(ValueError, match="the last chunk"):
        workers.split(lambda start, stop: work(start or 1, stop), 60)  # the first chunk passes now
    assert sorted(finished) == [1, 20]


@pytest.mark.usefixtures("threads")
def test_a_worker_that_splits_again_does_its_chunk_alone() -> None:
    """Two workers each splitting again would wait for each other's places in the pool."""
    def inner(start: int, stop: int) -> list[list[int]]:
        return workers.split(lambda a, b: list(range(start + a, start + b)), stop - start)

    done: list[list[list[list[int]]]] = []
    caller = threading.Thread(target=lambda: done.append(workers.split(inner, 108)), daemon=True)
    caller.start()
    caller.join(timeout=20)
    assert done, "the split waited for itself"
    parts = done[0]
    assert [len(part) for part in parts] == [3, 1, 1]  # the caller's chunk split in three, the workers' not
    assert [i for part in parts for chunk in part for i in chunk] == list(range(108))


def _split_in_child(queue: multiprocessing.Queue[list[list[int]]]) -> None:
    queue.put(workers.split(lambda start, stop: list(range(start, stop)), 40))


@pytest.mark.usefixtures("threads")
def test_a_forked_child_splits_with_threads_of_its_own() -> None:
    # the parent's pool has both its threads now (slow chunks: neither is idle before the
    # other starts), and they are idle, so a child with the pool alone would wait for them
    workers.split(lambda start, stop: time.sleep(0.05) or stop, 40)
    time.sleep(0.1)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_split_in_child, args=(queue,))
    child.start()
    try:
        parts = queue.get(timeout=10)
        child.join(timeout=20)
    finally:
        if child.is_alive():
            child.kill()
    assert child.exitcode == 0
    assert [i for part in parts for i in part] == list(range(40))


def test_the_thread_count_is_checked() -> None:
    with pytest.raises(ValueError):
        workers.set_threads(0)


def test_a_proof_made_and_checked_by_threads_is_the_single_thread_proof() -> None:
    before = workers.threads()
    try:
        workers.set_threads(1)
        inputs, outputs, alone, _ = honest(50, True, 3)
        workers.set_threads(4)
        _, threaded_outputs, threaded, _ = honest(50, True, 3)
        verify_shuffle_proof(CONTEXT, JOINT, inputs, outputs, alone)
        workers.set_threads(1)
        verify_shuffle_proof(CONTEXT, JOINT, inputs, outputs, threaded)
    finally:
        workers.set_threads(before)
    assert (threaded_outputs, threaded) == (outputs, alone)


@pytest.mark.usefixtures("threads")
@pytest.mark.parametrize("field", ["outputs", "commitments", "chain"])
def test_a_bad_point_in_a_worker_s_chunk_fails_the_proof(field: str) -> None:
    """The last card is in the last chunk, which a worker thread checks."""
    inputs, outputs, proof, _ = honest(40, True, 5)
    last = len(outputs) - 1
    for bad in BAD_POINTS:
        outs, prf = list(outputs), proof
        if field == "outputs":
            outs[last] = (outs[last][0], bad)
        else:
            points = (*getattr(proof, field)[:last], bad)
            prf = dataclasses.replace(proof, **{field: points})
        rejects(CONTEXT, JOINT, inputs, check_deck(outs, len(outs), "output", points=False), prf)
        assert invalid_point(outs, prf, "output") is not None
    # and a false proof whose points are all good fails in a worker's chunk too
    swapped = list(outputs)
    swapped[last - 1], swapped[last] = swapped[last], swapped[last - 1]
    rejects(CONTEXT, JOINT, inputs, swapped, proof)


@pytest.mark.parametrize(("cores", "peers", "variable", "threads"), [
    (2, 1, None, 2), (2, 5, None, 1), (8, 5, None, 1), (16, 2, None, 4), (1, 1, None, 1),
    (2, 5, "3", 3), (2, 1, "1", 1), (2, 1, "0", 1), (2, 1, " 2 ", 2), (2, 5, "lots", 1), (8, 1, "-3", 4),
    (2, 1, "²", 2), (2, 1, "٣", 2), (2, 1, "1e3", 2), (2, 1, "0" * 5000, 2),
])
def test_seats_on_one_machine_share_its_cores(
    monkeypatch: pytest.MonkeyPatch, cores: int, peers: int, variable: str | None, threads: int,
) -> None:
    """The variable decides when it is a whole number (anything else is ignored, never fatal);
    else the cores are shared among the seats on this machine, at most four each."""
    monkeypatch.setattr(workers, "cores", lambda: cores)
    if variable is None:
        monkeypatch.delenv(workers.THREADS_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(workers.THREADS_VARIABLE, variable)
    assert workers.share_cores(peers) == threads


def test_bot_peers_started_on_this_machine_are_told_their_share_of_its_cores(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
) -> None:
    started: list[dict[str, str]] = []

    def popen(command: list[str], **options: Any) -> object:
        started.append(options["env"])
        return object()

    monkeypatch.setattr(workers, "cores", lambda: 2)
    monkeypatch.delenv(workers.THREADS_VARIABLE, raising=False)
    monkeypatch.setattr(play.subprocess, "Popen", popen)
    play.spawn_bot_peers("127.0.0.1:1", 4, "random", tmp_path, None, 1.0)
    assert [env[workers.THREADS_VARIABLE] for env in started] == ["1"] * 4
    monkeypatch.setenv(workers.THREADS_VARIABLE, "2")  # the player's own choice goes to them as it is
    started.clear()
    play.spawn_bot_peers("127.0.0.1:1", 4, "random", tmp_path, None, 1.0)
    assert [env[workers.THREADS_VARIABLE] for env in started] == ["2"] * 4
