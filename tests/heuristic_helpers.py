"""Helpers for the heuristic bot's tests, in either edition: a bot that checks its own answers,
and asking a fresh bot what it would play."""
from __future__ import annotations

from collections.abc import Sequence

from saboteur_bots.heuristic import HeuristicBot

from saboteur_p2p.rules import AnyAction, GameConfig, PlayerView, State


class CheckedBot(HeuristicBot):
    """A heuristic bot that records any answer not among the legal actions."""

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        self.illegal: list[str] = []
        self.phases: set[str] = set()

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        action = super().act(view, legal)
        self.phases.add(view.phase)
        if not any(action is a for a in legal):
            self.illegal.append(f"{action} not in {[str(a) for a in legal]}")
        return action


def bot_for(state: State, seat: int = 0, seed: int = 0) -> HeuristicBot:
    """A heuristic bot started for ``seat`` at this state's table."""
    bot = HeuristicBot()
    bot.start(seat, state.config, seed)
    return bot


def choose(state: State, bot: HeuristicBot | None = None) -> AnyAction:
    """What ``bot`` (by default a fresh one) plays for the current player; it must be legal."""
    seat = state.current
    bot = bot if bot is not None else bot_for(state, seat)
    legal = state.legal_actions()
    action = bot.act(state.view_for(seat), legal)
    assert action in legal
    return action
