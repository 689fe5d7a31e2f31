"""Saboteur 2 (rules.md 8) through the real State: the seven new action cards, the four
kinds of turn, the end of a round, thieves and gold pieces.

Scenarios come from conftest's ``build2``: the trusted dealer's decks are rebuilt so every
handle names the face the dealer reveals, and the maze is laid card by card.
"""
from __future__ import annotations

import pytest
from conftest import (
    BLUE_EW,
    BOSS,
    BREAK,
    CORRIDOR,
    CRYSTAL_BRIDGE,
    CRYSTAL_X,
    GEO,
    MAP,
    PROF,
    REPAIR,
    ROCKFALL,
    SAB,
    B,
    G,
    build2,
    config2,
    corridor_state,
    refused,
)
from conftest import hand_card as held

from saboteur_p2p.rules import (
    CardPlayed,
    Clear,
    Game,
    GameConfig,
    IllegalActionError,
    InvalidActionError,
    Pass,
    PiecesWon,
    PlacePath,
    PlayOn,
    RoundStarted,
    Steal,
    Stolen,
    Tool,
    Winners,
)
from saboteur_p2p.rules.cards import ActionCard, ActionKind
from saboteur_p2p.rules.state import Phase

THEFT, HANDS_OFF, SWAP_HAND, INSPECTION, SWAP_HATS, TRAPPED, FREE = (
    ActionCard(kind) for kind in (
        ActionKind.THEFT, ActionKind.HANDS_OFF, ActionKind.SWAP_HAND, ActionKind.INSPECTION,
        ActionKind.SWAP_HATS, ActionKind.TRAPPED, ActionKind.FREE,
    )
)


# -- action cards: Theft and Hands off! ----------------------------------------------------------

def test_theft_is_played_in_front_of_yourself_only_once():
    state = build2(3, hands={0: [THEFT, THEFT, "NS"]})
    card = held(state, 0, THEFT)
    refused(state, PlayOn(ActionKind.THEFT, 1, card), "in front of yourself")
    assert [a for a in state.legal_actions() if isinstance(a, PlayOn)] == [PlayOn(ActionKind.THEFT, 0, card)]
    state.play(PlayOn(ActionKind.THEFT, 0, card))
    assert state.thefts[0] == card and state.theft_played[0] is not None
    assert state.view_for(1).thefts == (True, False, False)
    assert len(state.hands[0]) == 3  # drew one
    assert state.current == 0  # the others hold nothing
    refused(state, PlayOn(ActionKind.THEFT, 0, held(state, 0, THEFT)), "already has a Theft")
    assert not any(isinstance(a, PlayOn) for a in state.legal_actions())


def test_a_trapped_player_may_not_play_a_theft():
    state = build2(3, hands={0: [THEFT, "NS"]}, trapped=[0])
    refused(state, PlayOn(ActionKind.THEFT, 0, held(state, 0, THEFT)), "is trapped and may not play a Theft")
    assert not any(isinstance(a, PlayOn) for a in state.legal_actions())
    free = build2(3, hands={0: [THEFT, "NS"]})  # the same hand, not trapped
    assert [a for a in free.legal_actions() if isinstance(a, PlayOn)] == [PlayOn(ActionKind.THEFT, 0, held(free, 0, THEFT))]


def test_hands_off_removes_a_theft_from_any_player():
    state = build2(3, hands={0: [HANDS_OFF, HANDS_OFF]}, thefts={0: 3, 2: 5})
    card = held(state, 0, HANDS_OFF)
    refused(state, PlayOn(ActionKind.HANDS_OFF, 1, card), "no Theft")
    legal = {a for a in state.legal_actions() if isinstance(a, PlayOn)}
    assert legal == {PlayOn(ActionKind.HANDS_OFF, 0, card), PlayOn(ActionKind.HANDS_OFF, 2, card)}
    theft = state.thefts[2]
    state.play(PlayOn(ActionKind.HANDS_OFF, 2, card))
    assert state.thefts[2] is None and state.theft_played[2] is None
    assert state.discards == [card, theft]  # both cards are discarded


def test_the_short_form_picks_a_card_of_that_kind():
    state = build2(3, hands={0: ["NS", TRAPPED]})
    assert state.play("trapped @2") == PlayOn(ActionKind.TRAPPED, 2, 1)


