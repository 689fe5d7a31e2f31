"""Saboteur 2 random play over 2-12 players, checking invariants at every step: cards conserved,
views leak nothing, clone and serialisation round-trip, replay exact, legal actions pass the
checked entry point and their text round-trips."""
from __future__ import annotations

import dataclasses
import json
import random
from typing import Any

import pytest
from conftest import permute_faces, permute_unseen_goals
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saboteur_p2p.rules import (
    GOAL_CELLS,
    Action,
    ActionCard,
    ActionKind,
    Clear,
    Game,
    GameConfig,
    IllegalActionError,
    InvalidActionError,
    Pass,
    PathCard,
    PlacePath,
    PlayOn,
    Steal,
)
from saboteur_p2p.rules.actions import CLEARABLE, TARGETED_KINDS
from saboteur_p2p.rules.board import neighbours
from saboteur_p2p.rules.dealer import Deck
from saboteur_p2p.rules.saboteur2 import Saboteur2State
from saboteur_p2p.rules.serialize import state_from_data, state_to_data
from saboteur_p2p.rules.state import Phase

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])

games = st.tuples(st.integers(2, 12), st.integers(0, 2**32 - 1))


def new_game(players: int, seed: int, rounds: int = 3) -> Saboteur2State:
    state = Game(GameConfig(players, "saboteur2", rounds=rounds), seed=seed).new_state()
    assert isinstance(state, Saboteur2State)
    return state


def choose(state: Saboteur2State, rng: random.Random) -> Any:
    """A random legal action, biased towards playing cards and digging east so that rounds
    also end at the treasure and every card gets played."""
    legal = state.legal_actions()
    if state.phase is Phase.PLAY and rng.random() < 0.8:
        paths = [a for a in legal if isinstance(a, PlacePath)]
        others = [a for a in legal if not isinstance(a, (PlacePath, Pass, Clear))]
        if paths and rng.random() < 0.6:
            east = max(a.x for a in paths)
            return rng.choice([a for a in paths if a.x >= east - 1])
        if others:
            return rng.choice(others)
    return rng.choice(legal)


def play_on(state: Saboteur2State, rng: random.Random, steps: int) -> None:
    """Push up to ``steps`` of ``choose``'s actions, stopping at the end of the game."""
    for _ in range(steps):
        if state.is_terminal():
            break
        state.push(choose(state, rng))


# -- invariants --------------------------------------------------------------------------------

def check_cards(state: Saboteur2State) -> None:
    """Every card is in exactly one place, and what lies in front of players is what it says."""
    deck = state.dealer.decks[Deck.DRAW]
    assert len(deck) == 117
    every = list(state.draw_pile) + [h for hand in state.hands for h in hand] + list(state.set_aside_cards)
    every += state.discards + state.hidden_discards + list(state.placed.values())
    every += [h for b in state.broken for h in b.values()]
    every += [h for h in state.trapped if h is not None] + [h for h in state.thefts if h is not None]
    assert sorted(every) == list(range(117))
    assert len(state.set_aside_cards) == 10
    assert set(state.placed) == set(state.board.tunnel_cells())
    for cell, handle in state.placed.items():
        assert state.board.tiles[cell].card is deck[handle]
    for seat in range(state.players):
        for tool, handle in state.broken[seat].items():
            assert deck[handle] == ActionCard(ActionKind.BREAK, (tool,))
        if state.trapped[seat] is not None:
            assert deck[state.trapped[seat]] == ActionCard(ActionKind.TRAPPED)
        if state.thefts[seat] is not None:
            assert deck[state.thefts[seat]] == ActionCard(ActionKind.THEFT)
            assert state.theft_played[seat] is not None
    assert sorted(state.roles + state.set_aside_roles + state.discarded_roles) == list(range(15))
    assert len(state.roles) == state.players
    assert all(p >= 0 for p in state.pieces)
    assert sorted(state.board.tiles[cell].goal_slot for cell in GOAL_CELLS) == [0, 1, 2]


def check_ladders(state: Saboteur2State) -> None:
    """Every ladder a player may place touches a card, lies next to no goal, and fits."""
    board = state.board
    for action in state.legal_actions():
        if isinstance(action, PlacePath):
            card = state.faces[action.card]
            assert isinstance(card, PathCard)
            if card.ladder:
                cells = [other for _, other in neighbours(action.cell)]
                assert any(c in board.tiles for c in cells)
                assert not any(c in GOAL_CELLS for c in cells)
                assert board.fits(action.cell, card.turned_openings if action.turned else card.openings)


