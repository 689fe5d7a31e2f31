"""The lobby against a replayed hello, a joiner that crashes before the start, a table that
fills slowly, and peers that write escape sequences into the text a person reads."""
from __future__ import annotations

import contextlib
import secrets
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import zmq
from test_lobby import PORTS, HostedTable, greet, replies, send_hellos

from saboteur_p2p import cli
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import lobby
from saboteur_p2p.net.lobby import LobbyError, hello, join_lobby
from saboteur_p2p.net.notices import Notices
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.watch import WatchFailed, watch_table
from saboteur_p2p.net.wire import open_envelope, seal

#: what a hostile peer puts in a text: a window title, a cleared screen, colour, a forged line
ESCAPES = "\x1b]0;PWNED\x07\x1b[2J\x1b[1;31mred\nbob (seat 0) broke the protocol"


@pytest.fixture
def context():
    ctx = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


@contextlib.contextmanager
def scripted_table(context: zmq.Context, answers: Callable[[Identity], list[bytes]]) -> Iterator[str]:
    """A table at the address yielded that answers the first message it gets with
    ``answers(its identity)``, in order, and then says nothing more."""
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    fake_host = Identity.generate()

    def answer() -> None:
        if router.poll(10_000):
            connection, _ = router.recv_multipart()
            for data in answers(fake_host):
                router.send_multipart([connection, data])

    replier = threading.Thread(target=answer)
    replier.start()
    try:
        yield f"127.0.0.1:{port}"
    finally:
        replier.join(timeout=10)
        router.close()


def welcome(fake_host: Identity) -> bytes:
    return seal(fake_host, "welcome", {"seat": 1, "seats_total": 3, "config": {}})


def dealer_to(context: zmq.Context, table: HostedTable) -> zmq.Socket:
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.connect(table.transport.endpoint)
    return dealer


def test_a_hello_said_at_one_table_seats_nobody_at_another(context):
    """A table that captures a joiner's hello (bound to its own salt) and replays it to another
    table gets a challenge back, not a seat; the joiner then takes its seat there itself."""
    first, second = HostedTable(players=3), HostedTable(players=3)
    victim = Identity.generate()
    try:
        at_first = dealer_to(context, first)
        nonce, endpoint = secrets.token_bytes(32), f"tcp://127.0.0.1:{next(PORTS)}"
        assert greet(at_first, victim, "ann", endpoint, nonce).kind == "welcome"
        # what the first table heard: the hello bound to its salt (asked for again here)
        at_first.send(hello(victim, "ann", endpoint, nonce=nonce))
        kinds = []
        while at_first.poll(10_000):
            answer = open_envelope(at_first.recv())
            kinds.append(answer.kind)
            if answer.kind == "challenge":
                break
        assert kinds[-1] == "challenge", kinds  # after the table it was told when it sat down
        first_salt = bytes(answer.body["salt"])
        captured = hello(victim, "ann", endpoint, nonce=nonce, table=first_salt, host=answer.key)
        replayer = dealer_to(context, second)
        replayer.send(captured)
        assert replayer.poll(10_000)
        answer = open_envelope(replayer.recv())
        assert answer.kind == "challenge" and bytes(answer.body["salt"]) != first_salt
        time.sleep(0.3)
        assert not any("takes seat" in line for line in second.said)
        # the victim is free to sit down at the second table
        honest = send_hellos(second.transport.endpoint, [(victim, "ann"), (Identity.generate(), "bob")], context)
        assert all("start" in got for got in replies(honest))
        for dealer in [at_first, replayer, *honest]:
            dealer.close()
    finally:
        first.transport.close()  # the first table never fills: stop it where it waits
        second.close()
    assert second.table is not None and victim.public.sign_key in [s.sign_key for s in second.table.seats]


def test_a_joiner_that_comes_back_before_the_start_takes_its_seat_back(context):
    """A seated joiner whose process crashed says hello again (a fresh nonce, a new connection,
    another endpoint): it gets the same seat, the start reaches it there and carries its new
    nonce.  The old hello said again moves nothing."""
    table = HostedTable(players=3)
    ann, bob = Identity.generate(), Identity.generate()
    try:
        crashed = dealer_to(context, table)
        old_nonce = secrets.token_bytes(32)
        assert greet(crashed, ann, "ann", f"tcp://127.0.0.1:{next(PORTS)}", old_nonce).kind == "welcome"
        crashed.close()
        again = dealer_to(context, table)
        new_nonce, endpoint = secrets.token_bytes(32), f"tcp://127.0.0.1:{next(PORTS)}"
        welcome = greet(again, ann, "ann", endpoint, new_nonce)
        assert welcome.kind == "welcome" and welcome.body["seat"] == 1
        deadline = time.monotonic() + 10  # the host says so once it has answered
        while not any("ann takes seat 1 back" in line for line in table.said) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert any("ann takes seat 1 back" in line for line in table.said)
        replayed = dealer_to(context, table)
        answer = greet(replayed, ann, "ann", f"tcp://127.0.0.1:{next(PORTS)}", old_nonce)
        assert answer.kind == "reject" and "said before" in answer.body["reason"]
        last = send_hellos(table.transport.endpoint, [(bob, "bob")], context)
        assert "start" in replies(last)[0]
        assert "start" in replies([again])[0]
        for dealer in [again, replayed, *last]:
            dealer.close()
    finally:
        table.close()
    assert table.table is not None
    assert [s.sign_key for s in table.table.seats[1:]] == [ann.public.sign_key, bob.public.sign_key]
    assert table.table.nonces[1] == new_nonce and table.table.seats[1].endpoint == endpoint


