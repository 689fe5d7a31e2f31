"""The worked example of docs/bots.md runs: a flat Monte Carlo bot built on determinize."""
from __future__ import annotations

import re
from pathlib import Path

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig

DOC = Path(__file__).resolve().parent.parent / "docs" / "bots.md"


def test_the_worked_example_plays_a_legal_game():
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)
    source = next(block for block in blocks if "class FlatMonteCarlo" in block)
    namespace: dict[str, object] = {}
    exec(compile(source, str(DOC), "exec"), namespace)
    for edition in ("base", "saboteur2"):
        bot = namespace["FlatMonteCarlo"](worlds=1)
        config = GameConfig(4, edition, rounds=1)
        record = play_game(config, [bot, "heuristic", "heuristic", "random"], seed=3, time_limit=None)
        assert not record.incidents, edition
