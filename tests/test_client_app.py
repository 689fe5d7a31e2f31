"""The real prompt_toolkit application, driven through a pipe input, against a local table.

The application runs in the test's main thread on an 80x24 VT100 output written to a
StringIO; the table (trusted dealer, heuristic bots) runs in a background thread and feeds
the ClientAgent as the network session does; a script thread types keys and watches.
"""
from __future__ import annotations

import asyncio
import io
import threading
import time
from collections.abc import Callable

from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from test_client_controller import drive

from saboteur_p2p.client.agent import ClientAgent
from saboteur_p2p.client.app import ClientApp
from saboteur_p2p.client.commands import known_goal
from saboteur_p2p.client.local import LocalTable
from saboteur_p2p.client.model import LogKind, Snapshot
from saboteur_p2p.client.runner import ClientRun, run_client
from saboteur_p2p.client.screens import round_end_open
from saboteur_p2p.client.words import Words
from saboteur_p2p.rules import (
    ActionCard,
    ActionKind,
    CardPlayed,
    GameConfig,
    PathCard,
    PlacePath,
    State,
)

UP, DOWN, RIGHT, LEFT, ENTER, TAB, SHIFT_TAB = "\x1b[A", "\x1b[B", "\x1b[C", "\x1b[D", "\r", "\t", "\x1b[Z"


