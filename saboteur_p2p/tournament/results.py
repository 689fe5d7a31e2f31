"""The results file: one JSON line per game, so a stopped tournament resumes and a report is rebuilt.

The first line names the format and the tournament's spec; every later line is one game, in
game order, written (and flushed) as soon as the game is folded into the statistics.  The
file is read line by line, never whole.  A run killed while writing leaves at most one
partial last line: a report skips it and ``--resume`` cuts it off and plays that game again.
"""
from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..rules import Role, Winners
from .spec import GameSummary, TournamentSpec
from .stats import StatsCollector, TournamentReport

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


def game_from_data(data: dict[str, Any]) -> GameSummary:
    return GameSummary(
        int(data["index"]),
        tuple(data["lineup"]),
        tuple(data["scores"]),
        tuple(data["winners"]),
        tuple(tuple(Role(r) for r in roles) for roles in data["roles"]),
        tuple(Winners(w) for w in data["round_winners"]),
        tuple(data["incidents"]),
        tuple(tuple(t) for t in data["round_trapped"]),
        int(data["seed"]),
        float(data.get("seconds", 0.0)),
    )


def _header(spec: TournamentSpec) -> str:
    return json.dumps({"format": FORMAT, "version": VERSION, "spec": spec.to_data()}, separators=(",", ":"))


def read_spec(path: Path) -> TournamentSpec:
    """The spec in a results file's first line."""
    with open(path, "rb") as file:
        first = file.readline()
    try:
        header = json.loads(first)  # bytes: a file that is not text fails here, named
        if header.get("format") != FORMAT:
            raise ValueError("not a results file")
        if header.get("version") != VERSION:
            raise ValueError(f"format version {header.get('version')}, this program reads {VERSION}")
        return TournamentSpec.from_data(header["spec"])
    except (ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ResultsFileError(f"{path}: not a tournament results file ({exc})") from None


def read_games(path: Path) -> Iterator[tuple[int, GameSummary]]:
    """The games of a results file, one line at a time, each with the byte offset just past its line.

    A last line without its newline is a write the run did not finish: it is left out.
    """
    with open(path, "rb") as file:
        offset = len(file.readline())
        for number, raw in enumerate(file, 2):
            if not raw.endswith(b"\n"):
                return
            try:
                game = game_from_data(json.loads(raw))
            except (ValueError, KeyError, TypeError) as exc:
                raise ResultsFileError(f"{path}, line {number}: not a game ({exc!r})") from None
            offset += len(raw)
            yield offset, game


def report_from_file(path: Path) -> TournamentReport:
    """The report of the games a results file holds, folded one line at a time."""
    collector = StatsCollector(read_spec(path))
    for _, game in read_games(path):
        _fold(collector, game, path)
    return collector.report


def _fold(collector: StatsCollector, game: GameSummary, path: Path) -> None:
    try:
        collector.add(game)
    except (ValueError, KeyError, IndexError) as exc:
        raise ResultsFileError(f"{path}: game {game.index} does not belong here ({exc!r})") from None


def _differences(there: dict[str, Any], here: dict[str, Any]) -> list[str]:
    return [f"{key} {there.get(key)!r} there, {here[key]!r} here" for key in here if there.get(key) != here[key]]


class ResultsFile:
    """Appends each game to a results file as it is folded; ``open`` starts or resumes one."""

    def __init__(self, path: Path, out: IO[str]) -> None:
        self.path = path
        self.out = out

    @classmethod
    def open(cls, path: Path, spec: TournamentSpec, collector: StatsCollector, resume: bool) -> ResultsFile:
        """Start ``path`` for ``spec``; with ``resume``, first fold the games it holds into ``collector``.

        Refuses a file that exists without ``resume``, and on resuming a file written for
        another tournament (another seed, lineup, player count ...) or with more games than asked.
        """
        exists = path.exists() and path.stat().st_size > 0
        if exists and not resume:
            raise ResultsFileError(f"{path} already holds results: --resume to continue that tournament, or name a new file")
        if not exists:
            with open(path, "w", encoding="utf-8") as new:
                new.write(_header(spec) + "\n")
            return cls(path, open(path, "a", encoding="utf-8"))
        there = read_spec(path)
        differ = _differences(there.identity(), spec.identity())
        if differ:
            raise ResultsFileError(f"{path} is another tournament's results: {'; '.join(differ)}")
        with open(path, "rb") as file:
            end = len(file.readline())
        for after, game in read_games(path):
            _fold(collector, game, path)
            end = after
        if collector.report.games > spec.total_games:
            raise ResultsFileError(
                f"{path} holds {collector.report.games} games, more than the {spec.total_games} asked for: "
                "ask for at least as many"
            )
        with open(path, "r+b") as raw:
            raw.truncate(end)  # a partial last line: that game is played again
        return cls(path, open(path, "a", encoding="utf-8"))

    def write(self, game: GameSummary) -> None:
        self.out.write(json.dumps(game_to_data(game), separators=(",", ":")) + "\n")
        self.out.flush()

    def close(self) -> None:
        """Close the file, first pushing it to the disk (each line was only flushed to the system)."""
        self.out.flush()
        os.fsync(self.out.fileno())
        self.out.close()

    def __enter__(self) -> ResultsFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

