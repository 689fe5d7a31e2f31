"""What each connection may send a seat's session before it is read (protocol.md §12.1, "How
much a connection may send"): a seat's link, and each machine's connections that proved no
key, spend budgets of messages (by size too); past a seat's, its records and endings spend
one of their own, a copy of a record the log holds nothing, and a seat that relays records
that are malformed or not signed has its records dropped unread a while.  A flood of
well-formed, signed messages then costs their decryption, not their decoding and handling
(found by attacks).  ``Session`` mixes it in."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .pace import Budget, FirstWords
from .wire import BadEnvelope, open_envelope, peek_kind
from .zmtp import machine_of

if TYPE_CHECKING:
    from collections.abc import Callable

    from .intake import Intake
    from .links import Links
    from .lobby import Table
    from .transport import Transport

#: a seat's word that it ends the game: taken from any seat's link, and passed on to every
#: seat by a peer whose game it ended, so nobody takes that peer's silence for its absence
ENDINGS = frozenset({"bye", "abort", "gone"})
#: the messages a seat may send us a second on its link (a kilobyte each), and at once: far
#: more than the protocol needs.  Past it, what is not a record or an ending is dropped unread:
#: a flood of signed messages costs their decryption only (an attack's 800,000 chat lines made
#: 3-second turns, nobody named); records and endings spend a budget of their own (more than
#: any catch-up needs; a junk signature is cheap to make: review), copies of held ones nothing
SEAT_MESSAGES_PER_S, SEAT_BURST = 400.0, 800.0
SEAT_RECORDS_PER_S, SEAT_RECORDS_BURST = 200.0, 2000.0
#: a record costs one token more for each whole 4 KiB of it: its bytes are one bin in the
#: envelope, but the record is then decoded and its items checked (each at most MAX_ITEMS), and
#: a liar's 4 MiB records of small integers, at one token each, stalled a seat's loop for
#: seconds (an attack); the largest honest record, a 12-seat shuffle of 28 KB, costs 7
RECORD_BYTES_A_TOKEN = 4096
#: and, once decoded, a token more for each DECODING_A_TOKEN of the work its decoding took (an
#: item, and four for an array or map: ``ContainerCount.weight``): a liar's 4 KiB records of
#: 3,800 empty arrays each took 2 ms to decode for one token, and a flood of them kept a seat's
#: loop busy 80% of the time (an attack); the largest honest record weighs about 1,700
DECODING_A_TOKEN = 1024
#: shares sent ahead of their record (§6.8) that were refused cost their sender this many tokens
#: more, from both budgets: checking a sealed share's proof takes about 0.7 ms, and a liar's
#: bad ones at a token each kept a seat's loop busy about a third of the time (an attack);
#: an honest seat's shares are refused seldom (a race with the record they go ahead of)
REFUSED_AHEAD_TOKENS = 8
#: the same for one machine's connections that proved no seat's key (a spectator, a joiner
#: coming back, an ending passed on), whose first few messages, no larger than a hello, are
#: opened whatever their machine's budget (a hello first)
UNPROVEN_PER_S, UNPROVEN_BURST = 128.0, 256.0
FIRST_WORDS, FIRST_WORD_BYTES = 4, 2048
#: what a seat's link brings in past its budget, within a budget of its own: it moves the game on, or ends it,
#: or (a busy notice another seat passes on) moves our wait as it moved the passer's
_ALWAYS_OPENED = ENDINGS | {"record", "busy"}
#: what a seat may say on a connection that proved no key while the seats speak on their links
_SAID_UNPROVEN = ENDINGS | {"hello", "split"}
#: a relayer's records that may be malformed or unsigned (a second, at once) before the rest
#: of its records are dropped unread for BAD_RECORDS_SHUN seconds: an honest seat relays only
#: records it took in, and a 100 KB record of empty arrays costs 20 ms to decode (an attack)
BAD_RECORDS_PER_S, BAD_RECORDS_BURST, BAD_RECORDS_SHUN = 1.0, 8.0, 10.0


class Inflow:
    """Session mixin: the budgets a message spends before it is read."""

    table: Table
    names: list[str]
    links: Links
    intake: Intake
    transport: Transport
    say: Callable[[str], None]
    _outsider: Callable[[str], None]
    _admits: Callable[[str, bytes], bool]

    def _start_inflow(self) -> None:
        #: what each seat's link, and each machine's other connections, may still send (_handle)
        self.inflow = Budget(SEAT_MESSAGES_PER_S, SEAT_BURST)
        self.inflow_records = Budget(SEAT_RECORDS_PER_S, SEAT_RECORDS_BURST)
        self.inflow_unproven = Budget(UNPROVEN_PER_S, UNPROVEN_BURST)
        #: each connection's first words, opened whatever its machine's budget: a seat's hello
        #: as it comes back was kept out by a flood from its machine (found by review)
        self.first_words = FirstWords(FIRST_WORDS)
        #: the records each relayer may send that are malformed or not signed, and until when
        #: a relayer that sent more has its records dropped unread
        self.bad_records = Budget(BAD_RECORDS_PER_S, BAD_RECORDS_BURST)
        self.shunned: dict[int, float] = {}

    def _bad_record(self, relayed_by: int) -> None:
        """A record ``relayed_by`` sent was malformed or not signed: past its allowance, its
        records are dropped unread a while (said once)."""
        now = time.monotonic()
        if not self.bad_records.take(relayed_by, now) and self.shunned.get(relayed_by, 0.0) <= now:
            self.shunned[relayed_by] = now + BAD_RECORDS_SHUN
            self.say(f"{self.names[relayed_by]} (seat {relayed_by}) sent more records that are malformed or not signed "
                     f"than any honest seat would: its records are dropped unread for {BAD_RECORDS_SHUN:.0f} s")

    def _admits_unproven(self, kind: str, key: bytes) -> bool:
        """As ``_admits``, for a connection that proved no key while the seats speak on their
        links: of a seat's envelopes only what it may say there (a ``hello`` as it comes back,
        a ``split``, an ending: the signer's own word, whoever carries it), so that nothing
        else a seat signs there costs a signature check (an attack)."""
        seat = self.table.seat_of(key)
        if seat is None or kind in _SAID_UNPROVEN:
            return self._admits(kind, key)
        self._outsider(f"dropped a {kind} in the name of {self.names[seat]} (seat {seat}) that came on a connection "
                       "that proved no key (the seats speak on their links; its signature not checked)")
        return False

    def _within_budget(self, connection: bytes, key: bytes | None, owner: int | None, data: bytes) -> bool:
        """Whether a message may be opened: a seat's link, and one machine's other
        connections, each spend a ``Budget``; past it, a seat's records and endings are still
        opened within a budget of their own, and the rest dropped unread (and said)."""
        now = time.monotonic()
        kind = peek_kind(data)
        if kind == "lobby-chat":
            return False  # a lobby's line in flight at the start: nothing to the game, and no one's fault
        # by size (a message of many small parts costs its decoding: an attack); a record's
        # more gently, as a catch-up's records are large
        cost = 1.0 + len(data) // (RECORD_BYTES_A_TOKEN if kind == "record" else 1024)
        if key is not None and owner is not None:
            if kind == "record" and self.shunned.get(owner, 0.0) > now:
                return False  # it sent records that were malformed or not signed (_bad_record)
            if self.inflow.take(owner, now, cost):
                return True
            if kind == "record" and self._a_copy(data, owner):
                return False  # known by its bytes: no budget spent on it (a flood of copies stalled the flooder's own records)
            if kind in _ALWAYS_OPENED and self.inflow_records.take(owner, now, cost):
                return True
            self.links.dropped(owner, f"dropped messages from {self.names[owner]} (seat {owner}): more than "
                                      f"{SEAT_MESSAGES_PER_S:.0f} a second, far more than the protocol sends", now)
            return False
        address_of = getattr(self.transport, "address_of", None)
        place = machine_of(address_of(connection)) if self.links.proven_only and address_of is not None else connection
        if (len(data) <= FIRST_WORD_BYTES and self.first_words.take(connection)) or self.inflow_unproven.take(place, now, cost):
            return True
        where = f"{place}'s connections" if isinstance(place, str) and place else "a connection"
        self._outsider(f"dropped messages from {where} that proved no key: more than {UNPROVEN_PER_S:.0f} a second")
        return False

    def _decoded(self, seat: int, weight: int) -> None:
        """A record that ``seat`` sent took ``weight`` of work to decode: it pays for it from
        both its budgets, into debt if need be (the next of its messages then wait)."""
        self._pays(seat, weight // DECODING_A_TOKEN)

    def _pays(self, seat: int, tokens: int) -> None:
        """``seat`` pays ``tokens`` more for work found to cost more once done, from both its
        budgets, into debt if need be."""
        if tokens:
            now = time.monotonic()
            self.inflow.spend(seat, now, tokens)
            self.inflow_records.spend(seat, now, tokens)

    def _a_copy(self, data: bytes, owner: int) -> bool:
        """Whether the envelope ``data`` on ``owner``'s link is a record the log holds (its
        decoding costs little next to the signature check of a record not known)."""
        own = self.table.seats[owner].sign_key  # another's (a relay) is refused before its signature is checked
        try:
            env = open_envelope(data, lambda kind, key: key == own, proven=own)
            return env.kind == "record" and self.intake.holds(env.field("record", bytes, 5 * 1024 * 1024))
        except BadEnvelope:
            return False  # opened as any message, and dropped as a bad one
