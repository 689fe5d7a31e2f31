"""Batches opened ahead (protocol.md §5.6.2): the next round's decks, shuffled between the
moves of this one, so that the pause between rounds holds no shuffle of them.

A seat shuffles such a batch right after one of its moves, and checks the others' shuffles
of it in one background thread, at the lowest priority the system gives a thread: the
checks use what the turns leave of the cores.  It must have checked them all before it
sends a share of any card of the batch, and before it judges another seat's accusation
(``finish``); the shares of this round's cards do not wait for them.  A second thread, at
the priority of the turns, checks the shares published for a card's first reveal when the
card is shown to all (``ShareBook.check_later``): those are checked before the seat sends
any share, so they do not queue behind a shuffle's check.  A seat that needs a check done
waits for its thread rather than run the check itself: measured, that kept the turns
shorter (the thread has mostly begun it, and a second check at once only takes a core from
the seat that moves next).
"""
from __future__ import annotations

import contextlib
import copy
import os
import sys
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from ..crypto.workers import keep_to_this_thread
from ..rules import Phase, State
from .dealer import MentalDealer
from .errors import ProtocolViolation
from .messages import Shuffle
from .shuffles import ShuffleRun

#: the process's threads of this module, by name, with the process they were made in
_threads: dict[str, tuple[int, ThreadPoolExecutor]] = {}


def _low_priority() -> None:
    """The background thread gives way to every other (Linux: the nice value of one thread)."""
    keep_to_this_thread()
    if sys.platform.startswith("linux"):  # elsewhere the call would reprioritize the whole process
        with contextlib.suppress(OSError):
            os.setpriority(os.PRIO_PROCESS, threading.get_native_id(), 19)


def _thread(name: str, start: Callable[[], None]) -> ThreadPoolExecutor:
    """The process's one thread called ``name``, shared by every node in it, first come first
    served (``start`` runs in it first; a forked child makes its own)."""
    made = _threads.get(name)
    if made is None or made[0] != os.getpid():
        made = _threads[name] = (os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix=name, initializer=start))
    return made[1]


def _background() -> ThreadPoolExecutor:
    """The thread that checks other seats' shuffles, at the lowest priority."""
    return _thread("ahead-checks", _low_priority)


def _share_checks() -> ThreadPoolExecutor:
    """The thread that checks the shares of cards shown to all, at the priority of the turns:
    every share the seat sends waits for these checks, and a turn that waited for a thread
    of the lowest priority waited for the other seats' work too (measured: 3-4 ms a move on
    average, against 1 ms at this priority)."""
    return _thread("share-checks", keep_to_this_thread)


def _maker() -> ThreadPoolExecutor:
    """The thread that makes a seat's shuffle before its turn, at the priority of the turns:
    the work is due anyway."""
    return _thread("ahead-shuffle", keep_to_this_thread)


