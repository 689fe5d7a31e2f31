"""One batch of shuffles as the session runs it (protocol/shuffles.py): records made and
read, shuffles planned ahead, and the empty deck a long game can ask to shuffle."""
from __future__ import annotations

import dataclasses
import random
import secrets

import pytest
from test_shuffle_proof import BAD_POINTS, CONTEXT, JOINT, POINT_FIELDS, rejects, small_honest

from saboteur_p2p.crypto.group import base_mul, hash_to_point, random_scalar
from saboteur_p2p.crypto.shuffle import check_deck, initial_deck
from saboteur_p2p.crypto.shuffle_proof import ShuffleProof, checked_mul, invalid_point, plan_shuffle
from saboteur_p2p.protocol.dealer import ShuffleNeed
from saboteur_p2p.protocol.errors import ProtocolViolation
from saboteur_p2p.protocol.shuffles import ShufflePlans, ShuffleRun, make_shuffle, read_shuffle
from saboteur_p2p.rules import GameConfig
from saboteur_p2p.rules.dealer import Deck, TrustedDealer
from saboteur_p2p.rules.state import State

GAME = b"g" * 32


class _SizesDealer(TrustedDealer):
    """A trusted dealer that notes the size of every deck it is asked to shuffle."""

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.sizes: list[dict[str, int]] = []

    def shuffle(self, fresh, again):  # type: ignore[no-untyped-def]
        self.sizes.append({d.value: len(v) for d, v in {**fresh, **again}.items()})
        return super().shuffle(fresh, again)


def test_a_long_game_asks_for_a_shuffle_of_an_empty_gold_pile() -> None:
    """protocol.md §5.8: a pile emptied in earlier rounds is still listed, as a deck of 0 cards."""
    dealer = _SizesDealer(0)
    state = State.new(GameConfig(players=10, rounds=10), dealer)
    rng = random.Random(0)
    while not state.is_terminal() and not any(s.get("gold") == 0 for s in dealer.sizes):
        state.play(rng.choice(state.legal_actions()))
    assert any(s.get("gold") == 0 for s in dealer.sizes)


def _batch_with_empty_gold() -> tuple[ShuffleRun, bytes]:
    joint = base_mul(random_scalar())
    cards = [hash_to_point("card", i) for i in range(3)]
    need = ShuffleNeed(6, (), ((Deck.DRAW, (0, 1, 2)), (Deck.GOLD, ())))
    return ShuffleRun(need, [Deck.DRAW, Deck.GOLD], {Deck.DRAW: initial_deck(cards), Deck.GOLD: []}), joint


def test_planning_ahead_skips_an_empty_deck_and_stops() -> None:
    _, joint = _batch_with_empty_gold()
    plans = ShufflePlans(joint)
    steps = 0
    while plans.prepare_one([3, 0], secrets.token_bytes):
        steps += 1
    assert steps == 2 and list(plans.ready) == [3] and len(plans.ready[3]) == 1  # 3 cards: one step, and the end


def seeded(seed: int):
    rng = random.Random(seed)
    return rng.randbytes


def test_a_plan_made_a_step_at_a_time_is_the_plan_made_at_once() -> None:
    joint = base_mul(random_scalar())
    plans = ShufflePlans(joint)
    rand = seeded(7)
    steps = 0
    while plans.prepare_one([20], rand):
        steps += 1
    assert steps == 4  # 8 + 8 + 4 cards, and the end
    assert plans.ready[20][0] == plan_shuffle(20, joint, seeded(7))


def test_a_plan_half_made_is_finished_when_its_deck_comes() -> None:
    run, joint = _batch_with_empty_gold()
    plans = ShufflePlans(joint)
    plans.prepare_one([3], secrets.token_bytes)
    assert plans.making is not None and not plans.ready
    made = make_shuffle(run, GAME, 0, plans, secrets.token_bytes)
    assert plans.making is None and plans.ready[3] == []
    outputs, check = read_shuffle(run, made, 0, False, GAME, joint)
    assert len(outputs[Deck.DRAW]) == 3
    check()


def test_an_empty_deck_is_shuffled_to_nothing_and_the_rest_is_proven() -> None:
    run, joint = _batch_with_empty_gold()
    message = make_shuffle(run, GAME, 0, ShufflePlans(joint), secrets.token_bytes)
    assert message.decks[1] == (Deck.GOLD, [], {})
    outputs, check = read_shuffle(run, message, 0, False, GAME, joint)
    check()
    assert outputs[Deck.GOLD] == [] and len(outputs[Deck.DRAW]) == 3


@pytest.mark.parametrize("field", ["cards", "proof"])
def test_anything_in_an_empty_deck_s_place_is_malformed(field: str) -> None:
    run, joint = _batch_with_empty_gold()
    message = make_shuffle(run, GAME, 0, ShufflePlans(joint), secrets.token_bytes)
    draw, _ = message.decks
    stuffed = (Deck.GOLD, draw[1][:1], {}) if field == "cards" else (Deck.GOLD, [], draw[2])
    bad = type(message)((draw, stuffed))
    with pytest.raises(ProtocolViolation) as refused:
        read_shuffle(run, bad, 0, False, GAME, joint)
    assert (refused.value.peer, refused.value.reason) == (0, "bad-message")


def test_a_planned_shuffle_is_used_once() -> None:
    run, joint = _batch_with_empty_gold()
    plans = ShufflePlans(joint)
    while plans.prepare_one([3], secrets.token_bytes):
        pass
    planned = plans.ready[3][0]
    first = make_shuffle(run, GAME, 0, plans, secrets.token_bytes)
    second = make_shuffle(run, GAME, 0, plans, secrets.token_bytes)
    assert plans.ready[3] == [] and first.decks[0][1] != second.decks[0][1]
    assert first.decks[0][2]["commitments"] == planned.commitments


@pytest.mark.parametrize("field", ["outputs", *POINT_FIELDS])
def test_a_point_left_to_the_proof_check_fails_it_and_is_named(field):
    """Read as ``read_shuffle`` reads them (``points=False``), each point outside the group fails
    the proof (multiplied by 0, it is checked on its own: ``checked_mul``), and ``invalid_point``
    names it."""
    inputs, outputs, proof = small_honest()
    assert invalid_point(outputs, proof, "output") is None
    for i, bad in enumerate(BAD_POINTS):
        outs, prf = list(outputs), proof
        if field == "outputs":
            outs[i % 3] = (bad, outs[i % 3][1]) if i % 2 else (outs[i % 3][0], bad)
        else:
            points = tuple(bad if j == i % 3 else p for j, p in enumerate(getattr(proof, field)))
            prf = dataclasses.replace(proof, **{field: points})
        assert ShuffleProof.from_data(prf.to_data(), 3, points=False) == prf
        rejects(CONTEXT, JOINT, inputs, check_deck(outs, 3, "output", points=False), prf)
        assert invalid_point(outs, prf, "output") is not None
        with pytest.raises(ValueError):
            checked_mul(bytes(32), bad)
