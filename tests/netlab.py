"""A network lab on one box: peer processes on separate "machines" joined by a faulty switch.

``NetLab(hosts=N)`` gives every host a network namespace of its own with one interface, ``eth0``,
at ``198.18.77.<n>/24`` (the RFC 2544 benchmark range), wired to a user-space switch (this file run
as a script, in a namespace of its own) that forwards frames with the delay, jitter, loss,
reordering, cuts and partitions the test sets while it runs.  Nothing is attached to the root
namespace: lab traffic cannot leave the lab, and labs (or test runs) never see each other.

    with NetLab(hosts=3) as lab:
        server = lab.popen(1, [sys.executable, "-m", "saboteur_p2p", ...])
        lab.set_profile(delay_ms=20, jitter_ms=10, loss=0.01)
        lab.cut(2); ...; lab.heal()

The lab needs root, the ``ip`` command and network namespaces; ``netlab_available()`` says
whether it can run here and why not.  Run as a script, this file is the hub itself.
"""
from __future__ import annotations

import atexit
import contextlib
import ctypes
import fcntl
import functools
import heapq
import json
import os
import random
import re
import selectors
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import IO, Any

SUBNET = "198.18.77"
PREFIX = "nlab"
_NAME = re.compile(rf"^{PREFIX}(\d+)x")
_serial = 0


def _ip(*args: str, stdin: str | None = None, check: bool = True) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(["ip", *args], input=stdin, capture_output=True, text=True, timeout=20)
    if check and done.returncode:
        raise RuntimeError(f"`ip {' '.join(args)}` failed: {done.stderr.strip()}")
    return done


def _delete_netns(name: str) -> None:
    """Kill whatever still runs in the namespace ``name`` (but the caller), then delete it and so its interfaces."""
    for pid in _ip("netns", "pids", name, check=False).stdout.split():
        with contextlib.suppress(ProcessLookupError, ValueError):
            if int(pid) != os.getpid():
                os.kill(int(pid), signal.SIGKILL)
    _ip("netns", "del", name, check=False)


def cleanup_stale() -> None:
    """Delete lab namespaces left behind by test processes that no longer exist."""
    for line in _ip("netns", "list", check=False).stdout.splitlines():
        name = line.split()[0] if line.strip() else ""
        match = _NAME.match(name)
        if match and not Path(f"/proc/{match.group(1)}").exists():
            _delete_netns(name)


