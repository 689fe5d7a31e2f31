"""The picture of a tournament's results: mean gold by player count, ratings over games."""
from __future__ import annotations

import importlib.util
import sys

import pytest

from saboteur_p2p.cli import main
from saboteur_p2p.tournament.plot import EXTRA
from saboteur_p2p.tournament.results import report_from_file

needs_matplotlib = pytest.mark.skipif(
    importlib.util.find_spec("matplotlib") is None, reason="the plot extra (matplotlib) is not installed",
)


def _tournament(path, players, games, seed):
    assert main(["tournament", "--players", str(players), "--games", str(games), "--bots", "heuristic,random",
                 "--seed", str(seed), "--out", str(path)]) == 0


@needs_matplotlib
def test_the_plot_shows_each_bots_gold_by_player_count_and_its_rating(tmp_path, capsys):
    from saboteur_p2p.tournament.plot import gold_by_players, plot_reports

    three, four, four_again = tmp_path / "3.jsonl", tmp_path / "4.jsonl", tmp_path / "4b.jsonl"
    _tournament(three, 3, 6, 1)
    _tournament(four, 4, 6, 2)
    _tournament(four_again, 4, 4, 3)
    picture = tmp_path / "out.png"
    assert main(["report", str(three), str(four), str(four_again), "--plot", str(picture)]) == 0
    assert picture.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")

    reports = [report_from_file(p) for p in (three, four, four_again)]
    gold = gold_by_players(reports)
    assert sorted(gold) == ["heuristic", "random"] and all(sorted(by) == [3, 4] for by in gold.values())
    heuristic = reports[0].bots["heuristic"]
    assert gold["heuristic"][3] == pytest.approx((heuristic.mean_gold(), heuristic.gold_ci95()))
    pooled = [r.bots["random"] for r in reports[1:]]  # both 4-player files
    assert gold["random"][4][0] == pytest.approx(sum(s.gold_sum for s in pooled) / sum(s.games for s in pooled))

    figure = plot_reports(reports, tmp_path / "again.png", ["3.jsonl", "4.jsonl", "4b.jsonl"])
    gold_axes, rating_axes = figure.axes
    # each bot beside the player count, so that intervals at one count do not hide each other
    xs = [bars.lines[0].get_xdata().tolist() for bars in gold_axes.containers]  # heuristic, random
    assert [[round(x, 2) for x in line] for line in xs] == [[2.96, 3.96], [3.04, 4.04]]
    assert gold_axes.get_xlim() == (2.5, 4.5)
    ratings = {line.get_label(): line.get_xdata().tolist() for line in rating_axes.get_lines()}
    assert ratings["heuristic (3.jsonl)"] == [1, 2, 3, 4, 5, 6]
    assert ratings["random (4b.jsonl)"] == [1, 2, 3, 4] and len(ratings) == 6
    renderer = figure.canvas.get_renderer()
    for axes in (gold_axes, rating_axes):  # each legend under its panel, clear of the lines (it covered them)
        legend, panel = axes.get_legend().get_window_extent(renderer), axes.get_window_extent(renderer)
        assert legend.y1 <= panel.y0 and legend.x0 >= 0 and legend.y0 >= 0  # and within the picture


def test_without_matplotlib_the_error_names_the_extra(tmp_path, monkeypatch, capsys):
    path = tmp_path / "g.jsonl"
    _tournament(path, 3, 2, 1)
    capsys.readouterr()
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    monkeypatch.setitem(sys.modules, "matplotlib.backends.backend_agg", None)
    assert main(["report", str(path), "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert EXTRA in err and err.count("\n") == 1


def test_a_picture_that_could_not_be_written_is_refused_before_the_report(tmp_path, capsys):
    path = tmp_path / "g.jsonl"
    _tournament(path, 3, 2, 1)
    capsys.readouterr()
    nowhere = tmp_path / "no" / "x.png"
    assert main(["report", str(path), "--plot", str(nowhere)]) == 2
    captured = capsys.readouterr()
    assert captured.err == f"saboteur-p2p: error: --plot {nowhere}: there is no folder {nowhere.parent}\n"
    assert captured.out == ""


@needs_matplotlib
def test_games_of_other_rules_are_not_pooled_and_a_name_is_drawn_as_written(tmp_path, capsys):
    """One point pooled a base game's gold with Saboteur 2's at the same player count, and a
    bot name with two '$' was read as a formula, failing the picture (found by review)."""
    from saboteur_p2p.tournament.plot import gold_by_players, plot_reports

    base, second = tmp_path / "base.jsonl", tmp_path / "s2.jsonl"
    _tournament(base, 3, 4, 1)
    assert main(["tournament", "--players", "3", "--games", "4", "--bots", "heuristic,random", "--edition",
                 "saboteur2", "--out", str(second)]) == 0
    reports = [report_from_file(p) for p in (base, second)]
    gold = gold_by_players(reports)
    assert sorted(gold) == ["heuristic [base]", "heuristic [saboteur2]", "random [base]", "random [saboteur2]"]
    assert gold["heuristic [base]"][3][0] == pytest.approx(reports[0].bots["heuristic"].mean_gold())
    assert gold["heuristic [saboteur2]"][3][0] == pytest.approx(reports[1].bots["heuristic"].mean_gold())
    dollars = reports[0].bots.pop("heuristic")
    reports[0].bots["$\\bad{$"] = dollars
    figure = plot_reports(reports[:1], tmp_path / "named.png")
    assert "$\\bad{$" in [text.get_text().replace("\\$", "$") for text in figure.axes[0].get_legend().get_texts()]
