"""A table of bot peers on separate hosts of a ``NetLab``: the host on host 1, bound to the
default 0.0.0.0, and one joiner on each other host dialling the host's lab address.

Shared by tests/test_lan.py and benchmarks/lan_game.py.  Every peer is a real
``python -m saboteur_p2p`` process in its own network namespace; its output and logs are
under ``root``.
"""
from __future__ import annotations

import functools
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from netlab import NetLab

PORT = 7777


@dataclass
class LanPeer:
    name: str
    host: int
    proc: subprocess.Popen[bytes]
    output: Path
    log_dir: Path

    def text(self) -> str:
        return self.output.read_text(errors="replace") if self.output.exists() else ""

    def log(self) -> Path | None:
        logs = sorted(self.log_dir.glob("game-*-seat*.log"))
        return logs[0] if logs else None

    def log_size(self) -> int:
        log = self.log()
        return log.stat().st_size if log is not None else 0

    def stats(self) -> dict[str, Any] | None:
        found = sorted(self.log_dir.glob("*.stats.json"))
        return json.loads(found[0].read_text()) if found else None


def start_table(lab: NetLab, root: Path, seats: int, bot: str = "random",
                wait: float = 30.0, edition: str | None = None, rounds: int = 3) -> list[LanPeer]:
    """Start the host on host 1 (default bind) and a joiner on hosts 2..seats; a game of ``rounds``."""
    peers = []
    for host in range(1, seats + 1):
        name = f"p{host}"
        log_dir = root / name
        log_dir.mkdir(parents=True, exist_ok=True)
        common = ["--bot", bot, "--name", name, "--identity", str(root / f"{name}.identity"), "--log-dir", str(log_dir),
                  "--wait", str(wait)]
        if host == 1:
            command = ["host", "--seats", str(seats), "--rounds", str(rounds), *common]  # --bind: 0.0.0.0:7777
            if edition:
                command += ["--edition", edition]
        else:
            command = ["join", f"{lab.address(1)}:{PORT}", *common]
        output = root / f"{name}.out"
        with open(output, "wb") as out:
            proc = lab.popen(host, [sys.executable, "-m", "saboteur_p2p", *command],
                             stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        peers.append(LanPeer(name, host, proc, output, log_dir))
        if host == 1:
            _wait_for(functools.partial(_opened, peers[0]), 20, "the host to open")
    return peers


def finish(peers: list[LanPeer], timeout: float) -> list[int]:
    """Every peer's exit status, waiting at most ``timeout`` seconds in all (a peer still
    running then is reported as None)."""
    deadline = time.monotonic() + timeout
    codes = []
    for peer in peers:
        try:
            codes.append(peer.proc.wait(timeout=max(0.1, deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            codes.append(None)  # type: ignore[arg-type]
    return codes


def wait_for_progress(peers: list[LanPeer], records_bytes: int, timeout: float) -> None:
    """Wait until every peer's log holds at least ``records_bytes`` bytes."""
    _wait_for(lambda: all(p.log_size() >= records_bytes for p in peers), timeout, f"every log to reach {records_bytes} bytes")


def wait_for_stall(peers: list[LanPeer], quiet: float, timeout: float) -> None:
    """Wait until no peer's log has grown for ``quiet`` seconds (the table waits for someone)."""
    sizes = [p.log_size() for p in peers]
    since = time.monotonic()
    deadline = since + timeout
    while time.monotonic() < deadline:
        time.sleep(0.05)
        now = [p.log_size() for p in peers]
        if now != sizes:
            sizes, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            return
    raise AssertionError(f"the table never stalled for {quiet} s within {timeout} s")


def time_to_progress(peers: list[LanPeer], timeout: float) -> float:
    """Seconds until any of ``peers``' logs grows (polled every 10 ms)."""
    sizes = [p.log_size() for p in peers]
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if [p.log_size() for p in peers] != sizes:
            return time.monotonic() - start
        time.sleep(0.01)
    # what each peer said last, for a failure that is rare (a CI run in several): its files go
    said = "\n\n".join(f"{p.name}:\n{p.text()[-1200:]}" for p in peers)
    raise AssertionError(f"no log grew within {timeout} s; sizes {sizes}\n{said}")


def verify(peer: LanPeer) -> str:
    """What ``saboteur-p2p verify`` says of a peer's log."""
    log = peer.log()
    assert log is not None, f"{peer.name} wrote no log"
    done = subprocess.run([sys.executable, "-m", "saboteur_p2p", "verify", str(log)], capture_output=True, text=True, timeout=120)
    return done.stdout + done.stderr


def _opened(host: LanPeer) -> bool:
    return "friends join with" in host.text() or host.proc.poll() is not None


def _wait_for(condition: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")
