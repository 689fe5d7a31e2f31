"""A bot that stands in for this seat's person, on this seat's own node.

A person who leaves a table of several people hands the seat to a bot that runs here and
signs with the seat's key, so the others play on instead of losing the game (protocol.md
§12.7).  With a turn timer (``--turn-time S``), a move the person has not chosen within S
seconds is chosen by that bot, and the person keeps the seat.  Either way every peer is
told with a ``standin`` envelope and says so in its log.

To the others nothing else changes: the records are this seat's, signed with its key, and
checked like any.  A seat may stand in for itself without saying so; the notice is a
courtesy, not something anyone can check.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ..crypto.identity import Identity
from ..protocol.node import GameSetup, Node
from .agents import BotAgent
from .transport import Transport
from .wire import Envelope, seal

#: the bot that plays for a person who left or ran out of time
STAND_IN_BOT = "heuristic"
#: seconds the stand-in of a person who left waits before each move, so the people still at
#: the table can follow it (as bots are paced at a table with people: ``--bot-delay``)
STAND_IN_DELAY = 0.8
WHY = {
    "left": "{name} left the table: a bot on their machine plays their seat",
    "timer": "{name}'s turn timer ran out: a bot on their machine chose their move",
}
#: what a seat is told when another seat's program runs again (a newer run linked): a stand-in
#: that played that seat stopped with the run before (a silence and "is back" alone say nothing
#: of the stand-in, which may have been playing through it)
RUNS_AGAIN = "{name} runs their program again"
#: a peer reports each kind of another seat's stand-in notice at most this often (seconds)
NOTICE_EVERY = 2.0


class StandIn:
    """Session mixin: the stand-in bot, the turn timer, and the notices of other seats'
    (``Session`` provides these attributes)."""

    identity: Identity
    setup: GameSetup
    node: Node
    transport: Transport
    endpoints: dict[int, str]
    names: list[str]
    seat: int
    agent: Any
    say: Callable[[str], None]
    _leave: Callable[[str], Any]

    def _start_stand_in(self, turn_time: float | None, on_leave: str, delay: float = 0.0) -> None:
        if on_leave not in ("bot", "end"):
            raise ValueError(f"on_leave is 'bot' or 'end', not {on_leave!r}")
        self.turn_time = turn_time
        self.on_leave = on_leave
        #: whether Ctrl-C ends the game with a bye: this machine's bot peers stop with this seat
        #: (a host that runs them sets it); else the seat drops, and the same command takes it back
        self.bye_on_interrupt = on_leave == "end"
        self.stand_in_delay = delay
        self.stand_in: BotAgent | None = None
        self.handed_over = False
        #: the person's agent once the stand-in plays: it may still ask to stop (``stop_asked``)
        self.left_by: Any = None
        #: the decision the turn timer runs for (how many records the log held) and since when
        self._timer: tuple[int, float] | None = None
        self._standin_noticed: dict[tuple[int, str], float] = {}

    def _interrupted(self) -> None:
        """Stopped (Ctrl-C) in a game: a seat whose bot peers stop with it says bye, so nobody
        waits for seats that are gone; any other just drops, and the same command takes it back."""
        if self.bye_on_interrupt and not self.node.finished and self.node.aborted is None:
            self._leave("you stopped this seat (Ctrl-C); the others were told you left")

    def _stand_in_bot(self) -> BotAgent:
        if self.stand_in is None:
            self.stand_in = BotAgent(STAND_IN_BOT, int.from_bytes(self.setup.game_id[:4], "big"))
            self.stand_in.start(self.seat, self.node)
        if self.node.state is not None:
            self.stand_in.heard(self.node.state)  # every event so far, then each new one
        return self.stand_in

    def _hand_over(self) -> None:
        """Our person left: the stand-in plays the seat from now on."""
        bot = self._stand_in_bot()
        bot.delay = self.stand_in_delay  # paced like any bot at a table of people
        self.handed_over = True
        person, self.agent = self.agent, bot
        self.left_by = person
        self.node.on_commit = bot.heard
        told = getattr(person, "handed_over", None)
        if callable(told):
            told()
        self._tell_table("left")
        self.say("you left the table: a bot plays your seat until the game ends")

    def _poll_move(self) -> str | None:
        """The person's move, or the stand-in's once the turn timer has run out."""
        move = self.agent.poll_move(self.node)
        if move is not None or self.handed_over or self.turn_time is None:
            self._stop_timer()
            return move
        now = time.monotonic()
        decision = len(self.node.records)
        if self._timer is None or self._timer[0] != decision:
            self._timer = (decision, now)
            self._tell_deadline(now + self.turn_time)
        if now - self._timer[1] < self.turn_time:
            return None
        self._stop_timer()
        move = self._stand_in_bot().poll_move(self.node)
        self._tell_table("timer")
        # the move itself is told by the log in the player's words (cards by slot), not
        # in the engine's text, whose numbers are the deck's handles
        self.say(f"your {self.turn_time:g} s ran out: a bot chose your move")
        return move

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer = None
            self._tell_deadline(None)

    def _tell_deadline(self, at: float | None) -> None:
        """Tell our person's screen when the turn timer runs out (``time.monotonic()``; None:
        it stopped), if it shows it (a play-test: the bot moved for a person with no warning)."""
        told = getattr(self.agent, "turn_deadline", None)
        if callable(told):
            told(at)

    def _tell_table(self, why: str) -> None:
        data = seal(self.identity, "standin", {"game_id": self.setup.game_id, "seat": self.seat, "why": why})
        for endpoint in self.endpoints.values():
            self.transport.send(endpoint, data)

    def _heard_stand_in(self, env: Envelope, sender: int) -> None:
        why: Any = env.field("why", str, 20)
        now = time.monotonic()
        if why not in WHY or now - self._standin_noticed.get((sender, why), -NOTICE_EVERY) < NOTICE_EVERY:
            return
        self._standin_noticed[(sender, why)] = now
        self.say(WHY[why].format(name=self.names[sender]))


__all__ = ["STAND_IN_BOT", "STAND_IN_DELAY", "StandIn"]
