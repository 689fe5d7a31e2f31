"""A misbehaving peer for the end-to-end network tests.

The double is an honest seat (a random bot driving a real ``Session``) that, at chosen
moments, also sends one class of bad input to every other seat: garbage bytes, oversized
messages, malformed envelopes and bodies, bad signatures, an illegal action or an action
out of turn.  It runs in a thread of the test process, with its own ``Identity`` and its
own ``Transport`` (created inside the thread: ZeroMQ sockets belong to one thread), and
takes its seat through ``join_lobby`` like any other joiner.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from session_doubles import SentLog

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import MAX_RECORD_SIZE, decode_record, make_entry
from saboteur_p2p.net.agents import BotAgent
from saboteur_p2p.net.lobby import SeatInfo, Table, join_lobby
from saboteur_p2p.net.session import Session, SessionResult
from saboteur_p2p.net.transport import Inbound, Transport
from saboteur_p2p.net.wire import MAX_WIRE_MESSAGE, WIRE_TAG, open_envelope, seal
from saboteur_p2p.rules import GameConfig


class DoubleStopped(Exception):
    """The test ran out of patience with the double."""


@dataclass(frozen=True)
class Stage:
    """One bad thing to do, once, as soon as ``ready`` holds (checked before each honest step)."""

    ready: Callable[[DoubleSession], bool]
    act: Callable[[DoubleSession], None]
    #: until ``ready`` holds, the double makes no record (it thinks over its move, say)
    holds: bool = False


@dataclass(frozen=True)
class Trick:
    stages: tuple[Stage, ...]
    #: A cheat: after its last stage the double says nothing more (the others must stop it).
    cheats: bool = False


class DoubleSession(Session):
    """A session that plays its stages in order and is otherwise honest (unless it cheats)."""

    def __init__(self, *args: Any, trick: Trick, stop: threading.Event, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.trick = trick
        self.stop = stop
        self.stages_done = 0
        #: the log heads at which this seat had to choose a move: one per move
        self.move_heads: set[bytes] = set()
        # a stage may be due in the middle of Session._speak's loop (a record owed as soon as
        # our own previous one is in): the node's produce looks first
        self._honest_produce = self.node.produce
        self._acting = False
        self.node.produce = self._produce  # type: ignore[method-assign]

    def _speak(self) -> SessionResult | None:
        if self.stop.is_set():
            raise DoubleStopped("stopped by the test")
        if self.node.awaiting_move():
            self.move_heads.add(self.node.log.head)
        if self._play_stage() or self._done_cheating() or self._holding():
            return None
        return super()._speak()

    def _produce(self) -> bytes | None:
        if self._acting:
            return self._honest_produce()
        if self._play_stage() or self._done_cheating() or self._holding():
            return None
        return self._honest_produce()

    def _play_stage(self) -> bool:
        stages = self.trick.stages
        if self.stages_done < len(stages) and stages[self.stages_done].ready(self):
            self._acting = True
            try:
                stages[self.stages_done].act(self)
            finally:
                self._acting = False
            self.stages_done += 1
            return True
        return False

    def _holding(self) -> bool:
        stages = self.trick.stages
        return self.stages_done < len(stages) and stages[self.stages_done].holds

    def _done_cheating(self) -> bool:
        return self.trick.cheats and self.stages_done == len(self.trick.stages)


# -- when --------------------------------------------------------------------------------


def own_move(number: int) -> Callable[[DoubleSession], bool]:
    """Ready when the double must choose its ``number``-th move (1 = its first)."""
    return lambda session: session.node.awaiting_move() and len(session.move_heads) >= number


def seat_to_move(seat_name: str) -> Callable[[DoubleSession], bool]:
    """Ready when the whole table waits for the move of the seat called ``seat_name``."""
    def ready(session: DoubleSession) -> bool:
        head = session.node.next_expected
        return head is not None and head.kind == "action" and session.names[head.speaker] == seat_name
    return ready


def own_protocol_record(session: DoubleSession) -> bool:
    """Ready when, once the double has moved, it is due to make a record that is not a move."""
    head = session.node.next_expected
    return bool(session.move_heads) and head is not None and head.speaker == session.seat and head.kind != "action"


def other_protocol_record(session: DoubleSession) -> bool:
    """Ready when, once the double has moved, the table waits for another seat's protocol record."""
    head = session.node.next_expected
    return bool(session.move_heads) and head is not None and head.speaker != session.seat and head.kind != "action"