# -- Swap your hand -----------------------------------------------------------------------------

def test_swap_your_hand_then_only_the_other_player_draws():
    state = build2(3, hands={0: [SWAP_HAND, "NS", MAP], 1: ["WE", "WE"]}, draw=["NESW", ROCKFALL])
    mine = [h for h in state.hands[0] if state.faces[h] != SWAP_HAND]
    theirs = list(state.hands[1])
    top, second = state.draw_pile[-1], state.draw_pile[-2]
    card = held(state, 0, SWAP_HAND)
    refused(state, PlayOn(ActionKind.SWAP_HAND, 0, card), "another player")
    state.play(PlayOn(ActionKind.SWAP_HAND, 1, card))
    assert sorted(state.hands[1]) == sorted([*mine, top])  # the other player draws one card...
    assert sorted(state.hands[0]) == sorted(theirs)  # ...and the player of the card none (rules.md 8)
    assert state.draw_pile == [second]
    assert {h for h, _ in state.view_for(0).hand} == set(theirs)
    assert {h for h, _ in state.view_for(1).hand} == {*mine, top}
    assert card in state.discards


def test_swap_your_hand_keeps_both_hands_at_six_while_the_pile_lasts():
    state = build2(3, hands={0: [SWAP_HAND, "NS", MAP, "WE", "NE", "NW"], 1: ["WE"] * 6})
    state.play(PlayOn(ActionKind.SWAP_HAND, 1, held(state, 0, SWAP_HAND)))
    assert len(state.hands[0]) == len(state.hands[1]) == 6


def test_swap_your_hand_with_an_empty_pile_draws_nothing():
    state = build2(3, hands={0: [SWAP_HAND, "NS"], 2: ["WE", "WE", "WE"]}, draw=[])
    state.play(PlayOn(ActionKind.SWAP_HAND, 2, held(state, 0, SWAP_HAND)))
    assert [len(h) for h in state.hands] == [3, 0, 1]
    assert state.current == 2  # seat 1 holds nothing and is skipped


# -- Inspection and Swap your hats ----------------------------------------------------------

def test_inspection_shows_a_role_only_to_the_player_and_is_forgotten_after_a_swap_of_hats():
    state = build2(4, hands={0: [INSPECTION, "NS"], 1: ["NS"], 2: [SWAP_HATS, "NS"]}, roles=[B, G, SAB, GEO],
                   set_aside_roles=[BOSS, PROF])
    card = held(state, 0, INSPECTION)
    refused(state, PlayOn(ActionKind.INSPECTION, 0, card), "another player")
    state.play(PlayOn(ActionKind.INSPECTION, 2, card))
    assert dict(state.view_for(0).known_roles) == {2: SAB}
    for seat in (1, 2, 3):
        assert dict(state.view_for(seat).known_roles) == {}
    state.play(f"pass {state.hands[1][0]}")
    state.play(PlayOn(ActionKind.SWAP_HATS, 2, held(state, 2, SWAP_HATS)))  # seat 2 swaps their own hat
    assert state.view_for(2).role is BOSS
    assert dict(state.view_for(0).known_roles) == {}  # seat 0 saw the old card only
    assert state.discarded_roles == [2] and state.set_aside_roles == [5]


def test_swap_your_hats_on_another_player():
    state = build2(3, hands={0: [SWAP_HATS, "NS"]}, roles=[B, SAB, G], set_aside_roles=[SAB, GEO], rounds=1)
    state.play(PlayOn(ActionKind.SWAP_HATS, 1, held(state, 0, SWAP_HATS)))
    assert state.view_for(1).role is SAB  # a random leftover: it may be the same kind
    assert state.roles[1] == 3 and state.discarded_roles == [1]
    assert dict(state.view_for(0).known_roles) == {}  # the player who played it learns nothing
    assert 3 in state.role_seen[1] and 3 not in state.role_seen[0]


def test_swapped_hats_decide_the_round():
    state = build2(3, hands={0: [SWAP_HATS, "NS"]}, draw=[], roles=[B, G, B], set_aside_roles=[SAB], rounds=1)
    state.play(PlayOn(ActionKind.SWAP_HATS, 2, held(state, 0, SWAP_HATS)))
    state.play(f"pass {state.hands[0][0]}")
    assert state.is_terminal()
    assert state.results[0].roles == (B, G, SAB) and state.scores == (0, 0, 5)