def shuffle_hidden(state: Saboteur2State, seat: int, rng: random.Random) -> Saboteur2State:
    """A clone in which everything ``seat`` may not know is changed.

    Permuted: the faces of other players' hands, the draw pile, the cards put aside and the
    face-down discards, and the draw pile's order; unseen goal faces; other players' dwarf
    cards that ``seat`` has not inspected, the leftover and the discarded dwarf cards (until
    the roles are revealed); the totals of other players' gold (keeping whether they have any).
    """
    other = state.clone()
    decks = other.dealer.decks
    hidden = [h for s, hand in enumerate(other.hands) if s != seat for h in hand]
    hidden += other.draw_pile + other.hidden_discards + other.set_aside_cards
    permute_faces(other, Deck.DRAW, hidden, other.faces, rng)
    rng.shuffle(other.draw_pile)
    permute_unseen_goals(other, seat, rng)

    if other.revealed_roles is None:
        seen = other.role_seen[seat]
        handles = [h for s, h in enumerate(other.roles) if s != seat] + other.set_aside_roles + other.discarded_roles
        handles = [h for h in handles if h not in seen]
        cards = [decks[Deck.ROLES][h] for h in handles]
        rng.shuffle(cards)
        for h, card in zip(handles, cards, strict=True):
            decks[Deck.ROLES][h] = card
            if h in other.role_faces:
                other.role_faces[h] = card.role  # type: ignore[union-attr]

    if other.phase is not Phase.GAME_OVER:
        other.pieces = [p if s == seat or p == 0 else rng.randint(1, 30) for s, p in enumerate(other.pieces)]
    other._legal = None
    return other


def fingerprint(state: Saboteur2State) -> Any:
    """Everything in a state, as comparable data."""
    return (
        state_to_data(state),
        [state.view_for(seat).to_data() for seat in range(state.players)],
        dict(state.board.frontier), dict(state.board.connected),
    )


def light_fingerprint(state: Saboteur2State) -> Any:
    """What a refused action could have changed, cheaply."""
    return (
        state.phase, state.current, [list(h) for h in state.hands], list(state.draw_pile), dict(state.placed),
        [dict(b) for b in state.broken], list(state.trapped), list(state.thefts), list(state.theft_played),
        list(state.discards), list(state.hidden_discards), list(state.pieces), list(state.steal_queue),
        list(state.roles), list(state.set_aside_roles), [set(r) for r in state.role_seen], state.turns,
        [set(p) for p in state.peeks], len(state.events), dict(state.board.frontier), dict(state.board.connected),
        dict(state.faces), dict(state.goal_faces), dict(state.role_faces), state.dealer.rng.getstate(),
    )


def canonical(state: Saboteur2State, action: Any) -> Any:
    """The legal_actions() spelling of a path or action card play: lowest handle of its face,
    a symmetric path card upright."""
    card = getattr(action, "card", None)
    if not isinstance(action, (PlacePath, PlayOn)) or card not in state.hands[state.current]:
        return action
    face = state.faces[card]
    lowest = min(h for h in state.hands[state.current] if state.faces[h] == face)
    if isinstance(action, PlacePath) and isinstance(face, PathCard):
        return PlacePath(lowest, action.x, action.y, action.turned and not face.symmetric)
    return dataclasses.replace(action, card=lowest)


def expected_legal(state: Saboteur2State, action: Any, legal: set[Any]) -> bool:
    hand = state.hands[state.current]
    if isinstance(action, Pass):
        cards = action.cards
        return len(set(cards)) == len(cards) <= 3 and all(c in hand for c in cards)
    if isinstance(action, Clear):
        p = state.current
        lying = {t.value for t in state.broken[p]}
        lying |= {"trapped"} if state.trapped[p] is not None else set()
        lying |= {"theft"} if state.thefts[p] is not None else set()
        a, b = action.cards
        return action.what in lying and a != b and a in hand and b in hand
    return canonical(state, action) in legal


def candidate_plays(state: Saboteur2State, rng: random.Random, count: int) -> list[Any]:
    """Random well-formed plays of the current player's cards, legal or not."""
    hand = state.hands[state.current]
    n = state.players
    cells = list(state.board.tiles) + list(state.board.frontier)
    out: list[Any] = []
    for _ in range(count):
        card = rng.choice(hand)
        kind = rng.randrange(5)
        if kind == 0 or (isinstance(state.faces[card], PathCard) and kind == 1):
            x, y = rng.choice(cells)
            out.append(PlacePath(card, x + rng.choice((-1, 0, 1)), y + rng.choice((-1, 0, 1)), rng.random() < 0.5))
        elif kind <= 2:
            out.append(PlayOn(rng.choice(TARGETED_KINDS), rng.randrange(n), card))
        elif kind == 3:
            out.append(Clear(rng.choice(CLEARABLE), (card, rng.choice(hand))))
        else:
            out.append(Pass(card, tuple(rng.choice(hand) for _ in range(rng.randrange(3)))))
    return out


# -- every player count ------------------------------------------------------------------------

@pytest.mark.parametrize("players", range(2, 13))
def test_random_games_conserve_cards_and_every_legal_action_is_checked_and_reads_back(players):
    rng = random.Random(players)
    state = new_game(players, players)
    check_cards(state)
    steps = 0
    winners = set()
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and len(set(legal)) == len(legal)
        for action in legal:
            assert Action.from_str(str(action)) == action
            assert state.check(action) == action
        if steps % 7 == 0:
            check_ladders(state)
        rounds = len(state.results)
        state.push(choose(state, rng))
        if len(state.results) > rounds:
            winners.add(state.results[-1].winners)
        check_cards(state)
        steps += 1
        assert steps < 3000
    assert len(state.results) == 3 and state.scores == tuple(state.pieces)
    assert state.scores == tuple(sum(r.gold_pieces[s] for r in state.results) for s in range(players))


