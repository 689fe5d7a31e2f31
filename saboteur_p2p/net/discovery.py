"""LAN discovery: a host announces its table over multicast DNS-SD, and joiners list the tables.

Discovery only finds addresses.  Anyone on the LAN can announce anything, so nothing read
here is trusted: every field is cleaned (printable text, bounded lengths, numbers in range,
plain IPv4 addresses), and a table found this way is joined through the same lobby, with the
same checks (table code, edition, fresh nonce, shuffle rounds), as one typed by hand.

The service type and the TXT keys are in protocol.md §12.9.
"""
from __future__ import annotations

import contextlib
import ipaddress
import re
import socket
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..rules.editions import edition_names
from .invite import LobbyError, key_text, parse_key_text
from .lobby import LOBBY_VERSION
from .transport import endpoint_host, interface_addresses, is_wildcard, numeric_host

if TYPE_CHECKING:
    from zeroconf import InterfacesType, ServiceInfo, Zeroconf

#: the DNS-SD service type of a saboteur-p2p table (RFC 6763: at most 15 characters before ._tcp)
SERVICE_TYPE = "_saboteur-p2p._tcp.local."
#: the version of the TXT keys below; a browser reads the keys it knows whatever this says
TXT_VERSION = 1
#: the longest table name (the host's player name; the lobby allows 40) and edition kept
NAME_LIMIT = 40
EDITION_LIMIT = 20
#: the most seats any edition has (Saboteur 2: 12); a larger count is noise
SEATS_LIMIT = 12
#: a browse shows at most this many tables, and this many addresses of each
TABLES_LIMIT = 64
#: the service names a browse takes note of, at most: names that never resolve to a table do
#: not crowd one out below this (a stranger's 63 bare names once hid a real table behind an
#: impostor of its name, found by an attack); more names than this, or more tables than
#: TABLES_LIMIT, are a flood, and the browse refuses to pick from what it cannot see whole
NAMES_LIMIT = 1024
ADDRESSES_LIMIT = 8
#: the longest DNS label (the instance name), in bytes
LABEL_LIMIT = 63
#: default seconds a browse listens for tables
BROWSE_SECONDS = 3.0

_EDITION = re.compile(r"[a-z0-9][a-z0-9-]*")


def clean_text(raw: bytes | str | None, limit: int) -> str:
    """Printable text from the network: decoded leniently, control and format characters
    (escapes, bidi overrides, newlines) dropped, spaces collapsed, at most ``limit`` characters."""
    if raw is None:
        return ""
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    kept = "".join(ch if ch.isprintable() else " " for ch in text[: limit * 4])
    return " ".join(kept.split())[:limit]


def clean_count(raw: bytes | str | None) -> int | None:
    """A seat count from the network: 0 to SEATS_LIMIT written in plain digits, else None."""
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    if text is None or not 1 <= len(text) <= 2 or not text.isascii() or not text.isdigit():
        return None
    value = int(text)
    return value if value <= SEATS_LIMIT else None


def clean_flag(raw: bytes | str | None) -> bool | None:
    """'1' is yes, '0' is no, anything else unknown."""
    text = raw.decode("ascii", "replace") if isinstance(raw, bytes) else raw
    return {"1": True, "0": False}.get(text or "")


def clean_addresses(raw: Sequence[str]) -> tuple[str, ...]:
    """Plain unicast IPv4 addresses, without repeats, at most ADDRESSES_LIMIT."""
    found: list[str] = []
    for text in raw:
        try:
            address = ipaddress.IPv4Address(text)
        except ValueError:
            continue
        if address.is_multicast or address.is_unspecified or address.is_reserved or str(address) == "255.255.255.255":
            continue
        if str(address) not in found:
            found.append(str(address))
    return tuple(found[:ADDRESSES_LIMIT])


