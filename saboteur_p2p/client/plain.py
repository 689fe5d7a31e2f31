"""The plain line prompt (``--plain``, or no terminal) in a person's words.

``net.agents.LineAgent`` reads lines and hands them to the session as they are; this one
speaks and reads as the full-screen client does: cards by hand slot 1-6, players by name
(``client/words.py``), refusals in those words, and ``quit`` (or Ctrl-D, the end of the
input) to leave the table.
"""
from __future__ import annotations

import queue
import shutil
import sys
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..match import card_words
from ..net.agents import LineAgent, saboteur2_marks
from ..rules import IllegalActionError, InvalidActionError, PlacePath, PlayerView, State, Steal, TakeGold, parse_action
from ..rules.gold import gold_choices
from .cardinfo import slot_does
from .commands import legal_lines
from .maze import CELL_H, CELL_W, GUTTER, MazeMarks, maze_bounds, render_maze
from .model import MapNews, SteadyHand, gold_total, wrap_to_width
from .words import Words, alike_note, fewer_passes

if TYPE_CHECKING:
    from ..protocol.node import Node
    from .lineedit import LineEditor  # prompt_toolkit: imported where a person types at a terminal

HELP = (
    "moves: path 2 at 1,0 [turned] · break lantern @name · repair cart @me · rockfall 3,1 · map 2 · pass 4 · "
    "keep 1 · take 2+1 (the worths the take line lists) · orient 1 [turned]; legal: the legal moves; "
    "board: the maze; what 3: what card 3 does; "
    "say TEXT: chat; help: this list; quit (or Ctrl-D): leave"
)
#: the base game's gold moves, which Saboteur 2 (gold in pieces, thefts) has not (a play-test)
BASE_GOLD_MOVES = "keep 1 · take 2+1 (the worths the take line lists) · "
#: after the first move's prompt, where HELP is shown whole: where to find it
HELP_AGAIN = "(help: how moves are typed · legal · board · what 3)"
#: what a person may ask at any time, whoever's move it is (and "what 3", "info 3")
QUESTIONS = ("?", "help", "legal", "moves", "board", "maze")
HELP_2 = "Saboteur 2: trapped @name · free @name · theft · hands-off @name · swap-hand @name · inspection @name · " \
    "swap-hats @name · pass 4,5,6 · clear trapped with 3,5 · steal @name or steal nobody"


#: shown after the table at the seat's move, where the person types (on a terminal)
PROMPT = "> "
#: back to the start of the terminal's line, and clear it (the prompt's line)
CLEAR_LINE = "\r\x1b[K"


def terminal_width() -> int | None:
    """The columns of the terminal the prompt prints to, or None when it prints elsewhere."""
    return shutil.get_terminal_size().columns if sys.stdout.isatty() else None


def terminal_prompt() -> Callable[[str], None] | None:
    """What writes ``PROMPT`` (no line break) on the terminal, or None when printing elsewhere."""
    if not sys.stdout.isatty():
        return None

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    return write


