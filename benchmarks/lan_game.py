"""Bot games across machines: every peer on a host of its own (a network namespace), joined
through the user-space switch of tests/netlab.py, under LAN and Wi-Fi fault profiles.

For each profile it prints the game's wall time (lobby and process start included) and the
turn latency p50/p99 (each mover's send until the next seat's move comes in: two hops, the
next bot's choosing and the reveals between, within a round); the ``cut`` profile cuts the
last host off for 15 s once the table is under way
and measures the time from the heal until the waiting peers' logs grow again.  Needs root
and network namespaces.  Prints figures; asserts nothing.  Usage:

    python benchmarks/lan_game.py [--players 4] [--profiles clean,delay,loss,reorder,cut]
                                  [--bot heuristic] [--runs 1] [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from lan_table import finish, start_table, time_to_progress, wait_for_progress, wait_for_stall
from netlab import NetLab, netlab_available

PROFILES: dict[str, dict[str, Any]] = {
    "clean": {},
    "delay": {"delay_ms": 20, "jitter_ms": 10},  # Wi-Fi-like: 20 ± 10 ms each way
    "loss": {"loss": 0.05},
    "reorder": {"delay_ms": 2, "reorder": 0.1, "reorder_ms": 15},
    "cut": {},  # a clean network, and one host cut off for CUT_S mid-game
}
CUT_S = 15.0


def play(profile: str, players: int, bot: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp, NetLab(hosts=players) as lab:
        lab.set_profile(**PROFILES[profile])
        started = time.perf_counter()
        peers = start_table(lab, Path(tmp), players, bot=bot, wait=120)
        heal_to_next = None
        if profile == "cut":
            wait_for_progress(peers, 200_000, timeout=300)
            lab.cut(players)
            cut_at = time.monotonic()
            wait_for_stall(peers[:-1], quiet=1.0, timeout=CUT_S)
            time.sleep(max(0.0, CUT_S - (time.monotonic() - cut_at)))
            lab.heal()
            heal_to_next = time_to_progress(peers[:-1], timeout=60)
        codes = finish(peers, 1800)
        wall = time.perf_counter() - started
        stats = [p.stats() for p in peers]
        if codes != [0] * players or any(s is None for s in stats):
            raise SystemExit(f"{profile}: the game did not finish cleanly (exit {codes})\n{peers[0].text()[-2000:]}")
        latencies = sorted(t for s in stats if s for t in s["turn_latencies"])
        frames = lab.stats()
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))]
    return {
        "profile": profile, "players": players, "game_s": round(wall, 2),
        "turn_p50_ms": round(statistics.median(latencies) * 1000, 1), "turn_p99_ms": round(p99 * 1000, 1),
        "heal_to_next_s": None if heal_to_next is None else round(heal_to_next, 2),
        "mib_per_peer": round(max(s["peak_rss_kib"] for s in stats if s) / 1024, 1),
        "frames_forwarded": frames["forwarded"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--profiles", default=",".join(PROFILES))
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--json", metavar="FILE", help="write every run's figures to FILE")
    args = parser.parse_args()
    ok, why = netlab_available()
    if not ok:
        raise SystemExit(f"no network lab here: {why}")
    results = []
    for profile in args.profiles.split(","):
        for _ in range(args.runs):
            result = play(profile, args.players, args.bot)
            results.append(result)
            heal = "" if result["heal_to_next_s"] is None else f", heal to next record {result['heal_to_next_s']:.2f} s"
            print(f"{profile:8} {args.players} {args.bot} peers: game {result['game_s']:6.1f} s, "
                  f"turn p50 {result['turn_p50_ms']:6.1f} ms, p99 {result['turn_p99_ms']:7.1f} ms, "
                  f"{result['mib_per_peer']:.0f} MiB per peer{heal}", flush=True)
    clean = [r["game_s"] for r in results if r["profile"] == "clean"]
    delay = [r["game_s"] for r in results if r["profile"] == "delay"]
    if clean and delay:
        print(f"20±10 ms delay / clean: {statistics.median(delay) / statistics.median(clean):.2f}x (target at most 1.5x)")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
