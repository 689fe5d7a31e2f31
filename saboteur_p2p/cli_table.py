"""The command line's table commands: host, join, play, tables and watch, and what they share
(checking addresses and bots before anything opens, the identity, where logs go, exit statuses)."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .crypto.identity import Identity
from .net.invite import LobbyError, key_text, parse_key_text
from .rules import GameConfig

if TYPE_CHECKING:
    from .client.runner import ClientRun

#: seconds a bot waits before each move at a table with a person, so the person can follow
DEFAULT_BOT_DELAY = 0.8
#: seconds the process told to stop (to take its seat back) has to let go of the seat
TAKE_BACK_S = 10.0


def _check_bind(text: str | None) -> None:
    """Refuse an ADDR:PORT this machine cannot listen at, in one line (main prints a
    ValueError as such), before any table or screen opens."""
    if text is None:
        return
    from .net.transport import interface_addresses, is_loopback, is_wildcard, numeric_host

    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--bind {text!r} is not ADDR:PORT (e.g. 0.0.0.0:7777, port 0 to 65535)")
    address = numeric_host(host) if host not in ("*", "localhost") else host
    if address is None:
        raise ValueError(f"--bind: {host!r} is not an IPv4 address (e.g. 0.0.0.0 or 192.168.1.20)")
    if address not in ("*", "localhost") and not is_wildcard(address) and not is_loopback(address):
        mine = interface_addresses()
        if address not in mine:
            known = ", ".join(["0.0.0.0 (all)", "127.0.0.1", *mine])
            raise ValueError(f"--bind: {host} is not an address of this machine; its addresses: {known}")
    if int(port):
        _check_port_free("0.0.0.0" if address in ("*", "localhost") else address, int(port))


def _check_port_free(address: str, port: int) -> None:
    """Refuse a port another program listens on now (the full-screen client would only
    show the failure after it opened)."""
    import socket

    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as ZeroMQ binds: a closing socket does not count
        try:
            probe.bind((address, port))
        except OSError as exc:
            raise ValueError(f"cannot listen at {address}:{port}: {exc.strerror} (another table or program uses it?)") from None


def _log_dir(args: argparse.Namespace) -> Path:
    """Where this seat keeps its signed game logs: --log-dir, else the platform's user data
    directory (platformdirs: ~/.local/share/saboteur-p2p/logs on Linux), never the current one.
    Made now, so a folder that cannot be is refused before a table opens, not when its game starts."""
    if args.log_dir:
        folder = Path(args.log_dir)
    else:
        from platformdirs import user_data_path

        folder = user_data_path("saboteur-p2p", appauthor=False) / "logs"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # "File exists" sent a person looking for a folder (found by an attack)
        raise ValueError(f"cannot keep the game logs in {folder}: it is a file, not a folder") from None
    except OSError as exc:
        raise ValueError(f"cannot keep the game logs in {folder}: {exc.strerror}") from None
    if not os.access(folder, os.W_OK):
        raise ValueError(f"cannot keep the game logs in {folder}: this user may not write there")
    return folder


def _check_bots(specs: Sequence[str | None]) -> None:
    """Load each named bot once now, so a wrong name is refused before any table opens
    (as ``tournament`` refuses it), not by a bot peer that fails later out of sight."""
    from .botapi import load_bot

    for spec in dict.fromkeys(spec for spec in specs if spec):
        load_bot(spec)


def _wants_client(args: argparse.Namespace) -> bool:
    """A person plays in the full-screen client unless a bot plays, --plain, or no terminal."""
    return not getattr(args, "bot", None) and not args.plain and sys.stdin.isatty() and sys.stdout.isatty()


def _identity(args: argparse.Namespace) -> Identity:
    from .crypto.identity import default_identity_path, load_or_create

    return load_or_create(args.identity or default_identity_path())


def turn_time_option(text: str) -> float:
    """``--turn-time``: seconds, 1 to 3600, or ``off`` (0.0: no timer, not even the table's)."""
    if text.strip().lower() in ("off", "none"):
        return 0.0
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if value == 0:  # "0", "0.0", "00": off too (review)
        return 0.0
    if not 1 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"must be 1 to 3600 seconds, or off, not {text}")
    return value


