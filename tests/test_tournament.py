"""Tournaments: fair seating, determinism across worker counts, statistics."""
from __future__ import annotations

import json

from saboteur_p2p.cli import main
from saboteur_p2p.tournament import TournamentSpec, lineup, run_tournament


def test_every_bot_gets_every_seat_equally_often():
    bots = ("a", "b", "c")
    counts = {(bot, seat): 0 for bot in bots for seat in range(5)}
    for game in range(30):
        for seat, bot in enumerate(lineup(bots, 5, game)):
            counts[bot, seat] += 1
    assert set(counts.values()) == {10}


def test_same_seed_same_report_whatever_the_jobs():
    one = run_tournament(TournamentSpec(5, 24, ("random", "heuristic"), seed=3, jobs=1)).to_data()
    two = run_tournament(TournamentSpec(5, 24, ("random", "heuristic"), seed=3, jobs=2)).to_data()
    assert one == two


def test_statistics_add_up():
    report = run_tournament(TournamentSpec(4, 20, ("random", "heuristic"), seed=1))
    data = report.to_data()
    assert sum(b["games"] for b in data["bots"]) == 20 * 4
    assert data["rounds"] == 20 * 3
    assert abs(sum(r or 0 for r in data["team_win_rates"].values()) - 1) < 1e-3  # rates are rounded to 4 places
    for stats in report.bots.values():
        assert stats.outright_wins + stats.shared_wins <= stats.games
        assert stats.gold_ci95() > 0
        assert stats.miner_rounds + stats.saboteur_rounds <= stats.games * 3


def test_cli_tournament_writes_json(tmp_path, capsys):
    out = tmp_path / "out.json"
    code = main(["tournament", "--players", "3", "--games", "6", "--bots", "random", "--seed", "2", "--json", str(out)])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["games"] == 6 and data["bots"][0]["bot"] == "random"
    assert "gold/game" in capsys.readouterr().out


def test_cli_rejects_bad_arguments(capsys):
    assert main(["tournament", "--games", "2", "--bots", "nonexistent"]) == 2
    assert "unknown bot 'nonexistent'" in capsys.readouterr().err
    assert main(["tournament", "--games", "2", "--players", "11"]) == 2
