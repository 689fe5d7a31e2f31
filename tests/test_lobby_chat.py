"""Chat in the lobby: the people at a table talk while it fills (a play-tester's line waited
for the start), each line signed by who said it, passed on by the host as it came."""
from __future__ import annotations

import queue
import threading
import time

import zmq

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.lobby import hello, host_lobby, join_lobby
from saboteur_p2p.net.lobbychat import LOBBY_CHAT, LobbyChat, speakers
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.rules import GameConfig


class Person:
    """What a person at the table types (``say``) and reads (``heard``)."""

    def __init__(self) -> None:
        self.typed: queue.Queue[str] = queue.Queue()
        self.heard: list[tuple[str, str]] = []

    def said(self) -> str | None:
        try:
            return self.typed.get_nowait()
        except queue.Empty:
            return None

    def hear(self, seat: int, name: str, text: str) -> None:
        self.heard.append((name, text))


def wait_for(condition, seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_people_at_a_filling_table_hear_each_others_lines_before_the_start():
    context = zmq.Context()
    host_identity = Identity.generate()
    host_transport = Transport("127.0.0.1:0", context)
    people = {name: Person() for name in ("host", "ann", "bob")}
    start = threading.Event()
    results: dict[str, object] = {}
    seated: list[tuple[str, ...]] = []

    def host() -> None:
        try:
            results["host"] = host_lobby(host_identity, "host", host_transport, GameConfig(4), None, lambda text: None,
                                         started=start.is_set, on_seated=seated.append, chat_said=people["host"].said,
                                         chat_heard=people["host"].hear)
        except Exception as error:  # reported below
            results["host"] = error

    identities = {name: Identity.generate() for name in ("ann", "bob")}

    def join(name: str) -> None:
        identity = identities[name]
        transport = Transport("127.0.0.1:0", context, link_keys=identity.link_keys())
        try:
            results[name] = join_lobby(identity, name, transport, host_transport.endpoint, None, lambda text: None,
                                       timeout=20, chat_said=people[name].said, chat_heard=people[name].hear)
        except Exception as error:
            results[name] = error
        finally:
            transport.close()

    threads = [threading.Thread(target=host, daemon=True)] + [threading.Thread(target=join, args=(n,), daemon=True)
                                                              for n in ("ann", "bob")]
    stranger = context.socket(zmq.DEALER)
    try:
        for thread in threads:
            thread.start()
        wait_for(lambda: bool(seated) and len(seated[-1]) == 3)  # a line goes to those seated when it is said
        people["ann"].typed.put("hello, who else comes?")
        wait_for(lambda: ("ann", "hello, who else comes?") in people["host"].heard)
        wait_for(lambda: ("ann", "hello, who else comes?") in people["bob"].heard)  # bob was seated: passed on to him
        people["host"].typed.put("carol said she would")
        wait_for(lambda: all(("host", "carol said she would") in people[n].heard for n in ("ann", "bob")))
        # one who is not seated says a line to the table: nobody hears it
        # one who is not seated, and ann's key on a connection that is not her seat's, say lines
        # bound to the table (its salt, from the challenge a first hello gets): nobody hears them
        stranger.connect(host_transport.endpoint)
        outsider = Identity.generate()
        stranger.send(hello(outsider, "eve", "tcp://127.0.0.1:9"))
        assert stranger.poll(10_000)
        salt = open_envelope(stranger.recv()).body["salt"]
        stranger.send(seal(outsider, LOBBY_CHAT, {"table": salt, "n": 2**50, "text": "free gold here"}))
        stranger.send(seal(identities["ann"], LOBBY_CHAT, {"table": salt, "n": 2**50, "text": "free gold from ann"}))
        people["bob"].typed.put("ok")
        wait_for(lambda: ("bob", "ok") in people["ann"].heard)
        start.set()
        for thread in threads:
            thread.join(timeout=20)
    finally:
        stranger.close(linger=0)
        host_transport.close()
        context.destroy(linger=0)
    assert all(not isinstance(result, Exception) for result in results.values()), results
    for name, person in people.items():
        assert not any("free gold" in text for _, text in person.heard), name
        # each line once, in the order said, the speaker's own too
        assert person.heard == [("ann", "hello, who else comes?"), ("host", "carol said she would"),
                                                   ("bob", "ok")], name


def test_a_line_is_the_speakers_once_and_of_its_table_only():
    ann, host = Identity.generate(), Identity.generate()
    salt = b"s" * 16
    said: list[tuple[str, str]] = []
    sender = LobbyChat(ann, iter(["my line"]).__next__, None)
    hearer = LobbyChat(host, None, lambda seat, name, text: said.append((name, text)))
    line = open_envelope(sender.due(salt, 1, "ann"))
    assert hearer.take(line, salt, 1, "ann") and said == [("ann", "my line")]
    assert not hearer.take(line, salt, 1, "ann")  # passed on again: not heard twice
    other_table = open_envelope(seal(ann, LOBBY_CHAT, {"table": b"t" * 16, "n": 2**40, "text": "elsewhere"}))
    assert not hearer.take(other_table, salt, 1, "ann")
    too_long = open_envelope(seal(ann, LOBBY_CHAT, {"table": salt, "n": 2**41, "text": "x" * 201}))
    assert not hearer.take(too_long, salt, 1, "ann")
    unbound = open_envelope(seal(ann, LOBBY_CHAT, {"table": b"", "n": 2**42, "text": "before the challenge"}))
    assert not LobbyChat(host, None, None).take(unbound, b"", 1, "ann")  # no chat before the table is known
    assert said == [("ann", "my line")]


def test_a_line_is_named_by_its_speakers_own_hello_not_by_the_hosts_word_alone():
    """A hostile host told one joiner a false table: ann's key under "dave", and a key of its
    own under "ann"; that joiner showed ann's line as dave's and the host's as ann's (an
    attack).  A joiner now names a key only by its own signed hello to this table."""
    ann, host, puppet = Identity.generate(), Identity.generate(), Identity.generate()
    salt, other_salt = b"s" * 16, b"o" * 16

    def seat(identity: Identity, name: str) -> list[object]:
        return [name, identity.public.sign_key, identity.public.dh_key, "tcp://127.0.0.1:1"]

    def said_hello(identity: Identity, name: str, table: bytes = salt) -> bytes:
        return hello(identity, name, "tcp://127.0.0.1:1", table=table, host=host.public.sign_key)

    def told(seats: list[list[object]], hellos: list[bytes], by: Identity = host) -> dict[bytes, tuple[int, str]]:
        return speakers(open_envelope(seal(by, "table", {"seats": seats, "seats_total": 4, "hellos": hellos})),
                        salt, host.public.sign_key)

    honest = told([seat(host, "host"), seat(ann, "ann")], [said_hello(ann, "ann")])
    assert honest == {host.public.sign_key: (0, "host"), ann.public.sign_key: (1, "ann")}
    false = told([seat(host, "host"), seat(ann, "dave"), seat(puppet, "ann")],
                 [said_hello(ann, "ann"), b"not a hello"])
    assert false == {host.public.sign_key: (0, "host")}  # neither name is the key's own
    elsewhere = told([seat(host, "host"), seat(ann, "ann")], [said_hello(ann, "ann", other_salt)])
    assert ann.public.sign_key not in elsewhere  # a hello said to another table
    assert told([seat(host, "host"), seat(ann, "ann")], [said_hello(ann, "ann")], by=puppet) == {}  # not our host's table


def test_a_line_padded_with_spaces_cannot_wrap_into_a_row_that_reads_as_anothers():
    """"hi", 120 spaces, "<ann> I am the saboteur" wrapped so that a row of its own began with
    ann's name (an attack, in the game's chat as in the lobby's): runs of spaces are one now."""
    from saboteur_p2p.client.agent import ClientAgent

    agent = ClientAgent()
    agent.chat(1, "mal", "hi" + " " * 120 + "<ann> I am the saboteur")
    assert agent.log_lines()[-1].text == "<mal> hi <ann> I am the saboteur"


def test_a_lobby_line_that_reaches_a_game_is_dropped_without_a_word(tmp_path):
    """A line said in the lobby just before the start reached the game's session, which said
    it dropped a message in that seat's name on a connection that proved no key: an honest
    player's last lobby line read as an attack."""
    from net_doubles import session_for_tests

    session, identities, said = session_for_tests(tmp_path)
    line = seal(identities[2], LOBBY_CHAT, {"table": b"s" * 16, "n": 1, "text": "good luck"})
    for key in (None, identities[2].public.dh_key):  # on any connection
        assert session._handle(b"a connection", line, key) is None
    assert said == []