# -- Trapped! and Free at last! -----------------------------------------------------------------

def test_trapped_is_played_on_another_player_and_blocks_path_cards():
    state = build2(3, hands={0: [TRAPPED, TRAPPED], 1: ["NS", MAP, THEFT]})
    card = held(state, 0, TRAPPED)
    refused(state, PlayOn(ActionKind.TRAPPED, 0, card), "another player")
    state.play(PlayOn(ActionKind.TRAPPED, 1, card))
    assert state.trapped[1] == card and state.view_for(2).trapped == (False, True, False)
    legal = state.legal_actions()
    assert not any(isinstance(a, PlacePath) for a in legal)
    assert any(str(a).startswith("map") for a in legal)
    refused(state, PlacePath(held(state, 1, "NS"), 0, 1), "trapped")
    state.play(f"pass {state.hands[1][0]}")
    assert state.current == 0
    refused(state, PlayOn(ActionKind.TRAPPED, 1, held(state, 0, TRAPPED)), "already trapped")


def test_free_at_last_removes_a_trapped_card_from_any_player():
    state = build2(3, hands={0: [FREE, FREE, "NS"]}, trapped=[0, 2])
    card = held(state, 0, FREE)
    refused(state, PlayOn(ActionKind.FREE, 1, card), "not trapped")
    legal = {a for a in state.legal_actions() if isinstance(a, PlayOn)}
    assert legal == {PlayOn(ActionKind.FREE, 0, card), PlayOn(ActionKind.FREE, 2, card)}
    trap = state.trapped[0]
    state.play(PlayOn(ActionKind.FREE, 0, card))  # on yourself
    assert state.trapped[0] is None and state.trapped[1] is None and state.trapped[2] is not None
    assert card in state.discards and trap in state.discards


def test_no_two_action_cards_of_a_kind_in_front_of_a_player():
    state = build2(3, hands={0: [TRAPPED, BREAK[Tool.CART], BREAK[Tool.LANTERN], THEFT]}, trapped=[1],
                   broken={1: [Tool.CART]}, thefts={1: 7})
    refused(state, PlayOn(ActionKind.TRAPPED, 1, held(state, 0, TRAPPED)), "already trapped")
    refused(state, f"break cart @1 #{held(state, 0, BREAK[Tool.CART])}", "already broken")
    # other kinds may lie together: trapped, a theft and two broken tools
    state.play(f"break lantern @1 #{held(state, 0, BREAK[Tool.LANTERN])}")
    assert set(state.broken[1]) == {Tool.CART, Tool.LANTERN} and state.trapped[1] is not None and state.thefts[1] is not None


# -- the four kinds of turn -----------------------------------------------------------------------

def test_a_path_card_or_an_action_card_then_draw_one():
    state = build2(3, hands={0: ["NS", MAP], 1: [MAP, "NS"]})
    state.play(PlacePath(held(state, 0, "NS"), 0, 1))
    state.play(f"map 0 #{held(state, 1, MAP)}")
    assert [len(h) for h in state.hands] == [2, 2, 0] and len(state.draw_pile) == 8


@pytest.mark.parametrize("what, setup", [
    ("trapped", {"trapped": [0]}),
    ("theft", {"thefts": {0: 4}}),
    ("pickaxe", {"broken": {0: [Tool.PICKAXE]}}),
    ("lantern", {"broken": {0: [Tool.LANTERN, Tool.CART]}}),
    ("cart", {"broken": {0: [Tool.CART]}}),
])
def test_clear_discards_two_cards_removes_one_and_draws_one(what, setup):
    state = build2(3, hands={0: ["NS", "WE", MAP, "NESW"]}, **setup)
    if what == "trapped":
        lying = state.trapped[0]
    elif what == "theft":
        lying = state.thefts[0]
    else:
        lying = state.broken[0][Tool(what)]
    a, b = state.hands[0][:2]
    action = Clear(what, (a, b))
    assert action in state.legal_actions()
    state.play(action)
    assert len(state.hands[0]) == 3  # the hand shrinks by one
    assert state.hidden_discards == [a, b] and state.discards == [lying]
    view = state.view_for(0)
    if what == "trapped":
        assert view.trapped[0] is False
    elif what == "theft":
        assert view.thefts[0] is False and state.theft_played[0] is None
    else:
        assert Tool(what) not in view.broken[0]


