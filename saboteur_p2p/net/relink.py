"""A seat that comes back on another port or address: its ``link`` says where it listens now,
and the session reaches it there, if that endpoint can be the seat's (protocol.md §12.1)."""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from .heartbeat import Resends
from .lobby import Table
from .standin import RUNS_AGAIN
from .transport import Transport, endpoint_host, is_loopback, is_wildcard, normal_endpoint, valid_endpoint

#: a seat's announced endpoint is followed at most this often (seconds)
RELINK_EVERY = 1.0
#: seconds between two notices that one seat runs its program again
RUNS_AGAIN_EVERY = 10.0


class Relink:
    """Session mixin: following a seat to its new endpoint (``Session`` provides these attributes)."""

    table: Table
    transport: Transport
    endpoints: dict[int, str]
    names: list[str]
    incarnations: dict[int, int]
    last_relink: dict[int, float]
    #: seat -> the newest endpoint it gave (and its run) that came too soon after the last
    #: we followed: followed when the second is up
    pending_links: dict[int, tuple[str, int]]
    resends: Resends
    say: Callable[[str], None]
    _link: Callable[[str, int], bytes]
    _resend_to: Callable[[int], None]
    #: seats that came back (a newer run), owed again the shares we sent them ahead once they
    #: hold every record we do (heartbeat.py)
    ahead_again: set[int]
    seat: int
    #: the game was running when we joined (session.py)
    resuming: bool
    #: the seats we also link to where their own hellos say they began (a seat that came back)
    began_at: dict[int, str]
    #: when we last told that each seat runs its program again
    runs_again_told: dict[int, float]

    def _relink(self, seat: int, endpoint: str, incarnation: int, now: float | None = None) -> None:
        """A seat's newest run says where it listens; an older run's word no longer counts."""
        if incarnation < self.incarnations.get(seat, 0):
            return
        if incarnation > self.incarnations.get(seat, incarnation):
            self.ahead_again.add(seat)  # a newer run of that seat: what we sent it ahead is lost
            now = time.monotonic() if now is None else now
            self.resends.restarted(seat, now)  # and it may hold fewer records
            if now - self.runs_again_told.get(seat, -RUNS_AGAIN_EVERY) >= RUNS_AGAIN_EVERY:
                # told once in a while: a seat whose links count their runs up by the hundred
                # flooded every player's log (found by review)
                self.runs_again_told[seat] = now
                self.say(RUNS_AGAIN.format(name=self.names[seat]))
        self.incarnations[seat] = incarnation
        old = self.endpoints[seat]
        if endpoint == old:
            self.pending_links.pop(seat, None)
            return
        if not valid_endpoint(endpoint):
            self.say(f"{self.names[seat]} gave an endpoint that is not tcp://host:port; ignored")
            return
        now = time.monotonic() if now is None else now
        if now - self.last_relink.get(seat, -RELINK_EVERY) < RELINK_EVERY:
            # followed when the second is up, the newest only: a prober moves us no more
            # often than that, and a seat that crashed again at once is still found (its
            # run sends its `link` once)
            self.pending_links[seat] = (endpoint, incarnation)
            return
        self.pending_links.pop(seat, None)
        self.last_relink[seat] = now
        normal = normal_endpoint(endpoint)
        if normal is None:
            self.say(f"{self.names[seat]} gave the endpoint {endpoint}, which does not name an IP address; ignored")
            return
        began = next((s for s, e in self.began_at.items() if s != seat and normal_endpoint(e) == normal), None)
        if began is not None:
            # we link to that seat there already, as its own hello names it: another seat's
            # word would take that link (found by review)
            self.say(f"{self.names[seat]} gave the endpoint where {self.names[began]} (seat {began}) began the game; ignored")
            return
        taken = next((s for s, e in self.endpoints.items() if s != seat and normal_endpoint(e) == normal), None)
        if taken is not None and not self._disproved(taken, seat, endpoint, incarnation):
            return
        shared = any(s != seat and e == old for s, e in self.endpoints.items())
        key = self.table.seats[seat].dh_key
        if not self._reachable(endpoint, old) or not self.transport.replace(old, endpoint, keep_old=shared, server_key=key):
            self.say(f"{self.names[seat]} gave the endpoint {endpoint}, which cannot reach it from here; ignored")
            return
        # the seat's owner came back on another port or address: reach it there (and where we
        # reached it, until the new endpoint has answered)
        self.endpoints[seat] = endpoint
        self.transport.send(endpoint, self._link(endpoint, seat))
        self.resends.now_due(seat, now)
        self._resend_to(seat)

    def _disproved(self, taken: int, seat: int, endpoint: str, incarnation: int) -> bool:
        """``seat`` gives an endpoint that seat ``taken`` gave first: whether that first word is
        disproved (the server there closed our new link's handshake: it holds another key; a
        handshake that timed out proves nothing), and ``taken`` is reached where it was before.
        A seat that claimed another's new endpoint first kept that seat unreached here, and the
        notice named the honest one (found by an attack).  Until our new link there has shaken
        hands or met another key, ``seat``'s word waits a second at a time."""
        claimed = self.endpoints[taken]
        before = self.transport.unproven(claimed)
        if before is not None and self.transport.wrong_key(claimed):
            self.transport.disconnect(claimed)  # (it never shook hands: the link it was to replace stays)
            self.endpoints[taken] = before
            self.say(f"{self.names[taken]} (seat {taken}) gave the endpoint {claimed}, where another key "
                     f"answers; {self.names[taken]} is reached where it was, and {self.names[seat]} there")
            return True
        if before is not None:
            self.pending_links[seat] = (endpoint, incarnation)  # judged once that link shook hands or failed
        else:
            self.say(f"{self.names[seat]} gave the endpoint of {self.names[taken]} (seat {taken}); ignored")
        return False

    def _link_all(self) -> None:
        """Our link to every seat, at the endpoint the start gives it (encrypted, to that seat
        only), and for a seat that came back also where each seat's own hello says it began.

        A seat that came back believes the endpoints of a start that one seat signed: a
        hostile host gave it false ones, and the two honest seats, which never heard each other,
        named each other gone (found by an attack).  A seat still where its hello says follows
        our link there to our endpoint, and its own link then tells us where it is (§12.4)."""
        began = self.table.signed_endpoints() if self.resuming else {}
        # where the start of one seat gives a seat where another seat's own hello says it
        # began (a host swapped two seats' endpoints), each at its own, if that leaves no
        # two seats at one endpoint (one link per endpoint: found by review)
        mended = {seat: began.get(seat, endpoint) if any(endpoint == where and other != seat
                                                         for other, where in began.items()) else endpoint
                  for seat, endpoint in self.endpoints.items()}
        if len(set(mended.values())) == len(mended):
            self.endpoints.update(mended)
        for seat, endpoint in self.endpoints.items():
            self.transport.connect(endpoint, server_key=self.table.seats[seat].dh_key)
            self.transport.send(endpoint, self._link(endpoint, seat))
        for seat, endpoint in began.items():
            if seat != self.seat and endpoint not in self.endpoints.values():
                self.began_at[seat] = endpoint
                self.transport.connect(endpoint, server_key=self.table.seats[seat].dh_key)
                self.transport.send(endpoint, self._link(endpoint, seat))

    def served_table(self, connection: bytes) -> Table:
        """The start we give a seat that comes back, on ``connection``: every seat at the
        endpoint we reach it at now, and ours as the seat can reach it.  The first start's
        endpoints were served after seats had moved: a later rejoiner reached them only
        through others' relays (found by review)."""
        towards = self.transport.address_of(connection) or "127.0.0.1"
        now = {**self.endpoints, self.seat: self.transport.advertised(f"tcp://{towards}:1")}
        seats = tuple(dataclasses.replace(info, endpoint=now[seat]) for seat, info in enumerate(self.table.seats))
        return dataclasses.replace(self.table, seats=seats) if len(set(now.values())) == len(now) else self.table

    def _follow_pending_links(self, now: float) -> None:
        """Follow each endpoint held back by the one-a-second limit once its second is up."""
        for seat, (endpoint, incarnation) in list(self.pending_links.items()):
            if now - self.last_relink.get(seat, -RELINK_EVERY) >= RELINK_EVERY:
                del self.pending_links[seat]
                self._relink(seat, endpoint, incarnation, now)

    @staticmethod
    def _reachable(endpoint: str, old: str) -> bool:
        """Whether another seat's announced ``endpoint`` can be where it is reachable from
        here: never a wildcard address, and loopback only for a seat we reach on loopback."""
        host = endpoint_host(endpoint)
        return not is_wildcard(host) and (not is_loopback(host) or is_loopback(endpoint_host(old)))
