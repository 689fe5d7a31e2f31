"""At most once per so many seconds for each key (what a peer does for another's cheap
message), and counts by address (what a stranger may try)."""
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


class ByAddress:
    """A count for each IP address (a lobby's wrong codes, its refused hellos); past ``keys``
    addresses the newcomers share one count, so memory stays bounded."""

    def __init__(self, keys: int = 4096) -> None:
        self.keys = keys
        self.counts: dict[str, int] = {}

    def _key(self, address: str) -> str:
        return address if address in self.counts or len(self.counts) < self.keys else "*"

    def count(self, address: str) -> int:
        return self.counts.get(self._key(address), 0)

    def add(self, address: str) -> int:
        """Count one more for ``address``; its count."""
        key = self._key(address)
        self.counts[key] = self.counts.get(key, 0) + 1
        return self.counts[key]


class Budget:
    """How many messages each key may send: ``rate`` a second, up to ``burst`` at once (a
    bucket of tokens per key); at most ``keys`` keys, forgetting those whose buckets are full
    again (a full bucket is what a new key gets)."""

    def __init__(self, rate: float, burst: float, keys: int = 256) -> None:
        self.rate = rate
        self.burst = burst
        self.keys = keys
        #: key -> (tokens, when they were counted)
        self.left: dict[Hashable, tuple[float, float]] = {}

    def take(self, key: Hashable, now: float, cost: float = 1.0) -> bool:
        """Spend ``cost`` tokens of ``key``'s: False (nothing spent) when it has not that many
        left.  Past ``keys`` keys whose buckets are not full, newcomers share one bucket."""
        if key not in self.left and len(self.left) >= self.keys:
            self.left = {k: (t, w) for k, (t, w) in self.left.items() if t + (now - w) * self.rate < self.burst}
            if len(self.left) >= self.keys:
                key = "*"
        tokens = self._refilled(key, now)
        spent = tokens >= cost
        self.left[key] = (tokens - cost if spent else tokens, now)
        return spent

    def spend(self, key: Hashable, now: float, cost: float) -> None:
        """Spend ``cost`` of ``key``'s tokens whatever is left, into debt (at most a burst's
        worth): for work found to cost more once done."""
        if key not in self.left and len(self.left) >= self.keys:
            return  # past ``keys`` keys: ``take`` lets newcomers share one bucket
        self.left[key] = (max(self._refilled(key, now) - cost, -self.burst), now)

    def _refilled(self, key: Hashable, now: float) -> float:
        """``key``'s tokens now: what it had, and what the rate gave since, at most a burst."""
        tokens, then = self.left.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - then) * self.rate)


class FirstWords:
    """The first ``n`` messages of each key (a connection) are let through, whatever else
    limits them; the ``keys`` newest keys are remembered (an older one is forgotten, so a new
    connection always has its own)."""

    def __init__(self, n: int, keys: int = 1024) -> None:
        self.n = n
        self.keys = keys
        self.used: dict[Hashable, int] = {}

    def take(self, key: Hashable) -> bool:
        used = self.used.get(key, 0)
        if used >= self.n:
            return False
        if key not in self.used and len(self.used) >= self.keys:
            del self.used[next(iter(self.used))]
        self.used[key] = used + 1
        return True
