"""Hosting and joining a table from the command line: lobby, bot peers, session, exit status."""
from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

try:
    import fcntl
except ImportError:  # not on Windows: a second join there is not stopped
    fcntl = None  # type: ignore[assignment]

from ..botapi import bot_label
from ..crypto.identity import Identity
from ..crypto.workers import THREADS_VARIABLE, set_threads, share_cores
from ..files import NotAFile, open_lock, open_regular, read_note, write_note
from ..rules import GameConfig
from .agents import BotAgent, LineAgent
from .discovery import TableAnnouncer
from .invite import LobbyError, join_commands
from .lobby import MAX_TURN_TIME, LeftLobby, host_lobby, join_lobby
from .session import Agent, Outcome, Session, SessionResult
from .standin import STAND_IN_DELAY
from .table import DEFAULT_WAIT_MS, Table
from .transport import Transport, endpoint_host, is_wildcard, local_address_towards, valid_endpoint

EXIT_CODES = {Outcome.FINISHED: 0, Outcome.CHEATER: 3, Outcome.PEER_GONE: 4, Outcome.QUIT: 5}


#: seconds a bot peer waits before each move at a table with a person (``--bot-delay``)
DEFAULT_BOT_DELAY = 0.8
#: seconds a table waits for a seat gone silent, when its host gives no ``--wait``
DEFAULT_WAIT = DEFAULT_WAIT_MS / 1000
#: seconds a host that was stopped mid-game gives its bot peers to hear its bye and end
BYE_HEARD_S = 2.0


def _agent(bot: str | None, say: Callable[[str], None], seed: int, bot_delay: float = 0.0) -> BotAgent | LineAgent:
    return BotAgent(bot, seed, delay=bot_delay) if bot else LineAgent(say)


def bot_peer_names(count: int, kind: str | Sequence[str]) -> list[tuple[str, str]]:
    """The name and bot of each of ``count`` bot peers: "heuristic-1", "random-2", ..."""
    kinds = [kind] if isinstance(kind, str) else list(kind)
    return [(f"{bot_label(kinds[i % len(kinds)])}-{i + 1}", kinds[i % len(kinds)]) for i in range(count)]


def spawn_bot_peers(
    address: str, count: int, kind: str | Sequence[str], log_dir: Path, code: str | None, wait: float,
    edition: str | None = None, bot_delay: float = 0.0, held: contextlib.ExitStack | None = None,
) -> list[BotPeer]:
    """Start ``count`` bot peers as separate processes that join like anyone else.

    ``kind`` names the bot of every peer, or gives each peer its own (cycled if short);
    with ``edition`` given, a peer sits only at a table of that edition; ``bot_delay``
    paces their moves for the people at the table.  Each peer keeps its identity, logs and
    output in a folder of ``log_dir`` that no other table on this machine is using;
    ``held`` keeps those folders taken (until it closes).
    """
    peers = []
    # the peers and the host share this machine's cores (a proof's threads would take turns)
    env = {**os.environ, THREADS_VARIABLE: str(share_cores(count + 1))}
    own = contextlib.ExitStack()
    for name, bot in bot_peer_names(count, kind):
        folder = bot_folder(log_dir, name, held if held is not None else own)
        command = [
            sys.executable, "-m", "saboteur_p2p", "join", address, "--bot", bot, "--name", name,
            "--identity", str(folder.parent / f"{folder.name}.identity"), "--log-dir", str(folder),
            "--quiet", "--wait", str(wait),
        ]
        if code:
            command += ["--code", code]
        if edition:
            command += ["--edition", edition]
        if bot_delay:
            command += ["--bot-delay", str(bot_delay)]
        with open(folder / BOT_OUTPUT, "ab") as output:
            # a process group of its own: a Ctrl-C at the host's terminal stops the host, which says
            # bye for its seat and then stops its bot peers (they must not each say bye first).  Not
            # a session of its own: the scheduler's autogroups would then treat each peer as a
            # desktop task of its own, and turns took 3-5 ms longer at the median (benchmarks/network_game.py)
            process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, env=env,
                                       process_group=None if os.name == "nt" else 0)  # POSIX only
        peers.append(BotPeer(name, folder, process))
    own.close()
    return peers