class Harness:
    """The client application on a pipe, a local table behind it, and a script typing keys."""

    def __init__(
        self, seed: int = 0, players: int = 5, rounds: int = 3, name: str = "alice", agent: ClientAgent | None = None,
        edition: str = "base",
    ) -> None:
        self.agent = agent if agent is not None else ClientAgent()
        config = GameConfig(players, edition, rounds=rounds)
        self.table = LocalTable(config, self.agent, seat=0, seed=seed, name=name)
        self.output = io.StringIO()
        self.pipe: PipeInput
        self.app: ClientApp
        self.run: ClientRun[object] | None = None
        self.table_thread: threading.Thread | None = None
        #: the round-end screens seen by ``close_round_end``, as text
        self.round_ends: list[str] = []

    # -- running ---------------------------------------------------------------------

    def play(
        self,
        script: Callable[[Harness], None],
        timeout: float = 60.0,
        session: Callable[[ClientAgent], object] | None = None,
    ) -> str | None:
        """Run the application until the script ends (or it quits); re-raise the script's failure.

        Without ``session`` the local table plays behind the client; with it, the launcher runs
        ``session(agent)`` in its background thread as the command line does (``self.run``).
        """
        errors: list[BaseException] = []
        with create_pipe_input() as pipe:
            self.pipe = pipe
            output = Vt100_Output(self.output, lambda: Size(rows=24, columns=80), term="xterm-256color")

            def attach(app: ClientApp) -> None:
                app.application.ttimeoutlen = 0.05  # a lone Escape is read as Escape quickly
                self.app = app
                watchdog = threading.Timer(timeout, self.exit)
                watchdog.daemon = True
                watchdog.start()

            def run_script() -> None:
                try:
                    self.wait_for(lambda: hasattr(self, "app") and self.app.application.is_running, "the application to start")
                    script(self)
                except BaseException as exc:  # re-raised in the test's thread
                    errors.append(exc)
                finally:
                    self.exit()

            threading.Thread(target=run_script, daemon=True).start()
            if session is None:
                attach(ClientApp(self.agent, input=pipe, output=output))
                self.table_thread = self.table.start_thread(timeout=timeout)
                result = self.app.run()
            else:
                self.run = run_client(session, self.agent, input=pipe, output=output, on_app=attach)
                result = "quit" if self.run.quit else None
        if errors:
            raise errors[0]
        return result

    def _table_state(self) -> str:
        """How the local table stands, for a failure message (a table that stopped explains a wait)."""
        if self.table_thread is None:
            return "no local table"
        if self.table_thread.is_alive():
            return f"table running, turn of seat {self.table.state.current_player()}, {len(self.table.state.events)} events"
        return f"table stopped: {getattr(self.table, 'result', 'it raised (see the captured stderr)')}"

    def exit(self) -> None:
        if not hasattr(self, "app"):
            return
        application = self.app.application
        loop = application.loop
        if loop is None:
            return

        def stop() -> None:
            if application.is_running and application.future is not None and not application.future.done():
                application.exit(result="script-done")

        loop.call_soon_threadsafe(stop)

    # -- for scripts -------------------------------------------------------------------

    def closed(self) -> bool:
        future = self.app.application.future
        return future is None or future.done()

    def keys(self, text: str) -> None:
        self.pipe.send_text(text)

    def wait_for(self, condition: Callable[[], object], what: str, timeout: float = 30.0) -> None:
        """Wait until ``condition()`` holds; the timeout is generous, as CI machines may be loaded
        (a UI test waits for the key it sent to be handled, not for a deadline)."""
        deadline = time.monotonic() + timeout
        while not condition():
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"timed out waiting for {what}; message: {getattr(self, 'app', None) and self.app.ui.message!r}; "
                    f"{self._table_state()}"
                )
            time.sleep(0.005)

    def decision(self) -> Snapshot:
        """Wait for our next move and return the snapshot that asks for it."""
        def ready() -> bool:
            d = self.agent.snapshot().decision
            return d is not None and self.app.ui.sent_for != d.id

        self.wait_for(ready, "our move")
        return self.agent.snapshot()

    def turn_a_path_card(self) -> bool:
        """On our move, pick the hand's first path card and turn it with r; how it lay before."""
        index = strip_index(self.decision(), lambda c: isinstance(c, PathCard))
        self.keys(str(index + 1))
        self.wait_for(lambda: self.app.focus.selected == index, "the path card")
        turned = self.app.ui.turned
        self.keys("r")
        self.wait_for(lambda: self.app.ui.turned != turned, "r to turn the card")
        return turned

    def sent(self, snap: Snapshot) -> None:
        assert snap.decision is not None
        self.wait_for(lambda: self.app.ui.sent_for == snap.decision.id, "the move to be sent")  # type: ignore[union-attr]

    def screen(self, width: int = 80, height: int = 24) -> str:
        """The screen as text (80x24 unless said), drawn on the application's own loop."""
        loop = self.app.application.loop
        assert loop is not None
        return asyncio.run_coroutine_threadsafe(self.app.draw_text(width, height), loop).result(5)

    def round_end_open(self) -> bool:
        return round_end_open(self.agent.snapshot(), self.app.ui.round_seen, self.app.ui.round_watched) is not None

    def next_decision(self, done: Callable[[], bool]) -> Snapshot | None:
        """Our next decision not yet answered (round ends closed on the way), or None once
        ``done()``."""
        while not done():
            if self.round_end_open():
                self.close_round_end()
                continue
            decision = self.agent.snapshot().decision
            if decision is None or self.app.ui.sent_for == decision.id:
                time.sleep(0.002)
                continue
            return self.agent.snapshot()
        return None

    def close_round_end(self) -> None:
        """Keep the open round-end screen's text, then close it with a key."""
        self.round_ends.append(self.screen())
        self.keys(" ")
        self.wait_for(lambda: not self.round_end_open(), "the round-end screen to close")
        # as a person looks at the new hand: a move typed on at once is refused (LOOK_FIRST_S)
        self.wait_for(lambda: time.monotonic() >= self.app.ui.moves_after, "a look at the new hand")

    def finish(self) -> None:
        """At the game's end: the last round's end screen, then a key for the ranking."""
        last = self.agent.snapshot
        self.wait_for(lambda: last().rounds and last().rounds[-1].scores is not None, "the last round's end")
        if self.round_end_open():
            self.close_round_end()

    def played_by_me(self) -> list[str]:
        return [str(e.action) for e in list(self.table.state.events) if isinstance(e, CardPlayed) and e.player == 0]


