"""Keys and typed commands to moves: the client's logic, with no terminal in sight.

The controller reads the latest ``Snapshot`` from its link (the ``ClientAgent``), keeps the
``UIState`` (selection, turn, cursor, target choice) and turns them into action texts in
the engine's form.  Every move is checked with the engine (``State.check`` on the
decision's private copy) before it is sent; a refused move shows the rule it breaks.
``focus()`` derives what the screen should highlight from the two.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..match import blind_end
from ..rules import (
    ActionCard,
    ActionKind,
    BreakTool,
    IllegalActionError,
    InvalidActionError,
    PathCard,
    PathKind,
    PlacePath,
    PlayerView,
    PlayOn,
    Rockfall,
    Role,
    parse_action,
)
from ..rules.actions import CLEARABLE, TARGETED_KINDS
from ..rules.board import GOAL_CELLS
from .commands import TypedCommands, known_goal
from .maze import MazeMarks, maze_bounds
from .model import CURSOR_HOME, Cell, Item, ItemKind, LogKind, Snapshot, UIState, goal_faces, lobby_word, strip_items
from .words import Words

#: Saboteur 2 cards played on somebody else first (the choice starts on another player)
AIMED_AT_OTHERS = (ActionKind.BREAK, ActionKind.TRAPPED, ActionKind.SWAP_HAND, ActionKind.INSPECTION, ActionKind.SWAP_HATS)
#: what each Saboteur 2 card played on a player does, for the hint line
PLAY_ON_HINT = {
    ActionKind.THEFT: "laid before you: steal a piece after the round",
    ActionKind.HANDS_OFF: "remove a Theft from the player",
    ActionKind.SWAP_HAND: "swap hands with the player",
    ActionKind.INSPECTION: "look at the player's dwarf card",
    ActionKind.SWAP_HATS: "the player takes another dwarf card",
    ActionKind.TRAPPED: "the player may not play path cards",
    ActionKind.FREE: "free the player from a Trapped!",
}


class TableLink(Protocol):
    """What the controller needs from the agent."""

    def snapshot(self) -> Snapshot: ...

    def submit_move(self, decision_id: int, text: str) -> None: ...

    def send_chat(self, text: str) -> None: ...

    def request_start(self) -> None: ...

    def note(self, text: str, kind: LogKind = LogKind.NOTICE) -> None: ...


@dataclass(frozen=True)
class Focus:
    """What the screen highlights now, derived from the snapshot and the UI state."""

    items: tuple[Item, ...]
    selected: int | None
    turned: bool
    marks: MazeMarks
    target_player: int | None
    options: tuple[str, ...]
    option: str | None
    option_legal: bool | None
    hint: str
    #: Saboteur 2: the hand cards marked to discard together
    marked: tuple[int, ...] = ()
    #: ``option`` in a person's words (hand slots, player names), for the screen
    said: str | None = None
    #: why ``option`` is not legal on our move, in a person's words (the rule it breaks)
    problem: str | None = None


class Controller(TypedCommands):
    """Maps keys and commands to moves for one seat."""

    def __init__(self, link: TableLink, ui: UIState | None = None) -> None:
        self.link = link
        self.ui = ui if ui is not None else UIState()

    # -- what is selected --------------------------------------------------------------

    def snapshot(self) -> Snapshot:
        return self.link.snapshot()

    def items(self, snap: Snapshot) -> tuple[Item, ...]:
        return strip_items(snap.view, snap.my_move)

    def selected_item(self, snap: Snapshot) -> Item | None:
        items = self.items(snap)
        view = snap.view
        if view is None or not items:
            return None
        strip = (view.round, items[0].kind is ItemKind.GOLD, items[0].kind is ItemKind.STONE)
        if self.ui.selected_in != strip:
            # a new round, or gold or a stone instead of the hand: the old selection means nothing
            self.ui.selected, self.ui.selected_in, self.ui.turned = None, strip, False
            self.ui.marked = []
        choosing = snap.my_move and view.phase in ("keep-gold", "orient")
        if choosing and not any(item.handle == self.ui.selected for item in items):
            self.ui.selected = items[0].handle  # a gold choice or a stone is always selected
        for item in items:
            if item.handle == self.ui.selected:
                return item
        return None

    def options(self, snap: Snapshot, item: Item | None) -> tuple[str, ...]:
        """The targets of a card that chooses one (break, repair, map) or the gold to take."""
        view = snap.view
        if view is None:
            return ()
        if snap.decision is not None and view.phase in ("take-gold", "steal"):
            return snap.decision.legal_texts
        marked = self.marked(snap)
        if marked:
            return self._marked_options(snap, marked)
        if item is None or not isinstance(item.card, ActionCard):
            return ()
        card, h = item.card, item.handle
        seats = range(view.players)
        if card.kind is ActionKind.THEFT:
            return (f"theft @{view.seat} #{h}",)
        if card.kind in TARGETED_KINDS:
            return tuple(f"{card.kind.value} @{p} #{h}" for p in seats)
        if card.kind is ActionKind.BREAK:
            return tuple(f"break {card.tools[0].value} @{p} #{h}" for p in seats)
        if card.kind is ActionKind.REPAIR:
            return tuple(f"repair {t.value} @{p} #{h}" for t in card.tools for p in seats)
        if card.kind is ActionKind.MAP:
            return tuple(f"map {slot} #{h}" for slot in range(len(GOAL_CELLS)))
        return ()

    def marked(self, snap: Snapshot) -> tuple[int, ...]:
        """The hand cards marked to discard together, in the order they were marked."""
        view = snap.view
        if view is None or view.phase != "play":
            return ()
        hand = {h for h, _ in view.hand}
        return tuple(h for h in self.ui.marked if h in hand)

    def lying(self, snap: Snapshot) -> list[str]:
        """What lies in front of this seat that two discarded cards may remove (Saboteur 2)."""
        view = snap.view
        if view is None or view.config.edition != "saboteur2":
            return []
        seat = view.seat
        found = [t.value for t in view.broken[seat]]
        found += ["trapped"] if view.trapped and view.trapped[seat] else []
        found += ["theft"] if view.thefts and view.thefts[seat] else []
        return sorted(found, key=CLEARABLE.index)

    def _marked_options(self, snap: Snapshot, marked: tuple[int, ...]) -> tuple[str, ...]:
        """Two marked cards may clear what lies in front of you; any marked cards may be passed."""
        cards = ",".join(str(h) for h in marked)
        clears = [f"clear {what} with {cards}" for what in self.lying(snap)] if len(marked) == 2 else []
        return (*clears, f"pass {cards}")

    @staticmethod
    def _refusal(snap: Snapshot, text: str) -> IllegalActionError | InvalidActionError | None:
        """Why the engine refuses a move on our move, or None when it takes it."""
        assert snap.decision is not None
        try:
            snap.decision.checker.check(text, player=snap.seat)
        except (IllegalActionError, InvalidActionError) as exc:
            return exc
        return None

    def _plausible(self, snap: Snapshot, text: str) -> bool:
        """Whether a target option is legal: the engine says so on our move, else the view."""
        if snap.decision is not None:
            return self._refusal(snap, text) is None
        view = snap.view
        assert view is not None
        action = parse_action(text)
        tool = getattr(action, "tool", None)
        if action.verb == "break":
            return tool not in view.broken[action.target]  # type: ignore[union-attr,index]
        if action.verb == "repair":
            return tool in view.broken[action.target]  # type: ignore[union-attr,index]
        if action.verb == "map":
            return view.board.tiles[GOAL_CELLS[action.goal]].card is None  # type: ignore[union-attr]
        if isinstance(action, PlayOn):
            return _play_on_plausible(view, action)
        return True

    def _choice(self, snap: Snapshot, item: Item | None, options: tuple[str, ...]) -> int:
        """The index of the chosen option; a new card starts on its first sensible target.

        At a new decision (our move came, or another one) a target the player chose earlier
        with the keys stays if it is still legal; any other is chosen afresh, as the card was
        perhaps looked at when nothing was broken.
        """
        card_key = self._card_key(snap, item, options)
        key = (card_key, self._decision(snap))
        if self.ui.choice_for != key:
            earlier = self.ui.choice_for
            still = isinstance(earlier, tuple) and earlier[0] == card_key and options and self.ui.choice_by_hand == card_key
            self.ui.choice_for = key
            if still and self._plausible(snap, options[self.ui.choice % len(options)]):
                return self.ui.choice % len(options)
            self.ui.choice = 0
            legal = [i for i, text in enumerate(options) if self._plausible(snap, text)]
            others = [i for i in legal if getattr(parse_action(options[i]), "target", None) != snap.seat]
            ours = [i for i in legal if i not in others]
            preferred = others if item is not None and item.action_kind in AIMED_AT_OTHERS and others else legal
            if item is not None and item.action_kind is ActionKind.REPAIR and ours:
                preferred = ours  # a repair that can mend our own tool starts there, to dig again
            known = goal_faces(snap.view) if item is not None and item.action_kind is ActionKind.MAP and snap.view else None
            if known is not None:  # a Map starts on a goal not seen yet
                preferred = [i for i in legal if getattr(parse_action(options[i]), "goal", -1) not in known] or legal
            if preferred:
                self.ui.choice = preferred[0]
        return self.ui.choice % len(options) if options else 0

    @staticmethod
    def _card_key(snap: Snapshot, item: Item | None, options: tuple[str, ...]) -> object:
        """A card with its targets, as ``_choice`` tells one choice from another."""
        return (item.handle if item else None, snap.view.phase if snap.view else None, options)

    @staticmethod
    def _decision(snap: Snapshot) -> object:
        return snap.decision.id if snap.decision is not None else None

    # -- cells -------------------------------------------------------------------------

    def legal_cells(self, snap: Snapshot, item: Item, turned: bool) -> frozenset[Cell]:
        """Cells where this path or rockfall card is legal (the engine's list on our move)."""
        view = snap.view
        assert view is not None
        card = item.card
        if snap.decision is not None:
            faces = dict(view.hand)
            cells = set()
            for action in snap.decision.legal:
                if isinstance(card, PathCard) and isinstance(action, PlacePath) and faces.get(action.card) == card:
                    if action.turned == turned or card.symmetric:
                        cells.add(action.cell)
                elif isinstance(action, Rockfall) and item.action_kind is ActionKind.ROCKFALL:
                    cells.add(action.cell)
            return frozenset(cells)
        if isinstance(card, PathCard):
            if view.broken[view.seat] or (view.trapped and view.trapped[view.seat]):
                return frozenset()
            openings = card.turned_openings if turned else card.openings
            if card.ladder:  # a ladder needs no tunnel to the start, only a card to touch
                return frozenset(view.board.ladder_cells(openings))
            return frozenset(view.board.cells_for(openings))
        if item.action_kind is ActionKind.ROCKFALL:
            return frozenset(view.board.tunnel_cells())
        return frozenset()

    def _cell_mode(self, item: Item | None) -> bool:
        return item is None or item.kind is ItemKind.PATH or item.action_kind is ActionKind.ROCKFALL

    # -- the derived focus -------------------------------------------------------------

    def focus(self) -> Focus:
        """What to highlight and which action Enter would send."""
        snap = self.snapshot()
        ui = self.ui
        ui.fade(snap)
        if snap.decision is not None and ui.log_back_for != snap.decision.id:
            # our move: the log follows the newest lines again, whatever was scrolled back to
            # read (a play-test read an old `legal` into the next round, missing the moves)
            ui.log_back_for, ui.log_scroll, ui.log_anchor = snap.decision.id, 0, None
        view = snap.view
        items = self.items(snap)
        item = self.selected_item(snap)
        index = next((i for i, it in enumerate(items) if item is not None and it.handle == item.handle), None)
        if view is None:
            waiting = "q leaves" if snap.ended else f"{lobby_word(snap)} · : type a command · ? help"
            return Focus(items, None, False, MazeMarks(), None, (), None, None, waiting)
        options = self.options(snap, item)
        if ui.cursor_round != view.round:
            if ui.cursor_round is not None:  # the last round's cursor means nothing in this maze
                ui.cursor, ui.cursor_shown = CURSOR_HOME, False
            ui.cursor_round = view.round
        marks = MazeMarks(cursor=ui.cursor if ui.cursor_shown else None)
        option: str | None = None
        target: int | None = None
        x, y = ui.cursor
        if options:
            option = options[self._choice(snap, item, options)]
            action = parse_action(option)
            target = getattr(action, "target", None)
            goal = getattr(action, "goal", None)
            if goal is not None:
                face_down = frozenset(c for c in GOAL_CELLS if view.board.tiles[c].card is None)
                marks = MazeMarks(cursor=GOAL_CELLS[goal], targets=face_down)
        elif item is not None and item.kind is ItemKind.PATH:
            assert isinstance(item.card, PathCard)
            now = self.legal_cells(snap, item, ui.turned)
            other = self.legal_cells(snap, item, not ui.turned) - now
            preview = item.card.turned_segments(ui.turned) if ui.cursor not in view.board.tiles else None
            marks = MazeMarks(ui.cursor, now, other, frozenset(), preview, ui.cursor in now, item.card, ui.turned)
            option = f"path {item.handle} at {x},{y}" + (" turned" if ui.turned else "")
        elif item is not None and item.action_kind is ActionKind.ROCKFALL:
            marks = MazeMarks(cursor=ui.cursor, targets=self.legal_cells(snap, item, False))
            option = f"rockfall {x},{y} #{item.handle}"
        elif item is not None and item.kind is ItemKind.GOLD:
            option = f"keep {item.handle}"
        elif item is not None and item.kind is ItemKind.STONE:
            option = f"orient {item.handle}" + (" turned" if ui.turned else "")
            marks = MazeMarks(cursor=GOAL_CELLS[item.handle], preview=None)
        words = Words(view, snap.names)
        legal: bool | None = None
        problem = None
        if option is not None and snap.decision is not None:
            refusal = self._refusal(snap, option)
            legal = refusal is None
            if refusal is not None:
                problem = words.explain(refusal)  # shown beside the card before Enter, not only after
        hint = self._hint(snap, item, options)
        said = words.say(option) if option is not None else None
        return Focus(items, index, ui.turned, marks, target, options, option, legal, hint, self.marked(snap), said, problem)

    def _hint(self, snap: Snapshot, item: Item | None, options: tuple[str, ...]) -> str:
        view = snap.view
        assert view is not None
        if view.phase == "game-over":
            return "the game is over · q leaves · PgUp/PgDn scroll the log"
        if snap.ended is not None:
            return f"{snap.ended.splitlines()[0]} · q leaves"
        if snap.my_move and view.phase == "take-gold":
            return f"take gold worth {view.take_amount}: ↑↓ choose · Enter take"
        if snap.my_move and view.phase == "steal":
            return "steal a gold piece: ↑↓ choose from whom (or nobody) · Enter steal"
        marked = self.marked(snap)
        if marked:
            so_many = f"{len(marked)} marked"
            if len(options) > 1:
                return f"{so_many}: ↑↓ clear what or discard · Enter play · x discard them · Esc unmark"
            return f"{so_many}: x (or Enter) discards them · m marks up to 3 · Esc unmark"
        if item is None:
            count = len(self.items(snap))
            pick = f"{'1' if count == 1 else f'1-{count}'} pick a card · " if count else ""
            return pick + "arrows look around · : type a move · ? help · q quit"
        if item.kind is ItemKind.GOLD:
            return "←→ choose the gold card to keep · Enter keep it"
        if item.kind is ItemKind.STONE:
            return "r turns the stone · Enter confirms its turn"
        if item.kind is ItemKind.PATH:
            return "arrows move · Tab legal cells · r turn · Enter place · x discard · Esc cancel"
        if item.action_kind is ActionKind.ROCKFALL:
            return "arrows/Tab pick the card to remove · Enter play · x discard · Esc cancel"
        if item.action_kind is ActionKind.THEFT:
            return f"{PLAY_ON_HINT[ActionKind.THEFT]} · Enter play · x · Esc cancel"
        if item.action_kind in PLAY_ON_HINT:
            return f"{PLAY_ON_HINT[item.action_kind]}: ↑↓ choose · Enter play · x · m mark"  # type: ignore[index]
        what = "the goal to look at" if item.action_kind is ActionKind.MAP else "the player"
        return f"↑↓ choose {what} · Enter play · x discard · Esc cancel"

    # -- keys --------------------------------------------------------------------------

    def pick(self, index: int) -> None:
        """Select the strip item with this (0-based) index."""
        snap = self.snapshot()
        items = self.items(snap)
        if not 0 <= index < len(items):
            self.ui.say(f"there is no card {index + 1}" if items else "you hold no cards", "error")
            return
        item = items[index]
        self.selected_item(snap)  # notes which strip the selection belongs to
        self.ui.selected = item.handle
        self.ui.turned = False
        # no echo of the card (its slot is marked ▶, and the move it makes is shown beside the
        # hand): the message line says at once what the keys do with it
        self.ui.message = ""
        if item.kind is ItemKind.PATH or item.action_kind is ActionKind.ROCKFALL:
            upright = self.legal_cells(snap, item, False)
            turned = self.legal_cells(snap, item, True) - upright if item.kind is ItemKind.PATH else frozenset()
            # a rockfall keeps only a cell the player moved to: the cursor is left on the
            # card we laid last, which is a tunnel a rockfall may take, but seldom the one wanted
            chosen = item.kind is ItemKind.PATH or self.ui.cursor_by_hand == self._decision(snap)
            if self.ui.cursor in upright and chosen:
                return
            if (self.ui.cursor not in turned or not chosen) and (upright or turned):
                assert snap.view is not None
                self.ui.cursor = suggested_cell(snap.view, upright | turned, self.ui.cursor, item.card)
            # a cell where the card fits only the other way round comes with the card turned
            self.ui.turned = self.ui.cursor in turned

    def cycle(self, step: int) -> None:
        """Select the next (or previous) strip item."""
        snap = self.snapshot()
        items = self.items(snap)
        if not items:
            return
        item = self.selected_item(snap)
        index = next((i for i, it in enumerate(items) if item is not None and it.handle == item.handle), -1 if step > 0 else 0)
        self.pick((index + step) % len(items))

    def arrow(self, dx: int, dy: int) -> None:
        """Move the maze cursor, or choose among a card's targets."""
        snap = self.snapshot()
        view = snap.view
        if view is None:
            return
        item = self.selected_item(snap)
        options = self.options(snap, item)
        if options:
            self._choice(snap, item, options)
            self.ui.choice = (self.ui.choice + (dy or dx)) % len(options)
            self.ui.choice_by_hand = self._card_key(snap, item, options)
            return
        if item is not None and item.kind is ItemKind.GOLD:
            self.cycle(dx or dy)
            return
        x, y = self.ui.cursor
        low_x, low_y, high_x, high_y = maze_bounds(view.board)
        # one cell beyond the cards and the frontier, to look around (nothing is legal there)
        self.ui.cursor = (max(low_x - 1, min(high_x + 1, x + dx)), max(low_y - 1, min(high_y + 1, y + dy)))
        self.ui.cursor_by_hand = self._decision(snap)
        self.ui.cursor_shown = True

    def next_cell(self, step: int = 1) -> None:
        """Jump the cursor to the next cell where the selected card is legal, in reading
        order (row by row), as the card is turned now; ``step`` -1: to the one before.  A path card
        that fits nowhere this way round is turned first.  For a card played on a player
        or a goal: to the next target where it is legal (↑↓ also stop where it is not)."""
        snap = self.snapshot()
        item = self.selected_item(snap)
        if snap.view is None or item is None:  # Tab said nothing, where Enter says what to do first (a play-test)
            return self._pick_first(snap, ", then Tab goes to where it is legal")
        options = self.options(snap, item)
        if options and not self._cell_mode(item):
            current = self._choice(snap, item, options)
            for k in range(1, len(options) + 1):
                index = (current + step * k) % len(options)
                if self._plausible(snap, options[index]):
                    self.ui.choice = index
                    self.ui.choice_by_hand = self._card_key(snap, item, options)
                    return
            self.ui.say("no target of this card is legal now", "error")
            return
        if not self._cell_mode(item):
            return
        cells = sorted(self.legal_cells(snap, item, self.ui.turned), key=lambda c: (c[1], c[0]))
        if not cells and item.kind is ItemKind.PATH:
            # it fits nowhere this way round: turn it to where it fits the other way
            cells = sorted(self.legal_cells(snap, item, not self.ui.turned), key=lambda c: (c[1], c[0]))
            if cells:
                self.ui.turned = not self.ui.turned
                self.ui.say("turned 180°: it fits only so" if self.ui.turned else "upright: it fits only so")
        if not cells:
            self.ui.say("no legal cell for this card", "error")
            return
        cursor = (self.ui.cursor[1], self.ui.cursor[0])
        if step < 0:
            earlier = [c for c in cells if (c[1], c[0]) < cursor]
            self.ui.cursor = (earlier or cells)[-1]
        else:
            later = [c for c in cells if (c[1], c[0]) > cursor]
            self.ui.cursor = (later or cells)[0]
        self.ui.cursor_by_hand = self._decision(snap)
        self.ui.cursor_shown = True

    def turn(self) -> None:
        snap = self.snapshot()
        item = self.selected_item(snap)
        if item is not None and item.kind in (ItemKind.PATH, ItemKind.STONE):
            self.ui.turned = not self.ui.turned
            self.ui.say("turned 180°" if self.ui.turned else "upright")
        else:  # nothing picked yet: "only path cards ... turn" read as a refusal of the card (a play-test)
            self.ui.say("only path cards and stones turn" if item else "pick a path card (1-9, [ ]), then r turns it", "error")

    def _pick_first(self, snap: Snapshot, then: str = "") -> None:
        """Said by a key that needs a card picked, with none."""
        self.ui.say("the game has not started yet" if snap.view is None else f"pick a card first (number keys){then}", "error")

    def enter(self) -> bool:
        """Play what is selected, where the cursor or the choice says."""
        focus = self.focus()
        if focus.option is None:
            self._pick_first(self.snapshot())
            return False
        option = focus.option
        doubt = self._second_thought(self.snapshot(), option)
        if doubt is not None and self.ui.confirming != option:
            self.ui.confirming = option  # a target the arrows wrap round to in one key: ask once
            self.ui.say(f"{doubt}: Enter again to play it, Esc to choose again", "error")
            return False
        self.ui.confirming = None
        return self.attempt(option)

    @staticmethod
    def _second_thought(snap: Snapshot, option: str) -> str | None:
        """Why a move may not be what the player means, if it may not: it breaks one of their
        own tools, or a Map looks at a goal they know already."""
        view = snap.view
        if view is None:
            return None
        try:
            action = parse_action(option)
        except InvalidActionError:
            return None
        if isinstance(action, BreakTool) and action.target == view.seat:
            return f"that breaks your own {action.tool.value}"
        return known_goal(view, action)

    def mark(self) -> None:
        """Mark (or unmark) the selected card to discard it with others (Saboteur 2)."""
        snap = self.snapshot()
        view = snap.view
        item = self.selected_item(snap)
        if view is None or view.config.edition != "saboteur2":
            self.ui.say("only in Saboteur 2 are several cards discarded at once", "error")
            return
        if item is None or item.kind not in (ItemKind.PATH, ItemKind.ACTION):
            self.ui.say("pick a card of your hand to mark first", "error")
            return
        marked = list(self.marked(snap))
        if item.handle in marked:
            marked.remove(item.handle)
        elif len(marked) == 3:
            self.ui.say("at most 3 cards are discarded at once", "error")
            return
        else:
            marked.append(item.handle)
        self.ui.marked = marked
        lying = self.lying(snap)
        clear = ""
        if len(marked) == 2 and lying:
            # which one Enter clears, and how to choose another (a play-test could not clear Trapped!)
            clear = f" · Enter clears {lying[0]}" + (f" (↑↓: {', '.join(lying[1:])})" if len(lying) > 1 else "")
        self.ui.say(f"marked {len(marked)}: x discards them{clear}" if marked else "nothing marked")

    def discard(self) -> bool:
        snap = self.snapshot()
        marked = self.marked(snap)
        if marked:
            return self.attempt("pass " + ",".join(str(h) for h in marked))
        item = self.selected_item(snap)
        if item is None or item.kind not in (ItemKind.PATH, ItemKind.ACTION):
            self.ui.say("pick the card to discard first", "error")
            return False
        return self.attempt(f"pass {item.handle}")

    def cancel(self) -> None:
        self.ui.selected = None
        self.ui.turned = False
        self.ui.marked = []
        self.ui.confirming = None
        self.ui.cursor_shown = False
        self.ui.say("")


def hoped_goals(view: PlayerView) -> list[Cell]:
    """The face-down goals still worth reaching: the one known to hold the treasure, else those
    not known to be a stone (all of them when every one is)."""
    face_down = [slot for slot, cell in enumerate(GOAL_CELLS) if view.board.tiles[cell].card is None]
    known = goal_faces(view)
    treasure = [slot for slot in face_down if slot in known and known[slot].kind is PathKind.TREASURE]
    hoped = treasure or [slot for slot in face_down if slot not in known or known[slot].kind is not PathKind.STONE]
    return [GOAL_CELLS[slot] for slot in hoped or face_down]


def suggested_cell(view: PlayerView, cells: frozenset[Cell], cursor: Cell, card: object = None) -> Cell:
    """Where a picked path or rockfall card starts: the legal cell nearest a goal still worth
    reaching, where the game is played, and among those the one nearest the cursor.  (The
    cursor alone would keep it where our last card went: beside the start, or behind it.)
    A dead end goes to the front only for a saboteur: a digger who pressed Enter at once would
    close its own way, so it starts nearest the cursor."""
    blocking = blind_end(card)
    goals = hoped_goals(view) if not blocking or view.role is Role.SABOTEUR else []

    def distance(a: Cell, b: Cell) -> int:
        return abs(a[0] - b[0]) + abs(a[1] - b[1])

    return min(cells, key=lambda c: (min((distance(c, g) for g in goals), default=0), distance(c, cursor), -c[0], c[1]))


def _play_on_plausible(view: PlayerView, action: PlayOn) -> bool:
    """Whether a Saboteur 2 card played on a player looks legal from what the view shows.

    It only picks the target a card starts on when it is not our move: a Theft has one
    target (ourselves) and Swap your hats any, so neither needs a test here.
    """
    seat, target, kind = view.seat, action.target, action.kind
    if kind is ActionKind.HANDS_OFF:
        return view.thefts[target]
    if kind is ActionKind.TRAPPED:
        return target != seat and not view.trapped[target]
    if kind is ActionKind.FREE:
        return view.trapped[target]
    if kind in (ActionKind.SWAP_HAND, ActionKind.INSPECTION):
        return target != seat
    return True
