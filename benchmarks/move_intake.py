"""How long each seat takes to take a move in, in a local game of bot nodes (one process,
no network, no wait for a core): the seat that moves next, whose turn waits for it, and the
others.  What a move costs each seat on a table whose seats have machines of their own.

Prints figures; asserts nothing.  Usage:
    python benchmarks/move_intake.py [--players 5] [--games 3] [--edition base]
"""
from __future__ import annotations

import argparse
import statistics
import time

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

    Node.receive, Node.move = timed_receive, timed_move  # type: ignore[method-assign, assignment]
    try:
        for seed in range(args.games):
            local.play_local_game(GameConfig(args.players, args.edition), ["heuristic"] * args.players, seed=seed)
    finally:
        Node.receive, Node.move = receive, move  # type: ignore[method-assign]

    def ms(values: list[float]) -> str:
        quarters = statistics.quantiles(values, n=4)
        return f"median {statistics.median(values) * 1e3:.2f} ms (quartiles {quarters[0] * 1e3:.2f}-{quarters[2] * 1e3:.2f})"

    print(f"{args.edition}, {args.players} heuristic seats, {args.games} games, {len(moves)} moves:")
    print(f"  the mover makes its move (its shares, signing, taking it in): {ms(moves)}")
    print(f"  the seat that moves next takes it in: {ms(takes['next'])}")
    print(f"  each other seat takes it in: {ms(takes['other'])}")


if __name__ == "__main__":
    main()
