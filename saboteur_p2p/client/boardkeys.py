"""The board's letter keys, and the typed command words that begin with one of them.

On the board a letter either acts at once (``r`` turns the card, ``x`` discards it, ``m``
marks it, ``c`` opens the chat line, ``q`` asks to leave, ``R`` opens the rules) or starts a
typed command with itself ("pass 2", "what 3").  Some command words begin with a key's
letter: repair, rockfall, rules, map, moves, quit, and Saboteur 2's clear.  Such a key waits
for the next one, as Vim waits to tell a mapping from its first key (prompt_toolkit's
``timeoutlen``): a letter that goes on with a command word opens the command line holding
both, any other key (or none within the wait) lets the first one act.  Only these keys wait,
and only as long as a word could begin; ``x`` and the digits act at once.
"""
from __future__ import annotations

from functools import cache

from .commands import command_words

#: the letters bound on the board; any other letter starts a typed command with itself
BOARD_LETTERS = frozenset("rxmcqR")
#: the editions whose command words the keys wait for
EDITIONS = ("base", "saboteur2")


@cache
def continuations(key: str, edition: str) -> frozenset[str]:
    """The letters that, typed right after the board key ``key``, go on with a command word
    of this edition: ``e`` and ``o`` after ``r`` (repair, rockfall), ``u`` after ``q`` (quit)."""
    first = key.lower()
    words = command_words(edition)
    return frozenset(word[1] for word in words if len(word) > 1 and word[0] == first and word[1].isalpha())


def word_starts() -> list[tuple[str, str]]:
    """Every (board key, next letter) pair that begins a command word in some edition."""
    pairs = {(key, letter) for key in BOARD_LETTERS for edition in EDITIONS for letter in continuations(key, edition)}
    return sorted(pairs)
