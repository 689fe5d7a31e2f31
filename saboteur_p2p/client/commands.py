"""Typed commands: a move in a person's words, or say/help/legal/rules/start/quit/what.

A typed move names cards by hand slot and players by name (``client/words.py`` reads it
into the engine's text); it is checked with the engine before it is sent, and a refusal
is told in the same words.  The keys build the engine's text themselves and come in
through ``attempt`` too.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..net.lobby import too_few_to_start
from ..rules import IllegalActionError, InvalidActionError, MapPeek, PathKind, PlayerView, edition_named
from .cardinfo import slot_does
from .model import Snapshot, goal_faces
from .words import VERB_ALIASES, Words, alike_note, fewer_passes

if TYPE_CHECKING:
    from .controller import TableLink
    from .model import UIState

#: typed commands that are not moves
COMMANDS = ("say ", "help", "legal", "rules", "start", "quit", "what ")
#: the moves as a person types them, offered when it is not our move (on our move: every legal one)
VERBS = ("path ", "break ", "repair ", "rockfall ", "map ", "pass ", "orient ", "keep ", "take ")
#: Saboteur 2's own verbs (rules.md 8)
VERBS_2 = (
    "theft", "hands-off @", "swap-hand @", "inspection @", "swap-hats @", "trapped @", "free @", "clear ", "steal @",
)
#: the words that are commands, not moves
COMMAND_WORDS = ("?", "help", "legal", "moves", "rules", "start", "quit", "exit", "bye", "what", "info")


def command_words(edition: str) -> tuple[str, ...]:
    """Every word a typed line may begin with in this edition: the moves, the words the hand
    strip names cards by, and the commands."""
    moves = VERBS + (VERBS_2 if edition == "saboteur2" else ())
    words = [line.split()[0] for line in (*moves, *COMMANDS)]
    aliases = [alias for alias, verb in VERB_ALIASES.items() if verb in words]
    return tuple(dict.fromkeys([*words, *aliases, *COMMAND_WORDS]))


#: lines of moves ``legal`` writes to the log, at most
LEGAL_LINES = 12


def legal_lines(texts: list[str]) -> list[str]:
    """Legal moves, one line per card and kind: "path 2 at 1,0 · 2,0 turned", "break lantern
    @bob @carol", "pass: 1 · 2 · 3" (not a paragraph of forty moves that pushes the log away)."""
    placed: dict[str, list[str]] = {}  # "path 2" -> cells
    aimed: dict[str, list[str]] = {}  # "break lantern" -> @players
    plain: dict[str, list[str]] = {}  # "pass" -> what follows the verb
    for text in texts:
        card, at, place = text.partition(" at ")
        if at:
            placed.setdefault(card, []).append(place)
            continue
        card, on, target = text.partition(" @")
        if on:
            aimed.setdefault(card, []).append("@" + target)
            continue
        verb, _, rest = text.partition(" ")
        plain.setdefault(verb, []).append(rest)
    lines = [f"{card} at {' · '.join(cells)}" for card, cells in placed.items()]
    lines += [f"{card} {' '.join(targets)}" for card, targets in aimed.items()]
    # in slot order ("pass: 4 · 5 · 6 · 3 · 1 · 2" came in the engine's order of the cards, a play-test)
    lines += [f"{verb}: {' · '.join(sorted(rest, key=_slot_first))}" if any(rest) else verb for verb, rest in plain.items()]
    return lines


def _slot_first(text: str) -> tuple[int, str]:
    """A key that puts a hand slot ("3", "3 1") in slot order, the rest after in their order."""
    head = text.split(" ")[0]
    return (int(head), text) if head.isdigit() else (1 << 30, text)  # "1,2 (or any ...)" after the single cards


