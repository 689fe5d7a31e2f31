"""Bot-only tournaments: many in-process games across worker processes, with statistics.

Game ``g`` of a tournament with seed ``S`` is dealt by a trusted dealer seeded with
``game_seed(S, g)`` and seats bot ``bots[(g + seat) % len(bots)]``, so every bot plays
every seat equally often and the roles fall to seats at random.  Results are gathered in
game order and ratings computed in that order, so the same seed gives the same report
whatever the number of worker processes.
"""
from __future__ import annotations

import math
import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from .botapi import bot_factory
from .match import play_game
from .rules import GameConfig, Role, Winners


@dataclass(frozen=True)
class TournamentSpec:
    players: int
    games: int
    bots: tuple[str, ...]
    seed: int = 0
    variants: frozenset[str] = frozenset()
    jobs: int = 1
    time_limit: float | None = 5.0
    edition: str = "base"

    @property
    def config(self) -> GameConfig:
        return GameConfig(self.players, self.edition, self.variants)

    def validate(self) -> None:
        """Raise ValueError unless the players, edition and variants make a game (GameConfig checks)."""
        GameConfig(self.players, self.edition, self.variants)


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


def game_seed(seed: int, index: int) -> int:
    return seed * 1_000_003 + index


def lineup(bots: Sequence[str], players: int, index: int) -> tuple[str, ...]:
    return tuple(bots[(index + seat) % len(bots)] for seat in range(players))


def run_one(spec: TournamentSpec, index: int) -> GameSummary:
    seats = lineup(spec.bots, spec.players, index)
    record = play_game(spec.config, list(seats), game_seed(spec.seed, index), time_limit=spec.time_limit, record_actions=False)
    return GameSummary(
        index,
        seats,
        record.scores,
        record.winners,
        tuple(record.roles),
        tuple(record.round_winners),
        tuple(f"game {index} seat {i.seat} ({i.bot}) {i.kind}: {i.detail}" for i in record.incidents),
        tuple(record.round_trapped),
    )


_worker_spec: TournamentSpec | None = None


def _init_worker(spec: TournamentSpec) -> None:
    global _worker_spec
    _worker_spec = spec


def _run_in_worker(index: int) -> GameSummary:
    assert _worker_spec is not None
    return run_one(_worker_spec, index)


