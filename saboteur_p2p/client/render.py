"""The screen model: each panel as styled text fragments, from a snapshot and the focus.

Pure functions, no terminal: a fragment list is prompt_toolkit's ``[(style, text), ...]``
format, so the application shows them as they are and tests read their text.
"""
from __future__ import annotations

import math
import re
import time
from collections.abc import Sequence

from ..rules import GOAL_CELLS, GoldCard, PathCard, PathKind, PlayerView
from .controller import Focus
from .maze import action_rows, card_marks, gold_rows, mini_card_rows, styled_row
from .model import (
    ROLE_SHORT,
    ROLE_STYLE,
    TOOL_SHORT,
    Cell,
    Item,
    ItemKind,
    LogKind,
    LogLine,
    Snapshot,
    UIState,
    cut_to_width,
    dealing,
    ellipsized,
    goal_faces,
    gold_total,
    lobby_word,
    pad_to_width,
    text_width,
    wrap_to_width,
)

# the players panel has a module of its own; its renderer is named here with the other panels'
from .players import render_players as render_players

Fragments = list[tuple[str, str]]

TILE_W = 7
#: a tile is a marker column (▶ when selected), the tile, and a space
TILE_STEP = TILE_W + 2
HAND_HEIGHT = 4


#: the status line's name of each edition
TITLES = {"base": "SABOTEUR", "saboteur2": "SABOTEUR 2"}


#: the seconds left on the turn timer from which the status line warns
TIMER_WARNING = 10


def render_status(snap: Snapshot, width: int, now: float | None = None) -> Fragments:
    """The top line: round, whose move (with the seconds left on a turn timer), and the two
    keys everyone needs.  ``now``: ``time.monotonic()``, the clock of ``move_deadline``."""
    view = snap.view
    right = " ? help · q quit "
    if view is None:  # the lobby: a table refused or gone says so here too (it still said "waiting": a play-test)
        left = f" {TITLES.get(snap.edition, 'SABOTEUR')} · " + ("no game: see below" if snap.ended else lobby_word(snap))
        style = "class:status"
    else:
        phase = view.phase
        title = TITLES.get(view.config.edition, "SABOTEUR")
        left = f" {title} · round {view.round}/{view.config.rounds} · "
        style = "class:status"
        if snap.ended is not None and phase != "game-over":
            left += "the session has ended"
        elif phase == "game-over":
            left += "game over"
        elif snap.my_move:
            style = "class:status.mine"
            left += {
                "play": "YOUR MOVE: play a card",
                "keep-gold": "YOUR MOVE: keep one gold card",
                "take-gold": f"YOUR MOVE: take gold worth {view.take_amount}",
                "orient": "YOUR MOVE: turn the stone",
                "steal": "YOUR MOVE: steal a gold piece",
            }.get(phase, "YOUR MOVE")
            if snap.move_deadline is not None:
                left_s = max(0, math.ceil(snap.move_deadline - (time.monotonic() if now is None else now)))
                warn = left_s <= TIMER_WARNING
                left += f" · {left_s} s left, then a bot moves for you" if warn else f" · {left_s} s left"
                style = "class:status.warn" if warn else style
        elif view.current_player == view.seat and phase == "play":
            # our turn, but nothing to choose yet: the deal is still being decrypted, or the
            # move sent is on its way ("Ann's move" read as someone else's, with no cards)
            left += "your move: your cards are being dealt…" if dealing(view) else "your move: waiting for the table…"
        else:
            who = snap.name(view.current_player)
            left += {
                "keep-gold": f"{who} keeps gold", "take-gold": f"{who} takes gold", "orient": f"{who} turns a stone",
                "steal": f"{who} steals gold",
            }.get(phase, f"{who}'s move")
    if len(left) + len(right) > width:
        right = ""  # narrow: whose move it is, whole (the message line names ? and q too)
    left = left[: max(0, width - len(right))]
    return [(style, left.ljust(width - len(right))), ("class:status.keys", right[: width])]


