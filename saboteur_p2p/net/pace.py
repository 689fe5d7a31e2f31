"""At most once per so many seconds for each key: what a peer does for another's cheap message."""
from __future__ import annotations

from collections.abc import Hashable


class Pace:
    """Whether something may be done again for a key, at most once per ``every`` seconds;
    it keeps at most ``keys`` keys, forgetting those whose time is up (a key a connection,
    say, and connections come and go)."""

    def __init__(self, every: float, keys: int = 256) -> None:
        self.every = every
        self.keys = keys
        self.last: dict[Hashable, float] = {}

    def allow(self, key: Hashable, now: float) -> bool:
        if now - self.last.get(key, float("-inf")) < self.every:
            return False
        if len(self.last) >= self.keys:
            self.last = {k: t for k, t in self.last.items() if now - t < self.every}
        self.last[key] = now
        return True
