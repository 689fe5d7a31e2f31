"""A bot that picks uniformly among the legal actions, from its own seeded generator."""
from __future__ import annotations

import random
from collections.abc import Sequence

from saboteur_p2p.botapi import BaseBot
from saboteur_p2p.rules import AnyAction, GameConfig, PlayerView


class RandomBot(BaseBot):
    name = "random"
    reads_view = False  # it never looks: in-process games need not build it a view

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        self.rng = random.Random(seed)

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        return legal[self.rng.randrange(len(legal))]
