"""Chat in the lobby (protocol.md §12.2, 2f): what the people at a table say while it fills.

Before the start the joiners know only the host: a joiner's line goes to the host, which
shows it and passes it on, as it came (signed by the joiner), to every other seated joiner;
the host's own lines go to all of them.  A joiner names a line's speaker by that speaker's
own signed hello to the table (``speakers``), so a host can withhold a line but cannot put
words in a joiner's mouth.  Lines are paced and cut as the game's chat (chat.py: one a second
from a seat, 200 characters), bound to the table (its salt), and numbered, so a line passed
on again is not heard twice.  Like the game's chat, nothing keeps or resends them.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from ..crypto.identity import Identity
from ..protocol.messages import printable
from .chat import CHAT_MAX, IncomingChat, OutgoingChat
from .table import said_to
from .wire import BadEnvelope, Envelope, open_envelope, seal

#: the envelope of a line said in the lobby
LOBBY_CHAT = "lobby-chat"
#: the seats of a table whose lines a joiner takes, at most (the most seats a table has)
MAX_SPEAKERS = 16

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
        if not table or said_at != table or number <= self._last.get(env.key, 0):
            return False  # not bound to a table yet, another table's, or heard already (passed on again)
        if not self.incoming.take(env.key, time.monotonic()):  # by key: a seat's number moves when one leaves
            return False
        self._last[env.key] = number
        if self._heard is not None:
            self._heard(seat, name, printable(text))
        return True


def speakers(table: Envelope, salt: bytes, host: bytes) -> dict[bytes, tuple[int, str]]:
    """Who may say a line at the table, by signing key: from a ``table`` message that the host
    (``host``, the key that asked for our hello) signed, seat 0 under its name, and each joiner
    whose own hello, in ``hellos``, is signed by its key with its name and said to this table
    (``salt``) and host: a host's word alone put a joiner's name on another key (an attack).
    (A host can still seat a key of its own under a name not at the table: it chooses who sits
    until the start, which every seat then checks.)"""
    seats, hellos = table.body.get("seats"), table.body.get("hellos")
    if table.key != host or not isinstance(seats, list) or not isinstance(hellos, list) or not seats:
        return {}
    found: dict[bytes, tuple[int, str]] = {}
    for seat, (entry, said) in enumerate(zip(seats[:MAX_SPEAKERS], [None, *hellos], strict=False)):
        if not isinstance(entry, list) or len(entry) != 4 or not isinstance(entry[0], str) or not isinstance(entry[1], bytes):
            continue
        if seat and not _own_hello(said, entry[1], entry[0], salt, host):
            continue
        if seat == 0 and entry[1] != host:
            continue
        found.setdefault(entry[1], (seat, printable(entry[0])[:40]))
    return found


def _own_hello(data: object, key: bytes, name: str, salt: bytes, host: bytes) -> bool:
    """Whether ``data`` is a hello signed by ``key``, naming ``name``, said to the table of
    ``salt`` and ``host``."""
    if not isinstance(data, bytes):
        return False
    try:
        said = open_envelope(data)
    except BadEnvelope:
        return False
    return said.kind == "hello" and said.key == key and said.body.get("name") == name and said_to(said, salt, host)
