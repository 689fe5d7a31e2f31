"""The heuristic bot in Saboteur 2: legal play at every table size, strength, and scenarios."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import heuristic_helpers
import pytest
from conftest import build2 as saboteur2_scenario
from conftest import hand_card, path
from heuristic_helpers import bot_for, choose

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import (
    ActionCard,
    ActionKind,
    AnyAction,
    Card,
    CardPlayed,
    Clear,
    Door,
    GameConfig,
    PathCard,
    PiecesWon,
    PlacePath,
    PlayerView,
    PlayOn,
    Role,
    State,
    Steal,
    Winners,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.state import Phase

Cell = tuple[int, int]
BLUE, GREEN, SAB = Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.SABOTEUR
THEFT, TRAPPED, FREE = (ActionCard(k) for k in (ActionKind.THEFT, ActionKind.TRAPPED, ActionKind.FREE))
MAP = ActionCard(ActionKind.MAP)
TREASURE_MIDDLE = (C.STONE_NW, C.TREASURE, C.STONE_NE)


def door(colour: Door, spec: str) -> PathCard:
    """The expansion's door card of this colour whose upright segments are ``spec``."""
    wanted = sorted(C.mask_from_letters(part) for part in spec.split("+"))
    for card, _ in C.EXPANSION_PATH_COUNTS:
        if card.door is colour and sorted(card.segments) == wanted:
            return card
    raise ValueError(f"no {colour.value} door card {spec!r}")


def build2(players: int = 5, *, goals: Sequence[PathCard] = TREASURE_MIDDLE, **layout: Any) -> State:
    """conftest's ``build2`` with the treasure in the middle and a geologist put aside."""
    return saboteur2_scenario(players, goals=goals, set_aside_roles=[Role.GEOLOGIST], **layout)


class CheckedBot(heuristic_helpers.CheckedBot):
    """Also counts thefts of nothing while someone has gold."""

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        super().start(seat, config, seed)
        self.stole_nothing = 0

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        action = super().act(view, legal)
        if action == Steal(None) and len(legal) > 1:
            self.stole_nothing += 1
        return action


# -- legal play everywhere ----------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 13))
def test_whole_games_at_every_table_size_without_incidents(players):
    config = GameConfig(players, "saboteur2")
    for seed in range(2):
        for mix in (1, 2):
            bots = [CheckedBot() if (seat + seed) % mix == 0 else "random" for seat in range(players)]
            record = play_game(config, bots, seed=seed * 13 + players, time_limit=None, record_actions=False)
            assert record.incidents == []
            checked = [b for b in bots if isinstance(b, CheckedBot)]
            assert all(b.illegal == [] and b.stole_nothing == 0 and "play" in b.phases for b in checked)


def test_the_steal_phase_is_played_and_games_replay_exactly():
    config = GameConfig(5, "saboteur2")
    phases: set[str] = set()
    for seed in range(6):
        bots = [CheckedBot() for _ in range(5)]
        record = play_game(config, bots, seed=seed, time_limit=None, record_actions=False)
        assert record.incidents == [] and all(b.illegal == [] for b in bots)
        phases.update(*(b.phases for b in bots))
    assert "steal" in phases
    first = play_game(config, ["heuristic"] * 5, seed=4)
    second = play_game(config, ["heuristic"] * 5, seed=4)
    assert first.actions == second.actions and first.scores == second.scores


# -- strength -----------------------------------------------------------------------------


@pytest.mark.slow
def test_heuristic_earns_clearly_more_gold_than_random_in_saboteur2():
    """100 fixed games of 5, seats alternating: heuristic about 6.2 gold pieces a game, random 3.2.

    Over 200 such games the 95% intervals are about 6.2 +- 0.6 and 3.2 +- 0.4.
    """
    config = GameConfig(5, "saboteur2")
    gold: dict[str, list[int]] = {"heuristic": [], "random": []}
    for seed in range(100):
        lineup = ["heuristic" if (seat + seed) % 2 == 0 else "random" for seat in range(5)]
        record = play_game(config, lineup, seed=seed, time_limit=None, record_actions=False)
        assert record.incidents == []
        for name, score in zip(lineup, record.scores, strict=True):
            gold[name].append(score)
    heuristic = sum(gold["heuristic"]) / len(gold["heuristic"])
    random_ = sum(gold["random"]) / len(gold["random"])
    assert heuristic > random_ + 1.5, (heuristic, random_)


# -- scenarios ------------------------------------------------------------------------------

CORRIDOR: dict[Cell, Card | str] = {(x, 0): "EW" for x in range(1, 7)}


def test_plays_theft_on_itself_early_and_keeps_it():
    state = build2(roles=[BLUE, GREEN, SAB, BLUE, GREEN], hands={0: [THEFT, "W", "N+S"]})
    action = choose(state)
    assert action == PlayOn(ActionKind.THEFT, 0, hand_card(state, 0, THEFT))
    # with a Theft in front of it and two junk cards, it never clears the Theft away
    state = build2(roles=[BLUE, GREEN, SAB, BLUE, GREEN], hands={0: ["W", "N+S", "S+W"]}, thefts={0: 0})
    assert not isinstance(choose(state), Clear)


