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
from collections.abc import Callable, Iterator

from prompt_toolkit import PromptSession
from prompt_toolkit.input import Input
from prompt_toolkit.output import Output
from prompt_toolkit.patch_stdout import patch_stdout


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
            with patch_stdout(raw=True):  # every thread's prints, above the line being typed
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
        app = self._session.app
        loop = app.loop
        if loop is not None and app.is_running:
            def stop() -> None:
                if app.is_running and app.future is not None and not app.future.done():
                    app.exit(exception=EOFError())

            with contextlib.suppress(RuntimeError):  # the prompt ended meanwhile: its loop is closed
                loop.call_soon_threadsafe(stop)
        self._done.wait(wait)

    def refresh(self) -> None:
        """Draw the prompt again (its text changed)."""
        app = self._session.app
        if app.is_running:
            app.invalidate()


def terminal_editor() -> LineEditor | None:
    """A line editor when a person types at a terminal and reads it (else None: lines are
    read as they come, from a pipe or a file)."""
    if not (sys.stdin.isatty() and sys.stdout.isatty()) or os.environ.get("TERM") == "dumb":
        return None
    return LineEditor()