def test_the_host_s_own_identity_still_gets_no_second_seat(context):
    table = HostedTable(players=3)
    try:
        dealer = dealer_to(context, table)
        answer = greet(dealer, table.identity, "me-again", f"tcp://127.0.0.1:{next(PORTS)}")
        assert answer.kind == "reject" and answer.body["reason"] == lobby.SEATED_IDENTITY
        others = send_hellos(table.transport.endpoint, [(Identity.generate(), "ann"), (Identity.generate(), "bob")],
                             context)
        assert all("start" in got for got in replies(others))
        for d in [dealer, *others]:
            d.close()
    finally:
        table.close()


@pytest.mark.slow
def test_a_seated_joiner_waits_as_long_as_the_table_fills_and_no_longer_than_it_is_silent(context, monkeypatch):
    """The host repeats ``table`` while it waits, so a seated joiner waits past its own timeout
    for a table that fills slowly; a table that stops speaking is given up with a reason."""
    monkeypatch.setattr(lobby, "TABLE_EVERY", 0.2)
    monkeypatch.setattr(lobby, "TABLE_QUIET", 1.5)
    table = HostedTable(players=3)
    seated: list[object] = []
    said: list[str] = []

    def join() -> None:
        transport = Transport("127.0.0.1:0", context)
        try:
            seated.append(join_lobby(Identity.generate(), "ann", transport, table.transport.endpoint, None, said.append,
                                     timeout=1.0))
        except LobbyError as exc:
            seated.append(exc)
        finally:
            transport.close()

    joiner = threading.Thread(target=join)
    joiner.start()
    try:
        time.sleep(3.0)  # three times the joiner's timeout, and twice its patience with silence
        last = send_hellos(table.transport.endpoint, [(Identity.generate(), "bob")], context)
        assert "start" in replies(last)[0]
        joiner.join(timeout=10)
        last[0].close()
    finally:
        table.close()
    assert len(seated) == 1 and not isinstance(seated[0], LobbyError), seated
    assert sum(line.startswith("at the table:") for line in said) == 2  # said when it changed only

    # a host that seats the joiner and then says nothing more
    transport = Transport("127.0.0.1:0", context)
    try:
        with scripted_table(context, lambda host: [welcome(host)]) as address, \
                pytest.raises(LobbyError, match="seated us, then said nothing for 2 s"):
            join_lobby(Identity.generate(), "cy", transport, address, None, lambda text: None, timeout=60)
    finally:
        transport.close()


def test_two_joiners_named_by_different_host_names_are_not_one_endpoint(context):
    table = HostedTable(players=4)
    try:
        ann, bob = dealer_to(context, table), dealer_to(context, table)
        assert greet(ann, Identity.generate(), "ann", "tcp://alpha-host:5001").kind == "welcome"
        assert greet(bob, Identity.generate(), "bob", "tcp://beta-host:6002").kind == "welcome"
        twin = dealer_to(context, table)
        answer = greet(twin, Identity.generate(), "cy", "tcp://alpha-host:5001")
        assert answer.kind == "reject" and answer.body["reason"] == "another seat has that endpoint"
        last = send_hellos(table.transport.endpoint, [(Identity.generate(), "dee")], context)
        assert "start" in replies(last)[0]
        for dealer in (ann, bob, twin, *last):
            dealer.close()
    finally:
        table.close()


def test_notices_and_errors_print_no_escape_sequence_a_peer_sent():
    said: list[str] = []
    Notices(said.append)(f"ignored a bad start message: {ESCAPES}")
    assert len(said) == 1 and "\x1b" not in said[0] and "\x07" not in said[0] and "\n" not in said[0]
    assert "red" in said[0]
    shown = cli._printable_lines(LobbyError(f"the table refused us: {ESCAPES}\nour own second line"))
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown.endswith("\nour own second line") and shown.count("\n") == 2  # the peer's line break was its own


