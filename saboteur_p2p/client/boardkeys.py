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
(``TakeBack``) and opens the command line with both.  A next key that comes after the wait
opens the line alone, and the word may yet show that it began with the key ("r", a pause,
"epair"): ``word_begun_with`` tells, as the line is typed, and the key's work is taken back
then.  So too for the chat line ``c`` opens, whose text may be Saboteur 2's "clear".
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
        #: the last key's work when the next key went on with a word after the wait
        self.late: tuple[str, float, tuple[object, ...]] | None = None

    def act(self, key: str, action: Callable[[], None]) -> None:
        ui = self.ui
        saved = (ui.turned, list(ui.marked), ui.message, ui.message_kind, ui.message_until_move, ui.message_until_moves)
        action()
        self.last = (key, time.monotonic() + self.wait, saved)

    def goes_on(self, previous: str, letter: str, continues: bool) -> str | None:
        """The start of the word to type when ``letter``, the key right after ``previous``, goes
        on with a word (``continues``) that the last ``AT_ONCE`` key began: its work undone.
        None when it does not, or (kept for ``undo_late``) when it came after the wait."""
        last, self.last, self.late = self.last, None, None
        if last is None or last[0] != previous or not continues:
            return None
        if time.monotonic() > last[1]:
            self.late = last  # the word typed on may yet show that it began with the key
            return None
        self._restore(last[2])
        return previous + letter

    def undo_late(self, key: str) -> None:
        """Undo the work of ``key``, which a word began with after all (``word_begun_with``)."""
        if self.late is not None and self.late[0] == key:
            self._restore(self.late[2])
        self.late = None

    def _restore(self, saved: tuple[object, ...]) -> None:
        ui = self.ui
        (ui.turned, ui.marked, ui.message, ui.message_kind, ui.message_until_move,
         ui.message_until_moves) = saved  # type: ignore[assignment]


def word_begun_with(key: str, typed: str, edition: str, chat: bool = False) -> bool | None:
    """Whether ``typed``, a line opened after the board key ``key`` acted, is a command word
    begun with that key ("r", then "epair" is "repair"): True or False once its first word
    tells, None while it may go either way ("e" may begin "exit").  ``chat``: ``typed`` is what
    follows "say " on the line ``c`` opened, and tells only once its first word ends ("lear "
    is "clear "; "lea" may begin a word said to the table)."""
    words = command_words(edition)
    first, space, _ = typed.partition(" ")
    whole = key.lower() + first
    if space:
        return whole in words and (chat or first not in words)
    begins = any(word.startswith(whole) for word in words)
    if chat or any(word.startswith(first) for word in words):
        return None if begins else False
    return begins
