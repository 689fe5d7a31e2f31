"""The saboteur-p2p command line: argument parsing and one function per sub-command."""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from .botapi import BotLoadError
from .botspec import tidy_spec
from .cli_logs import cmd_replay, cmd_verify
from .cli_table import DEFAULT_BOT_DELAY, cmd_host, cmd_join, cmd_play, cmd_tables, cmd_watch, turn_time_option
from .crypto.identity import IdentityError
from .files import open_to_write
from .net.invite import LobbyError
from .net.seatstate import SeatLost
from .rules import VARIANTS, GameConfig
from .rules.editions import edition_named, edition_names, players_help

#: every command's help for --variant: each variant of the base game and what it changes
VARIANT_HELP = "comma-separated variants of the base game's rules: " + "; ".join(
    f"{name} ({what})" for name, what in VARIANTS.items())


def _variants(text: str) -> frozenset[str]:
    variants = GameConfig.parse_variants(text)
    unknown = variants - VARIANTS.keys()
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown variant(s) {', '.join(sorted(unknown))}; known: {', '.join(VARIANTS)}")
    return variants


def _bot_specs(text: str) -> tuple[str, ...]:
    """Bot specs separated by commas; a piece with '=' and no ':' continues the previous spec's
    parameters (``ismcts:playouts=200,cutoff=8,heuristic`` is two bots, the first
    ``ismcts:playouts=200:cutoff=8``)."""
    specs: list[str] = []
    pieces = [p.strip() for p in text.split(",")]
    if len(pieces) > 1 and not all(pieces):
        # "mine.py:Bot,,random" played two bots, the lineup cycled (found by a bot author)
        raise argparse.ArgumentTypeError(f"an empty bot name between commas in {text!r}")
    for piece in pieces:
        if not piece:
            continue
        if specs and "=" in piece and ":" not in piece:
            specs[-1] += ":" + piece
        else:
            specs.append(piece)
    if not specs:
        raise argparse.ArgumentTypeError("name at least one bot")
    return tuple(tidy_spec(spec) for spec in specs)


def _one_bot_spec(text: str) -> str:
    """One bot spec, its parameters read as ``--bots`` reads them (``x:a=1,b=2`` is ``x:a=1:b=2``;
    the text after a comma was taken into the last parameter's value, found by a bot author)."""
    specs = _bot_specs(text)
    if len(specs) != 1:
        raise argparse.ArgumentTypeError(f"name one bot, not {len(specs)}: {', '.join(specs)}")
    return specs[0]


def _name(text: str) -> str:
    from .protocol.messages import NAME_RULE, valid_name

    if not valid_name(text):
        raise argparse.ArgumentTypeError(f"{NAME_RULE}, not {text!r}")
    return text


def _user_name(otherwise: str) -> str:
    """The login name ($USER) as the default name at a table, or ``otherwise`` if it is not a
    valid name (empty, say, or a long mail address): nobody is refused for a name they never typed."""
    from .protocol.messages import valid_name

    login = os.environ.get("USER", "")
    return login if valid_name(login) else otherwise


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a whole number is wanted, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


_EDITIONS = ", ".join(f"{name} ({edition_named(name).title})" for name in edition_names())
_EDITION_HELP = f"the edition: {_EDITIONS}; default base"



