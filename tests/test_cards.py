"""The card catalogue (rules.md 1): tunnels, actions, gold, roles, hand sizes and the deal."""
from __future__ import annotations

from collections import Counter

import pytest
from conftest import segments_of

from saboteur_p2p.rules import Game, GameConfig, Role, Tool
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.cards import ActionKind, E, GoldCard, N, PathKind, S, W
from saboteur_p2p.rules.dealer import Deck


def _shape(card: C.PathCard) -> tuple[int, ...]:
    return tuple(sorted(card.segments))


def _shapes(*specs: str) -> Counter:
    return Counter(tuple(sorted(segments_of(s))) for s in specs)


def test_forty_tunnels_31_through_and_9_dead_ends():
    tunnels = C.expand(C.TUNNEL_COUNTS)
    assert len(tunnels) == 40
    assert all(t.kind is PathKind.TUNNEL for t in tunnels)
    through = [t for t in tunnels if not t.is_dead_end]
    dead = [t for t in tunnels if t.is_dead_end]
    assert len(through) == 31 and len(dead) == 9


def test_through_path_shapes_and_counts():
    through = Counter(_shape(t) for t in C.expand(C.TUNNEL_COUNTS) if not t.is_dead_end)
    expected = Counter()
    for spec, count in (("NESW", 5), ("NSE", 5), ("WEN", 5), ("WE", 3), ("NS", 4), ("NW", 4), ("NE", 5)):
        expected[tuple(sorted(segments_of(spec)))] = count
    assert through == expected
    # every through-path is one segment
    assert all(len(t.segments) == 1 for t in C.expand(C.TUNNEL_COUNTS) if not t.is_dead_end)


def test_dead_end_segments_one_of_each():
    dead = Counter(_shape(t) for t in C.expand(C.TUNNEL_COUNTS) if t.is_dead_end)
    assert dead == _shapes("W", "S", "N+S", "W+E", "N+W", "S+W", "N+S+W", "W+E+S", "N+E+S+W")
    assert all(count == 1 for count in dead.values())


def test_start_and_goal_cards():
    assert C.START.kind is PathKind.START and C.START.segments == (N | E | S | W,)
    assert C.TREASURE.kind is PathKind.TREASURE and C.TREASURE.segments == (N | E | S | W,)
    assert C.STONE_NW.kind is PathKind.STONE and C.STONE_NW.segments == (N | W,)
    assert C.STONE_NE.kind is PathKind.STONE and C.STONE_NE.segments == (N | E,)
    assert Counter(c.kind for c in C.goal_cards()) == {PathKind.TREASURE: 1, PathKind.STONE: 2}
    # reached from the west, one stone bends north and the other, turned, bends south
    assert C.STONE_NW.openings & W and C.STONE_NW.openings & N
    assert C.STONE_NE.turned_openings == S | W


def test_turning_swaps_opposite_edges():
    assert C.turn_mask(N) == S and C.turn_mask(E) == W and C.turn_mask(S) == N and C.turn_mask(W) == E
    for mask in range(16):
        assert C.turn_mask(C.turn_mask(mask)) == mask
        assert bin(C.turn_mask(mask)).count("1") == bin(mask).count("1")
    curve = C.PathCard(PathKind.TUNNEL, (N | W,))
    assert curve.turned_segments(True) == (S | E,)
    assert curve.turned_openings == S | E and not curve.symmetric
    assert C.PathCard(PathKind.TUNNEL, (N | S,)).symmetric


def test_twenty_seven_action_cards():
    actions = C.expand(C.ACTION_COUNTS)
    assert len(actions) == 27
    kinds = Counter((a.kind, a.tools) for a in actions)
    for tool in Tool:
        assert kinds[(ActionKind.BREAK, (tool,))] == 3
        assert kinds[(ActionKind.REPAIR, (tool,))] == 2
    two_tool = {frozenset(a.tools) for a in actions if a.kind is ActionKind.REPAIR and len(a.tools) == 2}
    assert two_tool == {
        frozenset((Tool.PICKAXE, Tool.LANTERN)),
        frozenset((Tool.PICKAXE, Tool.CART)),
        frozenset((Tool.LANTERN, Tool.CART)),
    }
    assert sum(1 for a in actions if a.kind is ActionKind.REPAIR) == 9
    assert kinds[(ActionKind.MAP, ())] == 6
    assert kinds[(ActionKind.ROCKFALL, ())] == 3


def test_twenty_eight_gold_cards_44_nuggets():
    gold = C.gold_cards()
    assert len(gold) == 28
    assert Counter(g.nuggets for g in gold) == {1: 16, 2: 8, 3: 4}
    assert sum(g.nuggets for g in gold) == 44


def test_stone_nuggets_replace_six_one_nugget_cards():
    gold = C.gold_cards(stone_nuggets=True)
    assert len(gold) == 28
    assert Counter(g.nuggets for g in gold) == {0: 6, 1: 10, 2: 8, 3: 4}


ROLE_ROWS = {  # players: (saboteurs, gold-diggers, hand size) from rules.md 1
    3: (1, 3, 6), 4: (1, 4, 6), 5: (2, 4, 6), 6: (2, 5, 5),
    7: (3, 5, 5), 8: (3, 6, 4), 9: (3, 7, 4), 10: (4, 7, 4),
}


@pytest.mark.parametrize("players", range(3, 11))
def test_roles_and_hand_sizes(players):
    saboteurs, diggers, size = ROLE_ROWS[players]
    roles = Counter(card.role for card in C.role_cards(players))
    assert roles == {Role.SABOTEUR: saboteurs, Role.GOLD_DIGGER: diggers}
    assert saboteurs + diggers == players + 1  # always one role card more than players
    assert C.hand_size(players) == size


@pytest.mark.parametrize("players", range(3, 11))
def test_new_round_deals_roles_hands_and_pile(players):
    state = Game(GameConfig(players=players), seed=players).new_state()
    size = ROLE_ROWS[players][2]
    assert [len(h) for h in state.hands] == [size] * players
    assert len(state.draw_pile) == 67 - players * size
    assert len(state.roles) == players and len(state.set_aside_roles) == 1
    dealt = Counter(state.dealer.decks[Deck.ROLES][h].role for h in state.roles + state.set_aside_roles)
    assert dealt == Counter(card.role for card in C.role_cards(players))
    deck = state.dealer.decks[Deck.DRAW]
    assert Counter(deck) == Counter(C.base_draw_cards())
    assert sorted(state.dealer.decks[Deck.GOALS], key=lambda c: c.code) == sorted(C.goal_cards(), key=lambda c: c.code)
    assert len(state.gold_pile) == 28


def test_every_face_has_a_code_that_reads_back():
    faces = set(C.expand(C.TUNNEL_COUNTS) + C.expand(C.ACTION_COUNTS) + C.gold_cards(True) + C.goal_cards())
    faces |= {C.START} | {C.RoleCard(r) for r in Role}
    codes = [f.code for f in faces]
    assert len(set(codes)) == len(faces)
    for f in faces:
        assert C.face_from_code(f.code) == f
    with pytest.raises(ValueError, match="nope"):
        C.face_from_code("nope")
    assert GoldCard(0).code == "gold:0"


def test_player_counts_outside_3_to_10_are_refused():
    for players in (2, 11):
        with pytest.raises(ValueError):
            GameConfig(players=players)
        with pytest.raises(ValueError):
            C.role_cards(players)
