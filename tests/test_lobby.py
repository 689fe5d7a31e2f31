"""The lobby over loopback sockets, in one process: seats, names and keys are checked per hello."""
from __future__ import annotations

import dataclasses
import itertools
import secrets
import threading
import time
from collections.abc import Callable

import pytest
import zmq
from session_doubles import signed_start

from saboteur_p2p.crypto.group import IDENTITY as IDENTITY_POINT
from saboteur_p2p.crypto.group import check_point
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.table_code import prove_code, table_key
from saboteur_p2p.net import lobby
from saboteur_p2p.net.invite import LobbyError, key_text, parse_key_text
from saboteur_p2p.net.lobby import (
    LOBBY_VERSION,
    SeatInfo,
    Table,
    hello,
    host_lobby,
    join_lobby,
    joint_game_id,
)
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.wire import Envelope, open_envelope, seal
from saboteur_p2p.rules import GameConfig

#: distinct endpoints for the joiners' hellos (a table refuses two seats at one endpoint)
PORTS = itertools.count(20_000)


class _LobbyClosed(BaseException):
    """Ends a hosted lobby the test has closed."""


class HostedTable:
    """A host's lobby in a thread of this process, on a loopback port."""

    def __init__(
        self, players: int, code: str | None = None, invite: bool = True, keyed: bool = False,
        started: Callable[[], bool] | None = None, config: GameConfig | None = None, turn_time: float | None = None,
    ) -> None:
        self.identity = Identity.generate()
        self.turn_time = turn_time
        self.started = started
        self.code = code
        self.invite = invite
        self.transport = Transport("127.0.0.1:0", zmq.Context(), link_keys=self.identity.link_keys() if keyed else None)
        self.said: list[str] = []
        self.table: Table | None = None
        self.error: BaseException | None = None
        self.config = GameConfig(players) if config is None else config
        #: set by close: a lobby still waiting for players ends (else close waited 10 s for it)
        self.closing = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        try:
            self.table = host_lobby(self.identity, "host", self.transport, self.config, self.code, self.said.append,
                                    started=self._started, invite=self.invite, turn_time=self.turn_time)
        except BaseException as exc:  # reported by the test
            self.error = exc

    def _started(self) -> bool:
        """The test's ``started``, asked by the lobby as it waits (every 0.2 s at most): it ends
        a lobby the test is done with by raising."""
        if self.closing.is_set():
            raise _LobbyClosed
        return self.started() if self.started is not None else False

    def close(self) -> None:
        self.closing.set()
        self.thread.join(timeout=10)
        self.transport.close()
        self.transport.context.destroy(linger=0)  # never waits on a lobby that did not end


def send_hellos(address: str, joiners: list[tuple[Identity, str]], context: zmq.Context) -> list[zmq.Socket]:
    """Every joiner says hello on its own connection, all at once, and again with the salt the
    table's challenge gives (``bound_hello``); their sockets are returned."""
    sockets = []
    for _ in joiners:
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(address)
        sockets.append(dealer)
    said = []
    for dealer, (identity, name) in zip(sockets, joiners, strict=True):
        endpoint, nonce = f"tcp://127.0.0.1:{next(PORTS)}", secrets.token_bytes(32)
        dealer.send(hello(identity, name, endpoint, nonce=nonce))
        said.append((identity, name, endpoint, nonce))
    # every challenge first: the table fills (and stops answering) only once bound hellos come
    bindings = [challenge_binding(dealer) for dealer in sockets]
    for dealer, (identity, name, endpoint, nonce), binding in zip(sockets, said, bindings, strict=True):
        dealer.send(hello(identity, name, endpoint, nonce=nonce, **binding))
    return sockets


def challenge_binding(dealer: zmq.Socket) -> dict[str, bytes]:
    """What binds a hello to the table (its salt and signing key, as ``hello`` takes them),
    from the ``challenge`` a table answers a first hello with."""
    assert dealer.poll(10_000), "the table did not answer the hello"
    env = open_envelope(dealer.recv())
    assert env.kind == "challenge", env.kind
    return {"table": bytes(env.body["salt"]), "host": env.key}


