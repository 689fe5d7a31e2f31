"""Full 3-round 5-player games per second in one process, and peak memory.

Prints figures; asserts nothing.  Usage:
    python benchmarks/engine_speed.py [--games N] [--players P]
"""
from __future__ import annotations

import argparse
import time
import tracemalloc

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig


def measure(bot: str, games: int, players: int) -> tuple[float, float]:
    config = GameConfig(players)
    started = time.perf_counter()
    turns = 0
    for seed in range(games):
        record = play_game(config, [bot] * players, seed)
        turns += len(record.actions)
    elapsed = time.perf_counter() - started
    return games / elapsed, turns / games


def peak_memory(bot: str, players: int) -> float:
    tracemalloc.start()
    play_game(GameConfig(players), [bot] * players, 12345)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 1024


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    for bot, games in (("random", args.games), ("heuristic", max(1, args.games // 3))):
        play_game(GameConfig(args.players), [bot] * args.players, 0)  # warm up imports and caches
        rate, turns = measure(bot, games, args.players)
        print(f"{bot:>9} bots: {rate:7.1f} games/s over {games} games ({turns:.0f} actions/game), "
              f"peak traced memory of one game {peak_memory(bot, args.players):.0f} KiB")


if __name__ == "__main__":
    main()
