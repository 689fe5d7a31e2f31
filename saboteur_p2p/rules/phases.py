"""Phases of a turn, kinds of round winner, and a round's result: the engine's outcome data."""
from __future__ import annotations

import enum
from dataclasses import dataclass

from .cards import Role


class Phase(enum.Enum):
    PLAY = "play"
    ORIENT = "orient"  # the player who reached a stone chooses its turn
    KEEP_GOLD = "keep-gold"  # gold-diggers keep one of the cards passed to them
    TAKE_GOLD = "take-gold"  # a winner takes cards worth an exact amount from the pile
    STEAL = "steal"  # Saboteur 2: a thief takes a gold piece from another player
    GAME_OVER = "game-over"


#: The phases the engine compares with at every move, read once: Python 3.11 looks an enum
#: member up on its class (``Phase.PLAY``) through ``EnumType.__getattr__``'s slot, about 850
#: instructions each time.
PLAY, KEEP_GOLD, TAKE_GOLD, GAME_OVER = Phase.PLAY, Phase.KEEP_GOLD, Phase.TAKE_GOLD, Phase.GAME_OVER


class Winners(enum.Enum):
    GOLD_DIGGERS = "gold-diggers"
    SABOTEURS = "saboteurs"
    SELFISH_DWARF = "selfish-dwarf"
    # Saboteur 2 (rules.md 8)
    BLUE_TEAM = "blue-team"
    GREEN_TEAM = "green-team"
    BOTH_TEAMS = "both-teams"
    BOSS = "boss"
    PROFITEER = "profiteer"
    NOBODY = "nobody"


@dataclass(frozen=True)
class RoundResult:
    round: int
    winners: Winners
    roles: tuple[Role, ...]
    gold_cards: tuple[int, ...]
    """How many gold cards each seat received this round (base game)."""
    gold_pieces: tuple[int, ...] = ()
    """Saboteur 2: the gold pieces each seat gained (or lost to thieves) this round."""
    trapped: tuple[int, ...] = ()
    """Saboteur 2: the seats trapped at the round's end (never winners, rules.md 8)."""
