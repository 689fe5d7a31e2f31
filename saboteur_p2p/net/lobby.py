"""The lobby: a host opens a table, joiners take seats, and the host starts the game.

The host's only power is here: it orders the seats and picks the game id.  Once ``start``
is sent, every peer checks the genesis record against what it was told, and the host is a
peer like the others.  A seat's owner that comes back after a crash sends ``hello`` again
(to the host or to any peer) and gets ``start`` back.

A ``hello`` is bound to the table: it carries the salt the table drew when it opened (a
first hello without it is answered with ``challenge``, or ``code`` at a table with a
code), so a hello captured at one table seats nobody at another.  A joiner seated before
the start that comes back (its process crashed) says hello again with a fresh nonce and
takes its seat back; while the table fills, the host repeats ``table`` to the seated every
``TABLE_EVERY`` seconds, so a joiner knows the table is still there however long it fills.

A joiner may name the edition it wants to play in ``hello``; a table of another edition
refuses it, and ``welcome`` tells every joiner the table's rules.  The ``start`` message's
config is what binds: a joiner checks the edition there again.
"""
from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Callable, Collection, Sequence

from ..crypto.group import InvalidPoint
from ..crypto.identity import LINK_KEY_PROOF_BYTES, Identity, PublicIdentity, valid_dh_key, verify_link_key
from ..crypto.log import PROTOCOL_VERSION
from ..crypto.table_code import CODE_PROOF_BYTES, CODE_SALT_BYTES, CodeHost, prove_code, table_key
from ..protocol.messages import NAME_RULE, printable, valid_name
from ..rules import GameConfig
from ..rules.editions import edition_names
from .invite import LobbyError, where_to_join
from .lobbychat import LOBBY_CHAT, Heard, LobbyChat, speakers
from .notices import Notices
from .pace import ByAddress
from .seating import SEATED_IDENTITY, Seating, in_order
from .table import DEFAULT_WAIT_MS, NONCE_BYTES, SeatInfo, Table, joint_game_id
from .transport import (
    Inbound,
    Transport,
    dealer_connection,
    endpoint_host,
    is_wildcard,
    unknown_machine,
    valid_endpoint,
)
from .wire import BadEnvelope, Envelope, open_envelope, seal

LOBBY_VERSION = 16
#: wrong table codes one address may try before its hellos are refused for the lobby's life
#: (each costs the guesser a scrypt; this bounds the guesses, and the host hears of them)
WRONG_CODES_PER_ADDRESS = 5
WRONG_CODE = "wrong table code"
TOO_MANY_WRONG_CODES = "too many wrong table codes from this address: ask the host for the code, and a new table"
#: hellos from one address that the table refused (a name taken, the table full, ...), at
#: most: past them, the address's hellos are turned away before their nonces are spent.  A
#: stranger's refused hellos spent the table's MAX_HELLOS nonces and closed it for every
#: joiner, the host told nothing (found by an attack)
REFUSED_PER_ADDRESS = 32
TOO_MANY_REFUSED = "this table refused too many hellos from this address; ask the host to open a new table"
#: what _check_hello says of a hello with no proof at a table with a code: send the salt
NEEDS_CODE = "needs-code"
#: what _check_hello says of a hello that does not carry this table's salt: send it
NEEDS_SALT = "needs-salt"
#: how often (seconds) the host tells its seated joiners the table while it fills...
TABLE_EVERY = 10.0
#: ...and how long a seated joiner waits without a word from the table before it gives up
TABLE_QUIET = 4 * TABLE_EVERY
#: the longest turn timer a welcome may give (seconds), as ``--turn-time`` takes
MAX_TURN_TIME = 3600
#: names of a table's seats a joiner's screen shows, at most (a host may send any list)
MAX_SEATS_SHOWN = 16
#: what the connection a seat was taken back from hears
SEAT_TAKEN_BACK = "this seat was taken back by a newer run of this player's program (its hello came on another connection)"


#: what a host tells the seated when it closes its table before the start
TABLE_CLOSED = "the host closed the table before the game began"
IDENTITY_HINT = (". A second player on this machine needs an identity of their own: "
                 "saboteur-p2p join ... --identity FILE (a new file is created on first use)")


def too_few_to_start(fewest: int, seated: int) -> str:
    """Why a start asked for early waits: fewer seated than a game needs."""
    are = f"{seated} is" if seated == 1 else f"{seated} are"
    return f"a game needs at least {fewest} players and {are} seated: it starts as soon as {fewest} are"