def last_move_marks(snap: Snapshot) -> tuple[dict[Cell, str], Cell | None]:
    """The maze marks of each seat's last move this round: its seat number on the cell it
    changed, and which cell the newest move changed."""
    moves = sorted(snap.last_moves.values(), key=lambda m: m.order)
    last = {move.cell: str(move.seat) for move in moves if move.cell is not None}
    newest = max(snap.last_moves.values(), key=lambda m: m.order, default=None)
    return last, newest.cell if newest is not None else None


def render_info(snap: Snapshot, width: int, height: int | None = None) -> Fragments:
    """Your role, what your Maps showed, your gold and the last round's result; that result
    cut to the rows left of ``height``, with "…" where it was cut."""
    view = snap.view
    if view is None:
        return [("class:info", "")]
    lines: list[tuple[str, str]] = []
    role = view.role.value if view.role is not None else "?"
    second = view.config.edition == "saboteur2"
    team = ROLE_STYLE.get(role)
    lines.append(("class:info.role" + (f".{team}" if team else ""), f" you: {ROLE_NAME.get(role, role)}"))
    lying = in_front_of_you(view, width)
    if lying:
        # an attack on you, said where you look while you plan: at 80x24 the log's few rows
        # had scrolled the Trapped! played on you away before your turn (a play-test)
        lines.append(("class:info.warn", lying))
    mapped = []
    for slot, card in sorted(view.known_goals.items()):
        if view.board.tiles[GOAL_CELLS[slot]].card is None:
            mapped.append(f"g{slot} {'TREASURE' if card.kind is PathKind.TREASURE else 'stone'}")
    worked_out = [slot for slot in goal_faces(view) if slot not in view.known_goals]
    # what the maps showed of the face-down goals, then what follows ("g2 stone → g0
    # TREASURE"); a goal turned up since is on the board ("- → g1 TREASURE" read as no map at
    # all). "goals:", not "maps:": the treasure worked out from two stones turned up, no map
    # played, read as a map's (a play-test)
    maps = " → ".join([", ".join(mapped)] * bool(mapped) + [f"g{slot} TREASURE" for slot in worked_out]) or "-"
    lines.append(("class:info.maps", " goals: " + maps))
    if second:
        lines.append(("class:info", f" your gold: {_amount(view.gold_pieces, 'piece')}"))
        lines.append(("class:info", f" crystals in the maze: {view.board.crystals()}"))
    else:
        lines.append(("class:info", f" your gold: {_amount(gold_total(view.gold), 'nugget')}"))
    pile = len(lines)  # the draw pile's line, kept first with your role when the panel is short
    lines.append(("class:info", f" draw pile {view.draw_pile_size}"))
    if view.scores is not None:
        unit = "gold pieces" if second else "nuggets"
        lines.append(("class:info.result", f" {unit}: " + ", ".join(f"{snap.name(s)} {n}" for s, n in enumerate(view.scores))))
    elif snap.last_round:
        lines.append(("class:info.result", " " + snap.last_round))
    rows = [[(style, pad_to_width(part, width) + "\n") for part in wrap_to_width(text, width, subsequent_indent="   ") or [""]]
            for style, text in lines]
    if height is not None and sum(map(len, rows)) > height:
        if height <= 1:
            # one row: the two things a player plans by (a squeezed panel dropped them both)
            line = f"{lines[0][1]} · pile {view.draw_pile_size}"
            if text_width(line) > width:
                line = f" you: {ROLE_SHORT.get(role, role)} · pile {view.draw_pile_size}"
            return [(lines[0][0], pad_to_width(cut_to_width(line, width), width) + "\n")]
        # too little room for all: your role, the draw pile and your gold first, then the maps,
        # and the result last, in the rows left (found in play: at 60x20 or 10 players the
        # lines at the bottom, the draw pile among them, were cut off unseen)
        room, kept = height, set()
        for index in (0, pile, *range(1, len(lines))):
            if index not in kept and len(rows[index]) <= room:
                kept.add(index)
                room -= len(rows[index])
        last = len(lines) - 1
        if last not in kept and room > 0:
            # the result comes last and takes what room is left, its last row ending in "…"
            rows[last] = rows[last][:room]
            style, text = rows[last][-1]
            rows[last][-1] = (style, pad_to_width(cut_to_width(text.rstrip(), max(0, width - 1)) + "…", width) + "\n")
            kept.add(last)
        rows = [row for index, row in enumerate(rows) if index in kept]
    return [part for row in rows for part in row]