#: the shortest turn timer a joiner takes on from its table (seconds): one shorter would let a
#: host have bots play its guests' moves
MIN_TABLE_TURN_TIME = 15.0

def _table_timer(offered: list[float], kept: Path, say: Callable[[str], None]) -> float | None:
    """The turn timer a person's seat takes on from its table (``offered`` by its welcome), if
    it set none: the host's --turn-time timed only the host, and a friend sat on a move for
    ever (found by a play-test); one too short to play by is not taken (a host's 1 s had a bot
    play a whole game for a person: review).  A seat taken back mid-game has no welcome: the
    timer it took on is kept beside its log (``kept``)."""
    if not offered:
        with contextlib.suppress(OSError, ValueError):
            noted = read_note(kept, "timer file")
            if type(noted) in (int, float) and MIN_TABLE_TURN_TIME <= noted <= MAX_TURN_TIME:
                offered = [float(noted)]
    if not offered:
        return None
    if not MIN_TABLE_TURN_TIME <= offered[-1] <= MAX_TURN_TIME:
        say(f"this table's turn timer, {offered[-1]:g} s, is too short to take on: you have no timer "
            "(--turn-time S sets one)")
        return None
    say(f"this table gives each player {offered[-1]:g} s a move; then a bot moves for you "
        "(--turn-time S sets your own, --turn-time off none)")
    with contextlib.suppress(OSError, ValueError):
        write_note(kept, offered[-1], sync=False)
    return offered[-1]


#: the file in a bot peer's folder that its printed output goes to
BOT_OUTPUT = "output.txt"


@dataclass(frozen=True)
class BotPeer:
    """A bot peer started on this machine: its name at the table, its folder, its process."""

    name: str
    folder: Path
    process: subprocess.Popen[bytes]

    def failure(self) -> str | None:
        """Why it stopped before the game began (the last line it printed), or None while it runs."""
        if self.process.poll() is None:
            return None
        output = self.folder / BOT_OUTPUT
        last = ""
        with contextlib.suppress(OSError):
            lines = output.read_text(encoding="utf-8", errors="replace").splitlines()
            last = next((line.strip() for line in reversed(lines) if line.strip()), "")
        said = f": {last}" if last else f" (exit status {self.process.returncode})"
        return f"the bot peer {self.name} stopped before the game began{said} (its output is in {output})"


def _reap(children: list[subprocess.Popen[bytes]]) -> None:
    """Wait for this table's bot peers to stop (30 s each at most, then kill)."""
    for child in children:
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _stop(children: list[subprocess.Popen[bytes]], grace: float) -> None:
    """Stop this table's bot peers: those still running after ``grace`` seconds are terminated."""
    deadline = time.monotonic() + grace
    for child in children:
        try:
            child.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.terminate()


def bot_folder(log_dir: Path, name: str, held: contextlib.ExitStack) -> Path:
    """The folder for the bot peer ``name``: ``log_dir/name``, or ``name.2``, ``name.3``, ... when
    another table on this machine (two ``play`` at once) holds it; ``held`` keeps it taken.

    Two tables' bots must not share a folder: they would share an identity, and the second
    would be refused its seat (one process per seat) and leave its table waiting."""
    for copy in range(1, 1000):
        folder = log_dir / (name if copy == 1 else f"{name}.{copy}")
        folder.mkdir(parents=True, exist_ok=True)
        if fcntl is None:
            return folder  # no lock to take on Windows: the first folder, as before
        try:
            lock = open_lock(folder / "table.lock")  # held open by ``held``
        except NotAFile:
            continue  # not a lock file (a pipe in its place): another folder
        try:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.close()
            continue
        if any(_held(path) for path in folder.glob("join-*.lock")):
            # a bot peer of a table whose host died still plays here, waiting for that table's
            # seat (found by review: a new play's bot was refused its folder's identity)
            lock.close()
            continue
        held.enter_context(lock)
        return folder
    raise LobbyError(f"no free folder for the bot peer {name} in {log_dir}: a thousand tables are using it")