def host_lobby(
    identity: Identity,
    name: str,
    transport: Transport,
    config: GameConfig,
    code: str | None,
    say: Callable[[str], None],
    started: Callable[[], bool] | None = None,
    on_ready: Callable[[], None] | None = None,
    on_seated: Callable[[tuple[str, ...]], None] | None = None,
    invite: bool = True,
    order: Sequence[str] = (),
    turn_time: float | None = None,
    chat_said: Callable[[], str | None] | None = None,
    chat_heard: Heard | None = None,
    wait: float = DEFAULT_WAIT_MS / 1000,
) -> Table:
    """Wait for joiners until every seat is taken (or ``started()`` says go); send ``start``.

    An early start needs at least the edition's fewest players (3 for the base game, 2 for
    Saboteur 2).  ``on_seated`` hears the names seated (the host's first) each time a
    joiner sits down or takes its seat back.  Without ``invite`` (bot peers of this machine take every other
    seat) nobody is told how friends join.  ``order``: the names of this machine's bot peers,
    which sit in the seats they took in the order of these names (they arrive in any order:
    "heuristic-2" sat at seat 1), each other seat keeping its place.  ``chat_said`` gives the
    lines our person says in the lobby, and ``chat_heard`` hears each line said (lobbychat.py).
    ``wait``: the table's wait for a seat gone silent (seconds), which ``start`` gives.
    """
    if not valid_name(name):
        raise LobbyError(f"{NAME_RULE}, not {name!r} (--name)")
    fewest = config.edition_rules.players[0]
    seating = Seating(SeatInfo(name, identity.public.sign_key, identity.public.dh_key, transport.link_endpoint),
                       identity.prove_link_key)
    door = _Door(identity, transport, config, code, seating, say, on_seated, order, LobbyChat(identity, chat_said, chat_heard))
    door.turn_time, door.invite = turn_time, invite
    if invite:
        say(f"table open at {transport.endpoint}: waiting for {config.players - 1} more player(s)")
        if turn_time is not None:  # the joiners are told it, and keep it unless they set their own
            say(f"turn timer: {turn_time:g} s a move, then a bot moves; joiners take it on unless they give their own "
                "--turn-time (or off), or it is under 15 s")
        say(where_to_join(transport.endpoint, transport.link_keys[0] if transport.link_keys else None, bool(code)))
    else:
        say(f"table open at {transport.endpoint} for you and {config.players - 1} bot(s) of this machine")
    if on_ready is not None:
        on_ready()
    told_too_few = False
    told_table = time.monotonic()

    def seated() -> int:
        return len(seating.seats)

    def starting() -> bool:  # asked to start, with enough players seated
        return started is not None and started() and seated() >= fewest

    try:
        while seated() < config.players and not starting():
            if started is not None and not told_too_few and started():
                # asked to start early, with fewer seated than a game needs: say why it waits
                say(too_few_to_start(fewest, seated()))
                told_too_few = True
            if time.monotonic() - told_table >= TABLE_EVERY:
                door.tell_table()  # the seated hear that the table is still there
                told_table = time.monotonic()
            door.speak(name)
            for inbound in transport.poll(0.2):
                if door.take_in(inbound, full=seated() >= config.players or starting()):
                    told_table = time.monotonic()
    except BaseException:
        closed = seal(identity, "reject", {"reason": TABLE_CLOSED})  # the seated need not wait for a start that will not come
        for connection in seating.connections:
            transport.reply(connection, closed)
        raise
    door.notice.flush()
    if seated() != config.players:
        config = GameConfig(seated(), config.edition, config.variants, config.rounds)
    seating.put_in_order(order)
    line = bots_seated(seating.seats, order)
    if line:  # they were told no seat as they sat down: say each one's
        say(line)
    table_ = Table(joint_game_id(tuple(seating.nonces)), config, tuple(seating.seats), tuple(seating.nonces),
                   tuple(seating.link_proofs), door.salt, tuple(seating.hellos), round(wait * 1000))
    start = seal(identity, "start", table_.to_data())
    for connection in seating.connections:
        transport.reply(connection, start)
    return table_


