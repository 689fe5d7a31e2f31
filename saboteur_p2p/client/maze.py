"""The maze as box-drawing text: path cards as glyphs, and the maze panel around them.

A card is drawn from its segments, so tunnels join exactly as they do in the rules: the
edges of one segment meet in the centre with the matching junction (``┼ ├ ┬ └ ...``); a
one-edge segment is a dead end, and where it stops the rock ``■`` shows.  (A card mixing a
through-tunnel and dead ends draws each dead end as a half line ``╵ ╷ ╴ ╶`` stopping short
of the centre.)  A maze cell is 5 x 3 characters, a hand tile 3 x 3.

Saboteur 2 cards keep that drawing and add marks: a ladder ``╫`` in the centre, a door
letter ``B`` or ``G`` on the segment the door sits on (coloured too, but the letter alone
tells the doors apart under NO_COLOR), a crystal ``◆`` in the top right corner.  A card
whose two tunnels do not meet draws their crossing apart: a bridge as ``──│──`` (the
north-south tunnel passes over the other; ``─╴│╶─`` is a tunnel between two dead ends),
two curves with a diagonal ``╱`` or ``╲`` between them.

``render_maze`` is a pure function of the board, what the seat knows of the goals, the
marks the controller wants shown and the panel's size; it returns styled text fragments
(a list of ``(style, text)`` pairs, prompt_toolkit's format) and the origin it used, which
the caller keeps so that the view pans only when the cursor leaves it.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..match import CURVES_APART
from ..rules import ActionCard, ActionKind, Board, Door, GoldCard, PathCard, PathKind
from ..rules.cards import E, N, S, W
from .model import TOOL_SHORT

Cell = tuple[int, int]
Fragments = list[tuple[str, str]]

CELL_W = 5
CELL_H = 3

#: centre glyph of a segment joining these edges
JUNCTION: dict[int, str] = {
    N | S: "│", E | W: "─", N | E: "└", N | W: "┘", E | S: "┌", S | W: "┐",
    N | E | S: "├", N | S | W: "┤", N | E | W: "┴", E | S | W: "┬", N | E | S | W: "┼",
}
DEAD_END = "■"
START_MARK = "H"  # the ladder down into the mine
TREASURE_MARK = "$"
STONE_MARK = "○"
UNKNOWN_GOAL = "?"
LADDER_MARK = "╫"
CRYSTAL_MARK = "◆"
DOOR_MARK = {Door.BLUE: "B", Door.GREEN: "G"}
#: where the crystal goes: a corner no tunnel ever crosses (cell and hand tile)
CRYSTAL_CELL = (0, 4)
CRYSTAL_MINI = (0, 2)

_ARM_CELL: dict[int, tuple[tuple[int, int, str], ...]] = {
    N: ((0, 2, "│"),),
    S: ((2, 2, "│"),),
    W: ((1, 0, "─"), (1, 1, "─")),
    E: ((1, 3, "─"), (1, 4, "─")),
}
_STUB_CELL: dict[int, tuple[tuple[int, int, str], ...]] = {
    N: ((0, 2, "╵"),),
    S: ((2, 2, "╷"),),
    W: ((1, 0, "─"), (1, 1, "╴")),
    E: ((1, 3, "╶"), (1, 4, "─")),
}
_ARM_MINI: dict[int, tuple[int, int, str]] = {N: (0, 1, "│"), S: (2, 1, "│"), W: (1, 0, "─"), E: (1, 2, "─")}
_STUB_MINI: dict[int, tuple[int, int, str]] = {N: (0, 1, "╵"), S: (2, 1, "╷"), W: (1, 0, "╴"), E: (1, 2, "╶")}


def _edges(mask: int) -> list[int]:
    return [edge for edge in (N, E, S, W) if mask & edge]


def _through(segments: tuple[int, ...]) -> list[int]:
    return [segment for segment in segments if len(_edges(segment)) > 1]


def _centre(segments: tuple[int, ...]) -> str:
    through = _through(segments)
    if len(through) == 2:
        # a bridge keeps its vertical tunnel whole; two curves get a diagonal between them
        return "│" if N | S in through else CURVES_APART[through[0]]
    return JUNCTION[through[0]] if through else DEAD_END


def cell_rows(segments: tuple[int, ...], centre: str | None = None) -> list[str]:
    """A maze cell, 3 rows of 5 characters, for a card with these (turned) segments."""
    grid = [[" "] * CELL_W for _ in range(CELL_H)]
    through = _through(segments)
    for segment in segments:
        dead_end = len(_edges(segment)) == 1
        arms = _STUB_CELL if dead_end and through else _ARM_CELL
        for edge in _edges(segment):
            for row, col, char in arms[edge]:
                grid[row][col] = char
    grid[1][2] = centre if centre is not None else _centre(segments)
    return ["".join(row) for row in grid]


def _centre_mark(card: PathCard) -> str | None:
    """What a Saboteur 2 card shows in its centre instead of the junction, if anything."""
    if card.ladder:
        return LADDER_MARK
    if card.door is not None:
        return DOOR_MARK[card.door]
    return None


def _with_crystal(rows: list[str], card: PathCard, at: tuple[int, int]) -> list[str]:
    if not card.crystals:
        return rows
    row, col = at
    line = rows[row]
    rows[row] = line[:col] + CRYSTAL_MARK + line[col + 1:]
    return rows


def card_marks(card: PathCard, mini: bool = False) -> dict[tuple[int, int], str]:
    """The characters of a drawn card that carry a Saboteur 2 mark, by (row, column), with
    the style class each gets: ``ladder``, ``door-blue``, ``door-green`` or ``crystal``."""
    marks: dict[tuple[int, int], str] = {}
    centre = (1, 1) if mini else (1, 2)
    if card.ladder:
        marks[centre] = "ladder"
    if card.door is not None:
        marks[centre] = f"door-{card.door.value}"
    if card.crystals:
        marks[CRYSTAL_MINI if mini else CRYSTAL_CELL] = "crystal"
    return marks


def tile_rows(card: PathCard, turned: bool) -> list[str]:
    """A face-up card as it lies in the maze (start, goals and tunnels)."""
    segments = card.turned_segments(turned)
    if card.kind is PathKind.START:
        return cell_rows(segments, START_MARK)
    if card.kind is PathKind.TREASURE:
        return cell_rows(segments, TREASURE_MARK)
    if card.kind is PathKind.STONE:
        return cell_rows(segments, STONE_MARK)
    return _with_crystal(cell_rows(segments, _centre_mark(card)), card, CRYSTAL_CELL)


def face_down_goal_rows(slot: int, known: PathCard | None) -> list[str]:
    """A face-down goal card: a framed box with its slot number; what a Map showed inside."""
    mark = UNKNOWN_GOAL
    if known is not None:
        mark = TREASURE_MARK if known.kind is PathKind.TREASURE else STONE_MARK
    return [f"╔═{slot}═╗", f"║ {mark} ║", "╚═══╝"]


def mini_rows(segments: tuple[int, ...], centre: str | None = None) -> list[str]:
    """A hand tile: 3 rows of 3 characters (dead ends beside a tunnel stop short)."""
    grid = [[" "] * 3 for _ in range(3)]
    through = _through(segments)
    for segment in segments:
        arms = _STUB_MINI if through and len(_edges(segment)) == 1 else _ARM_MINI
        for edge in _edges(segment):
            row, col, char = arms[edge]
            grid[row][col] = char
    grid[1][1] = centre if centre is not None else _centre(segments)
    return ["".join(row) for row in grid]


def mini_card_rows(card: PathCard, turned: bool) -> list[str]:
    """A path card in the hand strip, this way round, with its Saboteur 2 marks."""
    return _with_crystal(mini_rows(card.turned_segments(turned), _centre_mark(card)), card, CRYSTAL_MINI)


def action_rows(card: ActionCard) -> list[str]:
    """An action card's tile body: 3 rows of 7 characters."""
    kind = card.kind.value
    if kind == "break":
        body = ["  ╲ ╱  ", f"{_tools(card):^7}", "  ╱ ╲  "]
    elif kind == "repair":
        body = ["  ┌─┐  ", f"{_tools(card):^7}", "  └─┘  "]
    elif kind == "map":
        body = [" ┌───┐ ", " │ ? │ ", " └───┘ "]
    elif kind == "rockfall":
        body = [" ▓▓▓▓▓ ", "  fall ", " ▓▓▓▓▓ "]
    else:
        body = ACTION_FACES[card.kind]
    return [row[:7].ljust(7) for row in body]


