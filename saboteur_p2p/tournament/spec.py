"""What a tournament is: its spec, the deal and seating of each game, and one game played.

Every game is decided by the spec and its index alone, so any runner (one process, worker
processes, a cluster that re-runs a lost batch) gets the same result for it.

Three kinds of tournament share this plan.  Games come in *deals*: groups of consecutive
indices that share one deal seed.

- plain: one game a deal; game ``g`` seats ``bots[(g + seat) % len(bots)]``, so every bot
  plays every seat equally often.
- duplicate (``duplicate=True``): each deal is played once per rotation of its lineup, so a
  bot holds every seat's cards of the deal and the luck of the deal cancels.
- candidate (``candidate="name"``): each deal is played twice, once with the baseline
  lineup and once with the candidate in one seat (seat ``deal % players``); the rest of the
  table is the same, so the difference of that seat's gold is the candidate's effect.
"""
from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..botapi import BotLoadError
from ..match import play_game
from ..rules import GameConfig, Role, Winners

#: the largest tournament seed, either way: every game's seed stays within what a results file
#: may hold (``game_seed``; a larger one made files no report could read, found by review)
MAX_SEED = 2**62


@dataclass(frozen=True)
class TournamentSpec:
    players: int
    #: games, or deals for a duplicate or candidate tournament (see ``total_games``)
    games: int
    bots: tuple[str, ...]
    seed: int = 0
    variants: frozenset[str] = frozenset()
    jobs: int = 1
    time_limit: float | None = 5.0
    edition: str = "base"
    duplicate: bool = False
    candidate: str | None = None

    @property
    def config(self) -> GameConfig:
        return GameConfig(self.players, self.edition, self.variants)

    @property
    def mode(self) -> str:
        return "candidate" if self.candidate is not None else "duplicate" if self.duplicate else "plain"

    @property
    def deal_size(self) -> int:
        """Games played with each deal: 1, the player count (duplicate), or 2 (candidate)."""
        return self.players if self.duplicate else 2 if self.candidate is not None else 1

    @property
    def total_games(self) -> int:
        return self.games * self.deal_size

    @property
    def names(self) -> tuple[str, ...]:
        """Every bot spec that plays, the baseline's in order, then the candidate."""
        return tuple(dict.fromkeys(self.bots + ((self.candidate,) if self.candidate is not None else ())))

    def validate(self) -> None:
        """Raise ValueError unless the spec makes a tournament (GameConfig checks the rules' part)."""
        GameConfig(self.players, self.edition, self.variants)
        if not self.bots:
            raise ValueError("name at least one bot")
        if self.candidate is not None and not self.candidate:
            raise ValueError("--candidate names no bot")
        if self.duplicate and self.candidate is not None:
            raise ValueError("--duplicate and --candidate are two kinds of paired tournament; choose one")
        if self.duplicate and len(set(self.bots)) < 2:
            raise ValueError("--duplicate compares bots seat by seat: name at least two different bots")
        if self.candidate is not None and self.candidate in self.bots:
            raise ValueError(f"the candidate {self.candidate!r} is also a baseline bot; compare two different specs")

    def validate_new(self) -> None:
        """``validate`` for a tournament about to start: its seed must also be one a results
        file can hold (a file read back is not refused for it: one written before this limit
        stays readable, found by review)."""
        self.validate()
        if not -MAX_SEED <= self.seed <= MAX_SEED:
            raise ValueError(f"--seed {self.seed} is out of range: a tournament seed is a whole number from -2**62 to 2**62")

    def identity(self) -> dict[str, Any]:
        """The fields that decide every game's result (not how many games, nor who runs them)."""
        return {
            "players": self.players,
            "edition": self.edition,
            "variants": sorted(self.variants),
            "bots": list(self.bots),
            "seed": self.seed,
            "duplicate": self.duplicate,
            "candidate": self.candidate,
        }

    def to_data(self) -> dict[str, Any]:
        return {**self.identity(), "games": self.games, "time_limit": self.time_limit}

    @classmethod
    def from_data(cls, data: dict[str, Any], jobs: int = 1) -> TournamentSpec:
        """The spec ``to_data`` wrote, every field's type checked (``validate`` checks the rest)."""
        def field_of(key: str, kinds: tuple[type, ...], default: Any = ...) -> Any:
            value = data[key] if default is ... else data.get(key, default)
            if type(value) not in kinds:
                raise ValueError(f"{key} is {value!r}")
            return value

        bots = field_of("bots", (list,))
        variants = field_of("variants", (list,))
        if not all(type(b) is str and b for b in bots) or not all(type(v) is str for v in variants):
            raise ValueError(f"bots {bots!r} or variants {variants!r} are not names")
        time_limit = field_of("time_limit", (int, float, type(None)), None)
        if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
            raise ValueError(f"time_limit is {time_limit!r}")
        games = field_of("games", (int,))
        if games < 1:
            raise ValueError(f"games is {games!r}")
        return cls(
            field_of("players", (int,)), games, tuple(bots), field_of("seed", (int,)), frozenset(variants), jobs,
            time_limit, field_of("edition", (str,)), field_of("duplicate", (bool,)),
            field_of("candidate", (str, type(None)), None),
        )


