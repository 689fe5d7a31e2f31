"""The results file: one line per game, resuming a stopped tournament, the report rebuilt from it."""
from __future__ import annotations

import contextlib
import json
import os
import pickle
from pathlib import Path

import pytest

from saboteur_p2p.cli import main
from saboteur_p2p.tournament import StatsCollector, TournamentSpec, game_seed, run_tournament, stats
from saboteur_p2p.tournament.results import ResultsFile, ResultsFileError, read_games, report_from_file

SPEC = TournamentSpec(4, 12, ("heuristic", "random"), seed=6)


def _results(report):
    data = report.to_data()
    del data["play_seconds"]
    return data


def _game_lines(path):
    """The game lines of a results file, less their timing."""
    games = []
    for line in path.read_text().splitlines()[1:]:
        data = json.loads(line)
        del data["seconds"]
        games.append(data)
    return games


def _run_to_file(path, spec, resume=False, stop_after=None):
    """Run ``spec`` writing ``path``; with ``stop_after``, stop (as Ctrl-C would) once that many games are written."""
    collector = StatsCollector(spec)

    class Stopped(Exception):
        pass

    with ResultsFile.open(path, spec, collector, resume) as results:
        def sink(game):
            results.write(game)
            if stop_after is not None and collector.report.games >= stop_after:
                raise Stopped

        with contextlib.suppress(Stopped):
            run_tournament(spec, collector=collector, sink=sink)
    return collector.report


def test_the_file_holds_every_game_in_order_and_rebuilds_the_report(tmp_path):
    path = tmp_path / "games.jsonl"
    report = _run_to_file(path, SPEC)
    games = _game_lines(path)
    assert [g["index"] for g in games] == list(range(12))
    assert all(len(g["lineup"]) == len(g["scores"]) == 4 and len(g["roles"]) == 3 for g in games)
    assert _results(report_from_file(path)) == _results(report)
    assert report_from_file(path).play_seconds == pytest.approx(report.play_seconds, abs=1e-3)


def test_a_resumed_tournament_loses_no_game_and_counts_none_twice(tmp_path):
    whole = tmp_path / "whole.jsonl"
    expected = _run_to_file(whole, SPEC)
    stopped = tmp_path / "stopped.jsonl"
    _run_to_file(stopped, SPEC, stop_after=5)
    with open(stopped, "a") as file:
        file.write('{"index": 5, "seed": 60')  # killed in the middle of writing game 5
    assert len(list(read_games(stopped, SPEC))) == 5
    resumed = _run_to_file(stopped, SPEC, resume=True)
    assert _game_lines(stopped) == _game_lines(whole)
    assert _results(resumed) == _results(expected)
    assert _results(report_from_file(stopped)) == _results(expected)


def test_resume_extends_a_finished_tournament_with_more_games(tmp_path):
    whole = tmp_path / "whole.jsonl"
    _run_to_file(whole, SPEC)
    grown = tmp_path / "grown.jsonl"
    _run_to_file(grown, TournamentSpec(4, 7, SPEC.bots, seed=SPEC.seed))
    _run_to_file(grown, SPEC, resume=True)
    assert _game_lines(grown) == _game_lines(whole)
    with pytest.raises(ResultsFileError, match="more than the 5 asked for"):
        ResultsFile.open(grown, TournamentSpec(4, 5, SPEC.bots, seed=SPEC.seed), StatsCollector(SPEC), True)


def test_resume_refuses_another_tournaments_file(tmp_path):
    path = tmp_path / "games.jsonl"
    _run_to_file(path, TournamentSpec(4, 3, SPEC.bots, seed=6))
    other = TournamentSpec(5, 3, SPEC.bots, seed=7)
    with pytest.raises(ResultsFileError, match=r"another tournament's results: players 4 there, 5 here; seed 6 there, 7 here"):
        ResultsFile.open(path, other, StatsCollector(other), True)
    with pytest.raises(ResultsFileError, match="already holds results: --resume"):
        ResultsFile.open(path, SPEC, StatsCollector(SPEC), False)
    paired = TournamentSpec(4, 3, SPEC.bots, seed=6, duplicate=True)
    with pytest.raises(ResultsFileError, match="duplicate False there, True here"):
        ResultsFile.open(path, paired, StatsCollector(paired), True)


