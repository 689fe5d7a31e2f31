"""The players panel: a line a seat, its columns fitted to the panel's width.

A seat's line reads: turn, seat number, name, cards in hand, gold, then what lies before
the player (broken tools, Trapped!, a Theft), the role when it is known, the connection,
and the last move, whole or in a short or tiny form.  Names come first: when they do not
fit whole, the marks after them take their short forms ("tr" for "trap", "grn" for
"green"), then the lines drop what the screen says elsewhere (one's own role is on the info
line) or what no longer matters (at the game's end, what lay before the players), and only
then are names cut, by display width (a CJK character takes two columns).  The last moves
come before all of that (``_layout``): to show as many seats' as can be, the marks take their
short forms, the hand counts go when all are alike (the title then says the count once),
and names give up columns, down to NAME_FLOOR, keeping their ends.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ..rules import PlayerView, Role
from .controller import Focus
from .model import ROLE_SHORT, ROLE_STYLE, Snapshot, cut_to_width, fit_name, pad_to_width, text_width
from .tracker import LastMove

Fragments = list[tuple[str, str]]

#: the roles in three letters or fewer, for a narrow panel
ROLE_TINY = {"self": "slf", "blue": "blu", "green": "grn", "BOSS": "BOS", "prof": "prf"}

#: the columns a name keeps, at least, when the seats' last moves take the rest ("heur…c-1")
NAME_FLOOR = 8

#: the forms a line's marks take, from the fullest: words, short words, and short words
#: without what the screen says elsewhere
FULL, SHORT, SPARE = 0, 1, 2


@dataclass(frozen=True)
class Mark:
    """One mark after a seat's hand and gold: its style, its text in full and short ("" when
    the short form leaves it out), and whether the sparest form leaves it out (the screen
    says it elsewhere, or the game is over and it no longer matters)."""

    style: str
    full: str
    short: str
    spared: bool = False

    def text(self, form: int) -> str:
        if form == FULL:
            return self.full
        return "" if form == SPARE and self.spared else self.short


def render_players(snap: Snapshot, focus: Focus, width: int) -> Fragments:
    """One line per seat: turn, name, cards in hand, gold cards, broken tools, role, connection."""
    view = snap.view
    out: Fragments = [("class:title", " players".ljust(width) + "\n")]
    if view is None:  # the lobby: the seats taken so far
        for seat, name in enumerate(snap.names):
            out.append(("", pad_to_width(f"  {seat} " + fit_name(name, max(3, width - 5)), width) + "\n"))
        for seat in range(len(snap.names), snap.table_size):  # who the table still waits for (a play-test)
            empty = cut_to_width("(empty seat)", max(3, width - 5))
            out.append(("class:players.last", pad_to_width(f"  {seat} {empty}", width) + "\n"))
        return out
    newest = max((move.order for move in snap.last_moves.values()), default=None)
    marks = _marks(snap, view)
    labels = [snap.name(seat) + ("*" if seat == snap.seat else "") for seat in range(view.players)]
    digits = len(str(view.players - 1))
    longest = max(text_width(label) for label in labels)
    counted, form, room = _layout(view, marks, snap.last_moves, longest, 2 + digits, width)
    held = view.hand_sizes[0]
    if not counted and held and view.phase in ("play", "orient"):  # every hand alike, said once (the column went: a play-test)
        each = f" players · {held} card{'' if held == 1 else 's'} each"
        out[0] = ("class:title", cut_to_width(each, width).ljust(width) + "\n")
    tails = [_tail(view, seat, counted) for seat in range(view.players)]
    tail_width = max(len(tail) for tail in tails)
    heads: list[tuple[str, str]] = []
    for seat in range(view.players):
        marker = "▶" if seat == view.current_player and view.phase != "game-over" else " "
        last = snap.last_moves.get(seat)
        style = "class:players.turn" if marker == "▶" else ""
        if last is not None and last.order == newest:
            style += " class:players.latest"
        if seat == focus.target_player:
            style = "class:players.target"
            marker = "◀"  # also on our own row in our turn: the title says whose move it is
        name = pad_to_width(fit_name(labels[seat], room), room)
        heads.append((style, f"{marker}{str(seat).rjust(digits)} {name}{tails[seat].ljust(tail_width)}"))

    def line_of(seat: int, spared: bool) -> tuple[Fragments, bool]:
        """The seat's line, the sparest marks or not (the last move rather than what the
        screen says elsewhere: your role, on the info line), and whether its last move fits:
        after it, whole or not at all, short or else tiny, never shortening a name; a line
        that ends in its columns' padding lends that space ("6c - map g1" at 80 columns)."""
        kept = [(mark.style, mark.text(SPARE if spared and mark.spared else form)) for mark in marks[seat]]
        line = _clip([heads[seat], *kept], width)
        last = snap.last_moves.get(seat)
        fits = (_moved(line, move, width) for move in ((last.short, last.tiny) if last is not None else ()))
        moved = next((fitted for fitted in fits if fitted is not None), None)
        return (line, last is None) if moved is None else (moved, True)

    # the sparest marks on every line or on none: chosen line by line, the columns after them
    # no longer lined up (found by a play-test at the game's end)
    full = [line_of(seat, False) for seat in range(view.players)]
    if all(fits for _, fits in full):
        lines = [line for line, _ in full]
    else:
        lines = [line_of(seat, True)[0] for seat in range(view.players)]
    for line in lines:
        used = sum(text_width(text) for _, text in line)
        out += [*line, ("", " " * max(0, width - used) + "\n")]
    return out


