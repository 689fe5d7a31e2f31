"""Bot-only tournaments: many in-process games, run locally or on a Dask cluster, with statistics.

Game ``g`` of a tournament is decided by its spec and ``g`` alone (``spec.py``): the deal
seed and the seating.  Runners (``runners.py``, ``cluster.py``) yield games in game order,
the statistics (``stats.py``) fold them one by one into a report with ratings and paired
differences, and the results file (``results.py``) keeps one JSON line per game so a stopped
tournament resumes and a report can be rebuilt.
"""
from __future__ import annotations

from .report import format_report
from .runners import run_games, run_tournament
from .spec import GameSummary, TournamentSpec, game_seed, lineup, run_batch, run_one, seating
from .stats import MINERS, ROLE_WINS, BotStats, PairedStats, StatsCollector, TournamentReport, role_won

__all__ = [
    "MINERS",
    "ROLE_WINS",
    "BotStats",
    "GameSummary",
    "PairedStats",
    "StatsCollector",
    "TournamentReport",
    "TournamentSpec",
    "format_report",
    "game_seed",
    "lineup",
    "role_won",
    "run_batch",
    "run_games",
    "run_one",
    "run_tournament",
    "seating",
]
