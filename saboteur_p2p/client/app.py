"""The prompt_toolkit application (layout, key bindings, completion, styles) and its launcher.

Thin by design: every panel's text comes from ``render``/``maze`` and every key goes to the
``Controller``.  The layout is prompt_toolkit's own (HSplit, VSplit, Window, TextArea,
Frame, FloatContainer); panels that depend on their size use ``SizedControl``, a UIControl
that renders for the exact width and height it is given.

``run_client(session, agent)`` runs the blocking ``session(agent)`` (for example a closure
around ``net.play.host_table`` with ``agent=agent``) in a daemon thread and the application
in the calling (main) thread.  When the person leaves before the end, the agent raises
``wants_to_quit``; the session sends ``bye`` to the table and stops, and the launcher
gives it a moment to do so.
"""
from __future__ import annotations

import asyncio
import functools
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import replace

from prompt_toolkit.application import Application
from prompt_toolkit.application.current import set_app
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.filters import Condition, has_focus, shift_selection_mode
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.key_binding.bindings.named_commands import get_by_name
from prompt_toolkit.layout import Float, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.layout.containers import ConditionalContainer, WindowAlign
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.dimension import Dimension
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style
from prompt_toolkit.widgets import Frame, TextArea

from .agent import ClientAgent
from .boardkeys import ARROWS, AT_ONCE, BOARD_LETTERS, KEY_WAIT, TakeBack, continuations, word_begun_with, word_starts
from .controller import Controller, Focus
from .controls import SizedControl
from .guide import PAGE_KEYS, RULES_KEYS, help_text, render_page, rules_text, section_line
from .maze import CELL_W, GUTTER, MazeMarks, maze_bounds, render_maze
from .model import UIState, ellipsized, goal_faces, pad_to_width, wrap_to_width
from .players import render_players
from .render import (
    HAND_HEIGHT,
    Fragments,
    last_move_marks,
    log_page,
    render_hand,
    render_info,
    render_log,
    render_log_title,
    render_message,
    render_status,
)
from .screens import (
    leave_question,
    render_lobby,
    render_ranking,
    render_round_end,
    round_end_hint,
    round_end_keys,
    round_end_open,
)
from .styles import COLOUR_STYLE, MONO_STYLE
from .tracker import RoundSummary

SIDE_MIN = 26
SIDE_MAX = 60
#: the command line while the keys act on the board (not a prompt: nothing typed goes there)
KEYS_PROMPT = ": (keys act at once · press : or start a word to type a command)"
#: seconds after a round's end screen is closed before a move is played: the keys typed on
#: after the one that closed it were made without seeing the new hand
LOOK_FIRST_S = 0.7
#: what a terminal too small for the table shows
TOO_SMALL = "The table needs a larger terminal (80x24 suits it): enlarge this one, or play with --plain."
#: a row, or none when the side panel has no room left (the log's title)
AT_MOST_A_ROW = Dimension(min=0, max=1, preferred=1)


class MoveCompleter(Completer):
    """Completes whole lines: the legal moves on our move, and the commands."""

    def __init__(self, controller: Controller, refused: Callable[[], str | None] = lambda: None) -> None:
        self.controller = controller
        #: the line the controller refused last, while it stands unedited
        self.refused = refused

    def get_completions(self, document: Document, complete_event: CompleteEvent) -> Iterable[Completion]:
        text = document.text_before_cursor
        if not text.strip() and not complete_event.completion_requested:
            return  # an emptied line (a command taken, a line reset) opens no menu: Tab does
        if document.text == self.refused() and not complete_event.completion_requested:
            # a completion still running as Enter was pressed ran again for the refused line
            # and opened its menu over the refusal; the refusal names the line, Tab offers it
            return
        for line in self.controller.completions(text):
            yield Completion(line, start_position=-len(text))