class PlainAgent(LineAgent):
    """A person at a line prompt: moves in slots and names, checked before they are sent."""

    def __init__(
        self,
        say: Callable[[str], None] = print,
        width: int | None = None,
        prompt: Callable[[str], None] | None = None,
        editor: LineEditor | None = None,
    ) -> None:
        """``width``: the terminal's columns, to wrap long lines between words (a terminal
        would break them mid-word); None leaves lines whole (a pipe, a log).  ``prompt``
        writes text with no line break (a terminal's): with it, ``PROMPT`` shows where to
        type at our move, and a line said meanwhile takes its place and shows it again under
        it (a play-test typed at a bare line, unsure the game waited for it).  ``editor``:
        where a person types at a terminal, the lines come from it, edited as they are typed
        (``PROMPT`` is its prompt at our move, and ``prompt`` is not used)."""
        super().__init__(self._tell)  # the game's narration and chat wrapped too (a terminal broke "heuristic-|2")
        self._say_line = say
        self._editor = editor
        self._write = prompt if editor is None else None
        #: whether ``PROMPT`` is the last thing on the terminal (set by the reader thread too,
        #: under ``_screen``)
        self._prompting = False
        self._screen = threading.Lock()
        #: our last move was made for us, and our next has not come: a move typed now was
        #: meant for the turn that ran out (under ``_screen`` too)
        self._ran_out = False
        self.width = width
        self.wants_to_quit = False
        #: whether the moves' help has been shown whole (at the first move; after it, a pointer)
        self.helped = False
        #: questions typed (help, legal, board, what 3), answered whoever's move it is
        self.asked: queue.Queue[str] = queue.Queue()
        #: the game as last heard, and what our Maps showed that we have told
        self.state: State | None = None
        self._map_news = MapNews()
        self.narrated_end = False
        #: the hand numbered as the full-screen client numbers it: a card keeps its slot
        self._hand = SteadyHand()

    def start(self, seat: int, node: Node) -> None:
        self._hand = SteadyHand.beside(node)  # the slots of a seat taken back are kept
        super().start(seat, node)

    def _said(self, text: str) -> None:
        with self._screen:
            if self._prompting and self._write is not None:
                self._write(CLEAR_LINE)  # the prompt's line (what was typed there is still read)
                self._say_line(text)
                if self.prompted:
                    self._write(PROMPT)
                else:
                    self._prompting = False
            else:
                self._say_line(text)

    def _show_prompt(self) -> None:
        """``PROMPT``, at our move (on a terminal): where the person types."""
        if self._editor is not None:
            self._editor.refresh()  # its prompt reads ``prompted``
            return
        with self._screen:
            if self._write is not None and self.prompted and not self._prompting:
                self._write(PROMPT)
                self._prompting = True

    def _take(self, line: str) -> None:
        with self._screen:
            self._prompting = False  # the line typed ended with Enter: the terminal is on a new line
            late = self._ran_out and line and not line.startswith("say ") and line != "start"
        if _question(line):
            self.asked.put(line)  # answered at once (poll_chat), not held for our move
        elif late:
            # finished a moment after the turn timer's bot moved: it was played at our next
            # move, before its table was read (found by review)
            self.say(f"your turn had run out: {line!r} was not played")
        else:
            super()._take(line)

    def session_say(self, text: str) -> None:
        """What the session says (its ``say``), but not "game over. ..." once the narration's
        "== game over. ..." has said it (a play-test read the scores twice)."""
        if not (text.startswith("game over. ") and self.narrated_end):
            for line in text.splitlines() or [""]:  # each line wrapped between words (a terminal broke "heu|ristic-3")
                self._tell(line)

    def heard(self, state: State) -> None:
        if self.prompted and (state.is_terminal() or state.current_player() != self.seat_no):
            self._made_for_us()
        self._map_news.saw(state.events[self.heard_events:], self.seat_no)
        self.narrated_end = self.narrated_end or state.is_terminal()
        super().heard(state)
        self.state = state
        for line in self._map_news.lines(self._hand.view(state, self.seat_no)):
            self._tell(line)

    def _made_for_us(self) -> None:
        """Our move was made for us (the turn timer's bot): no prompt left, our next move shows
        the table again (it showed nothing: found by review), and a move typed late for this
        one is not taken for the next."""
        with self._screen:
            if self._prompting and self._write is not None:
                self._write(CLEAR_LINE)
            self._prompting = False
            self.prompted = False
            self._ran_out = True
        if self._editor is not None:
            self._editor.refresh()
        while not self.lines.empty():
            self.lines.get_nowait()

    def poll_chat(self) -> str | None:
        if self.state is not None:
            self._answer_asked(self.state)
        return super().poll_chat()

    def _answer_asked(self, state: State) -> None:
        answered = False
        while not self.asked.empty():
            self._answer(self.asked.get_nowait(), state)
            answered = True
        if answered:
            self._show_prompt()  # at our move, where to type the move asked about

    def _tell_help(self, edition: str) -> None:
        if edition == "saboteur2":
            self._tell(HELP.replace(BASE_GOLD_MOVES, ""))
            self._tell(HELP_2)
        else:
            self._tell(HELP)

    def _answer(self, line: str, state: State) -> None:
        """Help, the legal moves, the maze, or what a card does: asked at any time."""
        view = self._hand.view(state, self.seat_no)
        if line in ("?", "help"):
            self._tell_help(view.config.edition)
        elif line in ("legal", "moves"):
            if state.is_terminal():  # whoever moved last is no one's turn (found by a play-test)
                self._tell("the game is over: nobody has a move")
                return
            if state.current_player() != self.seat_no:
                self._tell(f"it is {self.names[state.current_player()]}'s move, not yours: legal lists your moves on your move")
                return
            words = Words(view, self.names)
            legal = legal_lines(fewer_passes(list(dict.fromkeys(words.say(a) for a in state.legal_actions()))))
            # every move, a line for each card and kind (the first forty moves were followed by
            # "...", and the rest could not be read: a play-test)
            self._tell(f"legal ({len(legal)} line{'' if len(legal) == 1 else 's'}, a card and kind each):")
            for line in legal:
                self._tell("  " + line)
            alike = alike_note(view)
            if alike is not None:
                self._tell(alike)
        elif line in ("board", "maze"):
            for row in plain_maze(view):
                self._said(row)  # as drawn: a row wrapped would break the maze
        else:
            self._tell(slot_does(view, line.partition(" ")[2])[1])

    def _read(self) -> None:
        typed = sys.stdin if self._editor is None else self._editor.lines(self._prompt_text)
        for line in typed:
            line = line.strip()
            if line in ("quit", "exit", "bye"):
                break
            if line == "q":  # the full-screen client's key: "cannot read 'q'" came a round later (a play-test)
                self._tell("to leave the table, type quit (or press Ctrl-D)")
                continue
            self._take(line)
        if self._editor is not None and self._editor.closed:
            return  # the game is over, nobody left: the editor gave the terminal back (``close``)
        # quit, or the end of the input (Ctrl-D): leave the table once the moves typed
        # before it are played (piped input arrives all at once)
        while not (self.lines.empty() and self.asked.empty()):
            time.sleep(0.05)
        self.say("leaving the table")
        self.wants_to_quit = True

    def close(self) -> None:
        """The game is over: the line editor, if any, gives the terminal back."""
        if self._editor is not None:
            self._editor.close()

    def _prompt_text(self) -> str:
        """The line editor's prompt: ``PROMPT`` at our move, where the move is typed."""
        return PROMPT if self.prompted else ""

    def poll_move(self, node: Node) -> str | None:
        state = node.state
        assert state is not None
        self._answer_asked(state)  # where nothing polls for chat (an offline table)
        line = self._next_line(state)
        if line is None:
            return None
        if _question(line):
            self._answer(line, state)
            self._show_prompt()
            return None
        view = self._hand.view(state, self.seat_no)
        words = Words(view, self.names)
        try:
            engine = words.read(line)
        except InvalidActionError as unreadable:
            self._tell(str(unreadable))  # not a move at all: how it is typed, not "not allowed"
            self._show_prompt()
            return None
        try:
            move = state.check(engine, player=self.seat_no)
        except (IllegalActionError, InvalidActionError) as refused:
            self._tell(f"not allowed: {words.explain(refused)}{_turned_instead(state, self.seat_no, engine, words)}")
            self._show_prompt()
            return None
        self.prompted = False
        return str(move)

    def _tell(self, text: str) -> None:
        """Say a line of text, wrapped between words to the terminal's width (``say``; the
        maze's rows are said as they are drawn, by ``_said``)."""
        if self.width is None or len(text) < self.width:
            self._said(text)
            return
        for row in wrap_to_width(text, self.width - 1, subsequent_indent="  "):
            self._said(row)

    def _show(self, state: State) -> None:
        with self._screen:
            self._ran_out = False  # our next move: what is typed now is for it
        view = self._hand.view(state, self.seat_no)
        for line in plain_view(view, self.names):
            self._tell(line)
        if self.helped:
            self._tell(HELP_AGAIN)  # the whole help at every move buried the table's news
        else:
            self._tell_help(view.config.edition)
            self.helped = True
        self.prompted = True  # as _next_line marks it once this returns: the prompt shows now
        self._show_prompt()


