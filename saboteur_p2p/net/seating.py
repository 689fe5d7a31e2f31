"""The host's seats while its table fills (lobby.py): who sits where, the nonce every hello
spent, and why a checked ``hello`` gets no seat.  A seat's owner that comes back before the
start takes its seat back; what bounds the hellos a table takes is here."""
from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence

from .names import same_name
from .table import NONCE_BYTES, SeatInfo
from .transport import normal_endpoint
from .wire import Envelope

#: a seat is taken back (a joiner's restart) at most once in this many seconds
TAKE_BACK_EVERY = 5.0
#: the nonces a seated joiner's hellos may spend (each take-back of its seat, each refusal)
SEAT_HELLOS = 64
#: the bound hellos a table remembers (each one's nonce may not come again): past this many,
#: a flood rather than a table filling, the table takes no more hellos
MAX_HELLOS = 65_536
#: the refusal of a second seat for one identity, and what a joiner is told to do about it
SEATED_IDENTITY = "this identity already has a seat"


class Seating:
    """The host's seats while the table fills: who sits where, with the nonce, link proof and
    lobby connection of each (the host is seat 0 and has no connection)."""

    def __init__(self, host: SeatInfo, prove_link_key: Callable[[bytes], bytes]) -> None:
        nonce = secrets.token_bytes(NONCE_BYTES)
        self.seats = [host]
        self.nonces = [nonce]
        self.link_proofs = [prove_link_key(nonce)]
        #: each joiner's lobby connection, and the hello it said (as signed), by seat - 1
        self.connections: list[bytes] = []
        self.hellos: list[bytes] = []
        #: the nonce of every hello bound to this table and checked, seated or refused: such
        #: a hello said again (replayed, when what refused it has changed) seats nobody
        self.used: set[bytes] = {nonce}
        #: when each seat was last taken back, by seat
        self.taken_back: dict[int, float] = {}
        #: the nonces each seated key's hellos spent (at most SEAT_HELLOS), by its signing key
        self.spent_by_key: dict[bytes, int] = {}

    def seat_of(self, sign_key: bytes) -> int | None:
        return next((i for i, s in enumerate(self.seats) if s.sign_key == sign_key), None)

    def put_in_order(self, names: Sequence[str]) -> bool:
        """The joiners called ``names`` take the seats they hold among them in the order of
        ``names`` (a joiner finds its seat in ``start`` by its key); whether any moved."""
        places, moved = _reordering([seat.name for seat in self.seats], names)
        if moved == places:
            return False
        seats, nonces, proofs = list(self.seats), list(self.nonces), list(self.link_proofs)
        connections, hellos = list(self.connections), list(self.hellos)
        for place, origin in zip(places, moved, strict=True):
            self.seats[place], self.nonces[place], self.link_proofs[place] = seats[origin], nonces[origin], proofs[origin]
            self.connections[place - 1], self.hellos[place - 1] = connections[origin - 1], hellos[origin - 1]
        return True

    def refusal(self, env: Envelope, back: int | None, full: bool) -> str | None:
        """Why a checked ``hello`` gets no seat (``back``: the seat its signer has), or None."""
        body = env.body
        if back == 0:
            return SEATED_IDENTITY  # the host's own identity
        if body["nonce"] in self.used:
            return "this hello was said before (every hello has a fresh nonce)"
        if len(self.used) >= MAX_HELLOS:
            return "this table has heard too many hellos; ask the host for a new table"
        if back is not None:
            # a seated key passes the count of refused hellos by address (its restart must take
            # its seat back), and its fresh hellos, each refused, spent the table's MAX_HELLOS and
            # closed the lobby to everyone (found by an attack): it spends SEAT_HELLOS at most
            spent = self.spent_by_key.get(env.key, 0)
            if spent >= SEAT_HELLOS:
                return "this seat has said hello too often; ask the host to open a new table"
            self.spent_by_key[env.key] = spent + 1
        self.used.add(body["nonce"])  # from here on, refused or seated, it is spent
        if back is not None and time.monotonic() - self.taken_back.get(back, -TAKE_BACK_EVERY) < TAKE_BACK_EVERY:
            return f"this seat was taken back less than {TAKE_BACK_EVERY:g} s ago; try again in a moment"
        others = [s for i, s in enumerate(self.seats) if i != back]
        # a host name (not dotted) is compared as written: two names are not one endpoint
        endpoint = normal_endpoint(body["endpoint"]) or body["endpoint"]
        if any((normal_endpoint(s.endpoint) or s.endpoint) == endpoint for s in others):
            return "another seat has that endpoint"
        if any(s.dh_key == body["dh_key"] for s in others):
            return "another seat has that link key"  # its link would be taken for that seat's
        like = next((s.name for s in others if same_name(s.name, body["name"])), None)
        if like is not None:
            taken = "is taken" if like == body["name"] else f"reads as {like!r}, taken"
            return f"the name {body['name']!r} {taken} at this table; choose another (--name)"
        if back is None and full:
            return "the table is full"  # several hellos may come in one poll: each is counted
        return None

    def leave(self, env: Envelope, salt: bytes) -> str | None:
        """Free the seat of a joiner that leaves before the start: its ``leave`` names this table
        (its salt) and the nonce of the hello that seated it, so none said to another table, or
        before the seat was taken again, frees it.  The name it had, or None."""
        seat = self.seat_of(env.key)
        if not seat or env.body.get("table") != salt or env.body.get("nonce") != self.nonces[seat]:
            return None
        name = self.seats[seat].name
        for column in (self.seats, self.nonces, self.link_proofs):
            del column[seat]
        del self.connections[seat - 1], self.hellos[seat - 1]
        self.taken_back = {s - (s > seat): when for s, when in self.taken_back.items() if s != seat}
        return name

    def take(self, env: Envelope, said: bytes, connection: bytes, back: int | None) -> int:
        """Seat the signer of a checked ``hello`` (again, at ``back``); its seat number.
        ``said``: the hello as it came, signed (``start`` carries it)."""
        seat = SeatInfo(env.field("name", str, 40), env.key, env.field("dh_key", bytes, 32), env.field("endpoint", str, 200))
        nonce = env.body["nonce"]
        if back is None:
            self.seats.append(seat)
            self.nonces.append(nonce)
            self.link_proofs.append(env.body["dh_proof"])
            self.connections.append(connection)
            self.hellos.append(said)
            return len(self.seats) - 1
        self.taken_back[back] = time.monotonic()
        self.seats[back] = seat
        self.nonces[back] = nonce
        self.link_proofs[back] = env.body["dh_proof"]
        self.connections[back - 1] = connection
        self.hellos[back - 1] = said
        return back


__all__ = ["MAX_HELLOS", "SEATED_IDENTITY", "SEAT_HELLOS", "TAKE_BACK_EVERY", "Seating"]


def _reordering(seated: Sequence[str], names: Sequence[str]) -> tuple[list[int], list[int]]:
    """The seats (after the host's, 0) whose names are in ``names``, and the seat each of them
    takes its occupant from once they sit in the order of ``names``."""
    rank = {name: i for i, name in enumerate(names)}
    places = [i for i, name in enumerate(seated) if i > 0 and name in rank]
    return places, sorted(places, key=lambda i: rank[seated[i]])


def in_order(seated: Sequence[str], names: Sequence[str]) -> tuple[str, ...]:
    """``seated`` (by seat) as ``put_in_order(names)`` will seat them when the game starts: the
    lobby listed this machine's bot peers in the order they arrived, and the game in another
    (found by a play-test)."""
    places, moved = _reordering(seated, names)
    shown = list(seated)
    for place, origin in zip(places, moved, strict=True):
        shown[place] = seated[origin]
    return tuple(shown)