def host_table(
    identity: Identity, name: str, bind: str, config: GameConfig, bot: str | None,
    bot_peers: int, bot_peers_kind: str | Sequence[str], log_dir: Path, code: str | None, wait: float | None,
    say: Callable[[str], None], agent: Agent | None = None, started: Callable[[], bool] | None = None,
    children: list[subprocess.Popen[bytes]] | None = None, bot_delay: float = 0.0, turn_time: float | None = None,
    on_leave: str = "bot", announce: bool = False, stand_in_delay: float = STAND_IN_DELAY,
    on_lobby: LobbyListener | None = None, remember_play: bool = False,
) -> SessionResult:
    """Open a table, fill it, and play: ``agent`` (else a bot or the line prompt) plays our seat.

    A person who leaves hands the seat to a bot on this node (``on_leave="bot"``) or ends
    the game (``"end"``: a table of this person and bots); ``turn_time`` is the turn timer;
    ``wait`` (None: DEFAULT_WAIT) the table's wait for a seat gone silent, which the genesis
    states and every joiner that gives none of its own takes on.

    ``started`` says when to start before every seat is taken (else typing ``start`` on
    stdin does); the bot peers started are also added to ``children`` when it is given.
    ``bot_delay`` paces the bot peers (and a bot in our own seat).  With ``announce``, the
    table is announced on the LAN until the game starts.  ``on_lobby`` hears the table's
    edition, the names seated so far and how friends join, as the lobby opens and as each
    joiner sits down (the full-screen client shows them).  With ``remember_play``, the game
    is noted in ``log_dir`` while it is played (``UNFINISHED_PLAY``): after a crash, the next
    ``play`` takes the seat back.
    """
    wait = DEFAULT_WAIT if wait is None else wait
    with _one_process_per_identity(log_dir, identity):  # as for join: one process per seat's files
        transport = Transport(bind, link_keys=identity.link_keys())
        say(f"the signed game log is kept in {log_dir}")
        children = children if children is not None else []
        start_now = threading.Event()
        if agent is None:
            agent = _agent(bot, say, 0, bot_delay)
        #: whether anyone but our bot peers may take a seat (``play`` fills every seat with them)
        invite = bot_peers < config.players - 1
        if not bot:
            if invite:
                say("type 'start' to begin before every seat is taken")
            if started is None and isinstance(agent, LineAgent):
                started = agent.start_requested  # one reader of stdin: the line prompt's
            elif started is None:
                threading.Thread(target=_wait_for_start, args=(start_now,), daemon=True).start()

        if bot_peers:
            set_threads(share_cores(bot_peers + 1))  # our seat's part of the cores it shares with them
        peers: list[BotPeer] = []
        held = contextlib.ExitStack()  # the bot peers' folders, taken until they are done

        def spawn() -> None:
            host_port = transport.endpoint.rsplit(":", 1)[1]
            host_ip = transport.endpoint.split("//")[1].rsplit(":", 1)[0]
            reachable = "127.0.0.1" if host_ip in ("0.0.0.0", "*") else host_ip
            peers.extend(spawn_bot_peers(
                f"{reachable}:{host_port}", bot_peers, bot_peers_kind, log_dir, code, wait, config.edition,
                bot_delay, held,
            ))
            children.extend(peer.process for peer in peers)

        begin = started or start_now.is_set
        person = agent

        def start_or_leave() -> bool:
            if getattr(person, "wants_to_quit", False):
                raise _ClosedLobby  # the person left (quit, Ctrl-D, or the client's q) before the start
            failed = next(filter(None, (peer.failure() for peer in peers)), None)
            if failed:
                raise _ClosedLobby(failed)  # its seat would never be taken: the table would wait for ever
            return begin()

        announcer: TableAnnouncer | None = None
        failed = playing = False
        try:
            if announce and invite:
                announcer = TableAnnouncer.start(transport.endpoint, name, config.edition, config.players, 1, bool(code), say,
                                                 identity.public.dh_key)
            key = transport.link_keys[0] if transport.link_keys else None
            joining = tuple(join_commands(transport.endpoint, key, bool(code))) if invite else ()
            watch = _LobbyWatch(name, config.edition, config.players, joining,
                                on_lobby, announcer.seats_taken if announcer else None)
            try:
                table = host_lobby(
                    identity, name, transport, config, code, _lobby_say(say, transport.endpoint), start_or_leave, spawn,
                    on_seated=watch.seated, invite=invite, turn_time=turn_time, wait=wait,
                    chat_said=getattr(agent, "poll_chat", None), chat_heard=getattr(agent, "chat", None),
                    order=[name for name, _ in bot_peer_names(bot_peers, bot_peers_kind)] if bot_peers else (),
                )
            except _ClosedLobby as closed:
                for child in children:
                    child.terminate()  # bot peers waiting for a start that will not come
                why = closed.args[0] if closed.args else "you closed the table before the game began"
                result = SessionResult(Outcome.QUIT, why)
                failed = bool(closed.args)
            else:
                if announcer is not None:
                    announcer.withdraw()  # the table is no longer open
                playing = True
                session = Session(table, identity, transport, agent, log_dir, say, wait, turn_time, on_leave, stand_in_delay)
                session.bye_on_interrupt |= bool(children)  # its bot peers stop with it: nobody waits for them
                if remember_play:
                    _remember_play(log_dir, table, identity, on_leave)
                try:
                    result = session.run()
                finally:  # (a process killed outright leaves the note: that is what it is for)
                    if remember_play:
                        forget_play(log_dir)
        except BaseException:
            # the table is gone: its bot peers would wait for it in vain.  In a game our seat said
            # bye (Ctrl-C): a moment lets them hear it and end their logs as the others do
            _stop(children, BYE_HEARD_S if playing else 0.0)
            raise
        finally:
            if announcer is not None:
                announcer.close()
            transport.close()
            with held:  # the bot peers' folders are free once they have stopped
                _reap(children)
        if failed:
            raise LobbyError(result.message)  # said on the screen (and the exit status 2), not kept in a log
        return result