def in_front_of_you(view: PlayerView, width: int) -> str:
    """The panel's line of what lies in front of the seat (" in front of you: broken cart ·
    Trapped! · a Theft"; " on you: ✗cart trapped theft" where that is too wide), or ""."""
    seat = view.seat
    tools = sorted(t.value for t in view.broken[seat])
    lying: list[tuple[str, str]] = []
    if view.config.edition == "saboteur2":
        lying = [(word, short) for word, short, on in (("Trapped!", "trapped", view.trapped[seat]),
                                                        ("a Theft", "theft", view.thefts[seat])) if on]
    if not tools and not lying:
        return ""
    line = " in front of you: " + " · ".join([f"broken {', '.join(tools)}"] * bool(tools) + [word for word, _ in lying])
    if text_width(line) <= width:
        return line
    line = " on you: " + " ".join([f"✗{TOOL_SHORT[tool]}" for tool in tools] + [short for _, short in lying])
    # at 80x24 the panel is 26 wide: "✗cart trapped theft" wrapped (review)
    return line if text_width(line) <= width else line.replace(" trapped", " trap")


#: the roles' full names on the info line
ROLE_NAME = {"blue-digger": "blue gold-digger", "green-digger": "green gold-digger"}


def render_hand(snap: Snapshot, focus: Focus, width: int, round_end: bool = False) -> Fragments:
    """The hand strip: numbered tiles, path cards in both turns; or the gold to choose from.
    While a round's end screen is open (``round_end``), no hand: the one dealt for the next
    round read as the cards the player ended with (found by a play-test)."""
    view = snap.view
    if view is None:
        return [("", "")]
    if snap.my_move and view.phase == "take-gold":
        return _take_gold(snap, focus, width)
    if snap.my_move and view.phase == "steal":
        return _steal(snap, focus, width)
    if round_end and view.phase == "play":  # (gold to keep or steal is still chosen under it)
        return [("class:hand.label", " your hand for the next round shows when this summary closes")]
    if round_end and not any(item.kind is ItemKind.GOLD for item in focus.items):
        # before the next round is dealt, the cards left over from the round just ended showed
        # here, and read as a hand (found by a play-test: at one size a hand, at another none)
        last = view.round >= view.config.rounds  # no next round to deal (it said one would be: a play-test)
        return [("class:hand.label", " the last round is over: the game ends once its gold is handed out" if last
                 else " the round is over: your hand for the next round shows when it is dealt")]
    if view.phase == "game-over":  # the last round's leftover cards are nobody's hand
        return [("class:hand.label", " the game is over")]
    rows: list[Fragments] = [[] for _ in range(HAND_HEIGHT)]
    used = 0
    for index, item in enumerate(focus.items):
        if used + TILE_STEP > width:
            rows[1].append(("class:hand", "…"))
            break
        selected = index == focus.selected
        marked = item.handle in focus.marked
        style = "class:hand.selected" if selected else "class:hand"
        style += " class:hand.marked" if marked else ""
        rows[0].append(("class:hand.label", "▶" if selected else "•" if marked else " "))
        # a card both selected and marked shows its mark under the ▶
        rows[1].append(("class:hand.label", "•" if selected and marked else " "))
        for row in rows[2:]:
            row.append(("", " "))
        label = f"{index + 1} {item.label()}"[:TILE_W].ljust(TILE_W)
        rows[0].append((style + " class:hand.label", label))
        for r, parts in enumerate(_tile_body(item, selected, focus.turned)):
            rows[r + 1] += [(style + part_style, text) for part_style, text in parts]
        for row in rows:
            row.append(("", " "))
        used += TILE_STEP
    if not focus.items:
        rows[1].append(("class:hand", " (your cards are being dealt…)" if dealing(view) else " (no cards in hand)"))
    elif dealing(view) and view.phase == "play":
        # a card drawn whose face has not reached us yet (a seat away owes its share): the
        # title said "6 cards each" over a hand of 5 (found by a play-test)
        coming = f"+{view.hand_sizes[view.seat] - len(view.hand)} coming "
        if used + len(coming) + 20 <= width:
            for r, row in enumerate(rows):
                row.append(("class:hand.label", coming if r == 1 else " " * len(coming)))
    said = f" {focus.said}" if focus.said else ""
    room = width - sum(len(t) for _, t in rows[0])
    if focus.problem:  # why it is not legal, whole, on the three rows under the move
        side = [said, *_note_lines(f"✗ {focus.problem}", room, HAND_HEIGHT - 1)]
    elif len(said) > room:
        # the move on two rows, then whether it is legal: cut, "break lantern @heuristic-"
        # hid whose lantern (a play-test at 80 columns)
        side = [*_note_lines(focus.said or "", room, 2), _legality(focus), ""]
    else:
        side = [said, _legality(focus), "", ""]
    out: Fragments = []
    for r, row in enumerate(rows):
        length = sum(len(t) for _, t in row)
        note = side[r][: max(0, width - length)]
        note_style = "class:hand.legal" if r == 1 and focus.option_legal else "class:hand.note"
        out += [*row, (note_style, note.ljust(max(0, width - length)))]
        if r < HAND_HEIGHT - 1:
            out.append(("", "\n"))
    return out