# -- what --------------------------------------------------------------------------------


def to_everyone(session: Session, *messages: bytes) -> None:
    for endpoint in session.endpoints.values():
        for data in messages:
            session.transport.send(endpoint, data)


def next_record(session: Session, body: dict[str, object], kind: str = "action", sender: int | None = None,
                game_id: bytes | None = None, identity: Identity | None = None) -> bytes:
    """A record chained to the double's head with the next sequence number of ``sender``."""
    node = session.node
    sender = session.seat if sender is None else sender
    seq = node.log.next_seq(sender)
    entry = make_entry(identity or session.identity, game_id or session.setup.game_id, sender, seq, node.log.head, kind, body)
    return entry.record


def as_record(session: Session, record: bytes) -> bytes:
    return seal(session.identity, "record", {"record": record})


def a_legal_move(session: Session) -> str:
    state = session.node.state
    assert state is not None
    return str(state.legal_actions()[0])


def send_garbage(session: Session) -> None:
    to_everyone(session, b"\xc1\xc1 this is not msgpack \xff", b"")


def send_record_too_large(session: Session) -> None:
    """A well-formed envelope whose record is over the record size limit."""
    to_everyone(session, as_record(session, bytes(MAX_RECORD_SIZE + 1)))


def send_message_too_large(session: Session) -> None:
    """More bytes than a ZeroMQ message may hold: the receiver drops the connection."""
    to_everyone(session, bytes(MAX_WIRE_MESSAGE + 1))


def send_malformed(session: Session) -> None:
    identity = session.identity
    status = {"game_id": session.setup.game_id, "seat": session.seat}
    unknown_kind = msgpack.packb(
        ["gossip", {}, identity.public.sign_key, identity.sign(msgpack.packb([WIRE_TAG, "gossip", {}], use_bin_type=True))],
        use_bin_type=True,
    )
    to_everyone(
        session,
        msgpack.packb(["record", {"record": b""}, identity.public.sign_key], use_bin_type=True),  # three fields, not four
        unknown_kind,
        seal(identity, "record", {"record": b"not a record"}),
        seal(identity, "record", {"record": 42}),
        # shares sent ahead (§12.6) that are malformed, or opened shares (never sent ahead):
        # ignored, nobody blamed
        seal(identity, "ahead", {**status, "shares": {"public": "x", "sealed": []}}),
        seal(identity, "ahead", {**status, "shares": {"public": [], "sealed": [],
                                                      "opened": [[[0, "roles", 0], 0, *[bytes(32)] * 4]]}}),
    )
    for seat, endpoint in session.endpoints.items():  # a ping names its recipient
        bad = {**status, "to": seat, "records": "many", "away": []}
        session.transport.send(endpoint, seal(identity, "ping", bad))


def send_bad_signatures(session: Session) -> None:
    """Broken signatures on an envelope in another seat's name (the double's own envelopes on
    its link are vouched for by the link, protocol.md §12.1), on the double's own record, and
    on records in another seat's name."""
    status = {"game_id": session.setup.game_id, "seat": session.seat, "records": len(session.node.records), "away": []}
    other = next(s for s in range(len(session.names)) if s != session.seat)
    kind, body, _, signature = msgpack.unpackb(seal(session.identity, "ping", status))
    broken_ping = msgpack.packb([kind, body, session.table.seats[other].sign_key, signature], use_bin_type=True)
    own = msgpack.unpackb(next_record(session, {"action": a_legal_move(session)}))
    own_broken = msgpack.packb([own[0], own[1][:-1] + bytes([own[1][-1] ^ 1])], use_bin_type=True)
    in_other_name = next_record(session, {"action": "pass 0"}, sender=other)  # signed with the double's key
    other_game = next_record(session, {"action": "pass 0"}, sender=other, game_id=bytes(32))
    to_everyone(
        session,
        broken_ping,
        as_record(session, own_broken),
        as_record(session, in_other_name),
        as_record(session, other_game),
    )


def _gone(session: Session, absent: int, why: str = "did not come back within 1 s") -> bytes:
    """A `gone` signed by ``session``'s seat, saying ``absent`` ``why``."""
    why = f"{session.names[absent]} (seat {absent}) {why}"
    return seal(session.identity, "gone", {"game_id": session.setup.game_id, "seat": session.seat, "absent": absent, "why": why})


