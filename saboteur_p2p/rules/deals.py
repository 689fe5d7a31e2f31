"""The weight of every deal of the role cards to the seats, each seat weighing each role: the
exact prior of a belief over roles, and what ``determinize`` samples the roles from.

A deal's weight is the product of each seat's weight of its card times the number of ways a
fair deal gives it (the cards of that kind left); the sums are kept in logarithms, as a
product over many seats, or a ratio of two, would underflow a float.
"""
from __future__ import annotations

import functools
import math
from collections.abc import Callable


def log_deal_weight(table: tuple[tuple[float, ...], ...], counts: tuple[int, ...]) -> float:
    """The logarithm of the total weight of every deal of the role cards (``counts`` of each
    kind, in the order of the columns of ``table``) to the seats (its rows): over every deal,
    the product of each seat's weight of its card times the number of ways a fair deal gives
    it; -inf when no deal is possible.  A belief over roles takes a seat's exact chance of a
    role from the difference of two of these (a ratio of sums that would underflow a float)."""
    logs = tuple(tuple(math.log(w) if w > 0.0 else -math.inf for w in row) for row in table)
    return log_deal_weights(logs, counts)(0, (0,) * len(counts))


@functools.lru_cache(maxsize=64)
def log_deal_weights(table: tuple[tuple[float, ...], ...], counts: tuple[int, ...]) -> Callable[[int, tuple[int, ...]], float]:
    """The logarithm of the total weight of dealing the role cards left (``counts`` less
    ``used``) to the seats ``i`` onwards (-inf where no deal is left), as a function of
    ``(i, used)`` for one table of the weights' logarithms, remembering every partial deal
    it sums."""
    memo: dict[tuple[int, tuple[int, ...]], float] = {}

    def log_weight(i: int, used: tuple[int, ...]) -> float:
        if i == len(table):
            return 0.0
        found = memo.get((i, used))
        if found is not None:
            return found
        terms = []
        for j, w in enumerate(table[i]):
            k = counts[j] - used[j]
            if k > 0 and w > -math.inf:
                rest = log_weight(i + 1, (*used[:j], used[j] + 1, *used[j + 1:]))
                if rest > -math.inf:
                    terms.append(w + math.log(k) + rest)
        total = _log_sum(terms) if terms else -math.inf
        memo[(i, used)] = total
        return total

    return log_weight


def role_chances(table: tuple[tuple[float, ...], ...], counts: tuple[int, ...]) -> list[list[float]]:
    """Each seat's exact chance of each kind of card (rows and columns as ``log_deal_weight``
    takes them, weights not logarithms) over every deal, all at once: the deals' weights up to
    each seat (forwards) times the seat's card times the weights of dealing the rest to the
    seats after it (``log_deal_weights``), where one seat at a time took a sum over every
    deal per seat and card.  Every chance is 0 when no deal is possible."""
    logs = tuple(tuple(math.log(w) if w > 0.0 else -math.inf for w in row) for row in table)
    # not through the cache: a belief asks once a move, with a table of its own each time, and
    # would push determinize's tables out of it (a review)
    after = log_deal_weights.__wrapped__(logs, counts)
    total = after(0, (0,) * len(counts))
    chances = [[0.0] * len(counts) for _ in logs]
    if total == -math.inf:
        return chances
    before: dict[tuple[int, ...], float] = {(0,) * len(counts): 0.0}  # the cards used by the seats so far
    for i, row in enumerate(logs):
        reached: dict[tuple[int, ...], list[float]] = {}
        for used, weight in before.items():
            for j, w in enumerate(row):
                k = counts[j] - used[j]
                if k <= 0 or w == -math.inf:
                    continue
                step = (*used[:j], used[j] + 1, *used[j + 1:])
                through = weight + w + math.log(k)
                rest = after(i + 1, step)
                if rest > -math.inf:
                    chances[i][j] += math.exp(through + rest - total)
                    reached.setdefault(step, []).append(through)
        before = {used: _log_sum(terms) for used, terms in reached.items()}
    return chances


def _log_sum(terms: list[float]) -> float:
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


__all__ = ["log_deal_weight", "log_deal_weights", "role_chances"]