def test_a_file_that_is_not_results_is_refused(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text('{"hello": 1}\n')
    with pytest.raises(ResultsFileError, match="not a tournament results file"):
        report_from_file(path)


@pytest.mark.parametrize("junk", [b"\xff\xfe\x00garbage\n", b"\x80\x81\n", b"[1, 2]\n", b"null\n"])
def test_a_first_line_that_is_not_a_header_is_refused_by_name(tmp_path, junk):
    path = tmp_path / "junk.jsonl"
    path.write_bytes(junk)
    with pytest.raises(ResultsFileError, match=r"junk\.jsonl: not a tournament results file"):
        report_from_file(path)


@pytest.mark.parametrize("line", [b"\xff\xff\n", b"[1, 2]\n", b"null\n", b'"text"\n', b'{"index": 0}\n'])
def test_a_game_line_that_is_not_a_game_is_refused_with_its_line_number(tmp_path, line):
    path = tmp_path / "games.jsonl"
    with ResultsFile.open(path, SPEC, StatsCollector(SPEC), False):
        pass
    path.write_bytes(path.read_bytes() + line)
    with pytest.raises(ResultsFileError, match=r"games\.jsonl, line 2: not a game"):
        list(read_games(path, SPEC))


def test_cli_out_resume_and_report(tmp_path, capsys):
    path = tmp_path / "games.jsonl"
    def base(seed=3):
        return ["tournament", "--players", "3", "--bots", "random,heuristic", "--seed", str(seed), "--candidate",
                "saboteur_bots.random_bot:RandomBot", "--out", str(path)]

    assert main([*base(), "--games", "4"]) == 0
    printed = capsys.readouterr().out
    assert main([*base(), "--games", "4"]) == 2
    assert "already holds results" in capsys.readouterr().err
    assert main([*base(), "--games", "6", "--resume"]) == 0
    assert "8 games done, 4 to play" in capsys.readouterr().out
    assert main([*base(seed=4), "--games", "6", "--resume"]) == 2
    assert "seed 3 there, 4 here" in capsys.readouterr().err
    assert main(["report", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 12 and data["deals"] == 6 and data["mode"] == "candidate"
    assert sum(pair["deals"] for pair in data["paired"]) == 6  # split by the bot the candidate replaced
    assert main(["report", str(path)]) == 0
    reported = capsys.readouterr()
    assert "12 games (6 deals, each played with and without" in reported.out
    assert "4 deals" in printed
    assert reported.err == ""  # whole: nothing left out


def test_a_report_of_a_stopped_tournament_says_what_it_leaves_out(tmp_path, capsys):
    """`report` on a file whose run was killed said "99 games" and nothing else: not that 600
    were planned, nor that a half-written last line was dropped (found by review)."""
    path = tmp_path / "games.jsonl"
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "5", "--out", str(path)]) == 0
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-2]) + lines[-2][:30])  # killed while writing the fourth game
    capsys.readouterr()
    assert main(["report", str(path)]) == 0
    reported = capsys.readouterr()
    assert "3 games" in reported.out
    assert f"{path}: its last line was cut short" in reported.err
    assert f"{path}: 3 of the 5 games planned; --resume plays the rest" in reported.err


def test_a_report_holds_as_much_after_ten_times_the_games(tmp_path, monkeypatch):
    """Folding a file keeps sums and a few samples, nothing a game: the report's size stays put."""
    monkeypatch.setattr(stats, "RATING_POINTS", 16)  # the rating series is thinned at 16 points, not 512
    one = tmp_path / "one.jsonl"
    _run_to_file(one, TournamentSpec(4, 1, ("random",), seed=1))
    header, game = one.read_text().splitlines()
    data = json.loads(game)
    data["incidents"] = ["a bot raised"]  # counted in full, kept as a few samples only

    def size(games):
        path = tmp_path / f"{games}.jsonl"
        with open(path, "w") as file:
            file.write(header + "\n")
            for index in range(games):
                file.write(json.dumps({**data, "index": index, "seed": game_seed(1, index)}) + "\n")
        report = report_from_file(path)
        assert report.games == games and report.incidents == games
        return len(pickle.dumps(report))

    small, large = size(300), size(3000)
    assert large < small * 1.05


def _one_error_line(capsys) -> str:
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("saboteur-p2p: error: "), captured.err
    return lines[0]


def test_a_results_file_that_cannot_be_read_is_one_line_naming_it(tmp_path, capsys):
    missing = tmp_path / "missing.jsonl"
    assert main(["report", str(missing)]) == 2
    assert _one_error_line(capsys).endswith(f"No such file or directory: {missing}")
    assert main(["report", str(tmp_path)]) == 2
    assert str(tmp_path) in _one_error_line(capsys)
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "2", "--out", str(tmp_path),
                 "--resume"]) == 2
    assert str(tmp_path) in _one_error_line(capsys)
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "2",
                 "--out", str(tmp_path / "no" / "games.jsonl")]) == 2
    assert "no/games.jsonl" in _one_error_line(capsys)


