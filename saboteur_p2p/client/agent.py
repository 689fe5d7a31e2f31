"""ClientAgent: the seat's Agent for the network session, bridging it to the UI thread.

The session loop is blocking and runs in a background thread; the prompt_toolkit
application runs in the main thread.  They meet here:

* session -> UI: ``heard(state)`` and ``poll_move(node)`` publish an immutable ``Snapshot``
  (the seat's view, and on its move the legal actions with a private copy of the state to
  check moves against); ``chat`` and ``say`` add log lines.  Each calls ``on_change``
  (the application's ``invalidate``, which is thread-safe) so the screen redraws.
* UI -> session: ``submit_move`` and ``send_chat`` fill queues that ``poll_move`` and
  ``poll_chat`` drain.  A move carries the id of the decision it was made for, so a late
  move is never played at a later turn.

Leaving: the UI sets ``wants_to_quit``; the session sees it, sends ``bye`` to the table
(which ends the game for everyone) and stops.
"""
from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ..match import move_words, narrate, winners_words
from ..net.chat import chat_line
from ..net.standin import RUNS_AGAIN
from ..net.standin import WHY as STAND_IN_WHY
from ..rules import (
    CardPlayed,
    PiecesWon,
    PlayerView,
    RoundEnded,
    State,
    Stolen,
    variants_words,
)
from .model import Decision, LogKind, LogLine, MapNews, Snapshot, SteadyHand
from .tracker import Tracker

#: log lines kept for scrolling back
LOG_LIMIT = 2000


