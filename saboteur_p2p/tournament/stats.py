"""Tournament statistics folded game by game: per-bot gold and wins, ratings, paired differences.

Nothing here keeps a list that grows with the games: sums and counts only, the current deal's
few games, and a thinned series of ratings, so a million games take the memory of ten.
"""
from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

from ..rules import Role, Winners
from .spec import GameSummary, TournamentSpec, candidate_seat, deal_of

#: The kinds of round result each role wins (rules.md 8 for Saboteur 2's dwarfs); a
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
#: How many of the first incident texts a report keeps (it counts them all, and keeps the
#: first of each bot and kind too).
INCIDENT_SAMPLES = 20
#: an incident as a tournament words it (botapi.Incident, after its game): its seat
_INCIDENT_SEAT = re.compile(r"game \d+ seat (\d+) ")
#: the kinds of incident (botapi.GuardedSeat)
INCIDENT_KINDS = ("raised", "illegal", "timeout")


def incident_kind(text: str, lineup: tuple[str, ...]) -> tuple[str, str]:
    """The bot and kind of an incident's ``text`` in a game of ``lineup``: the bot is the one
    at the seat it names (read from the lineup, not from the text, which quotes the bot's own
    words after it), the kind the word after the bot's name; "?" where the text says otherwise."""
    found = _INCIDENT_SEAT.match(text)
    seat = int(found.group(1)) if found else -1
    if not 0 <= seat < len(lineup):
        return "?", "?"
    bot = lineup[seat]
    after = text[found.end():] if found else ""
    kind = after.removeprefix(f"({bot}) ").partition(":")[0] if after.startswith(f"({bot}) ") else "?"
    return bot, kind if kind in INCIDENT_KINDS else "?"
#: At most this many points of each bot's rating series are kept; past it every other is dropped.
RATING_POINTS = 512


def t95(n: int) -> float:
    """The multiplier of a standard error for a 95% interval of a mean of ``n`` values:
    Student's t quantile 0.975 with n - 1 degrees of freedom (4.30 for 3 values, 2.09 for 20,
    1.96 as n grows); exact up to three degrees, a Cornish-Fisher expansion beyond (within
    0.001)."""
    df = n - 1
    if df < 1:
        return math.inf
    if df == 1:
        return 12.706204736174707
    if df == 2:
        return 4.302652729749464
    if df == 3:
        return 3.182446305284263
    z = 1.959963984540054
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
            + (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / (92160 * df**4))


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def role_won(role: Role, winners: Winners) -> bool:
    """Whether a player of ``role`` was on the winning side of a round that ``winners`` won."""
    return winners in ROLE_WINS[role]


def _rate(wins: int, total: int) -> float | None:
    return round(wins / total, 4) if total else None


def role_order(item: tuple[Role, list[int]]) -> int:
    return list(Role).index(item[0])


@dataclass(frozen=True)
class GoldTally:
    """What an interval of the mean gold per seat needs: seats, their gold, the deals
    (groups of seats that are not independent) and, over deals, the sums of the deal's gold
    squared, its gold times its seats, and its seats squared.  Tallies of independent
    tournaments add up (``plus``)."""

    seats: int
    gold: int
    deals: int
    squares: int
    cross: int
    seat_squares: int

    def plus(self, other: GoldTally) -> GoldTally:
        return GoldTally(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)))


def clustered_ci95(tally: GoldTally) -> float | None:
    """Half-width of the 95% interval of the mean gold per seat, ``gold / seats``, with the
    deals as clusters (the ratio estimator's cluster-robust variance, t with deals - 1
    degrees of freedom): with one seat a deal it is Student's interval of the mean.  None
    for fewer than two deals."""
    if tally.deals < 2 or not tally.seats:
        return None
    mean = tally.gold / tally.seats
    spread = tally.squares - 2 * mean * tally.cross + mean * mean * tally.seat_squares  # sum of (G_d - mean n_d)^2
    variance = tally.deals / (tally.deals - 1) * max(spread, 0.0) / (tally.seats * tally.seats)
    return t95(tally.deals) * math.sqrt(variance)