def bots_seated(seats: Sequence[SeatInfo], order: Sequence[str]) -> str:
    """Where this machine's bot peers (named in ``order``) sit, in one line ("" with none):
    only they were seated by the host's order, a person who joined was told a seat then (a
    play-test read "in the order of their names" of a table where Bob sat after heuristic-2)."""
    bots = [f"{seat.name} at seat {i}" for i, seat in enumerate(seats) if i and seat.name in order]
    return "this machine's bot peers sit in the order they were started: " + ", ".join(bots) if bots else ""


class _Door:
    """What the host does with each message that reaches its table while it fills: seats a
    joiner whose hello is bound to the table (asking for the salt, or the code's proof,
    first), frees the seat of one that leaves, and refuses the rest."""

    def __init__(self, identity: Identity, transport: Transport, config: GameConfig, code: str | None, seating: Seating,
                 say: Callable[[str], None], on_seated: Callable[[tuple[str, ...]], None] | None, order: Sequence[str],
                 chat: LobbyChat) -> None:
        self.identity, self.transport, self.config, self.seating = identity, transport, config, seating
        self.say, self.on_seated, self.order = say, on_seated, order
        self.salt = secrets.token_bytes(CODE_SALT_BYTES)
        self.coded = CodeHost(code, self.salt) if code else None
        self.wrong_codes = ByAddress()
        self.refused = ByAddress()
        self.notice = Notices(say)  # what strangers send wrong, said at a bounded rate
        #: whether friends may join (not ``play``'s table of this machine's bot peers alone)
        self.invite = True
        #: the table's turn timer, told to each joiner in its welcome (None: no timer)
        self.turn_time: float | None = None
        #: the lobby's chat: our person's lines, and the seated joiners' (lobbychat.py)
        self.chat = chat

    def tell_table(self) -> None:
        """Tell every seated joiner who is seated."""
        table = seal(self.identity, "table", {"seats": [s.to_data() for s in self.seating.seats],
                                              "seats_total": self.config.players, "hellos": list(self.seating.hellos)})
        for connection in self.seating.connections:
            self.transport.reply(connection, table)

    def take_in(self, inbound: Inbound, full: bool) -> bool:
        """Act on one message (``full``: no seat is free, or the start is asked for); True if
        the seated were told the table anew."""
        try:
            env = open_envelope(inbound.data)
        except BadEnvelope as exc:
            self.notice(f"lobby: dropped a bad message ({exc})")
            return False
        if env.kind == "leave":
            return self._leave(env)
        if env.kind == "hello":
            return self._hello(inbound, env, full)
        if env.kind == LOBBY_CHAT:
            self._chat(inbound, env)
        return False

    def speak(self, name: str) -> None:
        """Send the seated our person's next line, when its turn has come."""
        line = self.chat.due(self.salt, 0, name)
        if line is not None:
            for connection in self.seating.connections:
                self.transport.reply(connection, line)

    def _chat(self, inbound: Inbound, env: Envelope) -> None:
        """A seated joiner's line, on its own connection: shown, and passed on as it came to the others."""
        seat = self.seating.seat_of(env.key)
        if not seat or self.seating.connections[seat - 1] != inbound.connection:
            return  # only the seated speak, each on the connection its seat was taken on
        if self.chat.take(env, self.salt, seat, self.seating.seats[seat].name):
            for connection in self.seating.connections:
                if connection != inbound.connection:
                    self.transport.reply(connection, inbound.data)

    def _seated_changed(self) -> None:
        if self.on_seated is not None:
            self.on_seated(in_order([s.name for s in self.seating.seats], self.order))
        self.tell_table()

    def _leave(self, env: Envelope) -> bool:
        freed = self.seating.leave(env, self.salt)
        if freed is None:
            return False
        self.say(f"{freed} left the table before the game began")
        self._seated_changed()
        return True

    def _hello(self, inbound: Inbound, env: Envelope, full: bool) -> bool:
        identity, transport, seating = self.identity, self.transport, self.seating
        address = transport.address_of(inbound.connection)
        if self.wrong_codes.count(address) >= WRONG_CODES_PER_ADDRESS:
            transport.reply(inbound.connection, seal(identity, "reject", {"reason": TOO_MANY_WRONG_CODES}))
            return False
        if self.refused.count(address) >= REFUSED_PER_ADDRESS and seating.seat_of(env.key) is None:
            # (a seated joiner's restart still takes its seat back: others at its address, behind
            # one NAT or tunnel, may have spent the count; found by review)
            transport.reply(inbound.connection, seal(identity, "reject", {"reason": TOO_MANY_REFUSED}))
            return False
        reason = _check_hello(env, self.coded, self.config.edition, self.salt, identity.public.sign_key)
        if reason == WRONG_CODE:
            tries = self.wrong_codes.add(address)
            self.notice(f"lobby: a wrong table code from {address or 'an unknown address'} "
                        f"({tries} of {WRONG_CODES_PER_ADDRESS} it may try)")
        if reason in (NEEDS_SALT, NEEDS_CODE):
            # bind the hello to this table: the joiner says it again with our salt (and, with
            # a code, the proof of it worked out from our share; same nonce: the same share)
            answer = {"salt": self.salt}
            if self.coded is not None:
                answer["share"] = self.coded.share(env.key, env.body["nonce"])
            transport.reply(inbound.connection, seal(identity, "challenge" if self.coded is None else "code", answer))
            return False
        back = seating.seat_of(env.key)
        reason = reason or seating.refusal(env, back, full)
        if reason is not None:
            transport.reply(inbound.connection, seal(identity, "reject", {"reason": reason}))
            if self.refused.add(address) == REFUSED_PER_ADDRESS:
                self.notice(f"lobby: {REFUSED_PER_ADDRESS} hellos refused from {address or 'an unknown address'}; "
                            "its hellos are turned away from now on (but a seated player's own)")
            return False
        left = seating.connections[back - 1] if back else None
        seat = seating.take(env, inbound.data, inbound.connection, back)
        if left is not None and left != inbound.connection:
            transport.reply(left, seal(identity, "reject", {"reason": SEAT_TAKEN_BACK}))
        timer = {} if self.turn_time is None else {"turn_time": self.turn_time}
        transport.reply(inbound.connection, seal(identity, "welcome", {
            "seat": seat, "seats_total": self.config.players, "config": self.config.to_data(), **timer,
        }))
        info = seating.seats[seat]
        fingerprint = PublicIdentity(info.sign_key, info.dh_key).fingerprint()
        if back is None:
            # a bot peer of this machine has no seat of its own until the table starts (below);
            # how many are still awaited, each time (the first line's count read as the lobby's
            # state after bots had sat down: a play-test)
            more = self.config.players - len(seating.seats)
            awaited = "" if not self.invite else f"; waiting for {more} more player(s)" if more > 0 else "; every seat is taken"
            self.say(f"{info.name} " + ("sits down" if info.name in self.order else f"takes seat {seat}")
                     + f" ({fingerprint}){awaited}")
        else:
            self.say(f"{info.name} takes seat {seat} back ({fingerprint}): it said hello again (a restart)")
        self._seated_changed()
        return True


