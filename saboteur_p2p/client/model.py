"""What the client shows, as plain data: snapshots of the seat's knowledge and the UI state.

A ``Snapshot`` is made on the session thread and handed to the UI thread whole; it is
never changed afterwards.  ``UIState`` belongs to the UI thread alone.
"""
from __future__ import annotations

import contextlib
import enum
import functools
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from ..files import read_note, write_note
from ..rules import (
    GOAL_CELLS,
    ActionCard,
    ActionKind,
    AnyAction,
    Card,
    CardPlayed,
    Event,
    GoldCard,
    MapPeek,
    PathCard,
    PathKind,
    PlayerView,
    RoundStarted,
    State,
)
from ..rules.cards import TREASURE

if TYPE_CHECKING:
    from .tracker import LastMove, RoundSummary

Cell = tuple[int, int]

#: short names of the tools, for narrow panels
TOOL_SHORT = {"pickaxe": "pick", "lantern": "lamp", "cart": "cart"}
ROLE_SHORT = {
    "gold-digger": "dig", "saboteur": "SAB", "selfish-dwarf": "self",
    "blue-digger": "blue", "green-digger": "green", "boss": "BOSS", "profiteer": "prof", "geologist": "geo",
}
#: the style class of a role (its team's colour): players.<class> and info.role.<class>
ROLE_STYLE = {
    "saboteur": "saboteur", "blue-digger": "blue", "green-digger": "green", "boss": "boss",
    "profiteer": "profiteer", "geologist": "geologist",
}
#: one-word names of the action cards, for the hand strip
ACTION_SHORT = {
    "break": "break", "repair": "fix", "map": "map", "rockfall": "rock",
    "theft": "theft", "hands-off": "h.off", "swap-hand": "swap", "inspection": "look",
    "swap-hats": "hats", "trapped": "trap", "free": "free",
}


#: runs of spaces between the words ``wrap_to_width`` wraps, and the whitespace it reads as spaces
_SPACES = re.compile(r"( +)")
_TO_SPACE = {ord(char): " " for char in "\t\n\x0b\x0c\r"}


def text_width(text: str) -> int:
    """The columns ``text`` takes on a terminal: a wide (CJK) character takes two, a
    combining mark none."""
    return sum(_char_width(char) for char in text)


def _char_width(char: str) -> int:
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cut_to_width(text: str, width: int) -> str:
    """The start of ``text`` that fits in ``width`` columns."""
    used = 0
    for index, char in enumerate(text):
        used += _char_width(char)
        if used > width:
            return text[:index]
    return text


def ellipsized(text: str, width: int) -> str:
    """``text`` in ``width`` columns, padded; cut with "…" when it does not fit."""
    if text_width(text) > width:
        text = cut_to_width(text, max(0, width - 1)) + "…"
    return pad_to_width(text, width)


def pad_to_width(text: str, width: int) -> str:
    """``text`` cut or padded with spaces to exactly ``width`` columns."""
    text = cut_to_width(text, width)
    return text + " " * (width - text_width(text))


def wrap_to_width(
    text: str, width: int, initial_indent: str = "", subsequent_indent: str = "", break_long_words: bool = True,
) -> list[str]:
    """``textwrap.wrap`` (never breaking at a hyphen) measured in terminal columns, so that a
    line of wide (CJK) characters, a name say, is not wrapped at twice the row's width and
    then clipped: the same rows as textwrap's for text that is all one column a character."""
    chunks = [chunk for chunk in _SPACES.split(text.expandtabs().translate(_TO_SPACE)) if chunk]
    chunks.reverse()
    rows: list[str] = []
    while chunks:
        indent = subsequent_indent if rows else initial_indent
        room = width - text_width(indent)
        if rows and not chunks[-1].strip():
            del chunks[-1]  # the spaces a row would start with
        row: list[str] = []
        used = 0
        while chunks and used + text_width(chunks[-1]) <= room:
            used += text_width(chunks[-1])
            row.append(chunks.pop())
        if chunks and text_width(chunks[-1]) > room:  # a word longer than a row
            if break_long_words:
                word = chunks.pop()
                head = cut_to_width(word, room - used if room >= 1 else 1) or ("" if row else word[0])
                row.append(head)
                if word[len(head):]:
                    chunks.append(word[len(head):])
            elif not row:
                row.append(chunks.pop())
        if row and not row[-1].strip():
            del row[-1]  # the spaces a row would end with
        if row:
            rows.append(indent + "".join(row))
    return rows