def play_out(h: Harness, done: Callable[[], bool]) -> dict[str, int]:
    """Make every move from the keyboard until ``done()``: discards with keys, moves typed,
    gold and stones with Enter.  Returns how many moves of each phase were made."""
    seen: dict[str, int] = {}
    turns = 0
    while (snap := h.next_decision(done)) is not None:
        phase = snap.view.phase  # type: ignore[union-attr]
        seen[phase] = seen.get(phase, 0) + 1
        turns += 1
        if phase == "play" and turns % 2:
            h.keys("1x")  # pick the first card, discard it
        elif phase == "play":
            h.keys(":" + Words(snap.view, snap.names).say(snap.decision.legal[0]) + ENTER)  # type: ignore[union-attr,arg-type]
            if known_goal(snap.view, snap.decision.legal[0]):  # type: ignore[union-attr,arg-type]
                h.keys(ENTER)  # a map on a goal known already is asked about once, the line kept
        else:
            h.keys(ENTER)  # keep, take or orient: the highlighted choice
        h.sent(snap)
    return seen


def first_decision(seed: int) -> State:
    """Seat 0's first move in the game a LocalTable with this seed deals (bots play the same)."""
    state = drive(seed, lambda s: s.current == 0)
    assert state is not None
    return state


def seed_where(test: Callable[[State], bool]) -> int:
    return next(seed for seed in range(200) if test(first_decision(seed)))


def can_place(state: State) -> bool:
    return any(isinstance(a, PlacePath) for a in state.legal_actions())


def holds(kind: ActionKind) -> Callable[[State], bool]:
    def holding(state: State) -> bool:
        faces = [state.faces[h] for h in state.hands[0]]
        return any(isinstance(face, ActionCard) and face.kind is kind for face in faces)

    return holding


def strip_index(snap: Snapshot, test: Callable[[object], bool]) -> int:
    assert snap.view is not None
    return next(i for i, (_, card) in enumerate(snap.view.hand) if test(card))


def test_placing_a_path_card_with_keys():
    harness = Harness(seed_where(can_place))
    placed: dict[str, str] = {}

    def script(h: Harness) -> None:
        snap = h.decision()
        legal = [a for a in snap.decision.legal if isinstance(a, PlacePath)]  # type: ignore[union-attr]
        card = snap.view.hand[[handle for handle, _ in snap.view.hand].index(legal[0].card)][1]  # type: ignore[union-attr]
        index = strip_index(snap, lambda c: c == card)
        h.keys(str(index + 1))
        h.wait_for(lambda: h.app.focus.selected == index, "the card to be selected")
        before = h.app.focus.marks.cursor
        h.keys(TAB)  # to the next legal cell
        # ``focus`` is the last frame's: read the cursor from it too, never from a later ``ui``
        def moved() -> bool:
            frame = h.app.focus
            return frame.marks.cursor != before and bool(frame.option_legal)

        h.wait_for(moved, "the next legal cell")
        turned = h.app.focus.turned  # a card that fits nearest a goal only turned is picked turned
        cells = sorted({a.cell for a in legal if a.card == legal[0].card and (a.turned == turned or card.symmetric)},
                       key=lambda c: (c[1], c[0]))
        here = h.app.focus.marks.cursor
        back = cells[cells.index(here) - 1]  # the one before in reading order, the last one from the first
        h.keys(SHIFT_TAB)
        h.wait_for(lambda: h.app.focus.marks.cursor == back, "Shift-Tab to go back a legal cell")
        if back != here:
            h.keys(TAB)
            h.wait_for(lambda: h.app.focus.marks.cursor == here, "Tab to come forward again")
        focus = h.app.focus
        placed["move"] = focus.option or ""
        # The strip's side note ("✓ legal" and the move) shows only when the hand leaves room
        # for it at 80 columns, which depends on the deal the bots make before our move; the
        # check itself is the controller's (asserted above), the placement the table's (below).
        assert placed["move"].startswith("path ")
        assert focus.said == f"path {index + 1} at " + placed["move"].split(" at ")[1]  # the slot, not the handle
        h.keys(ENTER)
        h.sent(snap)
        h.wait_for(lambda: placed["move"] in h.played_by_me(), "the table to play it", timeout=30.0)

    harness.play(script)
    assert "H" in harness.output.getvalue() and "╔═0═╗" in harness.output.getvalue()  # the terminal got the maze


