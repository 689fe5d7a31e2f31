"""``saboteur-p2p replay LOG`` in the full-screen client: a checked game, move by move.

The log is checked first (``protocol.verify.replay_file``); its public events then become
``Step``s, each with the maze as it stood after that event, rebuilt from the events alone
(a path card laid, a card a rockfall removed, a goal turned up, a new round's empty maze).
The viewer steps through them: → or n next, ← or b back, e to the end of the round,
Home / End to the start / the end of the game, q to leave.  ``saboteur-p2p watch`` shows a
live table in the same viewer, fed the events as the spectator checks them (``update``).

Beside the maze, the players panel of the full-screen client: whose turn it is, each seat's
cards in hand, gold, broken tools (in Saboteur 2 a Trapped! card or a Theft), its last move,
and at a round's end the roles.  It reads the table from the spectator's own state, seen
after each record, and from what the events of a record tell before its last one
(``public_view``, ``TableViews``): a spectator holds no secret, so nothing there is any
seat's own knowledge.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from prompt_toolkit.application import Application
from prompt_toolkit.filters import Condition
from prompt_toolkit.input import Input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import ConditionalContainer, Dimension, Float, FloatContainer, HSplit, Layout, VSplit, Window
from prompt_toolkit.output import Output
from prompt_toolkit.styles import Style

from ..match import narrate
from ..rules import (
    GOAL_CELLS,
    Board,
    BreakTool,
    CardPlayed,
    Clear,
    Event,
    GameEnded,
    GoalRevealed,
    GoldReceived,
    MapPeek,
    Pass,
    PathCard,
    PiecesWon,
    PlacePath,
    PlayerView,
    PlayOn,
    RepairTool,
    Rockfall,
    RoundEnded,
    RoundStarted,
    State,
    Stolen,
)
from .controller import Focus
from .controls import SizedControl
from .guide import legend_text
from .maze import MazeMarks, render_maze
from .model import LogKind, LogLine, Snapshot
from .players import render_players
from .render import Fragments, render_log
from .styles import COLOUR_STYLE, MONO_STYLE
from .tracker import LastMove, last_move

KEYS = " → n next · ← b back · e round's end · Home End · ? legend · q leave "
#: the columns of the players panel and the log beside the maze: as the full-screen client's,
#: wider on a wide terminal (at 140 columns the log wrapped every line beside an empty maze:
#: a play-test)
SIDE_MIN, SIDE_MAX = 34, 60
#: the columns the maze keeps before the side panel grows past SIDE_MIN
MAZE_KEEPS = 75
#: the players panel highlights nothing in a replay: nobody chooses a move here
NO_FOCUS = Focus(items=(), selected=None, turned=False, marks=MazeMarks(), target_player=None, options=(),
                 option=None, option_legal=None, hint="")


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
    #: the table as anyone saw it once the event was made (``TableViews``); None when not
    #: told (no players panel)
    table: PlayerView | None
    #: each seat's last move this round, as the players panel shows it
    last_moves: Mapping[int, LastMove]


def public_view(state: State) -> PlayerView:
    """The table as anyone at it may see it: whose turn, every seat's cards in hand, gold,
    broken tools and marks, the roles once a round reveals them.  ``state`` is a spectator's
    (it knows no card of any hand); the view is no seat's own (seat -1), so the players panel
    marks nobody as "you" and shows nobody's own gold pieces or role."""
    return state.view_for(0)._replace(seat=-1, role=None, hand=(), gold=(), known_roles=MappingProxyType({}), gold_pieces=0)


class TableViews:
    """``each`` of ``replay_file`` (or a watch's call after each record): the table's public
    view after each event.

    The spectator's state is seen only between records, and one record may make many events:
    a round's last move, the goal it reached, the round's end, its gold one seat at a time and
    the next round's deal.  The last of them shows the table after the record; each one
    before it, the table before the record with what the events so far say themselves (the
    roles a round's end shows, the gold each seat received).  Shown after the record, the
    step of a seat's gold showed the next round's deal, and a round's last move the roles
    and the gold to come (found by a play-test)."""

    def __init__(self) -> None:
        self.views: list[PlayerView] = []
        #: Saboteur 2: the gold pieces each seat holds, counted from the public events
        #: (pieces won, pieces stolen), so that a theft inside a record can empty its victim's
        self.pieces: dict[int, int] = {}

    def __call__(self, node: Any) -> None:
        state = node.state
        if state is None or len(state.events) <= len(self.views):
            return
        try:
            after = public_view(state)
        except Exception:  # a panel never stops the check of a log or a watch
            return  # those steps show the table as last seen
        table = self.views[-1] if self.views else after
        new = state.events[len(self.views):]
        for event in new[:-1]:
            self._count(event)
            table = told_by(table, event, self.pieces)
            self.views.append(table)
        self._count(new[-1])
        self.views.append(after)

    def _count(self, event: Event) -> None:
        if isinstance(event, PiecesWon):
            self.pieces[event.player] = self.pieces.get(event.player, 0) + event.pieces
        elif isinstance(event, Stolen) and event.victim is not None:
            self.pieces[event.thief] = self.pieces.get(event.thief, 0) + 1
            self.pieces[event.victim] = self.pieces.get(event.victim, 0) - 1


