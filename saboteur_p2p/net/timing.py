"""What the benchmarks read of a session: each turn's latency, when the game's first move was
due and each pause between rounds (``benchmarks/network_game.py``)."""
from __future__ import annotations

import json
import resource
import time
from pathlib import Path

from ..protocol.node import Node


class Timing:
    """Session mixin: the times of moves and rounds (``Session`` provides ``node``, ``seat``,
    ``stats`` and ``log_path``)."""

    node: Node
    seat: int
    #: records and bytes sent
    stats: dict[str, float]
    log_path: Path

    def _start_timing(self) -> None:
        #: seconds from sending each of our moves until the next seat's move is taken in
        self.turn_latencies: list[float] = []
        self._sent_move_at: float | None = None
        self._sent_in_round = 0
        #: when the game's first move was due (wall clock, for benchmarks across processes),
        #: and each pause from a round's last move to the next round's first move was due
        self.first_turn_at: float | None = None
        self.round_pauses: list[float] = []
        self._timed_round = 0
        self._last_move_at: float | None = None
        #: seconds each other seat's move took to take in (checked, applied, logged): its
        #: least says how busy the machine was (about 0.2 ms on a quiet 2-core machine)
        self.take_seconds: list[float] = []
        self._taking_since = 0.0

    def _sent_move(self) -> None:
        self._sent_move_at = self._last_move_at = time.monotonic()
        self._sent_in_round = self.node.state.round if self.node.state is not None else 0

    def _taking(self) -> None:
        """A record came from the network: the time it takes to take in starts now."""
        self._taking_since = time.monotonic()

    def _took_record(self) -> None:
        entries = self.node.log.entries
        if entries and entries[-1].kind == "action":
            now = self._last_move_at = time.monotonic()
            if entries[-1].sender != self.seat and self._taking_since:
                self.take_seconds.append(now - self._taking_since)
            self._taking_since = now  # a record it unblocked (it came early) starts here
        self._note_turn()

    def _time_rounds(self) -> None:
        """When the first move of each round is due: the game's first, and each pause
        between rounds (from the last move of one round), for the benchmarks."""
        state, head = self.node.state, self.node.next_expected
        if state is None or head is None or head.kind != "action" or state.round == self._timed_round:
            return
        if self._timed_round == 0:
            self.first_turn_at = time.time()
        elif self._last_move_at is not None:
            self.round_pauses.append(time.monotonic() - self._last_move_at)
        self._timed_round = state.round

    def _note_turn(self) -> None:
        """A turn's latency: from sending our move until the next seat's move is taken in
        (two hops and that seat's choosing), within one round."""
        if self._sent_move_at is None or not self.node.log.entries:
            return
        last = self.node.log.entries[-1]
        if self.node.finished or (last.kind == "action" and last.sender != self.seat):
            state = self.node.state
            if state is not None and state.round == self._sent_in_round and not self.node.finished:
                # a move that ends a round is followed by the next round's shuffles: not a turn
                self.turn_latencies.append(time.monotonic() - self._sent_move_at)
            self._sent_move_at = None

    def _write_stats(self, outcome: str) -> None:
        """Figures for benchmarks, beside the log: records and bytes sent, turn latencies,
        when the first move was due, the pauses between rounds, peak memory."""
        stats: dict[str, object] = dict(self.stats)
        stats["outcome"] = outcome
        stats["records"] = len(self.node.records)
        stats["peak_rss_kib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        stats["turn_latencies"] = self.turn_latencies
        stats["take_seconds"] = self.take_seconds
        stats["first_turn_at"] = self.first_turn_at
        stats["round_pauses"] = self.round_pauses
        self.log_path.with_suffix(".stats.json").write_text(json.dumps(stats))
