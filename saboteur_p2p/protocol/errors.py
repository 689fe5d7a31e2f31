"""The session's two kinds of error: a local one (our own illegal move) and a remote one
(a peer broke the protocol), kept apart as h11 keeps LocalProtocolError and
RemoteProtocolError apart."""
from __future__ import annotations


class IllegalMove(ValueError):
    """This seat's own move breaks the rules: a local error, nothing was signed or sent."""


class ProtocolViolation(ValueError):
    """A peer broke the protocol; ``peer`` is the seat to blame."""

    def __init__(self, peer: int, reason: str, detail: str = "", evidence: bytes | None = None) -> None:
        super().__init__(f"peer {peer} broke the protocol ({reason}){': ' + detail if detail else ''}")
        self.peer = peer
        self.reason = reason
        self.detail = detail
        #: the record that shows it, when it was found after that record was taken in (a
        #: shuffle checked in the background); else the record being taken in shows it
        self.evidence = evidence


class SecretsLost(RuntimeError):
    """This seat owes a record its saved secrets cannot make (a coin committed to, lost on
    this machine with the secrets file): a local failure, nobody else's."""


#: violations found before or by the signature check: the seat a record names may never have
#: signed it, so they prove nothing against that seat
UNSIGNED_REASONS = frozenset(("version", "game-id", "signature", "unknown-sender", "malformed-record"))


__all__ = ["UNSIGNED_REASONS", "IllegalMove", "ProtocolViolation", "SecretsLost"]
