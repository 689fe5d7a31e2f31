"""The network lab itself: hosts reach each other only through its switch, which delays, loses and cuts.

Each test builds a small lab (a fraction of a second), runs a TCP echo server on host 1 and
short client scripts on the other hosts, and checks what the clients measured.  Bounds on
times are lower bounds the switch guarantees, or loose upper bounds for a loaded machine.
Every test is skipped, with the reason, where labs cannot be built (not root, no ``ip``).
"""
from __future__ import annotations

import json
import select
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest
from netlab import NetLab, netlab_available

AVAILABLE, WHY_NOT = netlab_available()
pytestmark = pytest.mark.skipif(not AVAILABLE, reason=WHY_NOT or "netlab unavailable")

PORT = 7000

#: Echoes every connection, after a first line that tells the client the address it came from.
SERVER = """
import socket, sys, threading
server = socket.create_server(("0.0.0.0", int(sys.argv[1])))
print("ready", flush=True)
def serve(conn, peer):
    with conn:
        conn.sendall(peer[0].encode() + b"\\n")
        while data := conn.recv(65536):
            conn.sendall(data)
while True:
    threading.Thread(target=serve, args=server.accept(), daemon=True).start()
"""

#: Tries to connect until a deadline, then times echoes; prints what happened as JSON.
CLIENT = """
import json, socket, sys, time
host, port, deadline, attempt, echoes, size = sys.argv[1], int(sys.argv[2]), *map(float, sys.argv[3:5]), *map(int, sys.argv[5:7])
start = time.monotonic()
result = {"connected": False, "error": None}
while not result["connected"] and time.monotonic() - start < deadline:
    t = time.monotonic()
    try:
        conn = socket.create_connection((host, port), timeout=attempt)
    except OSError as exc:
        result["error"] = repr(exc)
        time.sleep(0.05)
        continue
    result.update(connected=True, connect_s=time.monotonic() - t, elapsed_s=time.monotonic() - start)
if result["connected"]:
    conn.settimeout(20)
    reader = conn.makefile("rb")
    result["peer"] = reader.readline().decode().strip()
    rtts, payload = [], bytes(range(256)) * (size // 256)
    for _ in range(echoes):
        t = time.monotonic()
        conn.sendall(payload)
        ok = reader.read(len(payload)) == payload
        rtts.append(time.monotonic() - t)
    result.update(rtts=rtts, intact=ok if echoes else None)
print(json.dumps(result))
"""


@pytest.fixture
def lab(request: pytest.FixtureRequest) -> Iterator[NetLab]:
    """A lab with an echo server on host 1 (and on host 3 when there is one)."""
    hosts = getattr(request, "param", 2)
    with NetLab(hosts=hosts) as built:
        for host in [1, 3] if hosts >= 3 else [1]:
            server = built.popen(host, [sys.executable, "-c", SERVER, str(PORT)], stdout=subprocess.PIPE, text=True)
            assert server.stdout is not None
            assert select.select([server.stdout], [], [], 15)[0], "the echo server did not start"
            assert server.stdout.readline().strip() == "ready"
        yield built


def client(lab: NetLab, host: int, to: int, deadline: float = 5.0, attempt: float = 2.0, echoes: int = 0,
           size: int = 256) -> dict[str, Any]:
    """What a client on ``host`` saw connecting to the echo server on ``to`` and echoing ``size`` bytes."""
    argv = [sys.executable, "-c", CLIENT, lab.address(to), str(PORT), str(deadline), str(attempt), str(echoes), str(size)]
    done = lab.run(host, argv, timeout=deadline + attempt + 60, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_hosts_reach_each_other_at_their_lab_addresses(lab: NetLab) -> None:
    assert lab.address(1) == "198.18.77.1"
    seen = client(lab, 2, 1, echoes=3, size=4096)
    assert seen["connected"], seen
    assert seen["peer"] == lab.address(2)
    assert seen["intact"]
    stats = lab.stats()
    assert stats["forwarded"] > 0
    assert stats["largest"] <= 1514  # offloads are off: real Ethernet frames, no super-frames


@pytest.mark.parametrize("fault", ["cut", "loss"])
def test_a_fault_stops_connections_and_healing_restores_them_within_two_seconds(lab: NetLab, fault: str) -> None:
    if fault == "cut":
        lab.cut(1)
    else:
        lab.set_profile(loss=1.0)
    blocked = client(lab, 2, 1, deadline=0.5, attempt=0.5)
    assert not blocked["connected"], blocked
    assert lab.stats()["dropped_" + fault] > 0
    lab.heal()
    lab.set_profile()
    healed = client(lab, 2, 1, deadline=2.0, attempt=0.5)
    assert healed["connected"], healed
    assert healed["elapsed_s"] < 2.0


@pytest.mark.parametrize("lab", [3], indirect=True)
def test_a_partition_separates_groups_only(lab: NetLab) -> None:
    lab.partition([1], [2, 3])
    assert not client(lab, 2, 1, deadline=0.5, attempt=0.5)["connected"]
    # the connections that must be made get a long deadline: they end as soon as they connect,
    # and a switch starved of CPU by the suite's other workers once took more than 2 s
    assert client(lab, 2, 3, deadline=10.0, attempt=0.5)["connected"]
    lab.heal()
    assert client(lab, 2, 1, deadline=10.0, attempt=0.5)["connected"]


def test_delay_applies_on_every_traversal(lab: NetLab) -> None:
    lab.set_profile(delay_ms=50)
    seen = client(lab, 2, 1, echoes=3)
    assert seen["connected"], seen
    # SYN out and SYN-ACK back, and each echo out and back, cross the switch twice.
    assert seen["connect_s"] >= 0.099
    assert min(seen["rtts"]) >= 0.099
    assert min(seen["rtts"]) < 1.0


def test_jitter_loss_and_reordering_keep_tcp_streams_intact(lab: NetLab) -> None:
    lab.set_profile(delay_ms=5, jitter_ms=4, loss=0.03, reorder=0.1, reorder_ms=10, distribution="normal")
    seen = client(lab, 2, 1, echoes=2, size=256 * 400)
    assert seen["connected"], seen
    assert seen["intact"]
    assert lab.stats()["dropped_loss"] > 0


def test_closing_kills_the_lab_processes_and_deletes_its_namespaces() -> None:
    with pytest.raises(KeyError), NetLab(hosts=2) as lab:
        sleeper = lab.popen(2, [sys.executable, "-c", "import time; time.sleep(600)"])
        assert lab.namespace(1) in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
        raise KeyError("a failing test")
    assert sleeper.poll() is not None
    assert lab.switch is not None and lab.switch.poll() is not None
    lab.close()  # idempotent
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True).stdout
    assert not [line for line in left.splitlines() if line.startswith(lab.prefix)], left