@dataclass(frozen=True)
class TableAd:
    """A table as its host announced it: every field cleaned, none of them trusted."""

    name: str
    edition: str
    seats: int | None
    free: int | None
    code: bool | None
    lobby: int | None
    addresses: tuple[str, ...]
    port: int
    instance: str
    #: the host's link key, if it gave a well-formed one: the lobby is then encrypted (lobby.py)
    key: bytes | None = None

    @classmethod
    def from_service(cls, instance: str, properties: dict[bytes, bytes | None], addresses: Sequence[str],
                     port: int | None) -> TableAd | None:
        """The table a service announces, or None when it gives no address to reach."""
        def prop(key: str) -> bytes | None:
            return properties.get(key.encode())

        addresses_ = clean_addresses(addresses)
        if not addresses_ or port is None or not 1 <= port <= 65535:
            return None
        instance_ = clean_text(instance, LABEL_LIMIT)
        name = clean_text(prop("name"), NAME_LIMIT) or instance_[:NAME_LIMIT] or "?"
        edition = clean_text(prop("edition"), EDITION_LIMIT)
        seats, free = clean_count(prop("seats")), clean_count(prop("free"))
        if seats is not None and free is not None and free > seats:
            free = None
        lobby = prop("lobby")
        try:
            key: bytes | None = parse_key_text(clean_text(prop("key"), 60))
        except LobbyError:
            key = None
        return cls(
            name=name,
            edition=edition if _EDITION.fullmatch(edition) else "?",
            seats=seats, free=free, code=clean_flag(prop("code")),
            lobby=int(lobby) if lobby is not None and lobby.isdigit() and len(lobby) <= 4 else None,
            addresses=addresses_, port=port, instance=instance_, key=key,
        )

    @property
    def address(self) -> str:
        """HOST:PORT of the first address announced."""
        return f"{self.addresses[0]}:{self.port}"

    def joinable(self, edition: str | None = None) -> bool:
        """Whether we could sit at this table (of ``edition``, when given), as far as it says."""
        return (self.lobby == LOBBY_VERSION and self.free != 0 and self.edition in edition_names()
                and (edition is None or self.edition == edition))

    def describe(self) -> str:
        """One line for a person: the name, the edition, the seats, the code, where."""
        seats = "seats unknown" if self.free is None else f"{self.free} of {self.seats or '?'} seats free"
        code = {True: ", table code needed", False: "", None: ", table code unknown"}[self.code]
        other = "" if self.lobby == LOBBY_VERSION else f", another release (lobby {self.lobby or '?'})"
        return f"{self.name}: {self.edition}, {seats}{code}{other} at {self.address}"

    def to_data(self) -> dict[str, Any]:
        return {"name": self.name, "edition": self.edition, "seats": self.seats, "free": self.free,
                "code": self.code, "lobby": self.lobby, "addresses": list(self.addresses), "port": self.port,
                "address": self.address, "instance": self.instance, "key": None if self.key is None else key_text(self.key)}


def table_properties(name: str, edition: str, seats: int, free: int, code: bool, key: bytes | None = None) -> dict[str, str]:
    """The TXT record of a table (protocol.md §12.9)."""
    return {"txtvers": str(TXT_VERSION), "lobby": str(LOBBY_VERSION), "name": clean_text(name, NAME_LIMIT),
            "edition": edition, "seats": str(seats), "free": str(max(0, free)), "code": "1" if code else "0",
            **({} if key is None else {"key": key_text(key)})}


def instance_label(name: str, port: int) -> str:
    """The service's instance name: the host's name and where it listens, cut to one DNS label."""
    label = clean_text(f"{name} on {socket.gethostname()} port {port}", LABEL_LIMIT).replace(".", "-")
    while len(label.encode()) > LABEL_LIMIT:
        label = label[:-1]
    return label


def _interfaces(address: str | None) -> InterfacesType:
    """What zeroconf listens and sends on: the one interface with ``address``, else every one."""
    from zeroconf import InterfaceChoice

    return [address] if address else InterfaceChoice.All