def _check_hello(env: Envelope, coded: CodeHost | None, edition: str, salt: bytes, key: bytes) -> str | None:
    """Why a hello is refused (or what it must say again, bound to this table: its ``salt``
    and the table's signing ``key``), or None."""
    try:
        if env.field("version", int) != LOBBY_VERSION:
            return (f"this table speaks lobby version {LOBBY_VERSION} (game protocol {PROTOCOL_VERSION}): "
                    "both need the same saboteur-p2p release")
        if not valid_name(env.field("name", str, 200)):
            return f"{NAME_RULE}; choose another (--name)"
        endpoint = env.field("endpoint", str, 200)
        if not valid_endpoint(endpoint):
            return "the endpoint must be tcp://host:port"
        if is_wildcard(endpoint_host(endpoint)):
            return "the endpoint must be an address of the joiner's machine, not a wildcard"
        if not valid_dh_key(env.field("dh_key", bytes, 32)):
            return "bad key: the X25519 key is not canonical or of small order"
        nonce = env.field("nonce", bytes, NONCE_BYTES)
        if len(nonce) != NONCE_BYTES:
            return f"the nonce must be {NONCE_BYTES} bytes"
        if not verify_link_key(env.body["dh_key"], env.key, nonce, env.field("dh_proof", bytes, LINK_KEY_PROOF_BYTES)):
            return "the hello does not prove its link key (dh_key): no seat for a key its sender does not hold"
        proof = env.field("code_proof", bytes, CODE_PROOF_BYTES)
        wanted = env.field("edition", str, 20) if "edition" in env.body else None
        bound = env.field("table", bytes, CODE_SALT_BYTES)
        host = env.field("host", bytes, 32)
        if "listens" in env.body and not valid_endpoint(env.field("listens", str, 200)):
            return "the table endpoint the hello names (listens) must be tcp://host:port"
    except BadEnvelope as exc:
        return str(exc)
    if wanted is not None and wanted != edition:
        return f"this table plays the {edition} edition, not {wanted}"
    if not (secrets.compare_digest(bound, salt) and secrets.compare_digest(host, key)):
        return NEEDS_SALT
    if coded is None:
        return None if proof == b"" else "this table has no code"
    if proof == b"":
        return NEEDS_CODE
    return None if coded.check(proof, env.key, nonce) else WRONG_CODE


