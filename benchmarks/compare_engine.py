"""Games per second of this checkout against another, run alternately in the same minutes.

On a machine whose speed moves by tens of percent from hour to hour, an absolute games/s
figure says as much about the hour as about the code; the ratio of two checkouts run turn
and turn about does not.  Each pair runs ``--games`` games in a fresh process of each
checkout (the order swaps every pair) and compares their rates by CPU time.  Prints both
medians and the median of the pair ratios (this checkout / the other) with its range.

The other checkout needs its own environment (the bots package is installed editable, so
a shared one would load this checkout's bots): ``python -m venv V && V/bin/pip install -e DIR``.
Usage:
    python benchmarks/compare_engine.py --other DIR --other-python V/bin/python [--pairs 16]
        [--games 40] [--bot heuristic] [--players 5] [--edition base]
"""
from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
from pathlib import Path

#: one run: warm up, then games per second of CPU time (the module is run with -c)
_RUN = """
import time
from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig
config = GameConfig({players}, {edition!r})
for seed in range(3):
    play_game(config, [{bot!r}] * {players}, 1000 + seed, record_actions=False)
started = time.process_time()
for seed in range({games}):
    play_game(config, [{bot!r}] * {players}, seed, record_actions=False)
print({games} / (time.process_time() - started))
"""


def rate(python: str, checkout: Path, code: str) -> float:
    done = subprocess.run([python, "-c", code], cwd=checkout, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        last = done.stderr.strip().splitlines()[-1:] or [f"exit status {done.returncode}"]
        raise SystemExit(f"{checkout}: {last[0]}")
    return float(done.stdout)


def check_loads_from(python: str, checkout: Path) -> None:
    """Refuse an environment that would load the rules or the bots from elsewhere."""
    code = "import saboteur_p2p, saboteur_bots; print(saboteur_p2p.__file__); print(saboteur_bots.__file__)"
    done = subprocess.run([python, "-c", code], cwd=checkout, capture_output=True, text=True, check=False)
    for path in done.stdout.split() or ["(nothing: " + done.stderr.strip()[-200:] + ")"]:
        if not Path(path).resolve().is_relative_to(checkout):
            raise SystemExit(f"{python} in {checkout} loads {path}: install that checkout in its environment")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--other", type=Path, required=True, help="the other checkout")
    parser.add_argument("--other-python", required=True, help="the Python of the other checkout's environment")
    parser.add_argument("--pairs", type=int, default=16)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--edition", default="base")
    args = parser.parse_args()
    code = _RUN.format(players=args.players, edition=args.edition, bot=args.bot, games=args.games)
    here = (sys.executable, Path(__file__).resolve().parent.parent)
    other = (args.other_python, args.other.resolve())
    for python, checkout in (here, other):
        check_loads_from(python, checkout)
    ours: list[float] = []
    theirs: list[float] = []
    for pair in range(args.pairs):
        first, second = (here, other) if pair % 2 == 0 else (other, here)
        a, b = rate(*first, code), rate(*second, code)
        ours.append(a if first is here else b)
        theirs.append(b if first is here else a)
    ratios = [o / t for o, t in zip(ours, theirs, strict=True)]
    print(f"{args.bot} bots, {args.edition}, {args.players} players, {args.pairs} pairs of {args.games}-game runs by CPU time")
    print(f"  this checkout {statistics.median(ours):.1f} games/s, the other {statistics.median(theirs):.1f} (medians)")
    print(f"  ratio this / other: median {statistics.median(ratios):.3f} (range {min(ratios):.3f}-{max(ratios):.3f})")


if __name__ == "__main__":
    main()
