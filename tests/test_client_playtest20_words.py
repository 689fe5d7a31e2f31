"""Typed moves after play-test 20: a typo answered in the edition's own words, Saboteur 2's
cards named by hand slot like every other card, and a path move told first that its card is
no path card."""
from __future__ import annotations

import pytest
from test_client_controller import find, find2, seated

from saboteur_p2p.client.words import Words
from saboteur_p2p.rules import (
    ActionCard,
    ActionKind,
    IllegalActionError,
    InvalidActionError,
    PathCard,
    PlayOn,
    State,
    Tool,
)

NAMES = ["ann", "bob", "cy", "dee", "eve"]


def refusal(words: Words, typed: str) -> str:
    with pytest.raises(InvalidActionError) as refused:
        words.read(typed)
    return str(refused.value)


def base_words() -> Words:
    state = find(lambda s: s.phase.value == "play")
    return Words(state.view_for(state.current), NAMES)


def saboteur2_words(hand: tuple[tuple[int, ActionCard | PathCard], ...] | None = None) -> tuple[State, Words]:
    state = find2(lambda s: s.phase.value == "play")
    view = state.view_for(state.current)
    return state, Words(view if hand is None else view._replace(hand=hand), NAMES)


@pytest.mark.parametrize("typed", ["swap", "hats", "status", "trapd @bob", "hlep"])
def test_a_base_game_typo_is_never_answered_with_saboteur2_words_or_the_word_typed(typed: str):
    """In a base game ":swap" was answered "did you mean swap?", ":hats" "did you mean swap?",
    ":status" "did you mean hats?" and "trapd @1" "did you mean trap?", all Saboteur 2 words,
    and "trap @1" was then refused as a Saboteur 2 card (a play-test)."""
    said = refusal(base_words(), typed)
    verb = typed.split()[0]
    assert f"did you mean {verb}?" not in said, said
    for word in ("swap", "hats", "trap", "theft", "look", "steal", "clear"):
        assert f"did you mean {word}" not in said, said


@pytest.mark.parametrize(("typed", "said"), [
    ("swap", "swap is a Saboteur 2 card"),
    ("hats @bob", "hats is a Saboteur 2 card"),
    ("trap @bob", "trapped is a Saboteur 2 card"),
    ("theft 5", "theft is a Saboteur 2 card"),
    ("steal", "steal is a Saboteur 2 move"),
])
def test_a_saboteur2_word_in_a_base_game_is_said_to_be_another_edition_s(typed: str, said: str):
    assert said in refusal(base_words(), typed)


def test_a_base_game_typo_may_be_answered_with_a_client_command():
    assert "did you mean help?" in refusal(base_words(), "hlep")


def test_a_saboteur2_typo_is_still_answered_with_its_own_verbs():
    _, words = saboteur2_words()
    assert "did you mean trap? trap [SLOT] @name" in refusal(words, "trapd @bob")


def test_every_saboteur2_card_played_on_a_player_may_be_named_by_its_slot():
    """"theft 5", "free 3", "trap 3 @1", "inspection 1 @2", "swap-hand 1 @2", "hands-off 5 @me"
    and "swap-hats 1 @me" could not be read, while "break 3 @bob" and "pass 4" took a slot (a
    play-test)."""
    kinds = (ActionKind.THEFT, ActionKind.FREE, ActionKind.TRAPPED, ActionKind.INSPECTION,
             ActionKind.SWAP_HAND, ActionKind.HANDS_OFF, ActionKind.SWAP_HATS)
    hand = tuple((90 + slot, ActionCard(kind)) for slot, kind in enumerate(kinds, 1))
    state, words = saboteur2_words(hand)
    me, bob = state.current, NAMES.index("bob")
    assert words.read("theft 1") == f"theft @{me} #91"
    assert words.read("free 2") == f"free @{me} #92"
    assert words.read("free 2 @bob") == f"free @{bob} #92"
    assert words.read("trap 3 @bob") == f"trapped @{bob} #93"
    assert words.read("inspection 4 @bob") == f"inspection @{bob} #94"
    assert words.read("swap-hand 5 @bob") == f"swap-hand @{bob} #95"
    assert words.read("h.off 6 @me") == f"hands-off @{me} #96"
    assert words.read("swap-hats 7 @me") == f"swap-hats @{me} #97"
    assert words.read("trapped @bob") == f"trapped @{bob}"  # without a slot, as before


def test_a_saboteur2_card_named_by_a_slot_of_another_card_is_refused_for_the_card():
    hand = ((91, ActionCard(ActionKind.BREAK, (Tool.CART,))), (92, ActionCard(ActionKind.THEFT)))
    _, words = saboteur2_words(hand)
    assert refusal(words, "theft 1") == "card 1 is not a theft card"
    assert refusal(words, "trap 2 @bob") == "card 2 is not a trapped card"
    assert "there is no card 9 in your hand" in refusal(words, "free 9")


def test_a_theft_named_by_its_slot_is_the_engine_s_move_with_that_card():
    state = find2(lambda s: s.phase.value == "play" and any(
        isinstance(a, PlayOn) and a.kind is ActionKind.THEFT for a in s.legal_actions()))
    view = state.view_for(state.current)
    slot, handle = next((i, h) for i, (h, c) in enumerate(view.hand, 1)
                        if isinstance(c, ActionCard) and c.kind is ActionKind.THEFT)
    action = state.check(Words(view, NAMES).read(f"theft {slot}"), player=state.current)
    assert action == PlayOn(ActionKind.THEFT, state.current, handle)


def test_the_theft_usage_says_it_is_played_in_front_of_yourself():
    """"theft 5" was answered "theft @name", and "theft @heuristic-1" was then refused, as a
    Theft is played in front of yourself (a play-test)."""
    _, words = saboteur2_words()
    said = refusal(words, "theft five")
    assert "theft [SLOT]" in said and "in front of yourself" in said and "@name" not in said
    assert "trapped [SLOT] @name" in refusal(words, "trapped")


def holds_no_path_card_first(state: State) -> bool:
    return state.phase.value == "play" and not isinstance(state.faces[state.hands[state.current][0]], PathCard)


@pytest.mark.parametrize("cell", ["7,0", "5,5", "1,0", "-1,0"])
def test_a_path_move_with_a_card_that_is_no_path_card_is_refused_for_the_card_whatever_the_cell(cell: str):
    """With a Break card in slot 1, "path 1 at 7,0" was refused as "the card at 7,0 would not
    join the start's tunnel network" and "path 1 at 5,5" as "5,5 touches no card" (a play-test)."""
    state = find(holds_no_path_card_first)
    _agent, _node, ctl = seated(state)
    assert not ctl.command(f"path 1 at {cell}")
    assert ctl.ui.message == "not allowed: card 1 is not a path card"
    words = Words(state.view_for(state.current), NAMES)
    with pytest.raises(IllegalActionError) as refused:
        state.check(words.read(f"path 1 {cell} turned"), player=state.current)
    assert words.explain(refused.value) == "card 1 is not a path card"


def test_a_path_move_out_of_turn_is_still_refused_for_the_turn():
    state = find(holds_no_path_card_first)
    waiting = (state.current + 1) % state.players
    words = Words(state.view_for(waiting), NAMES)
    with pytest.raises(IllegalActionError) as refused:
        state.check(f"path {state.hands[state.current][0]} at 7,0", player=waiting)
    assert words.explain(refused.value).startswith("it is ")
