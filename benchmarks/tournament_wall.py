"""Wall time of a heuristic-bot tournament across worker processes.

Prints figures; asserts nothing.  Usage:
    python benchmarks/tournament_wall.py [--games 10000] [--jobs 2]
"""
from __future__ import annotations

import argparse
import time

from saboteur_p2p.tournament import TournamentSpec, run_tournament


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()
    spec = TournamentSpec(args.players, args.games, ("heuristic",), seed=1, jobs=args.jobs)
    started = time.perf_counter()
    report = run_tournament(spec)
    elapsed = time.perf_counter() - started
    print(f"{report.games} heuristic games, {args.players} players, {args.jobs} jobs: "
          f"{elapsed:.1f} s wall ({report.games / elapsed:.1f} games/s), {report.incidents} bot incidents")


if __name__ == "__main__":
    main()