def test_clear_is_refused_when_it_breaks_a_rule():
    state = build2(3, hands={0: ["NS", "WE", MAP], 1: ["NS"]}, trapped=[0], broken={0: [Tool.CART]})
    a, b, c = state.hands[0]
    refused(state, Clear("theft", (a, b)), "no theft")
    refused(state, Clear("pickaxe", (a, b)), "no broken pickaxe")
    refused(state, Clear("trapped", (a, a)), "two different cards")
    refused(state, Clear("trapped", (a, state.hands[1][0])), "not in player 0's hand")
    refused(state, Clear("trapped", (a, b, c)), "two cards")  # type: ignore[arg-type]
    with pytest.raises(InvalidActionError):
        state.play(Clear("hammer", (a, b)))
    assert {x.what for x in state.legal_actions() if isinstance(x, Clear)} == {"trapped", "cart"}


def test_nothing_to_clear_or_one_card_in_hand_means_no_clear():
    assert not any(isinstance(a, Clear) for a in build2(3, hands={0: ["NS", "WE"]}).legal_actions())
    assert not any(isinstance(a, Clear) for a in build2(3, hands={0: ["NS"]}, trapped=[0]).legal_actions())


def test_pass_discards_one_to_three_cards_face_down_and_draws_as_many_as_the_pile_has():
    state = build2(3, hands={0: ["NS", "WE", MAP, "NESW"], 1: ["NS", "WE", MAP, "NESW"]}, draw=["NS", "NS", "NS", "NS"])
    a, b, c, _ = state.hands[0]
    state.play(Pass(a, (b, c)))
    assert len(state.hands[0]) == 4 and state.hidden_discards == [a, b, c] and len(state.draw_pile) == 1
    assert state.events[-1] == CardPlayed(0, Pass(a, (b, c)), None)  # face down: no face shown
    a, b, c, _ = state.hands[1]
    state.play(f"pass {a},{b},{c}")
    assert len(state.hands[1]) == 2 and state.draw_pile == []  # only one card was left to draw


def test_every_distinct_pass_is_legal():
    state = build2(3, hands={0: ["NS", "WE", MAP]})
    passes = [a for a in state.legal_actions() if isinstance(a, Pass)]
    assert sorted(len(p.cards) for p in passes) == [1, 1, 1, 2, 2, 2, 3]


def test_a_pass_is_refused_when_it_breaks_a_rule():
    state = build2(3, hands={0: ["NS", "WE", MAP, "NESW"], 1: ["NS"]})
    a, b, c, d = state.hands[0]
    refused(state, Pass(a, (a,)), "named twice")
    refused(state, Pass(a, (state.hands[1][0],)), "not in player 0's hand")
    refused(state, Pass(a, (b, c, d)), "one to three cards")
    with pytest.raises(InvalidActionError):
        state.play(f"pass {a},{b},{c},{d}")


def test_players_without_cards_are_skipped():
    state = build2(4, hands={0: ["NS"], 2: ["NS"], 3: ["NS"]}, draw=[])
    state.play(f"pass {state.hands[0][0]}")
    assert state.current == 2
    state.play(f"pass {state.hands[2][0]}")
    assert state.current == 3


def test_the_round_ends_when_the_pile_and_the_hands_are_empty_and_the_next_starts_left_of_the_last_player():
    state = build2(4, hands={1: ["NS"], 3: ["NS"]}, draw=[], current=3, roles=[B, SAB, G, GEO])
    state.play(f"pass {state.hands[3][0]}")
    assert state.round == 1 and state.current == 1
    state.play(PlacePath(state.hands[1][0], 0, 1))
    assert state.round == 2 and state.results[0].winners is Winners.SABOTEURS
    assert state.results[0].gold_pieces == (0, 5, 0, 0)
    assert state.first_player == state.current == 2  # left of seat 1, who played the last card
    assert state.events[-1] == RoundStarted(2, 2)
    assert state.pieces == [0, 5, 0, 0] and state.trapped == [None] * 4


def test_after_the_treasure_the_next_round_starts_left_of_the_finder():
    state = corridor_state(3, [B, B, B, B, SAB])
    state.play(PlacePath(held(state, 3, "WE"), 7, 0))
    assert state.round == 2 and state.current == state.first_player == 4
    assert state.results[0].gold_pieces == (2, 2, 2, 2, 0)


