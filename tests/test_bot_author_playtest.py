"""What a bot author's play-test found (2026-12-06): a bot's prints while it loads, a bot file
that calls sys.exit(), failures at a table of people, and the hints a wrong spec or a wrong
return value deserve."""
from __future__ import annotations

from pathlib import Path

import pytest

from saboteur_p2p.botapi import BotLoadError, GuardedSeat, bot_factory, load_bot
from saboteur_p2p.cli import main
from saboteur_p2p.client.local import LocalTable
from saboteur_p2p.net.agents import BotAgent
from saboteur_p2p.rules import Game, GameConfig, TrustedDealer

GREEDY = (
    "class Greedy:\n"
    "    def __init__(self):\n"
    "        print('INIT PRINT')\n"
    "    def start(self, seat, config, seed): pass\n"
    "    def on_event(self, event): pass\n"
    "    def act(self, view, legal):\n"
    "        print('ACT PRINT')\n"
    "        return legal[0]\n"
)


def test_what_a_bot_prints_as_it_loads_goes_to_stderr_in_a_tournament_and_a_game(tmp_path: Path, capsys) -> None:
    bot = tmp_path / "loud.py"
    bot.write_text("print('MODULE PRINT')\n" + GREEDY)
    assert main(["tournament", "--players", "3", "--games", "2", "--bots", f"{bot}:Greedy,random", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert "PRINT" not in out and out.lstrip().startswith("2 games"), out
    assert "MODULE PRINT" in err and "INIT PRINT" in err and "ACT PRINT" in err
    bot_factory.cache_clear()  # loaded again: its module prints again
    assert main(["game", "--players", "3", "--bots", f"{bot}:Greedy,random", "--seed", "1"]) == 0
    out, err = capsys.readouterr()
    assert "PRINT" not in out and "== game over" in out, out
    assert "INIT PRINT" in err and "ACT PRINT" in err


@pytest.mark.parametrize("status", [0, 2])
def test_a_bot_file_that_calls_sys_exit_as_it_loads_is_named_and_the_command_fails(tmp_path: Path, capsys, status: int) -> None:
    """It ended the whole command in silence, with sys.exit(0) as a success."""
    bot = tmp_path / f"exits{status}.py"
    bot.write_text(f"import sys\nsys.exit({status})\n")
    assert main(["tournament", "--players", "3", "--games", "2", "--bots", f"{bot}:B,random"]) == 2
    err = capsys.readouterr().err
    assert f"cannot load bot '{bot}:B'" in err and f"raised SystemExit({status}) at exits{status}.py:2" in err, err
    assert main(["game", "--players", "3", "--bots", f"{bot}:B,random"]) == 2
    assert f"raised SystemExit({status})" in capsys.readouterr().err


def test_a_bot_whose_constructor_calls_sys_exit_is_named(tmp_path: Path, capsys) -> None:
    bot = tmp_path / "quits.py"
    bot.write_text(GREEDY.replace("print('INIT PRINT')", "import sys; sys.exit(3)"))
    with pytest.raises(BotLoadError, match=r"could not be made: SystemExit\(3\) at quits\.py:3"):
        load_bot(f"{bot}:Greedy")
    assert main(["tournament", "--players", "3", "--games", "2", "--bots", f"{bot}:Greedy,random"]) == 2
    assert "could not be made: SystemExit(3) at quits.py:3" in capsys.readouterr().err


def test_a_module_spec_for_a_file_here_says_how_to_name_the_file(tmp_path: Path, monkeypatch) -> None:
    (tmp_path / "mybot.py").write_text(GREEDY)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BotLoadError, match=r"no module 'mybot' .*; for the file mybot\.py here, write mybot\.py:Greedy"):
        bot_factory("mybot:Greedy")
    with pytest.raises(BotLoadError) as elsewhere:
        bot_factory("nosuchbot:Greedy")
    assert "write" not in str(elsewhere.value)


class Failing:
    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        pass

    def on_event(self, event: object) -> None:
        pass

    def act(self, view: object, legal: list[object]) -> object:
        raise RuntimeError("boom in act")


class Texting(Failing):
    def act(self, view: object, legal: list[object]) -> object:
        return str(legal[0])


def test_a_bot_that_returns_an_action_s_text_is_told_act_returns_one_of_the_legal_actions() -> None:
    state = Game(GameConfig(3), TrustedDealer(1)).new_state()
    seat = GuardedSeat(Texting(), "texting", state.current, time_limit=None)
    seat.act(state.view_for(state.current), state.legal_actions())
    (incident,) = seat.incidents
    assert incident.kind == "illegal" and incident.detail.endswith("(text: act returns one of the actions in legal)")


def test_a_bot_peer_tells_the_table_its_bot_failed_once_as_its_chat() -> None:
    """At a table of people a failing bot's seat only seemed to discard cards."""
    agent = BotAgent("random")
    state = Game(GameConfig(3), TrustedDealer(1)).new_state()
    agent.guard = GuardedSeat(Failing(), "/home/me/secret/failing.py:Failing", state.current, time_limit=None)
    assert agent.poll_chat() is None
    agent.guard.act(state.view_for(state.current), state.legal_actions())
    told = agent.poll_chat()
    # the bot's class, not the path of its file (the table need not read it: found by review)
    assert told is not None and told.startswith("my bot (Failing) failed, raised: act(): RuntimeError('boom in act')")
    assert told.endswith("; a safe move was played instead")
    assert agent.poll_chat() is None  # once
    agent.guard.act(state.view_for(state.current), state.legal_actions())
    agent.guard.act(state.view_for(state.current), state.legal_actions())
    # two failures between polls: each is told, one a poll (the second was lost: found by review)
    assert agent.poll_chat() is not None and agent.poll_chat() is not None and agent.poll_chat() is None


def test_an_offline_table_says_when_a_bot_seat_s_bot_fails(tmp_path: Path) -> None:
    bot = tmp_path / "failing.py"
    bot.write_text("class Failing:\n    def start(self, seat, config, seed): pass\n"
                   "    def on_event(self, event): raise ValueError('bad event')\n"
                   "    def act(self, view, legal): return legal[0]\n")
    said: list[str] = []
    table = LocalTable(GameConfig(3, rounds=1), BotAgent("random"), bots=(f"{bot}:Failing",), seed=4, say=said.append)
    assert table.run(timeout=60).outcome == "finished"
    failures = [line for line in said if " failed, " in line]
    assert len(failures) == 2, said  # each bot seat's one failure, once: it plays safe moves after it
    for line in failures:
        assert "raised: on_event(): ValueError('bad event') at failing.py:3; it plays safe moves for the rest of the game" in line


def test_a_resume_of_a_file_that_is_not_there_says_it_starts_the_tournament(tmp_path: Path, capsys) -> None:
    """A mistyped --out name with --resume started over in silence."""
    typo = tmp_path / "typo.jsonl"
    args = ["tournament", "--players", "3", "--games", "2", "--bots", "random", "--out", str(typo), "--resume"]
    assert main(args) == 0
    assert f"{typo} does not exist yet: nothing to resume, the tournament starts" in capsys.readouterr().err
    assert main(args) == 0  # now it is there: resumed, nothing said of a start
    assert "does not exist" not in capsys.readouterr().err


class Writer(Failing):
    def act(self, view: object, legal: list[object]) -> object:
        board = view.board  # type: ignore[attr-defined]
        board.remove((0, 1))  # the lent maze refuses: the incident names this line too
        return legal[0]


def test_an_error_raised_in_the_engine_for_the_bot_names_the_bot_s_line_too() -> None:
    """"ReadOnlyBoard(...) at lent_board.py:43" did not say which line of the bot wrote."""
    import inspect

    state = Game(GameConfig(3), TrustedDealer(1)).new_state()
    seat = GuardedSeat(Writer(), "writer", state.current, time_limit=None)
    seat.act(state.view_for(state.current), state.legal_actions())
    (incident,) = seat.incidents
    line = inspect.getsourcelines(Writer.act)[1] + 2
    assert "ReadOnlyBoard" in incident.detail and incident.detail.endswith(f", from test_bot_author_playtest.py:{line}")
    failing = GuardedSeat(Failing(), "failing", state.current, time_limit=None)
    failing.act(state.view_for(state.current), state.legal_actions())
    assert ", from" not in failing.incidents[0].detail  # raised in the bot's own line: named once


class Versioned(Failing):
    def act(self, view: object, legal: list[object]) -> object:
        from packaging.version import Version  # an installed package's pure-Python code

        return Version("not a version")  # it raises in packaging: the incident names this line too


def test_an_error_raised_in_a_package_the_bot_uses_names_the_bot_s_line_too() -> None:
    """An error raised inside an installed package (numpy, say) named only that package's line."""
    import inspect

    state = Game(GameConfig(3), TrustedDealer(1)).new_state()
    seat = GuardedSeat(Versioned(), "versioned", state.current, time_limit=None)
    seat.act(state.view_for(state.current), state.legal_actions())
    (incident,) = seat.incidents
    line = inspect.getsourcelines(Versioned.act)[1] + 3
    assert "InvalidVersion" in incident.detail and " at version.py:" in incident.detail
    assert incident.detail.endswith(f", from test_bot_author_playtest.py:{line}")


def test_the_report_s_table_says_what_its_columns_count(capsys) -> None:
    """A bot author read "games" 167/167/166 for a 100-game table of 3 bots at 5 seats."""
    assert main(["tournament", "--players", "5", "--games", "6", "--bots", "random,heuristic,random", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if line.startswith("bot "))
    assert header.split()[:4] == ["bot", "seats", "wins", "shared"]
    assert "(seats: a game's seats each bot played;" in out
    seats = {line.split()[0]: int(line.split()[1]) for line in out.splitlines() if line.startswith(("random ", "heuristic "))}
    assert sum(seats.values()) == 6 * 5


def test_a_bot_seat_at_a_table_is_named_by_its_bot_or_class_not_its_whole_spec(tmp_path: Path) -> None:
    """"/home/me/mybot.py:Greedy:mode=raise:every=3-3" named a seat, and its log folder."""
    from saboteur_p2p.botapi import bot_label
    from saboteur_p2p.net.play import bot_peer_names

    assert bot_label("/home/me/mybot.py:Greedy:mode=raise:every=3") == "Greedy"
    assert bot_label("ismcts:playouts=200") == "ismcts" and bot_label("heuristic") == "heuristic"
    assert bot_label("my.module:Player") == "Player"
    assert bot_peer_names(3, ["/x/mybot.py:Greedy:depth=2", "random"]) == [
        ("Greedy-1", "/x/mybot.py:Greedy:depth=2"), ("random-2", "random"), ("Greedy-3", "/x/mybot.py:Greedy:depth=2"),
    ]
    bot = tmp_path / "mybot.py"
    bot.write_text(GREEDY)
    table = LocalTable(GameConfig(3, rounds=1), BotAgent("random"), bots=(f"{bot}:Greedy",), seed=4)
    assert table.names[1:] == ("Greedy-1", "Greedy-2")


THREADED = """
import threading
from saboteur_p2p.botapi import BaseBot

class Threaded(BaseBot):
    def start(self, seat, config, seed):
        super().start(seat, config, seed)
        threading.Thread(target=threading.Event().wait, name="pondering").start()  # never ends

    def act(self, view, legal):
        return legal[0]
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_tournament_whose_bot_leaves_a_thread_running_still_ends(tmp_path: Path, jobs: str) -> None:
    """A bot that started a thread of its own (not a daemon) kept the tournament from ending:
    with --jobs 2 after its last game, before the report; with --jobs 1 after it (found by review)."""
    import subprocess
    import sys

    (tmp_path / "threaded.py").write_text(THREADED)
    done = subprocess.run(
        [sys.executable, "-m", "saboteur_p2p", "tournament", "--bots", "threaded.py:Threaded,random", "--players", "3",
         "--games", "4", "--jobs", jobs],
        cwd=tmp_path, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "4 games played" in done.stdout
    if jobs == "1":  # the threads are this process's: named as it leaves them
        assert "a bot left " in done.stderr and "thread(s) running (pondering" in done.stderr


def test_an_error_raised_for_a_bot_of_a_namespace_package_names_its_line_in_any_of_its_folders(tmp_path, monkeypatch):
    """A namespace package has several folders; only the first was taken for the bot's own
    code, and a line of it in another folder was passed over (review)."""
    first, second = tmp_path / "a" / "nsbots", tmp_path / "b" / "nsbots"
    first.mkdir(parents=True)
    second.mkdir(parents=True)
    (first / "core.py").write_text(
        "from saboteur_bots.random_bot import RandomBot\n"
        "from nsbots import helper\n\n"
        "class Bot(RandomBot):\n"
        "    def act(self, view, legal):\n"
        "        return helper.go()\n"
    )
    (second / "helper.py").write_text(
        "from packaging.version import Version\n\n"
        "def go():\n"
        "    return Version('not a version')\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path / "b"))
    monkeypatch.syspath_prepend(str(tmp_path / "a"))
    from saboteur_p2p.botapi import load_bot

    state = Game(GameConfig(3), TrustedDealer(1)).new_state()
    seat = GuardedSeat(load_bot("nsbots.core:Bot"), "ns", state.current, time_limit=None)
    seat.act(state.view_for(state.current), state.legal_actions())
    (incident,) = seat.incidents
    assert "InvalidVersion" in incident.detail and incident.detail.endswith(", from helper.py:4"), incident.detail