class TypedCommands:
    """The typed half of the controller (``Controller`` adds the keys)."""

    link: TableLink
    ui: UIState

    def snapshot(self) -> Snapshot:
        return self.link.snapshot()

    def words(self, snap: Snapshot) -> Words | None:
        return None if snap.view is None else Words(snap.view, snap.names)

    def reads_as_move(self, text: str) -> bool:
        """Whether ``text`` is a whole move in a person's words (refused, it broke a rule or came
        at the wrong time; a line that cannot be read is often only unfinished: "pass")."""
        words = self.words(self.snapshot())
        if words is None:
            return False
        try:
            words.read(text)
        except InvalidActionError:
            return False
        return True

    def command(self, text: str) -> bool:
        """Run a typed line: a move in a person's words, or say/help/legal/rules/start/quit."""
        text = typed_line(text)
        if not text:
            return False
        self.ui.history.append(text)
        word = text.split()[0].lower()
        if word == "say":
            chat = text[3:].strip()
            if chat:
                self.link.send_chat(chat)
                self.ui.say("said it")  # in the lobby too (a joiner's line waits until it is seated)
            else:
                self.ui.say("nothing to say: type the line after 'say' (Esc leaves)", "error")
            return bool(chat)
        if word in ("?", "help"):
            self.ui.help_open = True
            return True
        if word == "rules":
            section = text.split()[1:2]  # `rules 8`: from section 8
            if section and not (section[0].isascii() and section[0].isdigit() and 1 <= int(section[0]) <= 9):
                self.ui.say(f"no section {section[0][:10]} in the rules: rules 1 to rules 9 (or rules, from the top)", "error")
                return False
            self.ui.rules_open, self.ui.rules_scroll = True, 0
            self.ui.rules_section = int(section[0]) if section else 0
            return True
        if word in ("quit", "exit", "bye"):
            self.ui.confirm_quit = True
            return True
        if word == "start":
            snap = self.snapshot()
            if snap.hosting:
                self.link.request_start()
                self.ui.say(start_words(snap.edition, len(snap.names)), "ok")
                return True
            self.ui.say("only the host starts a game, before it begins", "error")
            return False
        if word in ("what", "info"):
            return self.what(text.split()[1:])
        if word in ("legal", "moves"):
            snap = self.snapshot()
            words = self.words(snap)
            if snap.decision is None or words is None:
                self.ui.say("it is not your move", "error", until_move=True)
                return False
            texts = list(dict.fromkeys(words.say(a) for a in snap.decision.legal))
            lines = legal_lines(fewer_passes(texts))
            self.link.note(f"legal now ({len(texts)} moves):")
            for line in lines[:LEGAL_LINES]:
                self.link.note("  " + line)
            if len(lines) > LEGAL_LINES:
                self.link.note(f"  ... and {len(lines) - LEGAL_LINES} more (Tab after a verb lists them)")
            alike = alike_note(snap.view) if snap.view is not None else None
            if alike is not None:
                self.link.note("  " + alike)
            return True
        return self.attempt(text, typed=True)

    def what(self, args: list[str]) -> bool:
        """``what 3``: what the card in hand slot 3 does, on the message line and in the log."""
        view = self.snapshot().view
        if view is None:
            self.ui.say("the game has not started yet", "error")
            return False
        found, text = slot_does(view, " ".join(args))
        if not found:
            self.ui.say(text, "error")
            return False
        self.ui.say(text)
        self.link.note(f"what {text}")  # whole in the log, where the message line cuts it short
        return True

    def assess(self, text: str) -> tuple[str, str]:
        """Inline validation of a half-typed line: (kind, message); kind is ok, error or info."""
        text = typed_line(text)
        if not text:
            return "info", "a move (path 2 at 3,-1 turned), what 2, say ..., legal, rules, help, quit · Tab completes"
        word = text.split()[0].lower()
        if word == "say":
            return "info", "Enter sends this line to the table"
        if word in ("what", "info"):
            return "info", "Enter: what the card in this slot of your hand does"
        if word in COMMAND_WORDS:
            return "info", f"Enter: {word}"
        snap = self.snapshot()
        words = self.words(snap)
        if words is None:
            return "info", "the game has not started yet"
        try:
            engine = words.read(text)
        except InvalidActionError as exc:
            ahead = self.completions(text) if " " not in text else []
            if ahead:  # a word still being typed: what it may become, not an error
                return "info", "Tab completes: " + " · ".join(dict.fromkeys(line.split()[0] for line in ahead))
            return "info", str(exc)
        if snap.decision is None:
            return "info", "well formed, but it is not your move"
        try:
            action = snap.decision.checker.check(engine, player=snap.seat)
        except (IllegalActionError, InvalidActionError) as exc:
            return "error", f"✗ {words.explain(exc)}"
        known = known_goal(words.view, action)  # legal, but a card spent on nothing new
        return "ok", f"✓ legal: {words.say(action)}" + (f" · {known}" if known else "")

    def completions(self, text: str) -> list[str]:
        """Whole lines that complete ``text``: the legal moves on our move, and the commands."""
        low = text.lower().lstrip().lstrip(":").lstrip()  # a trailing space still narrows the lines
        snap = self.snapshot()
        lines = list(COMMANDS)
        words = self.words(snap)
        if snap.decision is not None and words is not None:
            lines += list(dict.fromkeys(words.say(action) for action in snap.decision.legal))
        else:
            lines += list(VERBS)
            view = snap.view
            if view is not None and view.config.edition == "saboteur2":
                lines += list(VERBS_2)
        return [line for line in lines if line.startswith(low) and line != low][:200]

    def attempt(self, text: str, typed: bool = False) -> bool:
        """Check a move with the engine and send it; a refused move shows the rule it breaks.

        ``typed``: the text is in a person's words (else the engine's, from the keys).
        """
        snap = self.snapshot()
        text = text.strip()
        words = self.words(snap)
        if words is None:
            self.ui.say("the game has not started yet", "error")
            return False
        if time.monotonic() < self.ui.moves_after and snap.view is not None and snap.view.phase == "play":
            self.ui.say("the next round has just been dealt: look at your new hand first", "error")
            return False
        try:
            engine = words.read(text) if typed else text
        except InvalidActionError as exc:
            self.ui.say(str(exc), "error")
            return False
        decision = snap.decision
        view = snap.view
        assert view is not None
        if decision is None:
            who = view.current_player
            waiting = "the game is over" if view.phase == "game-over" else f"waiting for {snap.name(who)}"
            self.ui.say(f"not your move: {waiting}", "error", until_move=True)
            return False
        if self.ui.sent_for == decision.id:
            self.ui.say("your move is already on its way", "error")
            return False
        try:
            action = decision.checker.check(engine, player=snap.seat)
        except (IllegalActionError, InvalidActionError) as exc:
            self.ui.say(f"not allowed: {words.explain(exc)}", "error")
            return False
        known = known_goal(words.view, action)
        if typed and known and self.ui.confirming != text:
            # as the keys ask (Controller.enter): a typed map on a known goal was sent at once,
            # its warning gone under the bots' moves within a second (a play-test)
            self.ui.confirming = text
            self.ui.say(f"{known}: Enter again to play it", "error")
            return False
        self.ui.confirming = None
        self.link.submit_move(decision.id, str(action))
        self.ui.sent_for = decision.id
        self.ui.selected = None
        self.ui.turned = False
        self.ui.marked = []
        # the cursor's corners stayed on the cell through the others' turns, and hid the ×
        # a rockfall there left (found by a play-test): shown again by the next arrow or card
        self.ui.cursor_shown = False
        self.ui.say(f"played: {words.say(action)}" + (f" · {known}" if known else ""), "ok", until_moves=snap.last_moves)
        return True


def known_goal(view: PlayerView, action: object) -> str | None:
    """That a Map looks at a goal this seat knows already, if it does: "you know goal 0
    already (a stone)" (legal, but the card shows nothing new)."""
    if isinstance(action, MapPeek) and (known := goal_faces(view).get(action.goal)) is not None:
        return f"you know goal {action.goal} already ({'the treasure' if known.kind is PathKind.TREASURE else 'a stone'})"
    return None


def start_words(edition: str, seated: int) -> str:
    """What ``start`` does in the lobby: start now, or (too few seated for a game) as soon as
    enough are; the lobby's log says the same."""
    fewest = edition_named(edition).players[0] if edition else seated
    if seated >= fewest:
        return "starting with the players seated now"
    return too_few_to_start(fewest, seated)


def typed_line(text: str) -> str:
    """A typed line without the spaces around it, or the ":" a person may type again at the
    prompt that already shows one (":break cart @me" was not read: a play-test)."""
    return text.strip().lstrip(":").strip()
