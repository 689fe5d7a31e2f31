"""Action text forms, and the action cards of rules.md 3: broken tools, repairs, rockfalls, maps, passes."""
from __future__ import annotations

import pytest
from conftest import BREAK, MAP, REPAIR, REPAIR2, ROCKFALL, build, hand_card, place_text, snapshot

from saboteur_p2p.rules import (
    Action,
    BreakTool,
    IllegalActionError,
    InvalidActionError,
    KeepGold,
    MapPeek,
    OrientStone,
    Pass,
    PlacePath,
    RepairTool,
    Rockfall,
    TakeGold,
    Tool,
    parse_action,
)
from saboteur_p2p.rules.actions import MAX_ACTION_TEXT
from saboteur_p2p.rules.cards import STONE_NE, STONE_NW, TREASURE

P, L, K = Tool.PICKAXE, Tool.LANTERN, Tool.CART

# -- text form --------------------------------------------------------------------------

EXAMPLES = {
    "path 12 at 3,-1": PlacePath(12, 3, -1),
    "path 12 at 3,-1 turned": PlacePath(12, 3, -1, True),
    "break lantern @2": BreakTool(L, 2),
    "break lantern @2 #7": BreakTool(L, 2, 7),
    "repair pickaxe @0 #3": RepairTool(P, 0, 3),
    "repair cart @9": RepairTool(K, 9),
    "rockfall 4,1 #9": Rockfall(4, 1, 9),
    "rockfall -4,-1": Rockfall(-4, -1),
    "map 2 #5": MapPeek(2, 5),
    "map 0": MapPeek(0),
    "pass 4": Pass(4),
    "orient 1": OrientStone(1),
    "orient 1 turned": OrientStone(1, True),
    "keep 17": KeepGold(17),
    "take 3,5,9": TakeGold((3, 5, 9)),
    "take 3": TakeGold((3,)),
}


@pytest.mark.parametrize("text", sorted(EXAMPLES))
def test_text_forms_parse_and_round_trip(text):
    action = parse_action(text)
    assert action == EXAMPLES[text]
    assert str(action) == text
    assert Action.from_str(str(action)) == action
    assert action.to_data() == text


def test_spacing_and_case_are_forgiven():
    assert parse_action("  PATH 12   at 3 , -1  Turned ") == PlacePath(12, 3, -1, True)
    assert parse_action("take 3 , 5,9") == TakeGold((3, 5, 9))
    assert parse_action("Break\tCart @1") == BreakTool(K, 1)


MALFORMED = [
    "", "   ", "path", "path x at 1,2", "path 1 at 1", "path 1 at 1,2 sideways", "path -1 at 1,2",
    "break hammer @1", "break lantern 2", "break lantern @", "repair @1", "rockfall", "rockfall 1;2",
    "map", "map x", "pass", "pass 1 2", "orient", "orient 1 upside", "keep", "take", "take 1,,2",
    "fly 1", "path 1 at 1,2 #3",
    # other scripts' digits and letters that int() or lower() would take for ASCII ones
    "path \u0661\u0664 at \u0661,\u0660", "path \uff11\uff14 at 1,0", "brea\u212a cart @1 #3", "pass 4\u00a0",
    "path\x1c1\x1dat\x1e0,0", "pass 4\n", "pass\x7f4",
]


@pytest.mark.parametrize("text", MALFORMED)
def test_malformed_text_is_refused_quoting_it(text):
    with pytest.raises(InvalidActionError) as info:
        parse_action(text)
    assert repr(text) in str(info.value)
    assert isinstance(info.value, ValueError)


def test_non_text_and_overlong_text_are_refused():
    with pytest.raises(InvalidActionError, match="must be text"):
        parse_action(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidActionError, match="too long"):
        parse_action("take " + "1," * MAX_ACTION_TEXT + "1")


# -- broken tools -----------------------------------------------------------------------

def _actions_table(**kw):
    kw.setdefault("hands", {})
    for seat in range(kw.get("players", 3)):
        kw["hands"].setdefault(seat, ["NS"])
    return build(kw.pop("players", 3), **kw)


@pytest.mark.parametrize("target", [0, 1])
def test_break_a_tool_of_any_player_including_oneself(target):
    state = _actions_table(hands={0: [BREAK[L]]})
    card = hand_card(state, 0, BREAK[L])
    top = state.draw_pile[-1]
    played = state.play(f"break lantern @{target}")
    assert played == BreakTool(L, target, card)
    assert state.broken[target] == {L: card}
    assert card not in state.hands[0] and card not in state.discards
    assert state.hands[0] == [top]  # then drew the top card of the pile
    assert state.current == 1


