"""A host that starts one table's seats on two games is caught and named (protocol.md §4.9).

Before, a host could send some joiners a ``start`` built with one nonce of its own and the
others one built with another, each of which passed every check, and play both games: each
group waited for the other's records in vain and named an honest seat of the other group as
gone.  Now every ``hello`` in a ``start`` is signed for the table's salt, the genesis names
that salt, and two seats that hear each other sign for two games show each other their
geneses: two geneses the host signed for one table convict it, in every seat's ending and in
``verify``.
"""
from __future__ import annotations

import dataclasses
import queue
import secrets
import threading
import time
from pathlib import Path

import pytest
from session_doubles import SentLog, signed_start
from test_network import Processes, free_port, game_logs, join_args

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import GENESIS, make_entry
from saboteur_p2p.net.agents import BotAgent
from saboteur_p2p.net.lobby import LOBBY_VERSION, LobbyError, hello, join_lobby, joint_game_id
from saboteur_p2p.net.session import Session
from saboteur_p2p.net.table import SeatInfo, Table
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.net.verdicts import Outcome
from saboteur_p2p.net.wire import BadEnvelope, open_envelope, seal
from saboteur_p2p.protocol.ending import Ending, judge
from saboteur_p2p.protocol.node import Node
from saboteur_p2p.protocol.split import SPLIT_REASON, SplitTableProof, split_table
from saboteur_p2p.protocol.verify import verify_file
from saboteur_p2p.rules import GameConfig

SALT = bytes(range(16))


def seat_infos(identities: list[Identity]) -> list[SeatInfo]:
    return [SeatInfo(f"s{n}", i.public.sign_key, i.public.dh_key, f"tcp://127.0.0.1:{n + 1}")
            for n, i in enumerate(identities)]


#: the joiners' table endpoints, as their hellos name them
LISTENS = ("tcp://127.0.0.1:12", "tcp://127.0.0.1:13")


def split_tables(identities: list[Identity], salt_b: bytes = SALT) -> tuple[Table, Table]:
    """The two starts of a split: the same seats and joiners' hellos, two nonces of the host."""
    seats = seat_infos(identities)
    joiners = (bytes([1]) * 32, bytes([2]) * 32)
    table_a = signed_start(identities, seats, (bytes([10]) * 32, *joiners), GameConfig(3), SALT, LISTENS)
    table_b = signed_start(identities, seats, (bytes([11]) * 32, *joiners), GameConfig(3), salt_b, LISTENS)
    return table_a, table_b


def genesis_of(host: Identity, table: Table) -> bytes:
    setup = table.setup()
    return make_entry(host, setup.game_id, 0, 0, GENESIS, "genesis", setup.genesis().encode()).record


def proof_bytes(host: Identity, a: Table, b: Table) -> bytes:
    from saboteur_p2p.crypto.log import decode_record

    return SplitTableProof(decode_record(genesis_of(host, a)), decode_record(genesis_of(host, b))).to_bytes()


# -- the proof ---------------------------------------------------------------------------


def test_two_geneses_the_host_signed_for_one_table_prove_the_split_in_either_game() -> None:
    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities)
    assert table_a.game_id != table_b.game_id and table_a.setup().genesis().table == SALT
    evidence = proof_bytes(identities[0], table_a, table_b)
    for table in (table_a, table_b):
        violation = split_table(evidence, table.setup())
        assert violation is not None and violation.peer == 0 and violation.reason == SPLIT_REASON


def test_a_host_that_gives_itself_another_link_key_in_the_second_game_is_named_all_the_same() -> None:
    """The signature binds the host, not its link key (a review found the proof refused when
    seat 0's link key differed between the two games)."""
    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities)
    seats_b = (dataclasses.replace(table_b.seats[0], dh_key=Identity.generate().public.dh_key), *table_b.seats[1:])
    table_b = dataclasses.replace(table_b, seats=seats_b)
    evidence = proof_bytes(identities[0], table_a, table_b)
    assert split_table(evidence, table_a.setup()) is not None and split_table(evidence, table_b.setup()) is not None


