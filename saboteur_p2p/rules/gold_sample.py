"""Base game: drawing the gold cards a seat has not seen, consistent with the public hand-outs.

How many gold cards each player received is public, and so, once the roles are turned up at a
round's end, is what a taker was owed: a saboteur takes gold worth exactly their share (four
nuggets for a lone saboteur), a winning selfish dwarf four, and with tournament roles the
first gold-digger three and the others two, each from the pile as it then was (the largest
total below the amount when the pile cannot make it, rules.md 5 and 7).  So a lone saboteur
who took two cards holds 1+3 or 2+2, never 1+1.

``sample_gold`` replays every hand-out of the game in order against a pile that starts as
every gold card: the seat's own cards leave it when the seat received them, a card kept from
the gold-diggers' hand-out is any card of the pile, and a take is a set of that many cards of
the owed total (the seat's own takes, whose cards it knows, rule out piles that could have
paid it more).  A replay can paint itself into a corner (an early draw takes a card a later
take needs), so it is repeated until one works; a history that no replay fits (it cannot come
from a game by the rules) gets the cards dealt with only the counts kept.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence

from .cards import GoldCard, Role
from .config import GameConfig
from .events import Event, GoldReceived, RoundEnded
from .gold import saboteur_share
from .phases import Winners

#: replays tried before the counts alone are kept
ATTEMPTS = 200


def hand_outs(history: Sequence[Event], config: GameConfig) -> list[tuple[int, int, int | None]]:
    """Every gold hand-out of the game in order: (player, cards, amount owed), the amount
    None for a card kept from the gold-diggers' hand-out."""
    out: list[tuple[int, int, int | None]] = []
    ended: RoundEnded | None = None
    taken = 0  # hand-outs of the round so far
    for event in history:
        if isinstance(event, RoundEnded):
            ended, taken = event, 0
        elif isinstance(event, GoldReceived) and ended is not None:
            out.append((event.player, event.cards, _owed(ended, config, taken)))
            taken += 1
    return out


def _owed(ended: RoundEnded, config: GameConfig, earlier: int) -> int | None:
    winners = Winners(ended.winners)
    if winners is Winners.SABOTEURS:
        return saboteur_share(sum(role is Role.SABOTEUR for role in ended.roles))
    if winners is Winners.SELFISH_DWARF:
        return 4
    if winners is Winners.GOLD_DIGGERS and config.has("tournament-roles"):
        return 3 if earlier == 0 else 2
    return None


def sample_gold(
    cards: Sequence[GoldCard], own: Sequence[GoldCard], seat: int, players: int,
    outs: Sequence[tuple[int, int, int | None]], rng: random.Random,
) -> tuple[list[list[GoldCard]], list[GoldCard]]:
    """The other seats' gold (``[]`` at ``seat``) and the pile left, drawn from ``cards`` (the
    game's gold cards) less ``own`` (the seat's, in the order received) to fit ``outs``."""
    pool = list(cards)
    for face in own:
        pool.remove(face)
    for _ in range(ATTEMPTS):
        found = _replay(pool, own, seat, players, outs, rng)
        if found is not None:
            return found
    # no replay fits: keep the counts, nothing more
    rng.shuffle(pool)
    got: list[list[GoldCard]] = [[] for _ in range(players)]
    for player, count, _ in outs:
        if player != seat:
            got[player] += [pool.pop() for _ in range(min(count, len(pool)))]
    return got, pool


def _replay(
    pool: list[GoldCard], own: Sequence[GoldCard], seat: int, players: int,
    outs: Sequence[tuple[int, int, int | None]], rng: random.Random,
) -> tuple[list[list[GoldCard]], list[GoldCard]] | None:
    """One replay of the hand-outs, or None when it reaches a take it cannot make."""
    pile = list(pool)  # the cards other players can still receive
    ahead = list(own)  # the seat's cards still in the real pile
    got: list[list[GoldCard]] = [[] for _ in range(players)]
    for player, count, amount in outs:
        if player == seat:
            if count > len(ahead):
                return None
            if amount is not None:
                # the seat saw the pile it took from: its take was the most that pile made
                best = _best_total([c.nuggets for c in pile] + [c.nuggets for c in ahead], amount)
                if best != sum(c.nuggets for c in ahead[:count]):
                    return None
            del ahead[:count]
            continue
        if amount is None:
            if count > len(pile):
                return None
            for _ in range(count):
                got[player].append(pile.pop(rng.randrange(len(pile))))
            continue
        target = _best_total([c.nuggets for c in pile] + [c.nuggets for c in ahead], amount)
        taken = _take(pile, count, target, rng)
        if taken is None:
            return None
        got[player] += taken
    return got, pile


def _best_total(values: list[int], amount: int) -> int:
    """The largest total up to ``amount`` that cards of worth ``values`` make (0 if none)."""
    reach = 1  # bit t: a total of t can be made
    for v in values:
        if v > 0:
            reach |= (reach << v) & ((1 << (amount + 1)) - 1)
    return reach.bit_length() - 1


def _take(pile: list[GoldCard], count: int, total: int, rng: random.Random) -> list[GoldCard] | None:
    """``count`` cards of value worth ``total`` together, removed from ``pile`` at random
    (every such set of cards as likely); None when there is none."""
    by_value: dict[int, list[int]] = {}
    for i, card in enumerate(pile):
        if card.nuggets > 0:
            by_value.setdefault(card.nuggets, []).append(i)
    values = sorted(by_value)
    splits: list[tuple[int, ...]] = []  # how many cards of each value
    weights: list[int] = []

    def split(j: int, left_cards: int, left_total: int, chosen: tuple[int, ...]) -> None:
        if j == len(values):
            if left_cards == 0 and left_total == 0:
                splits.append(chosen)
                weights.append(math.prod(math.comb(len(by_value[v]), k) for v, k in zip(values, chosen, strict=True)))
            return
        for k in range(min(left_cards, len(by_value[values[j]]), left_total // values[j]) + 1):
            split(j + 1, left_cards - k, left_total - k * values[j], (*chosen, k))

    split(0, count, total, ())
    if not splits:
        return None
    chosen = rng.choices(splits, weights)[0]
    picked = [i for v, k in zip(values, chosen, strict=True) for i in rng.sample(by_value[v], k)]
    taken = [pile[i] for i in picked]
    for i in sorted(picked, reverse=True):
        del pile[i]
    return taken
