"""A record that extends a point of the log every honest peer has moved past.

Records name the head they follow (``prev``).  Once a step is complete, every record due at
its head is in, so a new signed record that names a head the log has moved past (not a copy
of one it holds, and not a second version of one: that is equivocation) is out of turn,
whenever it arrives.  Judging it at its own point, not at the peer's current head, gives the
same verdict whatever a peer had taken in when it came (protocol.md §12.3): a peer still at
that head refuses it as out of turn, and one that has moved on names it the same way,
instead of keeping it aside as a record of some other branch.
"""
from __future__ import annotations

from ..crypto.log import Entry
from .errors import ProtocolViolation
from .node import Node


def out_of_turn_at_a_past_point(node: Node, entry: Entry) -> ProtocolViolation | None:
    """The violation a signed record of this game shows by extending a head ``node``'s log has
    moved past; None for anything else (a copy, a record of a point not reached yet, a record
    of another game or with a bad signature: those prove nothing here)."""
    log = node.log
    seats = node.setup.seats
    if entry.game_id != node.setup.game_id or entry.prev == log.head or not 0 <= entry.sender < len(seats):
        return None
    if not any(e.prev == entry.prev for e in log.entries) or any(e.hash == entry.hash for e in log.entries):
        return None
    if not seats[entry.sender].verify(entry.raw, entry.signature):
        return None
    return ProtocolViolation(
        entry.sender, "out-of-turn", f"a {entry.kind} record after a point of the log where every record due was in",
    )


__all__ = ["out_of_turn_at_a_past_point"]