@dataclass(frozen=True)
class GameSummary:
    """The part of a game's record that statistics need (small enough to send between processes)."""

    index: int
    lineup: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[int, ...]
    roles: tuple[tuple[Role, ...], ...]
    round_winners: tuple[Winners, ...]
    incidents: tuple[str, ...]
    round_trapped: tuple[tuple[int, ...], ...] = ()
    #: the dealer's seed (the same for every game of a deal)
    seed: int = 0
    #: seconds spent playing the game; a measurement, so left out of comparisons
    seconds: float = field(default=0.0, compare=False)


def game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def lineup(bots: Sequence[str], players: int, index: int) -> tuple[str, ...]:
    return tuple(bots[(index + seat) % len(bots)] for seat in range(players))


def deal_of(spec: TournamentSpec, index: int) -> int:
    return index // spec.deal_size


def candidate_seat(spec: TournamentSpec, deal: int) -> int:
    """The seat the candidate takes in a candidate tournament's deal: every seat in turn."""
    return deal % spec.players


def seating(spec: TournamentSpec, index: int) -> tuple[int, tuple[str, ...]]:
    """The dealer's seed and the bot of each seat for game ``index``."""
    deal, turn = divmod(index, spec.deal_size)
    if spec.mode == "plain":
        return game_seed(spec.seed, index), lineup(spec.bots, spec.players, index)
    base = lineup(spec.bots, spec.players, deal)
    if spec.duplicate:
        seats = tuple(base[(seat + turn) % spec.players] for seat in range(spec.players))
    elif turn == 0:
        seats = base
    else:
        chosen = candidate_seat(spec, deal)
        seats = tuple(spec.candidate if seat == chosen else bot for seat, bot in enumerate(base))  # type: ignore[misc]
    return game_seed(spec.seed, deal), seats


def run_one(spec: TournamentSpec, index: int) -> GameSummary:
    seed, seats = seating(spec, index)
    started = time.perf_counter()
    # what a bot prints goes to stderr, line by line: on stdout it ran into the report, and a
    # worker process's buffered lines were lost when the pool ended it (found by review)
    with contextlib.redirect_stdout(sys.stderr):
        try:
            record = play_game(spec.config, list(seats), seed, time_limit=spec.time_limit, record_actions=False)
        except BotLoadError as exc:
            raise BotLoadError(f"game {index}: {exc}") from None
    return GameSummary(
        index,
        seats,
        record.scores,
        record.winners,
        tuple(record.roles),
        tuple(record.round_winners),
        tuple(f"game {index} {incident}" for incident in record.incidents),
        tuple(record.round_trapped),
        seed,
        time.perf_counter() - started,
    )


def run_batch(spec: TournamentSpec, start: int, stop: int) -> list[GameSummary]:
    """Games ``start`` to ``stop - 1``: the unit of work a worker process or a cluster runs."""
    return [run_one(spec, index) for index in range(start, stop)]


#: batches in flight per worker: enough to keep every worker busy while the parent folds results
IN_FLIGHT_PER_WORKER = 4


def batch_size(total: int, workers: int) -> int:
    """Games per batch: large enough that sending work costs little, small enough to balance."""
    return max(1, min(50, total // (workers * 8) or 1))


def batches(start: int, stop: int, size: int) -> Iterator[tuple[int, int]]:
    for first in range(start, stop, size):
        yield first, min(first + size, stop)