class ClientApp:
    """The full-screen client for one seat, fed by a ClientAgent."""

    def __init__(self, agent: ClientAgent, input: Input | None = None, output: Output | None = None) -> None:
        self.agent = agent
        self.ui = UIState()
        self.take_back = TakeBack(self.ui, KEY_WAIT)
        self.controller = Controller(agent, self.ui)
        self.snap = agent.snapshot()
        self.focus: Focus = self.controller.focus()
        self.input_area = TextArea(
            multiline=False, prompt=self._prompt, completer=MoveCompleter(self.controller, lambda: self._refused),
            complete_while_typing=True, history=InMemoryHistory(), accept_handler=self._accept, style="class:input",
        )
        self.maze_window = Window(SizedControl(self._maze, focusable=True))
        #: the screen width render_text draws for (else the terminal's)
        self._columns: int | None = None
        #: a typed line the controller refused (its message shows instead of the inline check)
        self._refused: str | None = None
        #: the board key that acted before the line was opened, and what the line opened with,
        #: while the word typed may yet show that it began with the key (``word_begun_with``)
        self._begun: tuple[str, str] | None = None
        self.input_area.buffer.on_text_changed += lambda _: self._word_goes_on()
        self.application: Application[str] = Application(
            layout=Layout(self._root(), focused_element=self.maze_window),
            key_bindings=self._bindings(),
            style=Style.from_dict(MONO_STYLE if os.environ.get("NO_COLOR") else COLOUR_STYLE),
            full_screen=True,
            input=input,
            output=output,
            refresh_interval=1.0,
        )
        # Escape alone should act at once: wait little for the rest of an escape sequence
        # or of a two-key binding (prompt_toolkit waits 0.5 s and 1 s by default)
        self.application.ttimeoutlen = 0.1
        self.application.timeoutlen = KEY_WAIT
        self.application.before_render += lambda _: self.refresh()
        agent.on_change = self.application.invalidate

    def run(self) -> str | None:
        """Run until the person leaves; returns "quit" when they chose to leave the table."""
        return self.application.run()

    def refresh(self) -> None:
        """Take the latest snapshot and derive the focus once per frame."""
        self.snap = self.agent.snapshot()
        self.focus = self.controller.focus()

    # -- layout ------------------------------------------------------------------------

    def _root(self) -> FloatContainer:
        # every seat's line first: the info lines and the log share what is left
        players = Window(SizedControl(self._players), dont_extend_height=True,
                         height=lambda: Dimension(min=1 + len(self.snap.names)))
        # at least a row for the info lines (your role and the draw pile), before the log's title
        info = ConditionalContainer(
            Window(SizedControl(lambda w, h: render_info(self.snap, w, h)), dont_extend_height=True, height=Dimension(min=1)),
            Condition(lambda: self._round_end() is None),
        )
        log_title = Window(SizedControl(lambda w, h: render_log_title(self.agent.log_lines(), self.ui, w)), height=AT_MOST_A_ROW)
        log = self.log_window = Window(SizedControl(lambda w, h: render_log(
            self.agent.log_lines(), self.ui.log_scroll, w, h, self.ui.log_anchor), drawn=self.ui.log_drawn))
        # the round-end screen takes the whole side panel: the log comes back after it
        log_shown = Condition(lambda: self._round_end() is None)
        side = HSplit([players, info, ConditionalContainer(HSplit([log_title, log]), log_shown)], width=self._side_width)
        # said instead of prompt_toolkit's "Window too small...": what to do about it
        small = Window(SizedControl(lambda w, h: [("", "\n".join(wrap_to_width(TOO_SMALL, max(10, w - 1))))]))
        middle = VSplit([self.maze_window, Window(width=1, char="│", style="class:rule"), side], window_too_small=small)
        body = HSplit(window_too_small=small, children=[
            Window(SizedControl(self._status), height=1),
            middle,
            Window(SizedControl(lambda w, h: render_hand(self.snap, self.focus, w, self._round_end() is not None)),
                   height=HAND_HEIGHT),
            Window(SizedControl(self._message), height=self._message_height),
            self.input_area,
        ])
        page = Condition(lambda: self.ui.help_open or self.ui.rules_open)
        confirm = Condition(lambda: self.ui.confirm_quit)
        ranking = Condition(lambda: self._game_over() and not self.ui.ranking_hidden and self._round_end() is None)
        return FloatContainer(body, floats=[
            Float(ConditionalContainer(Window(SizedControl(self._page), style="class:overlay"), page),
                  top=0, bottom=0, left=0, right=0),
            Float(ConditionalContainer(self._overlay(lambda: leave_question(self.snap), "quit"), confirm)),
            # across the whole screen: a box narrower than it left cut-off words of the side panel
            Float(ConditionalContainer(self._band(self._ranking, "the end"), ranking), left=0, right=0),
            # above the message line (the input's live check), not over it
            # and never over a page or question (a late completion drew it over the quit box)
            Float(xcursor=True, bottom=2, content=ConditionalContainer(
                CompletionsMenu(max_height=8, scroll_offset=1), ~page & ~confirm)),
        ])

    def _prompt(self) -> StyleAndTextTuples:
        """": " while typing; on the board a line saying keys act at once (a key there is not text typed)."""
        if self.application.layout.has_focus(self.input_area):
            return [("class:prompt", ": ")]
        summary = self._round_end()
        # the round-end screen takes every key: no command is typed there
        text = f": ({round_end_keys(summary, self.snap)})" if summary is not None else KEYS_PROMPT
        # on one row, cut to the screen's width: wrapped, the row would show the line's tail
        room = (self._columns or self.application.output.get_size().columns) - 1
        return [("class:message.hint", ellipsized(text, room).rstrip())]

    def _overlay(self, text: Callable[[], str], title: str) -> Frame:
        """A box as small as its text, with a column of space inside each side."""
        def padded() -> str:
            return "\n".join(f" {line} " if line else "" for line in text().splitlines())

        window = Window(FormattedTextControl(padded), dont_extend_width=True, dont_extend_height=True)
        return Frame(window, title=title, style="class:overlay")

    def _band(self, text: Callable[[], str], title: str) -> Frame:
        """A box as wide as the screen, its text a block in the middle."""
        def block() -> str:
            lines = text().splitlines()
            wide = max((len(line) for line in lines), default=0)
            return "\n".join(line.ljust(wide) for line in lines)

        window = Window(FormattedTextControl(block), dont_extend_height=True, align=WindowAlign.CENTER)
        return Frame(window, title=title, style="class:overlay")

    def _side_width(self) -> Dimension:
        columns = self._columns or self.application.output.get_size().columns
        view = self.snap.view
        need = GUTTER + CELL_W * 11
        if view is not None:
            low_x, _, high_x, _ = maze_bounds(view.board)
            need = GUTTER + CELL_W * (high_x - low_x + 1)
        return Dimension.exact(max(SIDE_MIN, min(SIDE_MAX, columns - need - 1)))

    def _round_end(self) -> RoundSummary | None:
        """The summary of the round whose end screen is open, else None."""
        return round_end_open(self.snap, self.ui.round_seen, self.ui.round_watched)

    def _players(self, width: int, height: int) -> Fragments:
        summary = self._round_end()
        if summary is not None:
            return render_round_end(summary, self.snap, width, height)  # the whole side panel
        return render_players(self.snap, self.focus, width)

    def _status(self, width: int, height: int) -> Fragments:
        summary = self._round_end()
        if summary is None:
            return render_status(self.snap, width)
        text = f" ROUND {summary.round}/{summary.rounds} OVER · {round_end_keys(summary, self.snap)}"
        return [("class:status.mine", pad_to_width(text, width))]

    def _maze(self, width: int, height: int) -> Fragments:
        summary = self._round_end()
        if summary is not None:
            fragments, _ = render_maze(summary.board, summary.known_goals, MazeMarks(), width, height, None)
            return fragments
        view = self.snap.view
        if view is None and self.snap.ended is not None:
            # wrapped, so a long refusal (and its hint) shows whole
            ended = [part for line in self.snap.ended.splitlines() for part in wrap_to_width(line, max(10, width - 4))]
            lines = ["", *("  " + line for line in ended), "", "  q leaves"]
            return [("", "\n".join(pad_to_width(line, width) for line in lines))]
        if view is None:
            return [("", "\n".join(line.ljust(width) for line in render_lobby(self.snap, width)))]
        last, latest = last_move_marks(self.snap)
        marks = replace(self.focus.marks, last=last, latest=latest)
        # with no cursor to follow the view shows the goals' end, where it had stayed wherever
        # a cursor last took it as the maze grew the other way (a play-test: goals off screen)
        kept = self.ui.origin if marks.cursor is not None else None
        fragments, origin = render_maze(view.board, goal_faces(view), marks, width, height, kept)
        self.ui.origin = origin
        return fragments

    def _message(self, width: int, height: int) -> Fragments:
        typed = self.input_area.text
        if self.application.layout.has_focus(self.input_area) and typed != self._refused:
            return render_message(self.ui, self.focus, width, self.controller.assess(typed))
        summary = self._round_end()
        # the round-end screen takes every key: the hand's keys do nothing there
        hint = round_end_hint(summary, self.snap) if summary is not None else None
        return render_message(self.ui, self.focus, width, hint=hint)

    def _ranking(self) -> str:
        return render_ranking(self.snap, (self._columns or self.application.output.get_size().columns) - 4)  # the box's edges

    def _message_height(self) -> Dimension:
        """One row, or two for a message that does not fit on one."""
        columns = self._columns or self.application.output.get_size().columns
        text = "".join(t for _, t in self._message(columns, 1))
        return Dimension.exact(text.count("\n") + 1)

    def _goes_on(self, key: str, letter: str) -> bool:
        """Whether ``letter`` after the board key ``key`` begins a command word of this table's edition."""
        view = self.snap.view
        edition = view.config.edition if view is not None else self.snap.edition or "base"
        return letter in continuations(key, edition)

    def _game_over(self) -> bool:
        view = self.snap.view
        return view is not None and view.phase == "game-over"

    # -- keys --------------------------------------------------------------------------

    def _bindings(self) -> KeyBindings:
        kb = KeyBindings()
        ui, ctl = self.ui, self.controller
        overlay = Condition(lambda: ui.help_open or ui.rules_open or ui.confirm_quit or self._round_end() is not None)
        board = has_focus(self.maze_window) & ~overlay
        typing = has_focus(self.input_area) & ~overlay

        def on(*keys: str, filter: object = board) -> Callable[[Callable[[], object]], None]:
            def register(action: Callable[[], object]) -> None:
                @kb.add(*keys, filter=filter)  # type: ignore[arg-type]
                def _(event: KeyPressEvent) -> None:
                    ui.message = ""
                    action()
            return register

        for digit in range(1, 10):
            on(str(digit))(functools.partial(ctl.pick, digit - 1))
        on("[")(lambda: ctl.cycle(-1))
        on("]")(lambda: ctl.cycle(1))
        for key, (dx, dy) in ARROWS.items():
            on(key)(functools.partial(ctl.arrow, dx, dy))
        on("tab")(ctl.next_cell)
        on("s-tab")(lambda: ctl.next_cell(-1))
        on("r")(functools.partial(self.take_back.act, "r", ctl.turn))
        on("enter")(ctl.enter)
        on("x")(ctl.discard)
        on("m")(functools.partial(self.take_back.act, "m", ctl.mark))
        on("escape")(self._escape)
        on(":")(lambda: self._type(""))
        on("/")(lambda: self._type(""))
        on("c")(functools.partial(self._open_line_after, "c", "say "))
        on("?")(lambda: self._open_page(help=True))
        on("R")(lambda: self._open_page(help=False))
        on("q")(self.request_quit)
        on("c-c", filter=~overlay)(self.request_quit)
        on("pageup", filter=~overlay)(lambda: self._scroll(1))
        on("pagedown", filter=~overlay)(lambda: self._scroll(-1))
        on("escape", filter=typing)(self._leave_input)
        # "repair", "map 1", "quit": a key whose letter begins a command word waits for the
        # next key (timeoutlen), and a letter that goes on with the word opens the line with both
        for key, letter in (pair for pair in word_starts() if pair[0] not in AT_ONCE):
            goes_on = Condition(functools.partial(self._goes_on, key, letter))
            on(key, letter, filter=board & goes_on)(functools.partial(self._type, key + letter))
        # a refused line waits to be corrected; : (or /) starts a new one instead of adding to it
        refused = typing & Condition(lambda: self.input_area.text == self._refused)
        on(":", filter=refused)(self._new_line)
        on("/", filter=refused)(self._new_line)
        # no move begins with a digit: one typed over a refused move (shown selected) picks a
        # card, as on the board, instead of replacing the line with "6" (found in play)
        for digit in range(1, 10):
            on(str(digit), filter=refused & shift_selection_mode)(functools.partial(self._escape_then_pick, digit))
        # a refused line shows selected (typing replaces it): these keys act on it as on any line
        for key, command in (("enter", "accept-line"), ("tab", "menu-complete"), ("c-u", "unix-line-discard")):
            kb.add(key, filter=typing & shift_selection_mode)(functools.partial(self._unselect_and, command))

        @kb.add("<any>", filter=board)
        def _(event: KeyPressEvent) -> None:
            # a word typed on the board ("pass 2", "what 3") goes to the command line whole,
            # instead of its digits picking cards and a later x discarding one
            letter, before = event.data, event.previous_key_sequence
            if len(letter) == 1 and letter.isalpha() and letter not in BOARD_LETTERS:
                ui.message = ""
                previous = before[-1].key if before and isinstance(before[-1].key, str) else ""
                word = self.take_back.goes_on(previous, letter, self._goes_on(previous, letter))
                if word is None and self.take_back.late is not None:
                    self._open_line_after(previous, letter)  # "r", a pause, "e": maybe "repair" yet
                else:
                    self._type(word or letter)
        # Esc then a digit within the key timeout is Emacs's numeric argument to prompt_toolkit:
        # the digit, and every digit after it, went into the count instead of picking a card
        for digit in range(10):
            on("escape", str(digit), filter=~overlay)(functools.partial(self._escape_then_pick, digit))

        reading = Condition(lambda: ui.help_open or ui.rules_open)
        for key, step in (("up", -1), ("down", 1), ("pageup", -10), ("pagedown", 10), ("home", -10**6), ("end", 10**6)):
            kb.add(key, filter=reading)(functools.partial(self._scroll_page, step))
        for digit in range(1, 10):  # a section of the rules (a play-tester looked for Saboteur 2's, section 8)
            kb.add(str(digit), filter=Condition(lambda: ui.rules_open))(functools.partial(self._rules_section, digit))

        # each overlay binds Escape by name too: from the command line, the line's own
        # Escape binding would otherwise win over "<any>" and the overlay would stay open
        @kb.add("<any>", filter=reading)
        @kb.add("escape", filter=reading)
        def _(event: KeyPressEvent) -> None:
            ui.help_open = ui.rules_open = False

        round_end = Condition(lambda: self._round_end() is not None and not reading() and not ui.confirm_quit)

        @kb.add("<any>", filter=round_end)
        @kb.add("escape", filter=round_end)
        def _(event: KeyPressEvent) -> None:
            summary = self._round_end()
            if summary is not None and not summary.settled:
                ui.round_watched = summary.round  # back once the gold is out
            elif summary is not None:
                ui.round_seen = summary.round
                ui.moves_after = time.monotonic() + LOOK_FIRST_S

        # while the gold is handed out, a choice of the player's own (keep or take gold, steal)
        # shows with its keys under the round's end: they act at once (a first key only closed
        # it), on the gold in the hand strip, and the round's end stays open: it closed as the
        # choice was made, and the round's winners, roles and gold went unseen (found in play)
        settling = Condition(lambda: round_end() and self.snap.decision is not None and not self._round_settled())
        acts: list[tuple[str, Callable[[], object]]] = [(k, functools.partial(ctl.arrow, *step)) for k, step in ARROWS.items()]
        acts += [("enter", ctl.enter), *((str(d), functools.partial(ctl.pick, d - 1)) for d in range(1, 10))]
        for key, act in acts:
            kb.add(key, filter=settling)(functools.partial(self._act_at_round_end, act))

        @kb.add("<any>", filter=Condition(lambda: ui.confirm_quit))
        @kb.add("escape", filter=Condition(lambda: ui.confirm_quit))
        @kb.add("c-c", filter=Condition(lambda: ui.confirm_quit))
        def _(event: KeyPressEvent) -> None:
            ui.confirm_quit = False
            # a second Ctrl-C means it (a play-test's second Ctrl-C stayed at the table)
            if event.key_sequence[0].data.lower() == "y" or event.key_sequence[0].key == "c-c":
                self.leave()
            else:
                ui.say("staying at the table")

        return kb

    def _round_settled(self) -> bool:
        summary = self._round_end()
        return summary is None or summary.settled

    def _act_at_round_end(self, act: Callable[[], object], event: KeyPressEvent) -> None:
        """Do what the key does at the table, the round's end screen left open."""
        self.ui.message = ""
        act()

    def _open_page(self, help: bool) -> None:
        self.ui.help_open, self.ui.rules_open, self.ui.rules_scroll = help, not help, 0

    def _rules_section(self, number: int, event: KeyPressEvent) -> None:
        self.ui.rules_section = number

    def _scroll_page(self, step: int, event: KeyPressEvent) -> None:
        self.ui.rules_scroll = max(0, self.ui.rules_scroll + step)

    def _page(self, width: int, height: int) -> Fragments:
        """The help (with the legend) or the rules, full screen, from the scroll position."""
        keys = PAGE_KEYS
        if self.ui.rules_open:
            title, text, keys = "the rules (docs/rules.md)", rules_text(), RULES_KEYS
            if self.ui.rules_section:  # `rules 8`, or 8 on the page: that section from its heading
                found = section_line(text, self.ui.rules_section, width)
                self.ui.rules_scroll = self.ui.rules_scroll if found is None else found
                self.ui.rules_section = 0
        else:
            view = self.snap.view
            title, text = "help", help_text(view.config.edition, view.config.variants) if view is not None else help_text("base")
        fragments, self.ui.rules_scroll = render_page(title, text, self.ui.rules_scroll, width, height, keys)
        return fragments

    def _escape(self) -> None:
        if self._game_over():
            self.ui.ranking_hidden = not self.ui.ranking_hidden
        self.controller.cancel()

    def _escape_then_pick(self, digit: int) -> None:
        """Esc and a digit typed quickly: what each does alone (leave the line or cancel, then pick)."""
        if self.application.layout.has_focus(self.input_area):
            self._leave_input()
        else:
            self._escape()
        if digit:
            self.controller.pick(digit - 1)

    def _type(self, text: str) -> None:
        self._begun = None  # a new line: no word begun before it, until said
        self.input_area.text = text
        self.input_area.buffer.cursor_position = len(text)
        self.application.layout.focus(self.input_area)

    def _open_line_after(self, key: str, text: str) -> None:
        """Open the command line with ``text`` after the board key ``key`` acted; the word typed
        on may show that it began with the key, however slowly it is typed."""
        self._type(text)
        self._begun = (key, "say " if key == "c" else "")
        self._word_goes_on()

    def _word_goes_on(self) -> None:
        """Put back the key a word began with, once the line shows it did (its work undone)."""
        if self._begun is None:
            return
        key, opened = self._begun
        text = self.input_area.text
        view = self.snap.view
        edition = view.config.edition if view is not None else self.snap.edition or "base"
        begun = word_begun_with(key, text[len(opened):], edition, chat=bool(opened)) if text.startswith(opened) else False
        if begun is None:
            return
        if begun:
            self.take_back.undo_late(key)
            self._type(key + text[len(opened):])
        self._begun, self.take_back.late = None, None

    def _new_line(self) -> None:
        """An empty command line in place of a refused one (↑ brings that back from the history)."""
        self.input_area.buffer.reset()  # the history is read again, the refused line with it
        self._type("")

    def _unselect_and(self, command: str, event: KeyPressEvent) -> None:
        """The line's own ``command`` (prompt_toolkit's name), which a selection turns off."""
        self.input_area.buffer.exit_selection()
        get_by_name(command).call(event)

    def _leave_input(self) -> None:
        self.input_area.text = ""  # nothing half-typed waits on the line while keys act on the board
        self.application.layout.focus(self.maze_window)

    def _accept(self, buffer: object) -> bool:
        text = self.input_area.text
        done = self.controller.command(text)
        # a page or question opened from the command line closes onto the board, as one
        # opened by its key does (a digit typed after it picks a card: found by a play-test)
        if done or not text.strip():
            self.application.layout.focus(self.maze_window)
        self._refused = None if done else text  # its refusal shows until the line is edited
        if not done:
            self.input_area.buffer.cancel_completion()  # the menu would cover the refusal
            offered = self.controller.completions(text)
            if self.controller.reads_as_move(text):
                if offered and self.ui.message_kind == "error":  # what the menu offered, beside the refusal
                    self.ui.message += f" · Tab: {offered[0]}"
                self._select_refused()  # a whole move: the next one typed replaces it
            elif not offered:
                # nothing finishes it ("foo", a player nobody is): the next line typed replaces
                # it too (it was glued to the typo: "foolegal", found by a play-test)
                self._select_refused()
        return not done  # keep a refused line in the box to correct it

    def _select_refused(self) -> None:
        """Show a refused move selected, as a browser's address bar does: a key typed replaces it
        with a fresh line (↑ brings it back), while ← → Home End go into it to correct it.
        A line refused unread that the completer can finish ("pass", "say ") is left as it
        is, to finish it."""
        buffer = self.input_area.buffer
        # in the history now, and the history read again (as after a line taken), for ↑
        buffer.reset(Document(buffer.text, 0), append_to_history=True)
        buffer.start_selection()
        buffer.cursor_position = len(buffer.text)
        if buffer.selection_state is not None:
            buffer.selection_state.enter_shift_mode()  # prompt_toolkit's typing-replaces selection

    def _scroll(self, pages: int) -> None:
        """Page the log by the rows it shows scrolled back (its last row the "more" mark: five
        rows a page skipped two of every five at 80x24, found by a play-test), to its top."""
        drawn, lines, ui = self.log_window.render_info, self.agent.log_lines(), self.ui
        width, height = (drawn.window_width, drawn.window_height) if drawn else (40, 6)
        if ui.log_rows == 0:  # the log in its title's row alone (twelve seats at 80x24): a row a page (review)
            width, height = ui.log_title_width, 1
        ui.log_scroll, ui.log_anchor = log_page(lines, width, height, ui.log_scroll, ui.log_anchor, pages * max(1, height - 1))

    def request_quit(self) -> None:
        """Ask before leaving a game in progress; leave at once when it is over."""
        if self._game_over() or self.snap.ended is not None:
            self.application.exit(result="done")
        else:
            self.ui.confirm_quit = True

    def leave(self) -> None:
        self.agent.quit()
        self.application.exit(result="quit")

    # -- for tests and the smoke script --------------------------------------------------

    async def draw_text(self, width: int = 80, height: int = 24) -> str:
        """The whole screen as plain text at this size, drawn by the real layout.

        A coroutine: the command line loads its history on an event loop.  Run it on the
        application's loop while it runs, or with ``render_text`` when it does not.
        """
        self._columns = width
        try:
            with set_app(self.application):
                self.refresh()
                screen = Screen()
                container = self.application.layout.container
                container.write_to_screen(screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None)
                screen.draw_all_floats()
        finally:
            self._columns = None
        rows = []
        for y in range(height):
            row = screen.data_buffer[y]
            rows.append("".join(row[x].char for x in range(width)).rstrip())
        return "\n".join(rows)

    def render_text(self, width: int = 80, height: int = 24) -> str:
        """``draw_text`` for an application that is not running."""
        return asyncio.run(self.draw_text(width, height))