@dataclass
class BotStats:
    name: str
    games: int = 0
    outright_wins: int = 0
    shared_wins: int = 0
    #: the gold of all its seats (an integer, so exact)
    gold_sum: int = 0
    #: by deal (a game; in paired and duplicate tournaments the games of one deal), the sums
    #: over deals of the bot's gold there squared, times its seats there, and its seats
    #: squared: its seats in one game, or one deal, are not independent samples (an attack
    #: found intervals 2.5 times too wide, and others too narrow), so a deal counts once
    deals: int = 0
    deal_squares: int = 0
    deal_cross: int = 0
    deal_seat_squares: int = 0
    #: its gold and seats in the deal being played
    open_gold: int = 0
    open_seats: int = 0
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

    def add_gold(self, gold: int) -> None:
        """One seat's gold, in the deal being played."""
        self.gold_sum += gold
        self.open_gold += gold
        self.open_seats += 1

    def close_deal(self) -> None:
        """The deal being played is complete: count it (if the bot sat in it)."""
        if self.open_seats:
            gold, seats = self.open_gold, self.open_seats
            self.deals += 1
            self.deal_squares += gold * gold
            self.deal_cross += gold * seats
            self.deal_seat_squares += seats * seats
        self.open_gold = self.open_seats = 0

    def mean_gold(self) -> float:
        return self.gold_sum / self.games if self.games else 0.0

    def gold_ci95(self) -> float | None:
        """Half-width of the 95% confidence interval of the mean gold per seat, a deal
        counting once (``clustered_ci95``; an unfinished deal counts as one too); None for
        fewer than two deals, where there is none (it read "± 0.00": a bot author)."""
        return clustered_ci95(self.tally())

    def tally(self) -> GoldTally:
        """Its seats, gold and deals (an unfinished deal counted as one)."""
        gold, seats = self.open_gold, self.open_seats
        return GoldTally(self.games, self.gold_sum, self.deals + bool(seats), self.deal_squares + gold * gold,
                         self.deal_cross + gold * seats, self.deal_seat_squares + seats * seats)

    def to_data(self) -> dict[str, Any]:
        return {
            "bot": self.name,
            # the seats the bot played, as the text report's column says ("games" read as the
            # games, where a game of 5 counts 5 seats: a bot author)
            "seats": self.games,
            "outright_wins": self.outright_wins,
            "shared_wins": self.shared_wins,
            "mean_gold": round(self.mean_gold(), 4),
            "mean_gold_ci95": _rounded(self.gold_ci95()),
            "miner_rounds": self.miner_rounds,
            "miner_win_rate": _rate(self.miner_wins, self.miner_rounds),
            "saboteur_rounds": self.saboteur_rounds,
            "saboteur_win_rate": _rate(self.saboteur_wins, self.saboteur_rounds),
            "role_rounds": {role.value: rounds for role, (rounds, _) in sorted(self.roles.items(), key=role_order)},
            "role_win_rates": {
                role.value: _rate(wins, rounds) if ROLE_WINS[role] else None
                for role, (rounds, wins) in sorted(self.roles.items(), key=role_order)
            },
            "rating_mu": round(self.rating_mu, 3),
            "rating_sigma": round(self.rating_sigma, 3),
            "rating_ordinal": round(self.rating_mu - 3 * self.rating_sigma, 3),
        }