def _turned_instead(state: State, seat: int, text: str, words: Words) -> str:
    """For a path refused as it lies, the move turned when that one is legal: the full-screen
    client offers it (Tab), and the plain prompt said nothing (a play-test)."""
    action = parse_action(text)
    if not isinstance(action, PlacePath):
        return ""
    turned = PlacePath(action.card, action.x, action.y, not action.turned)
    try:
        state.check(turned, player=seat)
    except (IllegalActionError, InvalidActionError):
        return ""
    return f" · it fits turned: {words.say(turned)}"


def _question(line: str) -> bool:
    """Whether a typed line asks something (help, legal, board, what 3) rather than moves."""
    return line in QUESTIONS or line.partition(" ")[0] in ("what", "info")


def plain_maze(view: PlayerView) -> list[str]:
    """The whole maze as the full-screen client draws it, as lines of text (the goals this
    seat knows shown face up)."""
    low_x, low_y, high_x, high_y = maze_bounds(view.board)
    width = GUTTER + (high_x - low_x + 1) * CELL_W
    height = 1 + (high_y - low_y + 1) * CELL_H
    fragments, _ = render_maze(view.board, dict(view.known_goals), MazeMarks(), width, height)
    return [row.rstrip() for row in "".join(text for _, text in fragments).splitlines()]