def greet(dealer: zmq.Socket, identity: Identity, name: str, endpoint: str, nonce: bytes | None = None) -> Envelope:
    """The table's answer to a joiner's hello: said once, and again with the table's salt if
    it challenges the first (a hello it refuses at once is not challenged)."""
    nonce = nonce or secrets.token_bytes(32)
    dealer.send(hello(identity, name, endpoint, nonce=nonce))
    assert dealer.poll(10_000), "the table did not answer the hello"
    answer = open_envelope(dealer.recv())
    if answer.kind == "challenge":
        dealer.send(hello(identity, name, endpoint, nonce=nonce, table=bytes(answer.body["salt"]), host=answer.key))
        assert dealer.poll(10_000), "the table did not answer the bound hello"
        answer = open_envelope(dealer.recv())
    return answer


def bound_hello(dealer: zmq.Socket, identity: Identity, name: str, endpoint: str, nonce: bytes | None = None) -> None:
    """Say hello on ``dealer`` as a joiner does: once, then again with the table's salt."""
    nonce = nonce or secrets.token_bytes(32)
    dealer.send(hello(identity, name, endpoint, nonce=nonce))
    dealer.send(hello(identity, name, endpoint, nonce=nonce, **challenge_binding(dealer)))


def replies(sockets: list[zmq.Socket], timeout: float = 10.0, enough: int | None = None) -> list[list[str]]:
    """The kinds of the replies each joiner got, gathered until each has its answer (or, with
    ``enough``, until that many have one and no more come for half a second)."""
    got: list[list[str]] = [[] for _ in sockets]
    deadline = time.monotonic() + timeout
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        answered = sum(("reject" in g or "start" in g) for g in got)
        if answered == len(sockets) or (enough is not None and answered >= enough and time.monotonic() - quiet_since > 0.5):
            break
        for i, dealer in enumerate(sockets):
            while dealer.poll(10):
                got[i].append(open_envelope(dealer.recv()).kind)
                quiet_since = time.monotonic()
    return got


@pytest.fixture
def context():
    ctx = zmq.Context()
    yield ctx
    ctx.destroy(linger=0)


def test_an_early_start_with_too_few_seated_says_why_it_waits_and_starts_once_enough_are(context):
    host = HostedTable(players=5, started=lambda: True)  # the host asked to start at once
    try:
        deadline = time.monotonic() + 10
        while not any("needs at least" in line for line in host.said) and time.monotonic() < deadline:
            time.sleep(0.05)
        waiting = [line for line in host.said if "needs at least" in line]
        assert waiting == ["a game needs at least 3 players and 1 is seated: it starts as soon as 3 are"]
        assert host.table is None
        sockets = send_hellos(host.transport.endpoint, [(Identity.generate(), f"friend-{i}") for i in range(2)], context)
        replies(sockets)
        host.thread.join(timeout=10)
        assert host.error is None and host.table is not None and len(host.table.seats) == 3
        assert len([line for line in host.said if "needs at least" in line]) == 1  # said once
        # each sitting down says how many are still awaited (the opening line's count read as
        # the lobby's state after bots had sat down: a play-test)
        sat = [line for line in host.said if " takes seat " in line]
        assert [line.rpartition("; ")[2] for line in sat] == ["waiting for 3 more player(s)", "waiting for 2 more player(s)"]
    finally:
        host.close()


def test_hellos_arriving_together_never_seat_more_players_than_the_table_has(context):
    host = HostedTable(players=3)
    try:
        joiners = [(Identity.generate(), f"friend-{i}") for i in range(12)]
        sockets = send_hellos(host.transport.endpoint, joiners, context)
        got = replies(sockets, enough=2)
        host.thread.join(timeout=10)
        assert host.error is None and host.table is not None
        assert len(host.table.seats) == 3
        seated = [i for i, g in enumerate(got) if "start" in g]
        assert len(seated) == 2 and all("welcome" in got[i] for i in seated)
        # the others are refused while the lobby runs; once it has ended (the game's session
        # answers later hellos) they are never welcomed
        assert all("welcome" not in g and g in ([], ["reject"]) for i, g in enumerate(got) if i not in seated)
        for dealer in sockets:
            dealer.close()
    finally:
        host.close()


