"""Bot parameters in a spec: ``name:key=value[:key=value]`` (botapi.bot_factory)."""
from __future__ import annotations

import ast

import pytest

from saboteur_p2p.botapi import BotLoadError, bot_factory, load_bot, split_spec

SOURCE = '''
from saboteur_p2p.botapi import BaseBot

class Tuned(BaseBot):
    def __init__(self, depth=1, rate=0.5, greedy=False, label="x"):
        self.depth, self.rate, self.greedy, self.label = depth, rate, greedy, label

    def act(self, view, legal):
        return legal[0]
'''


@pytest.mark.parametrize(("spec", "target", "params"), [
    ("heuristic", "heuristic", {}),
    ("ismcts:playouts=200", "ismcts", {"playouts": 200}),
    ("ismcts:playouts=200:time=1.5:verbose=TRUE:base=heuristic-v1", "ismcts",
     {"playouts": 200, "time": 1.5, "verbose": True, "base": "heuristic-v1"}),
    ("saboteur_bots.random_bot:RandomBot", "saboteur_bots.random_bot:RandomBot", {}),
    ("saboteur_bots.random_bot:RandomBot:x=1", "saboteur_bots.random_bot:RandomBot", {"x": 1}),
    ("bots/x.py:Bot:depth=-3", "bots/x.py:Bot", {"depth": -3}),
    (r"C:\bots\x.py:Bot", r"C:\bots\x.py:Bot", {}),
])
def test_parameters_are_the_trailing_key_value_items(spec, target, params):
    assert split_spec(spec) == (target, params)


def test_parameters_reach_the_bot_class(tmp_path):
    path = tmp_path / "tuned.py"
    path.write_text(SOURCE)
    bot = load_bot(f"{path}:Tuned:depth=4:rate=0.25:greedy=true:label=deep")
    assert (bot.depth, bot.rate, bot.greedy, bot.label) == (4, 0.25, True, "deep")
    plain = load_bot(f"{path}:Tuned")
    assert (plain.depth, plain.rate, plain.greedy, plain.label) == (1, 0.5, False, "x")
    assert bot_factory(f"{path}:Tuned:depth=2")() is not bot_factory(f"{path}:Tuned:depth=2")()  # fresh bots


def _bot_taking(tmp_path, signature: str, header: str = "") -> str:
    """A bot file whose class ``Bot`` takes ``signature`` (after self) and keeps every
    parameter as an attribute; the spec of that class."""
    names = [arg.arg for arg in ast.parse(f"def f({signature}): pass").body[0].args.args]  # type: ignore[attr-defined]
    path = tmp_path / "bot.py"
    path.write_text(f"""{header}import typing
from typing import Optional, Union
from saboteur_p2p.botapi import BaseBot

class Bot(BaseBot):
    def __init__(self, {signature}):
        {", ".join(f"self.{n}" for n in names)} = {", ".join(names)}

    def act(self, view, legal):
        return legal[0]
""")
    return f"{path}:Bot"


def test_a_parameter_that_takes_text_gets_the_text_as_typed(tmp_path):
    """A bot author's `tag: str` parameter was given 2024 (an int) for "tag=2024", True for
    "label=true", and the bot raised in every game (`'int' object has no attribute
    'startswith'`): a parameter whose default or annotation is text gets the text typed."""
    path = tmp_path / "tuned.py"
    path.write_text(SOURCE)
    bot = load_bot(f"{path}:Tuned:label=2024:depth=3")
    assert (bot.label, bot.depth) == ("2024", 3)
    assert load_bot(f"{path}:Tuned:label=true").label == "true"
    assert load_bot(f"{path}:Tuned:label=007").label == "007"  # not 7
    tagged = load_bot(_bot_taking(tmp_path, "tag: str, depth: int = 1") + ":tag=1e3:depth=2")
    assert (tagged.tag, tagged.depth) == ("1e3", 2)  # annotated str, no default


@pytest.mark.parametrize("future", ["", "from __future__ import annotations\n"])
@pytest.mark.parametrize("annotation", ["str | None", "Optional[str]", "typing.Optional[str]", "Union[str, int]"])
def test_an_optional_text_parameter_gets_the_text_as_typed(tmp_path, future, annotation):
    """`tag: str | None = None` still got 2024 as an int (found by review)."""
    spec = _bot_taking(tmp_path, f"tag: {annotation} = None, count: int | None = None", future)
    bot = load_bot(f"{spec}:tag=2024:count=3")
    assert (bot.tag, bot.count) == ("2024", 3)
    assert load_bot(f"{spec}:tag=true").tag == "true"


