"""The board's letter keys, and the typed command words that begin with one of them.

On the board a letter either acts at once (``r`` turns the card, ``x`` discards it, ``m``
marks it, ``c`` opens the chat line, ``q`` asks to leave, ``R`` opens the rules) or starts a
typed command with itself ("pass 2", "what 3").  Some command words begin with a key's
letter: repair, rockfall, rules, map, moves, quit, and Saboteur 2's clear.  Such a key waits
for the next one, as Vim waits to tell a mapping from its first key (prompt_toolkit's
``timeoutlen``): a letter that goes on with a command word opens the command line holding
both, any other key (or none within the wait) lets the first one act.  Only these keys wait,
and only as long as a word could begin; ``x`` and the digits act at once.  So do ``r`` and
``m`` (``AT_ONCE``), whose work is as easily undone: a card turns the moment ``r`` is
pressed, and a next key that goes on with a word (``re``) takes the turn back
(``TakeBack``) and opens the command line with both.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from functools import cache

from .commands import command_words
from .model import UIState

#: the arrow keys and the step each takes (the cursor on the maze, a choice of target)
ARROWS = {"left": (-1, 0), "right": (1, 0), "up": (0, -1), "down": (0, 1)}
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


#: board keys that act at once and are taken back when the next key goes on with a word
AT_ONCE = frozenset("rm")
#: seconds a key waits for the next (prompt_toolkit's ``timeoutlen``), and an ``AT_ONCE``
#: key's work may be taken back
KEY_WAIT = 0.3


class TakeBack:
    """The last ``AT_ONCE`` key's work, kept to be undone for a while (the keys' wait)."""

    def __init__(self, ui: UIState, wait: float) -> None:
        self.ui, self.wait = ui, wait
        #: (key, until when, what the key changed: the card's turn, the marks, the message)
        self.last: tuple[str, float, tuple[object, ...]] | None = None

    def act(self, key: str, action: Callable[[], None]) -> None:
        ui = self.ui
        saved = (ui.turned, list(ui.marked), ui.message, ui.message_kind, ui.message_until_move, ui.message_until_moves)
        action()
        self.last = (key, time.monotonic() + self.wait, saved)

    def goes_on(self, previous: str, letter: str, continues: bool) -> str | None:
        """The start of the word to type when ``letter``, the key right after ``previous``, goes
        on with a word (``continues``) that the last ``AT_ONCE`` key began: its work undone.
        None when it does not."""
        last, self.last = self.last, None
        if last is None or last[0] != previous or not continues or time.monotonic() > last[1]:
            return None
        ui = self.ui
        (ui.turned, ui.marked, ui.message, ui.message_kind, ui.message_until_move,
         ui.message_until_moves) = last[2]  # type: ignore[assignment]
        return previous + letter
