"""The pages a player reads in the client: the keys and commands of this edition with a
legend of every symbol on the screen (``?``), and the rules themselves (``R``).

The rules are docs/rules.md, the page the engine follows, shipped inside the package as
``client/rules.md`` (a link to it in a source checkout, a copy in a built wheel).  Both pages
scroll in a full-screen overlay; ``render_page`` cuts one screenful.
"""
from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from functools import cache
from importlib import resources
from pathlib import Path

from ..rules import variants_words

Fragments = list[tuple[str, str]]

KEYS = """\
Keys
  1-9 [ ]    pick a card of your hand (or the gold passed to you)
  arrows     move the cursor on the maze; for cards played on a player
             or a goal (and gold to take) ↑↓ choose it
  Tab        jump to the next cell where the card is legal as it is turned
             now (· dots; r turns it for the ˙ dots; a card that fits only
             the other way is turned for you), or to the next player or goal
  Shift-Tab  jump back to the one before
  r          turn the path card (or the stone) by 180°
  Enter      play the card there / at that target
  x          discard the selected card face down (pass)
  Esc        cancel · c chat · PgUp PgDn scroll the log · q leave
  ?          this page · R the rules of the game
  : or /     type a command (Tab completes, Esc returns), or just type
             it: r turns at once and turns back if "repair" goes on; q (quit)
             waits a moment for the next letter; a refused move stays
             selected: typing replaces it, ← → go into it to correct it"""

KEYS_2 = """\
  m          mark 1-3 cards: x discards them all, and with two marked
             Enter clears what lies in front of you (or, with nothing
             there, discards them too)"""

COMMANDS = """\
Typed commands (cards by their number in your hand, players by name, @me for you)
  path 2 at 3,-1 turned   break lantern @bob   repair pickaxe @me
  rockfall 4,1   map 1 (look at goal 1)   map 5 1 (the Map in slot 5 on goal 1)"""

COMMANDS_BASE = """\
  pass 5   keep 1   take 2+1   orient 1 turned"""

COMMANDS_2 = """\
  pass 5   pass 4,5,6   orient 1 turned   trapped @bob   trapped 3 @bob
  free @bob   free 3 (yourself)   theft   theft 5   hands-off @bob
  swap-hand @bob   inspection @bob   swap-hats @bob (each may name its card)
  steal @bob   steal nobody   clear trapped with 3,5
  (clear: pickaxe, lantern, cart, trapped, theft)"""

COMMANDS_ALL = """\
  what 3 (what card 3 does)   legal   rules (rules 8: from section 8)   say <text>
  quit   start (the host, in the lobby)"""

LEGEND = """\
Symbols
 players   ▶ whose move   * you   6c cards in hand
           ◀ the player the card picked is played on"""

LEGEND_BASE = """\
           g0 gold cards (how much they are worth is secret until the end)"""

LEGEND_2 = """\
           $3 your gold pieces   $ has gold   - has none
           trap: trapped   thief: a Theft lies before them
           roles, as you know them or once shown: blue green SAB BOSS prof geo
           in a narrow panel: tr th, blu grn BOS prf slf"""

LEGEND_BROKEN = "           ✗CLP broken Cart, Lantern, Pickaxe"

LEGEND_MOVES = """\
           SAB dig: roles, once shown   last move: ┼ 1,0 / dead ┤ 2,1 (a
           dead end) / map g1 / pass / brk cart→2 (broke seat 2's cart) /
           fix lamp→0 / fall 3,0"""

LEGEND_MOVES_2 = """\
           trp→4 (laid a Trapped! on seat 4) / free→4 / look→4 (Inspection) /
           hats→4 (Swap your hats) / swap→4 (Swap hands) / h.off→4 (Hands off!) /
           theft / clr cart"""

#: the seats' connections, which a table's client knows and a replay or a spectator does not
LEGEND_SEATS = LEGEND_BROKEN + """   away (aw) / back: connection
           bot (bt): a bot plays the seat its person left"""

#: the log's own mark (the replay viewer has no chat)
LEGEND_LOG = " log       ↑ <bob> ...: the last chat line, kept on top (said earlier)"

