"""The bundled heuristic bot (``heuristic``): one name that plays every edition.

``HeuristicBot`` hands each game to the heuristic player of the config's edition:
``heuristic_v2.BaseGameHeuristicV2`` for the base game and
``heuristic_v2.Saboteur2HeuristicV2`` for Saboteur 2.  A new edition's player is one entry in
``PLAYERS``.  ``HeuristicV1Bot`` (``heuristic-v1``) plays the first version
(``heuristic_base.BaseGameHeuristic``, ``heuristic2.Saboteur2Heuristic``), for comparison.
"""
from __future__ import annotations

from collections.abc import Sequence

from saboteur_p2p.botapi import BaseBot
from saboteur_p2p.rules import AnyAction, Event, GameConfig, PlayerView, legal_actions_of

from .heuristic2 import Saboteur2Heuristic
from .heuristic_base import BaseGameHeuristic
from .heuristic_v2 import BaseGameHeuristicV2, Saboteur2HeuristicV2

#: the heuristic player of each edition, by ``GameConfig.edition``
PLAYERS: dict[str, type[BaseGameHeuristic]] = {
    "base": BaseGameHeuristicV2,
    "saboteur2": Saboteur2HeuristicV2,
}
#: the first version's players, kept for comparison (``heuristic-v1``)
PLAYERS_V1: dict[str, type[BaseGameHeuristic]] = {
    "base": BaseGameHeuristic,
    "saboteur2": Saboteur2Heuristic,
}


class HeuristicBot(BaseBot):
    """Plays by role in every edition it has a player for (see ``PLAYERS``)."""

    name = "heuristic"
    players = PLAYERS

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        player = self.players.get(config.edition)
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
        ``BaseGameHeuristic.score_actions``).  Without ``legal``, the seat's legal actions
        worked out from the view (``legal_actions_of``; none when it is not its turn)."""
        if legal is None:
            legal = legal_actions_of(view)
            if not legal:
                return []
        return self.player.score_actions(view, legal)


class HeuristicV1Bot(HeuristicBot):
    """The first version of the heuristic bot, exactly as it played before issue 13's fixes."""

    name = "heuristic-v1"
    players = PLAYERS_V1