def hello(identity: Identity, name: str, endpoint: str, code_proof: bytes = b"", edition: str | None = None,
          nonce: bytes | None = None, table: bytes = b"", host: bytes = b"", listens: str | None = None) -> bytes:
    """A joiner's hello; ``table`` is the salt the table sent (``challenge`` or ``code``:
    empty in the first hello) and ``host`` the signing key it sent it with (so a start can
    seat the joiner only at a table of that salt whose seat 0 is that key);
    ``code_proof`` (``prove_code``) answers a table's ``code``;
    ``edition``, when given, is the only edition it will sit down to; ``nonce`` (fresh when
    not given) goes into the game id; ``listens``, when given, is the joiner's table endpoint
    (where a seat left out of its game can still show it a genesis: splitting.py)."""
    nonce = nonce if nonce is not None else secrets.token_bytes(NONCE_BYTES)
    body = {
        "version": LOBBY_VERSION, "name": name, "dh_key": identity.public.dh_key,
        "endpoint": endpoint, "code_proof": code_proof, "table": table, "host": host,
        "nonce": nonce, "dh_proof": identity.prove_link_key(nonce),
    }
    if edition is not None:
        body["edition"] = edition
    if listens is not None:
        body["listens"] = listens
    return seal(identity, "hello", body)


class LeftLobby(LobbyError):
    """The player left the table before its game began (the table was told: their seat is free)."""


class ClosedTable(LeftLobby):
    """The host closed the table before its game began."""


