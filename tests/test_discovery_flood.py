"""A stranger on the LAN who floods the browse with service names (found by an attack): the
names that never resolve do not crowd a real table out, so an impostor of its name cannot
stand alone in its place; past NAMES_LIMIT names the browse refuses to pick from the flood."""
from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from saboteur_p2p.net.discovery import NAMES_LIMIT, SERVICE_TYPE, TableAnnouncer

#: one flood of lo at a time, and never beside another test's browse of lo (test_discovery.py);
#: slow (each waits 4-9 s on a browse): run early, so that the lock they queue on is not a tail
pytestmark = [pytest.mark.usefixtures("loopback_browse"), pytest.mark.slow]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


#: the flooder: a process of its own, so that nothing of its zeroconf stays in the test's
_FLOODER = r"""
import os, sys, time
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText, IPVersion, ServiceInfo, Zeroconf
from zeroconf.const import _CLASS_IN, _CLASS_UNIQUE, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_A, _TYPE_PTR, _TYPE_SRV, _TYPE_TXT
fillers, port, name, kind, seconds = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], float(sys.argv[5])
zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
from saboteur_p2p.net.lobby import LOBBY_VERSION
props = {"txtvers": "1", "lobby": str(LOBBY_VERSION), "name": name, "edition": "base", "seats": "3", "free": "2", "code": "0"}
instance, server = f"{name} impostor {os.getpid()}.{kind}", f"impostor-{os.getpid()}.local."
text = ServiceInfo(kind, instance, port=port, properties=props, server=server, parsed_addresses=["127.0.0.1"]).text
print("flooding", flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    out.add_answer_at_time(DNSPointer(kind, _TYPE_PTR, _CLASS_IN, 4500, instance), 0)
    out.add_answer_at_time(DNSService(instance, _TYPE_SRV, _CLASS_IN | _CLASS_UNIQUE, 120, 0, 0, port, server), 0)
    out.add_answer_at_time(DNSText(instance, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500, text), 0)
    out.add_answer_at_time(DNSAddress(server, _TYPE_A, _CLASS_IN | _CLASS_UNIQUE, 120, bytes([127, 0, 0, 1])), 0)
    zc.send(out)
    for start in range(0, fillers, 60):  # a packet holds about 60 names
        out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
        for i in range(start, min(fillers, start + 60)):
            out.add_answer_at_time(DNSPointer(kind, _TYPE_PTR, _CLASS_IN, 4500, f"filler-{os.getpid()}-{i:04d}.{kind}"), 0)
        zc.send(out)
    time.sleep(0.03)
zc.close()
"""


@contextlib.contextmanager
def flooding(fillers: int, impostor_port: int, name: str, seconds: float = 20.0) -> Iterator[None]:
    """Answers on lo every 30 ms, unasked: ``fillers`` bare service names (no address, so a
    browse drops them), and a whole record of an impostor table named ``name``."""
    flooder = subprocess.Popen([sys.executable, "-c", _FLOODER, str(fillers), str(impostor_port), name, SERVICE_TYPE,
                                str(seconds)], stdout=subprocess.PIPE, text=True)
    try:
        assert flooder.stdout is not None and flooder.stdout.readline().strip() == "flooding"
        yield
    finally:
        flooder.kill()
        flooder.wait()


#: a browse in a process of its own: a flooded browse left this one hearing the flood in the
#: next test's browse (zeroconf's state in a process outlives an instance)
_BROWSER = r"""
import json, sys
from saboteur_p2p.net.discovery import browse_tables
from saboteur_p2p.net.invite import LobbyError
try:
    print(json.dumps([[t.name, t.port] for t in browse_tables(float(sys.argv[1]), "127.0.0.1")]))
except LobbyError as exc:
    print(json.dumps(str(exc)))
"""


def browse_elsewhere(seconds: float) -> list[list[object]] | str:
    """The (name, port) of each table a browse of lo finds, or the error it gives."""
    done = subprocess.run([sys.executable, "-c", _BROWSER, str(seconds)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_names_that_never_resolve_do_not_hide_a_table_behind_an_impostor_of_its_name() -> None:
    port, impostor = _free_port(), _free_port()
    name = f"alice-{os.getpid()}"
    announcer = TableAnnouncer.start(f"tcp://127.0.0.1:{port}", name, "base", 3, 1, False, lambda text: None)
    assert announcer is not None
    try:
        time.sleep(1.0)  # the name claimed
        with flooding(63, impostor, name):
            time.sleep(0.3)
            found = browse_elsewhere(2.0)
    finally:
        announcer.close()
    assert isinstance(found, list), found
    # both: a person sees two tables of one name, not the impostor alone
    assert sorted(p for n, p in found if n == name) == sorted([port, impostor])


def test_a_browse_flooded_past_its_names_refuses_to_offer_what_it_found() -> None:
    with flooding(NAMES_LIMIT + 60, _free_port(), "mallory"):
        time.sleep(0.3)
        found = browse_elsewhere(2.0)
    assert isinstance(found, str) and "floods it" in found, found


#: a stranger's goodbyes (a pointer with a time to live of 0) for a table it does not hold
_GOODBYES = r"""
import sys, time
from zeroconf import DNSOutgoing, DNSPointer, IPVersion, Zeroconf
from zeroconf.const import _CLASS_IN, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_PTR
kind, instance, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
print("saying goodbye", flush=True)
end = time.monotonic() + seconds
while time.monotonic() < end:
    out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
    out.add_answer_at_time(DNSPointer(kind, _TYPE_PTR, _CLASS_IN, 0, instance), 0)
    zc.send(out)
    time.sleep(0.03)
zc.close()
"""


def test_a_strangers_goodbye_for_a_table_does_not_hide_it() -> None:
    port = _free_port()
    name = f"carol-{os.getpid()}"
    announcer = TableAnnouncer.start(f"tcp://127.0.0.1:{port}", name, "base", 3, 1, False, lambda text: None)
    assert announcer is not None
    try:
        time.sleep(1.0)  # the name claimed
        instance = f"{announcer._label}.{SERVICE_TYPE}"
        liar = subprocess.Popen([sys.executable, "-c", _GOODBYES, SERVICE_TYPE, instance, "20"], stdout=subprocess.PIPE,
                                text=True)
        try:
            assert liar.stdout is not None and liar.stdout.readline().strip() == "saying goodbye"
            found = browse_elsewhere(2.0)
        finally:
            liar.kill()
            liar.wait()
    finally:
        announcer.close()
    assert isinstance(found, list) and [p for n, p in found if n == name] == [port], found