@functools.cache
def netlab_available() -> tuple[bool, str]:
    """(True, "") when labs can be built here, else (False, the reason), for ``pytest.skip``."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return False, "netlab needs root (network namespaces, veth pairs, raw sockets)"
    if shutil.which("ip") is None:
        return False, "netlab needs the `ip` command (iproute2)"
    name = f"{PREFIX}{os.getpid()}xprobe"
    try:
        _ip("netns", "add", name)
        _ip("-n", name, "link", "add", "name", "a", "type", "veth", "peer", "name", "b")
        _ip("netns", "exec", name, "true")
        socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)).close()
    except (OSError, AttributeError, RuntimeError, subprocess.SubprocessError) as exc:
        return False, f"netlab cannot run here: {exc}"
    finally:
        _ip("netns", "del", name, check=False)
    return True, ""


class NetLab:
    """``hosts`` namespaces on one switched /24 whose faults the test controls at run time."""

    def __init__(self, hosts: int) -> None:
        global _serial
        if not 1 <= hosts <= 250:
            raise ValueError("a lab has 1 to 250 hosts")
        _serial += 1
        self.hosts = hosts
        self.prefix = f"{PREFIX}{os.getpid()}x{_serial}-"
        self.switch: subprocess.Popen[str] | None = None
        self.procs: list[subprocess.Popen[Any]] = []
        self._namespaces: list[str] = []
        self._closed = False
        self._lock = threading.Lock()

    def namespace(self, host: int) -> str:
        """The name of host ``host``'s network namespace (hosts count from 1; 0 is the switch)."""
        return f"{self.prefix}{'sw' if host == 0 else f'h{host}'}"

    def address(self, host: int) -> str:
        """Host ``host``'s IPv4 address."""
        if not 1 <= host <= self.hosts:
            raise ValueError(f"no host {host} in a lab of {self.hosts}")
        return f"{SUBNET}.{host}"

    def __enter__(self) -> NetLab:
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        """Build the namespaces, the wires and the switch."""
        ok, reason = netlab_available()
        if not ok:
            raise RuntimeError(reason)
        cleanup_stale()
        atexit.register(self.close)
        sw = self.namespace(0)
        for ns in [sw, *(self.namespace(n) for n in range(1, self.hosts + 1))]:
            _ip("netns", "add", ns)
            self._namespaces.append(ns)
        ports = [f"p{n}" for n in range(1, self.hosts + 1)]
        peers = [f"q{n}" for n in range(1, self.hosts + 1)]
        _ip("-n", sw, "-batch", "-", stdin="".join(
            f"link add name {p} mtu 1500 type veth peer name {q}\nlink set {p} up\n" for p, q in zip(ports, peers, strict=True)))
        # Both ends of every wire lose their offloads while they are still in the switch's namespace:
        # the hub must see real, checksummed, MTU-sized frames.
        script = [sys.executable, str(Path(__file__).resolve())]
        subprocess.run(["ip", "netns", "exec", sw, *script, "offload", *ports, *peers], check=True, timeout=20)
        for n, q in enumerate(peers, start=1):
            ns = self.namespace(n)
            _ip("-n", sw, "link", "set", q, "netns", ns)
            _ip("-n", ns, "-batch", "-", stdin=(
                f"link set {q} name eth0\nlink set lo up\nlink set eth0 up\n"
                f"addr add {self.address(n)}/24 dev eth0\n"))
        # The switch watches its stdin: should this process die without closing the lab, the switch closes it.
        self.switch = subprocess.Popen(["ip", "netns", "exec", sw, *script, "switch", *ports, "--", *self._namespaces[::-1]],
                                       stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)
        self._command({"cmd": "stats"})  # answered once the hub listens on every port

    def popen(self, host: int, argv: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` on host ``host`` (in a session of its own); the lab kills it on close."""
        self.address(host)
        kwargs.setdefault("start_new_session", True)
        proc = subprocess.Popen(["ip", "netns", "exec", self.namespace(host), *argv], **kwargs)
        self.procs.append(proc)
        return proc

    def run(self, host: int, argv: Sequence[str], timeout: float = 30.0, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        """Run ``argv`` on host ``host`` to its end, like ``subprocess.run``."""
        self.address(host)
        return subprocess.run(["ip", "netns", "exec", self.namespace(host), *argv], timeout=timeout, **kwargs)

    def set_profile(self, delay_ms: float = 0.0, jitter_ms: float = 0.0, loss: float = 0.0, reorder: float = 0.0,
                    reorder_ms: float = 20.0, distribution: str = "uniform") -> None:
        """Every frame from now on waits ``delay_ms`` plus a jitter (``uniform`` in ±jitter_ms, or ``normal`` with
        that deviation), is lost with probability ``loss``, and with probability ``reorder`` waits ``reorder_ms`` more."""
        if not (0 <= loss <= 1 and 0 <= reorder <= 1 and min(delay_ms, jitter_ms, reorder_ms) >= 0) or \
                distribution not in ("uniform", "normal"):
            raise ValueError("delays are >= 0, probabilities in [0, 1], the distribution 'uniform' or 'normal'")
        self._command({"cmd": "profile", "delay_ms": delay_ms, "jitter_ms": jitter_ms, "loss": loss,
                       "reorder": reorder, "reorder_ms": reorder_ms, "distribution": distribution})

    def cut(self, *hosts: int) -> None:
        """Drop every frame to or from these hosts (added to the cuts already in force)."""
        others = range(1, self.hosts + 1)
        self._block([(a, b) for h in hosts for o in others if o != h for a, b in ((h, o), (o, h))])

    def partition(self, *groups: Iterable[int]) -> None:
        """Drop every frame between hosts of different groups (hosts in no group stay connected to all)."""
        sets = [set(g) for g in groups]
        self._block([(a, b) for i, g in enumerate(sets) for j, k in enumerate(sets) if i != j for a in g for b in k])

    def heal(self) -> None:
        """Lift every cut and partition."""
        self._command({"cmd": "heal"})

    def stats(self) -> dict[str, int]:
        """The switch's counters: frames received, forwarded, dropped (by loss, cut, full queue), queued, largest."""
        return {k: v for k, v in self._command({"cmd": "stats"}).items() if k != "ok"}

    def _block(self, pairs: list[tuple[int, int]]) -> None:
        for host in {h for pair in pairs for h in pair}:
            self.address(host)
        self._command({"cmd": "block", "pairs": pairs})

    def _command(self, command: dict[str, Any]) -> dict[str, Any]:
        if self.switch is None or self.switch.stdin is None or self.switch.stdout is None or self.switch.poll() is not None:
            raise RuntimeError("the lab's switch is not running")
        with self._lock:
            self.switch.stdin.write(json.dumps(command) + "\n")
            self.switch.stdin.flush()
            reply = json.loads(self.switch.stdout.readline() or '{"ok": false}')
        if not reply.get("ok"):
            raise RuntimeError(f"the switch refused {command}: {reply}")
        return reply

    def close(self) -> None:
        """Kill every process of the lab and delete its namespaces; safe to call more than once."""
        if self._closed:
            return
        self._closed = True
        atexit.unregister(self.close)
        procs = self.procs + ([self.switch] if self.switch else [])
        for proc in procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(proc.pid, signal.SIGKILL)  # the process and whatever it started in its session
                proc.kill()
        for ns in reversed(self._namespaces):
            _delete_netns(ns)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)
            for stream in filter(None, (proc.stdin, proc.stdout, proc.stderr)):
                with contextlib.suppress(OSError):
                    stream.close()


def _disable_offloads(ifnames: Sequence[str]) -> None:
    """Turn off checksum offload, scatter-gather, TSO, GSO and GRO (legacy ethtool ioctls) on these interfaces."""
    commands = (0x17, 0x19, 0x1F, 0x24, 0x2C)  # ETHTOOL_S{TXCSUM,SG,TSO,GSO,GRO}
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        for ifname in ifnames:
            for command in commands:
                value = ctypes.create_string_buffer(struct.pack("II", command, 0))
                request = struct.pack("16sP", ifname.encode(), ctypes.addressof(value)).ljust(40, b"\0")
                fcntl.ioctl(sock.fileno(), 0x8946, request)  # SIOCETHTOOL


def _switch(ports: Sequence[str], control: IO[str], out: IO[str], namespaces: Sequence[str]) -> None:
    """Forward frames among ``ports`` under the profile and cuts that JSON lines on ``control`` set; delete the
    ``namespaces`` when ``control`` ends, which only happens when the lab's process died without closing the lab."""
    sel = selectors.DefaultSelector()
    sel.register(control, selectors.EVENT_READ, 0)
    socks = [socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3)) for _ in ports]  # ETH_P_ALL
    for index, (sock, port) in enumerate(zip(socks, ports, strict=True), start=1):
        sock.bind((port, 0))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 21)
        sock.setblocking(False)
        sel.register(sock, selectors.EVENT_READ, index)
    profile: dict[str, Any] = {"delay_ms": 0.0, "jitter_ms": 0.0, "loss": 0.0, "reorder": 0.0, "reorder_ms": 20.0,
                               "distribution": "uniform"}
    blocked: set[tuple[int, int]] = set()
    macs: dict[bytes, int] = {}
    counts = dict.fromkeys(("received", "forwarded", "dropped_loss", "dropped_cut", "dropped_queue", "largest"), 0)
    heap: list[tuple[float, int, int, int, bytes]] = []
    seq = 0
    pending = b""
    rng = random.Random()
    while True:
        timeout = max(0.0, heap[0][0] - time.monotonic()) if heap else None
        for key, _ in sel.select(timeout):
            src: int = key.data
            if src == 0:
                data = os.read(control.fileno(), 65536)
                if not data:
                    for ns in namespaces:
                        _delete_netns(ns)
                    return
                pending += data
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    command = json.loads(line)
                    if command["cmd"] == "profile":
                        profile.update({k: v for k, v in command.items() if k in profile})
                    elif command["cmd"] == "block":
                        blocked.update((a, b) for a, b in command["pairs"])
                    elif command["cmd"] == "heal":
                        blocked.clear()
                    out.write(json.dumps({"ok": True, **counts, "queued": len(heap)}) + "\n")
                    out.flush()
                continue
            for _ in range(64):
                try:
                    frame, address = socks[src - 1].recvfrom(65535)
                except BlockingIOError:
                    break
                if address[2] == 4:  # PACKET_OUTGOING: our own send
                    continue
                counts["received"] += 1
                counts["largest"] = max(counts["largest"], len(frame))
                if not frame[6] & 1:
                    macs[frame[6:12]] = src
                known = macs.get(frame[0:6])
                now = time.monotonic()
                for dst in [known] if known is not None and known != src else range(1, len(socks) + 1):
                    if dst == src:
                        continue
                    if (src, dst) in blocked:
                        counts["dropped_cut"] += 1
                    elif rng.random() < profile["loss"]:
                        counts["dropped_loss"] += 1
                    else:
                        jitter = profile["jitter_ms"]
                        jitter = rng.gauss(0, jitter) if profile["distribution"] == "normal" else rng.uniform(-jitter, jitter)
                        wait = max(0.0, profile["delay_ms"] + jitter)
                        if profile["reorder"] and rng.random() < profile["reorder"]:
                            wait += profile["reorder_ms"]
                        seq += 1
                        heapq.heappush(heap, (now + wait / 1000, seq, src, dst, frame))
        now = time.monotonic()
        while heap and heap[0][0] <= now:
            _, _, src, dst, frame = heapq.heappop(heap)
            if (src, dst) in blocked:
                counts["dropped_cut"] += 1
                continue
            try:
                socks[dst - 1].send(frame)
                counts["forwarded"] += 1
            except OSError:
                counts["dropped_queue"] += 1


if __name__ == "__main__":
    if sys.argv[1] == "offload":
        _disable_offloads(sys.argv[2:])
    elif sys.argv[1] == "switch":
        split = sys.argv.index("--")
        _switch(sys.argv[2:split], sys.stdin, sys.stdout, sys.argv[split + 1:])