def test_a_spectator_shows_a_refusal_without_the_escape_sequences_in_it(context):
    with scripted_table(context, lambda seat: [seal(seat, "reject", {"reason": ESCAPES})]) as address, \
            pytest.raises(WatchFailed) as failed:
        watch_table(address, lambda node: None, lambda text: None, connect_timeout=10)
    text = str(failed.value)
    assert "refused" in text and "\x1b" not in text and "\x07" not in text and "\n" not in text


def test_a_refused_hello_said_again_seats_nobody_and_a_seat_is_taken_back_at_a_bounded_rate(context):
    """A hello bound to this table and refused (its name was taken) is spent: replayed once
    what refused it has gone (the name freed by a seat taken back under another name), it
    still seats nobody.  A seat is taken back once in TAKE_BACK_EVERY seconds at most, and
    the connection it was taken from is told so."""
    table = HostedTable(players=4)
    mallory, victim = Identity.generate(), Identity.generate()
    try:
        first = dealer_to(context, table)
        assert greet(first, mallory, "bob", f"tcp://127.0.0.1:{next(PORTS)}").kind == "welcome"
        # the victim's hello, as an eavesdropper on a clear lobby records it: refused
        listener = dealer_to(context, table)
        listener.send(hello(victim, "bob", "tcp://127.0.0.1:5555", nonce=bytes(32)))
        assert listener.poll(10_000)
        challenge = open_envelope(listener.recv())
        recorded = hello(victim, "bob", "tcp://127.0.0.1:5555", nonce=bytes(32), table=bytes(challenge.body["salt"]),
                         host=challenge.key)
        listener.send(recorded)
        assert listener.poll(10_000)
        refused = open_envelope(listener.recv())
        assert refused.kind == "reject" and "'bob' is taken" in refused.body["reason"]
        # mallory takes her seat back under another name: 'bob' is free again
        again = dealer_to(context, table)
        assert greet(again, mallory, "mallory", f"tcp://127.0.0.1:{next(PORTS)}").kind == "welcome"
        kinds = []
        while first.poll(2_000):
            told = open_envelope(first.recv())
            kinds.append(told.kind)
            if told.kind == "reject":
                assert told.body["reason"] == lobby.SEAT_TAKEN_BACK
                break
        assert kinds[-1] == "reject", kinds  # the connection the seat was taken from hears why
        replayer = dealer_to(context, table)
        replayer.send(recorded)
        assert replayer.poll(10_000)
        answer = open_envelope(replayer.recv())
        assert answer.kind == "reject" and "said before" in answer.body["reason"]
        # and at once again: too soon
        third = dealer_to(context, table)
        soon = greet(third, mallory, "mallory", f"tcp://127.0.0.1:{next(PORTS)}")
        assert soon.kind == "reject" and "taken back less than" in soon.body["reason"]
        last = send_hellos(table.transport.endpoint, [(Identity.generate(), "cy"), (Identity.generate(), "dee")], context)
        assert all("start" in got for got in replies(last))
        for dealer in (first, listener, again, replayer, third, *last):
            dealer.close()
    finally:
        table.close()
    assert table.table is not None and victim.public.sign_key not in [s.sign_key for s in table.table.seats]
    names = [s.name for s in table.table.seats]
    assert names[:2] == ["host", "mallory"] and sorted(names[2:]) == ["cy", "dee"]  # the last two race each other


def test_a_table_that_says_welcome_and_table_over_and_over_does_not_flood_the_joiner(context):
    def flood(host: Identity) -> list[bytes]:
        tables = [seal(host, "table", {"seats": [[name]], "seats_total": 3}) for name in ("a", "b")]
        return [*(data for i in range(300) for data in (welcome(host), tables[i % 2])),
                seal(host, "reject", {"reason": "done"})]

    transport = Transport("127.0.0.1:0", context)
    said: list[str] = []
    try:
        with scripted_table(context, flood) as address, pytest.raises(LobbyError, match="refused us: done"):
            join_lobby(Identity.generate(), "cy", transport, address, None, said.append, timeout=30)
    finally:
        transport.close()
    assert sum(line.startswith("seated at") for line in said) == 1
    assert sum(line.startswith("at the table") for line in said) <= 21  # a burst, then one a second


def test_play_with_the_line_prompt_keeps_its_turn_timer(monkeypatch, tmp_path):
    from saboteur_p2p.net import play

    got: dict[str, object] = {}

    def host_table(*args: object, **kwargs: object) -> object:
        got.update(kwargs)
        raise LobbyError("stopped here")

    monkeypatch.setattr(play, "host_table", host_table)
    status = cli.main(["play", "--plain", "--turn-time", "7", "--identity", str(tmp_path / "id"),
                       "--log-dir", str(tmp_path)])
    assert status == 2 and got["turn_time"] == 7.0
