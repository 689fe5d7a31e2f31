"""What the lobby agreed on before a game's first record (protocol.md §5.1)."""
from __future__ import annotations

from dataclasses import dataclass

from ..crypto.identity import PublicIdentity
from ..rules import GameConfig
from .messages import Genesis


@dataclass(frozen=True)
class GameSetup:
    """What the lobby agreed on: the game id, the rules, the seats and their identities."""

    game_id: bytes
    config: GameConfig
    seats: tuple[PublicIdentity, ...]
    names: tuple[str, ...]
    #: the salt of the table the lobby seated everyone at, which the genesis record names
    #: (empty for a game dealt without a lobby): a host that starts one table's seats on two
    #: games signs two geneses naming it (protocol/split.py)
    table: bytes = b""
    #: the table's wait for a seat gone silent, in ms (the host's ``--wait``; None: no lobby)
    wait_ms: int | None = None

    def genesis(self) -> Genesis:
        seats = tuple((s.sign_key, s.dh_key) for s in self.seats)
        return Genesis(self.config.to_data(), seats, self.names, self.table, self.wait_ms)


__all__ = ["GameSetup"]
