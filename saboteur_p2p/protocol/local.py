"""A whole mental-poker game between bots in one process: every seat its own node and engine.

Records go from the speaking node to every other node (and a spectator) through an
in-memory loop, as the network will carry them.  Used by the tests, the benchmarks and
as the reference for the network session.
"""
from __future__ import annotations

import itertools
import os
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..botapi import Bot, GuardedSeat, lent, load_bot
from ..crypto.group import RandomBytes
from ..crypto.identity import Identity
from ..crypto.log import LogWriter
from ..match import bot_seed
from ..rules import GameConfig, State
from .node import GameSetup, Node


@dataclass
class LocalGame:
    setup: GameSetup
    nodes: list[Node]
    spectator: Node
    records: list[bytes] = field(default_factory=list)
    timings: list[RecordTiming] = field(default_factory=list)
    #: the CPU seconds the spectator spent taking records in (every thread of this process)
    spectator_cpu: float = 0.0


@dataclass(frozen=True)
class RecordTiming:
    """How long one record took: to make (speaker), and to take in (every seat, speaker too)."""

    speaker: int
    kind: str
    make: float
    take_in: dict[int, float]
    #: the step the record belongs to (the records of a group share it)
    step: int = 0


def make_setup(config: GameConfig, identities: Sequence[Identity], rand: RandomBytes) -> GameSetup:
    names = tuple(f"seat{i}" for i in range(config.players))
    return GameSetup(rand(32), config, tuple(i.public for i in identities), names)


def new_local_game(
    config: GameConfig, rand: RandomBytes = secrets.token_bytes,
) -> LocalGame:
    identities = [Identity.generate() for _ in range(config.players)]
    setup = make_setup(config, identities, rand)
    nodes = [Node(setup, seat, identities[seat], rand) for seat in range(config.players)]
    return LocalGame(setup, nodes, Node(setup, None))


def deliver(game: LocalGame, record: bytes, sender: int) -> dict[int, float]:
    """Send a record from ``sender`` (which has already taken it in) to every other node.

    Returns the seconds each node took to take it in.
    """
    game.records.append(record)
    took: dict[int, float] = {}
    for seat, node in enumerate(game.nodes):
        if seat != sender:
            started = time.perf_counter()
            node.receive(record)
            took[seat] = time.perf_counter() - started
    started = time.process_time()
    game.spectator.receive(record)
    game.spectator_cpu += time.process_time() - started
    return took


def send_ahead(game: LocalGame) -> dict[int, float]:
    """Every seat sends the sealed shares it will owe for cards just shown to some seats to
    their recipients at once (protocol.md §12.6), as the network session does after taking
    records in.  Returns the seconds each seat spent making and taking them."""
    took: dict[int, float] = {}
    for seat, node in enumerate(game.nodes):
        started = time.perf_counter()
        ahead = node.make_ahead()
        took[seat] = took.get(seat, 0.0) + time.perf_counter() - started
        for recipient, shares in ahead.items():
            started = time.perf_counter()
            game.nodes[recipient].take_ahead(seat, shares.encode())
            took[recipient] = took.get(recipient, 0.0) + time.perf_counter() - started
    return took


def prepare(game: LocalGame) -> dict[int, float]:
    """Every seat not to speak next does the work it can do ahead (Node.prepare), as the
    network session does while it waits.  Returns the seconds each seat spent."""
    speaking = {e.speaker for e in game.spectator.outstanding}
    took: dict[int, float] = {}
    for seat, node in enumerate(game.nodes):
        if seat not in speaking:
            started = time.perf_counter()
            while node.prepare():
                pass
            took[seat] = time.perf_counter() - started
    return took


def first_move_expected(game: LocalGame) -> bool:
    """True once the first round is dealt and its first player must move."""
    head = game.spectator.next_expected
    return head is not None and head.kind == "action"