def test_a_json_file_that_could_not_be_written_is_refused_before_any_game(tmp_path, capsys):
    nowhere = tmp_path / "no" / "report.json"
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "2", "--json", str(nowhere)]) == 2
    assert _one_error_line(capsys) == f"saboteur-p2p: error: --json {nowhere}: there is no folder {nowhere.parent}"
    assert capsys.readouterr().out == ""  # no game was played
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "2", "--json", str(tmp_path)]) == 2
    assert "that is a folder, not a file" in _one_error_line(capsys)


def test_an_existing_json_file_in_a_folder_this_user_may_not_write_is_still_written(tmp_path, monkeypatch):
    """Writing a file needs its own permission only, not the folder's (open(path, "w")
    truncates it in place): the folder is asked about only for a file still to be made."""
    report = tmp_path / "report.json"
    report.write_text("{}")
    asked = []

    def access(path, mode):
        asked.append(Path(path))
        return Path(path) != tmp_path  # the folder is read-only for this user

    monkeypatch.setattr(os, "access", access)
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "2", "--json", str(report)]) == 0
    assert json.loads(report.read_text())["games"] == 2 and asked == [report]
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "2",
                 "--json", str(tmp_path / "new.json")]) == 2


def test_what_a_bot_prints_goes_to_stderr_not_into_the_report(tmp_path, capsys):
    """A bot's prints ran into the report on stdout, and a worker's were partly lost (found by review)."""
    bot = tmp_path / "printer.py"
    bot.write_text(
        "from saboteur_p2p.botapi import BaseBot\n\n\n"
        "class Printer(BaseBot):\n"
        "    def act(self, view, legal):\n"
        "        print('PRINTED by the bot')\n"
        "        return legal[0]\n"
    )
    assert main(["tournament", "--players", "3", "--bots", f"random,{bot}:Printer", "--games", "3"]) == 0
    printed = capsys.readouterr()
    assert "PRINTED" not in printed.out and "3 games" in printed.out
    assert printed.err.count("PRINTED by the bot\n") > 10
    # and what it prints as it is imported, also where --out reads its version (found by an attack)
    bot.write_text("print('PRINTED at import')\n" + bot.read_text())
    out = tmp_path / "g.jsonl"
    assert main(["tournament", "--players", "3", "--bots", f"random,{bot}:Printer", "--games", "3", "--out", str(out)]) == 0
    assert main(["tournament", "--players", "3", "--bots", f"random,{bot}:Printer", "--games", "4", "--out", str(out),
                 "--resume"]) == 0
    printed = capsys.readouterr()
    assert "PRINTED" not in printed.out and "PRINTED at import" in printed.err


def test_incidents_are_counted_by_bot_and_kind_and_a_rare_kind_is_shown(tmp_path, capsys):
    """The report showed one incident text and the first 20 in its JSON, all from the first
    games: two timeouts among 370 raises were invisible (found by review)."""
    bot = tmp_path / "faulty.py"
    bot.write_text(
        "import time\n"
        "from saboteur_p2p.botapi import BaseBot\n\n\n"
        "class Faulty(BaseBot):\n"
        "    def act(self, view, legal):\n"
        "        if self.seed % 5 == 4 and not getattr(self, 'slept', False):\n"
        "            self.slept = True\n"
        "            time.sleep(0.3)\n"
        "        raise RuntimeError('bad cell (3, 4) timeout: boom')  # words that look like another incident's\n"
    )
    args = ["tournament", "--players", "3", "--bots", f"random,{bot}:Faulty", "--games", "12", "--time-limit", "0.1"]
    assert main([*args, "--json", str(tmp_path / "r.json")]) == 0
    out = capsys.readouterr().out
    data = json.loads((tmp_path / "r.json").read_text())
    counts = data["incident_counts"][f"{bot}:Faulty"]
    assert counts["raised"] > 20 and counts["timeout"] >= 1 and sum(counts.values()) == data["incidents"]
    assert any(" timeout: " in text for text in data["incident_samples"])
    assert f"{bot}:Faulty: raised {counts['raised']}, timeout {counts['timeout']}" in out
    assert sum(line.startswith("  game ") for line in out.splitlines()) == 2  # the first raise, the first timeout
    # the JSON says in words, as the text does, that a timeout makes the figures depend on the machine
    assert len(data["caveats"]) == 1 and "another run of these games may differ" in data["caveats"][0]
    assert f"  ({data['caveats'][0]})" in out


