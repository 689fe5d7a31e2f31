"""Memory of a long tournament: the parent process while games stream to a results file, and
``report`` folding a results file of a million lines.

Prints the resident memory every tenth of the way; asserts nothing.  The million-line file is
made from the tournament's own game lines, cycled and numbered afresh (the statistics fold
any games; playing a million would take hours).  Usage:
    python benchmarks/tournament_memory.py [--games 20000] [--jobs 2] [--lines 1000000]
"""
from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
from pathlib import Path

from saboteur_p2p.tournament import StatsCollector, TournamentSpec, run_tournament
from saboteur_p2p.tournament.results import ResultsFile, read_games, read_spec
from saboteur_p2p.tournament.spec import seating


def resident_mib() -> float:
    """This process's resident memory now (Linux), else its peak so far."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def play(path: Path, games: int, jobs: int) -> None:
    spec = TournamentSpec(5, games, ("random",), seed=1, jobs=jobs)
    collector = StatsCollector(spec)
    step = max(1, games // 10)
    started = time.perf_counter()

    def progress(done: int) -> None:
        if done % step == 0:
            print(f"  {done:>9} games played   {resident_mib():7.1f} MiB   {time.perf_counter() - started:6.1f} s", flush=True)

    print(f"tournament: {games} five-player random-bot games, {jobs} job(s), streaming to {path.name}")
    with ResultsFile.open(path, spec, collector, resume=False) as results:
        run_tournament(spec, progress=progress, collector=collector, sink=results.write)


def fold_many(source: Path, lines: int) -> None:
    header = source.open(encoding="utf-8").readline()
    games = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()[1:1001]]
    big = source.with_name("million.jsonl")
    spec = read_spec(source)
    with open(big, "w", encoding="utf-8") as out:
        out.write(header)
        for index in range(lines):
            # each line must be the game the header's tournament plays at its index
            seed, seats = seating(spec, index)
            game = {**games[index % len(games)], "index": index, "seed": seed, "lineup": list(seats)}
            out.write(json.dumps(game, separators=(",", ":")) + "\n")
    print(f"report: folding {lines} lines ({big.stat().st_size / 2**20:.0f} MiB) one at a time")
    collector = StatsCollector(spec)
    step = max(1, lines // 10)
    started = time.perf_counter()
    for _, game in read_games(big, spec):
        collector.add(game)
        if collector.report.games % step == 0:
            print(f"  {collector.report.games:>9} games folded   {resident_mib():7.1f} MiB   "
                  f"{time.perf_counter() - started:6.1f} s", flush=True)
    big.unlink()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--lines", type=int, default=1_000_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "games.jsonl"
        play(path, args.games, args.jobs)
        fold_many(path, args.lines)
    print(f"peak resident memory of this process: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