def test_traps_a_known_opponent_not_a_known_teammate():
    state = build2(
        roles=[BLUE, BLUE, SAB, GREEN, GREEN],
        hands={0: [TRAPPED, "W", "N+S"]},
        inspected={0: [1, 2]},
    )
    action = choose(state)
    assert isinstance(action, PlayOn) and action.kind is ActionKind.TRAPPED and action.target == 2


def test_traps_the_player_who_shut_its_team_out_with_a_door():
    green_door = door(Door.GREEN, "EW")
    state = build2(
        roles=[BLUE, BLUE, SAB, GREEN, GREEN],
        maze={**CORRIDOR, (3, 0): green_door},
        hands={0: [TRAPPED, "W", "N+S"]},
        inspected={0: [1]},
    )
    bot = bot_for(state)
    for x in range(1, 7):
        card, turned = (green_door, False) if x == 3 else path("EW")
        player = 4 if x == 3 else 1
        bot.on_event(CardPlayed(player, PlacePath(90 + x, x, 0, turned), card))
    bot.on_event(CardPlayed(4, PlacePath(99, 7, 0), path("W")[0]))
    assert bot.suspicion[4] == max(bot.suspicion)
    action = choose(state, bot)
    assert isinstance(action, PlayOn) and action.kind is ActionKind.TRAPPED and action.target == 4


def test_frees_itself():
    state = build2(roles=[BLUE, GREEN, SAB, BLUE, GREEN], hands={0: [FREE, "EW", MAP]}, trapped=[0, 2])
    assert choose(state) == PlayOn(ActionKind.FREE, 0, hand_card(state, 0, FREE))


def test_frees_a_known_teammate_not_a_known_saboteur():
    state = build2(
        roles=[BLUE, BLUE, SAB, GREEN, GREEN], hands={0: [FREE, "W", "N+S"]}, trapped=[1, 2], inspected={0: [1, 2]},
    )
    assert choose(state) == PlayOn(ActionKind.FREE, 1, hand_card(state, 0, FREE))


def test_clears_a_trapped_card_with_two_junk_cards():
    state = build2(roles=[GREEN, BLUE, SAB, BLUE, GREEN], hands={0: ["W", "N+S", "NESW"]}, trapped=[0])
    action = choose(state)
    junk = {hand_card(state, 0, "W"), hand_card(state, 0, "N+S")}
    assert action == Clear("trapped", tuple(sorted(junk)))  # type: ignore[arg-type]


def test_steals_from_the_richest_player_who_has_gold():
    state = build2(roles=[SAB, BLUE, BLUE, GREEN, GREEN], hands={0: ["NS"]})
    bot = bot_for(state)
    for player, pieces in ((1, 2), (3, 5), (4, 1)):
        bot.on_event(PiecesWon(player, pieces))
    view = state.view_for(0)._replace(phase=Phase.STEAL.value)
    legal = [Steal(1), Steal(3), Steal(4), Steal(None)]
    assert bot.act(view, legal) == Steal(3)


def test_blue_digger_lays_its_own_door_not_the_other_colour_s():
    state = build2(
        roles=[BLUE, GREEN, SAB, BLUE, GREEN],
        maze={(x, 0): "EW" for x in range(1, 5)},
        hands={0: [door(Door.GREEN, "EW"), door(Door.BLUE, "EW"), "W"]},
    )
    action = choose(state)
    assert isinstance(action, PlacePath) and state.faces[action.card] == door(Door.BLUE, "EW")
    assert action.cell == (5, 0)


def test_digger_does_not_lay_the_other_colour_s_door_on_its_way():
    state = build2(
        roles=[GREEN, GREEN, SAB, BLUE, BLUE],
        maze={(x, 0): "EW" for x in range(1, 5)},
        hands={0: [door(Door.BLUE, "EW"), door(Door.BLUE, "NS"), MAP]},
    )
    action = choose(state)
    assert not (isinstance(action, PlacePath) and state.faces[action.card].door is Door.BLUE)  # type: ignore[union-attr]


@pytest.mark.parametrize("role, reaches", [(BLUE, False), (GREEN, True)])
def test_the_treasure_is_reached_only_by_a_way_open_to_the_team(role, reaches):
    # a green door on the only way: a blue digger reaching the treasure would make green win
    state = build2(
        roles=[role, BLUE, SAB, GREEN, GREEN],
        maze={**CORRIDOR, (3, 0): door(Door.GREEN, "EW")},
        hands={0: ["EW", "NS", "W"]},
    )
    action = choose(state)
    assert (isinstance(action, PlacePath) and action.cell == (7, 0)) is reaches
    if reaches:
        state.play(action)
        assert state.results[-1].winners is Winners.GREEN_TEAM