@pytest.mark.parametrize("invite", [True, False])
def test_friends_are_told_how_to_join_only_at_a_table_they_may_join(context, invite):
    """``play`` fills every other seat with bot peers of this machine: its log does not say
    how friends join, nor that the table waits for players."""
    host = HostedTable(players=3, invite=invite)
    try:
        sockets = send_hellos(host.transport.endpoint, [(Identity.generate(), "ann"), (Identity.generate(), "bob")], context)
        assert all("start" in got for got in replies(sockets))
        for dealer in sockets:
            dealer.close()
    finally:
        host.close()
    opening = host.said[0]
    if invite:
        assert opening.endswith("waiting for 2 more player(s)") and host.said[1].startswith("friends join with")
    else:
        assert opening.endswith("for you and 2 bot(s) of this machine")
        assert not any("join" in line or "waiting" in line for line in host.said)


def test_a_small_order_key_exchange_key_is_refused(context):
    host = HostedTable(players=3)
    try:
        joiner = Identity.generate()
        body = {"version": LOBBY_VERSION, "name": "mallory", "dh_key": bytes(32), "endpoint": "tcp://127.0.0.1:9",
                "code_proof": b"", "nonce": bytes(32)}
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(host.transport.endpoint)
        dealer.send(seal(joiner, "hello", body))
        assert dealer.poll(10_000)
        answer = open_envelope(dealer.recv())
        assert answer.kind == "reject" and "small order" in answer.body["reason"]
        dealer.close()
        honest = send_hellos(host.transport.endpoint, [(Identity.generate(), "a"), (Identity.generate(), "b")], context)
        assert all("start" in got for got in replies(honest))
        for dealer in honest:
            dealer.close()
    finally:
        host.close()
    assert host.error is None and host.table is not None and len(host.table.seats) == 3


def test_the_game_id_is_the_hash_of_every_seats_fresh_nonce(context):
    host = HostedTable(players=3)
    try:
        nonces = [bytes([7]) * 32, bytes([9]) * 32]
        sockets = []
        for nonce, name in zip(nonces, ("ann", "bob"), strict=True):
            identity = Identity.generate()
            dealer = context.socket(zmq.DEALER)
            dealer.setsockopt(zmq.LINGER, 0)
            dealer.connect(host.transport.endpoint)
            bound_hello(dealer, identity, name, f"tcp://127.0.0.1:{next(PORTS)}", nonce)
            sockets.append(dealer)
        starts = []
        deadline = time.monotonic() + 10
        while len(starts) < 2 and time.monotonic() < deadline:
            for dealer in sockets:
                while dealer.poll(10):
                    envelope = open_envelope(dealer.recv())
                    if envelope.kind == "start":
                        starts.append(Table.from_envelope(envelope))
        for dealer in sockets:
            dealer.close()
    finally:
        host.close()
    assert host.table is not None and len(starts) == 2
    # the two hellos race each other to the host, which seats them as they come
    assert sorted(host.table.nonces[1:]) == sorted(nonces) and len(host.table.nonces[0]) == 32
    assert host.table.game_id == joint_game_id(host.table.nonces) == starts[0].game_id


