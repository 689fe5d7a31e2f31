"""A results file is untrusted input, and no mistake on the command line may lose one.

Every bad field of a results file is one error line naming the file and line, never a
traceback; a game from another tournament is refused; two runs never append to one file;
--json and --plot never write over results; a bad bot parameter is refused before any game.
"""
from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys

import pytest

from saboteur_p2p.cli import main
from saboteur_p2p.tournament import StatsCollector, TournamentSpec, run_tournament
from saboteur_p2p.tournament.results import ResultsFile, ResultsFileError, report_from_file

SPEC = TournamentSpec(4, 3, ("random",), seed=1)


def _write(path, spec=SPEC):
    collector = StatsCollector(spec)
    with ResultsFile.open(path, spec, collector, False) as results:
        run_tournament(spec, collector=collector, sink=results.write)
    return path.read_text().splitlines()


def _error(capsys) -> str:
    """The one error line on stderr (beside the progress lines, "3/10 games", that go there too)."""
    err = [line for line in capsys.readouterr().err.strip().splitlines() if not re.fullmatch(r"\d+/\d+ games", line)]
    assert len(err) == 1 and err[0].startswith("saboteur-p2p: error: "), err
    return err[0]


@pytest.mark.parametrize(("field", "text"), [
    ("index", "1e400"), ("index", '"0"'), ("index", "0.9"), ("index", "true"),
    ("scores", '["a","b","c","d"]'), ("scores", "1" + "0" * 400), ("scores", "[1,2]"),
    ("seconds", "1e400"), ("seconds", "-5"), ("winners", "[7]"), ("roles", '[["nobody"]]'),
    ("round_winners", "[]"), ("incidents", "[1]"),
    # found by review: a huge whole number of seconds raised OverflowError; winners that are
    # not the seats with the most gold, and a game of no round, were folded in
    ("seconds", "1" + "0" * 400), ("winners", "[]"),
])
def test_a_bad_field_of_a_game_line_is_one_error_naming_the_line(tmp_path, capsys, field, text):
    header, first, *_ = _write(tmp_path / "good.jsonl")
    data = json.loads(first)
    data[field] = "@"
    bad = tmp_path / "bad.jsonl"
    bad.write_text(header + "\n" + json.dumps(data).replace('"@"', text) + "\n")
    assert main(["report", str(bad)]) == 2
    assert "bad.jsonl, line 2: not a game" in _error(capsys)
    assert main(["report", "--json", str(bad)]) == 2


def _many_rounds(data):
    for key in ("roles", "round_winners", "round_trapped"):
        data[key] = data[key] * 100
    return "roles name 300 rounds, where a game of this tournament has 3"


def _much_gold(data):
    data["scores"], data["winners"] = [9999, 0, 0, 0], [0]
    return "scores [9999, 0, 0, 0] hold more than the 44 gold a game of this tournament holds"


def _saboteurs_all(data):
    data["roles"][1] = ["saboteur"] * 4
    return "round 2's roles ['saboteur', 'saboteur', 'saboteur', 'saboteur'] are not dealt from this game's role cards"


@pytest.mark.parametrize("edit", [_many_rounds, _much_gold, _saboteurs_all])
def test_a_game_line_no_game_of_the_tournament_could_give_is_refused(tmp_path, capsys, edit):
    """Lines of 300 rounds or 9999 gold, well formed, were folded into the report (team win
    rates 11/17/72% became 1/64/36%) and a resume played on after them (found by an attack)."""
    header, first, *_ = _write(tmp_path / "good.jsonl")
    data = json.loads(first)
    why = edit(data)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(header + "\n" + json.dumps(data) + "\n")
    assert main(["report", str(bad)]) == 2
    # the line named, and how to keep the sound ones before it (found by an attack)
    hint = f"; the lines before it are sound: keep them (head -n 1 {bad}), and --resume plays the rest"
    assert _error(capsys) == f"saboteur-p2p: error: {bad}, line 2: not a game ({why}){hint}"
    before = bad.read_bytes()
    resume = ["tournament", "--players", "4", "--games", "3", "--bots", "random", "--seed", "1", "--out", str(bad), "--resume"]
    assert main(resume) == 2  # a resume plays on from no such line
    assert _error(capsys) == f"saboteur-p2p: error: {bad}, line 2: not a game ({why}){hint}"
    assert bad.read_bytes() == before


