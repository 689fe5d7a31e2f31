"""What a session does when a message reaches a defect of ours: an exception that no check of
the protocol expected (every check raises ProtocolViolation, MalformedMessage or BadEnvelope).

The defect is ours, so it proves nothing against the seat that sent the message: nobody is
accused.  A word that is not logged (a ping, shares sent ahead, a chat) is dropped and the
game goes on.  After a record, or anywhere else in the loop, this seat cannot know that its
state is sound: it says so, leaves the table (``bye``, so the others stop at once instead of
waiting to name it gone) and keeps its log.  The traceback goes to a file beside the log, for
the report.
"""
from __future__ import annotations

import traceback
from pathlib import Path


def save_traceback(log_path: Path, error: BaseException) -> Path:
    """Write ``error``'s traceback beside the log (appended: a second defect keeps the first)."""
    path = log_path.with_name(log_path.name + ".defect.txt")
    with path.open("a", encoding="utf-8") as out:
        out.write("".join(traceback.format_exception(error)))
        out.write("\n")
    return path


def describe(error: BaseException) -> str:
    """The exception in one line, cut to a length a terminal shows."""
    text = f"{type(error).__name__}: {error}".replace("\n", " ")
    return text if len(text) <= 200 else text[:199] + "…"


__all__ = ["describe", "save_traceback"]
