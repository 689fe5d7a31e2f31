"""How long each seat takes to take a move in, in a local game of bot nodes (one process,
no network, no wait for a core): the seat that moves next, whose turn waits for it, and the
others.  What a move costs each seat on a table whose seats have machines of their own.
Also the CPU a move's step costs all seats together (its records, the shares sent ahead, the
work done while waiting, and a spectator's check of all of it): on one machine, the work the
turns share its cores with.  The randomness is seeded, so two checkouts play the same games
(compare them with ``PYTHONPATH=/path/to/other python benchmarks/move_intake.py``).

Prints figures; asserts nothing.  Usage:
    python benchmarks/move_intake.py [--players 5] [--games 3] [--edition base]
"""
from __future__ import annotations

import argparse
import random
import statistics
import time

from saboteur_p2p.crypto.group import remember_checks
from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.protocol import local
from saboteur_p2p.protocol.node import Node
from saboteur_p2p.rules import GameConfig


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--edition", default="base")
    args = parser.parse_args()
    remember_checks(False)  # every seat checks every point and proof itself, as on its own machine
    takes: dict[str, list[float]] = {"next": [], "other": []}
    moves: list[float] = []
    receive, move = Node.receive, Node.move

    def timed_receive(node: Node, record: bytes, *own: object) -> None:
        state = node.state
        if own or node.seat is None or state is None or decode_record(record).kind != "action":
            return receive(node, record, *own)  # type: ignore[arg-type]
        which = "next" if (state.current + 1) % node.players == node.seat else "other"
        started = time.perf_counter()
        try:
            return receive(node, record)
        finally:
            takes[which].append(time.perf_counter() - started)

    def timed_move(node: Node, text: str) -> bytes:
        started = time.perf_counter()
        try:
            return move(node, text)
        finally:
            moves.append(time.perf_counter() - started)

    step = local.step
    steps: list[float] = []

    def cpu_of_step(game: local.LocalGame, choose: object) -> bool:
        head = game.spectator.next_expected
        started = time.process_time()
        try:
            return step(game, choose)  # type: ignore[arg-type]
        finally:
            if head is not None and head.kind == "action":
                steps.append(time.process_time() - started)

    Node.receive, Node.move = timed_receive, timed_move  # type: ignore[method-assign, assignment]
    local.step = cpu_of_step  # type: ignore[assignment]
    try:
        for seed in range(args.games):
            rng = random.Random(seed)
            local.play_local_game(GameConfig(args.players, args.edition), ["heuristic"] * args.players, seed=seed,
                                  rand=rng.randbytes)
    finally:
        Node.receive, Node.move = receive, move  # type: ignore[method-assign]
        local.step = step

    def ms(values: list[float]) -> str:
        quarters = statistics.quantiles(values, n=4)
        return f"median {statistics.median(values) * 1e3:.2f} ms (quartiles {quarters[0] * 1e3:.2f}-{quarters[2] * 1e3:.2f})"

    print(f"{args.edition}, {args.players} heuristic seats, {args.games} games, {len(moves)} moves:")
    print(f"  the mover makes its move (its shares, signing, taking it in): {ms(moves)}")
    print(f"  the seat that moves next takes it in: {ms(takes['next'])}")
    print(f"  each other seat takes it in: {ms(takes['other'])}")
    print(f"  all seats' CPU for a move's step, a spectator's check included: {statistics.mean(steps) * 1e3:.2f} ms on average")


if __name__ == "__main__":
    main()