def fit_name(name: str, width: int) -> str:
    """A name in ``width`` columns, keeping its end ("heuristic-2" -> "heu…c-2"): seats
    named alike differ at the end.  Measured in columns, so a wide (CJK) name fits too."""
    if text_width(name) <= width:
        return name
    if width < 2:
        return cut_to_width(name, width)
    tail = ""
    for char in reversed(name):  # up to three columns of the end
        if text_width(char + tail) > min(3, width // 2):
            break
        tail = char + tail
    return cut_to_width(name, width - text_width(tail) - 1) + "…" + tail


def path_label(card: PathCard) -> str:
    """A one-word name of a path card: what is special about it, else just "path"."""
    if card.ladder:
        return "ladr"
    if card.door is not None:
        return card.door.value
    if card.crystals:
        return "gem"
    if sum(1 for s in card.segments if bin(s).count("1") > 1) > 1:
        return "2way"  # a bridge or two curves: two tunnels that do not meet
    return "path"


class LogKind(enum.Enum):
    """What a log line is, which decides its colour."""

    EVENT = "event"  # a public event of the game
    CHAT = "chat"  # a player's chat line
    NOTICE = "notice"  # the session or lobby speaking (away, back, log saved...)
    PRIVATE = "private"  # something only this seat learned (a Map)
    ERROR = "error"  # a refused move or a failure


@dataclass(frozen=True)
class LogLine:
    kind: LogKind
    text: str
    #: a player's move (the newest one is marked in the log)
    move: bool = False
    #: the one line that tells who is away and who is back (updated in place, not repeated)
    presence: bool = False


@dataclass(frozen=True)
class Decision:
    """This seat must act now: the legal actions and a private copy of the state to check moves.

    ``checker`` is a clone made for the UI thread alone, so checking a typed move never
    touches the session's state.  ``id`` tells a move meant for this decision from a late one.
    """

    id: int
    legal: tuple[AnyAction, ...]
    checker: State

    @functools.cached_property
    def legal_texts(self) -> tuple[str, ...]:
        """The legal actions in their text form, made once: completion asks at every keypress."""
        return tuple(str(a) for a in self.legal)


@dataclass(frozen=True)
class Snapshot:
    """Everything the screen shows about the table at one moment."""

    seat: int | None = None
    names: tuple[str, ...] = ()
    view: PlayerView | None = None
    decision: Decision | None = None
    away: frozenset[int] = frozenset()
    back: frozenset[int] = frozenset()
    #: the seats whose person left, a bot on their machine playing on (protocol.md §12.7)
    stand_ins: frozenset[int] = frozenset()
    #: the last round's result line ("round 1: saboteurs won") and its roles; in Saboteur 2
    #: also the gold pieces won and stolen
    last_round: str = ""
    #: set when the session has ended (its closing message)
    ended: str | None = None
    #: True while we are the host waiting in the lobby (the ``start`` command applies)
    hosting: bool = False
    #: the host's lobby: the table's edition, and the commands friends join it with (none when
    #: nobody is invited)
    edition: str = ""
    joining: tuple[str, ...] = ()
    #: the lobby: the table's seats in all (those past ``names`` are empty); 0 when not told
    table_size: int = 0
    #: every round that has ended, as this seat saw its end (the round-end screen)
    rounds: tuple[RoundSummary, ...] = ()
    #: each seat's last move this round
    last_moves: Mapping[int, LastMove] = field(default_factory=lambda: MappingProxyType({}))
    #: when the turn timer (``--turn-time``) has a bot choose our move (``time.monotonic()``);
    #: None without a timer running
    move_deadline: float | None = None
    #: what leaving does at this table (the session says so as it starts): True, the game ends
    #: for everyone; False, a bot plays our seat to the end; None, not told
    leave_ends: bool | None = None

    @property
    def my_move(self) -> bool:
        return self.decision is not None

    def name(self, seat: int) -> str:
        return self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"


def lobby_word(snap: Snapshot) -> str:
    """What the table does before the first view: fills, or (our seat given: the game began)
    shuffles and deals, for seconds at a big table on a busy machine with nothing said of it
    (a play-test)."""
    return "waiting for the table" if snap.seat is None else "every seat taken: shuffling and dealing"


class ItemKind(enum.Enum):
    PATH = "path"
    ACTION = "action"
    GOLD = "gold"
    STONE = "stone"  # a stone whose turn this seat chooses (phase orient)


@dataclass(frozen=True)
class Item:
    """One tile of the hand strip: a card in hand, an offered gold card, or a stone to orient."""

    kind: ItemKind
    handle: int
    card: Card

    @property
    def action_kind(self) -> ActionKind | None:
        return self.card.kind if isinstance(self.card, ActionCard) else None

    def label(self) -> str:
        """A one-word name of the card."""
        card = self.card
        if isinstance(card, PathCard):
            return "stone" if self.kind is ItemKind.STONE else path_label(card)
        if isinstance(card, GoldCard):
            return "stone" if card.nuggets == 0 else "gold"
        if isinstance(card, ActionCard):
            return ACTION_SHORT[card.kind.value]
        return "?"


def dealing(view: PlayerView) -> bool:
    """Whether some of our cards are dealt but not yet readable here: the mental-poker deal
    of a round takes a few seconds, in which the table already counts them."""
    return view.phase == "play" and len(view.hand) < view.hand_sizes[view.seat]


def goal_faces(view: PlayerView) -> dict[int, PathCard]:
    """The goal faces this seat knows (Maps, goals turned up), and the treasure when every
    other goal is known to be a stone: each edition has one treasure among its three goals."""
    return faces_known(view.known_goals)


class MapNews:
    """What this seat's own Maps showed it this round, told once each: "your map: goal 1 at
    8,0 is a stone" (a goal known otherwise, or turned up in the maze, is no news of a Map)."""

    def __init__(self) -> None:
        self.round = 0
        #: the goals our own Maps looked at this round, and those already told
        self.peeked: set[int] = set()
        self.told: set[int] = set()

    def saw(self, events: Sequence[Event], seat: int) -> None:
        """Take in the game's new events (our Maps played, a new round)."""
        for event in events:
            if isinstance(event, CardPlayed) and event.player == seat and isinstance(event.action, MapPeek):
                self.peeked.add(event.action.goal)
            elif isinstance(event, RoundStarted):
                self.peeked = set()

    def lines(self, view: PlayerView) -> list[str]:
        """The news not told yet, as the view knows the goals now."""
        if view.round != self.round:
            self.told, self.round = set(), view.round
        lines = []
        for slot, card in sorted(view.known_goals.items()):
            if slot in self.told or slot not in self.peeked or view.board.tiles[GOAL_CELLS[slot]].card is not None:
                continue
            self.told.add(slot)
            what = "the TREASURE" if card.kind is PathKind.TREASURE else "a stone"
            x, y = GOAL_CELLS[slot]
            lines.append(f"your map: goal {slot} at {x},{y} is {what}")
        return lines


def faces_known(goals: Mapping[int, PathCard]) -> dict[int, PathCard]:
    """``goals`` (the faces seen, by slot) and the treasure when every other goal is a stone."""
    known = dict(goals)
    unknown = [slot for slot in range(len(GOAL_CELLS)) if slot not in known]
    if len(unknown) == 1 and all(card.kind is PathKind.STONE for card in known.values()):
        known[unknown[0]] = TREASURE
    return known


def steady_slots(before: Sequence[int], now: Sequence[int]) -> list[int]:
    """The hand's cards (handles ``now``) in steady slots: each card still held keeps the slot
    it had (``before``), a new card takes the first slot a card left, then goes at the end.
    The engine appends a drawn card, so slot numbers shifted under a player's fingers."""
    held, old = set(now), set(before)
    fresh = iter([h for h in now if h not in old])
    slots = [h if h in held else next(fresh, None) for h in before]
    return [h for h in slots if h is not None] + list(fresh)


class SteadyHand:
    """A seat's views with its hand in steady slots (``steady_slots``), kept over every card
    it holds, a drawn card whose face is not shown to it yet included (the view leaves it
    out): the slot a played card left waits for it.  The full-screen client and the plain
    prompt both number cards so (the prompt shifted them left, and typed slots misplayed:
    found by a play-test)."""

    def __init__(self, store: str | None = None) -> None:
        #: the round and the hand's handles in the order the person sees them
        self._slots: tuple[int, list[int]] = (0, [])
        #: a file that keeps them for the seat's next run (a seat taken back after a crash
        #: numbered its cards afresh, and a move typed from memory misplayed: a play-test)
        self._store = store
        if store is not None:
            with contextlib.suppress(OSError, ValueError, TypeError):
                round_, order = read_note(store, "hand file")
                if isinstance(round_, int) and isinstance(order, list) and all(isinstance(h, int) for h in order):
                    self._slots = (round_, order)

    @classmethod
    def beside(cls, node: object) -> SteadyHand:
        """Slots kept beside the seat's log (``Node.writer``), if it writes one."""
        path = getattr(getattr(node, "writer", None), "path", None)
        return cls(f"{path}.hand" if isinstance(path, str) else None)

    def view(self, state: State, seat: int) -> PlayerView:
        view = state.view_for(seat)
        round_, before = self._slots
        order = steady_slots(before if round_ == view.round else [], state.hands[seat])
        if self._store is not None and (view.round, order) != self._slots:
            with contextlib.suppress(OSError, ValueError):
                write_note(self._store, [view.round, order], sync=False)  # a nicety: no disk flush a move
        self._slots = (view.round, order)
        faces = dict(view.hand)
        # gold passed to us, the most nuggets first (in the order drawn, the best was anywhere:
        # a play-test); numbered so in `keep N` too, as the strip shows them
        offered = tuple(sorted(view.offered, key=lambda item: -item[1].nuggets))
        return view._replace(hand=tuple((h, faces[h]) for h in order if h in faces), offered=offered)


def strip_items(view: PlayerView | None, deciding: bool) -> tuple[Item, ...]:
    """What the hand strip holds now: offered gold, the stone to orient, or the hand."""
    if view is None:
        return ()
    if deciding and view.phase == "keep-gold" and view.offered:
        return tuple(Item(ItemKind.GOLD, g, card) for g, card in view.offered)
    if deciding and view.phase == "orient" and view.pending_stones:
        slot = view.pending_stones[0]
        stone = view.known_goals.get(slot)
        if stone is not None:
            return (Item(ItemKind.STONE, slot, stone),)
    items = []
    for handle, card in view.hand:
        items.append(Item(ItemKind.PATH if isinstance(card, PathCard) else ItemKind.ACTION, handle, card))
    return tuple(items)


#: where the maze cursor starts a round: beside the start card
CURSOR_HOME: Cell = (1, 0)


@dataclass
class UIState:
    """The client's own state: selection, cursor, overlays and the message line."""

    #: handle of the selected strip item (hand card, offered gold); None: nothing selected
    selected: int | None = None
    #: the rows the side panel's log had when last drawn (none: its title row shows its newest
    #: line), and the width of that row
    log_rows: int = 1
    log_title_width: int = 40
    #: which strip the selection belongs to: (round, gold shown, stone shown)
    selected_in: object = None
    turned: bool = False
    cursor: Cell = CURSOR_HOME
    #: the cursor shows on an empty maze only once the arrows moved it (Esc and a new round
    #: hide it); a card played on a cell shows it always
    cursor_shown: bool = False
    #: the round the cursor belongs to: a new one puts it back beside the start
    cursor_round: int | None = None
    #: the maze cell shown top-left; None until the maze is first drawn
    origin: Cell | None = None
    #: index into the options of a card that chooses a target (break, repair, map, take)
    choice: int = 0
    choice_for: object = None
    #: the card (``Controller._card_key``) whose target the player chose with the keys: that
    #: choice is kept while it is legal; a target the client chose is chosen afresh
    choice_by_hand: object = None
    #: the decision during which the player moved the cursor with the keys (``Controller._decision``):
    #: a rockfall keeps such a cell, not the one the last card was laid on
    cursor_by_hand: object = None
    message: str = ""
    message_kind: str = "info"  # info, ok, error
    log_scroll: int = 0
    #: how many log lines there were when the player scrolled back (None: following the newest)
    log_anchor: int | None = None
    #: the decision at whose start the log went back to the newest lines
    log_back_for: int | None = None
    help_open: bool = False
    confirm_quit: bool = False
    #: the end-of-game ranking was put aside to look at the board
    ranking_hidden: bool = False
    #: the last round whose end screen the player has closed (a key closes it)
    round_seen: int = 0
    #: the last round whose end screen the player closed while its gold was handed out, to
    #: watch that at the table: it opens again once the gold is out
    round_watched: int = 0
    #: the rules page is open (R); ``rules_scroll`` is the first line shown of it or of the help
    rules_open: bool = False
    rules_scroll: int = 0
    #: a section of the rules to show from its heading when the page is next drawn (0: none;
    #: the line it starts on depends on the width the page is wrapped to)
    rules_section: int = 0
    #: the decision a move was sent for (no second move for it)
    sent_for: int | None = None
    #: Saboteur 2: hand cards marked (m) to discard together (pass) or to clear with (two)
    marked: list[int] = field(default_factory=list)
    #: a move on our own tools that Enter has asked about once: the next Enter plays it
    confirming: str | None = None
    history: list[str] = field(default_factory=list)
    #: no move of the play phase before this time (monotonic): a round's end screen was just
    #: closed, and keys typed on after the key that closed it were made for a hand not yet seen
    moves_after: float = 0.0
    #: the message says it is not our move: it goes when our move comes
    message_until_move: bool = False
    #: the message tells our move: it goes once another seat moves (or the round ends), as
    #: each seat's last move stood when it was said ("played: pass 1" stayed on for rounds:
    #: found by a play-test)
    message_until_moves: Mapping[int, LastMove] | None = None

    def log_drawn(self, rows: int) -> None:
        self.log_rows = rows

    def say(self, text: str, kind: str = "info", until_move: bool = False,
            until_moves: Mapping[int, LastMove] | None = None) -> None:
        self.message, self.message_kind, self.message_until_move = text, kind, until_move
        self.message_until_moves = until_moves

    def fade(self, snap: Snapshot) -> None:
        """Forget a message that no longer holds: "not your move" once it is, and our move
        once another seat has moved since."""
        if self.message_until_move and snap.decision is not None:
            self.say("")
        moves, now = self.message_until_moves, snap.last_moves
        if moves is not None and any(now.get(s) != moves.get(s) for s in {*moves, *now} if s != snap.seat):
            self.say("")


def gold_total(golds: Sequence[tuple[int, GoldCard]]) -> int:
    return sum(card.nuggets for _, card in golds)