@pytest.mark.parametrize(("field", "value"), [
    ("players", 0), ("players", -3), ("bots", [[1]]), ("duplicate", "no"), ("variants", "abc"),
    ("time_limit", -1), ("games", 0), ("seed", 1.5),
    ("time_limit", 10**400), ("candidate", ""),  # found by review (the first raised OverflowError)
])
def test_a_bad_header_is_one_error_naming_the_file(tmp_path, capsys, field, value):
    header, first, *_ = _write(tmp_path / "good.jsonl")
    data = json.loads(header)
    data["spec"][field] = value
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps(data) + "\n" + first + "\n")
    assert main(["report", str(bad)]) == 2
    assert "bad.jsonl: not a tournament results file" in _error(capsys)


def test_a_header_nested_too_deep_or_a_line_too_long_is_one_error(tmp_path, capsys):
    """A header of 100,000 nested arrays raised RecursionError; a file with no line break was
    read whole into memory (found by review)."""
    header, first, *_ = _write(tmp_path / "good.jsonl")
    deep = tmp_path / "deep.jsonl"
    deep.write_text("[" * 100_000 + "\n")
    assert main(["report", str(deep)]) == 2
    assert "deep.jsonl: not a tournament results file" in _error(capsys)
    long = tmp_path / "long.jsonl"
    long.write_text(header + "\n" + " " * (9 << 20) + first + "\n")
    assert main(["report", str(long)]) == 2
    assert "long.jsonl, line 2: not a game (longer than 8 MiB)" in _error(capsys)


def test_a_blank_line_is_passed_over_and_a_resume_drops_those_at_the_end(tmp_path, capsys):
    """A blank line (an edit's) refused the whole file; it is passed over, and a resume that
    goes on from after the last game drops it."""
    path = tmp_path / "games.jsonl"
    header, *games = _write(path)
    path.write_text("\n".join([header, games[0], "", games[1], *games[2:], ""]) + "\n")
    report = report_from_file(path)
    assert report.games == len(games)
    assert main(["tournament", "--players", "4", "--bots", "random", "--games", "4", "--seed", "1",
                 "--out", str(path), "--resume"]) == 0
    assert report_from_file(path).games == 4
    assert path.read_text().count("\n\n") == 1  # the blank line between games stays, the one after them went


def test_a_seed_beyond_what_a_results_file_holds_is_refused_before_any_game(tmp_path, capsys):
    """A --seed above about 1.3e24 made a file that neither report nor --resume could read."""
    path = tmp_path / "games.jsonl"
    seed = str(1267650600228229401496703)
    assert main(["tournament", "--players", "3", "--games", "2", "--seed", seed, "--out", str(path)]) == 2
    assert f"--seed {seed} is out of range" in _error(capsys)
    assert not path.exists()
    assert main(["tournament", "--players", "3", "--games", "2", "--seed", str(-(2**62)), "--out", str(path)]) == 0
    assert report_from_file(path).games == 2
    # a file written with a larger seed before the limit reads as it did
    older = tmp_path / "older.jsonl"
    spec = TournamentSpec(3, 2, ("random",), seed=2**63)
    collector = StatsCollector(spec)
    with ResultsFile.open(older, spec, collector, False) as results:
        run_tournament(spec, collector=collector, sink=results.write)
    assert report_from_file(older).games == 2