class TableAnnouncer:
    """Announces one table on the LAN and keeps its seats-free count current.

    A worker thread does the network part (probing for a unique name takes about 1.5 s), so
    the lobby never waits on it; the count it publishes is always the latest one asked for.
    """

    def __init__(self, zc: Zeroconf, type_: str, label: str, port: int, addresses: list[str], server: str,
                 properties: dict[str, str], say: Callable[[str], None]) -> None:
        self._zc, self._type, self._label, self._port = zc, type_, label, port
        self._addresses, self._server, self._properties, self._say = addresses, server, properties, say
        self._changed = threading.Condition()
        self._wanted: dict[str, str] | None = dict(properties)
        self._withdrawn = False
        self._worker = threading.Thread(target=self._run, name="table-announcer", daemon=True)
        self._worker.start()

    @classmethod
    def start(cls, endpoint: str, name: str, edition: str, seats: int, taken: int, code: bool,
              say: Callable[[str], None], key: bytes | None = None) -> TableAnnouncer | None:
        """Announce the table listening at ``endpoint``: on the interface it is bound to, or on
        every interface for a wildcard bind.  None (and a word why) when multicast is not possible."""
        host, port = endpoint_host(endpoint), int(endpoint.rsplit(":", 1)[1])
        host = numeric_host(host) or host
        wildcard = is_wildcard(host)
        addresses = (interface_addresses() or ["127.0.0.1"]) if wildcard else [host]
        try:
            from zeroconf import IPVersion, Zeroconf

            zc = Zeroconf(interfaces=_interfaces(None if wildcard else host), ip_version=IPVersion.V4Only)
        except Exception as exc:  # no multicast here (no interface, no group, ...): the table opens all the same
            say(f"the table is not announced on the LAN ({exc}); friends join with the address")
            return None
        label = instance_label(name, port)
        server = f"saboteur-{re.sub(r'[^a-z0-9-]', '-', socket.gethostname().lower())[:30]}-{port}.local."
        return cls(zc, SERVICE_TYPE, label, port, addresses, server,
                   table_properties(name, edition, seats, seats - taken, code, key), say)

    def seats_taken(self, taken: int) -> None:
        """Publish the count of free seats now that ``taken`` seats (the host's included) are taken."""
        seats = int(self._properties["seats"])
        with self._changed:
            if not self._withdrawn:
                self._wanted = {**self._properties, "free": str(max(0, seats - taken))}
                self._changed.notify()

    def withdraw(self) -> None:
        """Stop announcing (the game starts, or the host leaves); returns at once."""
        with self._changed:
            self._withdrawn = True
            self._changed.notify()

    def close(self, timeout: float = 2.0) -> None:
        """Withdraw and wait (at most ``timeout`` seconds) for the goodbye to be sent."""
        self.withdraw()
        self._worker.join(timeout)

    def _info(self, name: str, properties: dict[str, str]) -> ServiceInfo:
        from zeroconf import ServiceInfo

        return ServiceInfo(self._type, name, port=self._port, properties=properties, server=self._server,
                           parsed_addresses=self._addresses)

    def _run(self) -> None:
        registered: ServiceInfo | None = None
        try:
            while True:
                with self._changed:
                    while self._wanted is None and not self._withdrawn:
                        self._changed.wait()
                    if self._withdrawn:
                        return
                    wanted, self._wanted = self._wanted, None
                if registered is None:
                    registered = self._info(f"{self._label}.{self._type}", wanted or {})
                    # another table of the same name gets "-2" added rather than a refusal
                    self._zc.register_service(registered, allow_name_change=True)
                    instance = registered.name[: -len(self._type) - 1]
                    self._say(f"announced on the LAN as {instance!r} ({', '.join(self._addresses)})")
                else:
                    self._zc.update_service(self._info(registered.name, wanted or {}))
        except Exception as exc:  # zeroconf raises its own types as well as OSError; never end the host
            self._say(f"the LAN announcement stopped: {exc}")
        finally:
            if registered is not None:
                with contextlib.suppress(Exception):
                    self._zc.unregister_service(registered)  # goodbye: browsers drop the table at once
            with contextlib.suppress(Exception):
                self._zc.close()


