"""Helpers for the mental-poker session tests: decks opened with every seat's secret."""
from __future__ import annotations

import random
from typing import Sequence

from saboteur_p2p.crypto.group import Scalar, mul, sadd, sub
from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.protocol.dealer import GOLD_HANDLE_STRIDE
from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.rules import Card, Deck, State


def seeded_bytes(seed: int):
    """A repeatable byte source for tests (never for real games)."""
    rng = random.Random(seed)
    return lambda n: rng.randbytes(n)


def joint_secret(game: LocalGame) -> Scalar:
    total = game.nodes[0].secret
    for node in game.nodes[1:]:
        total = sadd(total, node.secret)
    return total


def opened_decks(game: LocalGame) -> list[dict[Deck, list[Card]]]:
    """Every shuffled batch's decks, decrypted with all seats' secrets pooled."""
    x = joint_secret(game)
    batches = []
    for batch in game.spectator.dealer.batches:
        assert batch.outputs is not None
        decks = {}
        for deck, cards in batch.outputs.items():
            decks[deck] = [batch.faces[deck][sub(c2, mul(x, c1))] for c1, c2 in cards]
        batches.append(decks)
    return batches


class ScriptedDealer:
    """Deals exactly the cards the mental-poker decks held, in the clear, as a trusted dealer would."""

    def __init__(self, batches: Sequence[dict[Deck, list[Card]]], coins: Sequence[int]) -> None:
        self.batches = list(batches)
        self.coins = list(coins)
        self.current: dict[Deck, list[Card]] = {}
        self.gold: dict[int, Card] = {}
        self.next_batch = 0

    def shuffle(self, fresh, again):
        b = self.next_batch
        self.next_batch += 1
        decks = self.batches[b]
        handles = {}
        for deck in list(fresh) + list(again):
            self.current[deck] = decks[deck]
            if deck is Deck.GOLD:
                base = 0 if deck in fresh else GOLD_HANDLE_STRIDE * b
                handles[deck] = [base + i for i in range(len(decks[deck]))]
                for i, h in enumerate(handles[deck]):
                    self.gold[h] = decks[deck][i]
        return handles

    def reveal(self, deck, handle, to):
        return self.gold[handle] if deck is Deck.GOLD else self.current[deck][handle]

    def public_random(self, n):
        return self.coins.pop(0)


def actions_of(game: LocalGame) -> list[str]:
    return [decode_record(r).body["action"] for r in game.records if decode_record(r).kind == "action"]


def trusted_replay(game: LocalGame) -> State:
    """The same game replayed by an all-knowing engine dealt the same cards."""
    coins = [c for c in game.spectator.dealer.coins if c is not None]
    state = State.new(game.setup.config, ScriptedDealer(opened_decks(game), coins))
    for text in actions_of(game):
        state.play(text)
    return state
