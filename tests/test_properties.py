"""Random play over 3-10 players and every option combination, checking invariants at every step."""
from __future__ import annotations

import dataclasses
import random
from typing import Any

from conftest import shuffle_hidden, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from saboteur_p2p.rules import (
    GOAL_CELLS,
    VARIANTS,
    Action,
    ActionCard,
    ActionKind,
    BreakTool,
    Game,
    GameConfig,
    IllegalActionError,
    InvalidActionError,
    MapPeek,
    Pass,
    PathCard,
    PlacePath,
    RepairTool,
    Rockfall,
    State,
    Tool,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.dealer import Deck
from saboteur_p2p.rules.state import Phase

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def configs(draw: Any) -> GameConfig:
    players = draw(st.integers(3, 10))
    names = sorted(VARIANTS)
    if not 5 <= players <= 9:
        names.remove("tournament-roles")
    variants = draw(st.sets(st.sampled_from(names)))
    return GameConfig(players=players, variants=frozenset(variants))


games = st.tuples(configs(), st.integers(0, 2**32 - 1))


# -- invariants --------------------------------------------------------------------------------

def check_cards(state: State) -> None:
    """Every card is in exactly one place."""
    decks = state.dealer.decks
    assert len(decks[Deck.DRAW]) == 67
    draw = list(state.draw_pile) + [h for hand in state.hands for h in hand] + list(state.placed.values())
    draw += [h for b in state.broken for h in b.values()] + state.discards + state.hidden_discards
    assert sorted(draw) == list(range(67))
    assert set(state.placed) == set(state.board.tunnel_cells())
    for cell, handle in state.placed.items():
        assert state.board.tiles[cell].card is decks[Deck.DRAW][handle]
    for tools in state.broken:
        for tool, handle in tools.items():
            assert decks[Deck.DRAW][handle] == ActionCard(ActionKind.BREAK, (tool,))
    assert sorted(state.board.tiles[cell].goal_slot for cell in GOAL_CELLS) == [0, 1, 2]
    assert sorted(c.code for c in decks[Deck.GOALS]) == sorted(c.code for c in C.goal_cards())
    for slot, cell in enumerate(GOAL_CELLS):
        card = state.board.tiles[cell].card
        assert card is None or card == decks[Deck.GOALS][slot]
    assert sorted(state.roles + state.set_aside_roles) == list(range(len(decks[Deck.ROLES])))
    assert len(state.roles) == state.players
    gold = list(state.gold_pile) + [g for gs in state.gold_of for g in gs] + list(state.offered)
    assert sorted(gold) == list(range(28))
    size = C.hand_size(state.players)
    assert all(len(hand) <= size for hand in state.hands)


def fingerprint(state: State) -> Any:
    """Everything in a state, as comparable data."""
    board = state.board
    return (
        snapshot(state),
        state.round, state.first_player, state.last_path_player, state.last_player,
        tuple(state.keep_order), state.orienter, state.results, state.scores, state.revealed_roles,
        [e.to_data() for e in state.events],
        state.dealer.to_data(),
        sorted((cell, t.card.code if t.card else None, t.turned) for cell, t in board.tiles.items()),
        sorted(board.cells_for_openings[o].keys() for o in range(16)),
    )


def canonical(state: State, action: Any) -> Any:
    """The legal_actions() spelling of a play: lowest handle of that face, symmetric cards upright."""
    card = getattr(action, "card", None)
    if card is None or card not in state.hands[state.current]:
        return action
    face = state.faces[card]
    lowest = min(h for h in state.hands[state.current] if state.faces[h] == face)
    if isinstance(action, PlacePath) and isinstance(face, PathCard):
        return PlacePath(lowest, action.x, action.y, action.turned and not face.symmetric)
    return dataclasses.replace(action, card=lowest)


def candidate_plays(state: State, rng: random.Random, count: int) -> list[Any]:
    """Random well-formed plays of the current player's cards, legal or not."""
    hand = state.hands[state.current]
    cells = list(state.board.tiles) + list(state.board.frontier)
    out: list[Any] = []
    for _ in range(count):
        card = rng.choice(hand)
        face = state.faces[card]
        x, y = rng.choice(cells)
        x, y = x + rng.choice((-1, 0, 1)), y + rng.choice((-1, 0, 1))
        kind = rng.randrange(6)
        if kind == 0 or isinstance(face, PathCard):
            out.append(PlacePath(card, x, y, rng.random() < 0.5))
        elif kind == 1:
            out.append(BreakTool(rng.choice(list(Tool)), rng.randrange(state.players), card))
        elif kind == 2:
            out.append(RepairTool(rng.choice(list(Tool)), rng.randrange(state.players), card))
        elif kind == 3:
            out.append(Rockfall(x, y, card))
        elif kind == 4:
            out.append(MapPeek(rng.randrange(3), card))
        else:
            out.append(Pass(card))
    return out


# -- properties -----------------------------------------------------------------------------------

@SETTINGS
@given(games)
def test_random_games_never_crash_and_conserve_every_card(game):
    config, seed = game
    rng = random.Random(seed)
    state = Game(config, seed=seed).new_state()
    check_cards(state)
    steps = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal, f"no legal action in phase {state.phase}"
        assert len(set(legal)) == len(legal)
        state.push(rng.choice(legal))
        check_cards(state)
        steps += 1
        assert steps < 5000
    assert len(state.results) == config.rounds and state.scores is not None
    assert sum(state.scores) <= 44


@SETTINGS
@given(games)
def test_views_never_reveal_hidden_cards(game):
    config, seed = game
    rng = random.Random(seed)
    state = Game(config, seed=seed).new_state()
    step = 0
    while not state.is_terminal():
        if step % 5 == 0 or state.phase is not Phase.PLAY:
            seat = rng.randrange(config.players)
            before = state.view_for(seat).to_data()
            assert shuffle_hidden(state, seat, rng).view_for(seat).to_data() == before
        state.push(rng.choice(state.legal_actions()))
        step += 1


@SETTINGS
@given(games, st.integers(0, 300), st.integers(1, 40))
def test_clones_are_independent(game, split, more):
    config, seed = game
    rng = random.Random(seed)
    state = Game(config, seed=seed).new_state()
    for _ in range(split):
        if state.is_terminal():
            break
        state.push(rng.choice(state.legal_actions()))
    clone = state.clone()
    state.view_for(0)  # a view handed out before the clone must not tie the two mazes together
    at_split = fingerprint(clone)
    assert fingerprint(state) == at_split
    actions = []
    for _ in range(more):
        if state.is_terminal():
            break
        actions.append(rng.choice(state.legal_actions()))
        state.push(actions[-1])
    assert fingerprint(clone) == at_split
    for action in actions:  # the clone, with its own copy of the dealer, plays out the same
        clone.push(action)
    assert fingerprint(clone) == fingerprint(state)


@SETTINGS
@given(games)
def test_replay_is_exact_and_every_legal_action_round_trips(game):
    config, seed = game
    rng = random.Random(seed)
    state = Game(config, seed=seed).new_state()
    texts = []
    while not state.is_terminal():
        legal = state.legal_actions()
        for action in legal:
            assert Action.from_str(str(action)) == action
        played = state.play(str(rng.choice(legal)))
        texts.append(str(played))
    replayed = Game(config, seed=seed).new_state()
    for text in texts:
        replayed.play(text)
    assert fingerprint(replayed) == fingerprint(state)


@SETTINGS
@given(games)
def test_checked_play_agrees_with_legal_actions(game):
    """play() accepts exactly the legal actions; a refusal names the action and changes nothing."""
    config, seed = game
    rng = random.Random(seed)
    state = Game(config, seed=seed).new_state()
    step = 0
    while not state.is_terminal():
        legal = state.legal_actions()
        if step % 3 == 0 and state.phase is Phase.PLAY:
            legal_set = set(legal)
            before = light_fingerprint(state)
            for candidate in candidate_plays(state, rng, 12):
                expected = canonical(state, candidate) in legal_set
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
        state.push(rng.choice(legal))
        step += 1


def light_fingerprint(state: State) -> Any:
    return (
        state.phase, state.current, [list(h) for h in state.hands], list(state.draw_pile), dict(state.placed),
        [dict(b) for b in state.broken], list(state.discards), list(state.hidden_discards),
        [set(p) for p in state.peeks], len(state.events), dict(state.board.frontier), dict(state.board.connected),
        dict(state.faces), dict(state.goal_faces),
    )
