"""Pure rules of Saboteur: no I/O, no clock, no global randomness."""
from __future__ import annotations

from .actions import (
    Action,
    AnyAction,
    BreakTool,
    KeepGold,
    MapPeek,
    OrientStone,
    Pass,
    PlacePath,
    RepairTool,
    Rockfall,
    TakeGold,
    parse_action,
)
from .board import GOAL_CELLS, START_CELL, Board
from .cards import ActionCard, ActionKind, Card, GoldCard, PathCard, PathKind, Role, RoleCard, Tool
from .config import VARIANTS, GameConfig
from .dealer import Deck, Dealer, TrustedDealer
from .errors import IllegalActionError, InvalidActionError
from .events import CardPlayed, Event, GameEnded, GoalRevealed, GoldReceived, RoundEnded, RoundStarted
from .state import Game, Phase, RoundResult, State, Winners
from .view import PlayerView

__all__ = [
    "Action", "AnyAction", "BreakTool", "KeepGold", "MapPeek", "OrientStone", "Pass", "PlacePath",
    "RepairTool", "Rockfall", "TakeGold", "parse_action", "GOAL_CELLS", "START_CELL", "Board",
    "ActionCard", "ActionKind", "Card", "GoldCard", "PathCard", "PathKind", "Role", "RoleCard", "Tool",
    "VARIANTS", "GameConfig", "Deck", "Dealer", "TrustedDealer", "IllegalActionError",
    "InvalidActionError", "CardPlayed", "Event", "GameEnded", "GoalRevealed", "GoldReceived",
    "RoundEnded", "RoundStarted", "Game", "Phase", "RoundResult", "State", "Winners", "PlayerView",
]