def _hang_up_as_ctrl_c(agent: object = None) -> contextlib.AbstractContextManager[None]:
    """A seat played without the full-screen client (``--plain``, ``--bot``) stops at a closed
    terminal as at Ctrl-C (killed, it left its table waiting and a host's bot peers running),
    unless its person has left: then the bot that plays the seat plays on (``ctrl_c_unless_left``)."""
    from .client.hangup import ctrl_c_unless_left, hang_up_handled

    return hang_up_handled(ctrl_c_unless_left(agent))


def _hang_up_kills() -> contextlib.AbstractContextManager[None]:
    """A ``play`` table played without the full-screen client: a closed terminal ends the
    process as a crash would, its bot peers waiting for the seat (``hang_up_kills``)."""
    from .client.hangup import hang_up_kills

    return hang_up_kills()


def _say(args: argparse.Namespace, name: str):  # type: ignore[no-untyped-def]
    from .net.play import quiet_say

    return quiet_say(name) if args.quiet else _print_line


def _print_line(text: str) -> None:
    """A line of the session's on the terminal; nothing once the terminal is gone (a person
    who left closed it, and the bot in their seat plays on: ``ctrl_c_unless_left``)."""
    with contextlib.suppress(OSError):
        print(text, flush=True)


def cmd_host(args: argparse.Namespace) -> int:
    from .net.play import host_table

    config = GameConfig(args.seats, args.edition, args.variant, args.rounds)
    if args.bots < 0 or args.bots > args.seats - 1:
        raise ValueError(f"--bots must be 0 to {args.seats - 1}")
    _check_bots([args.bot, args.bots_kind if args.bots else None])
    identity = _identity(args)
    log_dir = _log_dir(args)
    _check_identity_free(identity, log_dir)
    _check_bind(args.bind)
    if not args.new:
        # a host whose terminal closed mid-game ran host again and opened an empty table,
        # while the others waited for its seat and the game was lost (found by a play-test)
        resumed = _resume_play(args, identity, log_dir)
        if resumed is not None:
            return resumed
    delay = args.bot_delay if args.bot_delay is not None else (0.0 if args.bot else DEFAULT_BOT_DELAY)
    if _wants_client(args):
        from .client.runner import run_in_client

        return _client_status(run_in_client(lambda agent, children: host_table(
            identity, args.name, args.bind, config, None, args.bots, args.bots_kind, log_dir,
            args.code, args.wait, agent.say, agent=agent, started=agent.start_requested, children=children, bot_delay=delay,
            turn_time=args.turn_time or None, announce=not args.no_announce, on_lobby=agent.lobby, remember_play=True,
        ), hosting=True))
    say = _say(args, args.name)
    agent, say = _plain_agent(args, say)
    with _hang_up_as_ctrl_c(agent):
        result = host_table(
            identity, args.name, args.bind, config, args.bot,
            args.bots, args.bots_kind, log_dir, args.code, args.wait, say, agent=agent, bot_delay=delay,
            turn_time=args.turn_time or None, announce=not args.no_announce, remember_play=True,
        )
    if args.quiet:
        print(result.message)
    return _plain_status(result, agent)


def cmd_join(args: argparse.Namespace) -> int:
    from .net.play import join_table

    _check_bots([args.bot])
    _check_bind(args.bind)
    log_dir = _log_dir(args)
    _check_identity_free(_identity(args), log_dir)
    if args.address is None:
        args.address = _found_table(args)
    host_key = None if args.key is None else parse_key_text(args.key)
    if _wants_client(args):
        from .client.runner import run_in_client

        identity = _identity(args)
        return _client_status(run_in_client(lambda agent, children: join_table(
            identity, args.name, args.address, args.bind, None, log_dir, args.code, args.wait, agent.say,
            agent=agent, edition=args.edition,
            connect_timeout=args.connect_timeout, turn_time=args.turn_time or None, host_key=host_key, on_lobby=agent.lobby,
            table_timer=args.turn_time is None, take_back=args.take_back,
        )))
    say = _say(args, args.name)
    agent, say = _plain_agent(args, say)
    with _hang_up_as_ctrl_c(agent):
        result = join_table(
            _identity(args), args.name, args.address, args.bind, args.bot, log_dir, args.code, args.wait,
            say, agent=agent, edition=args.edition,
            bot_delay=args.bot_delay or 0.0, connect_timeout=args.connect_timeout, turn_time=args.turn_time or None,
            host_key=host_key, table_timer=args.turn_time is None, take_back=args.take_back,
        )
    if args.quiet:
        print(result.message)
    return _plain_status(result, agent)