#: what ``on_lobby`` hears: the table's edition, the names seated (the host's first), the
#: commands friends join with (none when nobody is invited), and the table's seats in all
LobbyListener = Callable[[str, tuple[str, ...], tuple[str, ...], int], None]


class _LobbyWatch:
    """Tells the host's lobby screen (``on_lobby``) and the LAN announcement (``on_count``)
    who sits at the table, as the lobby seats them."""

    def __init__(self, host: str, edition: str, seats: int, joining: tuple[str, ...], on_lobby: LobbyListener | None,
                 on_count: Callable[[int], None] | None) -> None:
        self.edition, self.seats, self.joining = edition, seats, joining
        self._on_lobby, self._on_count = on_lobby, on_count
        if on_lobby is not None:
            on_lobby(edition, (host,), joining, seats)

    def seated(self, names: tuple[str, ...]) -> None:
        if self._on_lobby is not None:
            self._on_lobby(self.edition, names, self.joining, self.seats)
        if self._on_count is not None:
            self._on_count(len(names))


class _ClosedLobby(Exception):
    """The host's person left while the table was still filling, or (with a message saying
    why) a bot peer stopped before it took its seat."""


def _lobby_say(say: Callable[[str], None], endpoint: str) -> Callable[[str], None]:
    """The lobby opens by naming the bound endpoint; a wildcard (tcp://0.0.0.0:7777) is no
    address to give anyone, so it says the port, and its next line lists this machine's
    addresses to join at."""
    if not is_wildcard(endpoint_host(endpoint)):
        return say
    port = endpoint.rsplit(":", 1)[1]
    return lambda text: say(text.replace(f"table open at {endpoint}", f"table open on port {port}"))


