"""The hand model (bots/hands.py) and determinize's ``hand_weights``: hands that follow the
players' past choices."""
from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from saboteur_bots.belief import RoleBelief
from saboteur_bots.hands import HandModel
from saboteur_bots.heuristic import PLAYERS, HeuristicBot

from saboteur_p2p.rules import CardPlayed, Deck, Game, GameConfig, Pass, Phase, Role, State, TrustedDealer, determinize
from saboteur_p2p.rules import cards as C


def _heuristic_games(seeds, watch):
    """Play 5-player base games of heuristic bots; ``watch(state, model, belief)`` before each
    move of seat 0's, with seat 0's hand model and role belief told every event."""
    config = GameConfig(5, "base")
    for seed in seeds:
        bots = [HeuristicBot() for _ in range(5)]
        shadows = [PLAYERS["base"]() for _ in range(5)]
        for s in range(5):
            bots[s].start(s, config, seed * 7 + s)
            shadows[s].start(s, config, s)
        model, belief = HandModel(config, 0), RoleBelief(config, 0)
        state = Game(config, TrustedDealer(seed)).new_state()
        told = 0
        while not state.is_terminal():
            for event in state.events[told:]:
                model.observe(event, belief.board, shadows[event.player] if isinstance(event, CardPlayed) else None)
                belief.observe(event)
                for player in (*bots, *shadows):
                    player.on_event(event)
            told = len(state.events)
            p = state.current
            if p == 0 and state.phase is Phase.PLAY:
                watch(state, model, belief)
            state.push(bots[p].act(state.view_for(p), state.legal_actions()))


def test_the_model_follows_which_cards_every_hand_holds():
    checked = []

    def watch(state: State, model: HandModel, belief: RoleBelief) -> None:
        assert model.consistent(state.view_for(0))
        for s in range(1, 5):
            assert set(model.held[s]) == set(state.hands[s])
            assert len(model.weights(s, Role.GOLD_DIGGER)) == len(state.hands[s])
        checked.append(1)

    _heuristic_games(range(2), watch)
    assert len(checked) > 20


def test_the_real_hands_weigh_more_than_hands_dealt_at_random():
    """Over heuristic games, the faces other players really hold get more weight (under their
    real roles) than the faces they might hold: the model reads the cards kept."""
    ratios: list[float] = []

    def watch(state: State, model: HandModel, belief: RoleBelief) -> None:
        pool = [state.faces[h] for s in range(1, 5) for h in state.hands[s]]
        pool += [state.dealer.reveal(Deck.DRAW, h, None) for h in state.draw_pile]
        for s in range(1, 5):
            role = state.role_of(s)
            rows = model.weights(s, role)
            for h, row in zip(sorted(model.held[s]), rows, strict=True):
                mean = sum(row[face] for face in pool) / len(pool)
                ratios.append(math.log(row[state.faces[h]] / mean))

    _heuristic_games(range(3), watch)
    assert len(ratios) > 300
    assert sum(ratios) / len(ratios) > 0.05


def _position(seed: int) -> State:
    config = GameConfig(5, "base")
    bots = [HeuristicBot() for _ in range(5)]
    for s in range(5):
        bots[s].start(s, config, s)
    state = Game(config, TrustedDealer(seed)).new_state()
    for _ in range(12):
        state.push(bots[state.current].act(state.view_for(state.current), state.legal_actions()))
    return state


def test_hand_weights_deal_the_weighted_faces_to_a_hand():
    state = _position(4)
    view = state.view_for(state.current)
    seat = (state.current + 1) % 5
    # one face the seat is told to hold everywhere it can: it gets all the copies it can
    wanted = C.ActionCard(C.ActionKind.ROCKFALL)
    seen = [face for _, face in view.hand] + [state.faces[h] for h in state.discards if h in state.faces]
    unseen_rockfalls = 3 - seen.count(wanted) - sum(1 for t in state.board.tiles.values() if t.card == wanted)
    row = {face: 1.0 if face == wanted else 0.0 for face in C.base_draw_cards()}
    weights = lambda s, role: [row] * len(state.hands[s]) if s == seat else None  # noqa: E731
    for i in range(5):
        world = determinize(view, random.Random(i), None, weights)
        got = Counter(world.faces[h] for h in world.hands[seat])
        assert got[wanted] == min(unseen_rockfalls, len(world.hands[seat]))
        assert world.view_for(view.seat).to_data() == view.to_data()


