"""LAN discovery (net/discovery.py): announcing a table, listing tables, joining one found, and
cleaning what strangers announce.

No packet reaches a real network.  The in-process test pins zeroconf to 127.0.0.1, which sends
and joins the multicast group on ``lo`` only, and (as root) watches every other interface to
prove that none of its frames leave there; other tests' tables may share ``lo``, so it looks
only at its own port.  The command-line test runs on a lab LAN (tests/netlab.py: three network
namespaces wired by a user-space switch, nothing attached to the root namespace), where every
command keeps its defaults: bound to 0.0.0.0, announcing and browsing on every interface.
"""
from __future__ import annotations

import contextlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from netlab import NetLab, netlab_available

from saboteur_p2p.crypto.identity import Identity, load_or_create
from saboteur_p2p.net.discovery import (
    NAME_LIMIT,
    TableAd,
    TableAnnouncer,
    browse_tables,
    clean_text,
    pick_table,
    table_properties,
)
from saboteur_p2p.net.invite import LobbyError, parse_key_text
from saboteur_p2p.net.lobby import LOBBY_VERSION

LAB, WHY_NO_LAB = netlab_available()
BROWSE = "1.5"  # a query within 1 s of an announcement is answered up to 1 s late (RFC 6762 §14)


def _ad(name: str = "alice", free: int | None = 2, edition: str = "base", lobby: int | None = LOBBY_VERSION, port: int = 7777,
        code: bool | None = False) -> TableAd:
    return TableAd(name, edition, 5, free, code, lobby, ("127.0.0.1",), port, f"{name} on box port {port}")


# ---------------------------------------------------------------- what strangers announce


def test_hostile_txt_values_are_cleaned():
    hostile = {
        b"name": "\x1b[2J\x1b[31mEvil\r\nTable\u202e".encode() + b"x" * 5000,
        b"edition": b"base\x1b[0m",
        b"seats": "\u0663".encode(),  # an Arabic-Indic digit three: isdigit(), but not a count we print
        b"free": b"999",
        b"code": b"yes",
        b"lobby": b"3" * 50,
    }
    addresses = ["224.0.0.251", "0.0.0.0", "not an address", "::1", "10.0.0.1", "10.0.0.1",
                 *(f"10.0.1.{i}" for i in range(20))]
    ad = TableAd.from_service("\x07bell\x00" + "y" * 300, hostile, addresses, 7777)
    assert ad is not None
    assert ad.name.startswith("[2J [31mEvil Table xxx") and len(ad.name) == NAME_LIMIT and ad.name.isprintable()
    assert ad.edition == "?" and ad.seats is None and ad.free is None and ad.code is None and ad.lobby is None
    assert ad.addresses[0] == "10.0.0.1" and len(ad.addresses) == 8 and len(set(ad.addresses)) == 8
    assert ad.instance.isprintable() and len(ad.instance) <= 63
    assert not ad.joinable()
    line = ad.describe()
    assert line.isprintable() and "\x1b" not in line


@pytest.mark.parametrize("addresses, port", [([], 7777), (["224.0.0.1", "::1"], 7777), (["10.0.0.1"], 0),
                                             (["10.0.0.1"], None), (["10.0.0.1"], 70000)])
def test_a_service_without_a_usable_address_is_no_table(addresses: list[str], port: int | None):
    assert TableAd.from_service("t", {}, addresses, port) is None


def test_free_seats_above_the_table_size_are_unknown():
    lobby = str(LOBBY_VERSION).encode()
    ad = TableAd.from_service("t", {b"seats": b"3", b"free": b"4", b"lobby": lobby, b"edition": b"base"}, ["10.0.0.1"], 1)
    assert ad is not None and ad.seats == 3 and ad.free is None and ad.joinable()


def test_what_a_host_announces_reads_back():
    key = Identity.generate().public.dh_key
    properties = table_properties("ann\nlee", "saboteur2", 6, 4, True, key)
    ad = TableAd.from_service("x", {k.encode(): v.encode() for k, v in properties.items()}, ["192.168.1.5"], 7777)
    assert ad == TableAd("ann lee", "saboteur2", 6, 4, True, LOBBY_VERSION, ("192.168.1.5",), 7777, "x", key)
    assert ad.to_data()["key"] == properties["key"]
    assert clean_text("a\u200bb\tc  d", 10) == "a b c d"


