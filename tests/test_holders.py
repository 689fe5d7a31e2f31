"""A card's holder (protocol.md §5.5) is the seat that owns it now, as every peer reads the
log: cards swapped away and back in Saboteur 2 (found by review: a card swapped back to the
seat that drew it stayed the other seat's to show, as a gold card given to a digger it was
offered to before stayed the last viewer's, test_final_reveal)."""
from __future__ import annotations

import random

from protocol_helpers import seeded_game

from saboteur_p2p.protocol.local import LocalGame, step
from saboteur_p2p.protocol.node import Node
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import Deck, GameConfig
from saboteur_p2p.rules.actions import PlayOn
from saboteur_p2p.rules.cards import ActionKind


def _swapper(seed: int):
    """Swap hands back with whoever swapped with you, else swap with anyone, else play at random."""
    rng = random.Random(seed)
    swapped_by: dict[int, int] = {}

    def choose(seat: int, node: Node) -> str:
        assert node.state is not None
        legal = node.state.legal_actions()
        swaps = [a for a in legal if isinstance(a, PlayOn) and a.kind is ActionKind.SWAP_HAND]
        back = [a for a in swaps if a.target == swapped_by.get(seat)]
        pick = back[0] if back else rng.choice(swaps) if swaps else rng.choice(legal)
        if pick in swaps:
            assert isinstance(pick, PlayOn)
            swapped_by[pick.target] = seat
        return str(pick)

    return choose


def _holders_are_owners(game: LocalGame) -> int:
    """Every peer agrees on the holders, and each card in a hand is held by its owner; the
    number of hand cards checked."""
    spectator = game.spectator
    holders = {card: need.audience for card, need in spectator.dealer.holding.items()}
    checked = 0
    for node in game.nodes:
        assert {card: need.audience for card, need in node.dealer.holding.items()} == holders
    state = spectator.state
    if state is None or spectator.work is not None:
        return 0
    for seat, hand in enumerate(state.hands):
        for handle in hand:
            card = spectator.dealer._locate(Deck.DRAW, handle)
            if card in holders:
                assert holders[card] == {seat}, (seat, handle, holders[card])
                checked += 1
    return checked


def test_a_card_swapped_away_and_back_is_held_again_by_the_seat_it_came_back_to() -> None:
    game = seeded_game(GameConfig(3, "saboteur2", rounds=1), 109)
    choose = _swapper(9)
    checked = 0
    while step(game, choose):
        checked += _holders_are_owners(game)
    assert checked and game.spectator.state is not None
    verdict = verify_records(game.records)
    assert verdict.ok and verdict.finished and verdict.scores == game.spectator.state.scores, verdict
