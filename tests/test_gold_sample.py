"""determinize's gold (base game): the cards drawn for the other seats fit what the table saw
of every hand-out, a saboteur's take above all."""
from __future__ import annotations

import random
from collections import Counter

from conftest import random_game

from saboteur_p2p.rules import GameConfig, GoldCard, determinize
from saboteur_p2p.rules.cards import gold_cards
from saboteur_p2p.rules.gold_sample import hand_outs, sample_gold


def _gold(*values: int) -> list[GoldCard]:
    return [GoldCard(v) for v in values]


def test_a_lone_saboteur_s_two_cards_are_worth_four() -> None:
    cards = [c for c in gold_cards() if isinstance(c, GoldCard)]
    seen = Counter()
    for k in range(200):
        others, pile = sample_gold(cards, [], 0, 4, [(2, 2, 4)], random.Random(k))
        assert sum(c.nuggets for c in others[2]) == 4
        assert len(others[2]) == 2 and len(pile) == len(cards) - 2
        seen[tuple(sorted(c.nuggets for c in others[2]))] += 1
    assert set(seen) == {(1, 3), (2, 2)}


def test_a_take_from_a_pile_too_poor_for_the_share_is_all_it_could_make() -> None:
    others, pile = sample_gold(_gold(1, 1, 1, 0), [], 0, 3, [(1, 3, 4)], random.Random(1))
    assert [c.nuggets for c in others[1]] == [1, 1, 1] and [c.nuggets for c in pile] == [0]


def test_the_seat_s_later_cards_were_in_the_pile_a_take_was_made_from() -> None:
    """The seat's own 3 was still in the pile when a saboteur took three nuggets, so the
    saboteur's take (one card) cannot be the 2 alone: it is the other 3."""
    cards = _gold(3, 3, 2)
    for k in range(20):
        others, pile = sample_gold(cards, _gold(3), 0, 3, [(1, 1, 3), (0, 1, None)], random.Random(k))
        assert [c.nuggets for c in others[1]] == [3] and [c.nuggets for c in pile] == [2]


def test_a_history_no_replay_fits_keeps_the_counts() -> None:
    others, pile = sample_gold(_gold(1, 1), [], 0, 3, [(1, 1, 4)], random.Random(1))
    assert len(others[1]) == 1 and len(pile) == 1


def test_samples_of_real_games_give_every_taker_what_the_take_was_worth() -> None:
    """In random games, each player whose gold all came from takes the pile could pay in
    full holds, in every sample, gold worth exactly what they were owed."""
    checked = 0
    for seed in range(60):
        rng = random.Random(seed)
        variants = [frozenset({"tournament-roles"}), frozenset({"selfish-dwarf"}), frozenset()][seed % 3]
        config = GameConfig(rng.choice([5, 6, 7]), "base", variants)
        state, _ = random_game(config, seed, steps=rng.randrange(150, 400))
        if state.phase.value not in ("play", "orient") or state.round == 1:
            continue
        seat = state.current
        view = state.view_for(seat)
        outs = hand_outs(view.history, config)
        for player in range(config.players):
            mine = [(count, amount) for p, count, amount in outs if p == player]
            real = sum(state.gold_faces[g].nuggets for g in state.gold_of[player])
            if player == seat or not mine or any(a is None for _, a in mine) or real != sum(a for _, a in mine):
                continue
            for k in range(10):
                world = determinize(view, random.Random(k))
                assert sum(world.gold_faces[g].nuggets for g in world.gold_of[player]) == real
            checked += 1
    assert checked >= 10


def test_the_seat_s_own_short_take_rules_out_piles_that_could_have_paid_it_more() -> None:
    """The seat was owed 3 and took a single 2: it saw the pile could not make 3, so the pile
    was 2 and 2, and the card player 1 kept before is the 1."""
    for k in range(50):
        others, pile = sample_gold(_gold(1, 2, 2), _gold(2), 0, 2, [(1, 1, None), (0, 1, 3)], random.Random(k))
        assert [c.nuggets for c in others[1]] == [1] and [c.nuggets for c in pile] == [2]