@pytest.mark.parametrize("key", [b"", b"x" * 42, b"\x1b[2J" + b"A" * 40, b"A" * 43, b"AAAA" * 100])
def test_an_announced_key_that_is_not_a_key_is_none(key: bytes):
    ad = TableAd.from_service("t", {b"key": key}, ["10.0.0.1"], 7777)
    assert ad is not None and ad.key is None and ad.to_data()["key"] is None


# ---------------------------------------------------------------- choosing a table


def test_the_only_table_is_joined_with_yes_and_listed_without():
    said: list[str] = []
    assert pick_table([_ad()], None, True, None, said.append, 3) == _ad()
    with pytest.raises(LobbyError, match=r"(?s)found 1 table.*alice: base, 2 of 5 seats free at 127.0.0.1:7777.*--yes"):
        pick_table([_ad()], None, False, None, said.append, 3)


def test_a_person_picks_by_number_and_unjoinable_tables_are_not_offered():
    tables = [_ad("full", free=0), _ad("old", lobby=2), _ad("ann"), _ad("bob", edition="saboteur2"), _ad("odd", edition="?")]
    said: list[str] = []
    assert pick_table(tables, None, False, lambda prompt: "2", said.append, 3).name == "bob"
    assert "1. ann" in said[0] and "full" not in said[0] and "old" not in said[0] and "odd" not in said[0]
    assert pick_table(tables, "saboteur2", True, None, said.append, 3).name == "bob"
    with pytest.raises(LobbyError, match="no table numbered '7'"):
        pick_table(tables, None, False, lambda prompt: "7", said.append, 3)
    with pytest.raises(LobbyError, match="no table numbered ''"):
        pick_table(tables, None, False, lambda prompt: "", said.append, 3)
    assert pick_table(tables[2:3], None, False, lambda prompt: "", said.append, 3).name == "ann"  # Enter: the only one
    with pytest.raises(LobbyError, match=r"no table found on the LAN within 3 s \(2 others found"):
        pick_table(tables[:2], None, True, None, said.append, 3)


def test_browsing_where_there_is_no_such_interface_is_a_clear_error():
    with pytest.raises(LobbyError, match="cannot look for tables on the interface with address nonsense"):
        browse_tables(0.1, "nonsense")