def _wait_for_start(flag: threading.Event) -> None:
    for line in sys.stdin:
        if line.strip() == "start":
            flag.set()
            return


def table_wait(own: float | None, table: Table, say: Callable[[str], None]) -> float:
    """The wait a joiner judges a silent seat by: the table's (its host's ``--wait``, which
    the genesis states, so every seat that takes it on waits alike), unless the player gave
    its own ``own``; either is said."""
    table_s = DEFAULT_WAIT if table.wait_ms is None else table.wait_ms / 1000
    if own is None:
        say(f"the table waits {table_s:g} s for a seat gone silent (its host's --wait)")
        return table_s
    if own != table_s:
        say(f"you wait {own:g} s for a seat gone silent (--wait), the table {table_s:g} s: a seat whose own "
            "wait differs may judge a silence otherwise than the others")
    return own


def join_table(
    identity: Identity, name: str, address: str, bind: str | None, bot: str | None, log_dir: Path,
    code: str | None, wait: float | None, say: Callable[[str], None], agent: Agent | None = None,
    edition: str | None = None, bot_delay: float = 0.0,
    connect_timeout: float | None = None, turn_time: float | None = None, stand_in_delay: float = STAND_IN_DELAY,
    host_key: bytes | None = None, on_lobby: LobbyListener | None = None, on_leave: str = "bot",
    table_timer: bool = True, take_back: bool = False,
) -> SessionResult:
    """Take a seat at the table at ``address`` (of ``edition`` only, when given) and play;
    ``take_back``: a game our log shows we stopped (its verdict written) may be taken up again;
    without a ``turn_time`` of our own, a person's seat keeps the table's turn timer if its
    welcome gives one of MIN_TABLE_TURN_TIME or more (``table_timer``: False, ``--turn-time off``);
    ``bot_delay`` paces a bot in our seat; a table silent for ``connect_timeout`` seconds is
    taken to be absent; with ``host_key`` (the host's link key) the lobby is encrypted; a
    person who leaves hands the seat to a bot, or ends the game (``on_leave``, as ``host_table``)."""
    host = address.replace("tcp://", "").rsplit(":", 1)[0]
    with _one_process_per_identity(log_dir, identity):
        transport = Transport(bind or f"{local_address_towards(host)}:0", link_keys=identity.link_keys())
        say(f"the signed game log is kept in {log_dir}")
        try:
            resumable = logged_games(log_dir)
            timers: list[float] = []  # the table's turn timer, if its welcome gives one
            try:
                table = join_lobby(
                    identity, name, transport, address, code, say,
                    timeout=max(DEFAULT_WAIT if wait is None else wait, 60),
                    edition=edition,
                    resumable=resumable,
                    connect_timeout=connect_timeout,
                    host_key=host_key,
                    leaving=lambda: getattr(agent, "wants_to_quit", False),
                    on_table=None if on_lobby is None else lambda edition, names, seats: on_lobby(edition, names, (), seats),
                    on_turn_time=timers.append,
                    chat_said=getattr(agent, "poll_chat", None), chat_heard=getattr(agent, "chat", None),
                )
            except LeftLobby as left:
                return SessionResult(Outcome.QUIT, str(left))
            seat = table.seat_of(identity.public.sign_key)
            wait = table_wait(wait, table, say)
            if turn_time is None and bot is None and table_timer:
                turn_time = _table_timer(timers, log_dir / f"game-{table.game_id.hex()[:16]}-seat{seat}.timer", say)
            towards = address if address.startswith("tcp://") else f"tcp://{address}"
            watched = transport.advertised_table(towards).removeprefix("tcp://")  # a link endpoint takes seats only
            say(f"this seat listens at {transport.advertised(towards)} (spectators: saboteur-p2p watch {watched})")
            agent = agent or _agent(bot, say, seat or 0, bot_delay)
            return Session(
                table, identity, transport, agent, log_dir, say, wait, turn_time, on_leave, stand_in_delay=stand_in_delay,
                resuming=table.game_id.hex()[:16] in resumable, take_back_stopped=take_back,
            ).run()
        finally:
            transport.close()


