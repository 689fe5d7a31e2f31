"""What a second bot author's play-test found (2026-12-06): a report that kept quiet about games
a loaded machine changed, a bot that cannot be made blamed on the package's line, a typed
value shown as Python wrote it, an integer for a float parameter, --jobs ignored beside
--cluster without a word, and an empty results file read as JSON."""
from __future__ import annotations

from pathlib import Path

import pytest

from saboteur_p2p.botapi import BotLoadError, load_bot
from saboteur_p2p.cli import main
from saboteur_p2p.tournament import StatsCollector, TournamentSpec, format_report, run_tournament

SLOW = (
    "import time\n"
    "class Slow:\n"
    "    def start(self, seat, config, seed): pass\n"
    "    def on_event(self, event): pass\n"
    "    def act(self, view, legal):\n"
    "        time.sleep(0.02)\n"
    "        return legal[0]\n"
)

MADE = (
    "class Needs:\n"
    "    def __init__(self, depth):\n"
    "        self.depth = depth\n"
    "    def start(self, seat, config, seed): pass\n"
    "    def on_event(self, event): pass\n"
    "    def act(self, view, legal): return legal[0]\n"
    "class Rated(Needs):\n"
    "    def __init__(self, rate=0.5):\n"
    "        self.rate = rate\n"
    "def a_function(view, legal):\n"
    "    return legal[0]\n"
)


def test_a_report_with_moves_past_the_time_limit_says_another_run_may_differ(tmp_path: Path) -> None:
    bot = tmp_path / "slow.py"
    bot.write_text(SLOW)
    spec = TournamentSpec(3, 1, (f"{bot}:Slow", "random", "random"), time_limit=0.001)
    report = run_tournament(spec, collector=StatsCollector(spec))
    text = format_report(report)
    assert "timeout" in text and "another run of these games may differ" in text
    quiet = TournamentSpec(3, 1, ("random",) * 3)
    assert "may differ" not in format_report(run_tournament(quiet, collector=StatsCollector(quiet)))


@pytest.mark.parametrize(("target", "says"), [
    ("Needs", "missing 1 required positional argument: 'depth'"),
    ("a_function", "missing 2 required positional arguments"),
])
def test_a_bot_that_cannot_be_called_as_given_is_told_how_a_bot_is_made(tmp_path: Path, target: str, says: str) -> None:
    """The message pointed at the package's own line (botapi.py), not at what to fix."""
    (tmp_path / "made.py").write_text(MADE)
    with pytest.raises(BotLoadError) as caught:
        load_bot(f"{tmp_path / 'made.py'}:{target}")
    message = str(caught.value)
    assert says in message and "calling what the spec names with the spec's key=value parameters" in message
    assert "botapi.py" not in message


def test_a_bot_that_fails_in_its_own_constructor_is_still_named_at_its_line(tmp_path: Path) -> None:
    (tmp_path / "boom.py").write_text(MADE.replace("self.depth = depth", "raise TypeError('no')"))
    with pytest.raises(BotLoadError, match=r"TypeError\('no'\) at boom.py:3"):
        load_bot(f"{tmp_path / 'boom.py'}:Needs:depth=1")


def test_a_whole_number_for_a_float_parameter_arrives_as_a_float_and_a_wrong_value_is_shown_as_typed(tmp_path: Path) -> None:
    (tmp_path / "made.py").write_text(MADE)
    bot = load_bot(f"{tmp_path / 'made.py'}:Rated:rate=3")
    assert type(bot.rate) is float and bot.rate == 3.0  # type: ignore[attr-defined]
    with pytest.raises(BotLoadError, match="takes a number, not 'yes'"):
        load_bot(f"{tmp_path / 'made.py'}:Rated:rate=yes")


def test_jobs_beside_a_cluster_is_said_to_be_ignored(capsys, monkeypatch) -> None:
    import saboteur_p2p.tournament as tournament

    def no_cluster(*args: object, **kwargs: object) -> None:
        raise ValueError("no cluster in this test")  # (a scheduler that is not there takes 30 s to say so)

    monkeypatch.setattr(tournament, "run_tournament", no_cluster)
    status = main(["tournament", "--players", "3", "--games", "1", "--bots", "random", "--jobs", "2",
                   "--cluster", "tcp://127.0.0.1:1"])
    err = capsys.readouterr().err
    assert "--jobs 2 is ignored: the cluster's workers play the games" in err
    assert status != 0 and "no cluster in this test" in err
    main(["tournament", "--players", "3", "--games", "1", "--bots", "random", "--cluster", "tcp://127.0.0.1:1"])
    assert "ignored" not in capsys.readouterr().err


@pytest.mark.parametrize(("content", "says"), [("", "it is empty"), ("\n", "its first line is empty")])
def test_an_empty_results_file_is_said_to_be_empty(tmp_path: Path, capsys, content: str, says: str) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text(content)
    assert main(["report", str(empty)]) != 0
    assert f"not a tournament results file ({says})" in capsys.readouterr().err


