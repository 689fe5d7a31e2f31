"""Moves as a person reads and types them: hand slots 1-6 and player names, not deck handles.

The engine's action text names a card by its deck handle (``path 33 at 1,1``, ``map 1 #4``)
and a player by seat number (``break lantern @2``): exact, and meaningless to a person.
``Words`` translates both ways for one seat at one moment (its view):

* ``say(action)``: ``path 2 at 1,1 turned``, ``break lantern @bob``, ``map 1``, ``pass 3``,
  ``keep 2`` (the second gold card offered), ``take 2+1`` (gold worth 2 and 1),
  ``steal @bob``, ``trapped @bob``, ``theft``, ``clear trapped with 3,5``;
* ``read(text)``: the same forms back to the engine's text (``@me`` is yourself; a name
  may be shortened while it stays unambiguous; ``map 5 1`` or ``map 5 (goal 1)`` names the
  Map card by slot too);
* ``explain(error)``: a refusal in those words: "your lantern", not "player 0's".
"""
from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence

from ..rules import (
    GOAL_CELLS,
    ActionCard,
    ActionKind,
    AnyAction,
    BreakTool,
    Card,
    Clear,
    IllegalActionError,
    InvalidActionError,
    KeepGold,
    MapPeek,
    Pass,
    PathCard,
    PlacePath,
    PlayerView,
    PlayOn,
    RepairTool,
    Rockfall,
    Steal,
    TakeGold,
    parse_action,
)
from ..rules.actions import CLEARABLE, TARGETED_KINDS
from .model import ACTION_SHORT


def fewer_passes(texts: Sequence[str]) -> list[str]:
    """Typed moves with Saboteur 2's passes of two or three cards (up to 41 of them) told as
    one: "pass 1,2 (or any two or three cards)" after the passes of one card."""
    several = [text for text in texts if text.startswith("pass ") and "," in text]
    # the passes of one card by slot, last as the engine lists them: in the engine's order of
    # handles they read "pass 4; pass 6; pass 5" (a play-test)
    single = sorted((text for text in texts if text.startswith("pass ") and text[5:].isdigit()), key=lambda t: int(t[5:]))
    out = [text for text in texts if not text.startswith("pass ") or (text not in several and text not in single)]
    out += single
    if several:
        out.append(f"{several[0]} (or any two or three cards)")
    return out


def alike_note(view: PlayerView) -> str | None:
    """For ``legal``: the hand slots that hold the same card, whose moves are listed for the
    first slot only (the engine lists a card once: "pass: 1 · 2 · 3 · 5" read as if 4 and 6
    could not be passed, in a play-test); None when every card differs."""
    groups: list[tuple[Card, list[int]]] = []
    for slot, (_, face) in enumerate(view.hand, 1):
        group = next((slots for card, slots in groups if card == face), None)
        if group is None:
            groups.append((face, [slot]))
        else:
            group.append(slot)
    alike = [" = ".join(map(str, slots)) for _, slots in groups if len(slots) > 1]
    return f"same card: {', '.join(alike)} (a move listed for one is a move for the other)" if alike else None


class WordsError(InvalidActionError):
    """A typed move that cannot be read, already said in the player's words (cards by hand
    slot, players by name): ``explain`` passes it on as it is."""


