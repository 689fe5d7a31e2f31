"""What a closed terminal (SIGHUP) does: by default it kills the process, and a seat killed so
left its table waiting for it, and a host's bot peers running on (found by a play-test and a
review).  While a seat plays, a hang-up is handled as the person leaving or as Ctrl-C; at a
``play`` table (the person and this machine's bot peers) it is left to kill the process, so
that the next ``play`` takes the seat back."""
from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def hang_up_handled(handler: Callable[[int, Any], None] | signal.Handlers) -> Iterator[None]:
    """SIGHUP goes to ``handler`` within the block (in the main thread only, where Python runs
    signal handlers; ``signal.SIG_DFL``: the system's default); a hang-up ignored (nohup), or
    handled outside Python, is left as it is."""
    hang_up: signal.Signals | None = getattr(signal, "SIGHUP", None)  # none on Windows
    if hang_up is None or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(hang_up)
    ours = previous is signal.SIG_DFL or callable(previous)
    if ours:
        signal.signal(hang_up, handler)
    try:
        yield
    finally:
        if ours:
            signal.signal(hang_up, previous)


@contextlib.contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Ctrl-C and a closed terminal do nothing within the block (in the main thread): a bye on
    its way is not cut short by a second Ctrl-C, or by the window closed after the first."""
    kinds = [kind for kind in (signal.SIGINT, getattr(signal, "SIGHUP", None)) if kind is not None]
    if threading.current_thread() is not threading.main_thread():
        kinds = []
    previous = {kind: signal.getsignal(kind) for kind in kinds}
    for kind, handler in previous.items():
        if handler is not None:  # one set outside Python stays
            signal.signal(kind, signal.SIG_IGN)
    try:
        yield
    finally:
        for kind, handler in previous.items():
            if handler is not None:
                signal.signal(kind, handler)


def hang_up_kills() -> contextlib.AbstractContextManager[None]:
    """A closed terminal ends the process within the block, as a crash would (the system's
    default): what a ``play`` table wants, whose every other seat is a bot peer of this
    machine.  They wait for the seat, and the next ``play`` takes it back (README); handled
    as leaving, a closed window ended the game (found by a play-test)."""
    return hang_up_handled(signal.SIG_DFL)


def ctrl_c_unless_left(agent: object) -> Callable[[int, Any], None]:
    """A hang-up handled as Ctrl-C while the person plays, and as nothing once they have left
    (``agent.wants_to_quit``: a bot plays the seat on to the game's end, the terminal gone;
    a host that left could not close its window without ending everyone's game: a play-test)."""

    def handle(signum: int, frame: Any) -> None:
        if not getattr(agent, "wants_to_quit", False):
            raise KeyboardInterrupt

    return handle


def as_ctrl_c(signum: int, frame: Any) -> None:
    """A hang-up handled as Ctrl-C: the seat stops as it would at Ctrl-C (a host whose bot peers
    stop with it says bye first)."""
    raise KeyboardInterrupt


__all__ = ["as_ctrl_c", "ctrl_c_unless_left", "hang_up_handled", "hang_up_kills", "interrupts_ignored"]