def _note_lines(note: str, room: int, rows: int) -> list[str]:
    """A note beside the hand tiles wrapped onto ``rows`` rows of ``room`` characters (cut
    with … only if they cannot hold it): one row cut "you have a broken tool (pickaxe) and
    may not" before the rule's point."""
    if room < 3:
        return [""] * rows
    lines = wrap_to_width(note, room - 1) or [""]
    if len(lines) > rows:
        lines = [*lines[: rows - 1], cut_to_width(lines[rows - 1], room - 2) + "…"]
    return [f" {line}" for line in lines] + [""] * (rows - len(lines))


def _amount(number: int, unit: str) -> str:
    """"1 nugget", "2 nuggets"."""
    return f"{number} {unit}" + ("" if number == 1 else "s")


def _legality(focus: Focus) -> str:
    if focus.option is None or focus.option_legal is None:
        return ""
    return " ✓ legal" if focus.option_legal else " ✗ not legal"


def _tile_body(item: Item, selected: bool, turned: bool) -> list[Fragments]:
    """Three rows of a tile: both turns of a path card side by side, else the card's face."""
    card = item.card
    if isinstance(card, PathCard):
        upright = mini_card_rows(card, False)
        flipped = mini_card_rows(card, True)
        marks = card_marks(card, mini=True)
        active = " class:hand.active"
        left = active if selected and not turned else ""
        right = active if selected and turned else ""
        return [
            [*styled_row(left, upright[r], r, marks, "hand"), ("", " "), *styled_row(right, flipped[r], r, marks, "hand")]
            for r in range(3)
        ]
    if isinstance(card, GoldCard):
        return [[("", row)] for row in gold_rows(card)]
    return [[("", row)] for row in action_rows(card)]  # type: ignore[arg-type]