def plain_view(view: PlayerView, names: list[str]) -> list[str]:
    """What the plain prompt shows when it is the seat's move, in slots and names."""
    seat = view.seat
    hand = ", ".join(f"{slot} {card_words(card)}" for slot, (_, card) in enumerate(view.hand, 1))
    broken = ", ".join(t.value for t in view.broken[seat]) or "none"
    role = view.role.value if view.role else "?"
    lines = [f"your move ({view.phase}); you are a {role}; hand: {hand or 'empty'}; your broken tools: {broken}"]
    if view.config.edition == "saboteur2":
        mine = [word for word, lying in (("trapped", view.trapped[seat]), ("theft", view.thefts[seat])) if lying]
        pieces = f"{view.gold_pieces} piece" + ("" if view.gold_pieces == 1 else "s")
        # broken tools lie in front of you too: "nothing" beside them read as a contradiction (a play-test)
        lines.append(f"your gold: {pieces}; Trapped! or Theft in front of you: {', '.join(mine) or 'neither'}")
        if view.phase == "steal":
            # the choices, as the take-gold line lists its own (a bare "steal" was refused: a play-test)
            words = Words(view, names)  # a player called "me" is said by seat, as `legal` says it
            whom = [words.say(Steal(t)) for t, has in enumerate(view.has_gold) if has and t != seat]
            lines.append("your Theft steals a gold piece from a player who has some: " + "; ".join([*whom, "steal nobody"]))
    if view.offered:
        lines.append("keep one of the gold cards passed to you: "
                     + ", ".join(f"{i} ({c.nuggets})" for i, (_, c) in enumerate(view.offered, 1)))
    if view.gold_pile:
        worths = sorted((c.nuggets for _, c in view.gold_pile), reverse=True)
        # the choices themselves, as `legal` says them: a fixed example ("take 3+2") was
        # refused where 3 was owed (a play-test)
        pile = [(handle, card.nuggets) for handle, card in view.gold_pile]
        words = Words(view, names)
        ways = [words.say(TakeGold(choice)) for choice in gold_choices(pile, view.take_amount)] or [words.say(TakeGold(()))]
        lines.append(f"take gold worth {view.take_amount} from the pile (values {', '.join(map(str, worths))}): "
                     + "; ".join(ways))
    others = [f"{names[s]} ({', '.join(marks)})" for s in range(view.players) if s != seat and (marks := _in_front(view, s))]
    if others:
        lines.append("others: " + "; ".join(others))
    lines.append(_table_line(view, names))
    return lines


def _table_line(view: PlayerView, names: list[str]) -> str:
    """The draw pile, our gold (the base game's; Saboteur 2's pieces have a line of their own)
    and each other seat's cards in hand and gold cards: the full screen shows them, the plain
    prompt did not, and a saboteur counts the pile (a play-test)."""
    pile = view.draw_pile_size
    parts = [f"draw pile: {pile} card{'' if pile == 1 else 's'}"]
    base = view.config.edition != "saboteur2"
    if base:
        parts.append(f"your gold: {gold_total(view.gold)} nuggets")
    held = [f"{names[s]} {view.hand_sizes[s]}" + (f" ({view.gold_counts[s]} gold)" if base and view.gold_counts[s] else "")
            for s in range(view.players) if s != view.seat]
    return "; ".join([*parts, "cards in hand: " + ", ".join(held)])


def _in_front(view: PlayerView, seat: int) -> list[str]:
    """What the table knows of another seat: its broken tools and, in Saboteur 2, a Trapped!
    or Theft in front of it, whether it has gold (a thief's targets) and the dwarf card this
    seat saw by Inspection.  Broken tools alone left a plain player with no way to choose
    whom to free, rob or hand a Hands off! (a play-test)."""
    marks = [f"{', '.join(t.value for t in view.broken[seat])} broken"] if view.broken[seat] else []
    return marks + saboteur2_marks(view, seat) if view.config.edition == "saboteur2" else marks