def join_lobby(
    identity: Identity, name: str, transport: Transport, address: str, code: str | None,
    say: Callable[[str], None], timeout: float = 120.0,
    edition: str | None = None, resumable: Collection[str] = (), connect_timeout: float | None = None,
    host_key: bytes | None = None, leaving: Callable[[], bool] | None = None,
    on_table: Callable[[str, tuple[str, ...], int], None] | None = None,
    on_turn_time: Callable[[float], None] | None = None,
    chat_said: Callable[[], str | None] | None = None,
    chat_heard: Heard | None = None,
) -> Table:
    """Say hello to a table and wait for ``start`` (at once, if the game is already running).

    With ``connect_timeout``, a table that has not answered at all within that many seconds
    is taken to be absent (a wrong address, or no host running there).

    Only replies on the connection we opened to the table count.  With ``edition`` given, a
    table of another edition is refused.  A new game's ``start`` must carry our fresh nonce at our seat (so its id is
    fresh); a game already running is taken back only if its id's first 16 hex digits are in
    ``resumable`` (we have its log, named by them).  With ``host_key`` (the host's link key:
    ``--key``, or the table's announcement) the lobby is encrypted (CurveZMQ) from the first
    message, and a table that does not hold that key cannot answer.  Once ``leaving()`` holds
    (the player left), or on Ctrl-C, a seated joiner tells the table (``leave``) and raises
    ``LeftLobby`` (or lets the interrupt go on).  ``on_table`` hears the table's edition and
    the names seated (the host's first) as the host tells them once we are seated.  Once
    seated, ``chat_said`` gives the lines our person says, and ``chat_heard`` hears each line said at
    the table (lobbychat.py).
    """
    if edition is not None and edition not in edition_names():
        raise LobbyError(f"unknown edition {edition!r}; known: {', '.join(edition_names())}")
    endpoint = address if address.startswith("tcp://") else f"tcp://{address}"
    if not transport.connect(endpoint, server_key=host_key):
        raise LobbyError(f"not a table address: {address!r} (expected HOST:PORT)")
    unknown = unknown_machine(endpoint_host(endpoint))
    if unknown is not None:
        raise LobbyError(f"no machine called {endpoint_host(endpoint)!r}: {unknown} (check the address)")
    nonce = secrets.token_bytes(NONCE_BYTES)
    transport.send(endpoint, hello(identity, name, transport.advertised(endpoint), b"", edition, nonce))
    listens = transport.advertised_table(endpoint)  # where a seat left out of its game can find us
    bound = b""  # the table's salt, once we said hello again with it...
    challenger = b""  # ...and the signing key the table asked for it with
    notice = Notices(say)
    seated_list = Notices(say)  # who is at the table, as the host tells it
    from_table = dealer_connection(endpoint)
    deadline = time.monotonic() + timeout
    answer_by = None if connect_timeout is None else time.monotonic() + connect_timeout
    answered = False
    heard: float | None = None  # once seated: when the table last spoke
    at_table = ""
    table_edition: str | None = None  # once the welcome has said it
    chat = LobbyChat(identity, chat_said, chat_heard)
    speaking: dict[bytes, tuple[int, str]] = {}  # who may say a line, as the last table showed (lobbychat.py)
    our_seat = 0  # as the welcome says it
    try:
        while heard is not None or time.monotonic() < deadline:
            if leaving is not None and leaving():
                raise LeftLobby("you left the table before the game began")
            if heard is not None and time.monotonic() - heard > TABLE_QUIET:
                raise LobbyError(f"the table at {address} seated us, then said nothing for {TABLE_QUIET:.0f} s: "
                                 "its host seems to have stopped")
            if host_key is not None and not answered and transport.refused(endpoint):
                raise LobbyError(f"the table at {address} does not hold the key given (--key), or is of another "
                                 f"release: {transport.refused(endpoint)}")
            if answer_by is not None and time.monotonic() > answer_by:
                raise LobbyError(f"no table answers at {address} (waited {connect_timeout:g} s): "
                                 "check the address and that the host is running `saboteur-p2p host`")
            line = chat.due(bound, our_seat, name) if heard is not None and bound else None
            if line is not None:
                transport.send(endpoint, line)
            for inbound in transport.poll(0.2):
                if inbound.connection != from_table:
                    continue
                answer_by, answered = None, True  # the table is there: now wait for it to fill and start
                try:
                    env = open_envelope(inbound.data)
                except BadEnvelope:
                    continue
                if heard is not None:
                    heard = time.monotonic()
                if env.kind == "challenge":
                    # bind our hello to this table: say it again with the table's salt
                    salt = env.body.get("salt")
                    if bound or not isinstance(salt, bytes) or len(salt) != CODE_SALT_BYTES:
                        raise LobbyError("the table asked for our hello in a way this release does not follow")
                    bound, challenger = salt, env.key
                    transport.send(endpoint, hello(identity, name, transport.advertised(endpoint), b"", edition, nonce, salt,
                                                   challenger, listens))
                    continue
                if env.kind == "code":
                    # the table wants its code: show we know it, with the table's own salt and share
                    salt = env.body.get("salt")
                    if not code:
                        raise LobbyError("this table needs its code: add --code PASS")
                    if bound or not isinstance(salt, bytes) or len(salt) != CODE_SALT_BYTES:
                        raise LobbyError("the table asked for its code in a way this release does not follow")
                    bound, challenger = salt, env.key
                    try:
                        proof = prove_code(table_key(code, salt), salt, identity.public.sign_key, nonce, env.body.get("share"))
                    except InvalidPoint as exc:
                        raise LobbyError(f"the table asked for its code with a bad share ({exc})") from None
                    transport.send(endpoint, hello(identity, name, transport.advertised(endpoint), proof, edition, nonce, salt,
                                                   challenger, listens))
                    continue
                if env.kind == "reject":
                    reason = env.body.get("reason")
                    if reason == TABLE_CLOSED and heard is not None:
                        raise ClosedTable(TABLE_CLOSED)  # an end, not a failure: nothing to do about it
                    said = printable(reason)[:200]
                    raise LobbyError(f"the table refused us: {said}" + (IDENTITY_HINT if reason == SEATED_IDENTITY else ""))
                if env.kind == "welcome":
                    rules = env.body.get("config")
                    their_edition = rules.get("edition") if isinstance(rules, dict) else None
                    listed = rules.get("variants") if isinstance(rules, dict) else None  # the host's word, said only
                    named = [printable(v)[:30] for v in listed[:8] if isinstance(v, str)] if isinstance(listed, list) else []
                    also = f"; variants {', '.join(named)}" if named else ""  # a rule change a joiner was not told of
                    played = f" ({printable(their_edition)[:20]} edition{also})" if isinstance(their_edition, str) else ""
                    seat_of = printable(f"seat {env.body.get('seat')} of {env.body.get('seats_total')}")[:60]
                    if heard is None:  # said once: a table that says welcome again is not heard twice
                        say(f"seated at {address} as {seat_of}{played}; waiting for the others")
                        timer = env.body.get("turn_time")  # the host's turn timer: only a bot's move for us hangs on it
                        if isinstance(timer, (int, float)) and not isinstance(timer, bool) and 1 <= timer <= MAX_TURN_TIME \
                                and on_turn_time is not None:
                            on_turn_time(float(timer))
                    table_edition = printable(their_edition)[:20] if isinstance(their_edition, str) else None
                    given = env.body.get("seat")
                    our_seat = given if isinstance(given, int) and not isinstance(given, bool) else our_seat
                    heard = time.monotonic()  # seated: wait for the start as long as the table speaks
                elif env.kind == "table":
                    seats = env.body.get("seats")  # the host's word only: anything not a list is ignored
                    listed = seats[:MAX_SEATS_SHOWN] if isinstance(seats, list) else []
                    names = [s[0] for s in listed if isinstance(s, list) and s]
                    speaking = speakers(env, bound, challenger)
                    now_at_table = f"at the table: {', '.join(printable(n)[:40] for n in names)}"
                    if now_at_table != at_table:  # the host repeats it while the table fills
                        seated_list(now_at_table)  # at a bounded rate: a table may change it every message
                        at_table = now_at_table
                        if on_table is not None and table_edition is not None:
                            total = env.body.get("seats_total")  # the empty seats are shown too
                            shown = total if isinstance(total, int) and 0 < total <= MAX_SEATS_SHOWN else 0
                            on_table(table_edition, tuple(printable(n)[:40] for n in names), shown)
                elif env.kind == LOBBY_CHAT and env.key in speaking and env.key != identity.public.sign_key:
                    chat.take(env, bound, *speaking[env.key])  # a line the host passes on is signed by its speaker
                elif env.kind == "start":
                    try:
                        table = Table.from_envelope(env)
                    except BadEnvelope as exc:
                        notice(f"ignored a bad start message: {printable(exc)}")
                        continue
                    mine = table.seat_of(identity.public.sign_key)
                    if mine is None:
                        raise LobbyError("the game started without us")
                    if table.seats[mine].dh_key != identity.public.dh_key:
                        raise LobbyError("the table's start gives our seat another key: our links would be readable")
                    if table.nonces[mine] != nonce and table.game_id.hex()[:16] not in resumable:
                        raise LobbyError("the table's start does not carry our nonce, and this machine keeps no log of "
                                         "that game: either it started with an earlier run of this player's program "
                                         "(without its log the seat cannot be taken back), or the start is replayed "
                                         "or forged")
                    try:
                        if table.nonces[mine] == nonce:  # a new game: everyone said hello to the table we did
                            if table.table != bound or env.key != challenger or mine == 0:
                                raise BadEnvelope("start: it is not the start of the table we said hello to, with its "
                                                  "host at seat 0 and us at another")
                            table.check_hellos()
                        else:  # a game under way: each seat said hello to its table, where it began
                            table.check_hellos(running=True)
                    except BadEnvelope as exc:
                        raise LobbyError(f"the table's start is false: {printable(exc)}") from None
                    if edition is not None and table.config.edition != edition:
                        raise LobbyError(f"the table plays the {table.config.edition} edition, not {edition}")
                    if any(not valid_endpoint(s.endpoint) for s in table.seats):
                        raise LobbyError("the table lists a seat whose endpoint is not tcp://host:port")
                    # the peer that answered may have bound a wildcard address (0.0.0.0): reach
                    # its link endpoint at the address we reached it
                    signer = table.seat_of(env.key)
                    if signer is None:
                        continue
                    seats = list(table.seats)
                    info = seats[signer]
                    reached = f"tcp://{endpoint_host(endpoint)}:{info.endpoint.rsplit(':', 1)[1]}"
                    seats[signer] = SeatInfo(info.name, info.sign_key, info.dh_key, reached)
                    return dataclasses.replace(table, seats=tuple(seats))
    except ClosedTable:
        raise
    except (LeftLobby, KeyboardInterrupt):
        if bound:  # seated, or about to be by the hello said with the table's salt: free the seat
            transport.send(endpoint, seal(identity, "leave", {"table": bound, "nonce": nonce}))
        raise
    raise LobbyError(f"no answer from {address} within {timeout:.0f} s")
