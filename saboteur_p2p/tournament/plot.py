"""The picture of tournament results (``report --plot``; the optional extra ``saboteur-p2p[plot]``).

Left: each bot's mean gold per game with its 95% interval, by player count (the results of
every file at that count pooled).  Right: each bot's rating (openskill mu) over the games of
each file.  Drawn with matplotlib's Agg canvas, so no display is needed.
"""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .stats import GoldTally, TournamentReport, clustered_ci95

EXTRA = "pip install 'saboteur-p2p[plot]'"
#: how far apart, in players, the bots' points at one player count are drawn
DODGE = 0.08
#: one line style a results file in the rating panel (a bot's colour is the same in both panels)
LINE_STYLES = ("-", "--", ":", "-.")


class PlotError(ValueError):
    """The picture cannot be drawn (matplotlib is missing)."""


def rules_of(report: TournamentReport) -> str:
    """The rules a report's games were played by: its edition and variants."""
    return "+".join((report.spec.edition, *sorted(report.spec.variants)))


def gold_by_players(reports: Sequence[TournamentReport]) -> dict[str, dict[int, tuple[float, float]]]:
    """Per bot, per player count: (mean gold per game, half-width of its 95% interval), files
    pooled.  Only games of the same rules are pooled: when the reports were played by several
    (an edition, variants), each bot has a series per rules, named ``bot [rules]`` (found by
    review: a base game's and a Saboteur 2 game's gold were averaged into one point)."""
    several = len({rules_of(report) for report in reports}) > 1
    pooled: dict[str, dict[int, GoldTally]] = {}
    for report in reports:
        for name, stats in report.bots.items():
            if not stats.games:
                continue
            series = pooled.setdefault(f"{name} [{rules_of(report)}]" if several else name, {})
            players = report.spec.players
            series[players] = series[players].plus(stats.tally()) if players in series else stats.tally()
    result: dict[str, dict[int, tuple[float, float]]] = {}
    for name, by_players in pooled.items():
        for players, tally in sorted(by_players.items()):
            result.setdefault(name, {})[players] = (tally.gold / tally.seats, clustered_ci95(tally) or 0.0)
    return result


def plot_reports(reports: Sequence[TournamentReport], path: Path, sources: Sequence[str] | None = None) -> Any:
    """Draw the reports to the PNG file ``path``; returns the matplotlib Figure.

    ``sources`` names each report's file, for the rating lines' labels when there are several.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise PlotError(f"--plot needs matplotlib, which is not installed: {EXTRA}") from None
    figure = Figure(figsize=(12, 5), layout="constrained")
    FigureCanvasAgg(figure)
    gold_axes, rating_axes = figure.subplots(1, 2)
    gold = gold_by_players(reports)
    colours = {name: f"C{number % 10}" for number, name in enumerate(gold)}  # a bot keeps its colour in both panels
    for number, (name, points) in enumerate(gold.items()):
        players = sorted(points)
        # each bot a little to the side of the player count: intervals at one count do not hide each other
        shift = DODGE * (number - (len(gold) - 1) / 2)
        gold_axes.errorbar(
            [p + shift for p in players], [points[p][0] for p in players], yerr=[points[p][1] for p in players],
            marker="o", capsize=4, label=_literal(name), color=colours[name],
        )
    counts = sorted({report.spec.players for report in reports})
    gold_axes.set_xticks(counts)
    gold_axes.set_xlim(counts[0] - 0.5, counts[-1] + 0.5)  # a player count's bots side by side, whatever the counts
    gold_axes.set_xlabel("players")
    gold_axes.set_ylabel("mean gold per game (95% interval)")
    gold_axes.set_title("gold by player count")
    if gold:
        _legend_below(gold_axes)
    several = len(reports) > 1
    drawn = False
    for number, report in enumerate(reports):
        source = sources[number] if sources is not None else f"{report.spec.players} players"
        for name, series in report.rating_series.items():
            if series:
                rating_axes.plot(
                    [games for games, _ in series], [mu for _, mu in series],
                    label=_literal(f"{name} ({source})" if several else name),
                    color=colours.get(name, colours.get(f"{name} [{rules_of(report)}]")),
                    linestyle=LINE_STYLES[number % len(LINE_STYLES)],
                )
                drawn = True
    rating_axes.set_xlabel("games")
    rating_axes.set_ylabel("rating (openskill mu)")
    rating_axes.set_title("rating over games")
    if drawn:
        _legend_below(rating_axes)
    figure.savefig(path, format="png", dpi=100)
    return figure


def _legend_below(axes: Any) -> None:
    """The panel's legend under it, outside the lines (inside, it covered them: a bot author)."""
    labels = len(axes.get_legend_handles_labels()[1])
    axes.legend(loc="upper center", bbox_to_anchor=(0.5, -0.12), ncols=min(3, labels), frameon=False)


def _literal(label: str) -> str:
    """A label drawn as written: matplotlib reads text between two ``$`` as a formula (a bot
    named ``$\\bad{$`` made the picture fail, found by review)."""
    return label.replace("$", r"\$")
