"""A seat's legal actions worked out from its own view, in every phase.

A bot is handed its legal actions by whoever runs the game; ``legal_actions_of(view)`` gives
the same list (same actions, same order) to code that holds only a view, such as a scorer
asked about a position outside play.  In the play and orient phases the list comes from a
state sampled from the view (``determinize``): the seat's own moves are the same in every
sample.  Handing out gold and stealing need no sample: the view shows the seat everything
it chooses from.
"""
from __future__ import annotations

import random

from .actions import AnyAction, KeepGold, Steal, TakeGold
from .determinize import determinize
from .gold import gold_choices
from .phases import Phase
from .view import PlayerView


def legal_actions_of(view: PlayerView) -> list[AnyAction]:
    """The seat's legal actions as the engine lists them; empty when it is not its turn."""
    if not view.my_turn:
        return []
    phase = Phase(view.phase)
    if phase in (Phase.PLAY, Phase.ORIENT):
        return determinize(view, random.Random(0)).legal_actions()
    if phase is Phase.KEEP_GOLD:
        # one card of each value, the lowest handle of it (cards of one value are alike)
        first: dict[int, int] = {}
        for handle, card in sorted(view.offered):
            first.setdefault(card.nuggets, handle)
        return [KeepGold(g) for g in sorted(first.values())]
    if phase is Phase.TAKE_GOLD:
        pile = [(handle, card.nuggets) for handle, card in view.gold_pile]
        return [TakeGold(c) for c in gold_choices(pile, view.take_amount)] or [TakeGold(())]
    if phase is Phase.STEAL:
        victims: list[AnyAction] = [
            Steal(t) for t, has in enumerate(view.has_gold) if has and t != view.seat
        ]
        return [*victims, Steal(None)]
    return []
