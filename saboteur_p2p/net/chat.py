"""Chat at the table: the lines a seat's person says, paced and cut as the others take them.

The others take one line a second from a seat (``CHAT_EVERY``, with a few at once allowed:
a faster one is dropped there), of at most ``CHAT_MAX`` characters.  So our own lines said faster wait their
turn here (a few at most: a line past those is refused in words), and a longer line goes out
in pieces, cut between words.  Chat is not logged and nothing resends it: a seat that is
away when a line goes out never hears it, and the one who said it is told so.
"""
from __future__ import annotations

import textwrap
from collections import deque
from collections.abc import Hashable

#: seconds between two lines of one seat, at least (the others drop a line that comes sooner)
CHAT_EVERY = 1.0
#: our own lines that wait for their turn to go out, at most
CHAT_WAITING = 5
#: characters in one chat line, at most (the others refuse a longer one)
CHAT_MAX = 200


def chat_line(name: str, text: str) -> str:
    """A line said at the table, as shown: ``<name> text``, its runs of spaces made one (a line
    padded with spaces to wrap onto a row of its own read as another's ``<ann> ...``: an attack)."""
    return f"<{name}> {' '.join(text.split())}"


class OutgoingChat:
    """Our own lines, waiting for their turn to go out."""

    def __init__(self) -> None:
        #: each piece to send, and whether it starts a line (the player is told things once a line)
        self.waiting: deque[tuple[str, bool]] = deque()
        self.last_sent = float("-inf")

    def add(self, text: str) -> str | None:
        """Queue a line said here (in pieces, if it is long); what to tell the player if some
        of it cannot wait its turn."""
        pieces = textwrap.wrap(text, CHAT_MAX, break_on_hyphens=False, drop_whitespace=True) or [text[:CHAT_MAX]]
        room = CHAT_WAITING - len(self.waiting)
        self.waiting.extend((piece, index == 0) for index, piece in enumerate(pieces[:room]))
        if len(pieces) <= room:
            return None
        left = " ".join(pieces[room:])
        return f"chat: {CHAT_WAITING} lines are waiting to go out (one a second); not sent: {left[:40]}"

    def due(self, now: float) -> tuple[str, bool] | None:
        """The next piece to send now, and whether it starts a line, if one waits and its turn has come."""
        if not self.waiting or now - self.last_sent < CHAT_EVERY:
            return None
        self.last_sent = now
        return self.waiting.popleft()


class IncomingChat:
    """The others' lines: one a second from each seat, on average, is shown.  A few may come
    at once (``CHAT_WAITING``): lines sent a second apart can be read in one poll here, when
    this peer was busy (the pieces of one long line were lost so: found by review)."""

    def __init__(self) -> None:
        #: each seat's allowance of lines (at most CHAT_WAITING), and when it was last counted
        #: (by seat, or by signing key in the lobby, whose seats move up when one leaves)
        self.allowance: dict[Hashable, tuple[float, float]] = {}

    def take(self, seat: Hashable, now: float) -> bool:
        """Whether a line from ``seat`` that came ``now`` is shown (its allowance is not spent)."""
        left, since = self.allowance.get(seat, (float(CHAT_WAITING), now))
        left = min(float(CHAT_WAITING), left + (now - since) / CHAT_EVERY)
        if left < 1.0:
            self.allowance[seat] = (left, now)
            return False
        self.allowance[seat] = (left - 1.0, now)
        return True
