"""One peer's game over the network: the sans-I/O node, driven by one polling loop.

The loop owns the sockets and the timers (time.monotonic): it gives inbound records to
the node, sends the node's records to every peer, asks the seat's agent (a bot or a
person) for moves, keeps heartbeats, resends records to peers that fell behind, and ends
the game cleanly when a peer cheats or is gone for too long.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from ..crypto.identity import Identity
from ..crypto.log import LogWriter
from ..protocol.errors import SecretsLost
from ..protocol.messages import MalformedMessage, printable
from ..protocol.node import IllegalMove, Node, ProtocolViolation
from ..protocol.shares import AheadRefused
from ..rules import State
from .agents import BotAgent
from .chat import CHAT_MAX, IncomingChat, OutgoingChat
from .defects import describe, save_traceback
from .heartbeat import CATCH_UP_S, Heartbeat, Resends, addressed_to
from .inflow import ENDINGS, REFUSED_AHEAD_TOKENS, Inflow
from .intake import Dropped, Intake
from .lingering import Lingering
from .links import Links
from .lobby import Table
from .pace import Pace
from .presence import BUSY_MAX, PING_EVERY, Presence
from .relink import Relink
from .seatstate import next_run, open_seat, save_secrets
from .splitting import SplitWatch
from .standin import StandIn
from .timing import Timing
from .transport import Inbound, Transport
from .verdicts import Outcome, SessionResult, Verdicts
from .watchers import Watchers
from .wire import BadEnvelope, Envelope, open_envelope, seal

#: records that take long to make before this seat has timed one (seconds, a guess to announce)
HEAVY_KINDS = {"shuffle": 2.0}
#: messages from connections no seat signs on are reported at most once in this many seconds
NOTICE_OUTSIDERS = 10.0
#: a loop iteration longer than this (seconds) means this peer was busy, not listening
BUSY_AFTER = 0.5
#: the largest busy notice taken (an honest one is about 150 bytes): a seat passes them on, and
#: a liar's padded one spent the passer's budget at the others, so that its next was dropped
#: unread there (an attack)
BUSY_BYTES = 512
#: the fields of a busy notice, and no others
BUSY_FIELDS = frozenset(("game_id", "seat", "seconds"))
#: records after which this seat's secrets change (committed values, a shuffle's witness)
SECRET_KINDS = frozenset({"commit", "reveal"})
#: at the start, how long (s) a seat waits at most for its links' handshakes before any work
SHAKE_HANDS_S = 1.0
#: a seat's hello (a restart) is answered with the table's start at most this often (seconds)
HELLO_EVERY = 1.0


class Agent(Protocol):
    def start(self, seat: int, node: Node) -> None: ...

    def poll_move(self, node: Node) -> str | None:
        """The seat's move when it has one (None: ask again later)."""

    def heard(self, state: State) -> None:
        """The engine committed a new state (events to show or to tell a bot)."""

    def chat(self, seat: int, name: str, text: str) -> None: ...

    def poll_chat(self) -> str | None: ...