def _take_gold(snap: Snapshot, focus: Focus, width: int) -> Fragments:
    view = snap.view
    assert view is not None
    counts: dict[int, int] = {}
    for _, card in view.gold_pile:
        counts[card.nuggets] = counts.get(card.nuggets, 0) + 1
    pile = ", ".join(f"{n} x {v}" for v, n in sorted(counts.items()))
    choice = focus.option or "take none"
    handles = {g: card.nuggets for g, card in view.gold_pile}
    worth = sum(handles.get(int(g), 0) for g in choice[5:].split(",") if g.strip().isdigit())
    number = focus.options.index(choice) + 1 if choice in focus.options else 0
    lines = [
        f" Take gold worth {view.take_amount} from the pile ({len(view.gold_pile)} cards: {pile})",
        f" choice {number}/{len(focus.options)}: {focus.said or choice}  (= {_amount(worth, 'nugget')})",
        " ↑↓ other choices · Enter take",
        "",
    ]
    out: Fragments = []
    for r, line in enumerate(lines):
        out.append(("class:hand.legal" if r == 1 else "class:hand", pad_to_width(line, width) + ("\n" if r < 3 else "")))
    return out


def _steal(snap: Snapshot, focus: Focus, width: int) -> Fragments:
    """The steal phase: a thief chooses whom to take a gold piece from, or nobody."""
    view = snap.view
    assert view is not None
    choice = focus.option or "steal none"
    target = choice.split("@")[1] if "@" in choice else None
    whom = snap.name(int(target)) if target is not None else "nobody"
    having = [snap.name(s) for s in range(view.players) if s != view.seat and view.has_gold and view.has_gold[s]]
    index = focus.options.index(choice) + 1 if choice in focus.options else 0
    said = focus.said or choice
    lines = [
        f" Your Theft: steal 1 gold piece from a player who has some ({', '.join(having) or 'nobody has'})",
        # the name once: "steal @heuristic-4 (from heuristic-4)" read twice (a play-test)
        f" choice {index}/{len(focus.options)}: {said}" + (f"  (from {whom})" if target and f"@{whom}" not in said else ""),
        " ↑↓ other choices · Enter steal",
        " " + snap.last_round,
    ]
    out: Fragments = []
    for r, line in enumerate(lines):
        style = "class:hand.legal" if r == 1 else "class:hand.note" if r == 3 else "class:hand"
        out.append((style, ellipsized(line, width) + ("\n" if r < 3 else "")))
    return out


#: the narration's line that starts a round ("-- round 2: bob starts"; match.narrate)
_ROUND_STARTS = re.compile(r"-- round \d+: |== game over")


LOG_TITLE = " log & chat  (PgUp/PgDn)"
#: the mark of the last chat line kept on top of the log, said before the lines below it
PINNED = "↑ "


def render_log_title(lines: Sequence[LogLine], ui: UIState, width: int) -> Fragments:
    """The log's title row; when the log itself had no row left (twelve seats' lines at 80x24),
    its newest line in that row instead, which PgUp/PgDn scroll (the log was unreachable there,
    inspections and chat with it: a play-test).  Drawn before the log, it reads the rows the log
    had in the last frame, and counts none until the log is drawn (a log with no row is not)."""
    rows, ui.log_rows, ui.log_title_width = ui.log_rows, 0, width
    if rows > 0:
        return [("class:title", pad_to_width(LOG_TITLE, width))]
    return render_log(lines, ui.log_scroll, width, 1, ui.log_anchor)