#: In a log folder, while a ``play`` table (a person and bot peers on this machine) plays:
#: its game and the other seats' endpoints.  A ``play`` whose process died (a crash, a closed
#: terminal) leaves it behind, and the next ``play`` takes the seat back through a bot peer
#: still waiting for it (a seat gone silent is waited for ``--wait`` seconds; found by a
#: play-test: a crash lost the game, and its bots waited for nobody)
UNFINISHED_PLAY = "play-unfinished.json"


def _remember_play(log_dir: Path, table: Table, identity: Identity, on_leave: str) -> None:
    own = identity.public.sign_key
    others = [[seat.endpoint, seat.dh_key.hex()] for seat in table.seats if seat.sign_key != own]
    note = {"game": table.game_id.hex()[:16], "identity": identity.public.fingerprint(), "seats": others,
            "on_leave": on_leave}
    with contextlib.suppress(OSError, ValueError):  # a pipe or folder in its place: no note, but the game goes on
        write_note(log_dir / UNFINISHED_PLAY, note)


def noted_leave(log_dir: Path, unsaid: str) -> str:
    """What a person's leave did at the table noted in ``log_dir`` (``host_table``'s
    ``on_leave``): the seat taken back does the same, whichever command takes it back (a
    review: ``host`` took back a ``play`` game, and a bot played on at a table of bots).
    ``unsaid`` when the note does not say (a note of the release before: the rule of the
    command that takes the seat back, as that release did)."""
    try:
        said = read_note(log_dir / UNFINISHED_PLAY, "note").get("on_leave")
    except (OSError, ValueError, AttributeError):
        said = None
    return said if said in ("bot", "end") else unsaid


def unfinished_play(log_dir: Path, identity: Identity) -> list[tuple[str, bytes]]:
    """The other seats of a ``play`` game that ``identity`` did not finish from this folder
    (``UNFINISHED_PLAY``) and that still listen: each one's endpoint and link key (its table
    endpoint takes only seats, encrypted to that key).  None if there is no such game (a note
    of another identity's is left alone), or its bot peers have all stopped (the note is
    then forgotten)."""
    path = log_dir / UNFINISHED_PLAY
    try:
        data = read_note(path, "note")
        game, whose = data["game"], data.get("identity")
        seats = [(endpoint, bytes.fromhex(key)) for endpoint, key in data["seats"]]
        if not all(isinstance(endpoint, str) and valid_endpoint(endpoint) and len(key) == 32 for endpoint, key in seats):
            # a key of another length stopped every later ``play`` with a bare error (an attack
            # on the note): the note is unreadable, and forgotten
            raise ValueError("not an endpoint and a 32-byte key for each seat")
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        seats, game, whose = [], None, None
    if whose is not None and whose != identity.public.fingerprint():
        return []  # another identity's game in this folder (found by review)
    kept = isinstance(game, str) and game in logged_games(log_dir)
    listening = [(endpoint, key) for endpoint, key in seats if _listens(endpoint)] if kept else []
    if not listening:
        forget_play(log_dir)
    return listening


def forget_play(log_dir: Path) -> None:
    """The ``play`` game noted in ``log_dir`` is over (or left): no seat to take back."""
    (log_dir / UNFINISHED_PLAY).unlink(missing_ok=True)


def _listens(endpoint: str) -> bool:
    """Whether something takes connections at ``endpoint`` (tcp://HOST:PORT) now."""
    host, _, port = endpoint.removeprefix("tcp://").rpartition(":")
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=1.0):
            return True
    except (OSError, ValueError):
        return False