@dataclass
class PairedStats:
    """Paired gold of ``bot`` and ``versus`` over deals: the mean difference, the ratio, their intervals.

    Each pair is one deal's gold of the two (a duplicate deal: each one's mean over its games
    of the deal; a candidate deal: the chosen seat's gold with the candidate and with the
    baseline), so pairs are independent and the deal's luck is in both sides.
    """

    bot: str
    versus: str
    deals: int = 0
    sum_a: float = 0.0
    sum_b: float = 0.0
    sum_aa: float = 0.0
    sum_bb: float = 0.0
    sum_ab: float = 0.0
    #: candidate tournaments: seconds spent in the candidate's games, and the longest one
    seconds: float = 0.0
    longest: float = 0.0

    def add(self, a: float, b: float) -> None:
        self.deals += 1
        self.sum_a += a
        self.sum_b += b
        self.sum_aa += a * a
        self.sum_bb += b * b
        self.sum_ab += a * b

    def _covariances(self) -> tuple[float, float, float]:
        n = self.deals
        var_a = (self.sum_aa - self.sum_a * self.sum_a / n) / (n - 1)
        var_b = (self.sum_bb - self.sum_b * self.sum_b / n) / (n - 1)
        cov = (self.sum_ab - self.sum_a * self.sum_b / n) / (n - 1)
        return var_a, var_b, cov

    def mean_difference(self) -> float:
        return (self.sum_a - self.sum_b) / self.deals if self.deals else 0.0

    def difference_ci95(self) -> float | None:
        """Half-width of the mean difference's 95% interval; None for fewer than two deals."""
        if self.deals < 2:
            return None
        var_a, var_b, cov = self._covariances()
        return t95(self.deals) * math.sqrt(max(var_a + var_b - 2 * cov, 0.0) / self.deals)

    def ratio(self) -> float | None:
        return self.sum_a / self.sum_b if self.sum_b else None

    def ratio_ci95(self) -> float | None:
        """Half-width of the ratio's 95% interval (delta method on the paired means)."""
        ratio = self.ratio()
        if ratio is None or self.deals < 2:
            return None
        var_a, var_b, cov = self._covariances()
        mean_b = self.sum_b / self.deals
        variance = (var_a + ratio * ratio * var_b - 2 * ratio * cov) / (self.deals * mean_b * mean_b)
        return t95(self.deals) * math.sqrt(max(variance, 0.0))

    def to_data(self) -> dict[str, Any]:
        ratio, ratio_ci = self.ratio(), self.ratio_ci95()
        data = {
            "bot": self.bot,
            "versus": self.versus,
            "deals": self.deals,
            "mean_gold": round(self.sum_a / self.deals, 4) if self.deals else None,
            "versus_mean_gold": round(self.sum_b / self.deals, 4) if self.deals else None,
            "mean_difference": round(self.mean_difference(), 4),
            "difference_ci95": _rounded(self.difference_ci95()),
            "ratio": None if ratio is None else round(ratio, 4),
            "ratio_ci95": None if ratio_ci is None else round(ratio_ci, 4),
        }
        if self.seconds:
            data["seconds_per_game"] = round(self.seconds / self.deals, 4)
            data["longest_game_seconds"] = round(self.longest, 3)
        return data


@dataclass
class TournamentReport:
    spec: TournamentSpec
    bots: dict[str, BotStats]
    games: int = 0
    rounds: int = 0
    team_wins: dict[str, int] = field(default_factory=dict)
    incidents: int = 0
    #: per bot, per kind of incident (raised, illegal, timeout), how many
    incident_counts: dict[str, dict[str, int]] = field(default_factory=dict)
    #: the first incidents (INCIDENT_SAMPLES), and the first of each bot and kind
    incident_samples: list[str] = field(default_factory=list)
    incident_firsts: list[str] = field(default_factory=list)
    paired: dict[tuple[str, str], PairedStats] = field(default_factory=dict)
    #: seconds the games took to play, summed over every process that played them
    play_seconds: float = 0.0
    #: per bot, (games played so far, rating mu) at thinned points, for the picture
    rating_series: dict[str, list[tuple[int, float]]] = field(default_factory=dict)

    def caveats(self) -> list[str]:
        """What a reader must know to trust the figures, in words (the text report and the JSON both say it)."""
        if any(counts.get("timeout") for counts in self.incident_counts.values()):
            return ["a move past its time limit depends on how busy the machine was: another run of these games "
                    "may differ; --time-limit gives the bots more time"]
        return []

    def to_data(self) -> dict[str, Any]:
        """The report as JSON-ready data; ``play_seconds`` is the only entry that varies between runs."""
        return {
            "players": self.spec.players,
            "edition": self.spec.edition,
            "mode": self.spec.mode,
            "games": self.games,
            "deals": self.games // self.spec.deal_size,
            "seed": self.spec.seed,
            "variants": sorted(self.spec.variants),
            "bots": [stats.to_data() for stats in self.bots.values()],
            "paired": [pair.to_data() for pair in self.paired.values()],
            "rounds": self.rounds,
            "team_win_rates": {team: _rate(count, self.rounds) for team, count in sorted(self.team_wins.items())},
            "incidents": self.incidents,
            "incident_counts": self.incident_counts,
            "incident_samples": self.incident_samples,
            "incident_firsts": self.incident_firsts,
            "caveats": self.caveats(),
            "play_seconds": round(self.play_seconds, 3),
        }


#: the sides that win an edition's rounds, listed in every report of it
_SIDES = {
    "base": (Winners.GOLD_DIGGERS, Winners.SABOTEURS),
    "saboteur2": (Winners.BLUE_TEAM, Winners.GREEN_TEAM, Winners.BOTH_TEAMS, Winners.SABOTEURS),
}


