"""The results file: one JSON line per game, so a stopped tournament resumes and a report is rebuilt.

The first line names the format and the tournament's spec as the run that started the file
gave it (a ``--resume`` that asks for more games leaves it: its ``games`` is that first plan,
and nothing reads it but people; the games are the lines); every later line is one game, in
game order, written (and flushed) as soon as the game is folded into the statistics.  The
file is read line by line, never whole.  A run killed while writing leaves at most one
partial last line: a report skips it and ``--resume`` cuts it off and plays that game again.

A file is read as untrusted input: every field of every line is type- and range-checked,
and each game must be the one the header's tournament plays at its index (its seed and
lineup), so a line from another tournament is named, not folded in.  A run holds an
exclusive lock on its file (where the system has ``fcntl``), so two runs never append to one.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

from .. import rules
from ..botapi import BUNDLED, bot_source, split_spec
from ..botspec import imported_beside, imported_tops
from ..files import open_regular, open_to_write
from ..rules import Role, Winners
from ..rules.cards import RoleCard
from .spec import GameSummary, TournamentSpec, seating
from .stats import StatsCollector, TournamentReport

try:
    import fcntl
except ImportError:  # not on Windows: runs there are not kept apart
    fcntl = None  # type: ignore[assignment]

FORMAT = "saboteur-p2p tournament results"
VERSION = 1


class ResultsFileError(ValueError):
    """A results file that cannot be used as asked: the message names the file and why."""


def game_to_data(game: GameSummary) -> dict[str, Any]:
    return {
        "index": game.index,
        "seed": game.seed,
        "lineup": list(game.lineup),
        "scores": list(game.scores),
        "winners": list(game.winners),
        "roles": [[role.value for role in roles] for roles in game.roles],
        "round_winners": [w.value for w in game.round_winners],
        "round_trapped": [list(t) for t in game.round_trapped],
        "incidents": list(game.incidents),
        "seconds": round(game.seconds, 6),
    }


#: bounds on what a results file may say: far beyond any real game, far below what breaks arithmetic
MAX_SCORE = 10_000
MAX_SECONDS = 1e9
#: the longest line a results file may hold: a game's line is well under a kilobyte, and one of
#: a bot that misbehaves on every move (an incident a move, each cut to Incident.MAX_DETAIL)
#: a few hundred kilobytes
MAX_LINE = 8 << 20
#: what reading a line may raise (json's for a nest too deep, float() for a number too large)
_UNREADABLE = (ValueError, KeyError, TypeError, AttributeError, OverflowError, RecursionError)


def _whole(data: dict[str, Any], key: str, low: int, high: int) -> int:
    value = data[key]
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{key} is {value!r}, not a whole number from {low} to {high}")
    return value


def _list(value: Any, name: str, size: int | None = None) -> list[Any]:
    """``value`` (the field ``name``, or a part of it) if it is a list (of ``size`` items)."""
    if type(value) is not list or (size is not None and len(value) != size):
        raise ValueError(f"{name} is {value!r}, not a list" + (f" of {size}" if size is not None else ""))
    return value


def _seats(values: list[Any], key: str, players: int) -> tuple[int, ...]:
    if any(type(v) is not int or not 0 <= v < players for v in values) or len(set(values)) != len(values):
        raise ValueError(f"{key} is {values!r}, not distinct seats 0 to {players - 1}")
    return tuple(values)


def game_from_data(data: Any, players: int) -> GameSummary:
    """A game line's summary, every field checked (ValueError, KeyError or TypeError names it)."""
    if type(data) is not dict:
        raise ValueError(f"{data!r} is not an object")
    lineup = _list(data["lineup"], "lineup", players)
    if not all(type(name) is str for name in lineup):
        raise ValueError(f"lineup is {lineup!r}, not bot names")
    scores = _list(data["scores"], "scores", players)
    if any(type(v) is not int or not 0 <= v <= MAX_SCORE for v in scores):
        raise ValueError(f"scores are {scores!r}, not gold from 0 to {MAX_SCORE}")
    rounds = _list(data["roles"], "roles")
    if not rounds:
        raise ValueError("roles name no round: a game has at least one")
    roles = tuple(tuple(Role(r) for r in _list(seat_roles, "roles", players)) for seat_roles in rounds)
    winners = tuple(Winners(w) for w in _list(data["round_winners"], "round_winners", len(rounds)))
    trapped = _list(data["round_trapped"], "round_trapped")
    if trapped and len(trapped) != len(rounds):
        raise ValueError(f"round_trapped has {len(trapped)} rounds, not {len(rounds)}")
    incidents = _list(data["incidents"], "incidents")
    if not all(type(text) is str for text in incidents):
        raise ValueError("incidents are not texts")
    seconds = data.get("seconds", 0.0)
    if type(seconds) not in (int, float) or not (math.isfinite(seconds) and 0 <= seconds <= MAX_SECONDS):
        raise ValueError(f"seconds is {seconds!r}, not a time from 0 to {MAX_SECONDS:g}")
    winners_of_game = _seats(_list(data["winners"], "winners"), "winners", players)
    best = max(scores)
    if set(winners_of_game) != {seat for seat, score in enumerate(scores) if score == best}:
        raise ValueError(f"winners are {list(winners_of_game)}, not the seats with the most gold of {scores}")
    return GameSummary(
        _whole(data, "index", 0, 2**62),
        tuple(lineup),
        tuple(scores),
        winners_of_game,
        roles,
        winners,
        tuple(incidents),
        tuple(_seats(_list(t, "round_trapped"), "round_trapped", players) for t in trapped),
        _whole(data, "seed", -(2**100), 2**100),
        float(seconds),
    )


