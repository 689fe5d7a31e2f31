"""Choosing gold cards worth an exact amount from the gold pile (rules.md 5 and 7)."""
from __future__ import annotations

from collections.abc import Sequence

#: saboteurs in play -> nuggets each (rules.md 5).
SABOTEUR_SHARES = {1: 4, 2: 3, 3: 3, 4: 2}


def saboteur_share(saboteurs: int) -> int:
    if saboteurs == 0:
        return 0
    return SABOTEUR_SHARES.get(saboteurs, 2)


def gold_choices(pile: Sequence[tuple[int, int]], amount: int) -> list[tuple[int, ...]]:
    """The distinct ways to take gold worth ``amount`` from ``pile`` of (handle, nuggets).

    If the pile cannot make the exact amount, the ways to take the largest total below it.
    One choice per multiset of values, using the lowest-numbered handles of each value;
    worthless cards are never taken.  Empty when nothing of value can be taken.
    """
    by_value: dict[int, list[int]] = {}
    for handle, nuggets in sorted(pile):
        if nuggets > 0:
            by_value.setdefault(nuggets, []).append(handle)
    values = sorted(by_value)
    for total in range(amount, 0, -1):
        found: list[tuple[int, ...]] = []
        _combine(values, by_value, 0, total, [], found)
        if found:
            return found
    return []


def _combine(values: list[int], by_value: dict[int, list[int]], index: int, left: int,
             taken: list[int], found: list[tuple[int, ...]]) -> None:
    if left == 0:
        found.append(tuple(sorted(taken)))
        return
    if index == len(values):
        return
    value = values[index]
    handles = by_value[value]
    for count in range(min(len(handles), left // value), -1, -1):
        _combine(values, by_value, index + 1, left - count * value, taken + handles[:count], found)