def render_log(lines: Sequence[LogLine], scroll: int, width: int, height: int, anchor: int | None = None) -> Fragments:
    """The last lines of the log and chat that fit, ``scroll`` wrapped lines up from the end.

    While the player has scrolled back, ``anchor`` is how many log lines there were then:
    the view stays on what they were reading and a mark at the bottom counts the lines that
    came since ("↓ 3 new below (PgDn)").  The newest move is marked (▸).  At the bottom of
    the log, the last chat line stays pinned on top when newer lines have pushed it out of
    sight, while its round lasts (until the game's end), marked ↑ as said earlier: unmarked,
    "<bob> (leaves the table)" pinned over the moves read as bob leaving again, long after
    he was back (a play-test).
    """
    wrapped = _wrapped_log(lines, width)
    fresh = 0
    if scroll and anchor is not None and anchor < len(lines):
        fresh = len(lines) - anchor
        scroll += sum(1 for _, _, index in wrapped if index >= anchor)  # stay on the lines being read
    scroll = max(0, min(scroll, _top_scroll(len(wrapped), height)))
    end = len(wrapped) - scroll
    # scrolled back, the mark below takes the last row (it was a row beyond the panel, unseen:
    # a play-test scrolled back and missed the moves and chat that came)
    room = height - 1 if scroll and height > 1 else height
    shown = wrapped[max(0, end - room):end]
    chat = max((i for i, line in enumerate(lines) if line.kind is LogKind.CHAT), default=None)
    if chat is not None and any(line.kind is LogKind.EVENT and _ROUND_STARTS.match(line.text) for line in lines[chat + 1:]):
        chat = None  # a line of an earlier round, pinned over a later one, misled (a play-test)
    pinned: list[LogRow] = []
    if not scroll and chat is not None and shown and shown[0][2] > chat and height > 4:
        # two rows where the panel has room, and "…" where it is cut: its first row alone read
        # "<bob> the treasure is not" for "... is not at the middle goal" (a play-test)
        parts = wrap_to_width(f"{PINNED}{lines[chat].text}", max(8, width))
        keep = 2 if height > 6 else 1
        if len(parts) > keep:
            parts = parts[:keep]
            parts[-1] = cut_to_width(parts[-1].rstrip(), max(0, width - 1)) + "…"
        pinned = [("class:log.chat class:log.pinned", part, chat) for part in parts]
        shown = shown[len(pinned):]
    if not scroll and shown:
        shown = _head_on_top(wrapped, shown, width)  # below the pinned chat: a line's head, not its tail
    shown = pinned + shown
    out: Fragments = [(style, pad_to_width(text, width) + "\n") for style, text, _ in shown]
    if fresh:
        out.append(("class:log.latest", f"  ↓ {fresh} new below (PgDn)".ljust(width)))
    elif scroll:
        out.append(("class:log.more", f"  ↓ {scroll} more (PgDn)".ljust(width)))
    return out


#: a row of the wrapped log: its style, its text, and the index of the log line it is of
LogRow = tuple[str, str, int]


def _wrapped_log(lines: Sequence[LogLine], width: int) -> list[LogRow]:
    """Every log line's rows at ``width``, the newest move marked (▸)."""
    newest = max((i for i, line in enumerate(lines) if line.move), default=None)
    wrapped: list[LogRow] = []
    for index, line in enumerate(lines):
        style = f"class:log.{line.kind.value}"
        text = line.text
        if index == newest:
            style, text = "class:log.latest", "▸" + text
        for part in log_rows(text, max(8, width)):
            wrapped.append((style, part, index))
    return wrapped


def _top_scroll(rows: int, height: int) -> int:
    """How far back the log scrolls at most: to its first row, the "more" mark taking the
    panel's last row once scrolled (the first row was never shown: found by review)."""
    if rows <= height:
        return 0  # it all fits
    return rows - (height - 1 if height > 1 else height)


def log_page(
    lines: Sequence[LogLine], width: int, height: int, scroll: int, anchor: int | None, rows: int,
) -> tuple[int, int | None]:
    """Where ``rows`` rows back (forward if negative) leave the log that ``render_log`` shows
    with ``scroll`` and ``anchor``: the new ``(scroll, anchor)``, anchored at the lines there
    are now, and not beyond the top (a page up past it stops there).  Counted from the newest
    row: a page down from "↓ 30 new below" jumped to the bottom, the new lines unseen, and one
    past the top moved nothing (found by review)."""
    wrapped = _wrapped_log(lines, width)
    back = scroll
    if scroll and anchor is not None and anchor < len(lines):
        back += sum(1 for _, _, index in wrapped if index >= anchor)  # as render_log reads it
    top = _top_scroll(len(wrapped), height)
    back = max(0, min(min(back, top) + rows, top))  # from where the panel shows it (it may have grown)
    return (back, len(lines)) if back else (0, None)  # at the bottom: follow the newest again


