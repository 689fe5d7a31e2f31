"""The base game's gold hand-out at the end of a round (rules.md 5 and the variants of 7).

The gold-diggers pass the gold cards drawn by the treasure finder round against turn order,
each keeping one (phase keep-gold); saboteurs, a selfish dwarf and tournament-roles diggers
take cards worth an exact amount from the pile (phase take-gold).  A taker's engine sees the
pile; the other engines cannot check the take until the gold is revealed at the game's end
(``reveal_gold``).  These functions work on a ``State``; Saboteur 2 pays in pieces instead
(saboteur2.py, scoring2.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from .actions import AnyAction, TakeGold
from .cards import GoldCard, Role
from .dealer import Deck, reveal_all_as, reveal_as
from .errors import IllegalActionError
from .events import GoldReceived, RoundEnded
from .gold import gold_choices, saboteur_share
from .phases import Phase, Winners

if TYPE_CHECKING:
    from .state import State


def distinct_gold(state: State, handles: Sequence[int]) -> list[int]:
    seen: dict[int, int] = {}
    for g in sorted(handles):
        seen.setdefault(state.gold_faces[g].nuggets, g)
    return sorted(seen.values())


def pile_values(state: State) -> list[tuple[int, int]]:
    return [(g, state.gold_faces[g].nuggets) for g in state.gold_pile]


def check_take(state: State, action: AnyAction) -> AnyAction:
    if not isinstance(action, TakeGold):
        raise IllegalActionError(action, f"player {state.current} must take gold from the pile")
    if len(set(action.golds)) != len(action.golds):
        raise IllegalActionError(action, "a gold card is named twice")
    missing = [g for g in action.golds if g not in state.gold_pile]
    if missing:
        raise IllegalActionError(action, f"gold card(s) {missing} are not in the gold pile")
    amount = state.take_queue[0][1]
    if len(action.golds) > amount:
        # every gold card is worth a nugget at least and a stone is never taken: whatever
        # the faces, such a take is worth too much (every seat can tell, shown the pile or not)
        raise IllegalActionError(action, f"{len(action.golds)} gold cards are worth more than the {amount} nugget(s) owed")
    if not all(g in state.gold_faces for g in state.gold_pile):
        # Only the taker was shown the pile: the values are checked when the gold is
        # revealed at the end of the game (reveal_gold).
        return action
    values = [state.gold_faces[g].nuggets for g in action.golds]
    if 0 in values:
        raise IllegalActionError(action, "worthless stones are not taken as gold")
    choices = gold_choices(pile_values(state), amount)
    target = sum(state.gold_faces[g].nuggets for g in choices[0]) if choices else 0
    if sum(values) != target:
        if target == amount:
            rule = f"the cards must be worth exactly {amount}"
        else:
            rule = f"the pile cannot make {amount}; take cards worth {target}"
        raise IllegalActionError(action, rule)
    return action


def end_round(state: State, finder: int | None, roles: tuple[Role, ...]) -> bool:
    """Plan the round's gold once ``roles`` are face up; True when the hand-out is over
    already (nobody has a choice to make), so the round is finished."""
    n = state.config.players
    state.round_gold = [0] * n
    state.offered, state.keep_order, state.take_queue = [], [], []
    if finder is not None:
        plan_digger_gold(state, finder, roles)
    else:
        saboteurs = [(state.last_player + k) % n for k in range(1, n + 1)]
        saboteurs = [s for s in saboteurs if roles[s] is Role.SABOTEUR]
        state.round_winners = Winners.SABOTEURS if saboteurs else Winners.NOBODY
        share = saboteur_share(len(saboteurs))
        state.take_queue = [(s, share) for s in saboteurs]
    state.events.append(RoundEnded(state.round, state.round_winners.value, roles, state.last_player))
    return advance_gold(state)


def plan_digger_gold(state: State, finder: int, roles: tuple[Role, ...]) -> None:
    n = state.config.players
    if roles[finder] is Role.SELFISH_DWARF:
        state.round_winners = Winners.SELFISH_DWARF
        state.take_queue = [(finder, 4)]
        return
    against = [(finder - k) % n for k in range(n)]
    diggers = [s for s in against if roles[s] is Role.GOLD_DIGGER]
    if not diggers:
        state.round_winners = Winners.NOBODY
        return
    state.round_winners = Winners.GOLD_DIGGERS
    # rules.md 5, gold-per-player: one card per player, but 9 with 10 players
    count = min(n, 9) if state.config.has("gold-per-player") else len(diggers)
    if state.config.has("broken-tools-forfeit"):
        # rules.md 7: a digger with a broken tool gets nothing; with tournament roles the
        # "first" is then the first one without, counting on against turn order
        diggers = [d for d in diggers if not state.broken[d]]
    if state.config.has("tournament-roles"):
        state.take_queue = [(diggers[0], 3)] + [(d, 2) for d in diggers[1:]] if diggers else []
        return
    if not diggers:
        return  # rules.md 7: every gold-digger has a broken tool; the gold stays in the pile
    state.keep_order = diggers
    state.offered = [state.gold_pile.pop() for _ in range(min(count, len(state.gold_pile)))]


def advance_gold(state: State) -> bool:
    """Hand out gold until a player must choose (False) or nothing is left to hand out (True:
    the caller finishes the round)."""
    while True:
        if state.keep_order and state.offered:
            chooser = state.keep_order[0]
            if len(state.offered) == 1:
                give(state, chooser, [state.offered.pop()])
                continue
            show_gold(state, state.offered, chooser)
            state.phase, state.current = Phase.KEEP_GOLD, chooser
            return False
        if state.take_queue:
            taker, _amount = state.take_queue[0]
            if not state.gold_pile:
                state.take_queue.pop(0)
                continue
            show_gold(state, state.gold_pile, taker)
            state.gold_pile_seen = True
            state.phase, state.current = Phase.TAKE_GOLD, taker
            return False
        return True


def show_gold(state: State, handles: Sequence[int], seat: int) -> None:
    audience = frozenset((seat,))
    for g in handles:
        face = reveal_as(state.dealer, GoldCard, Deck.GOLD, g, audience)
        if face is not None:
            state.gold_faces[g] = face


def give(state: State, seat: int, golds: list[int]) -> None:
    state.gold_of[seat] += golds
    state.round_gold[seat] += len(golds)
    show_gold(state, golds, seat)
    state.events.append(GoldReceived(seat, len(golds)))


def apply_keep(state: State, gold: int) -> bool:
    """The chooser keeps ``gold``; True when the round's hand-out is over."""
    state.offered.remove(gold)
    give(state, state.keep_order[0], [gold])
    state.keep_order.append(state.keep_order.pop(0))
    return advance_gold(state)


def apply_take(state: State, golds: tuple[int, ...]) -> bool:
    """The taker takes ``golds``; True when the round's hand-out is over."""
    taker, amount = state.take_queue.pop(0)
    if not all(g in state.gold_faces for g in state.gold_pile):
        state.unchecked_takes.append((taker, golds, amount))
    for g in golds:
        state.gold_pile.remove(g)
    give(state, taker, list(golds))
    return advance_gold(state)


def reveal_gold(state: State) -> None:
    """The end of the game: every gold card is shown, and the takes nobody could check
    when they were made are checked now (the taker is blamed if one was too much)."""
    held = [g for golds in state.gold_of for g in golds]
    for g, face in zip(held, reveal_all_as(state.dealer, GoldCard, Deck.GOLD, held), strict=True):
        state.gold_faces[g] = face
    for taker, golds, amount in state.unchecked_takes:
        values = [state.gold_faces[g].nuggets for g in golds]
        if sum(values) > amount or 0 in values:
            raise IllegalActionError(
                TakeGold(golds), f"player {taker} took gold worth {sum(values)} ({values}), more than {amount} or a stone",
                player=taker,
            )