def test_without_hand_weights_the_sample_is_unchanged_and_with_uniform_ones_it_differs_only_by_order():
    state = _position(5)
    view = state.view_for(state.current)
    plain = determinize(view, random.Random(1))
    again = determinize(view, random.Random(1), None, None)
    assert [plain.faces[h] for h in range(len(plain.faces))] == [again.faces[h] for h in range(len(again.faces))]
    uniform = determinize(view, random.Random(1), None, lambda s, role: None)
    hidden = lambda w: Counter(w.faces[h] for s in range(5) if s != view.seat for h in w.hands[s]) + Counter(  # noqa: E731
        w.faces[h] for h in (*w.draw_pile, *w.hidden_discards))
    assert hidden(uniform) == hidden(plain)  # the same unseen cards, wherever they went


MAP = C.ActionCard(C.ActionKind.MAP)


@pytest.mark.parametrize("bad", [
    [{}], [{MAP: -1.0}] * 99, [{MAP: math.nan}] * 99, [{MAP: True}] * 99, [{MAP: "1"}] * 99, ["row"] * 99, 7,
    [{"map": 1.0}] * 99,
])
def test_malformed_hand_weights_are_refused(bad):
    state = _position(6)
    view = state.view_for(state.current)
    seat = (state.current + 1) % 5
    rows = bad if not isinstance(bad, list) or len(bad) == 1 else bad[:len(state.hands[seat])]
    with pytest.raises(ValueError, match="hand_weights"):
        determinize(view, random.Random(0), None, lambda s, role: rows if s == seat else None)


def test_a_discard_makes_a_digger_unlikely_to_hold_what_would_have_dug():
    """After a gold-digger's face-down discard on an open maze, the model thinks a held card
    much less likely a four-way tunnel (which would have dug) than a dead end."""
    found = []

    def watch(state: State, model: HandModel, belief: RoleBelief) -> None:
        last = state.events[-1] if state.events else None
        if (
            isinstance(last, CardPlayed) and isinstance(last.action, Pass) and last.player != 0
            and not state.broken[last.player] and state.hands[last.player]  # a hand played out holds nothing
        ):
            cross = next(f for f in C.base_draw_cards() if isinstance(f, C.PathCard) and f.openings == 15 and not f.is_dead_end)
            dead = next(f for f in C.base_draw_cards() if isinstance(f, C.PathCard) and f.is_dead_end)
            row = model.weights(last.player, Role.GOLD_DIGGER)[0]
            found.append(row[cross] < 0.5 * row[dead])

    _heuristic_games(range(4), watch)
    assert found and sum(found) >= 0.8 * len(found)


@pytest.mark.slow
def test_the_cards_kept_sharpen_the_role_belief():
    """Over heuristic games, the role belief tilted by the cards each player kept gives the
    true roles more probability (a lower log loss) than the belief from play alone.  Over 24
    games: a few games where the belief is sure of a wrong role carry most of the loss, so a
    handful of games can go either way."""
    loss = {"play": 0.0, "kept": 0.0}

    def watch(state: State, model: HandModel, belief: RoleBelief) -> None:
        view = state.view_for(0)
        belief.know({0: view.role})
        plain = belief.role_weights()
        for name, weights in (("play", plain), ("kept", model.role_weights(view, plain))):
            for s in range(1, 5):
                loss[name] -= math.log(max(belief.marginal(s, weights)[state.role_of(s)], 1e-9))

    _heuristic_games(range(24), watch)
    assert loss["kept"] < 0.85 * loss["play"]


def test_no_seat_has_the_first_pick_of_the_faces_the_weights_favour():
    """Every other seat told it most likely holds a rockfall: over many samples the rockfalls
    not seen are spread over those seats, not all dealt to the first."""
    state = _position(4)
    view = state.view_for(state.current)
    rockfall = C.ActionCard(C.ActionKind.ROCKFALL)
    weights = lambda s, role: [{rockfall: 1000.0}] * len(state.hands[s])  # noqa: E731
    got: Counter[int] = Counter()
    for i in range(200):
        world = determinize(view, random.Random(i), None, weights)
        for s in range(5):
            if s != view.seat:
                got[s] += sum(1 for h in world.hands[s] if world.faces[h] == rockfall)
    others = [s for s in range(5) if s != view.seat]
    assert min(got[s] for s in others) > 0.15 * sum(got.values())


@pytest.mark.parametrize(("edition", "players"), [("saboteur2", 2), ("saboteur2", 12), ("saboteur2", 5), ("base", 10)])
def test_ismcts_plays_every_table_size_with_the_hand_model_on(edition, players):
    from saboteur_p2p.match import play_game
    config = GameConfig(players, edition, rounds=1)
    record = play_game(config, ["ismcts:playouts=4:cutoff=4"] + ["random"] * (players - 1), 3, time_limit=None)
    assert not record.incidents