def _head_on_top(wrapped: list[LogRow], shown: list[LogRow], width: int) -> list[LogRow]:
    """At the bottom of the log, a line whose first rows are above the panel is shown by its
    first rows instead, the last of them ending in "…": its tail alone ("  3,0") says nothing.
    Not the newest line in a panel of three rows or more, though: its last row shows only at
    the bottom, and a line longer than the panel (`what 6` at 80x24) could never be read to
    its end (found by a play-test); PgUp shows its head.  In a row or two, its head."""
    top = shown[0][2]
    rows = [row for row in wrapped if row[2] == top]
    kept = sum(1 for row in shown if row[2] == top)
    if kept == len(rows) or (top == wrapped[-1][2] and len(shown) >= 3):
        return shown
    head = rows[:kept]
    style, text, index = head[-1]
    head[-1] = (style, cut_to_width(text, max(0, width - 1)) + "…", index)
    return head + shown[kept:]


def log_rows(text: str, width: int) -> list[str]:
    """A log line wrapped to the panel's width (at least 8): between words, never at a hyphen
    (a table's key holds "-", base64url, and a name may).  A word longer than a row, a file's
    path, is cut after a folder's "/" where one fits, else after a "-" ("game-…-" of a log's
    name), and only failing both in the middle of a name.  A row after the first is indented
    two more than the line itself (a round's summary indents its lines)."""
    indent = " " * min(len(text) - len(text.lstrip(" ")) + 2, max(2, width // 3))
    rows = wrap_to_width(text, width, subsequent_indent=indent, break_long_words=False) or [""]
    out = []
    for row in rows:
        while text_width(row) > width:
            fits = len(cut_to_width(row, width))  # the characters that fit in the row's columns
            cut = max(row.rfind(separator, 0, fits) for separator in "/\\") + 1
            if cut < len(indent) + 2:  # no folder to end the row at (or only the indent's)
                cut = row.rfind("-", 0, fits) + 1
            if cut < len(indent) + 2:
                cut = max(fits, len(indent) + 1)  # each row takes something off the line
            out.append(row[:cut])
            row = indent + row[cut:]
        out.append(row)
    return out


#: the message line grows to this many rows for a message that does not fit on one
MESSAGE_ROWS = 2


def message_rows(text: str, width: int, rows: int = MESSAGE_ROWS) -> list[str]:
    """A message wrapped to the screen's width on at most ``rows`` rows (cut with … only
    beyond them), so a refusal and its hint show whole."""
    lines = wrap_to_width(text, max(10, width - 1), subsequent_indent=" ") or [""]
    if len(lines) > rows:
        lines = [*lines[: rows - 1], cut_to_width(lines[rows - 1], max(0, width - 3)) + "…"]
    return [pad_to_width(" " + line, width) for line in lines]


def render_message(
    ui: UIState, focus: Focus, width: int, typed: tuple[str, str] | None = None, hint: str | None = None,
) -> Fragments:
    """The message line: the check of a line being typed (``typed``: its kind and text, on
    one row, as it changes at every key), else the last result or error, else what the keys
    do now (``hint`` when a screen over the board takes the keys, else the focus's)."""
    if typed is not None:
        return [(f"class:message.{typed[0]}", message_rows(typed[1], width, 1)[0])]
    if ui.message:
        style, text = f"class:message.{ui.message_kind}", ui.message
    else:
        style, text = "class:message.hint", hint or focus.hint
    return [(style, "\n".join(message_rows(text, width)))]
