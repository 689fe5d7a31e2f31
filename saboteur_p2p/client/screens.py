"""The screens between the moves: a round's end and the game's final ranking; and the
question before leaving the table.

Pure functions of a snapshot (and of what the tracker kept of each round), returning
styled fragments or plain text, as ``render`` does for the panels.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..rules import Role
from .model import ROLE_SHORT, ROLE_STYLE, Snapshot, cut_to_width, fit_name, pad_to_width, text_width, wrap_to_width
from .players import ROLE_TINY
from .tracker import RoundSummary

#: what yes does in the quit question: by what leaving does at this table, when the session
#: said so (``Snapshot.leave_ends``): "the game ends" came only after the answer, and a game at
#: a table of bots cannot be taken back then (a play-test)
LEAVE_DOES = {None: "yes, tell the table and leave", True: "yes, leave: the game ends for everyone",
              False: "yes, leave: a bot plays your seat to the end"}


def leave_question(snap: Snapshot) -> str:
    """The overlay shown when the player asks to quit, saying what leaving does here if told."""
    return f"Leave the table?\n\ny or Ctrl-C  {LEAVE_DOES[snap.leave_ends]}\nany other key  stay"


#: the question at a table that has not said what leaving does
LEAVE_QUESTION = leave_question(Snapshot())

Fragments = list[tuple[str, str]]

#: what closes the round-end screen, on its last line and the status line
ROUND_END_KEYS = "any key: next round"
GAME_END_KEYS = "any key: final ranking"
#: while the round's gold is still handed out: a key goes back to keep, take or watch it (the
#: screen opens again once the gold is out)
SETTLING_KEYS = "any key: to the table"
#: ... and while it waits for a choice of ours, the keys of the choice act at once (Enter keeps,
#: takes or steals: a first key that only closed the screen had to be pressed again)
CHOOSING_KEYS = "Esc: to the table"


#: what the round's end waits for when it is our move, by phase, and the keys that make it
OUR_CHOICE = {"keep-gold": "keep a gold card", "take-gold": "take your gold", "steal": "steal a gold piece"}
CHOICE_KEYS = {"keep-gold": "←→ Enter", "take-gold": "↑↓ Enter", "steal": "↑↓ Enter"}


def round_end_keys(summary: RoundSummary, snap: Snapshot | None = None) -> str:
    """What a key does on the round-end screen: back to the table while the gold is handed out
    (or, when the table waits for our choice there, the choice's keys make it), else on to
    the next round or, after the last one, the final ranking."""
    if not summary.settled:
        choice = our_choice(snap) if snap is not None else None
        return f"your move: {choice}: {choice_keys(snap)} · {CHOOSING_KEYS}" if choice and snap else SETTLING_KEYS
    return GAME_END_KEYS if summary.round == summary.rounds or summary.scores is not None else ROUND_END_KEYS


def our_choice(snap: Snapshot) -> str | None:
    """What the handing out of the round's gold waits for from us ("keep a gold card"), if anything."""
    view = snap.view
    return OUR_CHOICE.get(view.phase) if snap.decision is not None and view is not None else None


def choice_keys(snap: Snapshot) -> str:
    """The keys of our choice while the gold is handed out ("←→ Enter")."""
    return CHOICE_KEYS[snap.view.phase] if snap.view is not None else ""


def round_end_hint(summary: RoundSummary, snap: Snapshot | None = None) -> str:
    """The message line while the round-end screen is open: what a key does there (and, when
    it leaves room on an 80-column line, that the maze is as the round ended)."""
    keys = round_end_keys(summary, snap)
    return keys if snap is not None and our_choice(snap) else f"{keys} · the maze is as round {summary.round} ended"


def round_end_open(snap: Snapshot, seen: int, watching: int = 0) -> RoundSummary | None:
    """The round whose end screen shows now: the last ended round, unless the player closed it
    (``seen``), or closed it while its gold was handed out to watch that (``watching``): it
    opens again once the gold is out, with what each seat won (closed before, the round's
    split was never shown: a play-test)."""
    if not snap.rounds or snap.rounds[-1].round <= seen or not snap.rounds[-1].live:
        return None
    last = snap.rounds[-1]
    return None if last.round == watching and not last.settled else last


def render_round_end(summary: RoundSummary, snap: Snapshot, width: int, height: int) -> Fragments:
    """The side panel at a round's end: winners, every role, gold won this round and the totals.

    Two lines a player when the panel is tall enough, else one line each.
    """
    choice = our_choice(snap) if not summary.settled else None
    keys = CHOOSING_KEYS if choice else round_end_keys(summary)
    out: Fragments = [
        ("class:title", pad_to_width(f" round {summary.round}/{summary.rounds} is over", width) + "\n"),
        ("class:info.result", pad_to_width(f" {summary.winners}", width) + "\n"),
    ]
    how = wrap_to_width(_how_it_ended(summary, snap), max(10, width - 1), subsequent_indent="  ")
    if 4 + len(summary.roles) + len(how) > height:
        how = []  # a line a seat and the keys come first (the log says how the round ended too)
    out += [("class:info.result", pad_to_width(f" {line}", width) + "\n") for line in how]
    if not summary.settled:
        note = f"your move: {choice} ({choice_keys(snap)})" if choice else _who_chooses(snap)
        out += [("class:hand.note", pad_to_width(f" {line}", width) + "\n")
                for line in wrap_to_width(note, max(10, width - 1), subsequent_indent="  ")]
    gold = [
        (summary.won[seat] if seat < len(summary.won) else "-", summary.totals[seat] if seat < len(summary.totals) else "-")
        for seat in range(len(summary.roles))
    ]
    stole = [_thefts_of(summary, seat) for seat in range(len(summary.roles))]
    thefts = [(f" · stole {_pieces(took)}" if took else "") + (f" · robbed of {_pieces(lost)}" if lost else "")
              + (" · trapped" if seat in summary.trapped else "") for seat, (took, lost) in enumerate(stole)]
    # a winner paid nothing is "won 0" already (it read "won won 0": a play-test)
    lines = [f"   {won if won.startswith('won ') else f'won {won}'}{theft} · total {total}"
             for (won, total), theft in zip(gold, thefts, strict=True)]
    # two lines a seat only when each fits whole: "won 1 gold card · total 1 gold ca" misleads
    fits = all(len(line) <= width for line in lines)
    roomy = fits and width >= 36 and 2 * len(summary.roles) + 4 + len(how) <= height
    names = ["you" if seat == snap.seat else snap.name(seat) for seat in range(len(summary.roles))]
    if not roomy:
        table = _table(summary, names, gold, stole, width)
        out.append(("class:hand.note", pad_to_width(table.header, width) + "\n"))
    for seat, role in enumerate(summary.roles):
        style = f"class:players.{ROLE_STYLE.get(role.value, 'role')}"
        if roomy:
            name = fit_name(names[seat], width - 3 - len(role.value))
            out.append((style, pad_to_width(f" {name}: {role.value}", width) + "\n"))
            out.append(("", pad_to_width(lines[seat], width) + "\n"))
        else:
            out.append((style, pad_to_width(table.row(seat), width) + "\n"))
    if not roomy:  # the legend, when it fits above the keys (? has it too)
        second = any(r.value not in BASE_ROLES for r in summary.roles)
        marks = ["+st stole"] * any(took for took, _ in stole) + ["-st robbed"] * any(lost for _, lost in stole)
        # the legend of the columns as drawn: "$" only when tight ("gold" reads as itself)
        secret = " others: $ has gold" if table.total_label == "tot" else " others: gold (secret)"
        # once the game is over every total is shown: "gold (secret)" then stood over numbers (a play-test)
        hidden = any("gold" in (won, total) or total == "has gold" for seat, (won, total) in enumerate(gold) if seat != snap.seat)
        # once the game is over the others' totals are nuggets too, beside their cards won (a play-test)
        told = any(total.isdigit() for seat, (_, total) in enumerate(gold) if seat != snap.seat)
        base_notes = [" yours, totals: nuggets" if told else " yours: nuggets", " others: c gold cards"]
        notes = [" yours: gold pieces", secret][:1 + hidden] if second else base_notes
        if marks and len(f"{notes[-1]} · {' · '.join(marks)}") <= width:
            notes[-1] += " · " + " · ".join(marks)
        elif marks:
            notes.append(" " + " · ".join(marks))
        if len(out) + len(notes) + 1 <= height:
            out += [("class:hand.note", pad_to_width(note, width) + "\n") for note in notes]
    out.append(("class:hand.note", pad_to_width(f" {keys}", width)))
    return out


@dataclass(frozen=True)
class _Table:
    """The one-line-a-seat table of a round's end: each column as wide as what it holds, and
    the names given what is left (whole, when the short role names, "$" and "tot" make room)."""

    cells: list[tuple[str, str, str, str]]  # name, role, won, total
    widths: tuple[int, int, int, int]
    total_label: str

    @property
    def header(self) -> str:
        return self._line(("who", "role", "won", self.total_label))

    def row(self, seat: int) -> str:
        return self._line(self.cells[seat])

    def _line(self, cells: tuple[str, str, str, str]) -> str:
        name_w, role_w, won_w, total_w = self.widths
        name, role, won, total = cells
        return f" {pad_to_width(fit_name(name, name_w), name_w)} {role:<{role_w}}{won:>{won_w}}{total:>{total_w}}"


def _table(
    summary: RoundSummary, names: list[str], gold: list[tuple[str, str]], stole: list[tuple[int, int]], width: int,
) -> _Table:
    longest = max(text_width(name) for name in names)
    for tight in (False, True):
        # another seat's secret gold is "$" when tight, else "gold", in both columns alike (a
        # play-test read "gold" won beside a total of "$")
        secret = "$" if tight else "gold"
        # nothing won reads "-" for us as for the others (ours said "0": a play-test)
        # a winner paid nothing is "won 0", or "+0" when tight (not "-", a loser's: a play-test)
        won = [_won_cell(secret if w == "gold" else "-" if w.startswith("0 ") else "+0" if w == "won 0" and tight
                         else _compact(w), *theft)
               for (w, _), theft in zip(gold, stole, strict=True)]
        # a trapped seat wins nothing: say why (a play-test's blue digger read "-" as a fault)
        won = [("trap" if tight else "trapped") if seat in summary.trapped and cell == "-" else cell
               for seat, cell in enumerate(won)]
        totals = [secret if total == "has gold" else "-" if total.startswith("0 ") else _compact(total) for _, total in gold]
        short = [ROLE_SHORT.get(role.value, role.value) for role in summary.roles]
        roles = [ROLE_TINY.get(role, role) for role in short] if tight else short
        label = "tot" if tight else "total"
        role_w = max(4, *(len(role) for role in roles))
        # roomy, two spaces after the role ("green  gold-st", not "green gold-st")
        won_w = max(3, *(len(cell) for cell in won)) + (1 if tight else 2)
        total_w = max(len(label), *(len(cell) for cell in totals)) + 1
        # the names' column as wide as the longest name, not the whole panel (at 120 columns a
        # 40-column "who" pushed the gold far from the names)
        name_w = min(longest, max(3, width - 2 - role_w - won_w - total_w))
        if name_w >= longest:
            break
    cells = [(names[seat], roles[seat], won[seat], totals[seat]) for seat in range(len(names))]
    return _Table(cells, (name_w, role_w, won_w, total_w), label)


def _who_chooses(snap: Snapshot) -> str:
    """Whose choice the round's end waits for: "gold is being handed out" alone left a player
    waiting 25 s not knowing for whom (a play-test)."""
    view = snap.view
    if view is None or view.current_player == snap.seat:
        return "gold is being handed out"
    who = snap.name(view.current_player)
    doing = {"keep-gold": "chooses a gold card to keep", "take-gold": "takes gold from the pile",
             "steal": "steals with a Theft"}.get(view.phase)
    return f"gold is being handed out: {who} {doing}" if doing else "gold is being handed out"


def render_lobby(snap: Snapshot, width: int) -> list[str]:
    """The maze panel while the table fills: what to do, and the host's join commands, each
    wrapped between its words only: a key may hold a "-", so it is never broken.  Once the
    game began, what the seats are doing until the cards are dealt."""
    if snap.seat is not None:
        return ["", "  Every seat is taken. The seats shuffle and deal the", "  cards, each checking the others' work:",
                "  a few seconds, more at a big table.", "", "  The log on the right says who is seated."]
    lines = ["", "  Waiting for the table...", ""]
    if snap.hosting:
        lines.append("  Type :start to begin before every seat is taken.")
    lines.append("  The lobby speaks in the log on the right.")
    if snap.joining:
        lines += ["", "  friends join with:"]
        for command in snap.joining:
            lines += wrap_to_width(command, max(10, width - 4), initial_indent="    ", subsequent_indent="    ",
                                   break_long_words=False)
    return lines


def _how_it_ended(summary: RoundSummary, snap: Snapshot) -> str:
    """Who reached the treasure, and in Saboteur 2 what the doors left open; else that the
    cards ran out first (the only other way a round ends: "the saboteurs won" alone gave no
    reason, found in a play-test)."""
    if summary.reached is None:
        if all(role.value != "saboteur" for role in summary.roles):
            # why nobody won (a play-test read "nobody won · the cards ran out" as a fault)
            return "the cards ran out, and no saboteur was dealt"
        return "the cards ran out"  # one row in the narrowest panel
    who = "you" if summary.reached == snap.seat else snap.name(summary.reached)
    return f"{who} reached the treasure" + (f"; {summary.doors}" if summary.doors else "")


def render_ranking(snap: Snapshot, width: int = 78) -> str:
    """The end of the game: seats by nuggets (Saboteur 2: gold pieces), winners first, with
    what each won in every round (as far as this seat saw it) and who won each round; a seat's
    rounds that do not fit in ``width`` go on under them, unless the whole would not fit an
    80x24 screen (RANKING_ROWS): then each seat's total alone (the round-end screens had the rest)."""
    text = _ranking(snap, width, rounds=True)
    return text if text.count("\n") < RANKING_ROWS else _ranking(snap, width, rounds=False)


#: the rows the final ranking's box holds on an 80x24 screen (ten players' rounds overflowed it: review)
RANKING_ROWS = 20


def _ranking(snap: Snapshot, width: int, rounds: bool) -> str:
    view = snap.view
    if view is None or view.scores is None:
        return ""
    unit = view.config.edition_rules.gold_unit
    scores = view.scores
    best = max(scores)
    order = sorted(range(len(scores)), key=lambda s: (-scores[s], s))
    lines = [f"Game over · {unit}s", ""]
    place = 0
    previous = None
    names = {seat: "you" if seat == snap.seat else snap.name(seat) for seat in range(len(scores))}
    names = {seat: fit_name(name, RANKING_NAME) for seat, name in names.items()}
    wide = max(text_width(name) for name in names.values())
    amounts = {seat: f"{score} {unit}" + ("" if score == 1 else "s") for seat, score in enumerate(scores)}
    amount_wide = max(len(text) for text in amounts.values())
    for rank, seat in enumerate(order):
        if scores[seat] != previous:
            place, previous = rank + 1, scores[seat]
        star = "★ " if scores[seat] == best and best > 0 else "  "  # nobody with gold: no winner to star
        won = [f"r{r.round} {_short(r.won[seat], *_thefts_of(r, seat))}"
               for r in snap.rounds if seat < len(r.won)] if rounds else []
        placed = f"{place}.".rjust(len(f"{len(scores)}."))  # "10." and " 9." in one column (review)
        line = f"{star}{placed} {pad_to_width(names[seat], wide)}  {amounts[seat]:<{amount_wide}}"
        # the amount's padding kept: "(" stands in one column after "1 nugget" and "3 nuggets"
        lines += _packed(line, won, width) if won else [line.rstrip()]
    if snap.rounds:
        # "rounds: 1 saboteurs won · 2 saboteurs won" read as counts, and nothing said who the
        # saboteurs had been (found by a play-test); a line each, cut at the width, so that ten
        # players' rounds still fit a screen of 24 rows (found by review)
        winners = " · ".join(f"r{r.round} {r.winners.removeprefix('the ').removesuffix(' won')}" for r in snap.rounds)
        saboteurs = " · ".join(f"r{r.round} " + (", ".join(names[s] for s, role in enumerate(r.roles)
                                                          if role is Role.SABOTEUR and s in names) or "none")
                               for r in snap.rounds if r.roles)
        lines += ["", _cut(f"won: {winners}", width)]
        if saboteurs:
            lines.append(_cut(f"saboteurs: {saboteurs}", width))
        if rounds and any(text.endswith(("gold card", "gold cards")) for r in snap.rounds for text in r.won):
            # "9 nuggets (r1 3 cards r2 3 cards r3 2 cards)" did not add up (a play-test): the
            # faces of others' cards are not this seat's to see, only their totals
            lines[0] += " · each round: gold cards received"
    lines += ["", "q leaves · Esc looks at the board"]
    return "\n".join(lines)


def _cut(text: str, width: int) -> str:
    """``text`` in ``width`` columns, ending in "…" when cut."""
    return text if text_width(text) <= width else cut_to_width(text, width - 1) + "…"


def _packed(head: str, rounds: list[str], width: int) -> list[str]:
    """``head``, then its rounds in brackets: on as few lines as ``width`` allows, the lines
    after the first indented to the bracket, never a round split."""
    indent = text_width(head) + 3
    lines, line = [], f"{head}   ("
    for index, part in enumerate(rounds):
        part += ")" if index == len(rounds) - 1 else ""
        if index and text_width(line) + 2 + len(part) > width:
            lines.append(line)
            line = " " * (indent + 1) + part
        else:
            line += ("  " if index else "") + part
    return [*lines, line]


#: the columns a name takes at most in the final ranking (a name may have 40)
RANKING_NAME = 24

#: the base game's roles (any other role means Saboteur 2, where gold comes in pieces)
BASE_ROLES = frozenset(("gold-digger", "saboteur", "selfish-dwarf"))


def _thefts_of(summary: RoundSummary, seat: int) -> tuple[int, int]:
    """The gold pieces ``seat`` stole in the round, and those stolen from it."""
    took = summary.stole[seat] if seat < len(summary.stole) else 0
    return took, summary.robbed[seat] if seat < len(summary.robbed) else 0


def _pieces(count: int) -> str:
    return "a piece" if count == 1 else f"{count} pieces"


def _won_cell(won: str, stole: int, robbed: int = 0) -> str:
    """A round's win in the table, with "+st" for pieces stolen and "-st" for pieces lost to a
    thief (both for a seat that did both); nothing won and a theft is the theft alone ("+st",
    not "-+st")."""
    mark = ("+st" if stole else "") + ("-st" if robbed else "")
    return mark if mark and won == "-" else won + mark


def _compact(text: str) -> str:
    """Gold for a narrow column: "3 nuggets" -> "+3"... no sign on totals; "2 gold cards" -> "2c"."""
    number, _, unit = text.partition(" ")
    if not number.isdigit():
        return {"has gold": "$", "gold": "gold"}.get(text, text)
    return f"{number}c" if unit.startswith("gold card") else number


def _short(won: str, stole: int = 0, robbed: int = 0) -> str:
    """A round's winnings, short, and the pieces the seat ``stole`` and was ``robbed`` of after:
    "3 pieces" -> "+3", "3 pieces" robbed of one -> "+3 robbed 1", "0 nuggets" -> "-",
    nothing won but a theft ("-") -> "stole 1", an amount not shown to us ("gold") -> "gold stole 1", "2 gold cards"
    -> "2 cards"; a seat that stole and was robbed says both ("+4 stole 1 robbed 2")."""
    number, _, unit = won.partition(" ")
    theft = " ".join(([f"stole {stole}"] if stole else []) + ([f"robbed {robbed}"] if robbed else []))
    if not number.lstrip("-").isdigit():
        shown = {"has gold": "gold"}.get(won, won)
        return theft if theft and shown == "-" else f"{shown} {theft}".strip()
    if unit.startswith(("nugget", "gold piece", "piece")):
        if int(number) == 0:  # as another seat's round with nothing won reads ("+0" beside "-")
            return theft or "-"
        return f"{int(number):+d} {theft}".strip()
    return f"{number} card" + ("" if number == "1" else "s")