class AheadBatches:
    """One node's batches opened ahead: who has shuffled each, and the checks under way."""

    def __init__(self, players: int) -> None:
        self.players = players
        #: batch -> the seats that have shuffled it, in the order they did
        self.shufflers: dict[int, list[int]] = {}
        #: the checks under way, in the order the records came, each with the batch of the
        #: shuffle it checks (None: shares checked when their card is shown to all)
        self._checks: list[tuple[Future[None], int | None]] = []
        #: our own shuffle of a batch, made before our turn: by (batch, shufflers before us)
        self._made: dict[tuple[int, int], Future[Shuffle]] = {}

    def __deepcopy__(self, memo: dict[int, Any]) -> AheadBatches:
        """A copy of a node (tests copy games in progress) shares the checks and the shuffles
        under way: a future cannot be copied, and its result is the same for both."""
        twin = AheadBatches(self.players)
        twin.shufflers = copy.deepcopy(self.shufflers, memo)
        twin._checks = list(self._checks)
        twin._made = dict(self._made)
        return twin

    def take_up(self, dealer: MentalDealer, runs: dict[int, ShuffleRun]) -> None:
        """Start the batches the engine opened ahead (``MentalDealer.shuffle_ahead``)."""
        while dealer.opened_ahead:
            index = dealer.opened_ahead.pop(0)
            batch = dealer.batches[index]
            runs[index] = ShuffleRun.starting(batch.need, batch.inputs)
            self.shufflers[index] = []

    def due_from(self, mover: int) -> int | None:
        """The batch ``mover`` shuffles right after its move: one opened ahead that is not
        complete and that it has not shuffled."""
        return next((b for b, seats in self.shufflers.items() if len(seats) < self.players and mover not in seats), None)

    def remaining(self, batch: int) -> list[int]:
        """The seats that have not shuffled ``batch``, in seat order."""
        return [s for s in range(self.players) if s not in self.shufflers[batch]]

    def shuffled(self, batch: int, seat: int) -> bool:
        """Note ``seat``'s shuffle of ``batch``; True when it completes the batch."""
        seats = self.shufflers[batch]
        seats.append(seat)
        return len(seats) == self.players

    def make_later(self, batch: int, make: Callable[[], Shuffle]) -> None:
        """Make our shuffle of ``batch`` on its present input, in a thread of its own."""
        key = (batch, len(self.shufflers[batch]))
        if key not in self._made:
            self._made[key] = _maker().submit(make)

    def forget_made(self, batch: int) -> None:
        """Drop every shuffle of ``batch`` made or under way: ours went out, or the batch is
        complete (a rejoining seat's replay asks for some it will never send)."""
        for key in [k for k in self._made if k[0] == batch]:
            self._made.pop(key).cancel()

    def made(self, batch: int) -> Shuffle | None:
        """Our shuffle of ``batch`` made before our turn on the input it has now (waited for if
        under way), or None: then it is made now (one not started yet is dropped)."""
        key = (batch, len(self.shufflers[batch]))
        for other in [k for k in self._made if k[0] == batch and k != key]:
            self._made.pop(other).cancel()  # made on an input that is no longer ours
        future = self._made.pop(key, None)
        if future is None or future.cancel():
            return None
        return future.result()

    def check_later(self, check: Callable[[], None], record: bytes, batch: int | None = None) -> None:
        """Run ``check`` in the background: a shuffle of ``batch``, or (None) shares of a card
        shown to all.  A violation it finds carries ``record`` as evidence."""
        thread = _share_checks() if batch is None else _background()
        self._checks.append((thread.submit(with_evidence, check, record), batch))

    def failure(self) -> ProtocolViolation | None:
        """The first violation the checks done so far found (in the order the records came),
        without waiting for the rest."""
        while self._checks and self._checks[0][0].done():
            error = self._checks[0][0].exception()
            if error is not None:
                return _violation(error)
            self._checks.pop(0)
        return None

    def settled(self, batches_to: int | None = None) -> bool:
        """Whether every check is done and none failed; with ``batches_to``, every check of
        shares and of the shuffles of batches up to that one."""
        covered = [future for future, batch in self._checks if _covers(batches_to, batch)]
        return self.failure() is None and all(future.done() and future.exception() is None for future in covered)

    def finish(self, batches_to: int | None = None) -> None:
        """Wait for every check; raise the first violation, in the order the records came.

        With ``batches_to``, wait only for the checks of shares and of the shuffles of
        batches up to that one (a batch is shuffled from cards of earlier ones): what must be
        checked before a share of a card of those batches goes out.  Should one of them fail,
        every earlier check is waited for too: the earliest record at fault decides."""
        covered = [future for future, batch in self._checks if _covers(batches_to, batch)]
        if batches_to is not None and all(future.exception() is None for future in covered):  # waits for them
            return
        while self._checks:
            error = self._checks[0][0].exception()  # waits for it
            if error is not None:
                raise _violation(error)
            self._checks.pop(0)


def _covers(batches_to: int | None, batch: int | None) -> bool:
    """Whether a check of ``batch`` (None: of shares) is due before a share of a card of the
    batches up to ``batches_to`` (None: of any) goes out."""
    return batches_to is None or batch is None or batch <= batches_to


def mover_in_play(before: State | None, after: State | None) -> int | None:
    """The seat whose move took ``before`` to ``after``, if it moved in the play phase and the
    round goes on: a batch opened ahead is shuffled between such moves, never in the pause
    between rounds."""
    if before is None or after is None or before.phase != Phase.PLAY or after.phase != Phase.PLAY:
        return None
    return before.current if after.round == before.round else None


def with_evidence(check: Callable[[], None], record: bytes) -> None:
    """Run ``check``; a violation it raises carries ``record``, the record it checked, as
    its evidence (it is found after that record was taken in)."""
    try:
        check()
    except ProtocolViolation as violation:
        violation.evidence = record
        raise


def _violation(error: BaseException) -> ProtocolViolation:
    if isinstance(error, ProtocolViolation):
        return error
    raise error


__all__ = ["AheadBatches", "mover_in_play"]