def test_a_bot_that_sets_a_field_of_a_frozen_action_is_told_its_own_line(tmp_path: Path) -> None:
    """The incident named only <string>:4, the line dataclasses wrote."""
    from saboteur_p2p.match import play_game
    from saboteur_p2p.rules import GameConfig

    (tmp_path / "setter.py").write_text(
        "class SetField:\n"
        "    def start(self, seat, config, seed): pass\n"
        "    def on_event(self, event): pass\n"
        "    def act(self, view, legal):\n"
        "        legal[0].card = 3\n"
        "        return legal[0]\n"
    )
    record = play_game(GameConfig(3), [f"{tmp_path / 'setter.py'}:SetField", "random", "random"], 0)
    assert record.incidents and "FrozenInstanceError" in record.incidents[0].detail
    assert record.incidents[0].detail.endswith("from setter.py:5")


ANNOTATED = (
    "class Annotated:\n"
    "    def __init__(self, rate: float = 1, scale: float | None = None, weight: 'float' = 2):\n"
    "        self.rate, self.scale, self.weight = rate, scale, weight\n"
    "    def start(self, seat, config, seed): pass\n"
    "    def on_event(self, event): pass\n"
    "    def act(self, view, legal): return legal[0]\n"
)


def test_a_parameter_annotated_float_takes_any_number_as_a_float(tmp_path: Path) -> None:
    """A review: with a whole-number default, rate=0.5 was refused; with float | None, 3 came as an int."""
    (tmp_path / "ann.py").write_text(ANNOTATED)
    bot = load_bot(f"{tmp_path / 'ann.py'}:Annotated:rate=0.5:scale=3:weight=4")
    assert (bot.rate, bot.scale, bot.weight) == (0.5, 3.0, 4.0)  # type: ignore[attr-defined]
    assert all(type(v) is float for v in (bot.rate, bot.scale, bot.weight))  # type: ignore[attr-defined]
    with pytest.raises(BotLoadError, match="takes a number, not 'true'"):
        load_bot(f"{tmp_path / 'ann.py'}:Annotated:rate=true")


def test_an_error_raised_in_python_s_library_for_the_bot_names_the_bot_s_line_too(tmp_path: Path) -> None:
    """random.choice([]) in act() was reported 'at random.py:373' alone (a review)."""
    from saboteur_p2p.match import play_game
    from saboteur_p2p.rules import GameConfig

    (tmp_path / "lib.py").write_text(
        "import random\n"
        "class Lib:\n"
        "    def start(self, seat, config, seed): pass\n"
        "    def on_event(self, event): pass\n"
        "    def act(self, view, legal):\n"
        "        return random.choice([])\n"
    )
    record = play_game(GameConfig(3), [f"{tmp_path / 'lib.py'}:Lib", "random", "random"], 0)
    detail = record.incidents[0].detail
    assert "IndexError" in detail and "at random.py:" in detail and detail.endswith("from lib.py:6"), detail


def test_an_abstract_bot_class_is_not_told_about_parameters(tmp_path: Path) -> None:
    (tmp_path / "abstract.py").write_text(
        "import abc\n"
        "class Abstract(abc.ABC):\n"
        "    @abc.abstractmethod\n"
        "    def extra(self): ...\n"
        "    def start(self, seat, config, seed): pass\n"
        "    def on_event(self, event): pass\n"
        "    def act(self, view, legal): return legal[0]\n"
    )
    with pytest.raises(BotLoadError) as caught:
        load_bot(f"{tmp_path / 'abstract.py'}:Abstract")
    assert "abstract" in str(caught.value) and "key=value parameters" not in str(caught.value)


UNIONS = (
    "from __future__ import annotations\n"
    "import typing\n"
    "from typing import Optional, Union\n"
    "class Unions:\n"
    "    def __init__(self, a: int | float = 1, b: Union[float, None] = None, c: typing.Union[float, None] = 1,\n"
    "                 d: Optional[float] = None, e: float = False, f: int | str = 1):\n"
    "        self.values = (a, b, c, d, e, f)\n"
    "    def start(self, seat, config, seed): pass\n"
    "    def on_event(self, event): pass\n"
    "    def act(self, view, legal): return legal[0]\n"
)


def test_float_annotations_as_unions_and_as_text_take_any_number_as_a_float(tmp_path: Path) -> None:
    """A second review: int | float refused 0.5; Union[float, None] as text took 3 as an int;
    a float with a False default said it takes a number and refused one."""
    (tmp_path / "unions.py").write_text(UNIONS)
    bot = load_bot(f"{tmp_path / 'unions.py'}:Unions:a=0.5:b=3:c=0.5:d=2:e=0.5:f=7")
    assert bot.values == (0.5, 3.0, 0.5, 2.0, 0.5, "7")  # type: ignore[attr-defined]
    assert [type(v) for v in bot.values[:5]] == [float] * 5  # type: ignore[attr-defined]
