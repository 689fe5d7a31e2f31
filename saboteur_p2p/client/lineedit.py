"""Line editing for the plain prompt at a terminal (prompt_toolkit).

Read from the terminal's own line discipline, the plain prompt took the arrow keys as text
(a move typed as "path 3 at 1,0" and mended with ← read "path 3 at 1,^[[D2") and a line the
table said meanwhile wiped what had been typed from sight (it was still read).  Here
prompt_toolkit edits the line (arrows, Home and End, ↑ for the lines typed before) and
prints what is said meanwhile above it, the line being typed kept as it was.
"""
from __future__ import annotations

import _thread
import atexit
import contextlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import TextIO, cast

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import StdoutProxy


class LineEditor:
    """Lines typed at a terminal, edited as they are typed; prints meanwhile go above them."""

    def __init__(self, input: Input | None = None, output: Output | None = None) -> None:
        """``input``, ``output``: prompt_toolkit's (tests give pipes; None: the terminal's)."""
        self._session: PromptSession[str] = PromptSession(input=input, output=output)
        #: ``close`` was called: no more lines are read
        self.closed = False
        self._reading = False
        #: set once ``lines`` has given the terminal back
        self._done = threading.Event()

    def lines(self, prompt: Callable[[], str]) -> Iterator[str]:
        """Each line as Enter ends it, until Ctrl-D on an empty line or ``close``.  ``prompt``
        is asked for the text before the line at every redraw (``refresh``).  Ctrl-C
        interrupts the main thread, as it does where the terminal turns it into a signal."""
        self._reading = True
        atexit.register(self.close)  # whatever ends the process: the terminal as it was, the prints written
        try:
            with _above_the_line():  # every thread's prints, above the line being typed
                while not self.closed:
                    try:
                        yield self._session.prompt(prompt)
                    except EOFError:
                        return
                    except KeyboardInterrupt:
                        _thread.interrupt_main()
                        return
        finally:
            self._done.set()
            atexit.unregister(self.close)

    def close(self, wait: float = 2.0) -> None:
        """Stop reading (the game is over): the prompt goes, the lines printed above it are
        written out, and the terminal is as it was.  The process ending with the prompt still
        up lost them, and left the terminal without echo."""
        self.closed = True
        if not self._reading:
            return
        deadline = time.monotonic() + wait
        # again until the reader is done: it may be starting its next prompt, not yet
        # running, as we ask (close then waited in vain with the prompt up: found by review)
        while not self._done.is_set() and time.monotonic() < deadline:
            self._stop_prompt()
            self._done.wait(0.05)

    def _stop_prompt(self) -> None:
        """End the prompt under way, if one is (from any thread)."""
        app = self._session.app
        loop = app.loop
        if loop is None or not app.is_running:
            return

        def stop() -> None:
            if app.is_running and app.future is not None and not app.future.done():
                app.exit(exception=EOFError())

        with contextlib.suppress(RuntimeError):  # the prompt ended meanwhile: its loop is closed
            loop.call_soon_threadsafe(stop)

    def refresh(self) -> None:
        """Draw the prompt again (its text changed)."""
        app = self._session.app
        if app.is_running:
            app.invalidate()


@contextlib.contextmanager
def _above_the_line() -> Iterator[None]:
    """What is printed meanwhile goes above the line being typed: stdout, and stderr when it
    is a terminal too.  (prompt_toolkit's patch_stdout takes stderr whatever it is, and
    ``2>errors.txt`` caught nothing while the prompt was up: found by review.)"""
    with StdoutProxy(raw=True) as proxy:
        saved = sys.stdout, sys.stderr
        sys.stdout = cast(TextIO, proxy)
        if saved[1] is not None and saved[1].isatty():  # None: stderr closed (2>&-)
            sys.stderr = cast(TextIO, proxy)
        try:
            yield
        finally:
            sys.stdout, sys.stderr = saved


def terminal_editor() -> LineEditor | None:
    """A line editor when a person types at a terminal and reads it (else None: lines are
    read as they come, from a pipe or a file)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()) or os.environ.get("TERM") == "dumb":
        return None
    return LineEditor()
