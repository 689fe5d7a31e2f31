"""Saboteur 2 (rules.md 8) through the real State: set-up and the new path cards (ladders,
bridges and double curves, doors, crystals).

Scenarios come from conftest's ``build2``: the trusted dealer's decks are rebuilt so every
handle names the face the dealer reveals, and the maze is laid card by card.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from conftest import (
    BLUE_EW,
    BOSS,
    BRIDGE,
    CORRIDOR,
    CRYSTAL_BRIDGE,
    CRYSTAL_EW_S,
    CRYSTAL_N,
    CRYSTAL_X,
    CURVES,
    GEO,
    GREEN_EW,
    GREEN_EW_S,
    LADDER_ES,
    LADDER_NS,
    LADDER_S,
    MAP,
    PROF,
    ROCKFALL,
    SAB,
    B,
    Cell,
    G,
    build2,
    config2,
    corridor_state,
    path,
    refused,
)
from conftest import hand_card as held

from saboteur_p2p.rules import (
    GOAL_CELLS,
    Board,
    Game,
    GameConfig,
    GoalRevealed,
    PlacePath,
    Ways,
    Winners,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.cards import ActionKind, Door, PathCard
from saboteur_p2p.rules.dealer import Deck
from saboteur_p2p.rules.saboteur2 import Saboteur2State

# -- set-up ------------------------------------------------------------------------------------

@pytest.mark.parametrize("players", range(2, 13))
def test_set_up_of_a_round(players):
    state = Game(config2(players), seed=players).new_state()
    assert isinstance(state, Saboteur2State)
    deck = state.dealer.decks[Deck.DRAW]
    assert len(deck) == 117
    assert Counter(c.code for c in deck) == Counter(c.code for c in C.saboteur2_draw_cards())
    assert len(state.set_aside_cards) == 10
    assert all(len(hand) == 6 for hand in state.hands)
    assert len(state.draw_pile) == 117 - 10 - 6 * players
    every = state.set_aside_cards + state.draw_pile + [h for hand in state.hands for h in hand]
    assert sorted(every) == list(range(117))
    assert not set(state.set_aside_cards) & set(state.faces)  # put aside unseen, never revealed
    dwarfs = state.dealer.decks[Deck.ROLES]
    assert Counter(card.role for card in dwarfs) == {B: 4, G: 4, BOSS: 1, PROF: 1, GEO: 2, SAB: 3}
    assert len(state.roles) == players and len(state.set_aside_roles) == 15 - players
    assert sorted(state.roles + state.set_aside_roles) == list(range(15))
    for seat in range(players):
        view = state.view_for(seat)
        assert view.role is dwarfs[state.roles[seat]].role
        assert [h for h, _ in view.hand] == state.hands[seat]
        assert view.hand_sizes == (6,) * players and view.draw_pile_size == len(state.draw_pile)
        assert dict(view.known_roles) == {}
        assert view.trapped == view.thefts == view.has_gold == (False,) * players
        assert view.gold_pieces == 0
    assert state.pieces == [0] * players and state.round == 1


def test_twelve_players_leave_three_dwarf_cards_and_thirty_five_to_draw():
    state = Game(config2(12), seed=3).new_state()
    assert len(state.set_aside_roles) == 3 and len(state.draw_pile) == 35


@pytest.mark.parametrize("players", [0, 1, 13])
def test_saboteur2_is_for_two_to_twelve_players(players):
    with pytest.raises(ValueError, match="2 to 12"):
        config2(players)


def test_base_variants_about_roles_and_gold_do_not_apply():
    with pytest.raises(ValueError, match="do not apply"):
        GameConfig(5, "saboteur2", frozenset({"selfish-dwarf"}))
    assert GameConfig(5, "saboteur2", frozenset({"left-of-first-starter"})).has("left-of-first-starter")


def test_expansion_cards_by_class():
    cards = C.expand(C.EXPANSION_PATH_COUNTS)
    assert len(cards) == 30 and len(C.expand(C.EXPANSION_ACTION_COUNTS)) == 20
    classes = Counter((len(c.segments), bin(c.openings).count("1")) for c in cards)
    assert classes == {(1, 1): 4, (1, 2): 7, (1, 3): 4, (1, 4): 1, (2, 3): 6, (2, 4): 6, (3, 4): 2}
    assert sum(c.ladder for c in cards) == 4 and sum(c.crystals for c in cards) == 10
    assert Counter(c.door for c in cards if c.door) == {Door.BLUE: 3, Door.GREEN: 3}
    assert GREEN_EW_S.door_segment == 0 and GREEN_EW_S.segments[0] == C.E | C.W
    assert Counter(c.kind for c in C.expand(C.EXPANSION_ACTION_COUNTS)) == {
        ActionKind.THEFT: 4, ActionKind.HANDS_OFF: 3, ActionKind.SWAP_HAND: 2, ActionKind.INSPECTION: 2,
        ActionKind.SWAP_HATS: 2, ActionKind.TRAPPED: 3, ActionKind.FREE: 4,
    }


# -- ladders ---------------------------------------------------------------------------------

def test_a_ladder_joins_the_start_network_wherever_it_touches_a_card():
    maze = [((x, 0), "WE") for x in range(1, 5)]
    state = build2(3, maze=maze, hands={0: [LADDER_S, "NS"], 1: ["NS"]})
    ladder = held(state, 0, LADDER_S)
    move = PlacePath(ladder, 2, 1)  # south of a W-E tunnel: no opening meets it, wall meets wall
    assert move in state.legal_actions()
    state.play(move)
    assert state.board.connected[(2, 1)] == C.S
    # a tunnel attached to the ladder is legal: it joins the start's network through the ladder
    move = PlacePath(held(state, 1, "NS"), 2, 2)
    assert move in state.legal_actions()
    state.play(move)
    assert state.board.connected[(2, 2)] == C.N | C.S
    assert (2, 3) in state.board.open_ends()


def test_a_ladder_must_touch_a_card():
    state = build2(3, hands={0: [LADDER_S]})
    ladder = held(state, 0, LADDER_S)
    refused(state, PlacePath(ladder, 3, 3), "touches no card")
    assert all(abs(a.x) + abs(a.y) == 1 for a in state.legal_actions() if isinstance(a, PlacePath))


def test_a_ladders_edges_must_fit_its_neighbours():
    state = build2(3, maze=[((1, 0), "WE")], hands={0: [LADDER_S]})
    ladder = held(state, 0, LADDER_S)
    refused(state, PlacePath(ladder, 1, -1), "does not fit")  # its S opening meets the W-E card's wall
    refused(state, PlacePath(ladder, 2, 0, turned=True), "does not fit")  # {N} beside an E opening
    for action in state.legal_actions():
        if isinstance(action, PlacePath) and action.card == ladder:
            openings = LADDER_S.turned_openings if action.turned else LADDER_S.openings
            assert state.board.fits(action.cell, openings)


# A network that comes within reach of the north goal: (6,-2) opens east onto (7,-2),
# which is next to the goal at (8,-2).
NEAR_NORTH_GOAL = [((x, 0), "WE") for x in range(1, 6)] + [((6, 0), "NW"), ((6, -1), "NS"), ((6, -2), "ES")]


def test_a_ladder_may_not_lie_next_to_a_goal():
    state = build2(3, maze=NEAR_NORTH_GOAL, hands={0: [LADDER_ES, "NW"]})
    ladder = held(state, 0, LADDER_ES)
    # turned, the ladder is {N,W}: it fits the card at (6,-2) but lies next to the north goal
    assert state.board.fits((7, -2), LADDER_ES.turned_openings)
    refused(state, PlacePath(ladder, 7, -2, turned=True), "next to a goal")
    refused(state, PlacePath(ladder, 8, -1), "next to a goal")  # touching only goal cards
    for action in state.legal_actions():
        if isinstance(action, PlacePath) and action.card == ladder:
            assert all(abs(action.x - gx) + abs(action.y - gy) != 1 for gx, gy in GOAL_CELLS)
    # an ordinary tunnel may go there
    state.play(PlacePath(held(state, 0, "NW"), 7, -2))


def test_ladders_are_joined_to_each_other_and_a_goal_reached_through_them_is_revealed():
    # a ladder south of the corridor, then tunnels from it east to the south goal's door
    maze = [((x, 0), "WE") for x in range(1, 5)]
    maze += [((3, 1), (LADDER_S, False)), ((3, 2), "NE")] + [((x, 2), "WE") for x in range(4, 7)]
    state = build2(4, maze=maze, hands={1: ["WE", MAP], 2: [LADDER_NS, MAP]}, current=1,
                   goals=(C.STONE_NW, C.STONE_NE, C.TREASURE), roles=[B, G, SAB, BOSS])
    assert state.board.connected[(6, 2)] == C.E | C.W
    # (7,2) is not reached from the start card without the ladder
    without = state.board.clone()
    without.tiles.pop((3, 1))
    without.rebuild()
    assert (6, 2) not in without.connected
    state.play(PlacePath(held(state, 1, "WE"), 7, 2))
    assert GoalRevealed(2, C.TREASURE, False, 1) in state.events
    assert state.results[0].winners is Winners.GREEN_TEAM  # a green digger found it, no doors
    assert state.results[0].gold_pieces == (0, 4, 0, 3)  # N = 2: the green digger and the boss


def test_a_second_ladder_is_connected_with_no_path_between_them():
    maze = [((1, 0), "WE"), ((2, 0), "WE")]
    state = build2(3, maze=maze, hands={0: [LADDER_S, LADDER_NS]})
    state.play(PlacePath(held(state, 0, LADDER_S), 1, 1))
    assert state.current == 0  # the others hold nothing
    # a second ladder touching nothing is refused; under the first one it fits and is joined
    refused(state, PlacePath(held(state, 0, LADDER_NS), 4, 4), "touches no card")
    state.play(PlacePath(held(state, 0, LADDER_NS), 1, 2))
    assert state.board.connected[(1, 2)] == C.N | C.S


# -- bridges and double curves -----------------------------------------------------------------

def test_a_bridge_needs_only_one_segment_joined_and_the_other_stays_unconnected():
    state = build2(3, maze=[((1, 0), "WE")], hands={0: [BRIDGE], 1: ["NS", "WE"]})
    move = PlacePath(held(state, 0, BRIDGE), 2, 0)
    assert move in state.legal_actions()
    state.play(move)
    assert state.board.connected[(2, 0)] == C.E | C.W  # only the W-E tunnel
    refused(state, PlacePath(held(state, 1, "NS"), 2, -1), "would not join")
    refused(state, PlacePath(held(state, 1, "NS"), 2, 1), "would not join")
    state.play(PlacePath(held(state, 1, "WE"), 3, 0))


def test_a_double_curve_turns_the_joined_tunnel_and_leaves_the_other_unconnected():
    state = build2(3, maze=[((1, 0), "WE")], hands={0: [CURVES], 1: ["NS", "WE"]})
    state.play(PlacePath(held(state, 0, CURVES), 2, 0))  # {N,W}+{E,S}: the west end joins
    assert state.board.connected[(2, 0)] == C.N | C.W
    refused(state, PlacePath(held(state, 1, "WE"), 3, 0), "would not join")
    refused(state, PlacePath(held(state, 1, "NS"), 2, 1), "would not join")
    state.play(PlacePath(held(state, 1, "NS"), 2, -1))


def test_a_bridge_may_be_placed_with_only_its_other_segment_joined():
    state = build2(3, maze=[((0, 1), "NS")], hands={0: [BRIDGE]})
    move = PlacePath(held(state, 0, BRIDGE), 0, 2)
    assert move in state.legal_actions()
    state.play(move)
    assert state.board.connected[(0, 2)] == C.N | C.S


# -- doors -----------------------------------------------------------------------------------

def board_of(cards: Sequence[tuple[Cell, Any]]) -> Board:
    board = Board.new_round()
    for cell, spec in cards:
        card, turned = path(spec) if isinstance(spec, str) else spec
        assert board.fits(cell, card.turned_openings if turned else card.openings)
        board.place(cell, card, turned)
    return board


def line(*cards: Any) -> list[tuple[Cell, Any]]:
    """Cards along y=0 from x=1 east: a string is a base tunnel, a card lies upright."""
    return [((x, 0), c if isinstance(c, str) else (c, False)) for x, c in enumerate(cards, start=1)]


@pytest.mark.parametrize("cards, ways", [
    (line("WE", "WE", "WE"), Ways(True, True, True)),
    (line("WE", BLUE_EW, "WE"), Ways(True, False, False)),
    (line(GREEN_EW, "WE", "WE"), Ways(False, True, False)),
    (line("WE", BLUE_EW, GREEN_EW), Ways(False, False, False)),
    (line(GREEN_EW_S, "WE", "WE"), Ways(False, True, False)),  # the door sits on the W-E tunnel
], ids=["no-door", "blue-door", "green-door", "both-doors", "green-door-with-dead-end"])
def test_open_ways_along_one_route(cards, ways):
    assert board_of(cards).open_ways((3, 0)) == ways


# Two routes from the start to (4,0): north round (0,-1)..(4,-1), and east along y=0.
def two_routes(north_door: PathCard | None, east_door: PathCard | None) -> Board:
    north_straight = (north_door, False) if north_door else "WE"
    east_straight = (east_door, False) if east_door else "WE"
    return board_of([
        ((1, 0), "WE"), ((2, 0), east_straight), ((3, 0), "WE"),
        ((0, -1), "ES"), ((1, -1), "WE"), ((2, -1), north_straight), ((3, -1), "WE"), ((4, -1), "SW"),
        ((4, 0), (C.TUNNEL_COUNTS[1][0], True)),  # {N,S,W}: from the north and the west
    ])


def test_open_ways_with_two_routes():
    assert C.TUNNEL_COUNTS[1][0].segments == (C.N | C.E | C.S,)
    assert two_routes(BLUE_EW, GREEN_EW).open_ways((4, 0)) == Ways(True, True, False)
    assert two_routes(BLUE_EW, None).open_ways((4, 0)) == Ways(True, True, True)  # round the door
    assert two_routes(None, GREEN_EW).open_ways((4, 0)) == Ways(True, True, True)
    assert two_routes(BLUE_EW, BLUE_EW).open_ways((4, 0)) == Ways(True, False, False)
    assert two_routes(None, None).open_ways((4, 0)) == Ways(True, True, True)


def test_a_ladder_opens_a_way_round_a_door():
    cards = line("WE", BLUE_EW, "ESW", "WE")
    assert board_of(cards).open_ways((4, 0)) == Ways(True, False, False)
    # a ladder under (3,0) is a source of its own: from it the way to (4,0) has no door
    assert board_of([*cards, ((3, 1), (LADDER_NS, False))]).open_ways((4, 0)) == Ways(True, True, True)


def test_doors_never_affect_placement():
    state = build2(3, maze=[((1, 0), "WE")], hands={0: [BLUE_EW], 1: [GREEN_EW], 2: ["WE"]},
                   roles=[G, B, SAB])
    state.play(PlacePath(held(state, 0, BLUE_EW), 2, 0))  # a green digger lays a blue door
    state.play(PlacePath(held(state, 1, GREEN_EW), 3, 0))
    move = PlacePath(held(state, 2, "WE"), 4, 0)
    assert move in state.legal_actions()
    state.play(move)
    assert state.board.connected[(4, 0)] == C.E | C.W


def test_a_door_does_not_stop_the_goal_from_being_reached():
    maze = [*CORRIDOR[:2], ((3, 0), (BLUE_EW, False)), ((4, 0), (GREEN_EW, False)), *CORRIDOR[4:]]
    state = corridor_state(0, [B, G, BOSS, PROF, GEO], maze=maze, rounds=1)
    state.play(PlacePath(held(state, 0, "WE"), 7, 0))
    result = state.results[0]
    # both colours on the only route: no team wins; boss and profiteer are both in play
    assert result.winners is Winners.NOBODY and result.gold_pieces == (0,) * 5


# -- crystals ------------------------------------------------------------------------------------

def test_crystals_are_counted_on_face_up_maze_cards_only():
    maze = [((1, 0), (CRYSTAL_X, False)), ((2, 0), (CRYSTAL_BRIDGE, False)), ((3, 0), "WE")]
    state = build2(3, maze=maze, hands={0: [ROCKFALL, CRYSTAL_X], 1: [CRYSTAL_N]}, draw=[CRYSTAL_EW_S])
    assert state.board.crystals() == 2
    state.play(f"rockfall 1,0 #{held(state, 0, ROCKFALL)}")
    assert state.board.crystals() == 1  # the removed card's crystal is gone; those in hands never count


def test_the_geologist_gets_the_crystals_in_the_maze_at_the_end():
    maze = [((1, 0), (CRYSTAL_X, False)), ((2, 0), (CRYSTAL_BRIDGE, False)), ((3, 0), (CRYSTAL_EW_S, False))]
    state = build2(3, maze=maze, hands={2: [CRYSTAL_N]}, draw=[], roles=[GEO, B, SAB], current=2, rounds=1)
    state.play(f"pass {state.hands[2][0]}")
    assert state.is_terminal()
    assert state.results[0].winners is Winners.SABOTEURS
    assert state.scores == (3, 0, 5)
