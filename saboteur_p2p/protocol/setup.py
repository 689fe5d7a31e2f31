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

    def genesis(self) -> Genesis:
        return Genesis(self.config.to_data(), tuple((s.sign_key, s.dh_key) for s in self.seats), self.names)


__all__ = ["GameSetup"]