def test_esc_and_a_digit_typed_quickly_pick_the_card_and_no_count_swallows_later_keys():
    """Esc then 3 within the key timeout arrive as one Meta-3, which prompt_toolkit's Emacs
    bindings took as a numeric argument: the 3 and every later digit were swallowed, and the
    next letter typed was repeated that many times."""
    harness = Harness(seed=1)

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":path 9")
        h.wait_for(lambda: h.app.input_area.text == "path 9", "the typed line")
        h.keys("\x1b3")  # from the command line
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        h.wait_for(lambda: h.app.focus.selected == 2, "card 3")
        h.keys("\x1b2")  # on the board: cancel, then card 2
        h.wait_for(lambda: h.app.focus.selected == 1, "card 2")
        h.keys("4")
        h.wait_for(lambda: h.app.focus.selected == 3, "card 4, a digit alone")
        h.keys(":a")
        h.wait_for(lambda: h.app.input_area.text == "a", "one letter typed once")
        time.sleep(0.05)
        assert h.app.input_area.text == "a"

    harness.play(script)


def test_a_chat_line_reaches_the_table_and_the_log():
    harness = Harness(seed=1)

    def script(h: Harness) -> None:
        h.decision()
        h.keys("c")
        h.wait_for(lambda: h.app.input_area.text == "say ", "the chat prefix")
        h.keys("the treasure is south" + ENTER)
        h.wait_for(lambda: any(line.text == "<alice> the treasure is south" for line in h.agent.log_lines()), "the echo")
        # wrapped in the side panel; drawn on the application's loop, so wait for it
        h.wait_for(lambda: "<alice> the treasure is" in h.screen() and "  south" in h.screen(), "the chat line on screen")
        assert h.app.ui.message == "said it"

    harness.play(script)


def test_a_map_shows_its_goal_in_the_log_the_info_panel_and_the_maze():
    harness = Harness(seed_where(holds(ActionKind.MAP)))

    def script(h: Harness) -> None:
        snap = h.decision()
        index = strip_index(snap, lambda c: isinstance(c, ActionCard) and c.kind is ActionKind.MAP)
        h.keys(str(index + 1))
        h.wait_for(lambda: h.app.focus.selected == index, "the map")
        h.keys(DOWN)  # the next goal
        h.wait_for(lambda: h.app.focus.option is not None and h.app.focus.option.startswith("map 1"), "goal 1")
        h.keys(ENTER)
        h.wait_for(lambda: any(line.kind is LogKind.PRIVATE for line in h.agent.log_lines()), "the map's answer")
        face = h.table.state.goal_faces[1]
        treasure = face.code == "goal:treasure"
        line = next(line.text for line in h.agent.log_lines() if line.kind is LogKind.PRIVATE)
        assert line == f"your map: goal 1 at 8,0 is {'the TREASURE' if treasure else 'a stone'}"
        shown = f"goals: g1 {'TREASURE' if treasure else 'stone'}"
        box = f"║ {'$' if treasure else '○'} ║"  # the goal box shows what the map showed
        h.wait_for(lambda: shown in h.screen() and box in h.screen(), "the map on screen")

    harness.play(script)


def test_help_and_leaving_the_table_ask_first():
    harness = Harness(seed=2)

    def script(h: Harness) -> None:
        h.decision()
        h.keys("?")
        h.wait_for(lambda: h.app.ui.help_open, "the help")
        assert "any other key closes" in h.screen()
        h.keys("z")
        h.wait_for(lambda: not h.app.ui.help_open, "the help to close")
        h.keys("q")
        h.wait_for(lambda: h.app.ui.confirm_quit, "the question")
        assert "Leave the table?" in h.screen()
        h.keys("n")
        h.wait_for(lambda: h.app.ui.message == "staying at the table", "staying")
        h.keys("qy")
        h.wait_for(h.closed, "leaving")

    assert harness.play(script) == "quit"
    assert harness.agent.wants_to_quit
    harness.wait_for(lambda: harness.table.result is not None, "the table to stop")
    assert harness.table.result is not None and harness.table.result.outcome == "quit"