#: the faces of the Saboteur 2 action cards (3 rows of 7)
ACTION_FACES: dict[ActionKind, list[str]] = {
    ActionKind.THEFT: ["  ◆ ◆  ", " theft ", " (you) "],
    ActionKind.HANDS_OFF: ["  ╳ ◆  ", " hands ", "  off! "],
    ActionKind.SWAP_HAND: ["  <->  ", " swap  ", " hand  "],
    ActionKind.INSPECTION: ["  (o)  ", "inspect", "a dwarf"],
    ActionKind.SWAP_HATS: ["  <->  ", " swap  ", " hats  "],
    ActionKind.TRAPPED: [" ┃┃┃┃┃ ", "trapped", " ┃┃┃┃┃ "],
    ActionKind.FREE: [" ┃┃ ┃┃ ", " free! ", " ┃┃ ┃┃ "],
}


def gold_rows(card: GoldCard) -> list[str]:
    """A gold card's tile body: 3 rows of 7 characters."""
    if card.nuggets == 0:
        return ["       ", " stone ", "       "]
    return [f"{'◆' * card.nuggets:^7}"[:7], f"{card.nuggets:^7}", " nugget" if card.nuggets == 1 else "nuggets"]


def _tools(card: ActionCard) -> str:
    if len(card.tools) == 1:
        return TOOL_SHORT[card.tools[0].value]
    return "/".join(TOOL_SHORT[t.value][:2] for t in card.tools)


