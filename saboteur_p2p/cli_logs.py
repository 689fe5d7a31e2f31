"""The commands that read a game log: ``verify`` (check it, and say who its seats are) and
``replay`` (check it and step through it)."""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import TYPE_CHECKING, Any

from .cli_table import _wants_client

if TYPE_CHECKING:
    from .protocol.node import GameSetup


def cmd_replay(args: argparse.Namespace) -> int:
    from .match import narrate
    from .protocol.verify import replay_file

    viewer = _wants_client(args)
    if viewer:
        from .client.replay import ReplayViewer, TableViews

        table = TableViews()  # the players panel: the table after each record
    with _Progress() as progress:
        verdict, observer = replay_file(args.log, progress, table if viewer else None)
    if observer is not None and observer.state is not None and viewer:
        title = os.path.basename(args.log)
        ReplayViewer(title, observer.state.events, list(observer.setup.names), verdict.message,
                     no_color=bool(os.environ.get("NO_COLOR")), views=table.views).run()
    elif observer is not None and observer.state is not None:
        for line in narrate(observer.state.events, list(observer.setup.names)):
            print(line)
    print(verdict.message)
    # a log made up by one person, every seat's key theirs, replays "OK" too: who the seats
    # are says it (found by an attack), as verify's lines do
    if observer is None or not _seats_as_expected(args, observer.setup):
        return 1
    return 0 if verdict.ok else 1


class _Progress:
    """``checking record N of M (P%)`` on one line of a terminal's stderr, ten times a second at
    most; nothing when stderr is not a terminal (a script reads only the verdict)."""

    def __init__(self, stream: Any = None) -> None:
        self.stream = sys.stderr if stream is None else stream
        self.shown = 0.0
        self.on = self.stream.isatty()

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.on and (now - self.shown >= 0.1 or done == total):
            self.shown = now
            self.stream.write(f"\rchecking record {done} of {total} ({100 * done // max(total, 1)}%)")
            self.stream.flush()

    def __enter__(self) -> _Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.on and self.shown:
            self.stream.write("\r\x1b[K")  # the verdict takes the line
            self.stream.flush()


def cmd_verify(args: argparse.Namespace) -> int:
    from .protocol.verify import replay_file

    with _Progress() as progress:
        verdict, observer = replay_file(args.log, progress)
    print(verdict.message)
    if observer is None or not _seats_as_expected(args, observer.setup):
        return 1
    if verdict.ok and args.finished and not verdict.finished:
        print("not a finished game (--finished)")
        return 1
    return 0 if verdict.ok else 1


def _seats_as_expected(args: argparse.Namespace, setup: GameSetup) -> bool:
    """Print who the log's seats are; False if they are not ``--expect``'s fingerprints."""
    from .protocol.verify import describe_setup, unexpected_seats

    for line in describe_setup(setup):
        print(line)
    if args.expect is not None and not args.expect.strip(", "):
        print("--expect names no fingerprint: nothing to compare the seats with")  # an empty variable in a script
        return False
    wrong = unexpected_seats(setup, args.expect.split(",")) if args.expect is not None else None
    if wrong is not None:
        print(wrong)
        return False
    return True