def test_the_help_shows_this_editions_commands_and_a_legend_and_R_shows_the_rules():
    harness = Harness(seed=2)
    pages: dict[str, str] = {}

    def script(h: Harness) -> None:
        h.decision()
        h.keys("?")
        h.wait_for(lambda: "help · lines 1-" in h.screen(), "the help")
        pages["help"] = h.screen()
        h.keys("\x1b[F")  # End: the legend at the bottom
        h.wait_for(lambda: "✗CLP" in h.screen(), "the legend")
        pages["legend"] = h.screen()
        h.keys("z")
        h.wait_for(lambda: not h.app.ui.help_open, "the help to close")
        h.keys("R")
        h.wait_for(lambda: "the rules (docs/rules.md)" in h.screen(), "the rules")
        pages["rules"] = h.screen()
        for _ in range(60):
            h.keys("\x1b[6~")  # PgDn
        h.wait_for(lambda: "## 9. Decisions" in h.screen() or "| 21 |" in h.screen(), "the decisions at the end")
        h.keys("8")  # a section from its heading (a play-tester looked for Saboteur 2's)
        h.wait_for(lambda: "## 8. Saboteur 2" in h.screen().splitlines()[1], "section 8 at the top")
        h.keys("2")
        h.wait_for(lambda: "## 2. Set-up" in h.screen().splitlines()[1], "section 2 at the top")
        assert "1-9 a section" in h.screen()
        h.keys("q")  # any other key closes the page (it does not leave the table)
        h.wait_for(lambda: not h.app.ui.rules_open, "the rules to close")
        assert not h.app.ui.confirm_quit
        h.keys(":rules 7\r")
        h.wait_for(lambda: "## 7. Named variants" in h.screen().splitlines()[1], "`rules 7` at section 7")
        h.keys("z")
        h.wait_for(lambda: not h.app.ui.rules_open, "the rules to close")

    harness.play(script)
    help_page, legend, rules = pages["help"], pages["legend"], pages["rules"]
    assert "path 2 at 3,-1 turned" in help_page and "trapped @bob" not in help_page  # base game commands only
    assert all(len(line) <= 80 for line in help_page.splitlines()) and len(help_page.splitlines()) == 24
    for symbol in ("6c cards in hand", "g0 gold cards", "✗CLP", "·   · dots", "˙   ˙ dots", "turned 180°"):
        assert symbol in legend, symbol
    assert "Saboteur 2" not in legend
    assert "# The rules of Saboteur as saboteur-p2p plays them" in rules


def test_a_page_opened_from_the_command_line_closes_onto_the_board():
    """`help` typed on the command line, then Esc: the line had the focus again, and the next
    digit went into it ("cannot read '1'") instead of picking a card (found by a play-test)."""
    harness = Harness(seed=1)

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":help" + ENTER)
        h.wait_for(lambda: h.app.ui.help_open, "the help page")
        h.keys("\x1b")
        h.wait_for(lambda: not h.app.ui.help_open, "the help page to close")
        h.keys("2")
        h.wait_for(lambda: h.app.focus.selected == 1, "card 2")
        assert h.app.input_area.text == ""

    harness.play(script)


def test_page_up_pages_the_log_by_the_rows_it_shows_and_skips_none():
    """At 80x24 PgUp moved the log five rows back where it shows three scrolled back (its last
    row says "↓ more"): two rows of every five were never seen (found by a play-test)."""
    from saboteur_p2p.client.render import render_log

    harness = Harness(seed=1, players=7)  # a long players list: the log shows few rows at 80x24

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":legal" + ENTER)  # a long line: many rows to page through
        h.wait_for(lambda: any(line.text.startswith("legal") for line in h.agent.log_lines()), "the legal moves")
        h.keys("\x1b[5~")  # PgUp
        h.wait_for(lambda: h.app.ui.log_scroll > 0, "the log scrolled back")
        drawn = h.app.log_window.render_info
        assert drawn is not None
        width, height = drawn.window_width, drawn.window_height
        assert h.app.ui.log_scroll == height - 1  # a page: the rows shown, less the mark's
        lines = h.agent.log_lines()
        bottom = [text for _, text in render_log(lines, 0, width, height)]
        back = [text for _, text in render_log(lines, h.app.ui.log_scroll, width, height, h.app.ui.log_anchor)]
        assert bottom[0] in back, (bottom, back)  # the page before ends where this one began: no row unseen

    harness.play(script)
