"""A results file names the version of each bot and of the rules engine that played it
(``results.bot_sources``): ``--resume`` with other code would fold two versions' games
under one name."""
from __future__ import annotations

import json
import types
from pathlib import Path

import pytest
from test_tournament_results import _run_to_file

from saboteur_p2p.tournament import StatsCollector, TournamentSpec
from saboteur_p2p.tournament.results import ResultsFile, ResultsFileError


def bot_file(path: Path, name: str, act: str, imports: str = "") -> str:
    """Write a bot class ``name`` whose ``act`` returns ``act`` to ``path``; its spec."""
    path.write_text(
        f"{imports}class {name}:\n"
        "    def start(self, seat, config, seed): pass\n"
        f"    def act(self, view, legal): return {act}\n"
        "    def on_event(self, event): pass\n"
    )
    return f"{path}:{name}"


def played_then_resumed(path: Path, spec: TournamentSpec) -> None:
    """Two games into ``path``, then a resume to three with the same code (which it takes)."""
    _run_to_file(path, spec, stop_after=2)
    _run_to_file(path, spec, resume=True, stop_after=3)


def test_resume_refuses_a_file_played_by_another_version_of_a_bot(tmp_path):
    """The header keeps a digest of each bot's file: resuming after editing a bot folded the
    two versions' games under one name (found by review)."""
    bot = tmp_path / "firstbot.py"
    spec = TournamentSpec(4, 4, (bot_file(bot, "First", "legal[0]"), "random"), seed=6)
    path = tmp_path / "games.jsonl"
    played_then_resumed(path, spec)
    bot.write_text(bot.read_text().replace("legal[0]", "legal[-1]"))
    changed = (rf"another version of {bot}:First \(the file that defines it, "
               r"or a module or package it imports, changed\)")
    with pytest.raises(ResultsFileError, match=changed):
        ResultsFile.open(path, spec, StatsCollector(spec), True)
    header = json.loads(path.read_text().splitlines()[0])
    assert set(header["sources"]) == {f"{bot}:First", "random", "(the rules engine)"}


def test_resume_refuses_a_file_played_with_another_version_of_a_module_the_bot_imports(tmp_path):
    """Editing helper.py beside hb.py, which imports it, was resumed and folded two versions
    of the bot under one name (found by review)."""
    (tmp_path / "tournament_helper_mod.py").write_text("def choose(legal):\n    return legal[0]\n")
    bot = tmp_path / "hb.py"
    helped = bot_file(bot, "Helped", "choose(legal)", imports="from tournament_helper_mod import choose\n\n\n")
    spec = TournamentSpec(4, 4, (helped, "random"), seed=6)
    path = tmp_path / "games.jsonl"
    played_then_resumed(path, spec)
    (tmp_path / "unrelated.py").write_text("x = 1\n")  # a module beside it that it does not import
    _run_to_file(path, spec, resume=True, stop_after=3)
    (tmp_path / "tournament_helper_mod.py").write_text("def choose(legal):\n    return legal[-1]\n")
    with pytest.raises(ResultsFileError, match=rf"another version of {bot}:Helped"):
        ResultsFile.open(path, spec, StatsCollector(spec), True)


def test_the_digest_of_a_bot_is_not_of_other_files_in_its_folder(tmp_path):
    """The first version took every module loaded from the bot's folder or below: editing one
    bot refused the resume of another beside it, and a bot at a checkout's root was refused
    after any change to the engine (found by review)."""
    from saboteur_p2p.tournament.results import bot_sources

    for name in ("a", "b"):
        (tmp_path / f"{name}.py").write_text(
            "import json\nfrom saboteur_p2p.botapi import BaseBot\n\n\n"
            "class Bot(BaseBot):\n    def act(self, view, legal):\n        return legal[0]\n"
        )
    (tmp_path / "saboteur_p2p").mkdir()  # as if at a checkout's root: a package beside it
    (tmp_path / "saboteur_p2p" / "botapi.py").write_text("")
    spec = TournamentSpec(3, 2, (f"{tmp_path}/a.py:Bot", f"{tmp_path}/b.py:Bot"))
    before = bot_sources(spec)
    (tmp_path / "b.py").write_text((tmp_path / "b.py").read_text() + "# edited\n")
    (tmp_path / "saboteur_p2p" / "botapi.py").write_text("# edited\n")
    after = bot_sources(spec)
    assert before[f"{tmp_path}/a.py:Bot"] == after[f"{tmp_path}/a.py:Bot"]
    assert before[f"{tmp_path}/b.py:Bot"] != after[f"{tmp_path}/b.py:Bot"]