def told_by(view: PlayerView, event: Event, pieces: Mapping[int, int]) -> PlayerView:
    """``view`` with what ``event`` itself says of the table: a move's card gone from its
    mover's hand (its draw, and whose turn it is next, come with the record's last event),
    the roles a round's end shows, the gold cards (base game) or whether a seat holds gold
    pieces (Saboteur 2; ``pieces``: each seat's count once the event is told)."""
    if isinstance(event, CardPlayed) and event.player < len(view.hand_sizes):
        # the table once the move was made: its mover no longer marked to move, a card less
        # (a move followed in its record by a goal or a round's end showed both: a play-test)
        used = _cards_used(event.action)
        sizes = tuple(max(0, n - used) if s == event.player else n for s, n in enumerate(view.hand_sizes))
        return view._replace(hand_sizes=sizes, current_player=-1)
    if isinstance(event, RoundEnded):
        return view._replace(revealed_roles=event.roles)
    if isinstance(event, GoldReceived) and event.player < len(view.gold_counts):
        counts = list(view.gold_counts)
        counts[event.player] += event.cards
        return view._replace(gold_counts=tuple(counts))
    if isinstance(event, (PiecesWon, Stolen)) and view.has_gold:
        if isinstance(event, Stolen) and event.victim is None:
            return view  # a Theft that stole nothing (it marked its thief as holding gold: a review)
        seats = {event.player} if isinstance(event, PiecesWon) else {event.thief, event.victim}
        return view._replace(has_gold=tuple(pieces.get(s, 0) > 0 if s in seats else held
                                            for s, held in enumerate(view.has_gold)))
    return view


def _cards_used(action: object) -> int:
    """How many cards of its mover's hand a move puts down: a pass or a clear its cards, a
    card played one, a choice of gold or a stone's orientation none."""
    if isinstance(action, (Pass, Clear)):
        return len(action.cards)
    return 1 if isinstance(action, (PlacePath, BreakTool, RepairTool, Rockfall, MapPeek, PlayOn)) else 0


def steps_of(
    events: Sequence[Event], names: Sequence[str], views: Sequence[PlayerView] = (),
) -> tuple[list[Step], list[LogLine]]:
    """One step per public event, and the account of the game (the log lines).  ``views``:
    the table after each event (``TableViews``); a step past them shows the last one."""
    board, number = Board.new_round(), 0
    goals: dict[int, PathCard] = {}
    steps: list[Step] = []
    lines: list[LogLine] = []
    moves: dict[int, LastMove] = {}
    order = 0
    # the narration tells every public event in one line (told whole, it knows the edition's unit)
    told = list(narrate(events, names))
    if len(told) != len(events):
        told = [" / ".join(narrate([event], names)) for event in events]
    for event, text in zip(events, told, strict=True):
        cell = None
        if isinstance(event, RoundStarted):
            board, goals, number = Board.new_round(), {}, event.round
            moves = {}
        elif isinstance(event, CardPlayed):
            order += 1
            moves = {**moves, event.player: last_move(event, text, order)}
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
        # every line a step: the mark (▸) is on the step's own event, a seat's gold or a
        # round's end too, not on the last move before it (a play-test)
        lines.append(LogLine(LogKind.EVENT, text, move=True))
        ends = isinstance(event, (RoundEnded, GameEnded))
        table = views[len(steps)] if len(steps) < len(views) else views[-1] if views else None
        steps.append(Step(board, goals, number, len(lines), cell, ends, table, MappingProxyType(moves)))
    return steps, lines