@pytest.mark.parametrize("case", ["another table", "one game", "signed by a joiner", "a third game", "no lobby",
                                  "not a genesis", "garbage", "an equivocation proof's tag"])
def test_what_does_not_prove_a_split_names_nobody(case: str) -> None:
    """An earlier game at another table, the same game twice, a record the host did not sign,
    a game the proof is not about, a game dealt without a lobby: none of them is a split."""
    from saboteur_p2p.crypto.log import decode_record

    identities = [Identity.generate() for _ in range(3)]
    host = identities[0]
    table_a, table_b = split_tables(identities, salt_b=bytes(16) if case == "another table" else SALT)
    judged = table_a.setup()
    first, second = genesis_of(host, table_a), genesis_of(host, table_b)
    if case == "one game":
        second = make_entry(host, table_a.game_id, 0, 0, GENESIS, "genesis",
                            dict(table_a.setup().genesis().encode(), names=["s0", "s1", "other"])).record
    elif case == "signed by a joiner":
        setup = table_b.setup()
        second = make_entry(identities[1], setup.game_id, 0, 0, GENESIS, "genesis", setup.genesis().encode()).record
    elif case == "a third game":
        judged = dataclasses.replace(table_a, game_id=bytes(32)).setup()
    elif case == "no lobby":
        judged = dataclasses.replace(table_a, table=b"").setup()
    elif case == "not a genesis":
        second = make_entry(host, table_b.game_id, 0, 1, GENESIS, "genesis", table_b.setup().genesis().encode()).record
    evidence = SplitTableProof(decode_record(first), decode_record(second)).to_bytes()
    if case == "garbage":
        evidence = b"\x93\xabsplit-table\xa1x\xa1y"
    elif case == "an equivocation proof's tag":
        evidence = evidence.replace(b"split-table", b"equivocatio", 1)
    assert split_table(evidence, judged) is None


def test_a_genesis_names_its_table_and_a_peer_refuses_one_that_names_another() -> None:
    from saboteur_p2p.protocol.errors import ProtocolViolation

    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities, salt_b=bytes(16))
    node = Node(table_a.setup(), 1, identities[1])
    # table B's setup, but game A's id: only the salt differs from what seat 1 agreed on
    forged = make_entry(identities[0], table_a.game_id, 0, 0, GENESIS, "genesis", table_b.setup().genesis().encode())
    with pytest.raises(ProtocolViolation) as caught:
        node.receive(forged.record)
    assert caught.value.reason == "bad-genesis" and caught.value.peer == 0


# -- the seats that catch it -----------------------------------------------------------


def seated(tmp_path: Path, identities: list[Identity], table: Table, seat: int) -> tuple[Session, list[str]]:
    """A seat's session at ``table``, its genesis taken in."""
    said: list[str] = []
    folder = tmp_path / f"{table.game_id.hex()[:8]}-{seat}"
    folder.mkdir(parents=True)
    session = Session(table, identities[seat], SentLog(), None, folder, said.append)  # type: ignore[arg-type]
    session.log_path = folder / "seat.log"
    assert session._take_record(genesis_of(identities[0], table), 0) is None
    assert session.node.records
    return session, said


def test_a_seat_heard_signing_for_another_game_is_shown_our_genesis(tmp_path: Path) -> None:
    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities)
    session, said = seated(tmp_path, identities, table_a, 1)
    ping = seal(identities[2], "ping", {"game_id": table_b.game_id, "seat": 2, "to": 1})
    for _ in range(3):  # at most one showing in SHOW_GENESIS_EVERY
        assert session._handle(b"seat 2's link", ping, identities[2].public.dh_key) is None
    shown = [open_envelope(data) for endpoint, data in session.transport.sent if endpoint == "tcp://127.0.0.1:3"]
    assert [env.kind for env in shown] == ["split"]
    assert shown[0].body["genesis"] == session.node.records[0] and shown[0].body["game_id"] == table_a.game_id
    assert sum("another game" in line for line in said) == 1


