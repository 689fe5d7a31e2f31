"""A host that starts one table's seats on two games, caught by the seats (protocol.md §4.9).

The host could send some joiners a ``start`` with one nonce of its own and the others one
with another, and play both games: each group of seats waits for the other's records in vain,
while it hears the other's pings, signed for the other game.  Every ``hello`` in a ``start``
is signed for the table's salt (net/table.py), so both games name one salt in their genesis
records, which the host signs.  A seat that hears another seat signing for another game shows
it the genesis of its own game (``split``, at most every ``SHOW_GENESIS_EVERY`` seconds while
it hears it); a seat shown a genesis that the host signed for another game at this table
holds the proof, names the host (``abort``, reason ``split-table``) and stops, and every seat
that gets the abort, and ``verify``, checks the proof itself.  A late message of an earlier
game names another table (or none): it proves nothing and names nobody.

A host may also leave a seat out of one of the two games: that seat's link endpoint then
admits none of the seats left out, and never dials them.  So a seat whose link endpoint
refuses ours, or that is away (silent for a few seconds), is shown our genesis at its
*table* endpoint as well (every ``SHOW_GENESIS_EVERY`` seconds at most), which admits anyone:
the one its hello named (``listens``, carried in ``start``).  A genesis shown there by
someone who is not a seat of this game is taken too (it proves itself), at most one a
second, and a seat that finds the split answers on that connection with its own genesis,
so the seat left out can prove it as well.  ``SplitWatch`` is the part of ``Session`` that
does this.
"""
from __future__ import annotations

import time
from collections.abc import Callable

from ..crypto.identity import Identity
from ..crypto.log import MAX_RECORD_SIZE, MalformedRecord, decode_record
from ..protocol.node import GameSetup, Node, ProtocolViolation
from ..protocol.split import SPLIT_REASON, SplitTableProof
from .absence import Absence
from .table import Table
from .transport import Transport
from .verdicts import SessionResult
from .wire import BadEnvelope, Envelope, seal

#: while a seat is heard signing for another game, it is shown our genesis this often at most
SHOW_GENESIS_EVERY = 2.0
#: geneses shown by someone who is not a seat of this game are checked this often at most
#: on one connection, and that many connections are remembered (then forgotten at once)
STRANGERS_EVERY = 1.0
MAX_STRANGERS = 1024


