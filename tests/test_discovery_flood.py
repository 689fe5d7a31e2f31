"""A stranger on the LAN who floods the browse with service names (found by an attack): the
names that never resolve do not crowd a real table out, so an impostor of its name cannot
stand alone in its place; past NAMES_LIMIT names the browse refuses to pick from the flood."""
from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator

import pytest
from zeroconf import DNSAddress, DNSOutgoing, DNSPointer, DNSService, DNSText, IPVersion, ServiceInfo, Zeroconf
from zeroconf.const import _CLASS_IN, _CLASS_UNIQUE, _FLAGS_AA, _FLAGS_QR_RESPONSE, _TYPE_A, _TYPE_PTR, _TYPE_SRV, _TYPE_TXT

from saboteur_p2p.net.discovery import NAMES_LIMIT, SERVICE_TYPE, TableAnnouncer, browse_tables
from saboteur_p2p.net.invite import LobbyError

#: one flood of lo at a time, and never beside another test's browse of lo (test_discovery.py)
pytestmark = pytest.mark.xdist_group("loopback-browse")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def flooding(fillers: int, impostor_port: int, name: str) -> Iterator[None]:
    """Answers on lo every 30 ms, unasked: ``fillers`` bare service names (no address, so a
    browse drops them), and a whole record of an impostor table named ``name``."""
    zc = Zeroconf(interfaces=["127.0.0.1"], ip_version=IPVersion.V4Only)
    props = {"txtvers": "1", "lobby": "12", "name": name, "edition": "base", "seats": "3", "free": "2", "code": "0"}
    instance = f"{name} impostor {os.getpid()}.{SERVICE_TYPE}"
    server = f"impostor-{os.getpid()}.local."
    text = ServiceInfo(SERVICE_TYPE, instance, port=impostor_port, properties=props, server=server,
                       parsed_addresses=["127.0.0.1"]).text
    stop = threading.Event()

    def send() -> None:
        while not stop.is_set():
            out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
            out.add_answer_at_time(DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 4500, instance), 0)
            out.add_answer_at_time(DNSService(instance, _TYPE_SRV, _CLASS_IN | _CLASS_UNIQUE, 120, 0, 0, impostor_port,
                                              server), 0)
            out.add_answer_at_time(DNSText(instance, _TYPE_TXT, _CLASS_IN | _CLASS_UNIQUE, 4500, text), 0)
            out.add_answer_at_time(DNSAddress(server, _TYPE_A, _CLASS_IN | _CLASS_UNIQUE, 120, bytes([127, 0, 0, 1])), 0)
            zc.send(out)
            for start in range(0, fillers, 60):  # a packet holds about 60 names
                out = DNSOutgoing(_FLAGS_QR_RESPONSE | _FLAGS_AA)
                for i in range(start, min(fillers, start + 60)):
                    out.add_answer_at_time(DNSPointer(SERVICE_TYPE, _TYPE_PTR, _CLASS_IN, 4500,
                                                      f"filler-{os.getpid()}-{i:04d}.{SERVICE_TYPE}"), 0)
                zc.send(out)
            stop.wait(0.03)

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        zc.close()


def test_names_that_never_resolve_do_not_hide_a_table_behind_an_impostor_of_its_name() -> None:
    port, impostor = _free_port(), _free_port()
    name = f"alice-{os.getpid()}"
    announcer = TableAnnouncer.start(f"tcp://127.0.0.1:{port}", name, "base", 3, 1, False, lambda text: None)
    assert announcer is not None
    try:
        time.sleep(1.0)  # the name claimed
        with flooding(63, impostor, name):
            time.sleep(0.3)
            found = [t.port for t in browse_tables(2.0, "127.0.0.1") if t.name == name]
    finally:
        announcer.close()
    assert sorted(found) == sorted([port, impostor])  # both: a person sees two tables of one name, not one


def test_a_browse_flooded_past_its_names_refuses_to_offer_what_it_found() -> None:
    with flooding(NAMES_LIMIT + 60, _free_port(), "mallory"), pytest.raises(LobbyError, match="floods it"):
        browse_tables(2.0, "127.0.0.1")
