"""The bundled heuristic bot (``heuristic``): one name that plays every edition.

``HeuristicBot`` hands each game to the heuristic player of the config's edition:
``heuristic_base.BaseGameHeuristic`` for the base game and ``heuristic2.Saboteur2Heuristic``
for Saboteur 2.  A new edition's player is one entry in ``PLAYERS``.
"""
from __future__ import annotations

import random
from collections.abc import Sequence

from saboteur_p2p.botapi import BaseBot
from saboteur_p2p.rules import AnyAction, Event, GameConfig, PlayerView, determinize

from .heuristic2 import Saboteur2Heuristic
from .heuristic_base import BaseGameHeuristic

#: the heuristic player of each edition, by ``GameConfig.edition``
PLAYERS: dict[str, type[BaseGameHeuristic]] = {
    "base": BaseGameHeuristic,
    "saboteur2": Saboteur2Heuristic,
}


class HeuristicBot(BaseBot):
    """Plays by role in every edition it has a player for (see ``PLAYERS``)."""

    name = "heuristic"

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        player = PLAYERS.get(config.edition)
        if player is None:
            raise ValueError(f"the heuristic bot has no player for the {config.edition!r} edition")
        self.player = player()
        self.player.start(seat, config, seed)

    @property
    def suspicion(self) -> list[float]:
        """How suspect each player looks to this bot (see reading.py's scale)."""
        return self.player.suspicion

    def on_event(self, event: Event) -> None:
        self.player.on_event(event)

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        return self.player.act(view, legal)

    def score_actions(self, view: PlayerView, legal: Sequence[AnyAction] | None = None) -> list[tuple[AnyAction, float]]:
        """Every legal action of this bot's seat with its score, higher is better (see
        ``BaseGameHeuristic.score_actions``).  Without ``legal``, the legal actions are
        those of a state sampled from the view (the seat's own moves are the same in any)."""
        if legal is None:
            if not view.my_turn:
                return []
            legal = determinize(view, random.Random(0)).legal_actions()
        return self.player.score_actions(view, legal)