def _held(path: Path) -> bool:
    """Whether a process holds the lock file at ``path`` (``_one_process_per_identity``'s)."""
    assert fcntl is not None
    try:
        with open_lock(path) as lock:
            fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            fcntl.flock(lock.fileno(), fcntl.LOCK_UN)
    except (OSError, ValueError):
        return True
    return False


def identity_in_use(log_dir: Path, identity: Identity) -> str | None:
    """Why ``identity`` cannot take a seat from ``log_dir`` now (another process plays with
    it: ``_one_process_per_identity``), or None."""
    path = log_dir / f"join-{identity.public.fingerprint()}.lock"
    if fcntl is None or not path.exists():
        return None
    if not path.is_file():  # a pipe there made every join hang (found by an attack)
        return f"the lock file {path} is not a regular file (a folder, pipe or device): remove it"
    return _held_by(path, log_dir) if _held(path) else None


@contextlib.contextmanager
def _one_process_per_identity(log_dir: Path, identity: Identity) -> Iterator[None]:
    """Hold a lock for this identity in ``log_dir`` while a seat is taken and played: a second
    ``join`` with the same identity and folder (launched twice by mistake, or by a host that
    joins another table meanwhile, whose host answers with the first table's start) would
    play the same seat from the same files, and its records would make the seat look an
    equivocating cheater."""
    log_dir.mkdir(parents=True, exist_ok=True)
    path = log_dir / f"join-{identity.public.fingerprint()}.lock"
    try:
        opened = open_lock(path)
    except NotAFile as exc:
        raise LobbyError(str(exc)) from None
    with opened as lock:
        if fcntl is not None:
            try:
                fcntl.flock(lock.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                raise LobbyError(_held_by(path, log_dir)) from None
            lock.truncate(0)
            lock.write(f"{os.getpid()}\n")  # who holds it, for the refusal of a second join
            lock.flush()
        yield


def identity_holder(log_dir: Path, identity: Identity) -> int | None:
    """The process of this machine that plays with ``identity`` from ``log_dir``: it holds the
    lock, wrote its number in it, and runs saboteur-p2p (its command line says so, where
    /proc tells); None if none does, or it cannot be told (the number may be stale, written
    by another, or another machine's, on a shared folder: a review)."""
    path = log_dir / f"join-{identity.public.fingerprint()}.lock"
    if fcntl is None or not path.is_file() or not _held(path):
        return None
    pid = _holder(path)
    if pid is None or pid <= 1 or pid == os.getpid():
        return None
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return pid if b"saboteur" in command else None


def _holder(path: Path) -> int | None:
    try:
        with open_regular(path, "lock file") as file:
            return int(file.read(64).decode("ascii").split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _held_by(path: Path, log_dir: Path) -> str:
    """Why a second join with this identity and folder is refused, naming the process that
    plays the seat: often the first join, whose bot took the seat when its person left."""
    pid = _holder(path)
    who = "another saboteur-p2p" if pid is None else f"another saboteur-p2p (process {pid})"
    return (f"{who} is playing with this identity and the log folder {log_dir}: one process per seat. "
            "If it is the bot left in your seat when you quit, stop it (Ctrl-C in its terminal, or kill "
            "the process) and run the same command again to take the seat back")


def logged_games(log_dir: Path) -> frozenset[str]:
    """The games this peer keeps a log of in ``log_dir`` (it may take a seat back in them), by
    the game-id prefix their log files are named with (``game-<16 hex digits>-seat<N>.log``)."""
    return frozenset(path.name.split("-")[1] for path in log_dir.glob("game-*-seat*.log"))


def quiet_say(prefix: str) -> Callable[[str], None]:
    def say(text: str) -> None:
        if os.environ.get("SABOTEUR_P2P_VERBOSE"):
            print(f"[{prefix}] {text}", flush=True)
    return say