def send_false_gone(session: Session) -> None:
    """Claim that the seat whose protocol record is due withholds it, the moment it is due."""
    head = session.node.next_expected
    assert head is not None
    to_everyone(session, _gone(session, head.speaker, f"sent no {head.kind} record within 1 s"))


def send_illegal_action(session: Session) -> None:
    to_everyone(session, as_record(session, next_record(session, {"action": "path 0 at 40,40"})))


def send_out_of_turn(session: Session) -> None:
    view = session.node.state.view_for(session.seat)  # type: ignore[union-attr]
    handle = view.hand[0][0]
    to_everyone(session, as_record(session, next_record(session, {"action": f"pass {handle}"})))


def send_two_versions(session: Session) -> None:
    """Equivocate: one version of our move to one seat, another to the other (the same seq and prev)."""
    state = session.node.state
    assert state is not None
    texts = [str(a) for a in state.legal_actions()[:2]]
    (first, second), seats = texts, sorted(session.endpoints)
    session.transport.send(session.endpoints[seats[0]], as_record(session, next_record(session, {"action": first})))
    session.transport.send(session.endpoints[seats[1]], as_record(session, next_record(session, {"action": second})))


def owes(kind: str) -> Callable[[DoubleSession], bool]:
    """Ready when the double owes a record of ``kind`` (its first: of the first shuffle)."""
    def ready(session: DoubleSession) -> bool:
        head = session.node.my_expect()
        return head is not None and head.kind == kind
    return ready


def two_versions(session: Session) -> None:
    """Equivocate: our record to one seat, another version of it (same seq and prev) to the
    other: one commitment changed, or another honest shuffle of the same decks (with its own
    valid proof, so that only the two versions together show the cheat)."""
    head = session.node.my_expect()
    assert head is not None
    shuffled_again = session.node._make_shuffle(head) if head.kind == "shuffle" else None
    record = session.node.produce()
    assert record is not None
    entry = decode_record(record)
    if shuffled_again is not None:
        other = shuffled_again
    else:
        first, *rest = entry.body["commitments"]
        other = {"commitments": [bytes([first[0] ^ 1]) + first[1:], *rest]}
    forged = make_entry(session.identity, session.setup.game_id, session.seat, entry.seq, entry.prev, entry.kind, other).record
    seats = sorted(session.endpoints)
    session.transport.send(session.endpoints[seats[0]], as_record(session, record))
    session.transport.send(session.endpoints[seats[1]], as_record(session, forged))


TRICKS: dict[str, Trick] = {
    # every kind of bad input, one kind at each of the double's first moves (a one-round game
    # of three random bots gives each seat many more): garbage twice, an oversized record, then
    # a message over the wire limit (ZeroMQ drops the connection: the peers resend what was lost)
    "bad-input": Trick((
        Stage(own_move(1), send_garbage), Stage(own_move(2), send_record_too_large), Stage(own_move(3), send_malformed),
        Stage(own_move(4), send_bad_signatures), Stage(own_move(5), send_message_too_large), Stage(own_move(6), send_garbage),
    )),
    "illegal-action": Trick((Stage(own_move(1), send_illegal_action),), cheats=True),
    # present (it keeps answering pings) but never makes the share or reveal it owes
    "withhold": Trick((Stage(own_protocol_record, lambda session: None),), cheats=True),
    # says a seat withholds its record the moment the record is due, and leaves
    "false-gone": Trick((Stage(other_protocol_record, send_false_gone),), cheats=True),
    # each other seat gets its own version of the double's move
    "two-versions": Trick((Stage(own_move(1), send_two_versions),), cheats=True),
    # each other seat gets its own version of the double's commitment (a group's record) ...
    "two-commitments": Trick((Stage(owes("commit"), two_versions),), cheats=True),
    # ... or of its shuffle, after which the next shuffler shuffles its version
    "two-shuffles": Trick((Stage(owes("shuffle"), two_versions),), cheats=True),
}


def out_of_turn(victim_name: str) -> Trick:
    """Move while the table waits for ``victim_name``'s move."""
    return Trick((Stage(seat_to_move(victim_name), send_out_of_turn),), cheats=True)


