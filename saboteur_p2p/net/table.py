"""What the host's ``start`` says: the seats, their nonces and the hellos they said.

A joiner checks everything the host checked of each ``hello`` (every seat proves its link
key), that the game id is the hash of every seat's nonce, and that every seat said hello to
the one table it said hello to itself (``Table.check_hellos``; in a running game's start, a
seat's endpoint may have moved since).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..crypto.group import hash_bytes
from ..crypto.identity import PublicIdentity, valid_dh_key, valid_sign_key, verify_link_key
from ..protocol.messages import MAX_PLAYERS, MAX_WAIT_MS, NAME_RULE, TABLE_SALT_BYTES, valid_name
from ..protocol.node import GameSetup
from ..rules import GameConfig
from .transport import TABLE_MESSAGE_LIMIT, normal_endpoint, valid_endpoint
from .wire import BadEnvelope, Envelope, open_envelope

#: bytes of the fresh random nonce every seat adds to the game id
NONCE_BYTES = 32
#: the largest hello a start carries: what the table's endpoint takes (net/transport.py)
HELLO_LIMIT = TABLE_MESSAGE_LIMIT
#: how long a table waits for a seat gone silent (ms) when its host gives no ``--wait``
DEFAULT_WAIT_MS = 120_000


@dataclass(frozen=True)
class SeatInfo:
    name: str
    sign_key: bytes
    dh_key: bytes
    endpoint: str

    def to_data(self) -> list[Any]:
        return [self.name, self.sign_key, self.dh_key, self.endpoint]

    @classmethod
    def from_data(cls, data: Any) -> SeatInfo:
        if not isinstance(data, list) or len(data) != 4:
            raise BadEnvelope("a seat is [name, sign_key, dh_key, endpoint]")
        name, sign_key, dh_key, endpoint = data
        if not valid_name(name):
            raise BadEnvelope(f"bad seat name {name!r}: {NAME_RULE}")
        if not (isinstance(endpoint, str) and len(endpoint) <= 200):
            raise BadEnvelope("bad seat endpoint")
        if not (valid_sign_key(sign_key) and valid_dh_key(dh_key)):
            raise BadEnvelope("bad seat keys: not canonical keys of prime (large) order")
        return cls(name, sign_key, dh_key, endpoint)


@dataclass(frozen=True)
class Table:
    """What ``start`` says: enough to build the game setup and reach every seat."""

    game_id: bytes
    config: GameConfig
    seats: tuple[SeatInfo, ...]
    #: each seat's fresh nonce, in seat order: the game id is ``joint_game_id(nonces)``
    nonces: tuple[bytes, ...] = ()
    #: each seat's proof that it holds its link key (its hello's ``dh_proof``, for its nonce)
    link_proofs: tuple[bytes, ...] = ()
    #: the salt the table drew when it opened: every hello in ``hellos`` is bound to it
    table: bytes = b""
    #: each joiner's ``hello`` (seats 1 and on), as it signed it: whoever holds this start
    #: sees that every seat said hello to this one table (``check_hellos``)
    hellos: tuple[bytes, ...] = ()
    #: the table's wait for a seat gone silent, in ms (the host's ``--wait``): the genesis
    #: states it, so a host that told two seats two waits is named by the one it lied to
    #: (None: a game dealt without a lobby, whose setup states none; no ``start`` gives it)
    wait_ms: int | None = DEFAULT_WAIT_MS

    def setup(self) -> GameSetup:
        return GameSetup(
            self.game_id, self.config,
            tuple(PublicIdentity(s.sign_key, s.dh_key) for s in self.seats),
            tuple(s.name for s in self.seats),
            self.table,
            self.wait_ms,
        )

    def to_data(self) -> dict[str, Any]:
        data = {"game_id": self.game_id, "config": self.config.to_data(),
                "seats": [s.to_data() for s in self.seats], "nonces": list(self.nonces),
                "link_proofs": list(self.link_proofs), "table": self.table, "hellos": list(self.hellos)}
        return data if self.wait_ms is None else {**data, "wait_ms": self.wait_ms}

    @classmethod
    def from_envelope(cls, env: Envelope) -> Table:
        game_id = env.field("game_id", bytes, 32)
        if len(game_id) != 32:
            raise BadEnvelope("start: game id must be 32 bytes")
        try:
            config = GameConfig.from_data(env.field("config", dict))
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise BadEnvelope(f"start: bad config: {exc}") from None
        seats = tuple(SeatInfo.from_data(s) for s in env.field("seats", list, 12))
        if len(seats) != config.players:
            raise BadEnvelope("start: seat count does not match the config")
        endpoints = [normal_endpoint(s.endpoint) or s.endpoint for s in seats]
        if len(set(endpoints)) != len(endpoints):
            raise BadEnvelope("start: two seats have one endpoint")
        # a link is known by the key it proves (net/links.py): one key, one seat
        if len({s.sign_key for s in seats}) != len(seats) or len({s.dh_key for s in seats}) != len(seats):
            raise BadEnvelope("start: two seats have one key")
        nonces = tuple(env.field("nonces", list, 12))
        if len(nonces) != len(seats) or not all(isinstance(n, bytes) and len(n) == NONCE_BYTES for n in nonces):
            raise BadEnvelope(f"start: one {NONCE_BYTES}-byte nonce per seat is needed")
        if game_id != joint_game_id(nonces):
            raise BadEnvelope("start: the game id is not the hash of the seats' nonces")
        # every seat checks what the host checked of each hello: nobody sits with a link key
        # it does not hold (its links would stall the game), the host's own seat included
        proofs = tuple(env.field("link_proofs", list, 12))
        if len(proofs) != len(seats):
            raise BadEnvelope("start: one link-key proof per seat is needed")
        for number, (seat, nonce, proof) in enumerate(zip(seats, nonces, proofs, strict=True)):
            if not verify_link_key(seat.dh_key, seat.sign_key, nonce, proof):
                raise BadEnvelope(f"start: seat {number} ({seat.name}) does not prove that it holds its link key")
        salt = env.field("table", bytes, TABLE_SALT_BYTES)
        hellos = tuple(env.field("hellos", list, MAX_PLAYERS - 1))
        if len(salt) != TABLE_SALT_BYTES:
            raise BadEnvelope(f"start: the table's salt must be {TABLE_SALT_BYTES} bytes")
        if len(hellos) != len(seats) - 1 or not all(isinstance(h, bytes) and len(h) <= HELLO_LIMIT for h in hellos):
            raise BadEnvelope("start: one hello per joiner is needed")
        wait_ms = env.field("wait_ms", int)
        if not 0 <= wait_ms <= MAX_WAIT_MS:
            raise BadEnvelope(f"start: the table's wait must be 0 to {MAX_WAIT_MS} ms")
        return cls(game_id, config, seats, nonces, proofs, salt, hellos, wait_ms)

    def seat_of(self, key: bytes) -> int | None:
        for seat, info in enumerate(self.seats):
            if info.sign_key == key:
                return seat
        return None

    def check_hellos(self, running: bool = False) -> None:
        """That every joiner said hello to this table: its signed hello is here, bound to the
        table's salt and to seat 0's signing key (the key that asked for it), with the name,
        keys, endpoint, nonce and link proof its seat has.  So a
        host cannot seat anyone at this table who said hello to another (to split the seats
        between two games, it must start one table twice, and sign that: protocol/split.py).
        ``running``: the start of a game under way, whose seats may have moved since (their
        endpoints are not compared): a seat that comes back takes each seat's own endpoint
        from its hello too (relink.py), and a host that left junk there kept it from it.
        BadEnvelope says which seat's hello fails."""
        for number, data in enumerate(self.hellos, start=1):
            seat = self.seats[number]
            try:
                said = open_envelope(data)
            except BadEnvelope as exc:
                raise BadEnvelope(f"start: the hello of seat {number} ({seat.name}) is not one: {exc}") from None
            body = said.body
            endpoint = body.get("endpoint") if running else seat.endpoint
            fields = (body.get("name"), body.get("dh_key"), body.get("endpoint"), body.get("nonce"), body.get("dh_proof"))
            mine = (seat.name, seat.dh_key, endpoint, self.nonces[number], self.link_proofs[number])
            if said.kind != "hello" or said.key != seat.sign_key or fields != mine:
                raise BadEnvelope(f"start: seat {number} ({seat.name}) is not as its own hello says")
            if not self._said_here(said):
                raise BadEnvelope(f"start: seat {number} ({seat.name}) said hello to another table")

    def listens(self) -> dict[int, str]:
        """Each joiner's table endpoint, as its own hello to this table names it (``listens``,
        where a seat left out of its game can still be shown a genesis: splitting.py)."""
        return self._said_by_seats("listens")

    def signed_endpoints(self) -> dict[int, str]:
        """Each joiner's link endpoint as its own hello to this table names it: where the seat
        listened when the game began, whatever endpoint the start gives it now."""
        return self._said_by_seats("endpoint")

    def _said_by_seats(self, field: str) -> dict[int, str]:
        """An endpoint each joiner's own hello to this table names in ``field`` (a hello that
        is not its seat's own, said to this table, names nothing)."""
        found: dict[int, str] = {}
        for number, data in enumerate(self.hellos[:len(self.seats) - 1], start=1):
            try:
                said = open_envelope(data)
            except BadEnvelope:
                continue
            named = said.body.get(field)
            own = said.kind == "hello" and said.key == self.seats[number].sign_key and self._said_here(said)
            if own and isinstance(named, str) and valid_endpoint(named):
                found[number] = named
        return found

    def _said_here(self, hello: Envelope) -> bool:
        """Whether ``hello`` was said to this table: bound to its salt and to seat 0's key."""
        return said_to(hello, self.table, self.seats[0].sign_key)


def said_to(hello: Envelope, salt: bytes, host: bytes) -> bool:
    """Whether ``hello`` was said to the table of ``salt`` whose host signs with ``host``."""
    return hello.body.get("table") == salt and hello.body.get("host") == host


def joint_game_id(nonces: tuple[bytes, ...]) -> bytes:
    """The game id: a hash of every seat's fresh nonce, in seat order, so no seat (the host
    included) can choose it or make it repeat an earlier game's."""
    return hash_bytes("game-id", *nonces, size=32)


__all__ = ["NONCE_BYTES", "SeatInfo", "Table", "joint_game_id"]
