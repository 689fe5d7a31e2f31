"""The edition registry: editions are looked up by name, and a new one plugs in by registering."""
from __future__ import annotations

import pytest

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import (
    Edition,
    GameConfig,
    Saboteur2State,
    State,
    TrustedDealer,
    edition_named,
    edition_names,
    editions,
    register,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.serialize import state_from_data, state_to_data


def test_the_bundled_editions_are_registered_base_first():
    assert edition_names() == ("base", "saboteur2")
    assert edition_named("base").state_class is State
    assert edition_named("saboteur2").state_class is Saboteur2State
    assert edition_named("saboteur2").players == (2, 12)


def test_an_unknown_edition_is_refused_with_the_known_ones_named():
    with pytest.raises(ValueError, match=r"unknown edition 'chess'; known: base, saboteur2"):
        GameConfig(5, "chess")


def test_a_name_is_registered_once():
    with pytest.raises(ValueError, match="registered already"):
        register(edition_named("base"))


def test_config_checks_players_and_variants_against_its_edition():
    with pytest.raises(ValueError, match="Saboteur 2 is for 2 to 12 players"):
        GameConfig(13, "saboteur2")
    with pytest.raises(ValueError, match="do not apply to Saboteur 2"):
        GameConfig(5, "saboteur2", frozenset({"stone-nuggets"}))
    assert GameConfig(5, "saboteur2", frozenset({"left-of-first-starter"})).edition_rules.title == "Saboteur 2"


class PathsOnlyState(State):
    """A made-up edition: the base game with no broken tools, so no card ever blocks a path."""

    def blocked(self, seat: int) -> bool:
        return False

    def _path_block(self, seat: int) -> str | None:
        return None


def _no_action_cards() -> list[C.Card]:
    return [card for card in C.base_draw_cards() if isinstance(card, C.PathCard)]


@pytest.fixture
def paths_only(monkeypatch):
    edition = Edition(
        name="paths-only",
        title="Paths only",
        players=(3, 4),
        variants=frozenset(),
        state_class=PathsOnlyState,
        role_cards=lambda config: C.role_cards(config.players),
        draw_cards=_no_action_cards,
        gold_unit="nugget",
        public_gold=False,
        most_gold=lambda config: 44,
    )
    monkeypatch.setitem(editions._REGISTRY, edition.name, edition)  # undone after the test
    return edition


def test_a_new_edition_is_one_class_and_one_registration(paths_only):
    config = GameConfig(3, "paths-only", rounds=2)
    state = State.new(config, TrustedDealer(7))
    assert type(state) is PathsOnlyState
    assert len(state.draw_pile) + sum(len(h) for h in state.hands) == len(_no_action_cards())
    record = play_game(config, ["random"] * 3, seed=7, time_limit=None)
    assert len(record.scores) == 3 and len(record.round_winners) == 2
    assert not any(a.startswith(("break", "repair", "map", "rockfall")) for a in record.actions)
    saved = state_to_data(state)
    again = state_from_data(saved)
    assert type(again) is PathsOnlyState and state_to_data(again) == saved