def test_a_joiner_refuses_a_start_without_its_nonce_unless_it_is_taking_its_seat_back(context):
    """A replayed or forged start (an old game's, or one whose id the host chose) does not carry
    the joiner's fresh nonce: refused, unless the joiner has that game's log (a rejoin)."""
    fake_host = Identity.generate()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    joiner, other = Identity.generate(), Identity.generate()
    seats = [SeatInfo("host", fake_host.public.sign_key, fake_host.public.dh_key, "tcp://127.0.0.1:1"),
             SeatInfo("me", joiner.public.sign_key, joiner.public.dh_key, "tcp://127.0.0.1:2"),
             SeatInfo("x", other.public.sign_key, other.public.dh_key, "tcp://127.0.0.1:3")]
    nonces = (bytes([1]) * 32, bytes([2]) * 32, bytes([3]) * 32)  # not the joiner's fresh one
    old = signed_start((fake_host, joiner, other), seats, nonces, GameConfig(3))

    def answer_with_old_start() -> None:
        if router.poll(10_000):
            connection, _ = router.recv_multipart()
            router.send_multipart([connection, seal(fake_host, "start", old.to_data())])

    for resumable, refused in (((), True), ((old.game_id.hex()[:16],), False)):
        transport = Transport("127.0.0.1:0", context)
        replier = threading.Thread(target=answer_with_old_start)
        replier.start()
        try:
            if refused:
                with pytest.raises(LobbyError, match="does not carry our nonce"):
                    join_lobby(joiner, "me", transport, f"127.0.0.1:{port}", None, lambda text: None, timeout=10)
            else:
                table = join_lobby(joiner, "me", transport, f"127.0.0.1:{port}", None, lambda text: None,
                                   timeout=10, resumable=resumable)
                assert table.game_id == old.game_id
        finally:
            replier.join(timeout=15)
            transport.close()
    router.close()


def test_a_joiner_refuses_a_start_that_gives_its_seat_another_link_key(context):
    """A host that put its own key in a joiner's place could read that seat's encrypted
    links (the others would encrypt to the host): the joiner refuses such a start."""
    fake_host, joiner, stranger = Identity.generate(), Identity.generate(), Identity.generate()
    router = context.socket(zmq.ROUTER)
    router.setsockopt(zmq.LINGER, 0)
    port = router.bind_to_random_port("tcp://127.0.0.1")
    seats = (SeatInfo("host", fake_host.public.sign_key, fake_host.public.dh_key, "tcp://127.0.0.1:1"),
             SeatInfo("me", joiner.public.sign_key, stranger.public.dh_key, "tcp://127.0.0.1:2"))
    nonces = (bytes([1]) * 32, bytes([2]) * 32)
    # a host that holds the stranger's link key can prove it for the joiner's signing key (the
    # proof names the signing key; it needs no signature): here built with the joiner's keys
    posing = Identity.from_private_bytes(joiner._private_bytes()[0], stranger.link_keys()[1])
    proofs = (fake_host.prove_link_key(nonces[0]), posing.prove_link_key(nonces[1]))
    start = dataclasses.replace(signed_start((fake_host, posing), seats, nonces, GameConfig(2, "saboteur2")),
                                link_proofs=proofs)

    def answer() -> None:
        if router.poll(10_000):
            connection, _ = router.recv_multipart()
            router.send_multipart([connection, seal(fake_host, "start", start.to_data())])

    transport = Transport("127.0.0.1:0", context)
    replier = threading.Thread(target=answer)
    replier.start()
    try:
        with pytest.raises(LobbyError, match="gives our seat another key"):
            join_lobby(joiner, "me", transport, f"127.0.0.1:{port}", None, lambda text: None, timeout=10,
                       resumable=(start.game_id.hex()[:16],))
    finally:
        replier.join(timeout=15)
        transport.close()
        router.close()