def plausibility(spec: TournamentSpec) -> Callable[[GameSummary], None]:
    """What ``spec``'s games can be, worked out once (a file may hold a million lines): the
    check raises ValueError unless a game has the tournament's rounds, each round's roles
    dealt from its role cards, and no more gold than a game holds.  A line that claimed 300
    rounds, or 9999 gold, moved a report's figures in silence (found by an attack)."""
    config = spec.config
    dealt = Counter(card.role for card in config.edition_rules.role_cards(config) if isinstance(card, RoleCard))
    most = config.edition_rules.most_gold(config)

    def check(game: GameSummary) -> None:
        if len(game.roles) != config.rounds:
            raise ValueError(f"roles name {len(game.roles)} rounds, where a game of this tournament has {config.rounds}")
        for number, roles in enumerate(game.roles, 1):
            if Counter(roles) - dealt:
                raise ValueError(f"round {number}'s roles {[r.value for r in roles]} are not dealt from this game's role cards")
        if sum(game.scores) > most:
            raise ValueError(f"scores {list(game.scores)} hold more than the {most} gold a game of this tournament holds")

    return check


def _header(spec: TournamentSpec) -> str:
    header = {"format": FORMAT, "version": VERSION, "spec": spec.to_data(), "sources": bot_sources(spec)}
    return json.dumps(header, separators=(",", ":"))


#: the key of the rules engine's digest among a results file's ``sources``: not a bot spec
ENGINE_SOURCE = "(the rules engine)"
#: a bundled bot, whose module's folder holds them all
BUNDLED_PROBE = "random"


def _digest(files: list[Path]) -> str:
    digest = hashlib.sha256()
    for file in files:
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def bot_sources(spec: TournamentSpec) -> dict[str, str]:
    """A digest of the file that defines each bot (its module or ``FILE.py``), by bot spec: a
    ``--resume`` with another version of a bot would fold two bots' games under one name.
    A bundled bot's digest is of all the bundled bots' modules; another bot's is of its file
    and the modules beside it that it imports (``botspec.imported_beside``), and of the bundled
    bots' modules if it imports them (a file bot built on ``saboteur_bots.heuristic``: found by
    a bot author); a bot whose file cannot be found has none.  ``ENGINE_SOURCE`` names the
    rules engine's digest: every game follows from it."""
    sources = {ENGINE_SOURCE: _digest(sorted(Path(rules.__file__).parent.glob("*.py")))}
    bundled = bot_source(BUNDLED_PROBE)
    for bot in sorted({*spec.bots, *([spec.candidate] if spec.candidate else [])}):
        path = bot_source(bot)
        if path is None:
            continue
        if split_spec(bot)[0] in BUNDLED:
            files = sorted(path.parent.glob("*.py"))  # a bundled bot is built of the whole package's modules
        else:
            files = [path, *imported_beside(path)]
            if bundled is not None and path.parent.resolve() != bundled.parent.resolve() \
                    and any("saboteur_bots" in imported_tops(file) for file in files):
                files += sorted(bundled.parent.glob("*.py"))
        sources[bot] = _digest(files)
    return sources


def source_words(source: str) -> str:
    """What a key of ``sources`` names, for a message."""
    return "the rules engine (saboteur_p2p/rules)" if source == ENGINE_SOURCE else source