def test_the_digest_of_a_bot_covers_a_helper_package_beside_it(tmp_path):
    """A bot importing a package (a folder) beside it kept its digest when a module of that
    package changed, so --resume folded two versions under one name (noticed in review)."""
    from saboteur_p2p.tournament.results import bot_sources

    package = tmp_path / "digest_helpers"
    (package / "inner").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "inner" / "__init__.py").write_text("")
    (package / "inner" / "policy.py").write_text("def choose(legal):\n    return legal[0]\n")
    (tmp_path / "bot.py").write_text(
        "from digest_helpers.inner.policy import choose\nfrom saboteur_p2p.botapi import BaseBot\n\n\n"
        "class Bot(BaseBot):\n    def act(self, view, legal):\n        return choose(legal)\n"
    )
    (tmp_path / "saboteur_p2p").mkdir()  # the engine beside it (a checkout's root) is not the bot's
    (tmp_path / "saboteur_p2p" / "__init__.py").write_text("")
    spec = TournamentSpec(3, 2, (f"{tmp_path}/bot.py:Bot", "random"))
    before = bot_sources(spec)[f"{tmp_path}/bot.py:Bot"]
    (tmp_path / "saboteur_p2p" / "__init__.py").write_text("# edited\n")
    assert bot_sources(spec)[f"{tmp_path}/bot.py:Bot"] == before
    (package / "inner" / "policy.py").write_text("def choose(legal):\n    return legal[-1]\n")
    assert bot_sources(spec)[f"{tmp_path}/bot.py:Bot"] != before


def test_resume_refuses_a_file_once_the_rules_or_the_bundled_bots_a_file_bot_imports_change(tmp_path, monkeypatch):
    """A file bot built on the bundled bots (``saboteur_bots.heuristic``) kept its digest when
    they changed, and every bot kept its own when the rules engine did, so ``--resume`` folded
    two versions' games in one file (found by a bot author).  A file bot that does not import
    the bundled bots keeps its digest when they change."""
    from saboteur_p2p.tournament import results
    from saboteur_p2p.tournament.results import ENGINE_SOURCE, bot_sources

    built = tmp_path / "built.py"
    built.write_text("from saboteur_bots.heuristic import HeuristicBot\n\n\nclass Built(HeuristicBot):\n    pass\n")
    alone = tmp_path / "alone.py"
    alone.write_text("class Alone:\n    def start(self, seat, config, seed): pass\n"
                     "    def act(self, view, legal): return legal[0]\n    def on_event(self, event): pass\n")
    spec = TournamentSpec(3, 4, (f"{built}:Built", f"{alone}:Alone"), seed=6)
    path = tmp_path / "games.jsonl"
    _run_to_file(path, spec, stop_after=2)
    before = bot_sources(spec)
    # another version of the bundled bots (a copy of the package with one module edited)
    bundled = Path(results.bot_source("random")).parent
    copy = tmp_path / "bundled"
    copy.mkdir()
    for module in bundled.glob("*.py"):
        (copy / module.name).write_text(module.read_text())
    (copy / "heuristic_v2.py").write_text((copy / "heuristic_v2.py").read_text() + "\n# edited\n")
    monkeypatch.setattr(results, "bot_source", lambda bot: copy / "random_bot.py" if bot == "random" else
                        (built if bot.startswith(str(built)) else alone))
    after = bot_sources(spec)
    assert after[f"{built}:Built"] != before[f"{built}:Built"]
    assert after[f"{alone}:Alone"] == before[f"{alone}:Alone"]
    with pytest.raises(ResultsFileError, match=rf"another version of {built}:Built \("):
        ResultsFile.open(path, spec, StatsCollector(spec), True)
    monkeypatch.undo()
    # another version of the rules engine (a copy with one module edited)
    rules = tmp_path / "rules"
    rules.mkdir()
    for module in Path(results.rules.__file__).parent.glob("*.py"):
        (rules / module.name).write_text(module.read_text())
    (rules / "board.py").write_text((rules / "board.py").read_text() + "\n# edited\n")
    monkeypatch.setattr(results, "rules", types.SimpleNamespace(__file__=str(rules / "__init__.py")))
    assert bot_sources(spec)[ENGINE_SOURCE] != before[ENGINE_SOURCE]
    with pytest.raises(ResultsFileError, match=r"another version of the rules engine \(saboteur_p2p/rules\) \("):
        ResultsFile.open(path, spec, StatsCollector(spec), True)
