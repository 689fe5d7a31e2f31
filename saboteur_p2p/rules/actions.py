"""Actions and their text form.

Every action has a one-line text form that round-trips: ``Action.from_str(str(a)) == a``.
Card numbers are handles: positions in this round's shuffled draw deck (gold handles name
gold cards for the whole game).  Action cards may omit their handle (``break lantern @2``);
the checked ``State.play`` then uses the lowest-numbered matching card in hand.

    path 12 at 3,-1 [turned]      place path card 12 at (3,-1), optionally turned 180 degrees
    break lantern @2 [#7]         break player 2's lantern
    repair pickaxe @0 [#3]        repair player 0's pickaxe
    rockfall 4,1 [#9]             remove the tunnel card at (4,1)
    map 2 [#5]                    look at goal slot 2 (0 north, 1 middle, 2 south)
    pass 4                        discard card 4 face down
    pass 4,7,9                    Saboteur 2: discard one to three cards face down
    trapped @2 [#6]               Saboteur 2: play an action card on a player (also theft,
                                  hands-off, swap-hand, inspection, swap-hats, free)
    clear trapped with 3,7        Saboteur 2: discard two cards to remove a card in front of
                                  you (trapped, theft, pickaxe, lantern or cart)
    steal @3                      Saboteur 2: a thief takes a gold piece from player 3
    steal none                    a thief steals nothing
    orient 1 [turned]             choose the turn of the stone revealed in goal slot 1
    keep 17                       keep gold card 17 of those passed to you
    take 3,5,9                    take these gold cards from the gold pile
    take none                     take nothing (only when the pile holds nothing of value)
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import ClassVar

from .cards import ActionKind, Tool
from .errors import InvalidActionError


class Action:
    """Base of all actions; use ``Action.from_str`` to parse any of them."""

    __slots__ = ()
    verb: ClassVar[str]

    @staticmethod
    def from_str(text: str) -> AnyAction:
        return parse_action(text)

    def to_data(self) -> str:
        return str(self)


def _card_suffix(card: int | None) -> str:
    return "" if card is None else f" #{card}"


@dataclass(frozen=True, slots=True)
class PlacePath(Action):
    card: int
    x: int
    y: int
    turned: bool = False
    verb: ClassVar[str] = "path"

    @property
    def cell(self) -> tuple[int, int]:
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"path {self.card} at {self.x},{self.y}" + (" turned" if self.turned else "")


@dataclass(frozen=True, slots=True)
class BreakTool(Action):
    tool: Tool
    target: int
    card: int | None = None
    verb: ClassVar[str] = "break"

    def __str__(self) -> str:
        return f"break {self.tool.value} @{self.target}" + _card_suffix(self.card)


@dataclass(frozen=True, slots=True)
class RepairTool(Action):
    tool: Tool
    target: int
    card: int | None = None
    verb: ClassVar[str] = "repair"

    def __str__(self) -> str:
        return f"repair {self.tool.value} @{self.target}" + _card_suffix(self.card)


@dataclass(frozen=True, slots=True)
class Rockfall(Action):
    x: int
    y: int
    card: int | None = None
    verb: ClassVar[str] = "rockfall"

    @property
    def cell(self) -> tuple[int, int]:
        return (self.x, self.y)

    def __str__(self) -> str:
        return f"rockfall {self.x},{self.y}" + _card_suffix(self.card)


@dataclass(frozen=True, slots=True)
class MapPeek(Action):
    goal: int
    card: int | None = None
    verb: ClassVar[str] = "map"

    def __str__(self) -> str:
        return f"map {self.goal}" + _card_suffix(self.card)


@dataclass(frozen=True, slots=True)
class Pass(Action):
    """Discard face down: one card in the base game, one to three in Saboteur 2."""

    card: int
    more: tuple[int, ...] = ()
    verb: ClassVar[str] = "pass"

    @property
    def cards(self) -> tuple[int, ...]:
        return (self.card, *self.more)

    def __str__(self) -> str:
        return "pass " + ",".join(str(c) for c in self.cards)


#: Saboteur 2 action cards played on one player (theft only on oneself).
TARGETED_KINDS = (
    ActionKind.THEFT, ActionKind.HANDS_OFF, ActionKind.SWAP_HAND, ActionKind.INSPECTION,
    ActionKind.SWAP_HATS, ActionKind.TRAPPED, ActionKind.FREE,
)

#: What a Saboteur 2 player may clear from in front of themself by discarding two cards.
CLEARABLE = ("pickaxe", "lantern", "cart", "trapped", "theft")


@dataclass(frozen=True, slots=True)
class PlayOn(Action):
    """Saboteur 2: play a Theft, Hands off!, Swap your hand, Inspection, Swap your hats,
    Trapped! or Free at last! card on a player."""

    kind: ActionKind
    target: int
    card: int | None = None
    verb: ClassVar[str] = "play-on"

    def __str__(self) -> str:
        return f"{self.kind.value} @{self.target}" + _card_suffix(self.card)


@dataclass(frozen=True, slots=True)
class Clear(Action):
    """Saboteur 2: discard two cards face down to remove one card lying in front of you."""

    what: str
    cards: tuple[int, int]
    verb: ClassVar[str] = "clear"

    def __str__(self) -> str:
        return f"clear {self.what} with " + ",".join(str(c) for c in self.cards)


@dataclass(frozen=True, slots=True)
class Steal(Action):
    """Saboteur 2, end of a round: a thief takes one gold piece from ``target`` (or nobody)."""

    target: int | None
    verb: ClassVar[str] = "steal"

    def __str__(self) -> str:
        return "steal none" if self.target is None else f"steal @{self.target}"


@dataclass(frozen=True, slots=True)
class OrientStone(Action):
    goal: int
    turned: bool = False
    verb: ClassVar[str] = "orient"

    def __str__(self) -> str:
        return f"orient {self.goal}" + (" turned" if self.turned else "")


@dataclass(frozen=True, slots=True)
class KeepGold(Action):
    gold: int
    verb: ClassVar[str] = "keep"

    def __str__(self) -> str:
        return f"keep {self.gold}"


@dataclass(frozen=True, slots=True)
class TakeGold(Action):
    golds: tuple[int, ...]
    verb: ClassVar[str] = "take"

    def __str__(self) -> str:
        return "take " + (",".join(str(g) for g in self.golds) if self.golds else "none")


AnyAction = (
    PlacePath | BreakTool | RepairTool | Rockfall | MapPeek | Pass | OrientStone | KeepGold | TakeGold | PlayOn | Clear | Steal
)

#: what a move that is no turn's move does, for a refusal in a turn that names it in the words
#: it was typed in ("'orient' turns ...", where its class name told a person nothing)
OUT_OF_TURN_DOES: dict[type[Action], str] = {
    OrientStone: "turns a goal stone, when a path has just reached it",
    KeepGold: "keeps a gold card, at a round's end",
    TakeGold: "takes gold, at a round's end",
    Steal: "steals a gold piece, at a round's end in Saboteur 2",
    PlayOn: "plays a card on a player, in Saboteur 2",
    Clear: "discards two cards to clear one, in Saboteur 2",
}

#: Interned constructors for the actions legal_actions() builds over and over.  Unbounded
#: (``cache``, a plain dict): their keys are a deck's handles and the maze's cells, and a
#: bounded LRU's bookkeeping on every hit cost 4% of a bot game.
place_path = cache(PlacePath)
break_tool = cache(BreakTool)
repair_tool = cache(RepairTool)
rockfall = cache(Rockfall)
map_peek = cache(MapPeek)
pass_card = cache(Pass)
play_on = cache(PlayOn)
clear = cache(Clear)

_INT = r"(-?\d{1,6})"
_HANDLE = r"(?:\s+#(\d{1,6}))?"
_TOOL = r"(pickaxe|lantern|cart)"
_PATTERNS: list[tuple[re.Pattern[str], type[Action]]] = [
    (re.compile(rf"path\s+(\d{{1,6}})\s+at\s+{_INT}\s*,\s*{_INT}(\s+turned)?"), PlacePath),
    (re.compile(rf"break\s+{_TOOL}\s+@(\d{{1,3}}){_HANDLE}"), BreakTool),
    (re.compile(rf"repair\s+{_TOOL}\s+@(\d{{1,3}}){_HANDLE}"), RepairTool),
    (re.compile(rf"rockfall\s+{_INT}\s*,\s*{_INT}{_HANDLE}"), Rockfall),
    (re.compile(rf"map\s+(\d{{1,2}}){_HANDLE}"), MapPeek),
    (re.compile(r"pass\s+(\d{1,6}(?:\s*,\s*\d{1,6}){0,2})"), Pass),
    (re.compile(rf"({'|'.join(k.value for k in TARGETED_KINDS)})\s+@(\d{{1,3}}){_HANDLE}"), PlayOn),
    (re.compile(rf"clear\s+({'|'.join(CLEARABLE)})\s+with\s+(\d{{1,6}})\s*,\s*(\d{{1,6}})"), Clear),
    (re.compile(r"steal\s+(none|@\d{1,3})"), Steal),
    (re.compile(r"orient\s+(\d{1,2})(\s+turned)?"), OrientStone),
    (re.compile(r"keep\s+(\d{1,6})"), KeepGold),
    (re.compile(r"take\s+(none|\d{1,6}(?:\s*,\s*\d{1,6}){0,39})"), TakeGold),
]

MAX_ACTION_TEXT = 400


def _opt(value: str | None) -> int | None:
    return None if value is None else int(value)


def parse_action(text: str) -> AnyAction:
    """Parse the text form of an action; raises InvalidActionError quoting the input."""
    if not isinstance(text, str):
        raise InvalidActionError(f"an action must be text, not {type(text).__name__}")
    if len(text) > MAX_ACTION_TEXT:
        raise InvalidActionError(f"action text too long ({len(text)} characters)")
    if not text.replace("\t", " ").isascii() or not text.replace("\t", " ").isprintable():
        # other scripts' digits and letters would read as ASCII ones (int('١٤'), 'K'.lower()),
        # and Python splits at control characters other regular expressions do not: the text
        # a log keeps must read the same in any implementation
        raise InvalidActionError(f"action text is printable ASCII (spaces and tabs between words) only: {text!r}")
    clean = " ".join(text.strip().lower().split())
    for pattern, kind in _PATTERNS:
        match = pattern.fullmatch(clean)
        if match is None:
            continue
        g = match.groups()
        if kind is PlacePath:
            return PlacePath(int(g[0]), int(g[1]), int(g[2]), g[3] is not None)
        if kind is BreakTool:
            return BreakTool(Tool(g[0]), int(g[1]), _opt(g[2]))
        if kind is RepairTool:
            return RepairTool(Tool(g[0]), int(g[1]), _opt(g[2]))
        if kind is Rockfall:
            return Rockfall(int(g[0]), int(g[1]), _opt(g[2]))
        if kind is MapPeek:
            return MapPeek(int(g[0]), _opt(g[1]))
        if kind is Pass:
            cards = [int(v) for v in g[0].split(",")]
            return Pass(cards[0], tuple(cards[1:]))
        if kind is PlayOn:
            return PlayOn(ActionKind(g[0]), int(g[1]), _opt(g[2]))
        if kind is Clear:
            return Clear(g[0], (int(g[1]), int(g[2])))
        if kind is Steal:
            return Steal(None if g[0] == "none" else int(g[0][1:]))
        if kind is OrientStone:
            return OrientStone(int(g[0]), g[1] is not None)
        if kind is KeepGold:
            return KeepGold(int(g[0]))
        return TakeGold(() if g[0] == "none" else tuple(int(v) for v in g[0].split(",")))
    verbs = ", ".join(sorted({k.verb for _, k in _PATTERNS} - {"play-on"} | {k.value for k in TARGETED_KINDS}))
    raise InvalidActionError(f"cannot read action {text!r}: expected one of {verbs} (see the action text form)")