def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="saboteur-p2p", description="Saboteur peer to peer, and bot tournaments.")
    commands = parser.add_subparsers(dest="command", required=True)

    tour = commands.add_parser(
        "tournament", help="run many bot-only games in-process and print statistics",
        description="Bot-only games with statistics. Paired tournaments play the same deals more than once: "
        "--duplicate plays each deal in every rotation of the lineup; --candidate C plays each deal with the "
        "--bots lineup and again with C in one seat (every seat in turn), and reports C's gold minus the baseline's "
        "in that seat, with its 95% interval. With either, --games counts deals.",
    )
    tour.add_argument("--players", type=int, default=5, help=f"players per game: {players_help()} (default 5)")
    tour.add_argument("--edition", default="base", choices=edition_names(), help=_EDITION_HELP)
    tour.add_argument("--games", type=_positive, default=100,
                      help="number of games, or of deals with --duplicate or --candidate (default 100)")
    tour.add_argument(
        "--bots", type=_bot_specs, default=("heuristic", "random"),
        help="comma-separated bot specs, seated in turn (default heuristic,random); a spec may carry parameters "
        "(ismcts:playouts=200)",
    )
    tour.add_argument("--candidate", metavar="BOT", type=_one_bot_spec,
                      help="play each deal with the --bots lineup and again with BOT in one seat; report the paired difference")
    tour.add_argument("--duplicate", action="store_true", help="play each deal once per rotation of the lineup; "
                      "report paired differences between the bots")
    tour.add_argument("--seed", type=int, default=0, help="tournament seed (default 0)")
    tour.add_argument("--jobs", type=_positive, default=1, help="worker processes (default 1)")
    tour.add_argument("--cluster", metavar="ADDRESS", help="run the games on a Dask cluster: a scheduler's tcp://HOST:PORT, "
                      "or local:N to start one here with N worker processes (pip install 'saboteur-p2p[cluster]')")
    tour.add_argument("--variant", type=_variants, default=frozenset(), help=VARIANT_HELP)
    tour.add_argument("--out", metavar="FILE", help="append one JSON line per game to FILE as the games finish "
                      "(saboteur-p2p report FILE rebuilds the report)")
    tour.add_argument("--resume", action="store_true", help="continue the tournament whose results --out FILE holds "
                      "(the same options; a larger --games extends it)")
    tour.add_argument("--json", metavar="FILE", help="also write the statistics as JSON to FILE")
    tour.add_argument("--time-limit", type=_within(0.001, 3600, float, " seconds"), default=5.0, metavar="S",
                      help="seconds a bot may think per move (default 5)")
    tour.set_defaults(run=cmd_tournament)

    report = commands.add_parser("report", help="print the report of a tournament from its results file (--out)")
    report.add_argument("files", nargs="+", metavar="FILE", help="results files written by tournament --out")
    report.add_argument("--json", action="store_true", help="print the statistics as JSON instead")
    report.add_argument("--plot", metavar="PNG", help="draw each bot's mean gold by player count and its rating over games "
                        "(needs the extra: pip install 'saboteur-p2p[plot]')")
    report.set_defaults(run=cmd_report)

    game = commands.add_parser("game", help="play one bot-only game in-process and print it move by move")
    game.add_argument("--players", type=int, default=5, help=f"players: {players_help()} (default 5)")
    game.add_argument("--edition", default="base", choices=edition_names(), help=_EDITION_HELP)
    game.add_argument("--bots", type=_bot_specs, default=("heuristic",), help="comma-separated bot specs, cycled over the seats")
    game.add_argument("--seed", type=int, default=0, help="the deal's seed: the same seed, the same game (default 0)")
    game.add_argument("--variant", type=_variants, default=frozenset(), help=VARIANT_HELP)
    game.add_argument("--time-limit", type=_within(0.001, 3600, float, " seconds"), default=5.0, metavar="S",
                      help="seconds a bot may think per move (default 5; a tournament's game is played again with "
                           "its --time-limit, its seed and its lineup, as its results file's line gives them)")
    game.set_defaults(run=cmd_game)

    ident = commands.add_parser("id", help="show this peer's identity fingerprint (creating the identity on first run)")
    ident.add_argument("--identity", metavar="PATH", help="identity file (default: in the user's config directory)")
    ident.set_defaults(run=cmd_id)

    host = commands.add_parser("host", help="open a table on the network and play at it")
    host.add_argument("--bind", default="0.0.0.0:7777",
                      help="ADDR:PORT to listen on: an address of this machine, or 0.0.0.0 for all (default 0.0.0.0:7777)")
    host.add_argument("--name", type=_name, default="host", help="your name at the table (default: host)")
    host.add_argument("--seats", type=int, default=5, help=f"players at the table: {players_help()} (default 5)")
    host.add_argument("--edition", default="base", choices=edition_names(), help=_EDITION_HELP)
    host.add_argument("--variant", type=_variants, default=frozenset(), help=VARIANT_HELP)
    _rounds_option(host)
    host.add_argument("--bots", type=int, default=0, metavar="K", help="start K bot peers as separate processes")
    host.add_argument("--bots-kind", default="heuristic", help="which bot the --bots peers play (default heuristic)")
    host.add_argument("--bot", metavar="NAME", help="your own seat is this bot (headless)")
    host.add_argument("--no-announce", action="store_true", help="do not announce the table on the LAN (mDNS/DNS-SD)")
    host.add_argument("--new", action="store_true", help="open a new table even if your game here stopped unfinished "
                      "(by default host takes your seat back in it while the others still wait)")
    _bot_delay_option(host, "the --bots peers (default 0.8 when you play here, else 0)")
    _session_options(host)
    _client_options(host)
    host.set_defaults(run=cmd_host)

    join = commands.add_parser("join", help="take a seat at a table (or take yours back after a crash)")
    join.add_argument("address", metavar="HOST:PORT", nargs="?",
                      help="the table's address (default: look for tables on the LAN and offer them)")
    join.add_argument("--yes", action="store_true", help="without an address: join the only table found, without asking")
    join.add_argument("--name", type=_name, default=_user_name("player"),
                      help="your name at the table (default: your login name, if it is a valid name)")
    join.add_argument("--bot", metavar="NAME", help="play the seat with this bot (headless)")
    _bot_delay_option(join, "the --bot seat (default 0)")
    join.add_argument("--bind", help="ADDR:PORT to listen on (default: the interface towards the host, any port)")
    join.add_argument("--connect-timeout", type=_seconds, default=10.0, metavar="S",
                      help="give up when no table answers at HOST:PORT within S seconds (default 10)")
    join.add_argument("--key", metavar="KEY", help="the table's key, as its host printed it (or as it announced it: "
                      "taken from there when none is given): the lobby is encrypted, and only that table can answer")
    join.add_argument("--edition", default=None, choices=edition_names(),
                      help="sit only at a table of this edition (default: whatever the table plays)")
    join.add_argument("--take-back", action="store_true",
                      help="take your seat back in a game that stopped here (its log ends with the verdict this "
                      "peer wrote, as after its connection was lost), if the table still plays it; without it a "
                      "join takes back only a seat whose peer crashed")
    _session_options(join)
    _client_options(join)
    _discovery_options(join, "--browse", "seconds to look for tables when no address is given")
    join.set_defaults(run=cmd_join)

    tables = commands.add_parser("tables", help="list the tables announced on the LAN")
    _discovery_options(tables, "--timeout", "seconds to look for tables")
    tables.add_argument("--json", action="store_true", help="print the tables as JSON")
    tables.set_defaults(run=cmd_tables)

    play = commands.add_parser("play", help="play at a table of bots on this machine, in the full-screen client")
    play.add_argument("--players", type=int, default=None,
                      help=f"players at the table, you included: {players_help()} "
                      "(default 5, or one per bot listed in --bots and you)")
    play.add_argument("--bots", type=_bot_specs, default=None,
                      help="comma-separated bot names, one per bot seat, cycled if short (default heuristic)")
    play.add_argument("--edition", default="base", choices=edition_names(), help=_EDITION_HELP)
    play.add_argument("--variant", type=_variants, default=frozenset(), help=VARIANT_HELP)
    _rounds_option(play)
    play.add_argument("--name", type=_name, default=_user_name("you"),
                      help="your name at the table (default: your login name, if it is a valid name)")
    play.add_argument("--offline", action="store_true", help="play in-process against bots: no network, no mental-poker deck")
    play.add_argument("--new", action="store_true", help="start a new game even if your last one here stopped unfinished "
                      "(by default play takes your seat back in it while its bots still wait)")
    play.add_argument("--seed", type=int, default=None, help="deal seed for --offline (default: random)")
    _bot_delay_option(play, f"the bot seats (default {DEFAULT_BOT_DELAY})")
    _session_options(play)
    _client_options(play)
    play.set_defaults(run=cmd_play)

    replay = commands.add_parser("replay", help="check a game log and step through it move by move (printed with --plain)")
    replay.add_argument("log", metavar="LOGFILE", help="a seat's signed game log (the path the game printed)")
    replay.add_argument("--plain", action="store_true", help="print the game move by move instead of the full-screen viewer "
                        "(also when stdin or stdout is not a terminal)")
    replay.add_argument("--expect", metavar="FPR,...", help="the fingerprints the seats must have (any order), as "
                        "for verify; without it, compare the printed fingerprints with the players' yourself")
    replay.set_defaults(run=cmd_replay)

    watch = commands.add_parser("watch", help="watch a table as a spectator: every public move, each one checked",
                                epilog="exit status: 0 the game finished, 2 no table could be watched, 3 a seat was "
                                       "caught cheating, 4 the game stopped otherwise (a seat left or went)")
    watch.add_argument("address", metavar="HOST:PORT", help="any seated peer's address (the host's, say)")
    watch.add_argument("--connect-timeout", type=float, default=10.0, metavar="S",
                       help="give up if no table answers within S seconds (default 10)")
    watch.add_argument("--key", metavar="KEY", help="that seat's key (the host's, as it printed it): the feed is "
                       "encrypted, and only that seat can answer")
    _client_options(watch)
    watch.set_defaults(run=cmd_watch)

    verify = commands.add_parser("verify", help="check a game log: signatures, chain, proofs, shares and every move")
    verify.add_argument("log", metavar="LOGFILE", help="a seat's signed game log (the path the game printed)")
    verify.add_argument("--expect", metavar="FPR,...", help="the fingerprints the seats must have (any order); "
                        "without it, compare the printed fingerprints with the players' yourself")
    verify.add_argument("--finished", action="store_true",
                        help="exit 1 unless the log holds a whole game to its final scores (a valid log that stops "
                             "early exits 0 without it)")
    verify.set_defaults(run=cmd_verify)
    return parser


