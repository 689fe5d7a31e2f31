"""Pure rules of Saboteur: no I/O, no clock, no global randomness.

Importing this package registers the bundled editions (editions.py): ``state`` registers the
base game and ``saboteur2`` the expansion.  A new edition is one module that registers itself,
imported here.
"""
from __future__ import annotations

from .actions import (
    Action,
    AnyAction,
    BreakTool,
    Clear,
    KeepGold,
    MapPeek,
    OrientStone,
    Pass,
    PlacePath,
    PlayOn,
    RepairTool,
    Rockfall,
    Steal,
    TakeGold,
    parse_action,
)
from .board import GOAL_CELLS, START_CELL, Board, ReadOnlyBoard, Ways
from .cards import (
    ActionCard,
    ActionKind,
    Card,
    Door,
    GoldCard,
    PathCard,
    PathKind,
    Role,
    RoleCard,
    Tool,
)
from .config import VARIANTS, GameConfig, variants_words
from .dealer import Dealer, Deck, TrustedDealer
from .determinize import HandWeights, RoleWeights, determinize
from .editions import Edition, edition_named, edition_names, register
from .errors import IllegalActionError, InvalidActionError
from .events import (
    CardPlayed,
    Event,
    GameEnded,
    GoalRevealed,
    GoldReceived,
    PiecesWon,
    RoundEnded,
    RoundStarted,
    Stolen,
)
from .phases import Phase, RoundResult, Winners
from .saboteur2 import Saboteur2State
from .seat_moves import legal_actions_of
from .state import Game, State
from .view import PlayerView

__all__ = [
    "GOAL_CELLS",
    "START_CELL",
    "VARIANTS",
    "Action",
    "ActionCard",
    "ActionKind",
    "AnyAction",
    "Board",
    "BreakTool",
    "Card",
    "CardPlayed",
    "Clear",
    "Dealer",
    "Deck",
    "Door",
    "Edition",
    "Event",
    "Game",
    "GameConfig",
    "GameEnded",
    "GoalRevealed",
    "GoldCard",
    "GoldReceived",
    "HandWeights",
    "IllegalActionError",
    "InvalidActionError",
    "KeepGold",
    "MapPeek",
    "OrientStone",
    "Pass",
    "PathCard",
    "PathKind",
    "Phase",
    "PiecesWon",
    "PlacePath",
    "PlayOn",
    "PlayerView",
    "ReadOnlyBoard",
    "RepairTool",
    "Rockfall",
    "Role",
    "RoleCard",
    "RoleWeights",
    "RoundEnded",
    "RoundResult",
    "RoundStarted",
    "Saboteur2State",
    "State",
    "Steal",
    "Stolen",
    "TakeGold",
    "Tool",
    "TrustedDealer",
    "Ways",
    "Winners",
    "determinize",
    "edition_named",
    "edition_names",
    "legal_actions_of",
    "parse_action",
    "register",
    "variants_words",
]
