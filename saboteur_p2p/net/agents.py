"""Who decides a seat's moves on the network: a bot, or a person at a plain line prompt.

The full-screen client (saboteur_p2p.client) is the usual agent for a person; this line
prompt is kept for terminals that cannot show it (`--plain`).
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from collections.abc import Callable

from ..botapi import GuardedSeat, incident_words, lent, load_bot, split_spec
from ..match import bot_seed, narrate
from ..protocol.node import Node
from ..rules import PlayerView, RoundEnded, State, variants_words
from .chat import chat_line

#: how many move delays a bot waits after a round ends, so people can read the round's end
ROUND_END_PAUSE = 6
#: a bundled bot that once took this long (seconds) for a move has its thinking told before
#: each move after (the others are told this seat is busy), as before its first; an author's
#: bot, or a bundled one given parameters, has it always
THINKING_TOLD = 0.25


class BotAgent:
    """A bot plays the seat; it hears the public events of the seat's own engine.

    ``delay`` paces it for people at the table: it moves no sooner than that many seconds
    after its turn came (and waits longer after a round ends); 0 moves at once.
    """

    def __init__(self, spec: str, seed: int = 0, time_limit: float = 5.0, delay: float = 0.0) -> None:
        self.spec = spec
        self.seed = seed
        self.time_limit = time_limit
        self.delay = delay
        self.heard_events = 0
        self._turn_key: int | None = None
        self._ready_at = 0.0
        self._pause_until = 0.0
        #: the incidents of the bot's told to the table so far
        self._told = 0
        #: called with the seconds the bot may think before a move of its that may be slow:
        #: the session tells the others this seat is busy, as its loop answers nobody meanwhile
        #: (a bot thinking 4 s within its 5 s was told "away", and ended with a short --wait)
        self.on_thinking: Callable[[float], None] | None = None
        #: the longest the bot took for a move so far, seconds (None: it has not moved yet)
        self.slowest: float | None = None
        #: whether the spec gives the bot parameters (``ismcts:time=4``: its moves may be slow)
        self._tuned = bool(split_spec(spec)[1])

    def start(self, seat: int, node: Node) -> None:
        self.seat_no = seat
        self.guard = GuardedSeat(load_bot(self.spec), self.spec, seat, self.time_limit)
        self.guard.start(node.setup.config, bot_seed(self.seed, seat))

    def poll_move(self, node: Node) -> str | None:
        state = node.state
        assert state is not None
        if self.delay > 0:
            now = time.monotonic()
            if self._turn_key != len(state.events):
                self._turn_key = len(state.events)
                self._ready_at = max(now + self.delay, self._pause_until)
            if now < self._ready_at:
                return None
        if self.on_thinking is not None and self._may_think_long():
            self.on_thinking(self.time_limit + 1.0)
        started = time.monotonic()
        # one move every few seconds at most: the guard's one-shot timer is the right tool
        # (bot_watchdog is for whole in-process games, where moves come by the thousand)
        action = self.guard.act(state.view_for(self.seat_no), state.legal_actions())
        self.slowest = max(self.slowest or 0.0, time.monotonic() - started)
        return str(action)

    def _may_think_long(self) -> bool:
        """Whether the bot's next move may keep it silent long: a bot of its author's, one
        given parameters (``ismcts:time=4``), one not timed yet, or one that once was slow."""
        slowest = self.slowest
        return not self.guard.bundled or self._tuned or slowest is None or slowest >= THINKING_TOLD

    def heard(self, state: State) -> None:
        events = state.events[self.heard_events:]
        with lent(state.board, not self.guard.bundled):
            self.guard.hear(events)  # a commit's events together, within one move's time limit
        if self.delay > 0 and any(isinstance(event, RoundEnded) for event in events):
            self._pause_until = time.monotonic() + ROUND_END_PAUSE * self.delay
        self.heard_events = len(state.events)

    def chat(self, seat: int, name: str, text: str) -> None:
        return None

    def poll_chat(self) -> str | None:
        """The bot's failures, told to the table as this seat's chat: its moves since read as
        play (found by a bot author; the bot peer's own output kept nothing either)."""
        incidents = getattr(self, "guard", None) and self.guard.incidents
        if not incidents or self._told >= len(incidents):
            return None
        incident = incidents[self._told]
        self._told += 1  # one a poll: the next comes at the next poll
        return incident_words(incident, "my bot")


class LineAgent:
    """A person types moves in the action text form (and `say ...` to chat)."""

    def __init__(self, say: Callable[[str], None] = print) -> None:
        self.say = say
        self.lines: queue.Queue[str] = queue.Queue()
        self.chats: queue.Queue[str] = queue.Queue()
        self.heard_events = 0
        self.prompted = False
        self.names: list[str] = []
        self._start = threading.Event()
        self._reading = False

    def start_requested(self) -> bool:
        """For the host's lobby: the person typed `start` (begin before every seat is taken)."""
        self._read_in_background()
        return self._start.is_set()

    def start(self, seat: int, node: Node) -> None:
        self.seat_no = seat
        self.names = list(node.setup.names)
        if node.setup.config.variants:
            self.say(f"this table plays {variants_words(node.setup.config.variants)}")
        self._read_in_background()

    def _read_in_background(self) -> None:
        if not self._reading:
            self._reading = True
            threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in sys.stdin:
            self._take(line.strip())

    def _take(self, line: str) -> None:
        """One typed line: a chat, the host's start, or a move for ``poll_move``."""
        if line.startswith("say "):
            self.chats.put(line[4:])
        elif line == "start" and not self._start.is_set():
            self._start.set()
        elif line:
            self.lines.put(line)

    def _next_line(self, state: State) -> str | None:
        """The next line typed for a move (the table shown once a decision), if any."""
        if not self.prompted:
            self._show(state)
            self.prompted = True
        try:
            return self.lines.get_nowait()
        except queue.Empty:
            return None

    def poll_move(self, node: Node) -> str | None:
        state = node.state
        assert state is not None
        line = self._next_line(state)
        if line is None:
            return None
        if line in ("?", "help"):
            legal = state.legal_actions()
            self.say("legal: " + "; ".join(str(a) for a in legal[:40]) + (" ..." if len(legal) > 40 else ""))
            return None
        self.prompted = False
        return line

    def _show(self, state: State) -> None:
        for line in describe_view(state.view_for(self.seat_no), self.names):
            self.say(line)

    def heard(self, state: State) -> None:
        for line in narrate(state.events[self.heard_events:], self.names, self.seat_no, state.config.edition):
            self.say(line)
        self.heard_events = len(state.events)

    def chat(self, seat: int, name: str, text: str) -> None:
        self.say(chat_line(name, text))

    def poll_chat(self) -> str | None:
        try:
            return self.chats.get_nowait()
        except queue.Empty:
            return None


def describe_view(view: PlayerView, names: list[str]) -> list[str]:
    """The lines the plain prompt shows when it is the seat's move."""
    seat = view.seat
    hand = ", ".join(f"{h}={card.code}" for h, card in view.hand)
    broken = ", ".join(t.value for t in view.broken[seat]) or "none"
    role = view.role.value if view.role else "?"
    lines = [f"your move ({view.phase}); role {role}; hand: {hand}; broken: {broken}"]
    if view.config.edition == "saboteur2":
        lines += _saboteur2_lines(view, names)
    if view.offered:
        lines.append("gold passed to you: " + ", ".join(f"{g}={c.nuggets}" for g, c in view.offered))
    if view.gold_pile:
        lines.append(f"take {view.take_amount} from: " + ", ".join(f"{g}={c.nuggets}" for g, c in view.gold_pile))
    if view.phase == "steal":
        lines.append("steal a gold piece: steal @<seat> from a player who has gold, or steal none")
    else:
        lines.append("type a move (e.g. path 12 at 1,0 turned), ? for the legal moves, or say ... to chat")
    return lines


def saboteur2_marks(view: PlayerView, other: int) -> list[str]:
    """What the table knows of another seat in Saboteur 2: a Trapped! or Theft in front of it,
    whether it has gold (a thief's targets), and its dwarf card if this seat inspected it."""
    marks = [word for word, on in (("trapped", view.trapped[other]), ("theft", view.thefts[other]),
                                   ("has gold", view.has_gold[other])) if on]
    if other in view.known_roles:
        marks.append(f"inspected: {view.known_roles[other].value}")
    return marks


def _saboteur2_lines(view: PlayerView, names: list[str]) -> list[str]:
    """Saboteur 2: what lies in front of each player, gold, the roles we saw, the new moves."""
    def who(seat: int) -> str:
        return f"P{seat} {names[seat]}" if 0 <= seat < len(names) else f"P{seat}"

    seat = view.seat
    mine = [word for word, lying in (("trapped", view.trapped[seat]), ("theft", view.thefts[seat])) if lying]
    lines = [f"your gold: {view.gold_pieces} piece(s); in front of you: {', '.join(mine) or 'nothing'}; "
             f"crystals in the maze: {view.board.crystals()}"]
    table = [f"{who(other)} ({', '.join(marks)})" for other in range(view.players)
             if other != seat and (marks := saboteur2_marks(view, other))]
    if table:
        lines.append("others: " + "; ".join(table))
    lines.append("Saboteur 2 moves: trapped @2, free @2, theft @0, hands-off @1, swap-hand @1, inspection @3, "
                 "swap-hats @0, pass 4,7,9, clear trapped with 3,7")
    return lines