def _layout(
    view: PlayerView, marks: list[list[Mark]], last_moves: Mapping[int, LastMove], longest: int, lead: int, width: int,
) -> tuple[bool, int, int]:
    """Whether the hand counts show, the marks' form and the names' columns: as many seats'
    last moves as can show (in their tiny form at least), then names whole, fuller marks and
    the hand counts.  At 80 columns "heuristic-3 6c g0 ✗L" left no room for " pass" or
    " brk→2", and a player could not tell what anyone had done (found by a play-test); to
    make room, the marks take their short forms, the hand counts go when all are alike (the
    line says nothing with them), and names give up columns, to NAME_FLOOR at most (a
    play-test before read "he…c-1" badly).  ``lead``: the marker and seat number's columns."""
    moves = {s: last.tiny or last.short for s, last in last_moves.items() if s < view.players and (last.tiny or last.short)}
    best: tuple[tuple[int, int, int, bool], tuple[bool, int, int]] | None = None
    for counted in (True, False) if len(set(view.hand_sizes)) == 1 else (True,):
        head = lead + max(len(_tail(view, seat, counted)) for seat in range(view.players))
        for form in (FULL, SHORT, SPARE):
            top = max(3, min(longest, width - head - max(sum(text_width(m.text(form)) for m in row) for row in marks)))
            if top < min(longest, NAME_FLOOR) and form != SPARE:
                continue  # marks this full leave the names too little: a shorter form (found by review)
            # what each line with a move needs past its name: with its move a line leaves out
            # what the screen says elsewhere (spare), and a line that ends in its columns'
            # padding lends that space (``_moved``)
            needs = []
            for seat, move in moves.items():
                kept = "".join(m.text(SPARE if m.spared else form) for m in marks[seat])
                needs.append(head + text_width(kept) + (0 if kept.endswith(" ") else 1) + text_width(move))
            for room in range(top, min(top, NAME_FLOOR) - 1, -1):
                shown = sum(need + room <= width for need in needs)
                key = (shown, room, -form, counted)  # names before fuller marks and alike hand counts
                if best is None or key > best[0]:
                    best = (key, (counted, form, room))
    assert best is not None
    return best[1]


def _moved(line: Fragments, move: str, width: int) -> Fragments | None:
    """``line`` with ``move`` after it and a space between, within ``width`` columns (no
    space after a line that ends in padding); None when it does not fit."""
    if not move:
        return None
    room = width - sum(text_width(text) for _, text in line)
    if text_width(move) + 1 <= room:
        return [*line, ("class:players.last", f" {move}")]
    if "".join(text for _, text in line).endswith(" ") and text_width(move) <= room:  # an empty mark ends none
        return [*line, ("class:players.last", move)]
    return None


def _tail(view: PlayerView, seat: int, counted: bool = True) -> str:
    """Cards in hand (unless not ``counted``) and gold: " 6c g2" (gold cards), or in Saboteur 2
    " 6c $3" / " 6c $" / " 6c -"."""
    cards = f" {view.hand_sizes[seat]}c" if counted else ""
    if view.config.edition == "saboteur2":
        return f"{cards} {_pieces(view, seat)}"
    return f"{cards} g{view.gold_counts[seat]}"


def _marks(snap: Snapshot, view: PlayerView) -> list[list[Mark]]:
    """Each seat's marks after its hand and gold, in full and short."""
    second = view.config.edition == "saboteur2"
    over = view.phase == "game-over"  # what lay before the players in the last round
    broken = ["".join(t.value[0].upper() for t in sorted(tools, key=lambda t: t.value)) for tools in view.broken]
    # the broken tools take one width on every line, so that what follows them lines up too
    broken_width = max(len(mark) for mark in broken)
    rows = []
    for seat in range(view.players):
        row: list[Mark] = []
        if broken_width:
            # short, the marks after it no longer line up: names come first
            short = f" ✗{broken[seat]}" if broken[seat] else ""
            row.append(Mark("class:players.broken" if broken[seat] else "", short.ljust(broken_width + 2), short, spared=over))
        if second and view.trapped[seat]:
            row.append(Mark("class:players.trapped", " trap", " tr", spared=over))
        if second and view.thefts[seat]:
            row.append(Mark("class:players.theft", " thief", " th", spared=over))
        role = _role_seen(view, seat)
        if role is not None:
            short = ROLE_SHORT.get(role.value, role.value)
            own = seat == view.seat and view.revealed_roles is None  # the info line names it
            row.append(Mark(f"class:players.{ROLE_STYLE.get(role.value, 'role')}", f" {short}",
                            f" {ROLE_TINY.get(short, short)}", spared=own))
        if seat in snap.stand_ins:  # its person left: a bot plays the seat
            row.append(Mark("class:players.bot", " bot", " bt"))
        if seat in snap.away:
            row.append(Mark("class:players.away", " away", " aw"))
        elif seat in snap.back:
            row.append(Mark("class:players.back", " back", ""))
        rows.append(row)
    return rows


def _pieces(view: PlayerView, seat: int) -> str:
    """Saboteur 2 gold: your own pieces; of the others only whether they have any (public)."""
    if seat == view.seat:
        return f"${view.gold_pieces}"
    return "$" if view.has_gold and view.has_gold[seat] else "-"


def _role_seen(view: PlayerView, seat: int) -> Role | None:
    """The role a seat's line shows: all at the end of a round, else those this seat knows
    (in Saboteur 2 your own, and those an Inspection showed you)."""
    if view.revealed_roles is not None:
        return view.revealed_roles[seat]
    if view.config.edition != "saboteur2":
        return None
    if seat == view.seat:
        return view.role
    return view.known_roles.get(seat)


def _clip(line: Fragments, width: int) -> Fragments:
    """The fragments that fit in ``width`` columns."""
    out: Fragments = []
    room = width
    for style, text in line:
        if room <= 0:
            break
        part = cut_to_width(text, room)
        out.append((style, part))
        room -= text_width(part)
    return out