def test_second_broken_tool_of_the_same_kind_is_refused():
    state = _actions_table(hands={0: [BREAK[L], BREAK[P]]}, broken={1: [L]})
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="already broken"):
        state.play("break lantern @1")
    assert snapshot(state) == before
    assert BreakTool(L, 1, hand_card(state, 0, BREAK[L])) not in state.legal_actions()
    state.play("break pickaxe @1")  # another kind is fine
    assert set(state.broken[1]) == {L, P}


def test_break_needs_a_break_card_for_that_tool():
    state = _actions_table(hands={0: [BREAK[L], REPAIR[P]]})
    with pytest.raises(IllegalActionError, match="holds no break card for the pickaxe"):
        state.play("break pickaxe @1")
    with pytest.raises(IllegalActionError, match="not a break card for the pickaxe"):
        state.play(f"break pickaxe @1 #{hand_card(state, 0, BREAK[L])}")
    with pytest.raises(IllegalActionError, match="not a break card"):
        state.play(f"break pickaxe @1 #{hand_card(state, 0, REPAIR[P])}")


# -- repairs ------------------------------------------------------------------------------

def test_repair_removes_the_matching_broken_tool_and_both_cards_go_to_the_discards():
    state = _actions_table(hands={0: [REPAIR[K]]}, broken={2: [K, L]})
    broken_card = state.broken[2][K]
    card = hand_card(state, 0, REPAIR[K])
    state.play("repair cart @2")
    assert state.broken[2] == {L: state.broken[2][L]} and K not in state.broken[2]
    assert state.discards[-2:] == [card, broken_card]


def test_repair_that_does_not_match_is_refused():
    state = _actions_table(hands={0: [REPAIR[K], REPAIR[P]]}, broken={1: [L]})
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="no broken cart to repair"):
        state.play("repair cart @1")
    with pytest.raises(IllegalActionError, match="holds no repair card for the lantern"):
        state.play("repair lantern @1")
    with pytest.raises(IllegalActionError, match="not a repair card for the lantern"):
        state.play(f"repair lantern @1 #{hand_card(state, 0, REPAIR[K])}")
    assert snapshot(state) == before
    assert not any(isinstance(a, RepairTool) for a in state.legal_actions())


def test_two_tool_repair_names_which_tool_it_repairs():
    both = REPAIR2[frozenset((P, L))]
    state = _actions_table(hands={0: [both]}, broken={1: [P, L, K]})
    card = hand_card(state, 0, both)
    legal = [a for a in state.legal_actions() if isinstance(a, RepairTool)]
    assert sorted(legal, key=str) == [RepairTool(L, 1, card), RepairTool(P, 1, card)]
    with pytest.raises(IllegalActionError, match="not a repair card for the cart"):
        state.play(f"repair cart @1 #{card}")
    state.play(f"repair lantern @1 #{card}")
    assert set(state.broken[1]) == {P, K}


def test_repair_without_a_handle_prefers_a_single_tool_card():
    both = REPAIR2[frozenset((P, L))]
    state = _actions_table(hands={0: [both, REPAIR[L]]}, broken={1: [L]})
    single, double = hand_card(state, 0, REPAIR[L]), hand_card(state, 0, both)
    assert double < single  # not merely the lowest handle
    played = state.play("repair lantern @1")
    assert played == RepairTool(L, 1, single)
    assert double in state.hands[0]


def test_targets_must_be_seats_at_the_table():
    state = _actions_table(hands={0: [BREAK[L], REPAIR[L]]})
    before = snapshot(state)
    for text in ("break lantern @3", "break lantern @99", "repair lantern @7"):
        with pytest.raises(InvalidActionError) as info:
            state.play(text)
        assert repr(text) in str(info.value)
    assert snapshot(state) == before


# -- rockfall -----------------------------------------------------------------------------

CORRIDOR = {(1, 0): "WE", (2, 0): "WE", (3, 0): "WE"}


def test_rockfall_cuts_the_network_and_later_placements_become_illegal():
    state = _actions_table(maze=CORRIDOR, hands={0: [ROCKFALL], 1: ["WE", "WE"]})
    tunnel = state.placed[(2, 0)]
    card = hand_card(state, 0, ROCKFALL)
    assert state.board.can_place((4, 0), state.faces[tunnel].openings)
    assert PlacePath(state.hands[1][0], 4, 0) in list(legal_for(state, 1))
    played = state.play("rockfall 2,0")
    assert played == Rockfall(2, 0, card)
    assert (2, 0) not in state.board.tiles and (2, 0) not in state.placed
    assert state.discards[-2:] == [card, tunnel]
    assert (3, 0) in state.board.tiles and (3, 0) not in state.board.connected
    assert state.current == 1
    with pytest.raises(IllegalActionError, match="would not join"):
        state.play(place_text(state, 1, "WE", (4, 0)))
    assert not any(isinstance(a, PlacePath) and a.cell == (4, 0) for a in state.legal_actions())
    state.play(place_text(state, 1, "WE", (2, 0)))  # the hole may be refilled
    assert (3, 0) in state.board.connected


