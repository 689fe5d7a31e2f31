"""Which seat a connection belongs to, for the notices about what comes on it.

A connection at the encrypted link endpoint (CurveZMQ, §12.1) is the seat whose X25519 key
it proved in its handshake: only that seat's own signed messages count on it.  A seat that
relays, on its own link, a ``link`` or ``ping`` another seat signed is caught at once, and
a bad message sent on that link is pinned on the seat that sent it, never on the seat whose
message was relayed.  A peer with a link endpoint hears the seats on their links only: a
seat's envelope on a connection that proved no key (the table's endpoint, or the way back
on a link we opened) is a relay or a replay (a spectator is fed envelopes the seat signed,
in the clear), dropped like one.  Without a link endpoint, a connection proves nothing: it
is known, as before, by the seat that signs on it.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

#: connections remembered with the seat that signs on them, at most (the least recently heard go
#: first): a seat that reconnects again and again must not grow this for the whole game
LINKS_KEPT = 256
#: relays are reported at most once in this many seconds for each connection's owner: a flood of
#: relayed messages does not flood the log
NOTICE_RELAYS = 10.0
#: notices of a seat's bad messages: at most this many at once, then one every NOTICE_EVERY
#: seconds (a seat that floods garbage on its link does not flood the log)
NOTICE_BURST = 20
NOTICE_EVERY = 1.0


class Links:
    def __init__(self, dh_keys: Sequence[bytes], me: int, names: Sequence[str], proven_only: bool = False,
                 say: Callable[[str], None] = print) -> None:
        #: the seats' link keys (our own is nobody else's to prove; ``start`` gives no key to
        #: two seats, and one that did would prove neither)
        self.by_key = {key: seat for seat, key in enumerate(dh_keys) if seat != me and dh_keys.count(key) == 1}
        self.names = names
        #: the seats speak to us on their links only (we have a link endpoint): a seat's
        #: envelope on a connection that proved no key is not that seat speaking
        self.proven_only = proven_only
        #: unproven connections, by the seat that signs on them (most recently heard last)
        self.signed: dict[bytes, int] = {}
        #: when a relay was last reported, by the relaying seat (None: a key that is no seat's)
        self.noticed: dict[int | None, float] = {}
        self.say = say
        #: each seat's notices in hand (NOTICE_BURST at most), when they were counted, and how
        #: many of its dropped messages went untold since the last notice
        self.quota: dict[int, tuple[float, float]] = {}
        self.untold: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self.signed)

    def owner(self, connection: bytes, key: bytes | None) -> int | None:
        """The seat a connection belongs to: the one whose key it proved, if it proved one."""
        if key is not None:
            return self.by_key.get(key)
        return self.signed.get(connection)

    def heard(self, connection: bytes, key: bytes | None, sender: int) -> bool:
        """A message ``sender`` signed came on ``connection``: False if the connection proved
        another key (a relay, dropped); an unproven connection is known from now on by the
        seat that first signed on it."""
        if key is not None:
            return self.by_key.get(key) == sender
        if self.proven_only:
            return False
        self._remember(connection, self.signed.get(connection, sender))
        return True

    def relayed(self, connection: bytes, key: bytes | None, kind: str, signer: int, now: float) -> str | None:
        """The notice for a message ``heard`` refused (None if one was given lately)."""
        by = self.owner(connection, key)
        if now - self.noticed.get(by, -NOTICE_RELAYS) <= NOTICE_RELAYS:
            return None
        self.noticed[by] = now
        signed = f"dropped a {kind} signed by {self.names[signer]} (seat {signer})"
        if key is None:
            return f"{signed} that came on a connection that proved no key (the seats speak on their links)"
        relayer = "a connection that proved no seat's key" if by is None else f"{self.names[by]} (seat {by})"
        return f"{signed} that {relayer} relayed on its link"

    def dropped(self, seat: int, text: str, now: float | None = None) -> None:
        """Tell that a message of ``seat``'s was dropped, unless its notices are spent; the
        next notice (or ``tell_untold``) says how many went untold meanwhile."""
        now = time.monotonic() if now is None else now
        if not self._spend(seat, now):
            self.untold[seat] = self.untold.get(seat, 0) + 1
            return
        untold = self.untold.pop(seat, 0)
        self.say(f"{text} (and {untold} more of {self.names[seat]}'s, untold)" if untold else text)

    def tell_untold(self, now: float) -> None:
        """Say how many of a seat's dropped messages went untold, once it may be told again
        (a flood that stopped is still counted)."""
        for seat in [s for s in self.untold if self._spend(s, now)]:
            self.say(f"dropped {self.untold.pop(seat)} more bad messages of {self.names[seat]}'s, untold")

    def _spend(self, seat: int, now: float) -> bool:
        """Take one of ``seat``'s notices, if it has one in hand."""
        held, since = self.quota.get(seat, (float(NOTICE_BURST), now))
        held = min(float(NOTICE_BURST), held + max(0.0, now - since) / NOTICE_EVERY)
        self.quota[seat] = (held - 1 if held >= 1 else held, now)
        return held >= 1

    def linked(self, connection: bytes, key: bytes | None, seat: int) -> None:
        """A seat's ``link`` came on an unproven connection: the connection is that seat's."""
        if key is None:
            self._remember(connection, seat)

    def _remember(self, connection: bytes, seat: int) -> None:
        self.signed.pop(connection, None)
        while len(self.signed) >= LINKS_KEPT:
            del self.signed[next(iter(self.signed))]
        self.signed[connection] = seat