def cmd_tournament(args: argparse.Namespace) -> int:

    from .tournament import StatsCollector, TournamentSpec, format_report, run_tournament
    from .tournament.report import rate_words
    from .tournament.results import ResultsFile
    from .tournament.runners import check_bots

    spec = TournamentSpec(
        args.players, args.games, args.bots, args.seed, args.variant, args.jobs, args.time_limit, args.edition,
        args.duplicate, args.candidate,
    )
    spec.validate_new()  # a wrong player count, variant or seed fails here, before any worker starts
    if args.resume and not args.out:
        raise ValueError("--resume continues the tournament in an --out FILE: name it")
    if args.cluster and args.jobs != 1:  # said nothing, found by a bot author
        print(f"saboteur-p2p: --jobs {args.jobs} is ignored: the cluster's workers play the games", file=sys.stderr)
    if args.json:
        _check_writable(args.json, "--json", keep=[args.out] if args.out else [])
    check_bots(spec)  # before the results file is touched
    if args.resume and not Path(args.out).exists():
        # a mistyped name started the tournament over in silence (found by a bot author)
        print(f"saboteur-p2p: {args.out} does not exist yet: nothing to resume, the tournament starts", file=sys.stderr)
    collector = StatsCollector(spec)
    with contextlib.ExitStack() as stack:
        sink, results = None, None
        if args.out:
            results = stack.enter_context(ResultsFile.open(Path(args.out), spec, collector, args.resume))
            sink = results.write
        done_before = collector.report.games
        if done_before:
            _say(f"{args.out}: {done_before} games done, {spec.total_games - done_before} to play")
        started = time.perf_counter()
        try:
            with _progress(spec.total_games, spec.players, done_before) as progress:
                report = run_tournament(spec, progress=progress, cluster=args.cluster, collector=collector, sink=sink)
        except (KeyboardInterrupt, Exception) as stopped:  # a lost worker or cluster, a bot that failed mid-tournament ...
            # said for every way a run stops: a stopped scheduler, a bot that could not be made
            # any more said nothing of the games kept (found by an attack)
            if isinstance(stopped, KeyboardInterrupt) and results is None and collector.report.games:
                # with no --out file the games played were thrown away (found by a bot author)
                _say(_printable_text(format_report(collector.report)))
                open_deal = collector.report.games % spec.deal_size
                _say(f"\nstopped after {collector.report.games} of {spec.total_games} games: the report above is of "
                     "those (--out FILE keeps each game, and --resume goes on from there)"
                     + (f"; the last deal's {open_deal} game(s) count in the bots' table, not in the paired lines"
                        if open_deal else ""))
            if results is not None:
                # the lines written, not the games folded: a game is folded before it is written
                kept = done_before + results.written
                print(f"saboteur-p2p: {kept} game{'s are' if kept != 1 else ' is'} in {args.out}; the same command with --resume "
                      "goes on from there", file=sys.stderr)
            raise
        elapsed = time.perf_counter() - started
    _say(_printable_text(format_report(report)))
    played = report.games - done_before
    where = f"cluster {args.cluster}" if args.cluster else f"{spec.jobs} job(s)"
    _say(f"\n{played} games played in {elapsed:.1f} s ({rate_words(played / max(elapsed, 1e-9))}, {where})")
    if args.json:
        data = report.to_data()
        data["seconds"] = round(elapsed, 3)
        with open_to_write(args.json) as out:
            json.dump(data, out, indent=2)
    return 0