def gone_to_the_accused(victim_name: str) -> Trick:
    """While the table waits for ``victim_name``'s move, tell that seat alone it is gone:
    it stops, and the others must not then take its silence for its absence."""
    def tell(session: Session) -> None:
        victim = session.names.index(victim_name)
        session.transport.send(session.endpoints[victim], _gone(session, victim))
    return Trick((Stage(seat_to_move(victim_name), tell),), cheats=True)


class _Muting:
    """The double stops sending to ``victim_name`` (it still hears it): when, and its honest send."""

    def __init__(self, victim_name: str) -> None:
        self.victim_name = victim_name
        self.at = 0.0
        self.honest_send: Callable[[str, bytes], bool] | None = None

    def start(self, session: Session) -> None:
        victim_endpoint, send = session.endpoints[session.names.index(self.victim_name)], session.transport.send
        session.transport.send = lambda endpoint, data: True if endpoint == victim_endpoint else send(endpoint, data)  # type: ignore[method-assign]
        self.honest_send, self.at = send, time.monotonic()

    def lasted(self, seconds: float) -> Callable[[DoubleSession], bool]:
        """Ready once the muting has lasted ``seconds``."""
        return lambda session: time.monotonic() - self.at > seconds


def muted_then_gone(victim_name: str, seconds: float, unproven: bool = False) -> Trick:
    """While the table waits for ``victim_name``'s move, stop talking to that seat alone, and
    ``seconds`` later tell seat 0 alone that it is gone (seat 0 hears it and passes that on),
    or, ``unproven``, tell the muted seat itself, at its table endpoint, on a connection that
    proves no key (any seat knows that endpoint)."""
    muting = _Muting(victim_name)

    def tell(session: Session) -> None:
        victim = session.names.index(victim_name)
        if not unproven:
            session.transport.send(session.endpoints[0], _gone(session, victim))
            return
        table = session.table.listens()[victim]
        session.transport.connect(table)  # no key: a plain connection, as anyone may open
        assert muting.honest_send is not None
        muting.honest_send(table, _gone(session, victim))
    return Trick((Stage(seat_to_move(victim_name), muting.start), Stage(muting.lasted(seconds), tell)), cheats=True)


def late_after_gone(victim_name: str, busy: bool, busy_seconds: float = 16) -> Trick:
    """Owing a protocol record, withhold it (its pings still say it is there), optionally
    telling ``victim_name`` alone it is busy for ``busy_seconds`` (longer than the waits, so
    that a notice not passed on would leave the victim waiting after the others); ignore the `gone` that names it, and
    send the record half a second after that `gone` came, so that it reaches the victim
    while the victim still waits for it (found by an attack: the victim then named the seat
    that sent the `gone`)."""
    gone_at: list[float] = []

    def withhold(session: Session) -> None:
        if busy:
            victim = session.names.index(victim_name)
            body = {"game_id": session.setup.game_id, "seat": session.seat, "seconds": busy_seconds}
            session.transport.send(session.endpoints[victim], seal(session.identity, "busy", body))

        def heard_gone(*args: Any, **kwargs: Any) -> None:
            gone_at.append(time.monotonic())  # noted, and not heeded
        session._heard_gone = heard_gone  # type: ignore[method-assign]

    def released(session: Session) -> bool:
        return bool(gone_at) and time.monotonic() - gone_at[0] > 0.5
    return Trick((Stage(own_protocol_record, withhold), Stage(released, lambda session: None, holds=True)))


def muted_and_thinking(victim_name: str, seconds: float) -> Trick:
    """At the double's first move, stop talking to ``victim_name`` alone (it still hears that
    seat) and think ``seconds`` over that move, then talk to it again and play on honestly."""
    muting = _Muting(victim_name)

    def unmute(session: Session) -> None:
        session.transport.send = muting.honest_send  # type: ignore[assignment,method-assign]
    return Trick((Stage(own_move(1), muting.start), Stage(muting.lasted(seconds), unmute, holds=True)))