def test_an_incidents_line_breaks_do_not_make_lines_of_the_report(tmp_path, capsys):
    """A results file's incident text with line breaks printed lines that read as the
    report's own, a fake table row among them (found by an attack on ``report``)."""
    bot = tmp_path / "liar.py"
    bot.write_text(
        "from saboteur_p2p.botapi import BaseBot\n\n\n"
        "class Liar(BaseBot):\n"
        "    def act(self, view, legal):\n"
        "        raise RuntimeError('boom')\n"
    )
    results = tmp_path / "g.jsonl"
    assert main(["tournament", "--players", "3", "--bots", f"random,{bot}:Liar", "--games", "2", "--out", str(results)]) == 0
    capsys.readouterr()
    lines = results.read_text().splitlines()
    game = json.loads(lines[1])
    game["incidents"][0] = "boom\nfakebot  12  12  0  99.00 +- 0.01\r\nall games verified\u2028done"
    results.write_text("\n".join([lines[0], json.dumps(game), *lines[2:]]) + "\n")
    assert main(["report", str(results)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert not any(line.startswith(("fakebot", "all games", "done")) for line in out), out
    (told,) = [line for line in out if "fakebot" in line]
    assert told == "  boom fakebot 12 12 0 99.00 +- 0.01 all games verified done"


def test_a_tournament_killed_outright_leaves_no_worker_holding_its_results_file(tmp_path):
    """Killed with SIGKILL (as the OOM killer does), a ``--jobs 2`` tournament left its worker
    processes idle for ever, holding the results file's lock they inherited: every
    ``--resume`` was refused, "wait for it" (found by an attack).  Orphaned, they now end."""
    import signal
    import subprocess
    import sys
    import time

    out = tmp_path / "g.jsonl"
    args = ["tournament", "--players", "4", "--bots", "random", "--games", "400", "--jobs", "2", "--out", str(out)]
    run = subprocess.Popen([sys.executable, "-m", "saboteur_p2p", *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while (not out.exists() or out.read_text().count("\n") < 3) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait(10)
    assert 3 <= out.read_text().count("\n") < 401, "killed before its first games, or after its last"
    import fcntl

    deadline = time.monotonic() + 20
    with out.open("a") as file:
        while True:  # the workers notice within a second or two
            try:
                fcntl.flock(file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                assert time.monotonic() < deadline, "the results file stays locked"
                time.sleep(0.2)
            else:
                break
    assert main([*args, "--resume", "--jobs", "1"]) == 0


@pytest.mark.parametrize("mode", [[], ["--duplicate"]])
def test_a_bots_gold_interval_counts_a_deal_once_not_each_seat(tmp_path, mode):
    """A bot in several seats of a game (or of a deal's games) had each seat counted as an
    independent sample: intervals came out 2.5 times too wide, and others too narrow (found by
    an attack).  Recomputed here from the results file, deal by deal (the cluster-robust
    interval of a ratio of means), and equal to Student's when a bot has one seat a deal."""
    import math

    out, data = tmp_path / "g.jsonl", tmp_path / "r.json"
    assert main(["tournament", "--players", "4", "--bots", "random,heuristic,random", "--games", "40", "--seed", "5",
                 *mode, "--out", str(out), "--json", str(data)]) == 0
    games = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    deal_size = 4 if mode else 1
    reported = {entry["bot"]: entry for entry in json.loads(data.read_text())["bots"]}
    for bot in ("random", "heuristic"):
        deals: dict[int, list[int]] = {}
        for game in games:
            deals.setdefault(game["index"] // deal_size, []).extend(
                gold for name, gold in zip(game["lineup"], game["scores"], strict=True) if name == bot)
        groups = [golds for golds in deals.values() if golds]
        seats = sum(len(g) for g in groups)
        mean = sum(sum(g) for g in groups) / seats
        k = len(groups)
        variance = k / (k - 1) * sum((sum(g) - mean * len(g)) ** 2 for g in groups) / seats**2
        expected = stats.t95(k) * math.sqrt(variance)
        assert reported[bot]["mean_gold"] == pytest.approx(mean, abs=1e-4)
        assert reported[bot]["mean_gold_ci95"] == pytest.approx(expected, abs=1e-3), bot
    # one seat a deal: Student's interval of the mean, as before
    single = stats.clustered_ci95(stats.GoldTally(4, 10, 4, 1 + 4 + 9 + 16, 10, 4))
    values = [1, 2, 3, 4]
    sd = math.sqrt(sum((v - 2.5) ** 2 for v in values) / 3)
    assert single == pytest.approx(stats.t95(4) * sd / 2)


def test_a_run_stopped_by_a_bot_that_can_no_longer_be_made_says_where_the_results_stand(tmp_path, capsys):
    """Only Ctrl-C and a lost worker said how many games the file kept and that --resume goes
    on: a bot whose making failed mid-tournament, or a stopped scheduler, said nothing of them
    (found by an attack)."""
    bot = tmp_path / "flaky.py"
    bot.write_text(
        "from saboteur_p2p.botapi import BaseBot\n\n\n"
        "class Flaky(BaseBot):\n"
        "    made = 0\n\n"
        "    def __init__(self):\n"
        "        type(self).made += 1\n"
        "        if type(self).made > 6:\n"
        "            raise MemoryError('no more')\n\n"
        "    def act(self, view, legal):\n"
        "        return legal[0]\n"
    )
    out = tmp_path / "g.jsonl"
    status = main(["tournament", "--players", "3", "--bots", f"random,{bot}:Flaky", "--games", "20", "--out", str(out)])
    err = capsys.readouterr().err
    kept = out.read_text().count("\n") - 1
    assert status == 2 and 0 < kept < 20, err
    assert f"{kept} game{'s are' if kept != 1 else ' is'} in {out}; the same command with --resume goes on from there" in err
    assert "could not be made: MemoryError" in err


def test_a_report_of_no_game_says_so_rather_than_an_empty_list(tmp_path, capsys):
    """``report`` of a file that holds the header alone printed "team win rates per round: "
    and nothing after it (found by an attack)."""
    out = tmp_path / "g.jsonl"
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "2", "--out", str(out)]) == 0
    out.write_text(out.read_text().splitlines()[0] + "\n")
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    assert "team win rates per round: no round played yet" in capsys.readouterr().out.splitlines()


def test_a_run_stopped_as_a_game_was_written_counts_the_games_the_file_holds(tmp_path, capsys, monkeypatch):
    """A game is folded into the report before it is written: a write that failed (a full disk)
    was counted, "4 games are in FILE" over a file of 3 (found by review)."""
    import errno

    written: list[int] = []
    real = ResultsFile.write

    def write(self, game):
        if len(written) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        written.append(game.index)
        real(self, game)

    monkeypatch.setattr(ResultsFile, "write", write)
    out = tmp_path / "g.jsonl"
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "10", "--out", str(out)]) != 0
    assert out.read_text().count("\n") == 4  # the header and 3 games
    assert f"3 games are in {out}; the same command with --resume goes on from there" in capsys.readouterr().err


def test_the_reports_footnote_says_wins_are_counted_by_seat(tmp_path, capsys):
    """Two seats of one bot tied for the most gold count two shared wins and no outright one:
    the footnote said "the games it won alone, and with others" (found by an attack)."""
    assert main(["tournament", "--players", "3", "--bots", "random", "--games", "4", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "wins, shared: its seats with the most gold alone, and with others" in out
    assert "the games it won" not in out


def test_a_results_file_missing_a_game_says_how_to_keep_the_sound_ones(tmp_path, capsys):
    """"game 2 came where game 1 was due" named no line and no way on (found by an attack)."""
    out = tmp_path / "g.jsonl"
    args = ["tournament", "--players", "3", "--bots", "random", "--games", "4", "--out", str(out)]
    assert main(args) == 0
    lines = out.read_text().splitlines()
    out.write_text("\n".join([*lines[:2], *lines[3:]]) + "\n")  # game 1 lost
    capsys.readouterr()
    assert main(["report", str(out)]) == 2
    err = capsys.readouterr().err
    assert "game 2 does not belong here (game 2 came where game 1 was due" in err
    assert "the game before it is sound: keep the header and it (head -n 2), and --resume plays the rest" in err
    out.write_text("\n".join(lines[:2]) + "\n")  # as the hint says
    assert main([*args, "--resume"]) == 0

    def games(text_lines):
        return [{k: v for k, v in json.loads(line).items() if k != "seconds"} for line in text_lines]

    assert games(out.read_text().splitlines()[1:]) == games(lines[1:])  # played again, the same games