# -- the maze panel ----------------------------------------------------------------

#: width of the y coordinates on the left
GUTTER = 3


@dataclass(frozen=True)
class MazeMarks:
    """What to highlight on the maze, as the controller decides it."""

    cursor: Cell | None = None
    #: cells where the selected card is legal as it is turned now
    legal: frozenset[Cell] = frozenset()
    #: cells where it would be legal turned the other way
    legal_turned: frozenset[Cell] = frozenset()
    #: cards a rockfall may remove, or goals a Map may look at
    targets: frozenset[Cell] = frozenset()
    #: segments of the selected path card, drawn at the cursor as a preview
    preview: tuple[int, ...] | None = None
    preview_legal: bool = False
    #: the selected card itself, to draw its Saboteur 2 marks in the preview
    preview_card: PathCard | None = None
    preview_turned: bool = False
    #: the cells each seat's last move changed, with the seat's number to show there
    last: dict[Cell, str] = field(default_factory=dict)
    #: the cell the newest move at the table changed
    latest: Cell | None = None


def maze_bounds(board: Board, extra: Cell | None = None, more: Iterable[Cell] = ()) -> tuple[int, int, int, int]:
    """The cells worth showing: every card and every cell a card could go to (and ``extra``,
    and ``more``: a ladder's legal cells, which need not be on the frontier)."""
    cells = list(board.tiles) + list(board.frontier) + list(more)
    xs = [x for x, _ in cells]
    ys = [y for _, y in cells]
    if extra is not None:
        xs.append(extra[0])
        ys.append(extra[1])
    return min(xs), min(ys), max(xs), max(ys)


def fit(origin: int | None, cursor: int | None, low: int, high: int, span: int, prefer: int | None = None) -> int:
    """The first cell shown along one axis: centred if everything fits, else following the cursor.

    ``prefer`` is where a view that has no origin yet starts (before following the cursor).
    """
    size = high - low + 1
    if span >= size:
        return low - (span - size) // 2
    first = origin if origin is not None else (low if prefer is None else prefer)
    if cursor is not None:
        if cursor < first:
            first = cursor
        elif cursor >= first + span:
            first = cursor - span + 1
    return max(low, min(first, high - span + 1))


