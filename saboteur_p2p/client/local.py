"""An in-process table: the client's seat against bots, with a trusted dealer and no network.

``LocalTable.run`` drives an agent exactly as the network ``Session`` does: ``start``, then
``heard`` after every committed state, ``poll_move`` while the seat must act (the move is
checked with ``State.check`` before it is played), ``poll_chat`` and ``chat`` for the chat
line.  Tests use it to play whole games through the client quickly; ``saboteur-p2p play
--offline`` uses it (``run_offline``) to play without sockets.
"""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..botapi import GuardedSeat, bot_label, incident_words, lent, load_bot
from ..match import bot_seed
from ..net.agents import ROUND_END_PAUSE
from ..rules import Game, GameConfig, IllegalActionError, InvalidActionError, RoundEnded, State, TrustedDealer


@dataclass(frozen=True)
class LocalSetup:
    """The part of the network's GameSetup an agent reads."""

    config: GameConfig
    names: tuple[str, ...]


@dataclass
class LocalNode:
    """The part of the network's Node an agent reads: the setup and the current state."""

    setup: LocalSetup
    state: State


@dataclass(frozen=True)
class LocalResult:
    """How a local game ended: ``finished`` or ``quit``, and the scores when finished."""

    outcome: str
    message: str
    scores: tuple[int, ...] | None = None


class LocalTable:
    """One seat for an agent (a person at the client), bots at every other seat."""

    def __init__(
        self,
        config: GameConfig,
        agent: Any,
        seat: int = 0,
        bots: Sequence[str] = ("heuristic",),
        seed: int = 0,
        name: str = "you",
        bot_delay: float = 0.0,
        say: Callable[[str], None] | None = None,
    ) -> None:
        if not 0 <= seat < config.players:
            raise ValueError(f"no seat {seat} at a table of {config.players}")
        self.config = config
        self.agent = agent
        self.seat = seat
        self.seed = seed
        self.bot_delay = bot_delay
        self.say = say if say is not None else getattr(agent, "say", lambda text: None)
        specs = [bots[i % len(bots)] for i in range(config.players - 1)]
        self.bots: dict[int, GuardedSeat] = {}
        others = [s for s in range(config.players) if s != seat]
        for spec, other in zip(specs, others, strict=True):
            self.bots[other] = GuardedSeat(load_bot(spec), spec, other, time_limit=None)
        self.names = tuple(name if s == seat else f"{bot_label(self.bots[s].name)}-{s}" for s in range(config.players))
        self.state = Game(config, TrustedDealer(seed)).new_state()
        self.node = LocalNode(LocalSetup(config, self.names), self.state)
        self.delivered = 0
        self.result: LocalResult | None = None
        #: bots wait until then after a round ends (with a bot delay), so the person can read its end
        self.pause_until = 0.0
        #: per bot seat, how many of its incidents have been said
        self._told: dict[int, int] = {}

    def start_thread(self, **run_options: Any) -> threading.Thread:
        """Run the table in a daemon thread (as the client runs the network session); see ``result``."""

        def work() -> None:
            self.result = self.run(**run_options)

        thread = threading.Thread(target=work, name="local-table", daemon=True)
        thread.start()
        return thread

    def run(self, poll_every: float = 0.005, timeout: float | None = None) -> LocalResult:
        """Play until the game ends or the agent wants to quit (blocking, like Session.run)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        for s, bot in self.bots.items():
            bot.start(self.config, bot_seed(self.seed, s))
        self.agent.start(self.seat, self.node)
        self._committed()
        state = self.state
        while not state.is_terminal():
            if getattr(self.agent, "wants_to_quit", False):
                return LocalResult("quit", "you left the table")
            if deadline is not None and time.monotonic() > deadline:
                return LocalResult("timeout", "the game took too long")
            text = self.agent.poll_chat()
            if text:
                self.agent.chat(self.seat, self.names[self.seat], text[:200])
            player = state.current_player()
            if player != self.seat and time.monotonic() < self.pause_until:
                time.sleep(poll_every)
                continue
            if player != self.seat:
                action = self.bots[player].act(state.view_for(player), state.legal_actions())
                state.push(action)
                self._committed()
                self._tell_incidents()
                if self.bot_delay:
                    time.sleep(self.bot_delay)
                continue
            move = self.agent.poll_move(self.node)
            if move is None:
                time.sleep(poll_every)
                continue
            try:
                state.play(move, player=self.seat)
            except (IllegalActionError, InvalidActionError) as refused:
                self.say(f"that move is not allowed: {refused}")
                continue
            self._committed()
        scores = state.scores or ()
        unit = f"{self.config.edition_rules.gold_unit}s"
        message = f"game over. {unit}: " + ", ".join(f"{self.names[i]} {s}" for i, s in enumerate(scores))
        return LocalResult("finished", message, tuple(scores))

    def _tell_incidents(self) -> None:
        """Each bot's failures, said as they happen: its moves since read as play (found by a
        bot author)."""
        for seat, bot in self.bots.items():
            for incident in bot.incidents[self._told.get(seat, 0):]:
                self.say(incident_words(incident, self.names[seat]))
            self._told[seat] = len(bot.incidents)

    def _committed(self) -> None:
        """Tell the bots the new events and the agent the new state."""
        events = self.state.events[self.delivered:]
        bots = list(self.bots.values())
        with lent(self.state.board, not all(bot.bundled for bot in bots)):
            GuardedSeat.hear_all(bots, events)
        if self.bot_delay and any(isinstance(event, RoundEnded) for event in events):
            self.pause_until = time.monotonic() + ROUND_END_PAUSE * self.bot_delay
        self.delivered = len(self.state.events)
        self.agent.heard(self.state)


def run_offline(
    config: Any, bots: Sequence[str], name: str, seed: int | None, plain: bool = False, bot_delay: float = 0.4,
) -> int:
    """Play in-process against bots (trusted dealer, no network); returns the exit status."""
    from .runner import run_client  # the application only when there is a terminal to run it in

    seed = seed if seed is not None else random.randrange(1 << 30)
    if plain:
        from .lineedit import terminal_editor
        from .plain import PlainAgent, terminal_prompt, terminal_width

        agent = PlainAgent(print, terminal_width(), terminal_prompt(), terminal_editor())
        result = LocalTable(config, agent, bots=bots, seed=seed, name=name, bot_delay=bot_delay, say=agent.session_say).run()
        agent.session_say(result.message)
        agent.close()
        return 0  # finished, or the person chose to leave
    run = run_client(lambda agent: LocalTable(config, agent, bots=bots, seed=seed, name=name, bot_delay=bot_delay).run())
    if run.error is not None:
        raise run.error
    if run.result is None:
        print("you left the table")
        return 0
    print(run.result.message)
    return 0
