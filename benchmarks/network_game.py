"""A full game of bot peers over loopback, each a separate process: wall time, messages,
bytes, per-turn latency and memory per peer.

Prints figures; asserts nothing.  Turn latency is measured by each mover: from sending
its move until the next seat's move comes in (two hops, any reveals between, and the
next bot's choosing).  Usage:
    python benchmarks/network_game.py [--players 5] [--bot heuristic] [--runs 3] [--rounds 3] [--json FILE]

Also: when the first move was due, counted from the host's launch (as a person launching
``saboteur-p2p play`` waits: bot processes, lobby, keys and the first deal), the longest
pause from a round's last move to the next round's first (the next round's set-up), and the
CPU all the peers used (user and system, every thread) with the cores it kept busy on
average over the game's wall time: five peers on two cores keep it nearly saturated, so a
turn waits for a core as much as for its own work.  ``--json FILE`` writes the medians
(``players``, ``game_s``, ``turn_p50_ms``, ``turn_p99_ms``, ``mib_per_peer``,
``first_turn_s``, ``next_round_s``, ``take_p10_ms``, ``take_p50_ms``, ``cpu_s``,
``cores_busy``) and every run.  The time a seat takes to take another's move in (check,
apply, log) says how busy the machine was while the figures were made.
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from saboteur_p2p.rules.editions import edition_names


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def play(args: argparse.Namespace) -> dict[str, Any]:
    """One game; its figures."""
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        command = [
            sys.executable, "-m", "saboteur_p2p", "host", "--bind", f"127.0.0.1:{free_port()}",
            "--seats", str(args.players), "--bot", args.bot, "--bots", str(args.players - 1), "--bots-kind", args.bot,
            "--log-dir", str(logs), "--identity", str(logs / "host.identity"), "--edition", args.edition, "--quiet",
            "--rounds", str(args.rounds),
        ]
        launched = time.time()
        started = time.perf_counter()
        cpu = _children_cpu()
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        wall = time.perf_counter() - started
        cpu = _children_cpu() - cpu  # every peer's: the host waits for its bot peers
        stats = [json.loads(p.read_text()) for p in sorted(logs.rglob("*.stats.json"))]
        if done.returncode != 0 or len(stats) != args.players:
            print(done.stdout, done.stderr)
            raise SystemExit(f"the game did not finish cleanly (exit {done.returncode})")
    latencies = sorted(t for s in stats for t in s["turn_latencies"])
    takes = sorted(t for s in stats for t in s.get("take_seconds", ()))
    firsts = [s["first_turn_at"] for s in stats if s.get("first_turn_at")]
    pauses = [p for s in stats for p in s["round_pauses"]]
    return {
        "players": args.players,
        "game_s": wall,
        "turn_p50_ms": statistics.median(latencies) * 1000,
        "turn_p99_ms": latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000,
        "mib_per_peer": max(s["peak_rss_kib"] for s in stats) / 1024,
        # the least time a seat took to take another's move in: about 0.2 ms when the machine
        # is quiet, 0.7 ms and more in its slow spells (which move the turn's p50 by 3-6 ms)
        "take_p10_ms": takes[len(takes) // 10] * 1000 if takes else None,
        "take_p50_ms": statistics.median(takes) * 1000 if takes else None,
        "first_turn_s": min(firsts) - launched,
        "next_round_s": max(pauses) if pauses else None,
        "records": stats[0]["records"],
        "record_messages": sum(s["records_sent"] for s in stats) * (args.players - 1),
        "mb_sent": sum(s["bytes_sent"] for s in stats) / 1e6,
        "cpu_s": cpu,
        "cores_busy": cpu / wall,
    }


def _children_cpu() -> float:
    """User and system CPU seconds of this process's children that have ended."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _spread(values: list[float], unit: str, digits: int = 1) -> str:
    return f"{statistics.median(values):.{digits}f} {unit} [{min(values):.{digits}f}-{max(values):.{digits}f}]"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--edition", default="base", choices=edition_names())
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=3, help="rounds a game (default 3, the rules' own)")
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE as JSON")
    args = parser.parse_args()
    runs = [play(args) for _ in range(args.runs)]
    figures = {key: statistics.median(r[key] for r in runs) for key in runs[0] if runs[0][key] is not None}
    figures["runs"] = runs  # type: ignore[assignment]
    game = "full game" if args.rounds == 3 else f"{args.rounds}-round game"
    print(f"{args.edition}, {args.players} {args.bot} peers, {game}, {args.runs} runs (median [range]):")
    print(f"  wall {_spread([r['game_s'] for r in runs], 's')} (lobby and process start included); "
          f"records {_spread([r['records'] for r in runs], '', 0)}; sent {_spread([r['mb_sent'] for r in runs], 'MB')}")
    print(f"  turn latency p50 {_spread([r['turn_p50_ms'] for r in runs], 'ms')}, "
          f"p99 {_spread([r['turn_p99_ms'] for r in runs], 'ms')}")
    taken = [r for r in runs if r["take_p10_ms"] is not None]
    if taken:
        print(f"  taking another seat's move in: p10 {_spread([r['take_p10_ms'] for r in taken], 'ms', 2)}, "
              f"p50 {_spread([r['take_p50_ms'] for r in taken], 'ms', 2)} (how busy the machine was: a p10 "
              f"of about 0.2 ms is a quiet one, 0.7 and more a slow spell)")
    print(f"  first move due {_spread([r['first_turn_s'] for r in runs], 's')} after the host was launched; "
          f"longest pause between rounds {_spread([r['next_round_s'] for r in runs if r['next_round_s']], 's', 2)}")
    print(f"  peak memory per peer {_spread([r['mib_per_peer'] for r in runs], 'MiB', 0)}")
    busy = _spread([r['cores_busy'] for r in runs], 'cores', 2)
    print(f"  CPU of all peers {_spread([r['cpu_s'] for r in runs], 's')}: {busy} "
          f"of this machine's {os.cpu_count()} busy on average (process start, lobby and set-up included)")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=1)


if __name__ == "__main__":
    main()
