"""Notices about what strangers and lying peers send, said at a bounded rate and cut short.

A peer that floods bad messages must not flood a person's screen, or a program's memory,
with a line for each: ``Notices`` says at most ``burst`` at once, then one every ``every``
seconds (a token bucket), and the next notice it does say tells how many it kept back.
Each notice is cut to ``width`` characters: what a peer sent, quoted in it, is the peer's
to choose (a message kind may be 64 KiB).
"""
from __future__ import annotations

import time
from collections.abc import Callable

from ..protocol.messages import printable


class Notices:
    def __init__(
        self, say: Callable[[str], object], every: float = 1.0, burst: int = 20, width: int = 300,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if every <= 0 or burst < 1:
            raise ValueError("notices need a positive interval and a burst of at least one")
        self.say = say
        self.every = every
        self.burst = burst
        self.width = width
        self.clock = clock
        self.tokens = float(burst)
        self.last = clock()
        #: notices kept back since the last one said
        self.unsaid = 0

    def __call__(self, text: str) -> None:
        now = self.clock()
        self.tokens = min(float(self.burst), self.tokens + (now - self.last) / self.every)
        self.last = now
        if self.tokens < 1.0:
            self.unsaid += 1
            return
        self.tokens -= 1.0
        text = printable(text)  # a notice quotes what a peer sent: no escape or line of its own
        if len(text) > self.width:
            text = text[: self.width - 1] + "…"
        if self.unsaid:
            text += f" ({self.unsaid} more such notices kept back)"
            self.unsaid = 0
        self.say(text)

    def flush(self) -> None:
        """Say how many notices were kept back since the last one said (when the flood ends)."""
        if self.unsaid:
            self.say(f"{self.unsaid} more such notices were kept back")
            self.unsaid = 0