def test_the_biased_random_player_sees_both_ends_of_a_round():
    """The random games above do reach the treasure and do run out of cards."""
    ends = set()
    for seed in range(12):
        rng = random.Random(seed)
        state = new_game(2 + seed % 11, seed)
        while not state.is_terminal():
            state.push(choose(state, rng))
        ends |= {r.winners.value for r in state.results}
    assert "saboteurs" in ends and ends - {"saboteurs"}


# -- views ---------------------------------------------------------------------------------------

@SETTINGS
@given(games)
def test_views_never_reveal_hidden_cards(game):
    players, seed = game
    rng = random.Random(seed)
    state = new_game(players, seed)
    step = 0
    while not state.is_terminal():
        if step % 4 == 0 or state.phase is not Phase.PLAY:
            seat = rng.randrange(players)
            view = state.view_for(seat)
            assert [h for h, _ in view.hand] == state.hands[seat]
            shown = {h for h, _ in view.hand}
            assert not shown & set(state.set_aside_cards) and not shown & set(state.draw_pile)
            assert set(view.known_roles) <= set(range(players)) - {seat}
            other = shuffle_hidden(state, seat, rng)
            assert other.view_for(seat).to_data() == view.to_data()
            if state.current == seat:
                assert sorted(map(str, other.legal_actions())) == sorted(map(str, state.legal_actions()))
        state.push(choose(state, rng))
        step += 1


# -- clone, serialisation and replay ---------------------------------------------------------------

@SETTINGS
@given(games, st.integers(0, 400), st.integers(1, 60))
def test_clones_are_independent_and_play_on_alike(game, split, more):
    players, seed = game
    rng = random.Random(seed)
    state = new_game(players, seed)
    play_on(state, rng, split)
    clone = state.clone()
    state.view_for(0)
    at_split = fingerprint(clone)
    assert fingerprint(state) == at_split
    actions = []
    for _ in range(more):
        if state.is_terminal():
            break
        actions.append(choose(state, rng))
        state.push(actions[-1])
    assert fingerprint(clone) == at_split
    for action in actions:
        clone.push(action)
    assert fingerprint(clone) == fingerprint(state)


@SETTINGS
@given(games, st.integers(0, 400))
@pytest.mark.slow
def test_serialised_states_round_trip_and_resume_exactly(game, split):
    players, seed = game
    rng = random.Random(seed)
    state = new_game(players, seed)
    play_on(state, rng, split)
    data = state_to_data(state)
    resumed = state_from_data(json.loads(json.dumps(data)))
    assert isinstance(resumed, Saboteur2State)
    assert state_to_data(resumed) == data
    assert sorted(map(str, resumed.legal_actions())) == sorted(map(str, state.legal_actions()))
    for seat in range(players):
        assert resumed.view_for(seat).to_data() == state.view_for(seat).to_data()
    while not state.is_terminal():
        action = choose(state, rng)
        state.push(action)
        resumed.play(str(action))
    assert state_to_data(resumed) == state_to_data(state)
    assert resumed.scores == state.scores


@SETTINGS
@given(games)
def test_replay_from_seed_and_actions_is_exact(game):
    players, seed = game
    rng = random.Random(seed)
    state = new_game(players, seed)
    texts = []
    while not state.is_terminal():
        texts.append(str(state.play(str(choose(state, rng)))))
    replayed = new_game(players, seed)
    for text in texts:
        replayed.play(text)
    assert state_to_data(replayed) == state_to_data(state)
    assert [e.to_data() for e in replayed.events] == [e.to_data() for e in state.events]


# -- checked play ---------------------------------------------------------------------------------

@SETTINGS
@given(games)
def test_checked_play_agrees_with_legal_actions(game):
    """play() accepts exactly the legal plays; a refusal names the action and changes nothing."""
    players, seed = game
    rng = random.Random(seed)
    state = new_game(players, seed, rounds=1)
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if step % 3 == 0:
            legal_set = set(legal)
            before = light_fingerprint(state)
            candidates = [Steal(rng.randrange(players)), Steal(None)]
            if state.phase is Phase.PLAY:
                candidates += candidate_plays(state, rng, 12)
            for candidate in candidates:
                expected = expected_legal(state, candidate, legal_set) if state.phase is Phase.PLAY else candidate in legal_set
                if expected:
                    state.clone().play(candidate)
                    continue
                try:
                    state.play(candidate)
                except (IllegalActionError, InvalidActionError) as error:
                    assert str(candidate) in str(error)
                else:
                    raise AssertionError(f"{candidate} was accepted but is not legal")
                assert light_fingerprint(state) == before
        state.push(choose(state, rng))
        step += 1