class StatsCollector:
    """Folds game summaries, in game order, into a report with openskill ratings."""

    def __init__(self, spec: TournamentSpec) -> None:
        from openskill.models import PlackettLuce

        self.spec = spec
        self.model = PlackettLuce()
        self.ratings = {name: self.model.rating(name=name) for name in spec.names}
        self.report = TournamentReport(spec, {name: BotStats(name) for name in self.ratings})
        # the edition's sides, even at no win; any other outcome once it happens (a base game's
        # report listed Saboteur 2's teams at 0)
        sides = (*_SIDES.get(spec.edition, ()), *((Winners.SELFISH_DWARF,) if "selfish-dwarf" in spec.variants else ()))
        self.report.team_wins = {w.value: 0 for w in sides}
        self.report.rating_series = {name: [] for name in self.ratings}
        self._rating_step = 1
        #: the games of the deal being played (a deal's pairs are folded when it is complete)
        self._deal: list[GameSummary] = []

    def add(self, game: GameSummary) -> None:
        report = self.report
        expected = report.games
        if game.index != expected:
            raise ValueError(f"game {game.index} came where game {expected} was due: games must be folded in order")
        report.games += 1
        report.play_seconds += game.seconds
        shared = len(game.winners) > 1
        for seat, name in enumerate(game.lineup):
            stats = report.bots[name]
            stats.games += 1
            stats.add_gold(game.scores[seat])
            if seat in game.winners:
                if shared:
                    stats.shared_wins += 1
                else:
                    stats.outright_wins += 1
        trapped_in = game.round_trapped or ((),) * len(game.roles)
        for roles, winners, trapped in zip(game.roles, game.round_winners, trapped_in, strict=True):
            report.rounds += 1
            report.team_wins[winners.value] = report.team_wins.get(winners.value, 0) + 1
            for seat, name in enumerate(game.lineup):
                role = roles[seat]
                won = role_won(role, winners) and seat not in trapped  # a trapped player never wins
                tally = report.bots[name].roles.setdefault(role, [0, 0])
                tally[0] += 1
                tally[1] += won
        report.incidents += len(game.incidents)
        for text in game.incidents:
            bot, kind = incident_kind(text, game.lineup)
            counts = report.incident_counts.setdefault(bot, {})
            if kind not in counts:
                report.incident_firsts.append(text)  # so a rare kind is not hidden by a common one
            counts[kind] = counts.get(kind, 0) + 1
            if len(report.incident_samples) < INCIDENT_SAMPLES:
                report.incident_samples.append(text)
        self._rate(game)
        if report.games % self.spec.deal_size == 0:  # a deal complete (a game, unless paired or duplicate)
            for stats in report.bots.values():
                stats.close_deal()
        if self.spec.deal_size > 1:
            self._deal.append(game)
            if len(self._deal) == self.spec.deal_size:
                self._fold_deal(self._deal)
                self._deal = []

    def _fold_deal(self, games: list[GameSummary]) -> None:
        spec = self.spec
        if spec.candidate is not None:
            baseline, with_candidate = games
            seat = candidate_seat(spec, deal_of(spec, baseline.index))
            pair = self._pair(spec.candidate, baseline.lineup[seat])
            pair.add(with_candidate.scores[seat], baseline.scores[seat])
            pair.seconds += with_candidate.seconds
            pair.longest = max(pair.longest, with_candidate.seconds)
            return
        totals: dict[str, list[int]] = {}
        for game in games:
            for seat, name in enumerate(game.lineup):
                acc = totals.setdefault(name, [0, 0])
                acc[0] += game.scores[seat]
                acc[1] += 1
        names = [name for name in spec.names if name in totals]
        for i, first in enumerate(names):
            for second in names[i + 1:]:
                (gold_a, n_a), (gold_b, n_b) = totals[first], totals[second]
                self._pair(first, second).add(gold_a / n_a, gold_b / n_b)

    def _pair(self, bot: str, versus: str) -> PairedStats:
        pair = self.report.paired.get((bot, versus))
        if pair is None:
            pair = self.report.paired[bot, versus] = PairedStats(bot, versus)
        return pair

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
        if self.report.games % self._rating_step == 0:
            self._record_ratings()

    def _record_ratings(self) -> None:
        series = self.report.rating_series
        for name, stats in self.report.bots.items():
            series[name].append((self.report.games, stats.rating_mu))
        if len(next(iter(series.values()))) >= RATING_POINTS:
            self._rating_step *= 2
            for name in series:
                series[name] = [point for point in series[name] if point[0] % self._rating_step == 0]