@pytest.mark.parametrize("endpoint, same_key, refused", [
    ("tcp://0.0.0.0:5000", False, "not a wildcard"),
    ("tcp://127.0.0.1:5001", False, "another seat has that endpoint"),
    # its link would prove that seat's key, not its own (net/links.py)
    ("tcp://127.0.0.1:5002", True, "another seat has that link key"),
])
def test_a_hello_from_a_wildcard_or_a_seated_endpoint_or_key_is_refused(context, endpoint, same_key, refused):
    host = HostedTable(players=3)
    try:
        ann = Identity.generate()
        first = context.socket(zmq.DEALER)
        first.setsockopt(zmq.LINGER, 0)
        first.connect(host.transport.endpoint)
        assert greet(first, ann, "ann", "tcp://127.0.0.1:5001").kind == "welcome"
        second = context.socket(zmq.DEALER)
        second.setsockopt(zmq.LINGER, 0)
        second.connect(host.transport.endpoint)
        # the same key: a second identity built on ann's private link key (it can prove it)
        bob = Identity.from_private_bytes(secrets.token_bytes(32), ann.link_keys()[1]) if same_key else Identity.generate()
        answer = greet(second, bob, "bob", endpoint)
        assert answer.kind == "reject" and refused in answer.body["reason"]
        last = send_hellos(host.transport.endpoint, [(Identity.generate(), "cy")], context)
        assert "start" in replies(last)[0]
        for dealer in [first, second, *last]:
            dealer.close()
    finally:
        host.close()


def _squatting_hello(victim: Identity, squatter: Identity, how: str) -> bytes:
    """A hello from ``squatter`` giving ``victim``'s link key, with a proof made ``how``."""
    nonce = secrets.token_bytes(32)
    theirs = open_envelope(hello(victim, "ann", "tcp://127.0.0.1:5001", nonce=nonce)).body
    body = open_envelope(hello(squatter, "mallory", "tcp://127.0.0.1:5002", nonce=nonce)).body
    body["dh_key"] = victim.public.dh_key
    if how == "none":
        del body["dh_proof"]
    elif how == "copied":
        body["dh_proof"] = theirs["dh_proof"]  # bound to the victim's signing key
    elif how == "own":
        body["dh_proof"] = squatter.prove_link_key(nonce)  # its own key's twin: maps to another key
    return seal(squatter, "hello", body)


@pytest.mark.parametrize("how", ["none", "copied", "own", "garbage"])
def test_a_hello_giving_a_link_key_its_sender_does_not_hold_is_refused(context, how):
    """The squatter of protocol.md 11 (before lobby 8): someone who has seen a player's link key
    takes a seat with it first.  Without a proof of the key the host refuses it, and the
    player, coming later, is seated."""
    host = HostedTable(players=3)
    victim, squatter = Identity.generate(), Identity.generate()
    try:
        mallory = context.socket(zmq.DEALER)
        mallory.setsockopt(zmq.LINGER, 0)
        mallory.connect(host.transport.endpoint)
        data = _squatting_hello(victim, squatter, "none" if how == "garbage" else how)
        if how == "garbage":
            env = open_envelope(data)
            data = seal(squatter, "hello", {**env.body, "dh_proof": secrets.token_bytes(96)})
        mallory.send(data)
        assert mallory.poll(10_000)
        answer = open_envelope(mallory.recv())
        reason = answer.body.get("reason", "")
        assert answer.kind == "reject" and ("does not prove its link key" in reason or "dh_proof" in reason), answer.body
        honest = send_hellos(host.transport.endpoint, [(victim, "ann"), (Identity.generate(), "bob")], context)
        assert all("start" in got for got in replies(honest))
        for dealer in [mallory, *honest]:
            dealer.close()
    finally:
        host.close()
    assert host.error is None and host.table is not None
    assert [s.dh_key for s in host.table.seats[1:]].count(victim.public.dh_key) == 1
    assert squatter.public.sign_key not in [s.sign_key for s in host.table.seats]


def _join_together(context: zmq.Context, table: HostedTable, names: tuple[str, ...], code: str | None = None,
                   host_key: bytes | None = None, timers: list[float] | None = None) -> list[Table]:
    """The tables ``join_lobby`` returns to friends who join at once, one thread each (and
    the turn timers their welcomes gave, in ``timers``)."""
    seated: list[Table] = []

    def join(name: str) -> None:
        identity = Identity.generate()
        transport = Transport("127.0.0.1:0", context, link_keys=identity.link_keys())
        try:
            seated.append(join_lobby(identity, name, transport, table.transport.endpoint, code, lambda text: None,
                                     timeout=15, host_key=host_key, on_turn_time=None if timers is None else timers.append))
        finally:
            transport.close()

    friends = [threading.Thread(target=join, args=(name,)) for name in names]
    for friend in friends:
        friend.start()
    for friend in friends:
        friend.join(timeout=20)
    return seated


