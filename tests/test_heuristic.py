"""The heuristic bot: legal play in every configuration, strength against random play, scenarios."""
from __future__ import annotations

import pytest
from conftest import BREAK, MAP, REPAIR, ROCKFALL, S_, D, X, build, hand_card, path
from heuristic_helpers import CheckedBot, bot_for, choose
from saboteur_bots.heuristic import HeuristicBot

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import (
    AnyAction,
    BreakTool,
    CardPlayed,
    GameConfig,
    KeepGold,
    MapPeek,
    OrientStone,
    Pass,
    PathCard,
    PlacePath,
    RepairTool,
    Rockfall,
    State,
    TakeGold,
    Tool,
    Winners,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.state import Phase

#: a straight tunnel from the start to (6,0): its only open end near the goals is (7,0).
CORRIDOR = {(x, 0): "EW" for x in range(1, 7)}
TREASURE_MIDDLE = (C.STONE_NW, C.TREASURE, C.STONE_NE)


def face_of(state: State, action: AnyAction) -> PathCard:
    assert isinstance(action, PlacePath)
    face = state.faces[action.card]
    assert isinstance(face, PathCard)
    return face


def openings_of(state: State, action: PlacePath) -> int:
    """The openings of the placed card as it lies."""
    face = face_of(state, action)
    return face.turned_openings if action.turned else face.openings


# -- legal play everywhere ----------------------------------------------------------------

CONFIGS = [
    (players, variants)
    for players in range(3, 11)
    for variants in [
        (),
        ("stone-nuggets",),
        ("broken-tools-forfeit",),
        ("selfish-dwarf",),
        ("gold-per-player",),
        ("stone-nuggets", "broken-tools-forfeit", "selfish-dwarf", "gold-per-player"),
    ]
] + [(players, ("tournament-roles",)) for players in range(5, 10)]


@pytest.mark.parametrize("players, variants", CONFIGS)
def test_only_legal_actions_and_no_incidents(players, variants):
    config = GameConfig(players, variants=frozenset(variants))
    for seed in range(3):
        # all heuristic, then heuristic and random bots side by side
        for mix in (1, 2):
            bots = [CheckedBot() if (seat + seed) % mix == 0 else "random" for seat in range(players)]
            record = play_game(config, bots, seed=seed * 7 + players, time_limit=None, record_actions=False)
            assert record.incidents == []
            checked = [b for b in bots if isinstance(b, CheckedBot)]
            assert checked and all(b.illegal == [] and "play" in b.phases for b in checked)


def test_gold_phases_are_played_legally_too():
    phases: set[str] = set()
    for seed in range(20):
        bots = [CheckedBot() for _ in range(5)]
        record = play_game(GameConfig(5), bots, seed=seed, record_actions=False)
        assert record.incidents == [] and all(b.illegal == [] for b in bots)
        phases.update(*(b.phases for b in bots))
    assert {"play", "keep-gold", "take-gold"} <= phases  # stones to turn are rare: see the scenario


def test_games_replay_exactly_from_the_seed():
    config = GameConfig(6)
    first = play_game(config, ["heuristic"] * 6, seed=11)
    second = play_game(config, ["heuristic"] * 6, seed=11)
    assert first.actions == second.actions and first.scores == second.scores


# -- strength -----------------------------------------------------------------------------


@pytest.mark.slow
def test_heuristic_earns_clearly_more_gold_than_random():
    """120 fixed games of 5, seats alternating: heuristic about 4 nuggets a game, random about 2.5.

    Over 200 such games the 95% intervals are about 4.0 +- 0.23 and 2.5 +- 0.21.
    """
    config = GameConfig(5)
    gold = {"heuristic": [], "random": []}
    for seed in range(120):
        lineup = ["heuristic" if (seat + seed) % 2 == 0 else "random" for seat in range(5)]
        record = play_game(config, lineup, seed=seed, record_actions=False)
        assert record.incidents == []
        for name, score in zip(lineup, record.scores, strict=True):
            gold[name].append(score)
    heuristic = sum(gold["heuristic"]) / len(gold["heuristic"])
    random_ = sum(gold["random"]) / len(gold["random"])
    assert heuristic > random_ + 0.8, (heuristic, random_)


# -- scenarios: gold-digger -----------------------------------------------------------------


def test_digger_reaches_a_goal_when_it_can():
    state = build(
        maze=CORRIDOR,
        goals=TREASURE_MIDDLE,
        roles=[D, D, D, S_, S_],
        hands={0: ["NS", "EW", MAP, "W", BREAK[Tool.CART]]},
    )
    action = choose(state)
    assert isinstance(action, PlacePath) and action.cell == (7, 0)
    state.play(action)
    assert state.round_winners is Winners.GOLD_DIGGERS


def test_digger_heads_for_the_treasure_it_has_seen():
    state = build(
        maze=CORRIDOR,
        goals=(C.STONE_NW, C.STONE_NE, C.TREASURE),
        roles=[D, D, D, S_, S_],
        hands={0: ["EW", "SW", "NS"]},
    )
    state.peeks[0] = {2}
    state.goal_faces[2] = C.TREASURE
    action = choose(state)
    assert isinstance(action, PlacePath) and action.cell == (7, 0)
    assert openings_of(state, action) & C.S, "the card must bend south, towards the treasure at (8,2)"


def test_digger_repairs_its_own_broken_pickaxe():
    state = build(
        maze=CORRIDOR,
        roles=[D, D, D, S_, S_],
        hands={0: ["EW", MAP, BREAK[Tool.CART], REPAIR[Tool.PICKAXE]]},
        broken={0: [Tool.PICKAXE], 2: [Tool.LANTERN]},
    )
    action = choose(state)
    assert action == RepairTool(Tool.PICKAXE, 0, hand_card(state, 0, REPAIR[Tool.PICKAXE]))


def test_digger_clears_a_dead_end_that_blocks_the_way():
    state = build(
        maze={**CORRIDOR, (7, 0): "W"},
        roles=[D, D, D, S_, S_],
        hands={0: ["NS", ROCKFALL, MAP]},
    )
    action = choose(state)
    assert isinstance(action, Rockfall) and action.cell == (7, 0)


def test_digger_does_not_lay_dead_ends_on_the_way():
    state = build(maze=CORRIDOR, roles=[D, D, D, S_, S_], hands={0: ["W", "N+S", "S+W"]})
    action = choose(state)
    assert isinstance(action, Pass)


def lay(bot: HeuristicBot, player: int, cell: tuple[int, int], spec: str) -> None:
    """Tell ``bot`` that ``player`` laid the tunnel lying as ``spec`` at ``cell``."""
    card, turned = path(spec)
    bot.on_event(CardPlayed(player, PlacePath(99, cell[0], cell[1], turned), card))


def blocked_corridor(hand: list, suspect_broken: bool = False) -> tuple[State, HeuristicBot]:
    """Player 2 dug the corridor to (5,0); player 3 closed it with a dead end and broke 2's lantern.

    With ``suspect_broken``, player 1 then broke player 3's lantern.
    """
    state = build(
        maze={**{(x, 0): "EW" for x in range(1, 6)}, (6, 0): "W"},
        roles=[D, D, D, S_, S_],
        hands={0: hand},
        broken={2: [Tool.LANTERN], 3: [Tool.LANTERN] if suspect_broken else []},
    )
    bot = bot_for(state, 0)
    for x in range(1, 6):
        lay(bot, 2, (x, 0), "EW")
    lay(bot, 3, (6, 0), "W")
    bot.on_event(CardPlayed(3, BreakTool(Tool.LANTERN, 2, 98), BREAK[Tool.LANTERN]))
    if suspect_broken:
        bot.on_event(CardPlayed(1, BreakTool(Tool.LANTERN, 3, 97), BREAK[Tool.LANTERN]))
    return state, bot


def test_suspicion_follows_public_plays():
    _, bot = blocked_corridor([], suspect_broken=True)
    assert bot.suspicion[3] >= 1.5
    assert bot.suspicion[2] < 0 and bot.suspicion[1] < 0
    assert bot.suspicion[3] == max(bot.suspicion)


def test_digger_breaks_the_tools_of_the_suspect():
    state, bot = blocked_corridor([BREAK[Tool.PICKAXE], "W", "N+S"])
    action = choose(state, bot)
    assert isinstance(action, BreakTool) and action.target == 3


def test_digger_repairs_the_trusted_not_the_suspect():
    state, bot = blocked_corridor([REPAIR[Tool.LANTERN], "W", "N+S"], suspect_broken=True)
    action = choose(state, bot)
    assert isinstance(action, RepairTool) and action.target == 2


def test_digger_peeks_at_a_goal_when_near_and_unsure():
    state = build(maze=CORRIDOR, roles=[D, D, D, S_, S_], hands={0: [MAP, "W", "N+S"]})
    action = choose(state)
    assert isinstance(action, MapPeek)


# -- scenarios: saboteur --------------------------------------------------------------------


def test_saboteur_next_to_the_goals_blocks_instead_of_completing():
    state = build(
        maze=CORRIDOR,
        goals=TREASURE_MIDDLE,
        roles=[S_, D, D, D, S_],
        hands={0: ["EW", "W", ROCKFALL, MAP]},
    )
    action = choose(state)
    assert isinstance(action, (PlacePath, Rockfall))
    if isinstance(action, PlacePath):
        assert face_of(state, action).is_dead_end
    state.play(action)
    assert state.phase is Phase.PLAY and not state.goal_faces


def test_saboteur_without_a_dead_end_lays_a_detour():
    state = build(maze=CORRIDOR, goals=TREASURE_MIDDLE, roles=[S_, D, D, D, S_], hands={0: ["EW", "NW", "NS"]})
    action = choose(state)
    assert isinstance(action, PlacePath) and action.cell == (7, 0)
    assert not openings_of(state, action) & C.E, "the card must turn away from the goal at (8,0)"


def test_saboteur_rockfalls_the_tunnel_next_to_the_goals():
    state = build(maze=CORRIDOR, goals=TREASURE_MIDDLE, roles=[S_, D, D, D, S_], hands={0: ["EW", ROCKFALL, "NS"]})
    action = choose(state)
    assert isinstance(action, Rockfall) and action.cell in CORRIDOR


def test_saboteur_breaks_the_tools_of_the_most_trusted_player_near_the_goals():
    state = build(maze=CORRIDOR, roles=[S_, D, D, D, S_], hands={0: [BREAK[Tool.CART], "NESW", "EW"]})
    bot = bot_for(state, 0)
    lay(bot, 2, (5, 0), "EW")
    lay(bot, 2, (6, 0), "EW")
    action = choose(state, bot)
    assert action == BreakTool(Tool.CART, 2, hand_card(state, 0, BREAK[Tool.CART]))


def test_saboteur_stays_inconspicuous_while_the_goals_are_far():
    state = build(roles=[S_, D, D, D, S_], hands={0: [BREAK[Tool.PICKAXE], "W", "N+S", "NESW", "EW"]})
    action = choose(state)
    assert not isinstance(action, BreakTool)
    if isinstance(action, PlacePath):
        assert not face_of(state, action).is_dead_end


# -- stones and gold ------------------------------------------------------------------------


@pytest.mark.parametrize("role, turned", [(D, False), (S_, True)])
def test_a_stone_is_turned_for_the_team(role, turned):
    # the stone in the middle is reached from the west while a stranded card touches it from
    # the south: neither turn fits, so the reacher chooses; upright {N,W} leads on north
    state = build(
        maze={**CORRIDOR, (8, 1): "NS"},
        goals=(C.TREASURE, C.STONE_NW, C.STONE_NE),
        roles=[role, D, D, S_, D],
        hands={0: ["EW", "NS"]},
    )
    state.play(f"path {hand_card(state, 0, 'EW')} at 7,0")
    assert state.phase is Phase.ORIENT and state.current == 0
    action = choose(state)
    assert action == OrientStone(1, turned)


def test_keep_gold_keeps_the_most_valuable_card():
    state = build(
        maze=CORRIDOR,
        goals=TREASURE_MIDDLE,
        roles=[D, D, D, S_, S_],
        hands={0: ["EW"]},
        gold=[1, 1, 1, 1, 1, 1, 3, 1, 2],
    )
    state.play(f"path {hand_card(state, 0, 'EW')} at 7,0")
    kept = {}
    while state.phase is Phase.KEEP_GOLD:
        seat = state.current
        offered = {g: state.gold_faces[g].nuggets for g in state.offered}
        action = choose(state)
        assert isinstance(action, KeepGold)
        kept[seat] = offered[action.gold]
        assert kept[seat] == max(offered.values())
        state.play(action)
    assert kept == {0: 3, 2: 2}


def test_take_gold_leaves_the_valuable_cards_in_the_pile():
    state = build(roles=[D, D, D, S_, S_], hands={0: ["NS"]}, draw=[], gold=[3, 2, 1, 1, 1, 1, 2, 3])
    state.play(f"pass {hand_card(state, 0, 'NS')}")
    assert state.phase is Phase.TAKE_GOLD
    taken = []
    while state.phase is Phase.TAKE_GOLD:
        action = choose(state)
        assert isinstance(action, TakeGold)
        values = [state.gold_faces[g].nuggets for g in action.golds]
        assert sum(values) == 3
        taken.append(sorted(values))
        state.play(action)
    assert taken == [[1, 1, 1], [1, 2]]


def test_selfish_dwarf_reaches_the_goal_itself():
    state = build(
        maze=CORRIDOR,
        goals=TREASURE_MIDDLE,
        variants=("selfish-dwarf",),
        roles=[X, D, D, S_, S_],
        hands={0: ["EW", "NS", MAP]},
    )
    action = choose(state)
    assert isinstance(action, PlacePath) and action.cell == (7, 0)