#: the short tool names the hand strip shows, read as the tools
TOOL_ALIASES = {"pick": "pickaxe", "lamp": "lantern", "pickaxe": "pickaxe", "lantern": "lantern", "cart": "cart"}
_TOOL = r"(pickaxe|lantern|cart|pick|lamp)"
#: the words that name the player typing
_SELF = ("me", "you", "myself")
_WHO = r"@(\S.*)"  # always last: a name may hold spaces (only its first word was read: a play-test)
#: the words the hand strip labels cards with, read as the verbs they stand for (and two more)
VERB_ALIASES = {short: verb for verb, short in ACTION_SHORT.items() if short != verb} | {
    "discard": "pass", "inspect": "inspection",
}
#: other words a person ends a path or stone move with, read as "turned"
TURNED_ALIASES = frozenset(("turn", "turnd", "trned", "rotated", "rotate", "flipped", "flip", "upside-down"))
#: how each move is typed, for a line that could not be read (Saboteur 2 adds ``USAGE_2``)
USAGE = {
    "path": "path SLOT at X,Y [turned], e.g. path 2 at 1,0",
    "break": "break TOOL @name (pick, lamp, cart), e.g. break lamp @bob",
    "repair": "repair TOOL @name, e.g. repair cart @me",
    "rockfall": "rockfall X,Y, e.g. rockfall 3,1 or rockfall 4 at 3,1",
    "map": "map GOAL or map SLOT GOAL, e.g. map 1 or map 5 1",
    "pass": "pass SLOT, e.g. pass 4",
    "keep": "keep N (the gold card offered), e.g. keep 1",
    "take": "take the values, e.g. take 2+1, or take nothing",
    "orient": "orient GOAL [turned], e.g. orient 1 turned",
}
USAGE_2 = {
    "pass": "pass SLOT[,SLOT,SLOT], e.g. pass 4 or pass 4,5,6",
    "clear": "clear WHAT with SLOT,SLOT: WHAT is pick, lamp, cart, trapped or theft",
    "steal": "steal @name or steal nobody",
    # each with the card's slot too, as every other card takes it (a play-test)
    **{kind.value: f"{kind.value} [SLOT] @name, e.g. {kind.value} @bob or {kind.value} 3 @bob" for kind in TARGETED_KINDS},
    # "theft @name" was shown, and a Theft is played only in front of yourself (a play-test)
    "theft": "theft [SLOT], played in front of yourself, e.g. theft or theft 5",
    "free": "free [SLOT] [@name] (yourself if none), e.g. free 3 or free @bob",
}
#: the Saboteur 2 verbs that are cards played on a player, not moves of every card (clear, steal)
_CARDS_2 = frozenset(kind.value for kind in TARGETED_KINDS)
#: the client's own typed commands (both prompts take them), suggested for a typo as the moves are
CLIENT_WORDS = ("help", "legal", "moves", "rules", "quit", "what", "say")
#: a rule's verb after "player N" became "you"
_SECOND_PERSON = {"holds": "hold", "has": "have", "is": "are"}
_PLAYED_ON = "|".join(kind.value for kind in TARGETED_KINDS)