class Session(Verdicts, Lingering, SplitWatch, StandIn, Watchers, Heartbeat, Timing, Relink, Inflow):
    def __init__(
        self,
        table: Table,
        identity: Identity,
        transport: Transport,
        agent: Agent,
        log_dir: Path,
        say: Callable[[str], None] = print,
        wait: float = 120.0,
        turn_time: float | None = None,
        on_leave: str = "bot",
        stand_in_delay: float = 0.0,
        resuming: bool = False,
        take_back_stopped: bool = False,
    ) -> None:
        seat = table.seat_of(identity.public.sign_key)
        if seat is None:
            raise ValueError("this identity has no seat at the table")
        self.table = table
        self.setup = table.setup()
        self.seat = seat
        self.identity = identity
        self.transport = transport
        self.agent = agent
        if isinstance(agent, BotAgent):
            agent.on_thinking = self._say_busy  # our loop answers nobody while our bot thinks
        self.say = say
        self.wait = wait
        self.log_dir = log_dir
        #: the game was running when we joined: our seat's own files must be here
        self.resuming = resuming
        #: a game our log shows we stopped (a verdict written) is taken up again (join --take-back)
        self.take_back_stopped = take_back_stopped
        self.endpoints = {s: info.endpoint for s, info in enumerate(table.seats) if s != seat}
        self.names = [info.name for info in table.seats]
        self.node = Node(self.setup, seat, identity)
        self.intake = Intake(self.node)
        #: this process's run of the seat (nanoseconds since the epoch: a newer run is larger)
        self.incarnation = time.time_ns()
        self.incarnations: dict[int, int] = {}
        self.ahead_again: set[int] = set()
        self.resends = Resends()
        self.last_relink: dict[int, float] = {}
        self.pending_links: dict[int, tuple[str, int]] = {}
        self.began_at: dict[int, str] = {}  # (relink.py: the seats' endpoints in their own hellos)
        self.runs_again_told: dict[int, float] = {}  # (relink.py)
        self.hello_answered = Pace(HELLO_EVERY)
        self.counted: set[int] = set()
        self.catch_up_until, self.catch_up_held = 0.0, 0  # (heartbeat.py: a seat that came back waits)
        self._outsider_noticed = -NOTICE_OUTSIDERS
        #: the longest this seat took to make each kind of record (seconds), for busy notices
        self.make_seconds: dict[str, float] = {}
        self.chat_in = IncomingChat()
        self._start_inflow()
        #: the last word of an ending (ENDINGS) each seat signed, as it came: passed on when we end
        self.endings_heard: dict[int, bytes] = {}
        #: per seat, the end of the busy time we last passed on for it (its notices go round once)
        self._busy_passed: dict[int, float] = {}
        # with a link endpoint, the seats speak to us there only (a connection proves its key)
        proven_only = getattr(transport, "link", None) is not None
        self.links = Links([info.dh_key for info in table.seats], seat, self.names, proven_only, lambda text: self.say(text))
        now = time.monotonic()
        self.presence = Presence(self.endpoints, now, self.wait)
        self._start_absence(now)
        self._start_split_watch()
        self.records_of = dict.fromkeys(self.endpoints, 0)
        #: the seats whose records of its current step each peer holds (from its pings)
        self.got_of: dict[int, set[int]] = {seat: set() for seat in self.endpoints}
        #: each peer's tip (its head and current step's records) from its last ping
        self.tip_of: dict[int, bytes | None] = {}
        #: seats that said they have every record of the finished game
        self.done: set[int] = set()
        #: the newest ping time each seat sent us (its clock, ms) and when it arrived (ours)
        self.their_ping: dict[int, tuple[int, float]] = {}
        self.last_ping = 0.0
        self.chat_out = OutgoingChat()
        self.stats: dict[str, float] = {"records_sent": 0, "bytes_sent": 0}
        self._start_timing()
        self._start_stand_in(turn_time, on_leave, stand_in_delay)
        self._start_watchers()

    # -- start and resume ------------------------------------------------------------

    def _open_log(self) -> None:
        self.log_path, self.secrets_path, count = open_seat(self.node, self.log_dir, self.resuming, self.take_back_stopped)
        self.incarnation = next_run(self.log_path)  # past every earlier run's, whatever the clock says
        if count is not None:
            for index in range(len(self.node.log.entries)):
                self.intake.remember(index)
            self.say(f"resumed seat {self.seat} from {count} saved records")
            self.catch_up_until = time.monotonic() + CATCH_UP_S
            self.catch_up_held = len(self.node.records)
        self.node.writer = LogWriter(self.log_path, repair=True)
        self.node.on_commit = self.agent.heard
        self.node.on_learn = self.agent.heard  # a hand dealt shows before the first move is made

    def _link(self, towards: str, to: int) -> bytes:
        """Introduce this connection to seat ``to``, at ``towards``; the endpoint (where that
        peer can reach us, never a wildcard) lets peers reach a seat that came back elsewhere."""
        return seal(self.identity, "link", {
            "game_id": self.setup.game_id, "seat": self.seat, "to": to, "endpoint": self.transport.advertised(towards),
            "incarnation": self.incarnation,
        })

    def run(self) -> SessionResult:
        self._open_log()
        self.agent.start(self.seat, self.node)
        told = getattr(self.agent, "leaving_means", None)
        if callable(told):
            told(self.on_leave)  # the person's leave question says what leaving does here
        self.transport.admit_links({seat.dh_key for seat in self.table.seats})  # nobody else at our link endpoint
        self._link_all()
        # before the first record's work: the seats all start at once, and a link's
        # handshake goes on only while both of its ends poll
        pending = self.transport.shake_hands(self.endpoints.values(), SHAKE_HANDS_S)
        try:
            return self._loop(pending)
        except SecretsLost as lost:  # our own files' loss: said as it is, nobody accused
            return self._leave(f"{lost}; it proves nothing against anyone. This seat leaves the game")
        except Exception as error:  # a defect of ours (defects.py), not anything a peer proved
            return self._defect(error, f"seat {self.seat}'s own work, or a record it took in,")
        except KeyboardInterrupt:
            self._interrupted()
            raise
        finally:
            if self.node.writer is not None:
                self.node.writer.close()

    # -- the loop ----------------------------------------------------------------------

    def _loop(self, pending: list[Inbound]) -> SessionResult:
        try:
            self.node.run_deferred_checks()  # one our own shuffle left when this seat stopped
        except ProtocolViolation as violation:
            return self._cheater(violation)
        for inbound in pending:
            result = self._take_inbound(inbound)
            if result is not None:
                return result
        polled = time.monotonic()
        while True:
            if self.node.finished:
                return self._finish()
            result = self._speak()
            if result is not None:
                return result
            self._send_ahead()
            found = self.node.ahead_failure()  # a shuffle checked in the background
            if found is not None:
                return self._cheater(found)
            self._feed_watchers()
            self._time_rounds()
            busy = time.monotonic() - polled
            if busy > BUSY_AFTER:
                self._not_listened(busy)  # we were computing: the others were not silent
            # work ahead (a shuffle planned before its deck comes) only while nothing waits
            inbounds = self.transport.poll(0.0) or self.transport.poll(0.0 if self.node.prepare() else 0.05)
            polled = time.monotonic()
            for inbound in inbounds:
                result = self._take_inbound(inbound)
                if result is not None:
                    return result
            now = time.monotonic()
            if now - self.last_ping >= PING_EVERY:
                self._ping(now)
            self._check_away(now)
            self._follow_pending_links(now)
            self.links.tell_untold(now)
            result = self._check_gone(now)
            if result is not None:
                return result
            self._relay_agent_chat()
            if getattr(self.agent, "wants_to_quit", False):
                if self.on_leave == "end":
                    return self._leave()
                self._hand_over()
            if getattr(self.left_by, "stop_asked", False):
                return self._leave("you stopped the bot that played your seat; the others were told you left")

    def _take_inbound(self, inbound: Inbound) -> SessionResult | None:
        """One message; once the game's last record is in, what came with it in the same
        poll is heard as while we linger (an ending then stops nothing: found by an attack)."""
        if self.node.finished:
            return self._heard_lingering(inbound.connection, inbound.data, inbound.key)
        return self._handle(inbound.connection, inbound.data, inbound.key)

    def _speak(self) -> SessionResult | None:
        """Let the node make every record it owes now; a violation one of our records brings to
        light (a card played as what it is not) names its culprit, our record the evidence."""
        node = self.node
        if self._catching_up(time.monotonic()):
            return None
        while node.my_turn_to_speak() and node.aborted is None:
            try:
                if node.awaiting_move():
                    move = self._poll_move()
                    if move is None:
                        return None
                    try:
                        record = node.move(move)
                    except IllegalMove as refused:
                        self.say(f"that move is not allowed: {refused}")
                        return None
                    self._sent_move()
                else:
                    self._announce_busy()
                    made = node.produce()
                    if made is None:
                        return None
                    record, kind = made, node.log.entries[-1].kind  # the record just made
                    self.make_seconds[kind] = max(self.make_seconds.get(kind, 0.0), node.last_make_seconds)
            except ProtocolViolation as violation:
                own = node.log.entries[-1]  # signed and in the log's chain, though refused after
                return self._cheater(violation, own.record)
            # the node has just taken its own record in: it is the log's last entry
            own = self.intake.remember(len(node.log.entries) - 1)
            if own.kind in SECRET_KINDS:
                save_secrets(node, self.secrets_path)
            self._broadcast(record)
            try:
                node.run_deferred_checks()  # the shuffle before ours, once ours is on its way
            except ProtocolViolation as violation:
                return self._cheater(violation, record)
        return None

    def _send_ahead(self) -> None:
        """Shares we will owe for a card just drawn or mapped go to its seat now, not with our
        next record: it sees its card as soon as its move is taken in (§12.6)."""
        for recipient, shares in self.node.make_ahead().items():
            self._send_shares_ahead(recipient, shares)

    def _take_ahead(self, env: Envelope, sender: int) -> None:
        try:
            learnt = self.node.take_ahead(sender, env.field("shares", dict))
        except (MalformedMessage, AheadRefused) as exc:
            self._pays(sender, REFUSED_AHEAD_TOKENS)
            self.links.dropped(sender, f"ignored shares {self.names[sender]} sent ahead of its record: {exc}")
            return
        if learnt and self.node.state is not None:
            self.agent.heard(self.node.state)

    def _announce_busy(self) -> None:
        """Before a record that takes long to make (a shuffle and its proof), tell the others
        how long we will not answer, so a peer busy proving is not taken for away."""
        head = self.node.my_expect()
        if head is None:
            return
        took = self.make_seconds.get(head.kind, HEAVY_KINDS.get(head.kind, 0.0))
        if took < BUSY_AFTER:
            return
        self._say_busy(min(BUSY_MAX, 2 * took + 1))

    def _broadcast(self, record: bytes) -> None:
        """Our own record, to every seat: on our disk first.  Only flushed, a crash of the
        machine could lose a record the others hold; made again (with fresh randomness, or
        another move) it would be a second version, and a liar that alone held the first
        could hide it through our catch-up wait and have us named for equivocation (found by
        an attack).  An fsync costs about 0.2 ms on the development machine's disk, 0.4 ms
        while five peers sync at once: a turn's two hops wait for two."""
        if self.node.writer is not None:
            self.node.writer.sync()
        data = seal(self.identity, "record", {"record": record})
        for endpoint in self.endpoints.values():
            self.transport.send(endpoint, data)
        self.stats["records_sent"] += 1
        self.stats["bytes_sent"] += len(data) * len(self.endpoints)

    def _admits(self, kind: str, key: bytes) -> bool:
        """Only the seats may speak once the game runs; anyone may say a (small) hello, a
        spectator ``watch``, and a seat of another game ``split`` (splitting.py)."""
        return self.table.seat_of(key) is not None or kind in ("hello", "watch", "split")

    def _handle(self, connection: bytes, data: bytes, key: bytes | None = None) -> SessionResult | None:
        """One message from a connection; ``key``: the link key it proved (CurveZMQ), if any."""
        owner = self.links.owner(connection, key)  # a seat's link (it proved its key) vouches for its envelopes
        if not self._within_budget(connection, key, owner, data):
            return None
        admits = self._admits if key is not None or not self.links.proven_only else self._admits_unproven
        try:
            env = open_envelope(data, admits, self.table.seats[owner].sign_key if key and owner is not None else None)
        except BadEnvelope as exc:
            if owner is not None:
                self.links.dropped(owner, f"dropped a bad message from seat {owner} ({self.names[owner]}): {exc}")
            else:
                self._outsider(f"dropped a bad message from an unidentified connection: {exc}")
            return None
        sender = self._seat_of_key(env.key)
        if env.kind == "hello":
            self._answer_hello(connection, env, sender)
            return None
        if env.kind == "watch":
            if sender is None:
                try:
                    self._heard_watch(connection, env)
                except BadEnvelope as exc:
                    self._outsider(f"dropped a bad watch from a spectator: {exc}")
            return None
        if env.kind == "split":  # a genesis shown to us proves itself, whoever carries it (splitting.py)
            try:
                return self._heard_split(env, sender, connection)
            except BadEnvelope as exc:
                self._outsider(f"dropped a bad split: {exc}")
                return None
        if sender is None:
            return None  # not one of the seats: nothing it says matters
        # a link or ping to another seat, relayed here, says nothing of its sender (on a link,
        # it names the relayer); an unproven connection is known by the seat that signs on it,
        # even if we missed its `link` (sent while we were in the lobby) or it reconnected
        to_another = env.kind in ("link", "ping") and not addressed_to(env, self.seat)
        ending = env.kind in ENDINGS  # the signer's own word, whoever carries it (§12.5)
        # so is a busy notice, which a seat passes on (§12.4)
        if (key is not None or not to_another) and not self.links.heard(connection, key, sender) and not ending \
                and env.kind != "busy":
            notice = self.links.relayed(connection, key, env.kind, sender, time.monotonic())
            if notice is not None:
                self.say(notice)
            return None
        if to_another:
            return None
        carried = self.links.owner(connection, key) != sender  # passed on by another seat, or by nobody we know
        if not carried and self.presence.heard(sender, time.monotonic()) and self.presence.notice_back(sender):
            self.say(f"{self.names[sender]} is back after {self.presence.silence.get(sender, 0.0):.0f} s of silence")
        # of this game and its signer's own word (another game's, passed on again, is ignored: an attack)
        sound_ending = ending and env.body.get("game_id") == self.setup.game_id and env.body.get("seat", sender) == sender
        if sound_ending:
            self.endings_heard[sender] = data  # before it is judged: judging it may end our game
        try:
            result = self._dispatch(connection, env, sender, key, data)
            if sound_ending and result is None:
                self._carried(env, sender, self.links.owner(connection, key))
            return result
        except BadEnvelope as exc:
            self.links.dropped(sender, f"dropped a bad {env.kind} from {self.names[sender]}: {exc}")
            return None
        except SecretsLost:
            raise  # our own files' loss, wherever it shows: said as it is (run), not as a defect
        except Exception as error:  # a defect of ours (defects.py)
            what = f"a {env.kind} from {self.names[sender]} (seat {sender})"
            if env.kind == "record" or self.node.aborted is not None:
                return self._defect(error, what)
            save_traceback(self.log_path, error)
            self.links.dropped(sender, f"dropped {what}: it reached a defect in saboteur-p2p ({describe(error)})")
            return None

    def _outsider(self, text: str) -> None:
        now = time.monotonic()
        if now - self._outsider_noticed > NOTICE_OUTSIDERS:
            self._outsider_noticed = now  # an outsider's flood does not flood the log
            self.say(text)

    def _dispatch(
        self, connection: bytes, env: Envelope, sender: int, key: bytes | None = None, data: bytes = b"",
    ) -> SessionResult | None:
        if env.kind == "record":
            return self._take_record(env.field("record", bytes, 5 * 1024 * 1024), sender)
        game_id = env.field("game_id", bytes, 32)
        if game_id != self.setup.game_id:
            if self.links.owner(connection, key) == sender:  # not an old ending another seat passed on (an attack)
                self._heard_another_game(sender, game_id)  # a peer's stale message, or a table split in two
            return None
        if env.kind == "link":
            if env.field("seat", int) == sender:
                self.links.linked(connection, key, sender)
                self._relink(sender, env.field("endpoint", str, 200), env.field("incarnation", int))
        elif env.kind == "ping":
            self._heard_ping(env, sender)
        elif env.kind == "chat":
            text = env.field("text", str, CHAT_MAX)
            if self.chat_in.take(sender, time.monotonic()):  # before the text is cleaned: a flood's lines are not
                self.agent.chat(sender, self.names[sender], printable(text))
        elif env.kind == "abort":
            return self._heard_abort(env, sender)
        elif env.kind == "ahead" and env.field("seat", int) == sender:
            self._take_ahead(env, sender)
        elif env.kind == "standin" and env.field("seat", int) == sender:
            self._heard_stand_in(env, sender)
        elif env.kind == "busy" and env.field("seat", int) == sender:
            if len(data) > BUSY_BYTES or env.body.keys() != BUSY_FIELDS:
                raise BadEnvelope(f"a busy notice is {', '.join(sorted(BUSY_FIELDS))} in at most {BUSY_BYTES} bytes")
            now, seconds = time.monotonic(), min(float(env.field("seconds", (int, float))), BUSY_MAX)
            carrier = self.links.owner(connection, key)
            if not seconds > 0:  # (NaN too) it moves nothing: passed on, it went round for ever (an attack)
                return None
            until = now + seconds
            if until > self._busy_passed.get(sender, float("-inf")) + 1:
                # passed on, as signed, to the seats that may not have it, whoever brought it:
                # a seat that told one seat alone it was busy (itself, or through another) had
                # the other's wait for its record run out first (attacks); counted from what
                # we passed on last, so notices that each move it a little are passed on too
                # (an attack crept 60 s ahead in steps of 0.9 s), and one that moves nothing
                # is not: a notice goes round once
                self._busy_passed[sender] = until
                for seat, endpoint in self.endpoints.items():
                    if seat not in (sender, carrier):
                        self.transport.send(endpoint, data)
            self.presence.busy(sender, now, seconds, heard=carrier == sender)
        elif env.kind == "gone" and env.field("seat", int) == sender:
            return self._heard_gone(env, sender, time.monotonic(), self.links.owner(connection, key) if key is not None else None)
        elif env.kind == "bye" and env.field("seat", int) == sender:
            return self._end(Outcome.QUIT, f"{self.names[sender]} (seat {sender}) left the table; the game ends", sender)
        return None

    def _take_record(self, record: bytes, relayed_by: int) -> SessionResult | None:
        if self.intake.holds(record):
            return None  # a resend, or a flood's copy: before its take-in is timed
        self._taking()
        taken = self.intake.take(record, self._took_one)
        self._decoded(relayed_by, taken.weight)
        name = self.names[relayed_by]
        if taken.dropped in (Dropped.MALFORMED, Dropped.UNSIGNED):
            self._bad_record(relayed_by)
        if taken.dropped is Dropped.MALFORMED:
            self.links.dropped(relayed_by, f"dropped a malformed record relayed by {name}: {taken.detail}")
        elif taken.dropped is Dropped.UNSIGNED:
            self.links.dropped(relayed_by, f"dropped a record that {name} relayed: {taken.detail}")
        if taken.violation is not None:
            return self._cheater(taken.violation, taken.evidence)
        return None

    def _took_one(self) -> None:
        """The node took a record in: it is on disk before anything follows from it."""
        if self.node.writer is not None:
            self.node.writer.flush()
        self._took_record()

    def _answer_hello(self, connection: bytes, env: Envelope, seat: int | None) -> None:
        if seat is None:
            self.transport.reply(connection, seal(self.identity, "reject", {"reason": "the game has started"}))
            return
        # a seat's hello replayed drew the whole start each time (an attack); once a second on a
        # connection, so a replayer cannot keep the seat's restart, on its own, from an answer
        if self.hello_answered.allow((seat, connection), time.monotonic()):
            self.transport.reply(connection, seal(self.identity, "start", self.served_table(connection).to_data()))

    def _leave(self, why: str = "you left the table; the game ends") -> SessionResult:
        """Our player leaves (or this seat cannot go on): tell the table (it ends the game) and stop."""
        data = seal(self.identity, "bye", {"game_id": self.setup.game_id, "seat": self.seat})
        for endpoint in self.endpoints.values():
            self.transport.send(endpoint, data)
        return self._end(Outcome.QUIT, why, self.seat)

    def _defect(self, error: Exception, what: str) -> SessionResult:
        """``what`` reached a defect of ours (defects.py): nobody is accused; this seat leaves."""
        where = save_traceback(self.log_path, error)
        return self._leave(f"{what} reached a defect in saboteur-p2p ({describe(error)}); it proves nothing "
                           f"against anyone. This seat cannot trust its state and leaves the game; please report "
                           f"it with {where}")

    def _relay_agent_chat(self) -> None:
        """What our agent says at the table: a person's chat, or our bot's failures (said
        here too, whole, where the bot's author reads: found by a bot author)."""
        text = self.agent.poll_chat()
        if text:
            bot = isinstance(self.agent, BotAgent)
            if bot:
                self.say(text)
            self._chat(text, quiet=bot)
        self._send_chat()

    def _chat(self, text: str, quiet: bool = False) -> None:
        """Say a line at the table (chat.py): at once, or after the lines waiting; ``quiet``:
        a line said here already, not told again when the table's chat has no room for it."""
        refused = self.chat_out.add(text)
        if refused is not None and not quiet:
            self.say(refused)
        self._send_chat()

    def _send_chat(self) -> None:
        due = self.chat_out.due(time.monotonic())
        if due is None:
            return
        text, starts_line = due
        data = seal(self.identity, "chat", {"game_id": self.setup.game_id, "seat": self.seat, "text": text})
        for endpoint in self.endpoints.values():
            self.transport.send(endpoint, data)
        self.agent.chat(self.seat, self.names[self.seat], text)
        away = [self.names[s] for s in self.endpoints if s in self.presence.away]
        if away and starts_line:
            self.say(f"chat: {' and '.join(away)} {'is' if len(away) == 1 else 'are'} away and will not hear that line")

    # -- the end -----------------------------------------------------------------------

    def _seat_of_key(self, key: bytes) -> int | None:
        seat = self.table.seat_of(key)
        return None if seat == self.seat else seat