LEGEND_MAZE = """\
 maze      H start   ╔═0═╗ goal 0, face down: ? unknown, $ treasure,
           ○ stone (what your Map showed)   ■ dead end"""

LEGEND_MAZE_MARKS = """\
           ╵ ╷ ╴ ╶ a dead end beside a tunnel that goes through"""

LEGEND_MAZE_LAST = """\
           a seat's number in a cell's corner: that seat's last move;
           the newest is highlighted   × a card a rockfall removed"""

#: the marks of a card being placed, and the cursor's, which only a seat choosing a move sees
LEGEND_MAZE_CURSOR = """\
           ·   · dots: your card fits here as it is turned now
           ˙   ˙ dots: it fits only turned the other way (press r)
           ◀ ▶ ▲ ▼ more maze that way (▼g2: goal 2 is below; ┆ columns
           left out between): the arrows take the cursor, and the view, there"""

LEGEND_MAZE_2 = """\
           ╫ ladder   B G blue / green door   ◆ crystal   ──│── bridge
           ╲ two curves, north to east and south to west (╲ parts them)
           ╱ two curves, north to west and south to east (╱ parts them)"""

#: the replay and watch viewer's: no "you", no hand, no cursor, no connections
LEGEND_VIEWER = """\
Symbols
 players   ▶ whose move   6c cards in hand"""

LEGEND_VIEWER_2 = """\
           $ has gold   - has none
           trap: trapped   thief: a Theft lies before them
           roles, once shown: blue green SAB BOSS prof geo
           in a narrow panel: tr th, blu grn BOS prf slf"""

LEGEND_VIEWER_MAZE = """\
 maze      H start   ╔═0═╗ goal 0, face down: ?   ○ stone   $ treasure
           ■ dead end   ▸ in a cell's corner: the card this step laid, or
           the one its rockfall removed (×)"""

LEGEND_VIEWER_EDGES = """\
           ◀ ▶ ▲ ▼ more maze that way (▼g2: goal 2 is below; ┆ columns
           left out between)"""

LEGEND_HAND = """\
 hand      a path card shows twice: as it is (left) and turned 180°
           (right); the one you would play is shown in reverse
           ▶ the card picked   ✓ legal / ✗ not legal: the move now"""

LEGEND_HAND_2 = """\
           • a card marked (m) to discard or clear with (under the ▶
             when it is the card picked)"""


def legend_text(edition: str) -> str:
    """The legend of the players panel and the maze, for the replay and watch viewer (which
    has no hand and no commands): what the marks of this edition mean."""
    maze = [LEGEND_VIEWER_MAZE, LEGEND_MAZE_MARKS, LEGEND_VIEWER_EDGES]
    if edition == "saboteur2":
        return "\n".join([LEGEND_VIEWER, LEGEND_VIEWER_2, LEGEND_BROKEN, LEGEND_MOVES, LEGEND_MOVES_2, *maze, LEGEND_MAZE_2])
    return "\n".join([LEGEND_VIEWER, LEGEND_BASE, LEGEND_BROKEN, LEGEND_MOVES, *maze])


def help_text(edition: str, variants: Iterable[str] = ()) -> str:
    """The help page for this edition: the variants the table plays, if any, then keys, typed
    commands and the legend, naming only what this edition has (no gold cards in Saboteur 2,
    no Trapped! in the base game)."""
    second = edition == "saboteur2"

    def part(*pieces: str) -> str:
        return "\n".join(pieces)

    played = variants_words(variants)
    table = [textwrap.fill(f"This table plays the {played} (R: the rules).", 72, break_on_hyphens=False)] if played else []
    if second:
        return "\n\n".join([
            *table, part(KEYS, KEYS_2), part(COMMANDS, COMMANDS_2, COMMANDS_ALL),
            part(LEGEND, LEGEND_2, LEGEND_SEATS, LEGEND_MOVES, LEGEND_MOVES_2, LEGEND_MAZE, LEGEND_MAZE_CURSOR,
                 LEGEND_MAZE_MARKS, LEGEND_MAZE_LAST, LEGEND_MAZE_2, LEGEND_HAND, LEGEND_HAND_2, LEGEND_LOG),
        ])
    return "\n\n".join([
        *table, KEYS, part(COMMANDS, COMMANDS_BASE, COMMANDS_ALL),
        part(LEGEND, LEGEND_BASE, LEGEND_SEATS, LEGEND_MOVES, LEGEND_MAZE, LEGEND_MAZE_CURSOR, LEGEND_MAZE_MARKS,
             LEGEND_MAZE_LAST, LEGEND_HAND, LEGEND_LOG),
    ])