def test_a_seat_shown_the_other_games_genesis_names_the_host_and_tells_every_seat(tmp_path: Path) -> None:
    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities)
    session, _ = seated(tmp_path, identities, table_a, 1)
    shown = seal(identities[2], "split", {"game_id": table_b.game_id, "genesis": genesis_of(identities[0], table_b)})
    result = session._handle(b"seat 2's link", shown, identities[2].public.dh_key)
    assert result is not None and result.outcome is Outcome.CHEATER and result.culprit == 0
    assert "s0 (seat 0) broke the protocol: split-table" in result.message
    aborts = [(endpoint, open_envelope(data)) for endpoint, data in session.transport.sent
              if open_envelope(data).kind == "abort"]
    assert {endpoint for endpoint, _ in aborts} == {"tcp://127.0.0.1:1", "tcp://127.0.0.1:3"}
    abort = aborts[0][1]
    assert abort.body["culprit"] == 0 and abort.body["reason"] == SPLIT_REASON
    assert split_table(abort.body["evidence"], table_a.setup()) is not None

    # seat 2 of game A (the host seated it in game A too) takes the abort and checks the proof
    other, _ = seated(tmp_path, identities, table_a, 2)
    data = dict(abort.body)
    judged = other._handle(b"seat 1's link", seal(identities[1], "abort", data), identities[1].public.dh_key)
    assert judged is not None and judged.outcome is Outcome.CHEATER and judged.culprit == 0

    # and verify believes the verdict the log ends with
    ending = Ending("cheater", 0, SPLIT_REASON, "", abort.body["evidence"], seat=1)
    observer = Node(table_a.setup(), None)
    observer.receive(genesis_of(identities[0], table_a))
    ok, message = judge(ending, observer, tuple(s.name for s in table_a.seats))
    assert ok and "seat 0 (s0) cheated (split-table), evidence checks" in message


def test_a_genesis_of_an_earlier_game_at_another_table_names_nobody(tmp_path: Path) -> None:
    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities, salt_b=bytes(16))
    session, _ = seated(tmp_path, identities, table_a, 1)
    shown = seal(identities[2], "split", {"game_id": table_b.game_id, "genesis": genesis_of(identities[0], table_b)})
    assert session._handle(b"seat 2's link", shown, identities[2].public.dh_key) is None
    assert session.node.aborted is None and not session.transport.sent
    junk = seal(identities[2], "split", {"game_id": table_b.game_id, "genesis": b"not a record"})
    assert session._handle(b"seat 2's link", junk, identities[2].public.dh_key) is None  # dropped, reported


def test_an_abort_for_a_split_whose_proof_fails_blames_the_seat_that_stopped(tmp_path: Path) -> None:
    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities, salt_b=bytes(16))
    session, _ = seated(tmp_path, identities, table_a, 2)
    abort = seal(identities[1], "abort", {"game_id": table_a.game_id, "culprit": 0, "reason": SPLIT_REASON,
                                          "detail": "", "evidence": proof_bytes(identities[0], table_a, table_b),
                                          "chain": []})
    result = session._handle(b"seat 1's link", abort, identities[1].public.dh_key)
    assert result is not None and result.outcome is Outcome.QUIT and result.culprit == 1


# -- the start a joiner takes ------------------------------------------------------------