def legal_for(state, seat):
    clone = state.clone()
    clone.current = seat
    clone._legal = None
    return clone.legal_actions()


def test_rockfall_never_removes_start_or_goal_cards():
    state = _actions_table(maze=CORRIDOR, hands={0: [ROCKFALL]})
    before = snapshot(state)
    for cell in ((0, 0), (8, 0), (8, -2), (8, 2), (5, 5)):
        with pytest.raises(IllegalActionError, match="no tunnel card"):
            state.play(f"rockfall {cell[0]},{cell[1]}")
    assert snapshot(state) == before
    rockfalls = {a.cell for a in state.legal_actions() if isinstance(a, Rockfall)}
    assert rockfalls == set(CORRIDOR)


def test_rockfall_never_removes_a_face_up_stone():
    maze = {(x, 0): "WE" for x in range(1, 7)}
    state = build(3, maze=maze, goals=(STONE_NE, STONE_NW, TREASURE),
                  hands={0: ["WE", ROCKFALL], 1: ["NS", ROCKFALL], 2: ["NS"]})
    state.play(place_text(state, 0, "WE", (7, 0)))  # reveals the stone {N,W} in the middle slot
    assert state.board.tiles[(8, 0)].card == STONE_NW
    with pytest.raises(IllegalActionError, match="no tunnel card"):
        state.play("rockfall 8,0")
    assert (8, 0) not in {a.cell for a in state.legal_actions() if isinstance(a, Rockfall)}


def test_rockfall_needs_a_rockfall_card():
    state = _actions_table(maze=CORRIDOR, hands={0: [MAP]})
    with pytest.raises(IllegalActionError, match="holds no rockfall card"):
        state.play("rockfall 1,0")
    with pytest.raises(IllegalActionError, match="not a rockfall card"):
        state.play(f"rockfall 1,0 #{hand_card(state, 0, MAP)}")


# -- map -------------------------------------------------------------------------------------

def test_map_shows_one_face_down_goal_to_the_mapper_only():
    state = _actions_table(hands={0: [MAP]}, goals=(STONE_NW, TREASURE, STONE_NE))
    card = hand_card(state, 0, MAP)
    assert {a.goal for a in state.legal_actions() if isinstance(a, MapPeek)} == {0, 1, 2}
    state.play("map 1")
    assert state.view_for(0).known_goals == {1: TREASURE}
    assert state.view_for(1).known_goals == {} and state.view_for(2).known_goals == {}
    assert state.discards[-1] == card
    assert state.board.tiles[(8, 0)].face_down  # still face down for everyone


def test_map_only_on_face_down_goals():
    maze = {(x, 0): "WE" for x in range(1, 7)}
    state = build(3, maze=maze, goals=(STONE_NE, STONE_NW, TREASURE),
                  hands={0: ["WE", MAP], 1: [MAP, "NS"], 2: ["NS"]})
    state.play(place_text(state, 0, "WE", (7, 0)))
    assert not state.board.tiles[(8, 0)].face_down
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="already face up"):
        state.play("map 1")
    with pytest.raises(InvalidActionError, match="goal slot must be 0, 1 or 2"):
        state.play("map 3")
    assert snapshot(state) == before
    assert {a.goal for a in state.legal_actions() if isinstance(a, MapPeek)} == {0, 2}


# -- pass ------------------------------------------------------------------------------------

def test_pass_discards_one_card_face_down():
    state = _actions_table(hands={0: [MAP, "NS"]})
    card = hand_card(state, 0, MAP)
    state.play(f"pass {card}")
    assert state.hidden_discards == [card] and state.discards == []
    assert card not in state.hands[0]
    event = state.events[-1]
    assert event.card is None and event.to_data()["card"] is None


def test_pass_needs_a_card_from_ones_own_hand():
    state = _actions_table(hands={0: [MAP]})
    other = state.hands[1][0]
    before = snapshot(state)
    for text in (f"pass {other}", "pass 999"):
        with pytest.raises(IllegalActionError, match="not in player 0's hand") as info:
            state.play(text)
        assert repr(text) in str(info.value)
    assert snapshot(state) == before


def test_every_played_action_card_is_shown_to_all():
    state = _actions_table(hands={0: [BREAK[P]]})
    state.play("break pickaxe @2")
    event = state.events[-1]
    assert event.player == 0 and event.card == BREAK[P] and event.action == BreakTool(P, 2, event.action.card)