@cache
def rules_text() -> str:
    """docs/rules.md, as shipped with the package (or read from the source tree)."""
    try:
        text = resources.files("saboteur_p2p.client").joinpath("rules.md").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        source = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
        text = source.read_text(encoding="utf-8") if source.exists() else "The rules are in docs/rules.md."
    return _plain(text)


def _plain(markdown: str) -> str:
    """Markdown as terminal text: no emphasis marks or backticks; links as their text."""
    text = re.sub(r"\*\*(.+?)\*\*", r"\1", markdown)
    text = re.sub(r"(?<![\w*])\*(\S.*?)\*(?!\w)", r"\1", text)
    text = re.sub(r"\[([^\]]+)\]\([^)]+\)", r"\1", text)
    return "\n".join(_reflow(text.replace("`", "")))


def _reflow(text: str) -> list[str]:
    """Join the hard-wrapped lines of each paragraph and list item, so the screen wraps them
    at its own width; headings, table rows and blank lines stay as they are."""
    out: list[str] = []
    for line in text.splitlines():
        bare = line.strip()
        alone = not bare or bare.startswith(("#", "|", "- ", "* ")) or re.match(r"\d+\. ", bare) is not None
        if alone or not out or not out[-1].strip() or out[-1].lstrip().startswith(("#", "|")):
            out.append(line)
        else:
            out[-1] += " " + bare
    return out


def page_lines(text: str, width: int) -> list[str]:
    """The page wrapped to ``width`` (table rows and list items indent their continuation)."""
    lines: list[str] = []
    for line in text.splitlines():
        indent = len(line) - len(line.lstrip())
        extra = "  " if line.lstrip().startswith(("- ", "| ", "* ")) else ""
        lines += textwrap.wrap(line, width, subsequent_indent=" " * min(indent, 20) + extra) or [""]
    return lines


#: the keys of a page, on its last row
PAGE_KEYS = " ↑↓ PgUp PgDn Home End scroll · any other key closes"
#: ... and of the rules, whose numbered sections a digit shows
RULES_KEYS = " ↑↓ PgUp PgDn Home End scroll · 1-9 a section · any other key closes"


def section_line(text: str, number: int, width: int) -> int | None:
    """The line of the page (wrapped to ``width``, as ``render_page`` wraps it) where section
    ``number`` begins ("## 8. Saboteur 2 ..."), or None."""
    heading = f"## {number}."
    return next((i for i, line in enumerate(page_lines(text, max(20, width - 2))) if line.startswith(heading)), None)


def render_page(title: str, text: str, scroll: int, width: int, height: int, keys: str = PAGE_KEYS) -> tuple[Fragments, int]:
    """One screenful of a page from line ``scroll``; returns the fragments and the scroll used
    (kept within the page)."""
    body = max(1, height - 2)
    lines = page_lines(text, max(20, width - 2))
    scroll = max(0, min(scroll, len(lines) - body))
    shown = lines[scroll:scroll + body]
    end = min(len(lines), scroll + body)
    out: Fragments = [("class:title", f" {title} · lines {scroll + 1}-{end} of {len(lines)}"[:width].ljust(width) + "\n")]
    for line in shown:
        style = "class:title" if line.startswith("#") else "class:overlay"
        out.append((style, (" " + line)[:width].ljust(width) + "\n"))
    for _ in range(body - len(shown)):
        out.append(("class:overlay", " " * width + "\n"))
    out.append(("class:status.keys", keys[:width].ljust(width)))
    return out, scroll
