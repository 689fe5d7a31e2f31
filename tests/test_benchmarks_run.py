"""Every benchmark script runs to its figures with the smallest arguments: the scripts are how
the speed and memory targets are measured, and nothing else runs them (each asserts nothing).
The figures themselves are not checked here; only that each script still works."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"

RUNS = [
    ("engine_speed", ["--games", "2", "--repeat", "1", "--edition", "base"], "games/s"),
    ("tournament_wall", ["--games", "6", "--jobs", "1"], "games/s"),
    ("tournament_memory", ["--games", "20", "--jobs", "1", "--lines", "300"], "games folded"),
    ("bot_strength", ["--candidate", "heuristic", "--baseline", "heuristic-v1", "--players", "3", "--games", "2", "--jobs", "1"],
     "paired gold difference"),
    ("bot_strength", ["--balance", "--baseline", "random", "--games", "1", "--jobs", "1"], "%"),
    ("compare_engine", ["--other", ".", "--other-python", sys.executable, "--pairs", "1", "--games", "2", "--bot", "random"],
     "ratio this / other"),
    ("deal_speed", ["--players", "3", "--runs", "1"], "critical path"),
    ("network_game", ["--players", "3", "--runs", "1", "--rounds", "2"], "turn latency p50"),  # a pause between rounds
    ("ismcts_fidelity", ["--games", "1", "--worlds", "1"], "Brier score"),
]


@pytest.mark.parametrize(("script", "args", "says"), RUNS, ids=[f"{run[0]}-{i}" for i, run in enumerate(RUNS)])
@pytest.mark.slow
def test_a_benchmark_runs_to_its_figures(tmp_path, script, args, says):
    figures = tmp_path / "figures.json"
    wants_json = script in ("deal_speed", "network_game")
    command = [sys.executable, str(BENCHMARKS / f"{script}.py"), *args, *(["--json", str(figures)] if wants_json else [])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=240, cwd=BENCHMARKS.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert says in done.stdout
    if wants_json:
        data = json.loads(figures.read_text())
        rows = data if isinstance(data, list) else [data]  # deal_speed: a row per table measured
        assert [row["players"] for row in rows] == [3]
        if script == "network_game":  # how busy the machine was: the least time a move took to take in
            assert 0 < data["take_p10_ms"] <= data["take_p50_ms"] < 10_000
            assert "taking another seat's move in: p10" in done.stdout


def test_the_instruction_count_benchmarks_game_program_plays_its_games():
    """engine_instructions.py runs its game program under valgrind (too slow for the suite, and
    not on every machine); the program itself must still play, here without valgrind."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import engine_instructions
    finally:
        sys.path.remove(str(BENCHMARKS))
    code = engine_instructions._RUN.format(bot="random", games=1, edition="base") + "\nprint('played')\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=BENCHMARKS.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "played"