def _ask(dealer: zmq.Socket, identity: Identity, endpoint: str, proof: bytes, nonce: bytes, table: bytes = b"",
         host: bytes = b"") -> Envelope:
    dealer.send(hello(identity, "ann", endpoint, proof, nonce=nonce, table=table, host=host))
    assert dealer.poll(10_000)
    return open_envelope(dealer.recv())


def test_a_table_code_is_proven_by_an_exchange_a_captured_lobby_cannot_test_guesses_against(context, monkeypatch):
    """A hello without a proof is answered with the table's salt and its share of a SPAKE2
    exchange (the same again for the same hello); the joiner proves the code with scrypt(code,
    salt) and that share.  A wrong code, another salt, another hello's proof (its nonce or its
    joiner) and proofs that are not points are refused alike; join_lobby does it all."""
    monkeypatch.setattr(lobby, "WRONG_CODES_PER_ADDRESS", 20)  # every case from this one address
    table = HostedTable(players=4, code="swordfish")
    try:
        joiner, other = Identity.generate(), Identity.generate()
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(table.transport.endpoint)
        endpoint = f"tcp://127.0.0.1:{next(PORTS)}"
        nonce = secrets.token_bytes(32)
        asked = _ask(dealer, joiner, endpoint, b"", nonce)
        assert asked.kind == "code" and len(asked.body["salt"]) == 16
        salt, share = asked.body["salt"], asked.body["share"]
        assert check_point(share) == share
        assert _ask(dealer, joiner, endpoint, b"", nonce).body["share"] == share  # nothing kept per joiner
        assert _ask(dealer, joiner, endpoint, b"", bytes(32)).body["share"] != share
        me = joiner.public.sign_key
        wrong = [
            prove_code(table_key("sword", salt), salt, me, nonce, share),
            prove_code(table_key("swordfish", bytes(16)), salt, me, nonce, share),
            prove_code(table_key("swordfish", salt), salt, me, bytes(32), share),  # for another hello
            prove_code(table_key("swordfish", salt), salt, other.public.sign_key, nonce, share),
            secrets.token_bytes(64),
            bytes(64),
            IDENTITY_POINT + prove_code(table_key("swordfish", salt), salt, me, nonce, share)[32:],
        ]
        for proof in wrong:
            refused = _ask(dealer, joiner, endpoint, proof, nonce, salt, asked.key)
            assert refused.kind == "reject" and refused.body["reason"] == "wrong table code", refused.body
        right = prove_code(table_key("swordfish", salt), salt, me, nonce, share)
        assert _ask(dealer, joiner, endpoint, right, nonce).kind == "code"  # not bound to this table: asked again
        assert _ask(dealer, joiner, endpoint, right, nonce, salt, asked.key).kind == "welcome"
        dealer.close()
        # join_lobby does it all: hello, the salt, hello again with the proof
        transport = Transport("127.0.0.1:0", context)
        try:
            with pytest.raises(LobbyError, match="needs its code"):
                join_lobby(Identity.generate(), "bob", transport, table.transport.endpoint, None, lambda text: None,
                           timeout=10)
        finally:
            transport.close()
        seated = _join_together(context, table, ("cy", "dee"), code="swordfish")
        assert len(seated) == 2 and sorted(s.name for s in seated[0].seats) == ["ann", "cy", "dee", "host"]
    finally:
        table.close()