class SplitWatch(Absence):
    """Catching a split table, mixed into ``Session`` (which provides these attributes): the
    absence rules with what a seat gone may have been playing instead."""

    identity: Identity
    setup: GameSetup
    seat: int
    node: Node
    transport: Transport
    endpoints: dict[int, str]
    table: Table
    say: Callable[[str], None]

    def _cheater(self, violation: ProtocolViolation, evidence: bytes) -> SessionResult:
        raise NotImplementedError

    def _start_split_watch(self) -> None:
        #: when each seat was last shown our genesis
        self._shown_genesis: dict[int, float] = {}
        #: when a genesis shown by someone not seated here was last checked, by connection
        self._stranger_split_at: dict[bytes, float] = {}
        #: each other joiner's table endpoint, as its hello in ``start`` names it
        self._listens = {seat: listens for seat, listens in self.table.listens().items() if seat != self.seat}
        #: when each seat was last shown our genesis at its table endpoint, and when we last
        #: looked for links refused
        self._shown_at_table: dict[int, float] = {}
        self._refusals_seen = 0.0

    def _check_away(self, now: float) -> None:
        super()._check_away(now)
        if now - self._refusals_seen >= 1.0:  # a link refused at once: the seat plays another game?
            self._refusals_seen = now
            for seat, endpoint in self.endpoints.items():
                if self.transport.refused(endpoint):
                    self._show_genesis_at_table(seat)

    def _show_genesis_at_table(self, seat: int) -> None:
        """A seat away, or whose link endpoint refuses us, may play a game we are not seated
        at: show it our genesis at its table endpoint, which admits anyone."""
        listens, now = self._listens.get(seat), time.monotonic()
        if listens is None or not self.setup.table or not self.node.records:
            return
        if now - self._shown_at_table.get(seat, -SHOW_GENESIS_EVERY) < SHOW_GENESIS_EVERY:
            return
        self._shown_at_table[seat] = now
        if self.transport.connect(listens, server_key=self.setup.seats[seat].dh_key):
            self.transport.send(listens, self._our_genesis())

    def _heard_another_game(self, sender: int, game_id: bytes) -> None:
        """A seat signed a message for another game: a late one of an earlier game, or the host
        started the seats on different games (each seat then waits for the others' records in
        vain).  We show it our genesis (it proves the host's split, if that is what it is).
        Said once a seat, and said again if the game ends for that seat's absence."""
        now = time.monotonic()
        if now - self._shown_genesis.get(sender, -SHOW_GENESIS_EVERY) >= SHOW_GENESIS_EVERY:
            self._show_genesis(sender, now)
        if sender in self._other_game:
            return
        self._other_game[sender] = game_id
        self.say(f"{self._seat_name(sender)} sends messages signed for another game ({game_id.hex()[:16]}…) with "
                 f"this table's keys: a late message of an earlier game, or the host started the seats on different games")

    def _show_genesis(self, seat: int, now: float) -> None:
        """Show ``seat`` our game's genesis (once we hold it, at a table with a lobby)."""
        if self.setup.table and self.node.records:
            self._shown_genesis[seat] = now
            self.transport.send(self.endpoints[seat], self._our_genesis())

    def _our_genesis(self) -> bytes:
        """A ``split`` showing our game's genesis (once we hold it)."""
        return seal(self.identity, "split", {"game_id": self.setup.game_id, "genesis": self.node.records[0]})

    def _heard_split(self, env: Envelope, sender: int | None, connection: bytes = b"") -> SessionResult | None:
        """A seat (``sender``; None: someone not seated here, on ``connection``) showed us the
        genesis of its game: if the host signed it for another game at this table, the host
        split the table, and we name it with both geneses."""
        genesis = env.field("genesis", bytes, MAX_RECORD_SIZE)
        if self.seat == 0 or not self.setup.table or not self.node.records or self.node.aborted is not None:
            return None  # (the host is not shown its own doing; a game without a lobby has no table)
        now = time.monotonic()
        try:
            proof = SplitTableProof(decode_record(self.node.records[0]), decode_record(genesis))
        except MalformedRecord as exc:
            raise BadEnvelope(f"split: the genesis shown is not a record ({exc})") from None
        if sender is None:
            # a stranger's: its signature is checked only if all the rest would prove a split,
            # at most once a second for each connection (junk on one starves no other)
            if not proof.shows(self.setup, signed=False):
                return None
            if now - self._stranger_split_at.get(connection, -STRANGERS_EVERY) < STRANGERS_EVERY:
                return None
            if len(self._stranger_split_at) >= MAX_STRANGERS:
                self._stranger_split_at.clear()
            self._stranger_split_at[connection] = now
        if not proof.shows(self.setup):
            return None  # an earlier game's, another table's: it proves nothing
        others = set(self._other_game) if sender is None else {sender, *self._other_game}
        for seat in others:
            self._show_genesis(seat, now)  # the other game's seats catch it too (we stop now)
        if sender is None:  # one left out of our game: it hears us on the connection it came on
            self.transport.reply(connection, self._our_genesis())
        other = proof.genesis_b.game_id.hex()[:16]
        who = self._seat_name(sender) if sender is not None else "a seat of that game that is not seated at ours"
        detail = (f"the host started this table's seats on two games: {who} showed the genesis "
                  f"of game {other}…, which the host signed for this table")
        return self._cheater(ProtocolViolation(0, SPLIT_REASON, detail), proof.to_bytes())


__all__ = ["SHOW_GENESIS_EVERY", "SplitWatch"]