def run_games(spec: TournamentSpec) -> Iterator[GameSummary]:
    """Play every game of the tournament; yields summaries in game order."""
    for name in set(spec.bots):
        bot_factory(name)  # fail early, in the parent, on a bad bot spec
    if spec.jobs <= 1:
        for index in range(spec.games):
            yield run_one(spec, index)
        return
    context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
    chunk = max(1, min(50, spec.games // (spec.jobs * 8) or 1))
    with context.Pool(spec.jobs, initializer=_init_worker, initargs=(spec,)) as pool:
        yield from pool.imap(_run_in_worker, range(spec.games), chunksize=chunk)


# -- statistics -----------------------------------------------------------------------

#: The kinds of round result each role wins (RULES.md 8 for Saboteur 2's dwarfs); a
#: geologist is never a winner, whatever gold the crystals bring.
ROLE_WINS: dict[Role, frozenset[Winners]] = {
    Role.GOLD_DIGGER: frozenset((Winners.GOLD_DIGGERS,)),
    Role.SABOTEUR: frozenset((Winners.SABOTEURS,)),
    Role.SELFISH_DWARF: frozenset((Winners.SELFISH_DWARF,)),
    Role.BLUE_DIGGER: frozenset((Winners.BLUE_TEAM, Winners.BOTH_TEAMS)),
    Role.GREEN_DIGGER: frozenset((Winners.GREEN_TEAM, Winners.BOTH_TEAMS)),
    Role.BOSS: frozenset((Winners.BLUE_TEAM, Winners.GREEN_TEAM, Winners.BOTH_TEAMS, Winners.BOSS)),
    Role.PROFITEER: frozenset((Winners.BLUE_TEAM, Winners.GREEN_TEAM, Winners.BOTH_TEAMS, Winners.SABOTEURS, Winners.PROFITEER)),
    Role.GEOLOGIST: frozenset(),
}
#: The roles counted as miners (gold-diggers of the base game, either team's diggers in Saboteur 2).
MINERS = frozenset((Role.GOLD_DIGGER, Role.BLUE_DIGGER, Role.GREEN_DIGGER))


def role_won(role: Role, winners: Winners) -> bool:
    """Whether a player of ``role`` was on the winning side of a round that ``winners`` won."""
    return winners in ROLE_WINS[role]


@dataclass
class BotStats:
    name: str
    games: int = 0
    outright_wins: int = 0
    shared_wins: int = 0
    gold: list[int] = field(default_factory=list)
    #: role -> [rounds played in it, rounds won]
    roles: dict[Role, list[int]] = field(default_factory=dict)
    rating_mu: float = 25.0
    rating_sigma: float = 25.0 / 3

    @property
    def miner_rounds(self) -> int:
        return sum(self.roles[role][0] for role in MINERS if role in self.roles)

    @property
    def miner_wins(self) -> int:
        return sum(self.roles[role][1] for role in MINERS if role in self.roles)

    @property
    def saboteur_rounds(self) -> int:
        return self.roles.get(Role.SABOTEUR, [0, 0])[0]

    @property
    def saboteur_wins(self) -> int:
        return self.roles.get(Role.SABOTEUR, [0, 0])[1]

    def mean_gold(self) -> float:
        return sum(self.gold) / len(self.gold) if self.gold else 0.0

    def gold_ci95(self) -> float:
        """Half-width of the 95% confidence interval of the mean gold (normal approximation)."""
        n = len(self.gold)
        if n < 2:
            return 0.0
        mean = self.mean_gold()
        variance = sum((g - mean) ** 2 for g in self.gold) / (n - 1)
        return 1.96 * math.sqrt(variance / n)

    def to_data(self) -> dict[str, Any]:
        return {
            "bot": self.name,
            "games": self.games,
            "outright_wins": self.outright_wins,
            "shared_wins": self.shared_wins,
            "mean_gold": round(self.mean_gold(), 4),
            "mean_gold_ci95": round(self.gold_ci95(), 4),
            "miner_rounds": self.miner_rounds,
            "miner_win_rate": _rate(self.miner_wins, self.miner_rounds),
            "saboteur_rounds": self.saboteur_rounds,
            "saboteur_win_rate": _rate(self.saboteur_wins, self.saboteur_rounds),
            "role_rounds": {role.value: rounds for role, (rounds, _) in sorted(self.roles.items(), key=_role_order)},
            "role_win_rates": {
                role.value: _rate(wins, rounds) if ROLE_WINS[role] else None
                for role, (rounds, wins) in sorted(self.roles.items(), key=_role_order)
            },
            "rating_mu": round(self.rating_mu, 3),
            "rating_sigma": round(self.rating_sigma, 3),
            "rating_ordinal": round(self.rating_mu - 3 * self.rating_sigma, 3),
        }


def _role_order(item: tuple[Role, list[int]]) -> int:
    return list(Role).index(item[0])


def _rate(wins: int, total: int) -> float | None:
    return round(wins / total, 4) if total else None


@dataclass
class TournamentReport:
    spec: TournamentSpec
    bots: dict[str, BotStats]
    games: int = 0
    rounds: int = 0
    team_wins: dict[str, int] = field(default_factory=dict)
    incidents: list[str] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {
            "players": self.spec.players,
            "edition": self.spec.edition,
            "games": self.games,
            "seed": self.spec.seed,
            "variants": sorted(self.spec.variants),
            "bots": [stats.to_data() for stats in self.bots.values()],
            "rounds": self.rounds,
            "team_win_rates": {team: _rate(count, self.rounds) for team, count in sorted(self.team_wins.items())},
            "incidents": len(self.incidents),
            "incident_samples": self.incidents[:20],
        }


class StatsCollector:
    """Folds game summaries, in game order, into a report with openskill ratings."""

    def __init__(self, spec: TournamentSpec) -> None:
        from openskill.models import PlackettLuce

        self.model = PlackettLuce()
        self.ratings = {name: self.model.rating(name=name) for name in dict.fromkeys(spec.bots)}
        self.report = TournamentReport(spec, {name: BotStats(name) for name in self.ratings})
        self.report.team_wins = {w.value: 0 for w in Winners}

    def add(self, game: GameSummary) -> None:
        report = self.report
        report.games += 1
        shared = len(game.winners) > 1
        for seat, name in enumerate(game.lineup):
            stats = report.bots[name]
            stats.games += 1
            stats.gold.append(game.scores[seat])
            if seat in game.winners:
                if shared:
                    stats.shared_wins += 1
                else:
                    stats.outright_wins += 1
        trapped_in = game.round_trapped or ((),) * len(game.roles)
        for roles, winners, trapped in zip(game.roles, game.round_winners, trapped_in, strict=True):
            report.rounds += 1
            report.team_wins[winners.value] += 1
            for seat, name in enumerate(game.lineup):
                stats = report.bots[name]
                role = roles[seat]
                won = role_won(role, winners) and seat not in trapped  # a trapped player never wins
                tally = stats.roles.setdefault(role, [0, 0])
                tally[0] += 1
                tally[1] += won
        report.incidents += game.incidents
        self._rate(game)

    def _rate(self, game: GameSummary) -> None:
        teams = [[self.ratings[name]] for name in game.lineup]
        best = max(game.scores)
        ranks = [float(best - score) for score in game.scores]
        rated = self.model.rate(teams, ranks=ranks)
        sums: dict[str, list[float]] = {}
        for name, (new,) in zip(game.lineup, rated, strict=True):
            acc = sums.setdefault(name, [0.0, 0.0, 0.0])
            acc[0] += new.mu
            acc[1] += new.sigma
            acc[2] += 1
        for name, (mu, sigma, count) in sums.items():
            rating = self.ratings[name]
            rating.mu, rating.sigma = mu / count, sigma / count
            stats = self.report.bots[name]
            stats.rating_mu, stats.rating_sigma = rating.mu, rating.sigma


def run_tournament(spec: TournamentSpec, progress: Callable[[int], None] | None = None) -> TournamentReport:
    collector = StatsCollector(spec)
    for done, game in enumerate(run_games(spec), 1):
        collector.add(game)
        if progress is not None:
            progress(done)
    return collector.report


def format_report(report: TournamentReport) -> str:
    lines = [
        f"{report.games} games, {report.spec.players} players, seed {report.spec.seed}"
        + (f", edition {report.spec.edition}" if report.spec.edition != "base" else "")
        + (f", variants {','.join(sorted(report.spec.variants))}" if report.spec.variants else ""),
        "",
        f"{'bot':<16} {'games':>6} {'wins':>6} {'shared':>6} {'gold/game':>16} {'miner win':>9} {'sab. win':>8} {'rating':>14}",
    ]
    for stats in sorted(report.bots.values(), key=lambda s: -s.mean_gold()):
        data = stats.to_data()
        miner = "-" if data["miner_win_rate"] is None else f"{data['miner_win_rate']:.1%}"
        sab = "-" if data["saboteur_win_rate"] is None else f"{data['saboteur_win_rate']:.1%}"
        gold = f"{stats.mean_gold():.2f} ± {stats.gold_ci95():.2f}"
        rating = f"{stats.rating_mu:.1f} ± {stats.rating_sigma:.1f}"
        wins = f"{stats.games:>6} {stats.outright_wins:>6} {stats.shared_wins:>6}"
        lines.append(f"{stats.name:<16} {wins} {gold:>16} {miner:>9} {sab:>8} {rating:>14}")
    if report.spec.edition != "base":
        lines.append("")
        lines.append("win rate by role (rounds played): a geologist is never a winner, the crystals pay it")
        for stats in sorted(report.bots.values(), key=lambda s: -s.mean_gold()):
            parts = [
                f"{role.value} " + ("-" if role is Role.GEOLOGIST else f"{wins / rounds:.0%}") + f" ({rounds})"
                for role, (rounds, wins) in sorted(stats.roles.items(), key=_role_order)
            ]
            lines.append(f"  {stats.name:<14} " + ", ".join(parts))
    lines.append("")
    rates = report.to_data()["team_win_rates"]
    lines.append(
        "team win rates per round: "
        + ", ".join(f"{team} {rate:.1%}" for team, rate in rates.items() if rate)
    )
    if report.incidents:
        lines.append(f"bot incidents: {len(report.incidents)} (first: {report.incidents[0]})")
    return "\n".join(lines)