def visible_cells(width: int, height: int) -> tuple[int, int]:
    """How many cells fit across and down a panel of this size."""
    return max(1, (width - GUTTER) // CELL_W), max(1, (height - 1) // CELL_H)


def render_maze(
    board: Board,
    known_goals: dict[int, PathCard],
    marks: MazeMarks,
    width: int,
    height: int,
    origin: Cell | None = None,
    follow: Cell | None = None,
) -> tuple[Fragments, Cell]:
    """Draw the maze into ``width`` x ``height``; returns the fragments and the origin used.
    ``follow``: with no cursor, a cell the view keeps in sight (a replay's latest move: at 80
    columns it showed the goals' end only, and moves left of it were never drawn: a play-test)."""
    cols, rows = visible_cells(width, height)
    low_x, low_y, high_x, high_y = maze_bounds(board, marks.cursor, marks.legal | marks.legal_turned)
    kept = marks.cursor if marks.cursor is not None else follow
    cx, cy = kept if kept is not None else (None, None)
    # a new view shows the goals' end of the maze, and the cursor's rows
    ox = fit(origin[0] if origin else None, cx, low_x, high_x, cols, prefer=high_x - cols + 1)
    xs = list(range(ox, ox + cols))
    goal_x = _goal_column(board)
    if goal_x is not None and cols >= 3 and goal_x >= ox + cols and cx != goal_x:
        # the goals stay in sight in the last column, and the column before them, where the
        # tunnel reaches them (a play-test saw its cards there folded away), the cells between
        # scrolled off (an 80-column terminal shows ten columns: a card left of the start hid
        # the goals)
        pinned = [goal_x - 1, goal_x] if cols >= 5 and cx != goal_x - 1 else [goal_x]
        window = cols - len(pinned)
        ox = fit(origin[0] if origin else None, cx, low_x, high_x, window, prefer=high_x - cols + 1)
        xs = [*range(ox, ox + window), *(x for x in pinned if x >= ox + window)]
    # ... around the row of the start and the middle goal when no cursor is followed
    oy = fit(origin[1] if origin else None, cy, low_y, high_y, rows, prefer=(0 if cy is None else cy) - rows // 2)
    out: Fragments = []
    gaps = [x - 1 != before for before, x in zip([xs[0] - 1, *xs[:-1]], xs, strict=True)]
    header = " " * GUTTER + "".join(_column_label(x, gap) for x, gap in zip(xs, gaps, strict=True))
    left = "◀" if ox > low_x else " "
    right = "▶" if xs[-1] < high_x else " "
    out.append(("class:maze.coord", (left + header[1:])[: width - 1].ljust(width - 1) + right + "\n"))
    above, below = _goals_off(board, oy, oy + rows - 1)
    for row in range(rows):
        y = oy + row
        cells = [_cell(board, known_goals, marks, (x, y)) for x in xs]
        for line in range(CELL_H):
            label = f"{y:>2} "[:GUTTER] if line == 1 else " " * GUTTER
            if line == 0 and row == 0 and oy > low_y:
                label = "▲" + above if above else " ▲ "
            if line == CELL_H - 1 and row == rows - 1 and oy + rows - 1 < high_y:
                label = "▼" + below if below else " ▼ "
            out.append(("class:maze.coord", label))
            for style, text, special in cells:
                out += styled_row(style, text[line], line, special)
            pad = width - GUTTER - cols * CELL_W
            out.append(("", " " * max(0, pad) + "\n"))
    if out:
        last_style, last_text = out[-1]
        out[-1] = (last_style, last_text.rstrip("\n"))
    return out, (ox, oy)


def _goals_off(board: Board, top: int, bottom: int) -> tuple[str, str]:
    """What the ▲ and ▼ of the rows ``top`` to ``bottom`` say beside them: the goal out of
    sight that way ("g2"; "g*" for more than one), else nothing.  At 80x24 the maze shows
    five rows, and a view that followed the cursor north hid a goal (found by a play-test)."""
    goals = [(y, tile.goal_slot) for (_, y), tile in board.tiles.items() if tile.goal_slot is not None]

    def mark(slots: list[int]) -> str:
        return f"g{slots[0]}" if len(slots) == 1 else "g*" if slots else ""

    return mark(sorted(s for y, s in goals if y < top)), mark(sorted(s for y, s in goals if y > bottom))


def _goal_column(board: Board) -> int | None:
    """The column of the goal cards, when they share one (every edition's layout)."""
    xs = {x for (x, _), tile in board.tiles.items() if tile.goal_slot is not None}
    return xs.pop() if len(xs) == 1 else None


def _column_label(x: int, after_gap: bool) -> str:
    """A column's number over the maze; ``┆`` before it when the columns before it are not shown."""
    return f"┆{x:^{CELL_W - 1}}" if after_gap else f"{x:^{CELL_W}}"


Special = dict[tuple[int, int], str]


def styled_row(style: str, text: str, line: int, special: Special, prefix: str = "maze") -> Fragments:
    """One row of a cell; its marked characters (doors, ladders, crystals) get their class too
    (``class:<prefix>.<mark>``)."""
    cols = sorted(col for row, col in special if row == line)
    if not cols:
        return [(style, text)]
    out: Fragments = []
    start = 0
    for col in cols:
        if col > start:
            out.append((style, text[start:col]))
        out.append((f"{style} class:{prefix}.{special[(line, col)]}", text[col]))
        start = col + 1
    if start < len(text):
        out.append((style, text[start:]))
    return out


def _cell(board: Board, known_goals: dict[int, PathCard], marks: MazeMarks, cell: Cell) -> tuple[str, list[str], Special]:
    """One cell's style, its three rows of text and its specially styled characters."""
    style, rows, special = _cell_body(board, known_goals, marks, cell)
    who = marks.last.get(cell)
    if who is None:
        return style, rows, special
    # the last move of a seat: its number in the corner, and the newest move highlighted
    style += " class:maze.latest" if cell == marks.latest else " class:maze.last"
    if rows[2].strip() == "" and rows[1].strip() == "":
        rows = ["     ", "  ×  ", "     "]  # a card a rockfall removed
    corner = (CELL_W - len(who), CELL_W)
    rows = [*rows[:2], rows[2][: corner[0]] + who]
    special = {**special, **{(2, col): "who" for col in range(*corner)}}
    return style, rows, special


def _cell_body(board: Board, known_goals: dict[int, PathCard], marks: MazeMarks, cell: Cell) -> tuple[str, list[str], Special]:
    at_cursor = cell == marks.cursor
    cursor = " class:maze.cursor" if at_cursor else ""
    tile = board.tiles.get(cell)
    if tile is not None:
        target = " class:maze.target" if cell in marks.targets else ""
        if tile.card is None:
            slot = tile.goal_slot if tile.goal_slot is not None else 0
            known = known_goals.get(slot)
            style = "class:maze.goal" + (" class:maze.mapped" if known is not None else "")
            return style + target + cursor, face_down_goal_rows(slot, known), {}
        kind = tile.card.kind.value
        return f"class:maze.{kind}" + target + cursor, tile_rows(tile.card, tile.turned), card_marks(tile.card)
    if at_cursor and marks.preview is not None:
        style = "class:maze.preview-ok" if marks.preview_legal else "class:maze.preview-bad"
        if marks.preview_card is not None:
            return style + cursor, tile_rows(marks.preview_card, marks.preview_turned), card_marks(marks.preview_card)
        return style + cursor, cell_rows(marks.preview), {}
    if cell in marks.legal:
        return "class:maze.legal" + cursor, ["·   ·", "  +  " if at_cursor else "     ", "·   ·"], {}
    if cell in marks.legal_turned:
        return "class:maze.legal-turned" + cursor, ["˙   ˙", "  r  " if at_cursor else "     ", "˙   ˙"], {}
    if at_cursor:
        return "class:maze.cursor", ["┌   ┐", "     ", "└   ┘"], {}
    return "class:maze.empty", ["     "] * CELL_H, {}
