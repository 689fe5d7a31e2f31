"""Public events: what every player at the table sees happen."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .actions import AnyAction
from .cards import Card, PathCard, Role


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round: int
    first_player: int

    def to_data(self) -> dict[str, Any]:
        return {"event": "round-started", "round": self.round, "first_player": self.first_player}


@dataclass(frozen=True, slots=True)
class CardPlayed:
    """A turn: the action and, unless it was a face-down discard, the card's face."""

    player: int
    action: AnyAction
    card: Card | None

    def to_data(self) -> dict[str, Any]:
        return {
            "event": "card-played",
            "player": self.player,
            "action": str(self.action),
            "card": None if self.card is None else self.card.code,
        }


@dataclass(frozen=True, slots=True)
class GoalRevealed:
    slot: int
    card: PathCard
    turned: bool
    reached_by: int

    def to_data(self) -> dict[str, Any]:
        return {
            "event": "goal-revealed",
            "slot": self.slot,
            "card": self.card.code,
            "turned": self.turned,
            "reached_by": self.reached_by,
        }


@dataclass(frozen=True, slots=True)
class RoundEnded:
    round: int
    winners: str
    """A ``Winners`` value: "gold-diggers", "saboteurs", "blue-team", "nobody", ..."""
    roles: tuple[Role, ...]
    last_player: int

    def to_data(self) -> dict[str, Any]:
        return {
            "event": "round-ended",
            "round": self.round,
            "winners": self.winners,
            "roles": [role.value for role in self.roles],
            "last_player": self.last_player,
        }


@dataclass(frozen=True, slots=True)
class GoldReceived:
    """A player got gold cards; how many is public, what they are worth is not."""

    player: int
    cards: int

    def to_data(self) -> dict[str, Any]:
        return {"event": "gold-received", "player": self.player, "cards": self.cards}


@dataclass(frozen=True, slots=True)
class PiecesWon:
    """Saboteur 2: a player won gold pieces at the end of a round (as a winner or a geologist)."""

    player: int
    pieces: int

    def to_data(self) -> dict[str, Any]:
        return {"event": "pieces-won", "player": self.player, "pieces": self.pieces}


@dataclass(frozen=True, slots=True)
class Stolen:
    """Saboteur 2: a thief took a gold piece from ``victim`` (None: stole nothing)."""

    thief: int
    victim: int | None

    def to_data(self) -> dict[str, Any]:
        return {"event": "stolen", "thief": self.thief, "victim": self.victim}


@dataclass(frozen=True, slots=True)
class GameEnded:
    scores: tuple[int, ...]
    winners: tuple[int, ...]

    def to_data(self) -> dict[str, Any]:
        return {"event": "game-ended", "scores": list(self.scores), "winners": list(self.winners)}


Event = RoundStarted | CardPlayed | GoalRevealed | RoundEnded | GoldReceived | PiecesWon | Stolen | GameEnded
