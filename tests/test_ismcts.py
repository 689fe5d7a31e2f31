"""The ismcts bot: legal and repeatable play in both editions, its budgets, its evaluation."""
from __future__ import annotations

import copy

import pytest
from conftest import build
from saboteur_bots.heuristic import PLAYERS, HeuristicBot
from saboteur_bots.ismcts import IsmctsBot, round_outlook

from saboteur_p2p.botapi import load_bot
from saboteur_p2p.match import play_game
from saboteur_p2p.rules import Game, GameConfig, Phase, Role
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.dealer import TrustedDealer


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



class _Table:
    """A base-game or Saboteur 2 table of heuristic bots whose events are also told to ``listeners``."""

    def __init__(self, config: GameConfig, seed: int, listeners) -> None:
        self.state = Game(config, TrustedDealer(seed)).new_state()
        self.bots = [HeuristicBot() for _ in range(config.players)]
        for s, bot in enumerate(self.bots):
            bot.start(s, config, seed + s)
        self.listeners = list(listeners)
        self.told = 0

    def turn(self, stand_in=None) -> None:
        """One move, by ``stand_in`` when it is the mover (a (seat, player) pair)."""
        state = self.state
        for event in state.events[self.told:]:
            for bot in self.bots + self.listeners:
                bot.on_event(event)
        self.told = len(state.events)
        p = state.current
        mover = stand_in[1] if stand_in is not None and stand_in[0] == p else self.bots[p]
        state.push(mover.act(state.view_for(p), state.legal_actions()))


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_a_fork_reads_and_plays_on_without_changing_the_player(edition):
    config = GameConfig(5, edition, rounds=1)
    player = PLAYERS[edition]()
    player.start(2, config, 9)
    table = _Table(config, 4, [player])
    for _ in range(15):
        table.turn()
    before = {name: copy.deepcopy(value) for name, value in vars(player).items() if name not in ("rng", "reading")}
    reading = copy.deepcopy(vars(player.reading))
    twin = player.fork()
    table.listeners = [twin]
    played = 0
    while table.state.phase is Phase.PLAY and played < 20:
        table.turn(stand_in=(2, twin))
        played += 1
    assert vars(player.reading) == reading
    assert {name: value for name, value in vars(player).items() if name not in ("rng", "reading")} == before
    assert played > 5 and twin.suspicion != player.suspicion  # the twin read the moves after the fork
    assert twin.rng is not player.rng


def test_aware_playout_players_read_the_real_game_as_if_no_search_had_happened():
    config = GameConfig(5, rounds=1)
    bot = IsmctsBot(playouts=12, cutoff=8)
    readers = [PLAYERS["base"]() for _ in range(5)]
    for s, reader in enumerate(readers):
        reader.start(s, config, 0)

    class Told(IsmctsBot):
        def on_event(self, event):
            super().on_event(event)
            for reader in readers:
                reader.on_event(event)

    bot.__class__ = Told
    play_game(config, [bot] + ["heuristic"] * 4, seed=3, time_limit=None)
    assert sum(bot.searched) > 0
    for s in range(1, 5):
        assert bot.players[s].suspicion == readers[s].suspicion
        assert bot.players[s].role is readers[s].role


def test_with_diggers_false_only_a_saboteur_searches():
    """``diggers=false``: the search gains as a saboteur (docs/bots.md), so a gold-digger may
    play the heuristic's moves and the bot runs about three times faster.  The same deal with
    the default searches in the seat's gold-digger rounds too."""
    roles_searched = {}
    for diggers in ("true", "false"):
        bot = load_bot(f"ismcts:playouts=6:cutoff=6:diggers={diggers}")
        searched_as: list[Role | None] = []
        search = bot._search

        def spy(view, chosen, weights, hands, search=search, searched_as=searched_as):
            searched_as.append(view.role)
            return search(view, chosen, weights, hands)

        bot._search = spy  # type: ignore[method-assign]
        record = play_game(GameConfig(5, rounds=3), [bot] + ["heuristic"] * 4, seed=11, time_limit=None)
        assert not record.incidents
        roles_searched[diggers] = set(searched_as)
    assert roles_searched["true"] == {Role.SABOTEUR, Role.GOLD_DIGGER}, roles_searched
    assert roles_searched["false"] == {Role.SABOTEUR}, roles_searched