def cmd_report(args: argparse.Namespace) -> int:

    from .tournament import format_report
    from .tournament.results import file_notes, report_from_file

    if args.plot:
        if Path(args.plot).suffix.lower() != ".png":
            raise ValueError(f"--plot {args.plot}: the picture is a PNG file; name it FILE.png")
        if Path(args.plot).exists() and not Path(args.plot).is_file():  # a PNG is written with seeks: no pipe
            raise ValueError(f"--plot {args.plot}: that is not a regular file (a pipe or device); name a file")
        _check_writable(args.plot, "--plot", keep=args.files)
    named = [Path(name).resolve() for name in args.files]
    twice = next((name for number, name in enumerate(args.files) if named[number] in named[:number]), None)
    if twice is not None:
        raise ValueError(f"report names {twice} twice: its games would be counted twice")
    reports = [report_from_file(Path(name)) for name in args.files]
    for name, report in zip(args.files, reports, strict=True):
        for note in file_notes(Path(name), report):
            print(note, file=sys.stderr)
    if args.json:
        data = [report.to_data() for report in reports]
        print(json.dumps(data[0] if len(data) == 1 else data, indent=2))
    else:
        # names and incidents come from the file (or a bot's own words): no escape sequence reaches the terminal
        print(_printable_text("\n\n".join(f"{name}:\n{format_report(report)}" if len(reports) > 1 else format_report(report)
                                            for name, report in zip(args.files, reports, strict=True))))
    if args.plot:
        from .tournament.plot import plot_reports

        plot_reports(reports, Path(args.plot), [Path(name).name for name in args.files])
        print(f"plot written to {args.plot}", file=sys.stderr)
    return 0