@pytest.mark.parametrize("forged, refused", [
    ("another table", "seat 2 \\(s2\\) said hello to another table"),
    ("another host", "seat 2 \\(s2\\) said hello to another table"),
    ("start names another", "seat 1 \\(s1\\) said hello to another table"),
    ("one short", "one hello per joiner"),
    ("not its seat", "seat 1 \\(s1\\) is not as its own hello says"),
    ("another nonce", "seat 2 \\(s2\\) is not as its own hello says"),
    ("not signed", "the hello of seat 2 \\(s2\\) is not one"),
])
def test_a_start_that_seats_someone_who_did_not_say_hello_to_this_table_is_refused(forged: str, refused: str) -> None:
    identities = [Identity.generate() for _ in range(3)]
    seats = seat_infos(identities)
    nonces = (bytes(32), bytes([1]) * 32, bytes([2]) * 32)
    honest = signed_start(identities, seats, nonces, GameConfig(3))
    honest.check_hellos()
    hellos = list(honest.hellos)
    table = SALT
    host = identities[0].public.sign_key
    if forged == "another table":
        hellos[1] = hello(identities[2], "s2", seats[2].endpoint, b"", None, nonces[2], bytes(16), host)
    elif forged == "another host":  # a table with this salt, asked for by another key of the host's
        hellos[1] = hello(identities[2], "s2", seats[2].endpoint, b"", None, nonces[2], SALT, bytes(32))
    elif forged == "start names another":
        table = bytes(16)
    elif forged == "one short":
        hellos = hellos[:1]
    elif forged == "not its seat":
        hellos = hellos[::-1]
    elif forged == "another nonce":
        hellos[1] = hello(identities[2], "s2", seats[2].endpoint, b"", None, bytes([7]) * 32, SALT, host)
    else:
        hellos[1] = hellos[1][:-64] + bytes(64)
    proofs = list(honest.link_proofs)
    if forged in ("another table", "another host"):  # the rest as the seat's own: only the binding differs
        proofs[2] = open_envelope(hellos[1]).body["dh_proof"]
    data = dict(honest.to_data(), hellos=hellos, table=table, link_proofs=proofs)
    with pytest.raises(BadEnvelope, match=refused):
        Table.from_envelope(open_envelope(seal(identities[0], "start", data))).check_hellos()


def fake_table(port_holder: queue.Queue[int], answer: str) -> tuple[threading.Thread, Identity]:
    """A table that challenges one joiner and answers with a start built as ``answer`` says:
    ``honest``; ``split`` (another seat said hello to another table of this host); ``seat 0``
    (the joiner at seat 0: as host, it would sign a genesis naming this table's salt, which
    may be another table's, and be framed); ``signer`` (the start signed by another key than
    the one that asked for the hello)."""
    host, other = Identity.generate(), Identity.generate()

    def main() -> None:
        transport = Transport("127.0.0.1:0", link_keys=host.link_keys())
        port_holder.put(int(transport.endpoint.rsplit(":", 1)[1]))
        salt = secrets.token_bytes(16)
        try:
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline:
                for inbound in transport.poll(0.1):
                    env = open_envelope(inbound.data)
                    if env.kind != "hello":
                        continue
                    if env.body["table"] != salt:
                        transport.reply(inbound.connection, seal(host, "challenge", {"salt": salt}))
                        continue
                    me = SeatInfo(env.body["name"], env.key, env.body["dh_key"], env.body["endpoint"])
                    seats = [SeatInfo("host", host.public.sign_key, host.public.dh_key, transport.link_endpoint), me,
                             SeatInfo("other", other.public.sign_key, other.public.dh_key, "tcp://127.0.0.1:7")]
                    nonces = [bytes(32), env.body["nonce"], bytes([3]) * 32]
                    # the other seat said hello to another table of this host (another salt)
                    elsewhere = hello(other, "other", "tcp://127.0.0.1:7", b"", None, nonces[2],
                                      secrets.token_bytes(16) if answer == "split" else salt, host.public.sign_key)
                    hellos = (inbound.data, elsewhere)
                    proofs = [host.prove_link_key(nonces[0]), env.body["dh_proof"], open_envelope(elsewhere).body["dh_proof"]]
                    if answer == "seat 0":
                        for column in (seats, nonces, proofs):
                            column[0], column[1] = column[1], column[0]
                    start = Table(joint_game_id(tuple(nonces)), GameConfig(3), tuple(seats), tuple(nonces), tuple(proofs),
                                  salt, hellos)
                    signer = other if answer == "signer" else host
                    transport.reply(inbound.connection, seal(signer, "start", start.to_data()))
                    time.sleep(1)
                    return
        finally:
            transport.close()

    thread = threading.Thread(target=main, daemon=True)
    thread.start()
    return thread, host


