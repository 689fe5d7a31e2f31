"""The heuristic's ``score_actions`` and ``legal_actions_of``: a bot author's view of the
scores, in every phase of both editions, without disturbing the bot's own play."""
from __future__ import annotations

import random
from collections.abc import Sequence

import pytest
from saboteur_bots.heuristic import HeuristicBot, HeuristicV1Bot

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import (
    AnyAction,
    BreakTool,
    Game,
    GameConfig,
    GoldCard,
    PlayerView,
    Role,
    TakeGold,
    legal_actions_of,
)

TABLES = [
    GameConfig(5, "base"),
    GameConfig(4, "base", frozenset({"stone-nuggets", "selfish-dwarf"})),
    GameConfig(6, "base", frozenset({"tournament-roles", "broken-tools-forfeit"})),
    GameConfig(7, "base", frozenset({"gold-per-player"})),
    GameConfig(5, "saboteur2"),
    GameConfig(9, "saboteur2"),
]


class ProbingBot(HeuristicBot):
    """A heuristic bot that, before each move, asks itself for its scores twice (with and
    without the legal actions) and checks them against the move it then plays."""

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        self.problems: list[str] = []
        self.phases: set[str] = set()

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        self.phases.add(view.phase)
        if legal_actions_of(view) != list(legal):
            self.problems.append(f"{view.phase}: legal_actions_of differs from the engine's list")
        given = self.score_actions(view, legal)
        if self.score_actions(view) != given:
            self.problems.append(f"{view.phase}: the scores without legal differ")
        action = super().act(view, legal)
        top = max(score for _, score in given)
        if dict(given)[action] != top:
            self.problems.append(f"{view.phase}: act played {action}, not a best-scored action")
        return action


@pytest.mark.parametrize("config", TABLES, ids=lambda c: "-".join([c.edition, str(c.players), *sorted(c.variants)]))
def test_scores_cover_every_phase_agree_with_act_and_leave_play_unchanged(config: GameConfig) -> None:
    phases: set[str] = set()
    for seed in range(4):
        probes = [ProbingBot() for _ in range(config.players)]
        probed = play_game(config, probes, seed, time_limit=None)
        plain = play_game(config, [HeuristicBot() for _ in range(config.players)], seed, time_limit=None)
        assert probed.actions == plain.actions  # scoring never draws from the bot's generator
        assert [p for bot in probes for p in bot.problems] == []
        phases |= {p for bot in probes for p in bot.phases}
    gold = "take-gold" if "tournament-roles" in config.variants else "keep-gold"
    expected = {"play", "steal"} if config.edition == "saboteur2" else {"play", gold}
    assert expected <= phases


def test_legal_actions_of_is_empty_off_turn() -> None:
    config = GameConfig(5, "base")
    state = Game(config, seed=3).new_state()
    for seat in range(5):
        view = state.view_for(seat)
        assert (legal_actions_of(view) == state.legal_actions()) if seat == state.current else legal_actions_of(view) == []
    assert HeuristicBot().score_actions(state.view_for((state.current + 1) % 5)) == []


def test_an_inspected_role_counts_in_the_scores_before_any_act() -> None:
    """Saboteur 2: what the seat learnt by inspecting a role card changes how it scores
    breaking that player's tools, whether or not ``act`` has run on this view."""
    config = GameConfig(6, "saboteur2")
    rng = random.Random(1)
    changed = 0
    for seed in range(40):
        state = Game(config, seed=seed).new_state()
        for _ in range(rng.randrange(1, 40)):
            if state.is_terminal() or state.phase.value != "play":
                break
            state.push(rng.choice(state.legal_actions()))
        if state.is_terminal() or state.phase.value != "play":
            continue
        seat = state.current
        view = state.view_for(seat)
        legal = state.legal_actions()
        targets = {a.target for a in legal if isinstance(a, BreakTool) and a.target != seat}
        if not targets or view.role is None:
            continue
        target = min(targets)
        hostile = Role.SABOTEUR if view.role is not Role.SABOTEUR else Role.BLUE_DIGGER
        inspected = view._replace(known_roles={target: hostile})
        fresh = HeuristicBot()
        fresh.start(seat, config, 0)
        acted = HeuristicBot()
        acted.start(seat, config, 0)
        acted.act(inspected, legal)
        assert fresh.score_actions(inspected, legal) == acted.score_actions(inspected, legal)
        plain = HeuristicBot()
        plain.start(seat, config, 0)
        changed += plain.score_actions(view, legal) != fresh.score_actions(inspected, legal)
    assert changed >= 3


def test_a_take_from_a_pile_with_nothing_to_give_is_scored_and_played() -> None:
    """Owed two nuggets from a pile of threes and stones, the only legal take is nothing."""
    config = GameConfig(8, "base", frozenset({"stone-nuggets", "tournament-roles"}))
    state = Game(config, seed=1).new_state()
    pile = ((40, GoldCard(3)), (41, GoldCard(0)), (42, GoldCard(3)))
    view = state.view_for(state.current)._replace(phase="take-gold", gold_pile=pile, take_amount=2)
    assert legal_actions_of(view) == [TakeGold(())]
    for bot_class in (HeuristicBot, HeuristicV1Bot):
        bot = bot_class()
        bot.start(view.seat, config, 0)
        assert bot.score_actions(view) == [(TakeGold(()), 1.0)]
        assert bot.act(view, [TakeGold(())]) == TakeGold(())
