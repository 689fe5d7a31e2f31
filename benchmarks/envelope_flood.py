"""An outsider floods a table with large signed envelopes: the host's peak memory, and whether
the table still plays.

A host (a bot seat) opens a 3-seat table on loopback; two bot peers join; while the game runs,
an outsider (a key that has no seat) sends envelopes of about 4 MiB, signed by itself, as fast
as ZeroMQ takes them, from several connections.  Prints the host's peak resident memory
(VmHWM), the envelopes sent, and whether the game finished.  Asserts nothing.  Usage:

    python benchmarks/envelope_flood.py [--seconds 20] [--connections 4] [--size-mib 4]
"""
from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import zmq

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.wire import seal


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def peak_rss_mib(pid: int) -> float:
    try:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
    except OSError:
        return float("nan")  # it has just exited
    for line in lines:
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--connections", type=int, default=4)
    parser.add_argument("--size-mib", type=float, default=4.0)
    args = parser.parse_args()
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(tmp)
        command = [sys.executable, "-m", "saboteur_p2p", "host", "--bind", f"127.0.0.1:{port}", "--seats", "3",
                   "--bot", "random", "--bots", "2", "--bots-kind", "random", "--log-dir", str(logs),
                   "--identity", str(logs / "host.identity"), "--quiet"]
        host = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=dict(os.environ))
        time.sleep(2)  # the lobby fills and the game starts (its shuffles keep it going a while)
        outsider = Identity.generate()
        junk = seal(outsider, "chat", {"text": "x", "padding": os.urandom(int(args.size_mib * 1024 * 1024))})
        context = zmq.Context()
        dealers = []
        for _ in range(args.connections):
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.setsockopt(zmq.SNDHWM, 4)
            dealer.connect(f"tcp://127.0.0.1:{port}")
            dealers.append(dealer)
        sent = 0
        peak = float("nan")

        def note_peak() -> None:
            nonlocal peak
            reading = peak_rss_mib(host.pid)  # VmHWM: the peak so far; nan once it has exited
            if reading == reading:
                peak = reading if peak != peak else max(peak, reading)

        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline and host.poll() is None:
            note_peak()
            for dealer in dealers:
                try:
                    dealer.send(junk, zmq.NOBLOCK)
                    sent += 1
                except zmq.Again:
                    pass
            time.sleep(0.001)
        if host.poll() is None:
            note_peak()
        for dealer in dealers:
            dealer.close()
        context.term()
        try:
            output, _ = host.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            host.kill()
            output, _ = host.communicate()
    last = output.decode(errors="replace").strip().splitlines()[-1:] or ["(no output)"]
    print(f"flood: {sent} envelopes of {args.size_mib:.0f} MiB from {args.connections} connections in {args.seconds:.0f} s")
    print(f"host peak memory during the flood: {peak:.0f} MiB; exit {host.returncode}; said: {last[0]}")


if __name__ == "__main__":
    main()