@pytest.mark.parametrize("answer", ["honest", "split", "seat 0", "signer"])
def test_a_joiner_refuses_a_start_that_seats_a_joiner_of_another_table(answer: str) -> None:
    ports: queue.Queue[int] = queue.Queue()
    thread, _ = fake_table(ports, answer)
    joiner = Identity.generate()
    transport = Transport("127.0.0.1:0", link_keys=joiner.link_keys())
    try:
        address = f"127.0.0.1:{ports.get(timeout=10)}"
        if answer == "honest":
            table = join_lobby(joiner, "me", transport, address, None, lambda text: None, timeout=10)
            assert table.table and len(table.hellos) == 2
        else:
            refused = ("seat 2 \\(other\\) said hello to another table" if answer == "split" else
                       "not the start of the table we said hello to, with its host at seat 0 and us at another")
            with pytest.raises(LobbyError, match=f"start is false: .*{refused}"):
                join_lobby(joiner, "me", transport, address, None, lambda text: None, timeout=10)
    finally:
        transport.close()
        thread.join(timeout=20)


# -- the attack, end to end ------------------------------------------------------------


@pytest.mark.parametrize("left_out", [False, True])
@pytest.mark.slow
def test_a_host_that_splits_its_table_between_two_games_is_named_by_every_joiner(tmp_path: Path, left_out: bool) -> None:
    """Joiner processes at a table whose host (here, in this process, showing nobody its
    geneses) sends them the starts of two games and plays both.  Two joiners, each game
    seating both; or three, the first alone in a game that seats all three and the others in
    one that leaves it out (its link endpoint refuses the others' keys, so they meet at their
    table endpoints).  Before, each joiner waited for the others' records and named one as
    gone; now each names the host, and ``verify`` of each joiner's log bears it out."""
    names = ("ann", "bob", "cy") if left_out else ("ann", "bob")
    port = free_port()
    host = Identity.generate()
    processes = Processes(tmp_path)
    games: dict[str, queue.Queue[Table]] = {"a": queue.Queue(), "b": queue.Queue()}
    endpoints: queue.Queue[str] = queue.Queue()
    results: dict[str, object] = {}

    def host_game(name: str, transport: Transport | None) -> None:
        own = transport or Transport("127.0.0.1:0", link_keys=host.link_keys())
        try:
            if transport is None:
                endpoints.put(own.link_endpoint)
            table = games[name].get(timeout=60)
            folder = tmp_path / f"host-{name}"
            folder.mkdir()
            session = Session(table, host, own, BotAgent("random", seed=1), folder, lambda text: None, 40.0)
            session._heard_another_game = lambda *args: None  # type: ignore[method-assign]  # (it hides)
            results[name] = session.run()
        except BaseException as exc:  # reported by the test
            results[name] = exc
        finally:
            own.close()

    second = threading.Thread(target=host_game, args=("b", None), daemon=True)
    second.start()
    lobby = Transport(f"127.0.0.1:{port}", link_keys=host.link_keys())
    first = threading.Thread(target=host_game, args=("a", lobby), daemon=True)
    try:
        for name in names:
            processes.start(name, join_args(port, name, wait=40))
        salt = secrets.token_bytes(16)
        joined: list[tuple[bytes, bytes]] = []  # (connection, hello as signed)
        deadline = time.monotonic() + 60
        while len(joined) < len(names):
            assert time.monotonic() < deadline, "the joiners did not say hello"
            for inbound in lobby.poll(0.1):
                env = open_envelope(inbound.data)
                if env.kind != "hello" or env.body["version"] != LOBBY_VERSION:
                    continue
                if env.body["table"] != salt:
                    lobby.reply(inbound.connection, seal(host, "challenge", {"salt": salt}))
                    continue
                joined.append((inbound.connection, inbound.data))
                lobby.reply(inbound.connection, seal(host, "welcome", {"seat": len(joined), "seats_total": len(names) + 1,
                                                                       "config": GameConfig(len(names) + 1).to_data()}))
        said = [open_envelope(data) for _, data in joined]
        joiners = [SeatInfo(e.body["name"], e.key, e.body["dh_key"], e.body["endpoint"]) for e in said]
        endpoint_b = endpoints.get(timeout=30)
        tables = {}
        seated = {"a": range(len(names)), "b": range(1 if left_out else 0, len(names))}
        for name, endpoint in (("a", lobby.link_endpoint), ("b", endpoint_b)):
            nonces = (secrets.token_bytes(32), *(said[k].body["nonce"] for k in seated[name]))
            proofs = (host.prove_link_key(nonces[0]), *(said[k].body["dh_proof"] for k in seated[name]))
            seats = (SeatInfo("host", host.public.sign_key, host.public.dh_key, endpoint), *(joiners[k] for k in seated[name]))
            tables[name] = Table(joint_game_id(nonces), GameConfig(len(seats)), seats, nonces, proofs, salt,
                                 tuple(joined[k][1] for k in seated[name]))
        given = ("a", "b", "b") if left_out else ("a", "b")
        for (connection, _), name in zip(joined, given, strict=True):
            lobby.reply(connection, seal(host, "start", tables[name].to_data()))
        lobby.poll(0.2)  # the starts go out before the session takes the lobby's transport over
        games["a"].put(tables["a"])
        games["b"].put(tables["b"])
        first.start()
        for peer in processes.started:
            assert peer.wait(timeout=60) is not None
        for peer in processes.started:
            text = peer.text()
            assert "host (seat 0) broke the protocol: split-table" in text, (text, results)
        for name in names:
            logs = game_logs(tmp_path / name)
            assert len(logs) == 1, logs
            verdict = verify_file(str(logs[0]))
            assert "seat 0 (host) cheated (split-table), evidence checks" in verdict.message, verdict
    finally:
        processes.kill_all()
        first.join(timeout=30) if first.is_alive() else None
        second.join(timeout=30)


