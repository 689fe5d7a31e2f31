"""A full game of bot peers over loopback, each a separate process: wall time, messages,
bytes, per-turn latency and memory per peer.

Prints figures; asserts nothing.  Turn latency is measured by each mover: from sending
its move until the next seat's move comes in (two hops, any reveals between, and the
next bot's choosing).  Usage:
    python benchmarks/network_game.py [--players 5] [--shuffle-rounds 20] [--bot heuristic]
"""
from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from saboteur_p2p.rules.editions import edition_names


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--shuffle-rounds", type=int, default=20)
    parser.add_argument("--bot", default="heuristic")
    parser.add_argument("--edition", default="base", choices=edition_names())
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp) / "logs"
        command = [
            sys.executable, "-m", "saboteur_p2p", "host", "--bind", f"127.0.0.1:{free_port()}",
            "--seats", str(args.players), "--bot", args.bot, "--bots", str(args.players - 1), "--bots-kind", args.bot,
            "--log-dir", str(logs), "--identity", str(logs / "host.identity"),
            "--shuffle-rounds", str(args.shuffle_rounds), "--edition", args.edition, "--quiet",
        ]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
        wall = time.perf_counter() - started
        stats = [json.loads(p.read_text()) for p in sorted(logs.rglob("*.stats.json"))]
        if done.returncode != 0 or len(stats) != args.players:
            print(done.stdout, done.stderr)
            raise SystemExit(f"the game did not finish cleanly (exit {done.returncode})")
    latencies = sorted(t for s in stats for t in s["turn_latencies"])
    records = stats[0]["records"]
    messages = sum(s["records_sent"] for s in stats) * (args.players - 1)
    sent = sum(s["bytes_sent"] for s in stats)
    p50 = statistics.median(latencies) * 1000
    p99 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] * 1000
    memory = [s["peak_rss_kib"] / 1024 for s in stats]
    print(f"{args.edition}, {args.players} {args.bot} peers, k={args.shuffle_rounds}: full 3-round game in {wall:.1f} s wall "
          f"(lobby and process start included)")
    print(f"log: {records} records; sent: {messages} record messages, {sent / 1e6:.1f} MB in all (pings excluded)")
    print(f"turn latency over {len(latencies)} moves: p50 {p50:.1f} ms, p99 {p99:.1f} ms")
    print(f"peak memory per peer: {min(memory):.0f}-{max(memory):.0f} MiB")


if __name__ == "__main__":
    main()
