"""Chat in the lobby (protocol.md §12.2, 2f): what the people at a table say while it fills.

Before the start the joiners know only the host: a joiner's line goes to the host, which
shows it and passes it on, as it came (signed by the joiner), to every other seated joiner;
the host's own lines go to all of them.  So a host can withhold a line but cannot put words
in a joiner's mouth.  Lines are paced and cut as the game's chat (chat.py: one a second
from a seat, 200 characters), bound to the table (its salt), and numbered, so a line passed
on again is not heard twice.  Like the game's chat, nothing keeps or resends them.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from ..crypto.identity import Identity
from ..protocol.messages import printable
from .chat import CHAT_MAX, IncomingChat, OutgoingChat
from .wire import BadEnvelope, Envelope, seal

#: the envelope of a line said in the lobby
LOBBY_CHAT = "lobby-chat"

#: what a seat says hears another's line: (seat, name, text)
Heard = Callable[[int, str, str], None]


class LobbyChat:
    """One peer's chat while its table fills: the lines its person says, and those it hears."""

    def __init__(self, identity: Identity, said: Callable[[], str | None] | None, heard: Heard | None) -> None:
        self.identity = identity
        self._said, self._heard = said, heard
        self.out = OutgoingChat()
        self.incoming = IncomingChat()
        #: the number of our last line (milliseconds of the clock, and always higher than the last)
        self._number = 0
        #: each speaker's (by signing key) last line's number
        self._last: dict[bytes, int] = {}

    def due(self, table: bytes, seat: int, name: str) -> bytes | None:
        """Our next line to send now, sealed (and shown here), if its turn has come; the lines
        said wait in the person's queue until then."""
        if self._said is None:
            return None
        if not self.out.waiting:
            text = self._said()
            if not text:
                return None
            refused = self.out.add(text)
            if refused is not None and self._heard is not None:
                self._heard(seat, name, refused)
        due = self.out.due(time.monotonic())
        if due is None:
            return None
        self._number = max(self._number + 1, time.time_ns() // 1_000_000)
        if self._heard is not None:
            self._heard(seat, name, due[0])
        return seal(self.identity, LOBBY_CHAT, {"table": table, "n": self._number, "text": due[0]})

    def take(self, env: Envelope, table: bytes, seat: int, name: str) -> bool:
        """Show a line ``seat`` (``name``; the envelope's signer) said, if it is one: of this
        table, not heard before, within the pace.  Whether it was shown (the host then passes
        it on)."""
        try:
            text = env.field("text", str, CHAT_MAX)
            number = env.field("n", int)
            said_at = env.field("table", bytes, len(table))
        except BadEnvelope:
            return False
        if said_at != table or number <= self._last.get(env.key, 0):
            return False  # another table's, or heard already (passed on again)
        if not self.incoming.take(seat, time.monotonic()):
            return False
        self._last[env.key] = number
        if self._heard is not None:
            self._heard(seat, name, printable(text))
        return True


def speaker(seats: Sequence[object], key: bytes) -> tuple[int, str] | None:
    """The seat and name of ``key`` in a ``table`` message's seats (each ``[name, sign_key,
    dh_key, endpoint]``, the host's word), or None."""
    for seat, entry in enumerate(seats):
        if isinstance(entry, list) and len(entry) == 4 and entry[1] == key and isinstance(entry[0], str):
            return seat, printable(entry[0])[:40]
    return None