@pytest.mark.parametrize("annotation", ["list[str]", "dict[str, int]", "Optional[list[str]]"])
def test_a_parameter_of_a_kind_that_holds_text_is_not_given_text(tmp_path, annotation):
    """`list[str]` written as a string matched the word str and took the text (found by review)."""
    spec = _bot_taking(tmp_path, f"tags: {annotation} = None", "from __future__ import annotations\n")
    assert load_bot(f"{spec}:tags=3").tags == 3  # read as ever (the bot's own business)


def test_a_bundled_bot_takes_its_parameters():
    bot = load_bot("ismcts:playouts=7")
    assert bot.playouts == 7


@pytest.mark.parametrize(("spec", "message"), [
    ("ismcts:nonsense=3", "has no parameter 'nonsense'"),
    ("random:depth=3", "has no parameter 'depth'"),
    ("ismcts:9x=3", "bad parameter"),
    ("ismcts:a=1:a=2", "given twice"),
    ("nosuchbot:a=1", "unknown bot"),
    (":x", "names no module or file"),
    ("heuristic:", "names no class"),
    ("ismcts::playouts=3", "names no class"),
    (".x:y", "no module '.x'"),
    ("ismcts:playouts", "'ismcts' is a bot's name, and after it come key=value parameters only: 'playouts' has no '='"),
    ("ismcts:playouts=3:cutoff", "'cutoff' has no '='"),
])
def test_bad_parameters_say_what_failed(spec, message):
    with pytest.raises(BotLoadError, match=message):
        bot_factory(spec)


def test_a_comma_in_a_bot_list_reads_alike_in_every_command(tmp_path):
    """``x:mode=a,k=2`` gave ``k=2`` as a parameter in ``tournament --bots``, the unknown bot
    'k=2' in ``game --bots``, and ``mode='a,k=2'`` in ``--candidate`` (found by a bot author)."""
    from saboteur_p2p.cli import build_parser

    parser = build_parser()
    spec = "ismcts:playouts=7,cutoff=3,random"
    for command in (["tournament", "--bots", spec], ["game", "--bots", spec], ["play", "--offline", "--bots", spec]):
        assert parser.parse_args(command).bots == ("ismcts:playouts=7:cutoff=3", "random"), command
    assert parser.parse_args(["tournament", "--candidate", "ismcts:playouts=7,cutoff=3"]).candidate == \
        "ismcts:playouts=7:cutoff=3"
    with pytest.raises(SystemExit):
        parser.parse_args(["tournament", "--candidate", "ismcts,random"])  # one bot, not two


def test_a_bot_that_draws_from_the_random_module_plays_the_same_game_for_the_same_seed(tmp_path):
    """A bot using ``random.choice`` unseeded played another game at every run, and a
    tournament's results depended on --jobs (found by a bot author): each game seeds it."""
    import random

    from saboteur_p2p.match import play_game
    from saboteur_p2p.rules import GameConfig

    path = tmp_path / "loose.py"
    path.write_text("import random\nfrom saboteur_p2p.botapi import BaseBot\n"
                    "class Loose(BaseBot):\n    def act(self, view, legal):\n        return random.choice(legal)\n")
    games = []
    for _ in range(2):
        random.seed()  # whatever the process drew before
        record = play_game(GameConfig(3), [f"{path}:Loose"] * 3, 11)
        games.append((record.actions, record.scores))
    assert games[0] == games[1]


def test_a_bot_class_without_an_act_of_its_own_is_refused_as_it_loads(tmp_path):
    """It loaded, then raised NotImplementedError at every move (found by a bot author)."""
    path = tmp_path / "lazy.py"
    path.write_text("from saboteur_p2p.botapi import BaseBot\nclass Lazy(BaseBot):\n    pass\n")
    with pytest.raises(BotLoadError, match="has no act\\(\\) of its own"):
        load_bot(f"{path}:Lazy")


def test_two_bot_files_whose_own_modules_share_a_name_are_refused_not_mixed(tmp_path):
    """``v1/bot.py`` and ``v2/bot.py`` each importing their own ``common.py``: the second bot
    silently ran with the first one's module (found by a bot author comparing two versions)."""
    for version in ("v1", "v2"):
        folder = tmp_path / version
        folder.mkdir()
        (folder / "common.py").write_text(f"VERSION = {version!r}\n")
        (folder / "bot.py").write_text(
            "import common\nfrom saboteur_p2p.botapi import BaseBot\n"
            "class B(BaseBot):\n    version = common.VERSION\n    def act(self, view, legal):\n        return legal[0]\n"
        )
    first = load_bot(f"{tmp_path / 'v1' / 'bot.py'}:B")
    assert first.version == "v1"
    with pytest.raises(BotLoadError, match=r"imports its module 'common' from .*v2.* rename one"):
        load_bot(f"{tmp_path / 'v2' / 'bot.py'}:B")