# -- seed 004's examples played out --------------------------------------------------------------

def test_example_1_played_out_with_the_theft_of_the_untrapped_saboteur():
    maze = [*CORRIDOR[:3], ((4, 0), (BLUE_EW, False)), *CORRIDOR[4:]]
    roles = [B, G, G, BOSS, PROF, SAB, SAB]
    state = corridor_state(3, roles, maze=maze, trapped=[6], thefts={5: 10, 6: 20}, pieces=[0] * 7)
    state.play(PlacePath(held(state, 3, "WE"), 7, 0))
    assert state.round_winners is Winners.BLUE_TEAM
    assert state.pieces == [3, 0, 0, 2, 1, 0, 0]
    assert state.phase is Phase.STEAL and state.current == 5  # the trapped saboteur is skipped
    assert set(state.legal_actions()) == {Steal(0), Steal(3), Steal(4), Steal(None)}
    refused(state, Steal(1), "no gold")
    refused(state, Steal(5), "another player")
    refused(state, "pass 1", "steal")
    state.play("steal @0")
    assert state.pieces == [2, 0, 0, 2, 1, 1, 0]
    assert Stolen(5, 0) in state.events
    assert [e for e in state.events if isinstance(e, PiecesWon)] == [PiecesWon(0, 3), PiecesWon(3, 2), PiecesWon(4, 1)]
    assert state.results[0].gold_pieces == (2, 0, 0, 2, 1, 1, 0)
    assert state.round == 2 and state.current == 4  # left of the boss, who played the last card


def test_example_1_green_digger_connects_and_the_blue_team_still_wins():
    maze = [*CORRIDOR[:3], ((4, 0), (BLUE_EW, False)), *CORRIDOR[4:]]
    state = corridor_state(1, [B, G, G, BOSS, PROF, SAB, SAB], maze=maze, trapped=[6])
    state.play(PlacePath(held(state, 1, "WE"), 7, 0))
    assert state.results[0].winners is Winners.BLUE_TEAM
    assert state.results[0].gold_pieces == (3, 0, 0, 2, 1, 0, 0)


def test_example_1_saboteurs_win():
    state = build2(7, hands={0: ["NS"]}, draw=[], roles=[B, G, G, BOSS, PROF, SAB, SAB], trapped=[6],
                   thefts={5: 10, 6: 20})
    state.play(f"pass {state.hands[0][0]}")
    assert state.pieces == [0, 0, 0, 0, 2, 4, 0]
    assert state.phase is Phase.STEAL and state.current == 5
    assert set(state.legal_actions()) == {Steal(4), Steal(None)}
    state.play("steal @4")
    assert state.results[0].gold_pieces == (0, 0, 0, 0, 1, 5, 0)


def test_example_2_played_out():
    maze = [*CORRIDOR[:2], ((3, 0), (CRYSTAL_X, False)), ((4, 0), (CRYSTAL_BRIDGE, False)), *CORRIDOR[4:]]
    roles = [B, G, G, G, PROF, SAB, GEO]
    state = corridor_state(2, roles, maze=maze, thefts={5: 3})
    state.play(PlacePath(held(state, 2, "WE"), 7, 0))
    assert state.round_winners is Winners.GREEN_TEAM
    assert state.pieces == [0, 2, 2, 2, 0, 0, 2]  # the geologist sees two crystals
    assert set(state.legal_actions()) == {Steal(1), Steal(2), Steal(3), Steal(6), Steal(None)}
    state.play("steal none")
    assert Stolen(5, None) in state.events and state.pieces == [0, 2, 2, 2, 0, 0, 2]


# -- thieves -----------------------------------------------------------------------------------------

def test_thieves_steal_last_played_first_then_clockwise_and_from_earlier_rounds_gold():
    roles = [B, B, SAB, G, SAB]
    state = corridor_state(0, roles, thefts={2: 30, 3: 50, 4: 10}, pieces=[0, 0, 0, 0, 1])
    state.play(PlacePath(held(state, 0, "WE"), 7, 0))
    assert state.pieces == [4, 4, 0, 0, 1]
    order = []
    while state.phase is Phase.STEAL:
        order.append(state.current)
        state.play(state.legal_actions()[0])
    assert order == [3, 4, 2]