@pytest.mark.parametrize("bot_peers, announced", [(2, False), (1, True)])
def test_a_table_only_bot_peers_of_this_machine_may_fill_is_not_announced(bot_peers, announced, tmp_path, monkeypatch):
    """``play`` (bot peers in every other seat) says nothing of friends joining, so it does not
    call them on the LAN either; a table with a free seat does."""
    from saboteur_p2p.net import play

    calls: list[str] = []

    class Announcer:
        @classmethod
        def start(cls, *args, **kwargs):
            calls.append("announced")
            return cls()

        seats_taken = None

        def withdraw(self) -> None:
            calls.append("withdrawn")

        def close(self) -> None:
            calls.append("closed")

    def closed(*args, **kwargs):
        raise play._ClosedLobby

    monkeypatch.setattr(play, "TableAnnouncer", Announcer)
    monkeypatch.setattr(play, "host_lobby", closed)
    result = play.host_table(Identity.generate(), "ann", "127.0.0.1:0", GameConfig(3), "random", bot_peers, "random",
                             tmp_path, None, 5.0, lambda text: None, announce=True)
    assert "closed the table" in result.message
    assert ("announced" in calls) == announced


def test_a_joiner_given_the_table_s_key_speaks_to_it_encrypted_and_a_wrong_key_is_refused_at_once(context):
    """The host prints its key in the command friends join with; a joiner given it (--key, or
    the table's announcement) speaks CurveZMQ to the table's endpoint from its first message,
    and is seated; one given another key is told so at once (no table holding that key
    answers), and nobody is seated for it."""
    table = HostedTable(players=3, keyed=True)
    try:
        key = table.identity.public.dh_key
        deadline = time.monotonic() + 10
        while len(table.said) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert f"--key {key_text(key)}" in table.said[1] and parse_key_text(key_text(key)) == key
        wrong = Transport("127.0.0.1:0", context, link_keys=Identity.generate().link_keys())
        try:
            started = time.monotonic()
            with pytest.raises(LobbyError, match="does not hold the key given"):
                join_lobby(Identity.generate(), "eve", wrong, table.transport.endpoint, None, lambda text: None,
                           timeout=20, host_key=Identity.generate().public.dh_key)
            assert time.monotonic() - started < 10
        finally:
            wrong.close()
        seated = _join_together(context, table, ("cy", "dee"), host_key=key)
        assert len(seated) == 2 and sorted(s.name for s in seated[0].seats) == ["cy", "dee", "host"]
    finally:
        table.close()
    assert table.table is not None and "eve" not in [s.name for s in table.table.seats]


@pytest.mark.parametrize("text", ["", "abc", "A" * 42, "A" * 44, "!" * 43, key_text(bytes(32))])
def test_a_table_key_that_is_not_one_is_refused(text):
    with pytest.raises(LobbyError, match="not a table key"):
        parse_key_text(text)


def test_an_address_that_tries_too_many_wrong_codes_is_refused_and_the_host_hears_of_it(context):
    """Each wrong code costs its guesser a scrypt, but guesses online were not bounded: an
    address gets WRONG_CODES_PER_ADDRESS of them, then even a hello is refused there, and the
    host is told of each wrong code."""
    table = HostedTable(players=3, code="swordfish")
    try:
        joiner = Identity.generate()
        dealer = context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 0)
        dealer.connect(table.transport.endpoint)
        endpoint = f"tcp://127.0.0.1:{next(PORTS)}"
        me = joiner.public.sign_key
        for n in range(lobby.WRONG_CODES_PER_ADDRESS):
            nonce = secrets.token_bytes(32)
            asked = _ask(dealer, joiner, endpoint, b"", nonce)
            salt, share = asked.body["salt"], asked.body["share"]
            wrong = prove_code(table_key(f"guess{n}", salt), salt, me, nonce, share)
            assert _ask(dealer, joiner, endpoint, wrong, nonce, salt, asked.key).body["reason"] == "wrong table code"
        refused = _ask(dealer, joiner, endpoint, b"", secrets.token_bytes(32))
        assert refused.kind == "reject" and refused.body["reason"].startswith("too many wrong table codes")
        dealer.close()
        assert sum("a wrong table code from 127.0.0.1" in line for line in table.said) == lobby.WRONG_CODES_PER_ADDRESS
    finally:
        table.close()