class ClientAgent:
    """Implements the session's Agent interface for a person at the full-screen client."""

    def __init__(self, on_change: Callable[[], None] | None = None, hosting: bool = False) -> None:
        self.on_change = on_change
        self.wants_to_quit = False
        #: the session gave our seat to a bot on this machine when the person left: it plays on
        self.stood_in = False
        #: the person stopped the stand-in that played their seat (Ctrl-C), which ends the game
        self.stop_asked = False
        self._lock = threading.Lock()
        self._moves: queue.Queue[tuple[int, str]] = queue.Queue()
        self._chats: queue.Queue[str] = queue.Queue()
        self._start = threading.Event()
        self._log: list[LogLine] = []
        self._snapshot = Snapshot(hosting=hosting)
        self._heard_events = 0
        self._commits = 0
        self._decision_key: tuple[int, int] | None = None
        self._decision_id = 0
        self._map_news = MapNews()
        #: Saboteur 2: the dwarf cards we were told of (ours, and inspected ones), by seat
        self._told_roles: dict[int, Any] = {}
        self._roles_round = 0
        #: the parts of the last round's result line: the winners, then gold won and stolen
        self._round_parts: list[str] = []
        self.seat = 0
        self.names: list[str] = []
        self._hand = SteadyHand()
        self.tracker: Tracker | None = None

    # -- the Agent interface (session thread) ------------------------------------------

    def start(self, seat: int, node: Any) -> None:
        """The session begins: our seat and the table's names."""
        self.seat = seat
        self.names = list(node.setup.names)
        self.tracker = Tracker(seat, len(self.names))
        self._hand = SteadyHand.beside(node)  # the slots of a seat taken back are kept
        self._publish(seat=seat, names=tuple(self.names), hosting=False)
        # "you are you" read oddly (the `play` table names its person "you": a play-test)
        mine, seats = self.names[seat], len(self.names)
        self.note(f"you sit at seat {seat} of {seats}" if mine == "you" else f"you are {mine}, at a table of {seats}")
        if node.setup.config.variants:  # nowhere said before, and the rules changed in silence (a play-test)
            self.note(f"this table plays {variants_words(node.setup.config.variants)}")
        state = getattr(node, "state", None)
        if state is not None:
            self.heard(state)  # a seat resumed from its log: show where the game stands

    def heard(self, state: State) -> None:
        """The engine committed a new state: show its view and its new events."""
        self._commits += 1
        events = state.events[self._heard_events:]
        self._heard_events = len(state.events)
        moves = {move_words(e, self.names, self.seat) for e in events if isinstance(e, CardPlayed)}
        told = narrate(events, self.names, self.seat, state.config.edition)
        lines = [LogLine(LogKind.EVENT, line, move=line in moves) for line in told]
        last_round = None
        played = set()
        self._map_news.saw(events, self.seat)
        for event in events:
            if isinstance(event, CardPlayed):
                played.add(event.player)
            if isinstance(event, RoundEnded):
                you = event.roles[self.seat].value
                winners = winners_words(event.winners, event.roles)
                self._round_parts = [f"round {event.round}: {winners} won (you were {you})"]
                last_round = self._round_parts[0]
            elif isinstance(event, (PiecesWon, Stolen)):
                # the narration logs it; the round's result line says it from our side
                self._round_parts.append(self._gold_line(event))
                last_round = "; ".join(self._round_parts)
        view = self._view(state)
        lines += [LogLine(LogKind.PRIVATE, line) for line in self._map_news.lines(view)]
        lines += self._role_lines(view)
        if self.tracker is None:
            self.tracker = Tracker(self.seat, view.players)
        self.tracker.take(events, view, self.names)
        with self._lock:
            self._log += lines
            del self._log[:-LOG_LIMIT]
            # a seat that came back shows "back" until it plays again
            changes: dict[str, Any] = {
                "view": view, "decision": None, "back": self._snapshot.back - played,
                "rounds": tuple(self.tracker.summaries), "last_moves": dict(self.tracker.last_moves),
            }
            if last_round is not None:
                changes["last_round"] = last_round
            self._snapshot = replace(self._snapshot, **changes)
        self._changed()

    def poll_move(self, node: Any) -> str | None:
        """Our move when the person has made one for the current decision (else None)."""
        state: State = node.state
        key = (self._commits, len(state.events))
        if key != self._decision_key:
            self._decision_key = key
            self._decision_id += 1
            decision = Decision(self._decision_id, tuple(state.legal_actions()), state.clone())
            self._publish(view=self._view(state), decision=decision)
        while True:
            try:
                decision_id, text = self._moves.get_nowait()
            except queue.Empty:
                return None
            if decision_id == self._decision_id:
                # the move is on its way; if the session refuses it, the next poll makes a
                # fresh decision, so it can be retried
                self._decision_key = None
                self._publish(decision=None)
                return text

    def chat(self, seat: int, name: str, text: str) -> None:
        self._add(LogLine(LogKind.CHAT, chat_line(name, text)))

    def poll_chat(self) -> str | None:
        try:
            return self._chats.get_nowait()
        except queue.Empty:
            return None

    # -- what else the session and the launcher tell us -----------------------------------

    def say(self, text: str) -> None:
        """A line from the session or the lobby (its ``say``): log it, note who is away or back."""
        for line in text.splitlines() or [""]:
            presence = False
            for seat, name in enumerate(self.names):
                if line.startswith((f"{name} is away", f"{name} is back", f"{name} is not heard here")):
                    # a seat not heard here, but by the others, is at the table: not away
                    self.set_connection(seat, away=line.startswith(f"{name} is away"))
                    presence = True
            if presence:
                self._presence(line)  # one line that says who is away now, not a line per change
                continue
            for seat, name in enumerate(self.names):
                if line == RUNS_AGAIN.format(name=name):
                    # a new run of that seat's program, not the bot that stood in for its
                    # person, who stopped it (a play-test saw "bt" beside a person who had
                    # come back, up to the game's end); a silence alone ends no stand-in
                    with self._lock:
                        self._snapshot = replace(self._snapshot, stand_ins=self._snapshot.stand_ins - {seat})
                if line == STAND_IN_WHY["left"].format(name=name):
                    # the players list marks the seat, after the log has moved on (a play-test
                    # could not tell which seat a bot played)
                    with self._lock:
                        self._snapshot = replace(self._snapshot, stand_ins=self._snapshot.stand_ins | {seat})
            if line.startswith("game over. ") and self._narrated_end():
                continue  # the narration's "== game over." said it, with "you" for this seat
            kind = LogKind.ERROR if line.startswith("that move is not allowed") else LogKind.NOTICE
            self._add(LogLine(kind, line))

    def _narrated_end(self) -> bool:
        with self._lock:
            return any(line.text.startswith("== game over.") for line in reversed(self._log[-50:]))

    def set_connection(self, seat: int, away: bool) -> None:
        """Mark a seat away (no word from it) or back."""
        with self._lock:
            snap = self._snapshot
            if away:
                self._snapshot = replace(snap, away=snap.away | {seat}, back=snap.back - {seat})
            else:
                self._snapshot = replace(snap, away=snap.away - {seat}, back=snap.back | {seat})
        self._changed()

    def lobby(self, edition: str, names: tuple[str, ...], joining: tuple[str, ...], seats: int = 0) -> None:
        """The lobby (``host_table``'s or ``join_table``'s ``on_lobby``): the table's edition,
        the names seated so far, the commands friends join with, and the seats in all (0: not told)."""
        self._publish(edition=edition, names=names, joining=joining, table_size=seats)

    def turn_deadline(self, at: float | None) -> None:
        """When the turn timer has a bot choose our move (the session's, ``--turn-time``)."""
        self._publish(move_deadline=at)

    def session_ended(self, message: str, said: bool = False) -> None:
        """The session returned (or failed): no more moves will be asked for.

        Its closing message is logged unless the session ``said`` it already (a session that
        ran says its result, then where the log is saved: the result showed twice).
        """
        with self._lock:
            self._snapshot = replace(self._snapshot, decision=None, ended=message)
        if not said:
            self.say(message)

    # -- the UI side (main thread) ---------------------------------------------------------

    def snapshot(self) -> Snapshot:
        with self._lock:
            return self._snapshot

    def log_lines(self) -> list[LogLine]:
        with self._lock:
            return list(self._log)

    def submit_move(self, decision_id: int, text: str) -> None:
        self._moves.put((decision_id, text))

    def send_chat(self, text: str) -> None:
        self._chats.put(text)

    def request_start(self) -> None:
        self._start.set()

    def start_requested(self) -> bool:
        """For the host's lobby: start before every seat is taken."""
        return self._start.is_set()

    def note(self, text: str, kind: LogKind = LogKind.NOTICE) -> None:
        self._add(LogLine(kind, text))

    def leaving_means(self, on_leave: str) -> None:
        """What leaving does at this table (the session's ``on_leave``: "end" or "bot"), for
        the question that asks the person whether to leave."""
        self._publish(leave_ends=on_leave == "end")

    def quit(self) -> None:
        """The person leaves: tell the table in the chat and raise ``wants_to_quit``."""
        self._chats.put("(leaves the table)")
        self.wants_to_quit = True

    def handed_over(self) -> None:
        """The session handed our seat to a stand-in bot (the person left)."""
        self.stood_in = True

    # -- internals -----------------------------------------------------------------------

    def _gold_line(self, event: PiecesWon | Stolen) -> str:
        if isinstance(event, PiecesWon):
            if event.player != self.seat:
                return f"{self._who(event.player)} won gold"  # how much is secret (rules.md 8)
            return f"you won {event.pieces} gold piece" + ("" if event.pieces == 1 else "s")
        if event.victim is None:
            return f"{self._who(event.thief)} stole nothing"
        return f"{self._who(event.thief)} stole a gold piece from {self._who(event.victim)}"

    def _who(self, seat: int) -> str:
        return "you" if seat == self.seat else self._snapshot.name(seat)

    def _role_lines(self, view: Any) -> list[LogLine]:
        """Saboteur 2, private: a dwarf card an Inspection showed us, or our new one after
        a Swap your hats (the round's own dwarf card is on the info line)."""
        if view.config.edition != "saboteur2" or view.role is None:
            return []
        lines = []
        if view.round != self._roles_round:
            self._told_roles, self._roles_round = {self.seat: view.role}, view.round
        elif self._told_roles.get(self.seat) is not view.role and view.revealed_roles is None:
            lines.append(LogLine(LogKind.PRIVATE, f"your new dwarf card: {view.role.value}"))
        self._told_roles[self.seat] = view.role
        for seat, role in sorted(view.known_roles.items()):
            if self._told_roles.get(seat) is not role:
                self._told_roles[seat] = role
                lines.append(LogLine(LogKind.PRIVATE, f"your inspection: {self._who(seat)} is a {role.value}"))
        return lines

    def _presence(self, latest: str) -> None:
        """Tell who is away in one log line: the newest notice, and who else is away now.
        It replaces the last line if that is such a line already (set-up brings many
        changes in a row), else it is a new one."""
        snap = self.snapshot()
        others = [snap.name(s) for s in sorted(snap.away) if not latest.startswith(f"{snap.name(s)} is ")]
        text = latest + (f" · away now: {', '.join(others)}" if others else "")
        line = LogLine(LogKind.NOTICE, text, presence=True)
        with self._lock:
            if self._log and self._log[-1].presence:
                self._log[-1] = line
            else:
                self._log.append(line)
                del self._log[:-LOG_LIMIT]
        self._changed()

    def _add(self, line: LogLine) -> None:
        with self._lock:
            self._log.append(line)
            del self._log[:-LOG_LIMIT]
        self._changed()

    def _view(self, state: State) -> PlayerView:
        """Our view, its hand in steady slots: a card keeps its number while we hold it."""
        return self._hand.view(state, self.seat)

    def _publish(self, **changes: Any) -> None:
        with self._lock:
            self._snapshot = replace(self._snapshot, **changes)
        self._changed()

    def _changed(self) -> None:
        if self.on_change is not None:
            self.on_change()