def read_sources(path: Path) -> dict[str, str] | None:
    """The bots' digests in a results file's header (None: a file written before they were kept)."""
    with open_regular(path, "results file") as file:
        sources = json.loads(file.readline(MAX_LINE + 1)).get("sources")
    if sources is None:
        return None
    if type(sources) is not dict or not all(type(k) is str and type(v) is str for k, v in sources.items()):
        raise ResultsFileError(f"{path}: the header's sources are {sources!r}, not a map of names to digests")
    return sources


def read_spec(path: Path) -> TournamentSpec:
    """The spec in a results file's first line (checked as a tournament to play would be)."""
    with open_regular(path, "results file") as file:
        first = file.readline(MAX_LINE + 1)
    try:
        if len(first) > MAX_LINE:
            raise ValueError(f"its first line is longer than {MAX_LINE >> 20} MiB")
        if not first.strip():
            raise ValueError("it is empty" if not first else "its first line is empty")
        header = json.loads(first)  # bytes: a file that is not text fails here, named
        if type(header) is not dict or header.get("format") != FORMAT:
            raise ValueError("not a results file")
        if type(header.get("version")) is not int or header["version"] != VERSION:
            raise ValueError(f"format version {header.get('version')}, this program reads {VERSION}")
        spec = TournamentSpec.from_data(header["spec"])
        spec.validate()
        return spec
    except _UNREADABLE as exc:
        raise ResultsFileError(f"{path}: not a tournament results file ({exc})") from None


def read_games(path: Path, spec: TournamentSpec) -> Iterator[tuple[int, GameSummary]]:
    """The games of ``spec``'s results file, one line at a time, each with the byte offset just
    past its line.  Every game must be the one ``spec`` plays at its index (seed and lineup).

    A last line without its newline is a write the run did not finish: it is left out.
    """
    plausible = plausibility(spec)
    with open_regular(path, "results file") as file:
        offset = len(file.readline(MAX_LINE + 1))
        for number in itertools.count(2):
            raw = file.readline(MAX_LINE + 1)
            if len(raw) > MAX_LINE:
                raise ResultsFileError(f"{path}, line {number}: not a game (longer than {MAX_LINE >> 20} MiB)")
            if not raw.endswith(b"\n"):
                return  # the end of the file, or a last line the run did not finish writing
            if not raw.strip():
                offset += len(raw)  # a blank line (an edit's): nothing to fold
                continue
            try:
                game = game_from_data(json.loads(raw), spec.players)
                plausible(game)
            except _UNREADABLE as exc:
                raise ResultsFileError(f"{path}, line {number}: not a game ({exc}){_cut_hint(path, number)}") from None
            seed, seats = seating(spec, game.index)
            if (game.seed, game.lineup) != (seed, seats):
                raise ResultsFileError(
                    f"{path}, line {number}: game {game.index} is not this tournament's (seed {game.seed} and "
                    f"lineup {list(game.lineup)}, where its header plays seed {seed} and {list(seats)})"
                )
            offset += len(raw)
            yield offset, game


def report_from_file(path: Path) -> TournamentReport:
    """The report of the games a results file holds, folded one line at a time."""
    spec = read_spec(path)
    collector = StatsCollector(spec)
    for _, game in read_games(path, spec):
        _fold(collector, game, path)
    return collector.report


def file_notes(path: Path, report: TournamentReport) -> list[str]:
    """What a report of ``path`` leaves out, to say beside it: a last line cut short (a write
    the run did not finish), and the games of a tournament stopped before its end."""
    notes = []
    with open_regular(path, "results file") as file:
        file.seek(0, os.SEEK_END)
        if file.tell() > 0:
            file.seek(-1, os.SEEK_END)
            if file.read(1) != b"\n":
                notes.append(f"{path}: its last line was cut short (a game being written as the run stopped): left out")
    planned = report.spec.total_games
    if report.games < planned:
        notes.append(f"{path}: {report.games} of the {planned} games planned; --resume plays the rest")
    return notes


def _fold(collector: StatsCollector, game: GameSummary, path: Path) -> None:
    try:
        collector.add(game)
    except (ValueError, KeyError, IndexError) as exc:
        # the games before it are sound: said how to keep them (found by an attack)
        kept = collector.report.games
        before = f"the {kept} games before it are" if kept != 1 else "the game before it is"
        raise ResultsFileError(f"{path}: game {game.index} does not belong here ({exc}); {before} sound: keep the header "
                               f"and {'it' if kept == 1 else 'them'} (head -n {kept + 1}), and --resume plays the rest") from None