def test_a_seat_whose_link_endpoint_refuses_us_is_not_simply_named_as_gone(tmp_path: Path) -> None:
    """A host that leaves a seat out of one of the two games (start A seats J1 and J2, start
    B only J2) is not caught: J2's link endpoint refuses J1's key, so the two never exchange
    their geneses (protocol.md §11).  J1's ending says what the refusal means."""
    identities = [Identity.generate() for _ in range(3)]
    table_a, _ = split_tables(identities)
    session, _ = seated(tmp_path, identities, table_a, 1)
    session.transport.refusals["tcp://127.0.0.1:3"] = "the peer refused the link: key not admitted"  # type: ignore[attr-defined]
    result = session._end_gone(2, "s2 (seat 2) did not come back within 120 s")
    assert result.outcome is Outcome.PEER_GONE and result.culprit == 2
    assert "s2 (seat 2)'s link endpoint refused our link (the peer refused the link: key not admitted)" in result.message
    assert "plays a game we are not seated at" in result.message and "not to blame" in result.message
    quiet, _ = seated(tmp_path / "quiet", identities, table_a, 1)
    ended = quiet._end_gone(2, "s2 (seat 2) did not come back").message
    assert ended.startswith("s2 (seat 2) did not come back; the game ends\n")
    assert session.reason == "link-refused"  # kept in the log's verdict


@pytest.mark.parametrize("reason, note", [("link-refused", "refused its link (it admits only the seats of its own game)"),
                                          ("other-game", "signed its messages for another game"), ("", None)])
def test_verify_reports_what_the_logs_seat_saw_of_a_seat_gone_as_its_word(reason: str, note: str | None) -> None:
    """``verify`` named the seat of the other game as gone and nothing more; it now adds what
    the log's seat saw of it (unchecked: the verdict is not signed)."""
    identities = [Identity.generate() for _ in range(3)]
    table_a, _ = split_tables(identities)
    observer = Node(table_a.setup(), None)
    observer.receive(genesis_of(identities[0], table_a))  # the log waits for seat 0's key record
    holds, said = judge(Ending("peer-gone", 0, reason, "", None, seat=2), observer, ("s0", "s1", "s2"))
    assert holds and said.startswith("stopped: the log says seat 0 (s0) went silent; the next record was due from it")
    if note is None:
        assert "log's seat says" not in said
    else:
        assert f"(but the log's seat says it {note}: " in said and "verify cannot check this)" in said


