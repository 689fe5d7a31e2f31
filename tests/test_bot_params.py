"""Bot parameters in a spec: ``name:key=value[:key=value]`` (botapi.bot_factory)."""
from __future__ import annotations

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
