"""``saboteur-p2p replay LOG`` in the full-screen client: a checked game, move by move.

The log is checked first (``protocol.verify.replay_file``); its public events then become
``Step``s, each with the maze as it stood after that event, rebuilt from the events alone
(a path card laid, a card a rockfall removed, a goal turned up, a new round's empty maze).
The viewer steps through them: → or n next, ← or b back, e to the end of the round,
Home / End to the start / the end of the game, q to leave.  ``saboteur-p2p watch`` shows a
live table in the same viewer, fed the events as the spectator checks them (``update``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import HSplit, Layout, VSplit, Window
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from ..match import narrate
from ..rules import (
    GOAL_CELLS,
    Board,
    CardPlayed,
    Event,
    GameEnded,
    GoalRevealed,
    PathCard,
    PlacePath,
    Rockfall,
    RoundEnded,
    RoundStarted,
)
from .controls import SizedControl
from .maze import MazeMarks, render_maze
from .model import LogKind, LogLine
from .render import Fragments, render_log
from .styles import COLOUR_STYLE, MONO_STYLE

KEYS = " → n next · ← b back · e round's end · Home End · q leave "


@dataclass(frozen=True)
class Step:
    """The game after one public event: the maze, the goals seen, the round, the account so far."""

    board: Board
    goals: dict[int, PathCard]
    round: int
    lines: int
    #: the cell the event changed (a path laid or removed), to highlight
    cell: tuple[int, int] | None
    ends_round: bool


def steps_of(events: Sequence[Event], names: Sequence[str]) -> tuple[list[Step], list[LogLine]]:
    """One step per public event, and the account of the game (the log lines)."""
    board, number = Board.new_round(), 0
    goals: dict[int, PathCard] = {}
    steps: list[Step] = []
    lines: list[LogLine] = []
    # the narration tells every public event in one line (told whole, it knows the edition's unit)
    told = list(narrate(events, names))
    if len(told) != len(events):
        told = [" / ".join(narrate([event], names)) for event in events]
    for event, text in zip(events, told, strict=True):
        cell = None
        if isinstance(event, RoundStarted):
            board, goals, number = Board.new_round(), {}, event.round
        elif isinstance(event, CardPlayed):
            board = board.clone()
            action = event.action
            if isinstance(action, PlacePath) and isinstance(event.card, PathCard):
                board.place(action.cell, event.card, action.turned)
                cell = action.cell
            elif isinstance(action, Rockfall) and action.cell in board.tiles:
                board.remove(action.cell)
                cell = action.cell
        elif isinstance(event, GoalRevealed):
            board = board.clone()
            board.reveal_goal(GOAL_CELLS[event.slot], event.card, event.turned)
            goals = {**goals, event.slot: event.card}
        lines.append(LogLine(LogKind.EVENT, text, move=isinstance(event, CardPlayed)))
        ends = isinstance(event, (RoundEnded, GameEnded))
        steps.append(Step(board, goals, number, len(lines), cell, ends))
    return steps, lines


class ReplayViewer:
    """The full-screen viewer of a checked log."""

    def __init__(self, title: str, events: Sequence[Event], names: Sequence[str], verdict: str,
                 input: Input | None = None, output: Output | None = None, no_color: bool = False,
                 mode: str = "REPLAY") -> None:
        self.title = title
        self.mode = mode
        self.steps, self.lines = steps_of(events, names)
        self.verdict = verdict
        self.index = 0
        kb = KeyBindings()
        for keys, move in (
            (("right",), 1), (("n",), 1), ((" ",), 1), (("left",), -1), (("b",), -1), (("p",), -1),
            (("pagedown",), 10), (("pageup",), -10), (("home",), -10**9), (("end",), 10**9),
        ):
            kb.add(*keys)(self._mover(move))
        kb.add("e")(lambda event: self.to_round_end())
        kb.add("q")(lambda event: event.app.exit())
        kb.add("c-c")(lambda event: event.app.exit())
        body = HSplit([
            Window(SizedControl(self._status), height=1),
            VSplit([Window(SizedControl(self._maze)), Window(width=1, char="│", style="class:rule"),
                    Window(SizedControl(self._log), width=34)]),
            Window(SizedControl(self._keys), height=1),
        ])
        self.application: Application[None] = Application(
            layout=Layout(body), key_bindings=kb, full_screen=True, input=input, output=output,
            style=Style.from_dict(MONO_STYLE if no_color else COLOUR_STYLE),
        )

    def _mover(self, step: int):  # type: ignore[no-untyped-def]
        def move(event: KeyPressEvent) -> None:
            self.go(self.index + step)
        return move

    def go(self, index: int) -> None:
        self.index = max(0, min(index, len(self.steps) - 1))

    def to_round_end(self) -> None:
        """The next step that ends a round (or the game) after this one."""
        later = [i for i in range(self.index + 1, len(self.steps)) if self.steps[i].ends_round]
        self.go(later[0] if later else len(self.steps) - 1)

    def run(self) -> None:
        self.application.run()

    def update(self, events: Sequence[Event], names: Sequence[str], verdict: str | None = None) -> None:
        """The events of a live table so far (``saboteur-p2p watch``), from another thread: a
        viewer at the newest step follows the game; one looking back stays where it is."""
        following = self.index >= len(self.steps) - 1
        steps, lines = steps_of(events, names)
        self.steps, self.lines = steps, lines
        if verdict is not None:
            self.verdict = verdict
        if following:
            self.go(len(steps) - 1)
        self.application.invalidate()

    # -- panels ----------------------------------------------------------------------------

    def _status(self, width: int, height: int) -> Fragments:
        step = self.steps[self.index] if self.steps else None
        where = f"round {step.round} · " if step is not None and step.round else ""
        text = f" {self.mode} {self.title} · {where}event {self.index + 1}/{len(self.steps)}"
        return [("class:status", text[:width].ljust(width))]

    def _maze(self, width: int, height: int) -> Fragments:
        if not self.steps:
            return [("", " the log holds no event")]
        step = self.steps[self.index]
        marks = MazeMarks(latest=step.cell, last={step.cell: "▸"} if step.cell is not None else {})
        # the latest move in sight, or the last one before it (a round's end has none)
        follow = next((s.cell for s in reversed(self.steps[: self.index + 1]) if s.cell is not None), None)
        fragments, _ = render_maze(step.board, step.goals, marks, width, height, None, follow)
        return fragments

    def _log(self, width: int, height: int) -> Fragments:
        shown = self.steps[self.index].lines if self.steps else 0
        lines = [*self.lines[:shown]]
        if self.index == len(self.steps) - 1:
            lines.append(LogLine(LogKind.NOTICE, self.verdict))
        return render_log(lines, 0, width, height)

    def _keys(self, width: int, height: int) -> Fragments:
        return [("class:status.keys", KEYS[:width].ljust(width))]

    def render_text(self, width: int = 80, height: int = 24) -> str:
        """The screen as plain text at this size (for tests), drawn by the real layout."""
        from prompt_toolkit.application.current import set_app
        from prompt_toolkit.layout.mouse_handlers import MouseHandlers
        from prompt_toolkit.layout.screen import Screen, WritePosition

        screen = Screen()
        with set_app(self.application):
            self.application.layout.container.write_to_screen(
                screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None,
            )
        return "\n".join("".join(screen.data_buffer[y][x].char for x in range(width)).rstrip() for y in range(height))
