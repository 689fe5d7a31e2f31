"""More hostile inputs, found by attacking the lobby, the records and ``verify``: each test was
written failing on main, before its fix (or is marked xfail, strict, with what is left)."""
from __future__ import annotations

import threading

import pytest
import zmq

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.lobby import LobbyError, join_lobby
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.wire import seal


@pytest.fixture
def context():
    ctx = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


def _table_that_answers(context: zmq.Context, *messages: bytes) -> tuple[zmq.Socket, int, threading.Thread]:
    """A fake host on a loopback port that answers the first hello with ``messages``."""
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")

    def answer() -> None:
        if router.poll(10_000):
            connection, _ = router.recv_multipart()
            for message in messages:
                router.send_multipart([connection, message])

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    return router, port, thread


# -- the lobby: a host's messages to a joiner ---------------------------------------------


@pytest.mark.parametrize("seats", [5, None, 2.5, True])
def test_a_table_message_whose_seats_are_not_a_list_does_not_crash_the_joiner(context, seats):
    """A host's ``table`` message (who sits at the table) with ``seats`` that is not a list
    (a number, nil) escaped ``join_lobby`` as a bare TypeError (iterating it): the joiner died
    with a traceback.  It is ignored; the reject that follows is what the joiner reports."""
    host = Identity.generate()
    router, port, thread = _table_that_answers(
        context,
        seal(host, "table", {"seats": seats, "seats_total": 3}),
        seal(host, "reject", {"reason": "the table is full"}),
    )
    transport = Transport("127.0.0.1:0", context)
    try:
        with pytest.raises(LobbyError, match="the table is full"):
            join_lobby(Identity.generate(), "me", transport, f"127.0.0.1:{port}", None, lambda text: None, timeout=10)
    finally:
        thread.join(timeout=15)
        transport.close()
        router.close()