def browse_tables(timeout: float = BROWSE_SECONDS, interface: str | None = None) -> list[TableAd]:
    """The tables announced on the LAN (on the interface with address ``interface``, else on
    every one) within ``timeout`` seconds, cleaned, in name order."""
    from zeroconf import DNSQuestionType, IPVersion, ServiceBrowser, ServiceInfo, ServiceListener, Zeroconf

    names: dict[str, None] = {}
    overflow = False
    lock = threading.Lock()

    class Listener(ServiceListener):
        def add_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            nonlocal overflow
            with lock:
                if len(names) < NAMES_LIMIT:
                    names[name] = None
                elif name not in names:
                    overflow = True

        def update_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            self.add_service(zc, type_, name)

        def remove_service(self, zc: Zeroconf, type_: str, name: str) -> None:
            """Kept: a goodbye is not signed, and a stranger's hid a table behind an impostor
            (found by review); a table that did close gives no details, or refuses the join."""

    try:
        zc = Zeroconf(interfaces=_interfaces(interface), ip_version=IPVersion.V4Only)
    except (OSError, ValueError, RuntimeError) as exc:  # RuntimeError: no interface to listen on
        where = f"on the interface with address {interface}" if interface else "on this machine's interfaces"
        raise LobbyError(f"cannot look for tables {where}: {exc}") from None
    try:
        # answers by multicast (QM): a unicast answer to port 5353 of this machine may be handed
        # to another process's socket on that port (a host on this machine), and be lost
        browser = ServiceBrowser(zc, SERVICE_TYPE, listener=Listener(), question_type=DNSQuestionType.QM)
        time.sleep(max(0.0, timeout))
        browser.cancel()
        with lock:
            found = [name for name in names if name.endswith("." + SERVICE_TYPE)]
            flooded = overflow
        # the answers' details first, for every name: the requests below share a second, and
        # bare names asked about first would spend it before a table that did answer whole
        infos = [ServiceInfo(SERVICE_TYPE, name) for name in found]
        missing = [info for info in infos if not info.load_from_cache(zc)]
        deadline = time.monotonic() + 1.0  # a few details still missing from the answers: ask once more
        for info in missing:
            info.request(zc, max(0.0, deadline - time.monotonic()) * 1000, question_type=DNSQuestionType.QM)
        tables: list[TableAd] = []
        for name, info in zip(found, infos, strict=True):
            table = TableAd.from_service(name[: -len(SERVICE_TYPE) - 1], info.properties or {},
                                         info.parsed_addresses(IPVersion.V4Only), info.port)
            if table is not None:
                tables.append(table)
    finally:
        zc.close()
    if flooded or len(tables) > TABLES_LIMIT:
        raise LobbyError(f"more than {NAMES_LIMIT if flooded else TABLES_LIMIT} {'names' if flooded else 'tables'} "
                         "answered on the LAN: somebody floods it with announcements, and a table found among them "
                         "may be an impostor; join by the address the host gives you: saboteur-p2p join HOST:PORT")
    return sorted(tables, key=lambda t: (t.name.lower(), t.instance))


def reachable_address(table: TableAd, timeout: float = 1.0) -> str:
    """HOST:PORT of the first announced address that accepts a connection (the host may list
    addresses of networks we are not on), else the first one."""
    for address in table.addresses:
        with contextlib.suppress(OSError), socket.create_connection((address, table.port), timeout=timeout):
            return f"{address}:{table.port}"
    return table.address


def pick_table(tables: Sequence[TableAd], edition: str | None, assume_yes: bool, ask: Callable[[str], str] | None,
               say: Callable[[str], None], waited: float) -> TableAd:
    """The table to join among those found: the only one with ``assume_yes``, else the one a
    person picks by number (``ask`` reads a line; None when nobody can answer)."""
    choices = [t for t in tables if t.joinable(edition)]
    of = f" of the {edition} edition" if edition else ""
    if not choices:
        others = f" ({len(tables)} others found, none joinable: full, another release or edition)" if tables else ""
        raise LobbyError(f"no table{of} found on the LAN within {waited:g} s{others}; give its address: "
                         "saboteur-p2p join HOST:PORT")
    if len(choices) == 1 and assume_yes:
        return choices[0]
    listing = "\n".join(f"  {i}. {t.describe()}" for i, t in enumerate(choices, 1))
    if ask is None:
        hint = "add --yes to join it" if len(choices) == 1 else "pick one"
        raise LobbyError(f"found {len(choices)} table(s){of} on the LAN:\n{listing}\n"
                         f"{hint}, or give an address: saboteur-p2p join HOST:PORT")
    say(f"tables on the LAN:\n{listing}")
    answer = ask(f"join which table (1-{len(choices)}{', Enter for 1' if len(choices) == 1 else ''})? ").strip()
    if not answer and len(choices) == 1:
        answer = "1"
    if not answer.isdigit() or not 1 <= int(answer) <= len(choices):
        raise LobbyError(f"no table numbered {answer!r}")
    return choices[int(answer) - 1]