def step(game: LocalGame, choose: Callable[[int, Node], str]) -> bool:
    """Let the one node whose turn it is speak; False when the game is over."""
    head = game.spectator.next_expected
    if head is None:
        return False
    node = game.nodes[head.speaker]
    step_index = len(game.spectator.step_starts) - 1
    move = choose(head.speaker, node) if node.awaiting_move() else None
    started = time.perf_counter()
    record = node.move(move) if move is not None else node.produce()
    elapsed = time.perf_counter() - started
    if record is None:
        raise RuntimeError(f"seat {head.speaker} has nothing to say for {head.kind}")
    took = deliver(game, record, head.speaker)
    started = time.perf_counter()
    node.run_deferred_checks()  # as the session does once the record has gone out
    took[head.speaker] = elapsed - node.last_make_seconds + time.perf_counter() - started
    for seat, seconds in send_ahead(game).items():
        took[seat] = took.get(seat, 0.0) + seconds
    for seat, seconds in prepare(game).items():
        took[seat] = took.get(seat, 0.0) + seconds
    game.timings.append(RecordTiming(head.speaker, head.kind, node.last_make_seconds, took, step_index))
    return True


def critical_path(timings: list[RecordTiming], players: int, latency: float = 0.0) -> float:
    """Seconds from the first record to the last one taken in, with every seat on its own machine.

    Each seat takes records in one after another, in log order; a seat makes its record
    only after taking in every record of the earlier steps (not the other records of its
    own group); a record reaches the others ``latency`` after it is made.
    """
    free = [0.0] * players
    for _, records in itertools.groupby(timings, key=lambda t: t.step):
        group = list(records)
        ready = list(free)  # when each seat had taken in every earlier step
        sent = []
        for t in group:  # a seat makes its own record of the group first ...
            sent.append(ready[t.speaker] + t.make)
            free[t.speaker] = sent[-1] + t.take_in.get(t.speaker, 0.0)
        for t, made in zip(group, sent, strict=True):  # ... then takes in the others'
            for seat in range(players):
                if seat != t.speaker:
                    free[seat] = max(free[seat], made + latency) + t.take_in.get(seat, 0.0)
    return max(free)


def play_local_game(
    config: GameConfig,
    bots: Sequence[Bot | str],
    seed: int = 0,
    rand: RandomBytes = secrets.token_bytes,
    max_records: int = 1_000_000,
    until: Callable[[LocalGame], bool] | None = None,
    log_dir: str | None = None,
) -> LocalGame:
    """Play a whole game of bots, each seat on its own node, to the end (or until ``until``)."""
    game = new_local_game(config, rand)
    if log_dir is not None:
        os.makedirs(log_dir, exist_ok=True)
        for seat, node in enumerate(game.nodes):
            node.writer = LogWriter(os.path.join(log_dir, f"seat{seat}.log"))
    loaded = [load_bot(b) if isinstance(b, str) else b for b in bots]
    seats = [GuardedSeat(bot, str(b), i) for i, (bot, b) in enumerate(zip(loaded, bots, strict=True))]
    delivered = [0] * config.players
    for i, guarded in enumerate(seats):
        guarded.start(config, bot_seed(seed, i))

    def hear(seat: int, state: State) -> None:
        with lent(state.board, not seats[seat].bundled):
            seats[seat].hear(state.events[delivered[seat]:])
        delivered[seat] = len(state.events)

    for i, node in enumerate(game.nodes):
        node.on_commit = lambda state, i=i: hear(i, state)

    def choose(seat: int, node: Node) -> str:
        state = node.state
        assert state is not None
        return str(seats[seat].act(state.view_for(seat), state.legal_actions()))

    try:
        for _ in range(max_records):
            if until is not None and until(game):
                return game
            if not step(game, choose):
                return game
        raise RuntimeError("the game did not end")
    finally:
        for node in game.nodes:
            if node.writer is not None:
                node.writer.close()
