"""Line editing for the plain prompt at a terminal (prompt_toolkit).

Read from the terminal's own line discipline, the plain prompt took the arrow keys as text
(a move typed as "path 3 at 1,0" and mended with ← read "path 3 at 1,^[[D2") and a line the
table said meanwhile wiped what had been typed from sight (it was still read).  Here
prompt_toolkit edits the line (arrows, Home and End, ↑ for the lines typed before) and
prints what is said meanwhile above it, the line being typed kept as it was.
"""
from __future__ import annotations

import _thread
import os
import sys
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

    def lines(self, prompt: Callable[[], str]) -> Iterator[str]:
        """Each line as Enter ends it, until Ctrl-D on an empty line.  ``prompt`` is asked for
        the text before the line at every redraw (``refresh``).  Ctrl-C interrupts the main
        thread, as it does where the terminal turns it into a signal."""
        with patch_stdout(raw=True):  # every thread's prints, above the line being typed
            while True:
                try:
                    yield self._session.prompt(prompt)
                except EOFError:
                    return
                except KeyboardInterrupt:
                    _thread.interrupt_main()
                    return

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