def test_thieves_with_nobody_to_rob_are_skipped():
    state = build2(3, hands={0: ["NS"]}, draw=[], roles=[B, G, GEO], thefts={0: 1, 1: 2}, rounds=1)
    state.play(f"pass {state.hands[0][0]}")
    assert state.is_terminal() and state.scores == (0, 0, 0)
    assert not any(isinstance(e, Stolen) for e in state.events)


def test_a_thief_who_is_the_only_one_with_gold_is_skipped():
    state = build2(3, hands={0: ["NS"]}, draw=[], roles=[SAB, G, B], thefts={0: 1}, rounds=1)
    state.play(f"pass {state.hands[0][0]}")
    assert state.is_terminal() and state.scores == (5, 0, 0)


def test_steal_is_refused_outside_the_end_of_a_round():
    state = build2(3, hands={0: ["NS"]}, thefts={0: 1}, pieces=[0, 3, 0])
    refused(state, Steal(1), "only at the end of a round")


# -- the end of the game ---------------------------------------------------------------------------

def test_scores_are_the_gold_pieces_at_the_end_of_the_game():
    state = corridor_state(0, [B, G, PROF], rounds=1, pieces=[0, 0, 0])
    state.play(PlacePath(held(state, 0, "WE"), 7, 0))
    assert state.is_terminal() and state.scores == (4, 0, 2) == tuple(state.pieces)
    refused(state, "pass 1", "game is over")


def test_three_rounds_add_up():
    state = Game(config2(4), seed=11).new_state()
    while not state.is_terminal():
        state.push(state.legal_actions()[-1])
    assert len(state.results) == 3
    assert state.scores == tuple(sum(r.gold_pieces[s] for r in state.results) for s in range(4))


# -- checked play ---------------------------------------------------------------------------------

def test_action_cards_are_checked_for_the_right_card():
    state = build2(3, hands={0: [TRAPPED, "NS", INSPECTION], 1: [FREE]}, trapped=[2])
    refused(state, PlayOn(ActionKind.FREE, 2, held(state, 0, TRAPPED)), "not a free card")
    refused(state, PlayOn(ActionKind.FREE, 2, held(state, 0, "NS")), "not a free card")
    refused(state, PlayOn(ActionKind.FREE, 2, state.hands[1][0]), "not in player 0's hand")
    refused(state, "free @2", "holds no free card")
    with pytest.raises(IllegalActionError, match="it is player 0's turn"):
        state.play(PlayOn(ActionKind.TRAPPED, 1, held(state, 0, TRAPPED)), player=1)
    with pytest.raises(InvalidActionError):
        state.play(PlayOn(ActionKind.INSPECTION, 7, held(state, 0, INSPECTION)))


def test_a_path_card_is_refused_when_the_player_has_a_broken_tool():
    state = build2(3, hands={0: ["NS", REPAIR[Tool.CART]]}, broken={0: [Tool.CART]})
    refused(state, PlacePath(held(state, 0, "NS"), 0, 1), "broken tool")
    assert not any(isinstance(a, PlacePath) for a in state.legal_actions())


@pytest.mark.parametrize("text, rule", [
    ("pass 1,2", "exactly one card"),
    ("trapped @1", "must play a card or pass now: 'trapped' plays a card on a player, in Saboteur 2"),
    ("clear trapped with 1,2", "must play a card or pass now: 'clear' discards two cards to clear one, in Saboteur 2"),
    ("steal @1", "must play a card or pass now: 'steal' steals a gold piece, at a round's end in Saboteur 2"),
    # a move of another moment of the base game, named in the words it is typed in
    ("orient 1 turned", "must play a card or pass now: 'orient' turns a goal stone, when a path has just reached it"),
    ("keep 1", "must play a card or pass now: 'keep' keeps a gold card, at a round's end"),
    ("take 3", "must play a card or pass now: 'take' takes gold, at a round's end"),
])
def test_the_base_game_refuses_the_new_actions(text, rule):
    state = Game(GameConfig(4), seed=2).new_state()
    hand = state.hands[state.current]
    text = text.replace("1,2", f"{hand[0]},{hand[1]}")
    with pytest.raises(IllegalActionError, match=rule):
        state.play(text)
