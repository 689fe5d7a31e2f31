"""Measure a bot against a baseline with seed-paired games, or the balance of all-baseline tables.

Paired (the default): deal g is played twice with the same seed, once with the baseline in
every seat and once with the candidate in seat g mod players; the paired difference is the
candidate's gold minus the baseline's gold in that seat.  Prints the mean difference with a
95% interval, both mean golds and their ratio, and games per second (two games a pair).

    python benchmarks/bot_strength.py --candidate heuristic --baseline heuristic-v1 --players 5 --games 2000
    python benchmarks/bot_strength.py --candidate ismcts:playouts=100 --players 5 --games 100 --jobs 2

Balance (``--balance``): all-baseline tables at each player count; the share of rounds each
side wins (base game: rounds with no saboteur dealt left out; Saboteur 2: the saboteurs
against every other outcome).

    python benchmarks/bot_strength.py --balance --baseline heuristic --edition base --games 400
"""
from __future__ import annotations

import argparse
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig, Role, Winners
from saboteur_p2p.tournament.stats import t95


@dataclass
class Pair:
    seat: int
    candidate: int
    baseline: int
    #: the candidate's and the baseline's failures in the two games (a failed move is a safe discard)
    incidents: tuple[str, ...] = ()


def play_pair(args: tuple[str, str, int, str, int]) -> Pair:
    candidate, baseline, players, edition, seed = args
    config = GameConfig(players, edition)
    seat = seed % players
    bots = [baseline] * players
    base = play_game(config, bots, seed, time_limit=None, record_actions=False)
    bots[seat] = candidate
    cand = play_game(config, bots, seed, time_limit=None, record_actions=False)
    failed = tuple(f"seed {seed} {incident}" for incident in base.incidents + cand.incidents)
    return Pair(seat, cand.scores[seat], base.scores[seat], failed)


def mean_interval(values: list[float]) -> tuple[float, float]:
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, t95(n) * math.sqrt(var / n)


def paired(args: argparse.Namespace) -> None:
    jobs = [(args.candidate, args.baseline, args.players, args.edition, args.seed + g) for g in range(args.games)]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        pairs = list(pool.map(play_pair, jobs, chunksize=max(1, len(jobs) // (8 * args.jobs))))
    elapsed = time.perf_counter() - start
    diffs = [float(p.candidate - p.baseline) for p in pairs]
    mean, half = mean_interval(diffs)
    cand = sum(p.candidate for p in pairs) / len(pairs)
    base = sum(p.baseline for p in pairs) / len(pairs)
    ratio = cand / base if base else float("inf")
    print(f"{args.candidate} vs {args.baseline}, {args.edition} {args.players} players, {len(pairs)} paired deals"
          f" (seeds {args.seed}..{args.seed + args.games - 1})")
    print(f"  paired gold difference {mean:+.3f} per game, 95% interval [{mean - half:+.3f}, {mean + half:+.3f}]")
    print(f"  mean gold: candidate {cand:.3f}, baseline {base:.3f}, ratio {ratio:.3f}")
    print(f"  {2 * len(pairs) / elapsed:.2f} games/s with {args.jobs} jobs ({elapsed:.1f} s)")
    failures = [text for p in pairs for text in p.incidents]
    if failures:  # a bot that fails plays safe discards: its gold measures its failures, not its play
        print(f"  bot incidents: {len(failures)} (first: {failures[0]})")


def balance_at(args: tuple[str, int, str, int, int]) -> tuple[int, int, int]:
    """(rounds the saboteurs won, rounds counted, rounds left out) over ``games`` games."""
    bot, players, edition, seed, games = args
    config = GameConfig(players, edition)
    won = counted = skipped = 0
    for g in range(games):
        record = play_game(config, [bot] * players, seed + g, time_limit=None, record_actions=False)
        for roles, winners in zip(record.roles, record.round_winners, strict=True):
            if edition == "base" and Role.SABOTEUR not in roles:
                skipped += 1
                continue
            counted += 1
            won += winners is Winners.SABOTEURS
    return won, counted, skipped


def balance(args: argparse.Namespace) -> None:
    sizes = range(3, 11) if args.edition == "base" else range(3, 13)
    jobs = [(args.baseline, n, args.edition, args.seed, args.games) for n in sizes]
    start = time.perf_counter()
    with ProcessPoolExecutor(args.jobs) as pool:
        results = list(pool.map(balance_at, jobs))
    print(f"{args.baseline} at every table, {args.edition}, {args.games} games each (seeds {args.seed}..)")
    print("players  saboteurs' rounds  the other side  counted  left out (no saboteur)")
    for n, (won, counted, skipped) in zip(sizes, results, strict=True):
        print(f"{n:7d}  {won / counted:17.1%}  {1 - won / counted:14.1%}   {counted:7d}  {skipped:8d}")
    print(f"({time.perf_counter() - start:.1f} s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--candidate", default="heuristic")
    parser.add_argument("--baseline", default="heuristic-v1")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--edition", default="base")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--balance", action="store_true")
    args = parser.parse_args()
    balance(args) if args.balance else paired(args)


if __name__ == "__main__":
    main()