def test_the_same_file_named_twice_is_refused_not_counted_twice(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    _write(path)
    assert main(["report", str(path), str(tmp_path / "." / "games.jsonl")]) == 2
    assert "names" in _error(capsys)


def test_what_a_results_file_says_reaches_the_terminal_without_escape_sequences(tmp_path, capsys):
    """Incidents and bot names came from the file verbatim: a file could set the terminal's
    title, clear it or colour it (found by review)."""
    path = tmp_path / "games.jsonl"
    header, first, *rest = _write(path)
    data = json.loads(first)
    data["incidents"] = ["game 0 seat 1 (random) raised: \x1b]0;pwned\x07\x1b[2J\x1b[31mred"]
    path.write_text("\n".join([header, json.dumps(data), *rest]) + "\n")
    assert main(["report", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "raised: ]0;pwned[2J[31mred" in out  # the text is shown, its controls are not


def test_a_bot_that_fails_as_it_is_made_mid_tournament_is_one_error_naming_the_game(tmp_path, capsys):
    """A bot made well at the start but failing as a later game makes it stopped the run with
    a traceback; the games already played are kept (found by review)."""
    bot = tmp_path / "later.py"
    bot.write_text(
        "from saboteur_p2p.botapi import BaseBot\n"
        "made = 0\n"
        "class Later(BaseBot):\n"
        "    def __init__(self):\n"
        "        global made\n"
        "        made += 1\n"
        "        if made > 4:\n"  # twice checked, then game 0 seats it twice

        "            raise RuntimeError('no more')\n"
        "    def act(self, view, legal):\n"
        "        return legal[0]\n"
    )
    path = tmp_path / "games.jsonl"
    assert main(["tournament", "--players", "3", "--bots", f"{bot}:Later,random", "--games", "4",
                 "--out", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    kept = f"saboteur-p2p: 1 game is in {path}; the same command with --resume goes on from there"
    assert kept in err  # where the results stand, then the one error
    error = [line for line in err if line != kept and not re.fullmatch(r"\d+/\d+ games", line)]
    assert len(error) == 1 and error[0].startswith("saboteur-p2p: error: "), err
    assert "game 1: bot" in error[0] and "could not be made: RuntimeError('no more')" in error[0], error
    assert report_from_file(path).games == 1


def test_games_of_another_tournament_are_refused_not_folded_in(tmp_path):
    ours = _write(tmp_path / "ours.jsonl")
    theirs = _write(tmp_path / "theirs.jsonl", TournamentSpec(4, 3, ("random",), seed=2))
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_text("\n".join([ours[0], *theirs[1:]]) + "\n")
    with pytest.raises(ResultsFileError, match=r"line 2: game 0 is not this tournament's"):
        report_from_file(mixed)
    with pytest.raises(ResultsFileError, match="not this tournament's"):
        ResultsFile.open(mixed, TournamentSpec(4, 5, ("random",), seed=1), StatsCollector(SPEC), True)


def test_a_file_in_use_by_another_run_is_refused(tmp_path):
    path = tmp_path / "games.jsonl"
    lines = _write(path)
    with open(path, "a") as other_run:
        fcntl.flock(other_run.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ResultsFileError, match="in use by another tournament run"):
            ResultsFile.open(path, TournamentSpec(4, 5, ("random",), seed=1), StatsCollector(SPEC), True)
    assert path.read_text().splitlines() == lines  # untouched


def test_a_file_that_holds_no_game_yet_is_started_anew(tmp_path, capsys):
    """A run that failed before its first game (a bad bot, an unreachable cluster) leaves no
    file that blocks the corrected command."""
    path = tmp_path / "games.jsonl"
    assert main(["tournament", "--players", "4", "--bots", "random,randon", "--games", "2", "--out", str(path)]) == 2
    assert "unknown bot 'randon'" in _error(capsys)
    assert not path.exists()
    path.write_text(json.dumps({"format": "saboteur-p2p tournament results", "version": 1,
                                "spec": {**SPEC.to_data(), "bots": ["heuristic"]}}) + "\n")
    assert main(["tournament", "--players", "4", "--bots", "random", "--games", "2", "--seed", "1",
                 "--out", str(path)]) == 0
    assert len(path.read_text().splitlines()) == 3 and '"bots":["random"]' in path.read_text()


def test_json_and_plot_never_write_over_results(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    lines = _write(path)
    assert main(["tournament", "--players", "4", "--bots", "random", "--games", "2", "--out",
                 str(tmp_path / "new.jsonl"), "--json", str(path)]) == 2
    assert "holds a tournament's results" in _error(capsys)
    same = tmp_path / "same.jsonl"
    assert main(["tournament", "--players", "4", "--bots", "random", "--games", "2", "--out", str(same),
                 "--json", str(same)]) == 2
    assert "holds the tournament's results" in _error(capsys)
    assert main(["report", str(path), "--plot", str(path)]) == 2
    assert "name it FILE.png" in _error(capsys)
    assert path.read_text().splitlines() == lines


@pytest.mark.parametrize(("bots", "message"), [
    ("ismcts:playouts=abc", "parameter 'playouts' takes a whole number, not 'abc'"),
    ("ismcts:playouts=true", "parameter 'playouts' takes a whole number, not 'true'"),
    ("ismcts:margin=abc", "parameter 'margin' takes a number, not 'abc'"),
    ("ismcts:playouts=-1", "could not be made: ValueError(\"playouts must be at least 0"),
    ("ismcts:margin=nan", "could not be made: ValueError('margin must be a number"),  # the search never overrode the heuristic
    ("ismcts:time=-1", "time a number of seconds at least 0"),
])
def test_a_bad_bot_parameter_is_refused_before_any_game(tmp_path, capsys, bots, message):
    path = tmp_path / "games.jsonl"
    assert main(["tournament", "--players", "3", "--bots", f"random,{bots}", "--games", "2", "--out", str(path)]) == 2
    assert message in _error(capsys)
    assert not path.exists()


def test_a_resume_with_another_time_limit_is_refused(tmp_path, capsys):
    """A bot past its time has a move played for it, so the limit is part of every result."""
    path = tmp_path / "games.jsonl"
    command = ["tournament", "--players", "3", "--bots", "random", "--games", "2", "--out", str(path)]
    assert main([*command, "--time-limit", "2"]) == 0
    lines = path.read_text().splitlines()
    assert main([*command, "--games", "3", "--resume"]) == 2
    assert "was played with --time-limit 2; resume it with the same, not --time-limit 5" in _error(capsys)
    assert path.read_text().splitlines() == lines
    assert main([*command, "--games", "3", "--resume", "--time-limit", "2"]) == 0
    assert len(path.read_text().splitlines()) == len(lines) + 1


def test_a_closed_stdout_does_not_stop_the_tournament(tmp_path):
    path = tmp_path / "games.jsonl"
    command = (f"{sys.executable} -m saboteur_p2p tournament --players 4 --bots random --games 40 "
               f"--out {path} | head -1")
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=120, env={**os.environ, "CI": "1"})
    assert done.stdout.strip() and "4/40 games" in done.stderr  # the progress goes to stderr, the report to stdout
    assert len(path.read_text().splitlines()) == 41  # every game played and kept


def test_a_candidate_named_with_spaces_is_the_bot_it_names(tmp_path, capsys):
    """``--candidate " random"`` passed the check that it is not a baseline bot (the loader
    strips names, the check did not) and compared random with itself (found by review)."""
    assert main(["tournament", "--players", "3", "--bots", "random", "--candidate", " random ", "--games", "2"]) == 2
    assert "the candidate 'random' is also a baseline bot" in _error(capsys)


def test_a_bot_that_raises_a_huge_error_on_every_move_leaves_a_file_report_reads(tmp_path, capsys):
    """Each incident kept the bot's whole exception: a 30,000-character one on every move made a
    line of megabytes, over what report and --resume read (found by review)."""
    bot = tmp_path / "loud.py"
    bot.write_text(
        "from saboteur_p2p.botapi import BaseBot\n"
        "class Loud(BaseBot):\n"
        "    def act(self, view, legal):\n"
        "        raise ValueError('x' * 30000)\n"
    )
    path = tmp_path / "games.jsonl"
    assert main(["tournament", "--players", "3", "--bots", f"{bot}:Loud,random", "--games", "2", "--out", str(path)]) == 0
    table = capsys.readouterr().out.splitlines()
    # the bot is marked in the table where its results are read (found by a bot author)
    assert any(line.startswith(f"{bot}:Loud ! ") for line in table) and any(line.startswith("random ") for line in table)
    assert "(!: the bot misbehaved, and a safe move was played for it: see the bot incidents below)" in table
    report = report_from_file(path)
    assert report.games == 2
    line = path.read_text().splitlines()[1]
    assert len(line) < 200_000 and "xxxx\\u2026" in line  # an incident a move, each cut short