class ReplayViewer:
    """The full-screen viewer of a checked log."""

    def __init__(self, title: str, events: Sequence[Event], names: Sequence[str], verdict: str,
                 input: Input | None = None, output: Output | None = None, no_color: bool = False,
                 mode: str = "REPLAY", views: Sequence[PlayerView] = ()) -> None:
        self.title = title
        self.mode = mode
        self.names = tuple(names)
        self.steps, self.lines = steps_of(events, names, views)
        self.verdict = verdict
        self.index = 0
        kb = KeyBindings()
        for keys, move in (
            (("right",), 1), (("n",), 1), ((" ",), 1), (("left",), -1), (("b",), -1), (("p",), -1),
            (("pagedown",), 10), (("pageup",), -10), (("home",), -10**9), (("end",), 10**9),
        ):
            kb.add(*keys)(self._mover(move))
        kb.add("e")(lambda event: self.to_round_end())
        kb.add("?")(lambda event: self.toggle_legend())
        kb.add("escape")(lambda event: setattr(self, "legend_open", False))
        kb.add("q")(lambda event: event.app.exit())
        kb.add("c-c")(lambda event: event.app.exit())
        body = HSplit([
            Window(SizedControl(self._status), height=1),
            VSplit([Window(SizedControl(self._maze)), Window(width=1, char="│", style="class:rule"), HSplit([
                # every seat's line first (a title and a line a seat), the log below
                Window(SizedControl(self._players), dont_extend_height=True, height=self._players_height),
                Window(SizedControl(self._log)),
            ], width=self._side_width)]),
            Window(SizedControl(self._keys), height=1),
        ])
        #: the legend of the marks (``?``), over the whole screen (a spectator had nowhere to look
        #: up ✗CLP, g4, $, th or look→1: a play-test)
        self.legend_open = False
        legend = Window(SizedControl(self._legend), style="class:overlay")
        root = FloatContainer(body, floats=[Float(ConditionalContainer(legend, Condition(lambda: self.legend_open)),
                                                  top=0, bottom=0, left=0, right=0)])
        self.application: Application[None] = Application(
            layout=Layout(root), key_bindings=kb, full_screen=True, input=input, output=output,
            style=Style.from_dict(MONO_STYLE if no_color else COLOUR_STYLE),
        )

    def _mover(self, step: int):  # type: ignore[no-untyped-def]
        def move(event: KeyPressEvent) -> None:
            self.go(self.index + step)
        return move

    def go(self, index: int) -> None:
        self.index = max(0, min(index, len(self.steps) - 1))

    def toggle_legend(self) -> None:
        self.legend_open = not self.legend_open

    def _legend(self, width: int, height: int) -> Fragments:
        table = self.steps[-1].table if self.steps else None  # the last step shows the last table
        edition = table.config.edition if table is not None else "base"
        lines = [*legend_text(edition).splitlines(), "", " ? or Esc: back to the game"]
        return [("", "\n".join(line[:width] for line in lines[:height]))]

    def to_round_end(self) -> None:
        """The next step that ends a round (or the game) after this one."""
        later = [i for i in range(self.index + 1, len(self.steps)) if self.steps[i].ends_round]
        self.go(later[0] if later else len(self.steps) - 1)

    def run(self) -> None:
        self.application.run()

    def update(self, events: Sequence[Event], names: Sequence[str], verdict: str | None = None,
               views: Sequence[PlayerView] = ()) -> None:
        """The events of a live table so far (``saboteur-p2p watch``), from another thread: a
        viewer at the newest step follows the game; one looking back stays where it is."""
        following = self.index >= len(self.steps) - 1
        steps, lines = steps_of(events, names, views)
        self.names = tuple(names)
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

    def _side_width(self) -> Dimension:
        columns = self.application.output.get_size().columns
        return Dimension.exact(max(SIDE_MIN, min(SIDE_MAX, columns - MAZE_KEEPS)))

    def _players_height(self) -> int:
        table = self.steps[self.index].table if self.steps else None
        return 0 if table is None else 1 + table.players

    def _players(self, width: int, height: int) -> Fragments:
        step = self.steps[self.index] if self.steps else None
        if step is None or step.table is None:
            return []
        snap = Snapshot(names=self.names, view=step.table, last_moves=step.last_moves)
        return render_players(snap, NO_FOCUS, width)

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
            screen.draw_all_floats()  # the legend (a float is drawn after the rest)
        return "\n".join("".join(screen.data_buffer[y][x].char for x in range(width)).rstrip() for y in range(height))
