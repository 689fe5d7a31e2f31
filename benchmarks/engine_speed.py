"""Full 3-round games per second in one process (as tournaments play them), and peak memory.

Prints figures; asserts nothing.  Each figure is the median of --repeat runs (this
machine's timings vary by 20% from run to run).  The rate by this process's CPU time is
printed too: on a machine shared with other work it moves less than the wall-clock rate.
The base game comes first, then Saboteur 2 (``--edition`` picks one).  The heuristic bot is
timed in both versions: ``heuristic`` (the second, with issue 13's fixes, which does more a
move: issue 14's 90 games/s applies to it) and ``heuristic-v1`` (the first, which ``heuristic``
was when that target was set).  Compare two checkouts in the same minute, e.g.
``PYTHONPATH=/path/to/other python benchmarks/...``.
Usage:
    python benchmarks/engine_speed.py [--games N] [--players P] [--repeat R] [--edition E]
"""
from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig


def games_per_second(bot: str, games: int, players: int, edition: str = "base") -> tuple[float, float]:
    """Games per second by the wall clock and by this process's CPU time."""
    config = GameConfig(players, edition)
    started, cpu = time.perf_counter(), time.process_time()
    for seed in range(games):
        play_game(config, [bot] * players, seed, record_actions=False)
    return games / (time.perf_counter() - started), games / (time.process_time() - cpu)


def actions_per_game(bot: str, players: int, games: int = 20, edition: str = "base") -> float:
    config = GameConfig(players, edition)
    return sum(len(play_game(config, [bot] * players, seed).actions) for seed in range(games)) / games


def peak_memory_kib(bot: str, players: int, edition: str = "base") -> float:
    tracemalloc.start()
    play_game(GameConfig(players, edition), [bot] * players, 12345)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--edition", choices=("base", "saboteur2", "both"), default="both")
    args = parser.parse_args()
    editions = ("base", "saboteur2") if args.edition == "both" else (args.edition,)
    for edition in editions:
        heuristic_games = max(1, args.games // 3)
        for bot, games in (("random", args.games), ("heuristic", heuristic_games), ("heuristic-v1", heuristic_games)):
            play_game(GameConfig(args.players, edition), [bot] * args.players, 0)  # warm up imports and caches
            runs = [games_per_second(bot, games, args.players, edition) for _ in range(args.repeat)]
            rates = [wall for wall, _ in runs]
            print(
                f"{edition:>9} {bot:>12} bots, {args.players} players: median {statistics.median(rates):6.1f} games/s "
                f"(min {min(rates):.1f}, max {max(rates):.1f}; {args.repeat} runs of {games} games; "
                f"by CPU time {statistics.median(cpu for _, cpu in runs):.1f}), "
                f"{actions_per_game(bot, args.players, edition=edition):.0f} actions/game, "
                f"peak traced memory of one game {peak_memory_kib(bot, args.players, edition):.0f} KiB"
            )


if __name__ == "__main__":
    main()