def gone_in_a_pause(victim_name: str, pause: Callable[[], None], resume: Callable[[], None]) -> Trick:
    """At ``victim_name``'s move, ``pause`` it (its machine stalls), tell seat 0 alone 4.5 s
    later that it is gone, and ``resume`` it half a second after that."""
    paused_at: list[float] = []

    def stall(session: Session) -> None:
        pause()
        paused_at.append(time.monotonic())

    def tell(session: Session) -> None:
        session.transport.send(session.endpoints[0], _gone(session, session.names.index(victim_name)))
    return Trick((
        Stage(seat_to_move(victim_name), stall),
        Stage(lambda session: time.monotonic() - paused_at[0] > 4.5, tell),
        Stage(lambda session: time.monotonic() - paused_at[0] > 5.0, lambda session: resume()),
    ), cheats=True)


# -- running it --------------------------------------------------------------------------


@dataclass
class DoubleRun:
    """The double's thread and what it left behind."""

    thread: threading.Thread
    stop: threading.Event
    said: list[str] = field(default_factory=list)
    result: SessionResult | None = None
    error: BaseException | None = None
    seat: int | None = None
    #: how many of the trick's stages the double played
    stages_done: int = 0
    #: the double's session, once it sits (a test may read its state: its wait for a record)
    session: DoubleSession | None = None

    def finish(self, timeout: float) -> None:
        self.thread.join(timeout)
        if self.thread.is_alive():
            self.stop.set()
            self.thread.join(10)


def start_double(address: str, name: str, trick: Trick, log_dir: Path, wait: float = 60.0) -> DoubleRun:
    """Join the table at ``address`` as ``name`` in a new thread and play ``trick`` there."""
    stop = threading.Event()
    run = DoubleRun(threading.Thread(name=f"double-{name}", daemon=True, target=lambda: None), stop)

    def main() -> None:
        identity = Identity.generate()
        transport = Transport("127.0.0.1:0", link_keys=identity.link_keys())
        try:
            table = join_lobby(identity, name, transport, address, None, run.said.append, timeout=30)
            session = DoubleSession(
                table, identity, transport, BotAgent("random", seed=7), log_dir, run.said.append, wait,
                trick=trick, stop=stop,
            )
            run.seat, run.session = session.seat, session
            try:
                run.result = session.run()
            finally:
                run.stages_done = session.stages_done
        except BaseException as exc:  # reported by the test, which owns the thread
            run.error = exc
        finally:
            transport.close()

    run.thread = threading.Thread(name=f"double-{name}", daemon=True, target=main)
    run.thread.start()
    return run


def receive_inbound(transport: Transport, seconds: float, want: int = 1, senders: Sequence[Transport] = ()) -> list[Inbound]:
    """What a transport takes in until ``want`` messages came or ``seconds`` passed, polling
    the ``senders`` too (a link's handshake goes on as its owner polls, as a session's loop
    always does; what they take in is dropped)."""
    got: list[Inbound] = []
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and len(got) < want:
        for sender in senders:
            sender.poll(0)
        got += transport.poll(0.05 if not senders else 0.01)
    return got


def receive_until(
    transport: Transport, seconds: float, want: int = 1, senders: Sequence[Transport] = (),
) -> list[tuple[bytes, bytes]]:
    """What a transport takes in, as (connection, data), until ``want`` messages came or ``seconds`` passed."""
    return [(inbound.connection, inbound.data) for inbound in receive_inbound(transport, seconds, want, senders)]


def watch_requests(router: Any, stop: threading.Event) -> Iterator[bytes]:
    """The connection of each ``watch`` a seat's ROUTER socket gets, until ``stop`` is set:
    what a stand-in for a watched seat answers."""
    while not stop.is_set():
        if not router.poll(50):
            continue
        connection, data = router.recv_multipart()
        if open_envelope(data).kind == "watch":
            yield connection


def session_for_tests(tmp_path: Path, players: int = 3) -> tuple[Session, list[Identity], list[str]]:
    """Seat 1's session at a table of ``players`` (game id bytes 0..31), its transport a
    ``SentLog`` (it keeps what it is given to send), the seats' identities, and the lines it says."""
    identities = [Identity.generate() for _ in range(players)]
    seats = tuple(
        SeatInfo(f"s{n}", i.public.sign_key, i.public.dh_key, f"tcp://127.0.0.1:{n + 1}") for n, i in enumerate(identities)
    )
    said: list[str] = []
    table = Table(bytes(range(32)), GameConfig(players), seats)
    session = Session(table, identities[1], SentLog(), None, tmp_path, said.append)  # type: ignore[arg-type]
    return session, identities, said
