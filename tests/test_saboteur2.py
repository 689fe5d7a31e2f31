"""Saboteur 2 (RULES.md 8) through the real State: set-up, the new path cards, the seven new
action cards, the four kinds of turn, the end of a round, thieves and gold pieces.

Scenarios come from conftest's ``build2``: the trusted dealer's decks are rebuilt so every
handle names the face the dealer reveals, and the maze is laid card by card.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest
from conftest import BREAK, MAP, REPAIR, ROCKFALL, build2, path
from conftest import hand_card as held

from saboteur_p2p.rules import (
    GOAL_CELLS,
    Board,
    CardPlayed,
    Clear,
    Game,
    GameConfig,
    GoalRevealed,
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
    Ways,
    Winners,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.cards import ActionCard, ActionKind, Door, PathCard, PathKind, Role
from saboteur_p2p.rules.dealer import Deck
from saboteur_p2p.rules.saboteur2 import Saboteur2State
from saboteur_p2p.rules.serialize import state_to_data
from saboteur_p2p.rules.state import Phase

B, G, BOSS, PROF, GEO, SAB = (
    Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.PROFITEER, Role.GEOLOGIST, Role.SABOTEUR,
)
Cell = tuple[int, int]


def expansion(spec: str, *, ladder: bool = False, door: Door | None = None, crystals: int = 0) -> PathCard:
    """The catalogue's expansion path card with these upright segments and marks."""
    wanted = PathCard(PathKind.TUNNEL, tuple(C.mask_from_letters(s) for s in spec.split("+")), ladder, door, crystals)
    for card, _ in C.EXPANSION_PATH_COUNTS:
        if card == wanted:
            return card
    raise ValueError(f"no expansion card {wanted}")


LADDER_S = expansion("S", ladder=True)
LADDER_ES = expansion("ES", ladder=True)
LADDER_NS = expansion("NS", ladder=True)
BLUE_EW = expansion("EW", door=Door.BLUE)
BLUE_NS = expansion("NS", door=Door.BLUE)
GREEN_EW = expansion("EW", door=Door.GREEN)
GREEN_NS = expansion("NS", door=Door.GREEN)
GREEN_EW_S = expansion("EW+S", door=Door.GREEN)
BRIDGE = expansion("NS+EW")
CURVES = expansion("NW+ES")
CRYSTAL_EW_S = expansion("EW+S", crystals=1)
CRYSTAL_X = expansion("NESW", crystals=1)
CRYSTAL_BRIDGE = expansion("NS+EW", crystals=1)
CRYSTAL_N = expansion("N", crystals=1)

THEFT, HANDS_OFF, SWAP_HAND, INSPECTION, SWAP_HATS, TRAPPED, FREE = (
    ActionCard(kind) for kind in (
        ActionKind.THEFT, ActionKind.HANDS_OFF, ActionKind.SWAP_HAND, ActionKind.INSPECTION,
        ActionKind.SWAP_HATS, ActionKind.TRAPPED, ActionKind.FREE,
    )
)

#: a tunnel from the start to the cell west of the middle goal, which (7, 0) then reaches
CORRIDOR = [((x, 0), "WE") for x in range(1, 7)]
MIDDLE_TREASURE = (C.STONE_NE, C.TREASURE, C.STONE_NW)


def config2(players: int, rounds: int = 3) -> GameConfig:
    return GameConfig(players, "saboteur2", rounds=rounds)


def fingerprint(state: Saboteur2State) -> Any:
    return (
        state_to_data(state),
        [state.view_for(seat).to_data() for seat in range(state.players)],
        sorted(map(str, state.legal_actions())),
        dict(state.board.frontier), dict(state.board.connected),
    )


def refused(state: Saboteur2State, action: Any, rule: str) -> IllegalActionError:
    """Checked play refuses ``action`` naming ``rule``, and leaves the state as it was."""
    before = fingerprint(state)
    with pytest.raises(IllegalActionError, match=rule) as caught:
        state.play(action)
    assert str(action) in str(caught.value)
    assert fingerprint(state) == before
    return caught.value


def corridor_state(finder: int, roles: Sequence[Role], *, last: Any = ("WE"), maze=CORRIDOR, **kwargs: Any) -> Saboteur2State:
    """A state where ``finder`` holds the card that reaches the middle goal (the treasure)."""
    hands = {seat: ["NS", MAP] for seat in range(len(roles))}
    hands[finder] = [last, MAP]
    return build2(len(roles), maze=maze, goals=MIDDLE_TREASURE, hands=hands, roles=roles, current=finder, **kwargs)


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
    assert sorted(state.hands[0]) == sorted(theirs)  # ...and the player of the card none (RULES.md 8)
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
    ("trapped @1", "must play a card now"),
    ("clear trapped with 1,2", "must play a card now"),
    ("steal @1", "must play a card now"),
])
def test_the_base_game_refuses_the_new_actions(text, rule):
    state = Game(GameConfig(4), seed=2).new_state()
    hand = state.hands[state.current]
    text = text.replace("1,2", f"{hand[0]},{hand[1]}")
    with pytest.raises(IllegalActionError, match=rule):
        state.play(text)
