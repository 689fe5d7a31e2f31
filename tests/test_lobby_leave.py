"""Leaving the lobby before the start (protocol.md §12.2, 2e): a joiner's ``leave`` frees its
seat, a host that closes its table tells the seated, and a joiner's screen lists the table
as it fills."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable

import zmq
from test_lobby import HostedTable
from test_lobby import context as context  # the fixture: the tests below take it by name

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import lobby
from saboteur_p2p.net.lobby import Table, join_lobby
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.wire import seal


class _Joiner:
    """``join_lobby`` in a thread, with a ``leaving`` the test sets; what it returned or raised."""

    def __init__(self, context: zmq.Context, table: HostedTable, name: str) -> None:
        self.identity = Identity.generate()
        self.leaving = threading.Event()
        self.said: list[str] = []
        #: what the joiner's screen was told of the table: its edition and the names seated
        self.tables: list[tuple[str, tuple[str, ...]]] = []
        self.result: Table | BaseException | None = None
        self.transport = Transport("127.0.0.1:0", context, link_keys=self.identity.link_keys())

        def run() -> None:
            try:
                self.result = join_lobby(self.identity, name, self.transport, table.transport.endpoint, None,
                                         self.said.append, timeout=15, leaving=self.leaving.is_set,
                                         on_table=lambda edition, names, seats: self.tables.append((edition, names)))
            except BaseException as exc:  # looked at by the test
                self.result = exc
            finally:
                self.transport.close()
        self.thread = threading.Thread(target=run, daemon=True)
        self.thread.start()

    def seated(self) -> bool:
        return any(line.startswith("seated at") for line in self.said)


def _until(condition: Callable[[], object], what: str, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


def test_a_joiner_who_leaves_the_lobby_frees_the_seat_and_a_closed_table_tells_the_seated(context):
    """A joiner who left the lobby (the client's q) kept its seat: the game started with it,
    waited for it, and ended (found by a play-test).  Now its ``leave`` frees the seat (the
    host says so, and the start leaves it out); a ``leave`` for another nonce frees nothing;
    and a host that closes its table tells the seated, who need not wait for a start."""
    go = threading.Event()
    table = HostedTable(4, started=go.is_set)
    try:
        ann = _Joiner(context, table, "ann")
        _until(ann.seated, "ann's seat")
        bob = _Joiner(context, table, "bob")
        _until(bob.seated, "bob's seat")
        forged = seal(bob.identity, "leave", {"table": b"\0" * 16, "nonce": b"\0" * 32})  # not bob's hello: nothing
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(table.transport.endpoint)
        dealer.send(forged)
        ann.leaving.set()
        ann.thread.join(10)
        assert isinstance(ann.result, lobby.LeftLobby), ann.result
        _until(lambda: "ann left the table before the game began" in table.said, "the host to hear ann leave")
        cid = _Joiner(context, table, "cid")
        _until(cid.seated, "cid's seat")
        go.set()
        for joiner in (bob, cid):
            joiner.thread.join(10)
            assert isinstance(joiner.result, Table), joiner.result
        assert table.table is not None and [s.name for s in table.table.seats] == ["host", "bob", "cid"]
        # a joiner's screen lists the table as it fills (it showed no names: found by a play-test)
        assert ("base", ("host", "ann", "bob")) in bob.tables and bob.tables[-1] == ("base", ("host", "bob", "cid")), bob.tables
        dealer.close()
    finally:
        table.close()
    closing = HostedTable(3)
    try:
        dan = _Joiner(context, closing, "dan")
        _until(dan.seated, "dan's seat")
    finally:
        closing.close()
    dan.thread.join(10)
    assert isinstance(dan.result, lobby.LeftLobby) and str(dan.result) == "the host closed the table before the game began"
