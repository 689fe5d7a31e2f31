"""The ismcts bot: legal and repeatable play in both editions, its budgets, its evaluation."""
from __future__ import annotations

from conftest import build
from saboteur_bots.ismcts import IsmctsBot, round_outlook

from saboteur_p2p.botapi import load_bot
from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig, Role
from saboteur_p2p.rules import cards as C


def test_plays_legal_repeatable_games_in_both_editions():
    for config in (GameConfig(4, rounds=1), GameConfig(3, "saboteur2", rounds=1)):
        bots = ["ismcts:playouts=6:cutoff=8"] + ["heuristic"] * (config.players - 1)
        first = play_game(config, bots, seed=5, time_limit=None)
        again = play_game(config, bots, seed=5, time_limit=None)
        assert not first.incidents
        assert first.actions == again.actions  # the playout budget is deterministic for a seed


def test_searches_spend_the_playout_budget_or_stop_at_the_time_budget():
    bot = IsmctsBot(playouts=10, cutoff=6)
    play_game(GameConfig(5, rounds=1), [bot] + ["heuristic"] * 4, seed=2, time_limit=None)
    assert bot.searched and all(5 <= done <= 10 for done in bot.searched)  # whole worlds of candidates
    hurried = IsmctsBot(playouts=10_000, cutoff=6, time=0.001)
    play_game(GameConfig(5, rounds=1), [hurried] + ["heuristic"] * 4, seed=2, time_limit=None)
    assert hurried.searched and max(hurried.searched) < 10_000


def test_parameters_come_from_the_spec():
    bot = load_bot("ismcts:playouts=7:cutoff=5:time=0.5")
    assert (bot.playouts, bot.cutoff, bot.time) == (7, 5, 0.5)


def test_the_outlook_is_better_for_the_diggers_the_nearer_the_tunnel_is_to_the_treasure():
    roles = [Role.GOLD_DIGGER] * 3 + [Role.SABOTEUR] * 2
    goals = (C.STONE_NW, C.TREASURE, C.STONE_NE)
    far = build(maze={(1, 0): "EW"}, roles=roles, goals=goals, hands={0: ["NS"] * 4}, draw=["NS"] * 20)
    near = build(maze={(x, 0): "EW" for x in range(1, 7)}, roles=roles, goals=goals, hands={0: ["NS"] * 4},
                 draw=["NS"] * 20)
    assert 0.0 < round_outlook(far) < round_outlook(near) < 1.0