def test_a_seat_whose_link_refuses_ours_is_shown_our_genesis_at_its_table_endpoint(tmp_path: Path) -> None:
    """A host that leaves a seat out of one game: that seat's link endpoint admits only its own
    game's seats, so we show it our genesis at the table endpoint its hello named."""
    identities = [Identity.generate() for _ in range(3)]
    table_a, _ = split_tables(identities)
    session, _ = seated(tmp_path, identities, table_a, 1)
    session.transport.refusals["tcp://127.0.0.1:3"] = "the peer refused the link: not a seat of this table"  # type: ignore[attr-defined]
    for _ in range(3):  # every SHOW_GENESIS_EVERY at most
        session._check_away(time.monotonic())
    shown = [(endpoint, open_envelope(data)) for endpoint, data in session.transport.sent if endpoint == LISTENS[1]]
    assert session.transport.connected == [LISTENS[1]]  # type: ignore[attr-defined]
    assert [env.kind for _, env in shown] == ["split"] and shown[0][1].body["genesis"] == session.node.records[0]


def test_a_genesis_shown_by_a_seat_left_out_of_our_game_names_the_host_and_is_answered(tmp_path: Path) -> None:
    """The seat left out is no seat of ours: its split is taken all the same (it proves itself)
    and answered on its connection, so it can name the host too.  A stranger's signatures are
    checked once a second at most on one connection, and only when the rest would prove a
    split: junk on one connection (a review starved the check so) delays no other."""
    identities = [Identity.generate() for _ in range(3)]
    table_a, table_b = split_tables(identities)
    session, _ = seated(tmp_path, identities, table_b, 2)  # seated in game B
    stranger = Identity.generate()  # (in the real split, a seat of game A only)

    def shown(genesis: bytes) -> bytes:
        return seal(stranger, "split", {"game_id": table_a.game_id, "genesis": genesis})

    another_table = genesis_of(identities[0], split_tables(identities, salt_b=bytes(16))[1])
    setup = table_a.setup()
    forged = make_entry(stranger, setup.game_id, 0, 0, GENESIS, "genesis", setup.genesis().encode()).record
    real = genesis_of(identities[0], table_a)
    assert session._handle(b"junk", shown(another_table)) is None  # not a split even unsigned: costs nothing
    assert session._handle(b"junk", shown(forged)) is None  # all but the host's signature: checked, fails
    assert session._handle(b"junk", shown(real)) is None  # the same connection within a second: not checked
    result = session._handle(b"the seat left out", shown(real))
    assert result is not None and result.outcome is Outcome.CHEATER and result.culprit == 0
    answers = [open_envelope(data) for where, data in session.transport.sent if where == b"the seat left out"]
    assert [env.kind for env in answers] == ["split"] and answers[0].body["genesis"] == session.node.records[0]


def test_a_running_games_start_with_junk_hellos_does_not_stop_a_seat_taken_back(tmp_path: Path) -> None:
    """A running game's start (given to a seat's owner taking it back) is not checked hello by
    hello (§12.2): junk there made the session raise as it began, and a hello signed by anyone
    named the table endpoint we dialled (found by review).  Only a seat's own hello counts."""
    identities = [Identity.generate() for _ in range(3)]
    table_a, _ = split_tables(identities)
    elsewhere = hello(Identity.generate(), "s2", "tcp://127.0.0.1:3", b"", None, bytes(32), SALT, b"", "tcp://127.0.0.1:99")
    host = identities[0].public.sign_key
    earlier = hello(identities[2], "s2", "tcp://127.0.0.1:3", b"", None, bytes(32), bytes(16), host, "tcp://127.0.0.1:98")
    for case, hellos in enumerate(((b"junk", table_a.hellos[1]), (table_a.hellos[0], elsewhere), (table_a.hellos[0], earlier))):
        session, _ = seated(tmp_path / str(case), identities, dataclasses.replace(table_a, hellos=hellos), 0)
        assert set(session._listens.values()) <= set(LISTENS) and len(session._listens) == 1