# ---------------------------------------------------------------- on the wire, in process


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def _watch_other_interfaces(marker: bytes) -> Iterator[list[int]]:
    """Count the frames carrying ``marker`` on every interface but ``lo`` (root only; else nothing)."""
    seen: list[int] = []
    try:
        sniffer = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(3))
    except (AttributeError, PermissionError, OSError):
        yield seen
        return
    sniffer.settimeout(0.1)
    loopback = socket.if_nametoindex("lo")
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            with contextlib.suppress(TimeoutError, OSError):
                frame, where = sniffer.recvfrom(65535)
                if marker in frame and socket.if_nametoindex(where[0]) != loopback:
                    seen.append(len(frame))

    thread = threading.Thread(target=watch, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join()
        sniffer.close()


@pytest.mark.usefixtures("loopback_browse")  # never beside test_discovery_flood's flood of lo
def test_an_announcement_is_found_with_the_latest_count_and_withdrawn_on_loopback_only():
    port = _free_port()  # other tests' tables may be on lo too: ours is the one at this port
    name = f"disco-{os.getpid()}"
    said: list[str] = []
    with _watch_other_interfaces(name.encode()) as leaked:
        announcer = TableAnnouncer.start(f"tcp://127.0.0.1:{port}", name, "base", 4, 1, False, said.append)
        assert announcer is not None
        try:
            announcer.seats_taken(2)  # before the name is even claimed: the latest count wins
            # the latest count, soon: a browse in the moment the update goes out may still read
            # the first (seen after test_discovery_flood's browses had kept zeroconf busy)
            ours = _wait_for(lambda: [t for t in browse_tables(1.0, "127.0.0.1") if t.port == port and t.free == 2], 8)
            assert [(t.name, t.edition, t.seats, t.free, t.code, t.addresses) for t in ours] == \
                [(name, "base", 4, 2, False, ("127.0.0.1",))]
        finally:
            announcer.close()
        assert not [t for t in browse_tables(float(BROWSE), "127.0.0.1") if t.port == port]
    assert any("announced on the LAN" in line for line in said), said
    assert leaked == []


def _wait_for(probe, seconds: float):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + seconds
    while True:
        found = probe()
        if found or time.monotonic() > deadline:
            return found


# ---------------------------------------------------------------- the real command line, on a lab LAN


def _cli(*argv: str) -> list[str]:
    return [sys.executable, "-m", "saboteur_p2p", *argv]


def _tables(lab: NetLab, machine: int) -> list[dict[str, object]]:
    done = lab.run(machine, _cli("tables", "--json", "--timeout", BROWSE), capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr
    found: list[dict[str, object]] = json.loads(done.stdout)
    return found


def _wait_for_line(path: Path, text: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        out = path.read_text(errors="replace") if path.exists() else ""
        if text in out:
            return out
        time.sleep(0.1)
    raise AssertionError(f"{text!r} not in {path}:\n{path.read_text(errors='replace') if path.exists() else ''}")


@pytest.mark.slow
@pytest.mark.skipif(not LAB, reason=WHY_NO_LAB)
def test_tables_finds_the_host_join_takes_the_only_table_and_the_start_withdraws_it(tmp_path: Path):
    """Three machines on a lab LAN, every command with its defaults (bound to 0.0.0.0, every interface)."""
    common = ["--bot", "random", "--wait", "5", "--code", "sesame"]

    def spawn(lab: NetLab, machine: int, who: str, argv: list[str]) -> Path:
        out = tmp_path / f"{who}.txt"
        with open(out, "wb") as sink:
            lab.popen(machine, argv, stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT)
        return out

    def seat(who: str) -> list[str]:
        return ["--name", who, *common, "--identity", str(tmp_path / f"{who}.id"), "--log-dir", str(tmp_path / who)]

    with NetLab(hosts=3) as lab:
        host = spawn(lab, 1, "alice", _cli("host", "--seats", "3", *seat("alice")))
        # a stranger's announcement with hostile values, beside the real table
        hostile = spawn(lab, 3, "hostile", [sys.executable, "-c", _HOSTILE.replace("ADDRESS", lab.address(3))])
        _wait_for_line(host, "announced on the LAN", 15)
        _wait_for_line(hostile, "announced", 15)
        found = {str(t["port"]): t for t in _tables(lab, 2)}
        assert found["7777"] == {
            "name": "alice", "edition": "base", "seats": 3, "free": 2, "code": True, "lobby": LOBBY_VERSION,
            "addresses": [lab.address(1)], "port": 7777, "address": f"{lab.address(1)}:7777",
            "instance": found["7777"]["instance"], "key": found["7777"]["key"],
        }
        assert parse_key_text(str(found["7777"]["key"])) == load_or_create(tmp_path / "alice.id").public.dh_key
        evil = found["7778"]
        assert str(evil["name"]).isprintable() and len(str(evil["name"])) <= NAME_LIMIT and "\x1b" not in json.dumps(evil)
        assert evil["edition"] == "?" and evil["free"] is None and evil["seats"] is None
        assert evil["addresses"] == [lab.address(3)]

        # no address: the one joinable table is found and joined (the stranger's is not offered)
        bob = spawn(lab, 2, "bob", _cli("join", "--yes", "--browse", BROWSE, *seat("bob")))
        _wait_for_line(host, "bob takes seat 1", 15)
        assert f"joining alice at {lab.address(1)}:7777" in bob.read_text()
        alice = _wait_for(lambda: [t for t in _tables(lab, 3) if t["port"] == 7777 and t["free"] == 1], 6)
        assert alice, "the seats-free count was not updated"

        # the last seat is taken, the game starts, the table is no longer announced
        spawn(lab, 3, "cat", _cli("join", f"{lab.address(1)}:7777", *seat("cat")))
        _wait_for_line(host, "cat takes seat 2", 15)
        assert [t["port"] for t in _tables(lab, 2)] == [7778]


_HOSTILE = """
import socket, time
from zeroconf import IPVersion, ServiceInfo, Zeroconf
TYPE = "_saboteur-p2p._tcp.local."
zc = Zeroconf(ip_version=IPVersion.V4Only)
info = ServiceInfo(TYPE, "\\u202eevil\\u200b table." + TYPE, port=7778, server="evil.local.",
                   parsed_addresses=["224.0.0.1", "ADDRESS", "0.0.0.0"],
                   properties={"name": "\\x1b]0;pwned\\x07" + "A" * 200, "edition": "base; rm -rf /",
                               "seats": "99", "free": "-1", "code": "maybe", "lobby": "3", "key": "\\x1b" * 20})
zc.register_service(info)
print("announced", flush=True)
time.sleep(60)
"""