class Words:
    """The words of one seat's moves, for the hand and the players its view shows now."""

    def __init__(self, view: PlayerView, names: Sequence[str]) -> None:
        self.view = view
        self.names = list(names)
        self.seat = view.seat
        self.slots = {handle: index + 1 for index, (handle, _) in enumerate(view.hand)}
        self.handles = {slot: handle for handle, slot in self.slots.items()}

    # -- engine -> person ------------------------------------------------------------------

    def say(self, action: AnyAction | str) -> str:
        """An action in a person's words (the engine's text if it names a card we lack)."""
        if isinstance(action, str):
            action = parse_action(action)
        if isinstance(action, PlacePath):
            return f"path {self.slot(action.card)} at {action.x},{action.y}" + (" turned" if action.turned else "")
        if isinstance(action, (BreakTool, RepairTool)):
            return f"{action.verb} {action.tool.value} @{self.who(action.target)}"
        if isinstance(action, Rockfall):
            return f"rockfall {action.x},{action.y}"
        if isinstance(action, MapPeek):
            return f"map {action.goal}"
        if isinstance(action, Pass):
            return "pass " + ",".join(self.slot(card) for card in action.cards)
        if isinstance(action, PlayOn):
            if action.kind.value == "theft":
                return "theft"
            return f"{action.kind.value} @{self.who(action.target)}"
        if isinstance(action, Clear):
            return f"clear {action.what} with " + ",".join(self.slot(card) for card in action.cards)
        if isinstance(action, Steal):
            return "steal nobody" if action.target is None else f"steal @{self.who(action.target)}"
        if isinstance(action, KeepGold):
            offered = [g for g, _ in self.view.offered]
            return f"keep {offered.index(action.gold) + 1}" if action.gold in offered else str(action)
        if isinstance(action, TakeGold):
            worth = {g: card.nuggets for g, card in self.view.gold_pile}
            return "take " + ("+".join(str(worth.get(g, "?")) for g in action.golds) if action.golds else "nothing")
        return str(action)  # orient: goal slots are what the maze shows

    def slot(self, handle: int) -> str:
        return str(self.slots.get(handle, "?"))

    def who(self, seat: int) -> str:
        """A player in a typed move: ``me``, or the name (the seat number for another player
        called "me", "you" or "myself", which would read back as us: found by review)."""
        if seat == self.seat:
            return "me"
        if not 0 <= seat < len(self.names) or " ".join(self.names[seat].lower().split()) in _SELF:
            return f"#{seat}"  # a seat number no name can take for its own (a bare "0" could: review)
        return self.names[seat]

    # -- person -> engine ------------------------------------------------------------------

    def read(self, text: str) -> str:
        """A typed move in the engine's text; raises InvalidActionError saying what is wrong."""
        move, at, name = text.partition("@")  # a player's name, last, is read as typed (a comma in it too)
        clean = " ".join(move.strip().lower().replace(" ,", ",").replace(", ", ",").split())
        if at:
            clean = f"{clean} @{' '.join(name.lower().split())}"
        verb, _, rest = clean.partition(" ")
        if verb in VERB_ALIASES:
            clean = f"{VERB_ALIASES[verb]} {rest}".strip()
        head, _, last = clean.rpartition(" ")
        if last in TURNED_ALIASES and "@" not in clean:  # not the last word of a player's name
            clean = f"{head} turned"
        for pattern, make in self._forms():
            match = re.fullmatch(pattern, clean)
            if match is not None:
                return make(*match.groups())
        raise WordsError(f"cannot read {text.strip()!r}: {self._usage(clean.partition(' ')[0], verb)}")

    def _usage(self, verb: str, typed: str) -> str:
        """How a move with this verb is typed, or the word nearest a typo (``typed`` is the
        word as typed, before an alias was read as its verb): short enough to show whole on
        the message line."""
        second = self.view.config.edition == "saboteur2"
        usage = USAGE | (USAGE_2 if second else {})
        if verb in usage:
            return usage[verb]
        if verb in USAGE_2:
            # a base game's "swap" was answered "did you mean swap?" (a play-test): it is
            # another edition's word, not a typo
            return f"{typed} is a Saboteur 2 {'card' if verb in _CARDS_2 else 'move'}, not one of this edition's"
        # only this edition's words, and never the word typed: a base game's "hats" was
        # answered "did you mean swap?", a Saboteur 2 card (a play-test)
        words = [*usage, *(alias for alias, meant in VERB_ALIASES.items() if meant in usage), *CLIENT_WORDS]
        near = difflib.get_close_matches(verb, [word for word in words if word not in (verb, typed)], n=1, cutoff=0.6)
        if near:
            # the word nearest the typo, as the person would type it ("discrad": discard, not
            # the engine's pass; found by a play-test), then how its move is typed
            word = near[0]
            how = usage.get(VERB_ALIASES.get(word, word), "")
            if word != VERB_ALIASES.get(word, word):
                how = how.replace(VERB_ALIASES[word], word)
            return f"did you mean {word}? {how}".rstrip()
        if second:
            return "try path 2 at 1,0 [turned] · trapped @name · clear cart with 3,4 · pass 4,5 · legal lists all · say hi chats"
        return "try path 2 at 1,0 [turned] · break lamp @name · map 2 · pass 4 · legal lists all · say hi chats"

    def _forms(self) -> list[tuple[str, Callable[..., str]]]:
        card, who = self.card, self.player
        return [
            (r"path (\d+) (?:at )?(-?\d+),(-?\d+)( turned)?",
             lambda s, x, y, t: f"path {card(s)} at {x},{y}" + (" turned" if t else "")),
            (rf"(break|repair) {_TOOL} {_WHO}", lambda verb, tool, p: f"{verb} {TOOL_ALIASES[tool]} @{who(p)}"),
            (rf"(break|repair) (\d+) {_WHO}", lambda verb, slot, p: self.tool_card(verb, slot, who(p))),
            (r"rockfall (?:at )?(-?\d+),(-?\d+)", lambda x, y: f"rockfall {x},{y}"),
            # with the card's slot and "at", as path and map take them (a play-test typed them)
            (r"rockfall (\d+) (?:at )?(-?\d+),(-?\d+)", lambda slot, x, y: self.rockfall_card(slot, x, y)),
            (r"map (?:goal )?(\d+)", lambda goal: self.map_goal(None, goal)),
            (r"map (\d+) \(?(?:goal )?(\d+)\)?", lambda slot, goal: self.map_goal(slot, goal)),
            (r"pass (\d+(?:,\d+)*)", self.passed),
            # with the card's slot or not, as every other card (a play-test); a Theft lies
            # before yourself, and a Free at last! named for no one frees yourself
            (rf"(theft|free)(?: (\d+))?(?: @(?:{'|'.join(_SELF)}))?", lambda kind, s: self.played_on(kind, s, self.seat)),
            (rf"({_PLAYED_ON}) {_WHO}", lambda kind, p: self.played_on(kind, None, who(p))),
            (rf"({_PLAYED_ON}) (\d+) {_WHO}", lambda kind, s, p: self.played_on(kind, s, who(p))),
            # the hand strip's short tool names too ("clear lamp": a play-test; break took them)
            (rf"clear ({'|'.join(CLEARABLE)}|pick|lamp) with (\d+),(\d+)",
             lambda what, a, b: f"clear {TOOL_ALIASES.get(what, what)} with {card(a)},{card(b)}"),
            (rf"steal (nobody|none|{_WHO})", lambda target, p: "steal none" if p is None else f"steal @{who(p)}"),
            (r"orient (\d+)( turned)?", lambda goal, t: f"orient {goal}" + (" turned" if t else "")),
            (r"keep (\d+)", lambda n: f"keep {self.offered(n)}"),
            (r"take (nothing|none|\d+(?:[+,]\d+)*)", lambda worth: self.take(worth)),
        ]

    def passed(self, slots: str) -> str:
        """``pass 4`` or, in Saboteur 2, ``pass 4,5,6``: one to three cards discarded."""
        cards = slots.split(",")
        most = 3 if self.view.config.edition == "saboteur2" else 1
        if len(cards) > most:
            raise WordsError("you discard one card at a time" if most == 1 else "at most three cards are discarded at once")
        return "pass " + ",".join(str(self.card(s)) for s in cards)

    def played_on(self, kind: str, slot: str | None, target: int) -> str:
        """``trapped 3 @bob``, ``theft 5``: a Saboteur 2 card played on a player, by its slot
        or, with none, any card of that kind in the hand."""
        if self.view.config.edition != "saboteur2":
            # "theft 5" in a base game would be "card 5 is not a theft card", as if one could be
            raise WordsError(f"{kind} is a Saboteur 2 card, not one of this edition's")
        if slot is None:
            return f"{kind} @{target}"
        handle, _ = self.action_in(slot, kind)
        return f"{kind} @{target} #{handle}"

    def rockfall_card(self, slot: str, x: str, y: str) -> str:
        """``rockfall 4 at 0,1``: the Rockfall in slot 4 played on the card at (0, 1)."""
        handle, _ = self.action_in(slot, "rockfall")
        return f"rockfall {x},{y} #{handle}"

    def tool_card(self, verb: str, slot: str, target: int) -> str:
        """``break 3 @bob``: the tool card in slot 3 played on a player (a repair card that
        names two tools repairs the one of them that is broken, if only one is)."""
        handle, face = self.action_in(slot, verb)
        tools = list(face.tools)
        if verb == "repair" and len(tools) > 1:
            broken = [tool for tool in tools if tool in self.view.broken[target]]
            if not broken:
                # "say which" asked to choose between two tools neither of which was broken (a play-test)
                whose = "you have" if target == self.seat else f"{self.names[target]} has"
                raise WordsError(f"card {slot} repairs a {' or '.join(t.value for t in tools)}, and {whose} neither broken")
            if len(broken) != 1:
                either = " or ".join(tool.value for tool in tools)
                raise WordsError(f"card {slot} repairs a {either}: say which (repair {tools[0].value} @name)")
            tools = broken
        return f"{verb} {tools[0].value} @{target} #{handle}"

    def map_goal(self, slot: str | None, goal: str) -> str:
        """``map 1`` (a Map on goal 1), ``map 5 1`` or ``map 5 (goal 1)`` (the Map in slot 5):
        a goal is numbered as the maze shows it, 0-2; the card, as every card, by hand slot."""
        number = int(goal)
        goals = len(GOAL_CELLS)
        if slot is None and number >= goals:
            face = dict(self.view.hand).get(self.handles.get(number, -1))
            if isinstance(face, ActionCard) and face.kind is ActionKind.MAP:
                raise WordsError(f"card {number} is a Map: say which goal it looks at (map {number} 1, goals 0-{goals - 1})")
        if number >= goals:
            raise WordsError(f"there is no goal {number}: the goals are 0-{goals - 1} (map 1, or map 5 1 for the Map in slot 5)")
        if slot is None:
            return f"map {number}"
        handle, _ = self.action_in(slot, ActionKind.MAP.value, "a Map")
        return f"map {number} #{handle}"

    def action_in(self, slot: str, kind: str, called: str = "") -> tuple[int, ActionCard]:
        """The handle and face of the action card of ``kind`` in this hand slot, or a
        WordsError saying the card there is not one (``called``: how to name one)."""
        handle = self.card(slot)
        face = dict(self.view.hand)[handle]
        if not isinstance(face, ActionCard) or face.kind.value != kind:
            raise WordsError(f"card {slot} is not {called or f'a {kind} card'}")
        return handle, face

    def card(self, slot: str) -> int:
        """The handle of the card in this hand slot."""
        number = int(slot)
        if number not in self.handles:
            raise WordsError(f"there is no card {number} in your hand (1-{len(self.handles)})"
                                     if self.handles else "you hold no cards")
        return self.handles[number]

    def player(self, word: str) -> int:
        """The seat of a player named (or begun to be named) ``word``, or by the seat number
        the players list shows, unless a name begins with it; ``me`` is ours."""
        if word in _SELF:
            return self.seat
        if word.startswith("#") and word[1:].isdigit() and int(word[1:]) < len(self.names):
            return int(word[1:])  # a seat by its number, as ``who`` says one
        names = [" ".join(name.lower().split()) for name in self.names]  # as the typed line is spaced
        if word in names:
            return names.index(word)
        found = [seat for seat, name in enumerate(names) if name.startswith(word)]
        if len(found) == 1:
            return found[0]
        if found:
            raise WordsError(f"{word!r} could be " + " or ".join(self.names[s] for s in found))
        if word.isdigit() and int(word) < len(names):
            return int(word)  # the seat number the players list shows (refused, in a play-test)
        # each name once: a player called "me" was listed twice (a play-test)
        raise WordsError(f"no player called {word!r} here: " + ", ".join(dict.fromkeys(["me", *self.names])))

    def offered(self, number: str) -> int:
        offered = [g for g, _ in self.view.offered]
        index = int(number) - 1
        if not 0 <= index < len(offered):
            raise WordsError(f"there is no gold card {number} to keep (1-{len(offered)})")
        return offered[index]

    def take(self, worth: str) -> str:
        """``take 2+1``: gold cards of these values from the pile (which of equal cards does not matter)."""
        if worth in ("nothing", "none"):
            return "take none"
        left = list(self.view.gold_pile)
        handles = []
        for value in re.split(r"[+,]", worth):
            pick = next((g for g, c in left if c.nuggets == int(value)), None)
            if pick is None:
                raise WordsError(f"the gold pile has no (more) cards worth {value}")
            handles.append(pick)
            left = [(g, c) for g, c in left if g != pick]
        return "take " + ",".join(str(h) for h in handles)

    # -- refusals ----------------------------------------------------------------------------

    def explain(self, error: IllegalActionError | InvalidActionError) -> str:
        """A refusal in a person's words: players by name (you, your), cards by slot, no handles."""
        if isinstance(error, IllegalActionError):
            return self.not_a_path_card(error.action) or self.words_of(error.rule)
        if isinstance(error, WordsError):
            return str(error)  # "card 9" there is the hand's slot 9, not the card of handle 9
        return self.words_of(str(error))

    def not_a_path_card(self, action: object) -> str | None:
        """Our path move's card, when it is no path card: "path 1 at 7,0" with a Break card in
        slot 1 was refused for the cell ("would not join the start's tunnel network", "5,5
        touches no card"), as the engine checks the cell first (a play-test). None for any
        other move, or out of turn, where whose turn it is comes first."""
        if isinstance(action, str):
            try:
                action = parse_action(action)
            except InvalidActionError:
                return None
        if not isinstance(action, PlacePath) or self.view.phase != "play" or self.view.current_player != self.seat:
            return None
        face = dict(self.view.hand).get(action.card)
        if face is None or isinstance(face, PathCard):
            return None
        return f"card {self.slot(action.card)} is not a path card"

    def words_of(self, text: str) -> str:
        def player(match: re.Match[str]) -> str:
            seat, possessive = int(match.group(1)), match.group(2)
            if seat == self.seat:
                return "your" if possessive else "you"
            name = self.names[seat] if 0 <= seat < len(self.names) else f"seat {seat}"
            return name + ("'s" if possessive else "")

        def card(match: re.Match[str]) -> str:
            handle = int(match.group(1))
            return f"card {self.slots[handle]}" if handle in self.slots else "that card"

        text = re.sub(r"\((-?\d+), (-?\d+)\)", r"\1,\2", text)  # a cell as the player types it: 3,-1
        text = re.sub(r"\bplayer (\d+)('s)?", player, text)
        text = re.sub(r"\bcard (\d+)\b", card, text)
        text = re.sub(r"'([a-z-]+ [^']*)'", lambda m: repr(self._said(m.group(1))), text)
        text = re.sub(r"\byour(?=$|[.,;)])", "yours", text)  # "not player 2's" at the end: "not yours"
        text = re.sub(r"\byou ((?:already |still )?)(holds|has|is)\b",
                      lambda m: f"you {m.group(1)}{_SECOND_PERSON[m.group(2)]}", text)
        # "you must keep one of the gold cards passed to them" (found by review)
        return re.sub(r"\byou\b([^.;]*?) (in front of|passed to) them\b", r"you\1 \2 you", text)

    def _said(self, action_text: str) -> str:
        try:
            return self.say(action_text)
        except (InvalidActionError, ValueError):
            return action_text
