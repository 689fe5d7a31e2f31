"""Game configuration: player count, edition and the named rule variants."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .editions import Edition, edition_named

#: rules.md section 7 variants plus the first-player option of section 2.
VARIANTS: dict[str, str] = {
    "stone-nuggets": "six one-nugget gold cards are replaced by six worthless stones",
    "broken-tools-forfeit": "a gold-digger with a broken tool at the end of a round gets no gold",
    "selfish-dwarf": "one gold-digger card is replaced by a selfish dwarf who wins alone",
    "tournament-roles": "5-9 players: as many role cards as players, with a selfish dwarf; 3/2 nuggets",
    "gold-per-player": "the treasure finder draws one gold card per player",
    "left-of-first-starter": "each round is started by the player left of the last round's first player",
}



def variants_words(variants: Iterable[str]) -> str:
    """The variants a table plays, each with what it changes, for a player ("" for none)."""
    named = sorted(variants)
    return "variants: " + "; ".join(f"{v} ({VARIANTS.get(v, 'unknown')})" for v in named) if named else ""


@dataclass(frozen=True)
class GameConfig:
    """What every seat must agree on before a game starts."""

    players: int = 5
    edition: str = "base"
    variants: frozenset[str] = field(default_factory=frozenset)
    rounds: int = 3

    def __post_init__(self) -> None:
        object.__setattr__(self, "variants", frozenset(self.variants))
        edition = edition_named(self.edition)
        low, high = edition.players
        if not isinstance(self.players, int) or isinstance(self.players, bool) or not low <= self.players <= high:
            raise ValueError(f"{edition.title} is for {low} to {high} players, not {self.players!r}")
        unknown = self.variants - VARIANTS.keys()
        if unknown:
            raise ValueError(f"unknown variant(s) {', '.join(sorted(unknown))}; known: {', '.join(VARIANTS)}")
        if self.variants - edition.variants:
            extra = ", ".join(sorted(self.variants - edition.variants))
            raise ValueError(f"variant(s) {extra} do not apply to {edition.title}")
        if "tournament-roles" in self.variants and not 5 <= self.players <= 9:
            raise ValueError(f"tournament-roles is for 5 to 9 players, not {self.players}")
        if not isinstance(self.rounds, int) or not 1 <= self.rounds <= 10:
            raise ValueError(f"rounds must be 1 to 10, not {self.rounds!r}")

    @property
    def edition_rules(self) -> Edition:
        """The registered edition this game is played by."""
        return edition_named(self.edition)

    def has(self, variant: str) -> bool:
        return variant in self.variants

    def to_data(self) -> dict[str, Any]:
        return {"players": self.players, "edition": self.edition, "variants": sorted(self.variants), "rounds": self.rounds}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> GameConfig:
        players, rounds = data["players"], data.get("rounds", 3)
        for name, value in (("players", players), ("rounds", rounds)):
            # the data may come from the network or a log file: int() of a float infinity
            # raises OverflowError (not ValueError), and of 3.7 gives 3
            if not isinstance(value, int) or isinstance(value, bool):
                raise ValueError(f"{name} must be an integer, not {value!r}")
        return cls(
            players,
            str(data.get("edition", "base")),
            frozenset(data.get("variants", ())),
            rounds,
        )

    @staticmethod
    def parse_variants(text: str | Iterable[str] | None) -> frozenset[str]:
        if not text:
            return frozenset()
        items = text.split(",") if isinstance(text, str) else list(text)
        return frozenset(item.strip() for item in items if item.strip())
