"""Instructions per 5-player 3-round game, counted by valgrind's callgrind: a figure the
machine's load and clock do not move, where games/s (engine_speed.py) moves by tens of
percent from hour to hour on a shared machine.

Each bot's figure is the count of a process that plays ``--games`` games after three
warm-up games, minus the count of one that plays only the warm-up, divided by ``--games``.
The games are those of ``engine_speed.py`` (seeds 0, 1, ...), without the bots' time limit,
whose timer signal valgrind cannot deliver to Python.  To turn a count into games/s, divide
a quiet machine's measured rate at some commit by the ratio of the two commits' counts.
Needs ``valgrind`` on the PATH.  Compare another checkout with ``PYTHONPATH=DIR``.
Usage:
    python benchmarks/engine_instructions.py [--games 10] [--bots random,heuristic] [--edition base]
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

#: one process: warm up, then play ``games`` games (the module is run with -c)
_RUN = """
import sys
import saboteur_p2p.match as match
from saboteur_p2p.rules import GameConfig

class NoWatchdog:  # no timer signal: valgrind would end the process with it
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return None
    def rearm(self):
        return None

match.bot_watchdog = NoWatchdog
config = GameConfig(5, {edition!r})
for seed in range(3):
    match.play_game(config, [{bot!r}] * 5, 1000 + seed, record_actions=False, time_limit=None)
for seed in range({games}):
    match.play_game(config, [{bot!r}] * 5, seed, record_actions=False, time_limit=None)
"""


def instructions(bot: str, games: int, edition: str) -> int:
    """The instructions callgrind counts in a process that plays ``games`` games after the warm-up."""
    code = _RUN.format(bot=bot, games=games, edition=edition)
    # the same string hashes in every run, so the same dict orders and the same count
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    done = subprocess.run(
        ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c", code],
        capture_output=True, text=True, env=env, check=False,
    )
    found = re.search(r"Collected : (\d+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"callgrind failed (exit {done.returncode}):\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--bots", default="random,heuristic")
    parser.add_argument("--edition", choices=("base", "saboteur2"), default="base")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed: this benchmark counts instructions with its callgrind tool")
    for bot in args.bots.split(","):
        base = instructions(bot, 0, args.edition)
        total = instructions(bot, args.games, args.edition)
        print(f"{args.edition:>9} {bot:>9} bots, 5 players: {(total - base) / args.games / 1e6:7.2f} M instructions a game "
              f"({args.games} games, by callgrind)")


if __name__ == "__main__":
    main()
