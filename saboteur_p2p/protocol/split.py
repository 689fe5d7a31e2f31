"""Proof that a host started the seats of one table on two games (protocol.md §4.9).

The host is seat 0 and speaks first: its genesis record names the game (in the entry's
header) and the salt of the table its lobby seated everyone at (``table`` in the body).  An
honest host opens a table with a fresh salt and starts it once, so it never signs two
geneses that name one salt for two games.  A host that splits a table does: each group of
seats gets a ``start`` and a genesis of its own, and each group waits for the other's
records in vain.  When a seat hears another seat signing for another game, the two show each
other their geneses (the ``split`` envelope, net/splitting.py), and the pair convicts the host.

Nobody else can make the proof: both records carry the host's signature, and a joiner cannot
bring an honest host to name its table's salt in two games (every ``hello`` in a ``start``
is signed for that salt, net/table.py, and an honest host starts once).
"""
from __future__ import annotations

from dataclasses import dataclass

import msgpack

from ..crypto.identity import PublicIdentity
from ..crypto.log import GENESIS, MAX_RECORD_SIZE, Entry, MalformedRecord, decode_record_pair
from .errors import ProtocolViolation
from .messages import Genesis, MalformedMessage
from .setup import GameSetup

SPLIT_TAG = "split-table"
#: the reason a seat names the host for, in an ``abort`` and in a log's verdict
SPLIT_REASON = "split-table"


@dataclass(frozen=True)
class SplitTableProof:
    """Two genesis records signed by one host for two games of one table."""

    genesis_a: Entry
    genesis_b: Entry

    def to_bytes(self) -> bytes:
        proof: bytes = msgpack.packb([SPLIT_TAG, self.genesis_a.record, self.genesis_b.record], use_bin_type=True)
        return proof

    @classmethod
    def from_bytes(cls, data: object, max_size: int = MAX_RECORD_SIZE) -> SplitTableProof:
        """Parse a proof; MalformedRecord if it is not two well-formed records."""
        return cls(*decode_record_pair(data, SPLIT_TAG, max_size))

    def table(self, host: PublicIdentity, signed: bool = True) -> bytes | None:
        """The salt of the table both records start, if this proves that ``host`` (the
        seat-0 identity of both) started one table's seats on two games; else None.  With
        ``signed`` false, the signatures are not checked."""
        a, b = self.genesis_a, self.genesis_b
        if a.game_id == b.game_id:
            return None
        salts = {_table_of(a, host, signed), _table_of(b, host, signed)}
        salt = salts.pop()
        return salt if salt and not salts else None

    def shows(self, setup: GameSetup, signed: bool = True) -> bool:
        """Whether this proves that seat 0 of ``setup``'s game split its table: one record is
        of this game, at this table, and the other of another game at the same table.  With
        ``signed`` false, all of that but the signatures (a cheap look: no curve arithmetic)."""
        ids = (self.genesis_a.game_id, self.genesis_b.game_id)
        return bool(setup.table) and setup.game_id in ids and self.table(setup.seats[0], signed) == setup.table


def split_table(evidence: bytes, setup: GameSetup) -> ProtocolViolation | None:
    """The host's violation, if ``evidence`` is a split-table proof that shows it in this game."""
    try:
        proof = SplitTableProof.from_bytes(evidence)
    except (MalformedRecord, ValueError):
        return None
    if not proof.shows(setup):
        return None
    return ProtocolViolation(0, SPLIT_REASON, "the host started this table's seats on two games (two genesis records)")


def _table_of(entry: Entry, host: PublicIdentity, signed: bool = True) -> bytes:
    """The table salt that ``host``'s genesis record ``entry`` names; empty if it is not a
    genesis that ``host`` signed as seat 0 of a lobby's game."""
    if entry.sender != 0 or entry.seq != 0 or entry.kind != "genesis" or entry.prev != GENESIS:
        return b""
    try:
        genesis = Genesis.decode(entry.body)
    except MalformedMessage:
        return b""
    if not genesis.seats or genesis.seats[0][0] != host.sign_key:
        return b""  # (its link key may differ: the signature is what binds the host)
    return genesis.table if not signed or host.verify(entry.raw, entry.signature) else b""


__all__ = ["SPLIT_REASON", "SPLIT_TAG", "SplitTableProof", "split_table"]