def _check_writable(path: str, option: str, keep: Sequence[str] = ()) -> None:
    """Refuse a file to write at the end that could not be written, before the work, not after
    it; and refuse to write over one of the files in ``keep`` or over any tournament's results."""
    from .tournament.results import FORMAT

    target = Path(path)
    folder = target.parent
    if target.is_dir():
        raise ValueError(f"{option} {path}: that is a folder, not a file")
    if any(target.resolve() == Path(other).resolve() for other in keep):
        raise ValueError(f"{option} {path}: that file holds the tournament's results; name another file")
    if target.is_file():
        with open(target, "rb") as file:
            if FORMAT.encode() in file.readline(200):
                raise ValueError(f"{option} {path}: that file holds a tournament's results; name another file")
    if not folder.is_dir():
        raise ValueError(f"{option} {path}: there is no folder {folder}")
    # an existing file needs only its own permission (open(path, "w") truncates it in place)
    if not os.access(target if target.exists() else folder, os.W_OK):
        raise ValueError(f"{option} {path}: this user may not write it")


def _say(text: str) -> None:
    """Print to stdout; once its reader has gone (``| head``), print nothing more and go on:
    a tournament is not stopped, nor its results lost, by a closed pipe."""
    try:
        print(text, flush=True)
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@contextlib.contextmanager
def _progress(total: int, players: int, done: int = 0) -> Iterator[Callable[[int], None]]:
    """A progress bar on a terminal, else a line on stderr every tenth of the games (``done`` of
    them already played): stdout carries the report alone (found by a bot author)."""
    if sys.stdout.isatty() and not os.environ.get("CI"):
        from prompt_toolkit.shortcuts import ProgressBar

        with ProgressBar(title=f"{total} games of {players} players") as bar:
            counter: Any = bar(total=total - done)
            yield lambda done: counter.item_completed()
        return
    step = max(1, total // 10)

    def plain(done: int) -> None:
        if done % step == 0 or done == total:
            print(f"{done}/{total} games", file=sys.stderr, flush=True)

    yield plain


def cmd_game(args: argparse.Namespace) -> int:
    from .match import narrate, play_game, replay

    config = GameConfig(args.players, args.edition, args.variant)
    seats = [args.bots[i % len(args.bots)] for i in range(args.players)]
    with contextlib.redirect_stdout(sys.stderr):  # a bot's prints ran into the narration (found by a bot author)
        record = play_game(config, seats, args.seed, time_limit=args.time_limit)
    for line in narrate(replay(config, args.seed, record.actions).events, seats):
        print(line)
    # a bot that failed played a safe move instead: say so, or its failures look like play
    for incident in record.incidents:
        print(f"bot incident: {incident}; played instead: {incident.fallback}", file=sys.stderr)
    if record.incidents:
        print(f"{len(record.incidents)} bot incident(s) in this game", file=sys.stderr)
    return 0


def _discovery_options(sub: argparse.ArgumentParser, flag: str, help_: str) -> None:
    from .net.discovery import BROWSE_SECONDS

    sub.add_argument(flag, dest="browse", type=float, default=BROWSE_SECONDS, metavar="S",
                     help=f"{help_} (default {BROWSE_SECONDS:g})")
    sub.add_argument("--interface", metavar="ADDR", help="look only on the interface with this IPv4 address (default: all)")


def _session_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--identity", metavar="PATH", help="identity file (default: in the user's config directory)")
    sub.add_argument("--log-dir", default=None,
                     help="where the signed game log is kept (default: logs in this user's data directory, as printed)")
    sub.add_argument("--code", help="table passphrase: only peers who know it may sit")
    sub.add_argument("--wait", type=_within(0, 3600, float, " seconds"), default=None, metavar="S",
                     help="seconds the table waits for a peer that dropped, 0 to 3600 (a host's: default 120, and "
                     "every joiner that gives none takes it on; a joiner's own: its seat waits that long instead)")
    sub.add_argument("--quiet", action="store_true", help="print only the result")
    sub.add_argument("--turn-time", type=turn_time_option, default=None, metavar="S",
                     help="a person who has not moved within S seconds (1 to 3600) has a bot move for them "
                     "(default: none; off or 0: none; a host's goes to every joiner, who keeps one of 15 s or more)")


def _within(low: float, high: float, convert: Callable[[str], float], unit: str = "") -> Callable[[str], float]:
    """An argparse type: ``convert`` of the text, refused outside [low, high]."""
    def parse(text: str) -> float:
        value = convert(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low:g} to {high:g}{unit}, not {text}")
        return value
    return parse


_seconds = _within(0, 60, float, " seconds")


def _rounds_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--rounds", type=_within(1, 10, int), default=3,
                        help="rounds in the game, 1 to 10 (default 3, as the rules have it; fewer for a quick game)")


def _bot_delay_option(sub: argparse.ArgumentParser, whose: str) -> None:
    sub.add_argument("--bot-delay", type=_seconds, default=None, metavar="S",
                     help=f"seconds before each move of {whose}; a round's end pauses them longer")


def _client_options(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--plain", action="store_true", help="a plain line prompt instead of the full-screen client "
                     "(also used when stdin or stdout is not a terminal)")


def cmd_id(args: argparse.Namespace) -> int:
    from .crypto.identity import default_identity_path, load_or_create

    path = args.identity or default_identity_path()
    identity = load_or_create(path)
    print(f"{identity.public.fingerprint()}  ({path})")
    return 0


def _printable_lines(error: BaseException) -> str:
    """An error's text fit for a terminal: it may quote what a peer or a file said, so each
    line keeps only what a name may hold (no escape sequence); our own line breaks stay."""
    return _printable_text(str(error))


def _printable_text(text: str) -> str:
    """``text`` with each line cut down to what a name may hold (``printable``); its line breaks stay."""
    from .protocol.messages import printable

    return "\n".join(printable(line) for line in text.split("\n"))


def _leave_bot_threads(status: int, before: set[threading.Thread]) -> None:
    """Bots played in this process: threads one of them started and left running (not
    daemons) would keep it from ever exiting, the report printed (found by review).  They are
    named, and the process exits without waiting for them.  Threads that ran ``before`` the
    command (a caller's, when ``main`` is called in-process) are not the bots'."""

    def stray() -> list[threading.Thread]:
        return [t for t in threading.enumerate() if t.is_alive() and not t.daemon and t not in before]

    deadline = time.monotonic() + 1.0
    for thread in stray():  # our own (a worker pool's manager) end within a moment
        thread.join(max(0.0, deadline - time.monotonic()))
    left = [t.name for t in stray()]
    if not left:
        return
    print(f"saboteur-p2p: a bot left {len(left)} thread(s) running ({', '.join(left[:5])}): not waited for",
          file=sys.stderr, flush=True)
    sys.stdout.flush()
    os._exit(status)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        before = set(threading.enumerate())
        status = int(args.run(args))
        if args.run in (cmd_tournament, cmd_game):
            _leave_bot_threads(status, before)
        return status
    except (BotLoadError, ValueError, IdentityError, LobbyError, SeatLost) as exc:
        print(f"saboteur-p2p: error: {_printable_lines(exc)}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (e.g. `| head`); say nothing more on a closed pipe
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as exc:
        # what the commands do not word themselves (they do for an address they cannot listen
        # at): mostly a file or folder named on the command line that cannot be read or written
        where = f": {exc.filename}" if exc.filename else ""
        print(f"saboteur-p2p: error: {exc.strerror or exc}{where}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        with contextlib.suppress(OSError):  # a terminal closed (a hang-up is Ctrl-C) reads nothing
            print("saboteur-p2p: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