def _found_table(args: argparse.Namespace) -> str:
    """The address of a table found on the LAN: the only one (--yes), or the one picked by number."""
    from .net.discovery import browse_tables, pick_table, reachable_address

    print(f"looking for tables on the LAN for {args.browse:g} s ...", flush=True)
    found = browse_tables(args.browse, args.interface)
    ask = input if sys.stdin.isatty() else None
    table = pick_table(found, args.edition, args.yes, ask, print, args.browse)
    if table.code and not args.code:
        raise LobbyError(f"{table.name}'s table needs its code: add --code PASS")
    if args.key is None and table.key is not None:
        args.key = key_text(table.key)  # the lobby is encrypted to the key the table announced
    address = reachable_address(table)
    print(f"joining {table.name} at {address} (to take this seat back after a crash: saboteur-p2p join {address})",
          flush=True)
    return address


def cmd_tables(args: argparse.Namespace) -> int:
    from .net.discovery import browse_tables

    found = browse_tables(args.browse, args.interface)
    if args.json:
        print(json.dumps([t.to_data() for t in found], indent=2))
    elif not found:
        print(f"no tables found on the LAN within {args.browse:g} s")
    else:
        for i, table in enumerate(found, 1):
            print(f"{i}. {table.describe()}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """A table of bots on this machine: loopback bot peers (or in-process with --offline)."""
    config, bots = _play_table(args)
    _check_bots(bots)
    delay = args.bot_delay if args.bot_delay is not None else DEFAULT_BOT_DELAY
    if args.offline:
        from .client.local import run_offline

        return run_offline(config, bots, args.name, args.seed, plain=not _wants_client(args), bot_delay=delay)
    from .net.play import host_table

    identity = _identity(args)
    log_dir = _log_dir(args)
    if not args.new:
        resumed = _resume_play(args, identity, log_dir)
        if resumed is not None:
            return resumed
    if not _wants_client(args):
        # the bots fill every seat: no 'start' to wait for on stdin, which the line prompt reads
        say = _say(args, args.name)
        agent, say = _plain_agent(args, say)
        with _hang_up_kills():  # the bot peers wait for the seat: 'play' again takes it back
            result = host_table(identity, args.name, "127.0.0.1:0", config, None, len(bots), bots, log_dir,
                                args.code, args.wait, say, agent=agent, started=lambda: False, bot_delay=delay,
                                on_leave="end", turn_time=args.turn_time or None, remember_play=True)
        return _plain_status(result, agent)
    from .client.runner import run_in_client

    return _client_status(run_in_client(lambda agent, children: host_table(
        identity, args.name, "127.0.0.1:0", config, None, len(bots), bots, log_dir, args.code, args.wait,
        agent.say, agent=agent, started=agent.start_requested, children=children, bot_delay=delay,
        turn_time=args.turn_time or None, on_leave="end", on_lobby=agent.lobby, remember_play=True,
    ), hosting=True, play=True))


def _check_identity_free(identity: Any, log_dir: Path) -> None:
    """Refuse, naming it, a process that plays with this identity and folder: a host whose
    terminal closed (a bot played its seat on, in the background) ran host again and was told
    only that its address was in use (found by a play-test), where join names the process.
    A person at a terminal is offered to stop it and take the seat back: with its terminal
    closed they had to find the process and kill it by hand (a play-test)."""
    from .net.play import identity_holder, identity_in_use

    busy = identity_in_use(log_dir, identity)
    if busy is None:
        return
    pid = identity_holder(log_dir, identity)
    if pid is None or not sys.stdin.isatty():
        raise LobbyError(busy)
    print(busy, flush=True)
    # the process itself, held from before the question: its number may pass to another meanwhile
    with _process_handle(pid) as handle:
        try:
            answer = input(f"stop process {pid} now and take the seat back (a host's bot seats stop with it)? [y/N] ")
        except EOFError:
            answer = ""
        if answer.strip().lower() not in ("y", "yes") or identity_holder(log_dir, identity) != pid:
            raise LobbyError(busy)
        # as a crash: the seat's log and secrets stay, and the others wait for the seat (--wait)
        with contextlib.suppress(ProcessLookupError):
            if handle is not None:
                signal.pidfd_send_signal(handle, signal.SIGTERM)
            else:
                os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + TAKE_BACK_S
    while identity_in_use(log_dir, identity) is not None:
        if time.monotonic() > deadline:
            raise LobbyError(f"process {pid} still plays with this identity {TAKE_BACK_S:g} s after it was told to stop: "
                             f"kill it (kill -9 {pid}) and run the same command again")
        time.sleep(0.1)
    print(f"process {pid} stopped: taking the seat back", flush=True)


@contextlib.contextmanager
def _process_handle(pid: int) -> Iterator[int | None]:
    """A pidfd of process ``pid`` (Linux), which names that process alone whatever becomes of
    its number; None where there is none."""
    try:
        handle = os.pidfd_open(pid)
    except (AttributeError, OSError):
        yield None
        return
    try:
        yield handle
    finally:
        os.close(handle)


def _resume_play(args: argparse.Namespace, identity: Any, log_dir: Path) -> int | None:
    """Take our seat back in the ``play`` or ``host`` game this folder's seat left unfinished
    (its process died), through a seat still waiting for it; None when there is none to go
    back to, or it cannot be taken back (then a new game starts)."""
    from .net.play import forget_play, join_table, noted_leave, unfinished_play
    from .net.seatstate import SeatLost

    _check_identity_free(identity, log_dir)  # that process may be the game itself: its note stays (review)
    seats = unfinished_play(log_dir, identity)
    if not seats:
        return None
    print("taking your seat back in your unfinished game (the others wait the table's --wait for a seat gone silent; "
          f"'{args.command} --new' starts a new game instead)", flush=True)
    address, key = seats[0]
    # leaving does what it did before the crash: a play table ends (every other seat is this
    # machine's bot; a bot played the seat on, and held the terminal, instead: a play-test)
    on_leave = noted_leave(log_dir, "end" if args.command == "play" else "bot")
    # a host listens where it did (its --bind, checked free): spectators and friends who knew
    # the table's address found nothing there after it came back (found by a play-test)
    bind = getattr(args, "bind", None) if args.command == "host" else None
    try:
        if _wants_client(args):
            from .client.runner import run_in_client

            run = run_in_client(lambda agent, children: join_table(
                identity, args.name, address, bind, None, log_dir, args.code, args.wait, agent.say, agent=agent,
                connect_timeout=10.0, turn_time=args.turn_time or None, host_key=key, on_lobby=agent.lobby, on_leave=on_leave,
            ), play=on_leave == "end")
            if isinstance(run.error, LobbyError):
                raise run.error
            status = _client_status(run)
        else:
            say = _say(args, args.name)
            agent, say = _plain_agent(args, say)
            with _hang_up_kills() if on_leave == "end" else _hang_up_as_ctrl_c(agent):
                result = join_table(identity, args.name, address, bind, getattr(args, "bot", None), log_dir, args.code,
                                    args.wait, say, agent=agent, connect_timeout=10.0, turn_time=args.turn_time or None,
                                    host_key=key, on_leave=on_leave)
            status = _plain_status(result, agent)
    except (LobbyError, SeatLost) as error:
        # no bot answers for it any more (a port taken by another program), or the seat's log
        # says its game stopped (killed just after its verdict, the note kept: every later run
        # stopped on it, naming a flag these commands lack: found by review)
        forget_play(log_dir)
        print(f"your unfinished game could not be taken back ({error}); a new game starts", flush=True)
        return None
    # (a process killed outright keeps the note: the seat can be taken back again)
    forget_play(log_dir)
    return status


def _play_table(args: argparse.Namespace) -> tuple[GameConfig, list[str]]:
    """The rules and the bot of each bot seat for ``play``: 5 players, or you and the bots listed."""
    names = args.bots or ("heuristic",)
    players = args.players or (len(names) + 1 if len(names) > 1 else 5)
    config = GameConfig(players, args.edition, args.variant, args.rounds)
    return config, [names[i % len(names)] for i in range(config.players - 1)]


def _plain_agent(args: argparse.Namespace, say: Any) -> tuple[Any, Any]:
    """The line prompt for a person (None when a bot plays the seat), and what the session
    says through (the prompt's, which leaves out what its narration said)."""
    if getattr(args, "bot", None):
        return None, say  # (before the imports: a bot peer has no use for the prompt's 9 MiB)
    from .client.lineedit import terminal_editor
    from .client.plain import PlainAgent, terminal_prompt, terminal_width

    agent = PlainAgent(say, terminal_width(), terminal_prompt(), terminal_editor())
    return agent, agent.session_say


def _plain_status(result: Any, agent: Any) -> int:
    """The exit status of a line-prompt seat: 0 when the person chose to leave, else the session's."""
    from .net.play import EXIT_CODES

    if agent is not None:
        agent.close()  # its line editor gives the terminal back, and what it printed is written
    if getattr(agent, "wants_to_quit", False):
        return 0
    return EXIT_CODES[result.outcome]


def _client_status(run: ClientRun[Any]) -> int:
    """The exit status of a client run: the session's, or 0 when the person chose to leave."""
    from .net.play import EXIT_CODES

    if run.error is not None:
        raise run.error
    if run.quit or run.result is None:
        return 0  # leaving the table is a normal end for the one who leaves
    return EXIT_CODES[run.result.outcome]


def cmd_watch(args: argparse.Namespace) -> int:
    """A spectator: the full-screen viewer following the table live, or (``--plain``, or no
    terminal) each public event printed as it comes."""
    from .net.watch import WatchFailed, watch_table

    if _wants_client(args):
        return _watch_in_viewer(args)
    from .match import narrate

    told = [0]

    def show(node):  # type: ignore[no-untyped-def]
        state = node.state
        if state is None:
            return
        for line in narrate(state.events[told[0]:], list(node.setup.names), edition=state.config.edition):
            print(line, flush=True)
        told[0] = len(state.events)

    try:
        watched = watch_table(args.address, show, lambda text: print(text, flush=True), args.connect_timeout,
                              seat_key=None if args.key is None else parse_key_text(args.key))
    except WatchFailed as exc:
        print(f"saboteur-p2p watch: {exc}", file=sys.stderr)
        return 2
    print(_watched_line(watched))
    return _watch_status(watched)


def _watch_status(watched: Any) -> int:
    """0: the game finished; 3: a seat was caught cheating; 4: it stopped otherwise (a seat
    left or went, a verdict not checked: 3 said 'caught cheating' for those too, an attack)."""
    return 0 if watched.finished else 3 if watched.caught else 4


def _watched_line(watched: Any) -> str:
    """How a watch ended, and what was checked: the records taken in, each one (after "not
    checked: ...", "(60 records, every one checked)" read as if the verdict were: an attack)."""
    return f"{watched.message} (the {watched.records} records this spectator took in: each one checked)"


def _watch_in_viewer(args: argparse.Namespace) -> int:
    import threading

    from .client.replay import ReplayViewer, TableViews
    from .net.watch import Watched, WatchFailed, watch_table

    viewer = ReplayViewer(args.address, [], [], "live: every record so far checked", mode="WATCH",
                          no_color=bool(os.environ.get("NO_COLOR")))
    said: list[str] = []
    ended: dict[str, Watched | WatchFailed] = {}

    def follow() -> None:
        table = TableViews()  # the players panel: the table after each record

        def show(node):  # type: ignore[no-untyped-def]
            table(node)
            if node.state is not None:
                viewer.update(list(node.state.events), list(node.setup.names), views=list(table.views))
        try:
            watched = ended["end"] = watch_table(args.address, show, said.append, args.connect_timeout,
                                                         seat_key=None if args.key is None else parse_key_text(args.key))
            verdict = _watched_line(watched)
        except WatchFailed as exc:
            ended["end"] = exc
            verdict = str(exc)
        viewer.verdict = verdict
        viewer.application.invalidate()

    threading.Thread(target=follow, name="saboteur-watch", daemon=True).start()
    viewer.run()
    for line in said[:2]:  # the seats' fingerprints and the proof parameters, to compare
        print(line)
    end = ended.get("end")
    print(viewer.verdict)
    if isinstance(end, WatchFailed):
        return 2
    return _watch_status(end) if end is not None else 0  # leaving early is fine