def _cut_hint(path: Path, number: int) -> str:
    """How to keep the sound lines before a bad one (found by an attack: the error named the
    line, and nothing said how to go on)."""
    return f"; the lines before it are sound: keep them (head -n {number - 1} {path}), and --resume plays the rest"


def _differences(there: dict[str, Any], here: dict[str, Any]) -> list[str]:
    return [f"{key} {there.get(key)!r} there, {here[key]!r} here" for key in here if there.get(key) != here[key]]


def _limit(seconds: float | None) -> str:
    return "no time limit" if seconds is None else f"--time-limit {seconds:g}"


def _lock(path: Path, file: IO[str]) -> None:
    """Hold an exclusive lock on ``file`` until it is closed, or refuse a file another run holds."""
    if fcntl is None:
        return
    try:
        fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        file.close()
        raise ResultsFileError(f"{path} is in use by another tournament run; wait for it or name a new file") from None


class ResultsFile:
    """Appends each game to a results file as it is folded; ``open`` starts or resumes one."""

    def __init__(self, path: Path, out: IO[str]) -> None:
        self.path = path
        self.out = out
        #: the games this run wrote (a stopped run says how many the file holds from them)
        self.written = 0

    @classmethod
    def open(cls, path: Path, spec: TournamentSpec, collector: StatsCollector, resume: bool) -> ResultsFile:
        """Start ``path`` for ``spec``; with ``resume``, first fold the games it holds into ``collector``.

        Refuses a folder, a file that is not a results file, a file that holds games without
        ``resume``, and on resuming a file written for another tournament (another seed,
        lineup, player count ...) or with more games than asked.  A results file that holds
        no game yet (a run that stopped before its first) is started anew.
        """
        if path.is_dir():
            raise ResultsFileError(f"{path} is a folder: name a file for the results")
        if path.exists() and not path.is_file():  # it is read back, cut and locked: "Invalid argument" before
            raise ResultsFileError(f"{path} is not a regular file (a pipe or device): name a file for the results")
        out = open_to_write(path, append=True)  # kept open: the run appends to it
        _lock(path, out)
        try:
            end = cls._resumable(path, spec, collector, resume)
            if end is None:
                out.truncate(0)
                out.write(_header(spec) + "\n")
                out.flush()
            else:
                out.truncate(end)  # a partial last line: that game is played again
        except BaseException:
            out.close()
            raise
        return cls(path, out)

    @staticmethod
    def _resumable(path: Path, spec: TournamentSpec, collector: StatsCollector, resume: bool) -> int | None:
        """The byte offset to go on from after folding the file's games into ``collector``, or
        None for a file to start anew (empty, or a results file with no game in it)."""
        if path.stat().st_size == 0:
            return None
        there = read_spec(path)
        games = read_games(path, there)
        first = next(games, None)
        if first is None:
            return None
        if not resume:
            raise ResultsFileError(f"{path} already holds results: --resume to continue that tournament, or name a new file")
        differ = _differences(there.identity(), spec.identity())
        if differ:
            raise ResultsFileError(f"{path} is another tournament's results: {'; '.join(differ)}")
        kept, now = read_sources(path), bot_sources(spec)
        if kept is not None and ENGINE_SOURCE not in kept:
            now.pop(ENGINE_SOURCE)  # a file written before the engine's digest was kept
        changed = [] if kept is None else sorted(bot for bot in kept.keys() | now.keys() if kept.get(bot) != now.get(bot))
        if changed:
            raise ResultsFileError(
                f"{path} was played with another version of {', '.join(map(source_words, changed))} (the file that "
                "defines it, or a module or package it imports, changed): resume with the code that played it, or name "
                "a new file"
            )
        if there.time_limit != spec.time_limit:
            # a bot past its time has a move played for it: the limit is part of every result
            raise ResultsFileError(
                f"{path} was played with {_limit(there.time_limit)}; resume it with the same, not {_limit(spec.time_limit)}"
            )
        end = 0
        for after, game in itertools.chain((first,), games):
            _fold(collector, game, path)
            end = after
        if collector.report.games > spec.total_games:
            raise ResultsFileError(
                f"{path} holds {collector.report.games} games, more than the {spec.total_games} asked for: "
                "ask for at least as many"
            )
        return end

    def write(self, game: GameSummary) -> None:
        self.out.write(json.dumps(game_to_data(game), separators=(",", ":")) + "\n")
        self.out.flush()
        self.written += 1

    def close(self) -> None:
        """Close the file, first pushing it to the disk (each line was only flushed to the system)."""
        self.out.flush()
        os.fsync(self.out.fileno())
        self.out.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

