"""Mental-poker costs: round set-up for 3, 5 and 10 players (or Saboteur 2 tables), one reveal,
and the critical path.

Prints figures (the median and range of ``--runs`` runs); asserts nothing.  All seats run in this one process, so "work" adds up
every seat's time (wall time; and the CPU time of every thread, spectator left out);
"critical path" replays the measured wall times as if each seat had its own machine (each
seat takes records in one after another; a seat speaks only after taking in all earlier
records; 0.2 ms network latency per record).  A seat splits the multiplications of a
shuffle proof among ``--threads`` threads (default: this machine's cores, at most 4; see
``saboteur_p2p/crypto/workers.py``), so on a machine with two or more cores its wall time is
below its CPU time.  Usage:
    python benchmarks/deal_speed.py [--players 3,5,10] [--edition saboteur2] [--runs 5] [--threads T] [--json FILE]

Seats that are not to speak next plan their shuffles ahead (Node.prepare), and that work is
counted in their time, as if done at once.  ``--json FILE`` writes, per player count,
``players``, ``threads``, ``critical_path_s``, ``all_work_s`` and ``all_work_cpu_s``
(medians) with every run's figures.

The base game shuffles 4 decks (roles, goals, 67 draw cards, 28 gold cards); Saboteur 2
shuffles 3 (15 dwarf cards, goals, 117 draw cards), puts 10 draw cards aside and deals 6 each.
"""
from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from saboteur_p2p.crypto.group import base_mul, check_point, hash_to_point, mul, random_scalar, remember_checks, sub
from saboteur_p2p.crypto.proofs import Context, open_sealed_share, prove_dleq, seal_share, verify_dleq, verify_sealed_share
from saboteur_p2p.crypto.workers import set_threads, threads
from saboteur_p2p.protocol.local import critical_path, first_move_expected, play_local_game
from saboteur_p2p.rules import GameConfig
from saboteur_p2p.rules.editions import edition_names


def round_setup(players: int, edition: str = "base", runs: int = 5) -> dict[str, Any]:
    paths, works, cpus = [], [], []
    for _ in range(runs):
        started, cpu = time.perf_counter(), time.process_time()
        game = play_local_game(GameConfig(players, edition, rounds=1), ["random"] * players, until=first_move_expected)
        wall = time.perf_counter() - started
        cpus.append(time.process_time() - cpu - game.spectator_cpu)
        works.append(sum(t.make + sum(t.take_in.values()) for t in game.timings))
        paths.append(critical_path(game.timings, players, latency=0.0002))
    size = sum(len(r) for r in game.records)
    batch = game.spectator.dealer.batches[0]
    decks = "+".join(str(len(cards)) for cards in batch.inputs.values())
    print(f"{edition} {players:>2} players: round set-up (keys, first-player coin, {len(batch.inputs)} decks "
          f"of {decks} cards shuffled with proofs, hands and roles dealt), {runs} runs: "
          f"critical path {_spread(paths)} s, all seats' work {_spread(works)} s, their CPU time {_spread(cpus)} s "
          f"(last run: wall {wall:.1f} s in one process, spectator included), {len(game.records)} records, {size / 1e6:.2f} MB")
    return {"players": players, "edition": edition, "critical_path_s": statistics.median(paths),
            "all_work_s": statistics.median(works), "all_work_cpu_s": statistics.median(cpus),
            "threads": threads(), "runs": {"critical_path_s": paths, "all_work_s": works, "all_work_cpu_s": cpus}}


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} [{min(values):.2f}-{max(values):.2f}]"


def reveal_costs(players: int, repeat: int = 200) -> None:
    ctx = Context(b"\0" * 32, "bench", "draw", 0)
    x = random_scalar()
    X = base_mul(x)
    c1 = hash_to_point("bench", 1)
    y = random_scalar()
    recipient = base_mul(y)
    t = time.perf_counter()
    for _ in range(repeat):
        share = mul(x, c1)
        proof = prove_dleq(x, X, c1, share, ctx)
    make_public = (time.perf_counter() - t) / repeat
    t = time.perf_counter()
    for _ in range(repeat):
        verify_dleq(X, c1, share, proof, ctx)
    check_public = (time.perf_counter() - t) / repeat
    t = time.perf_counter()
    for _ in range(repeat):
        share = mul(x, c1)
        E1, E2, proof3 = seal_share(x, X, c1, recipient, ctx, share=share)
    make_sealed = (time.perf_counter() - t) / repeat
    t = time.perf_counter()
    for _ in range(repeat):
        verify_sealed_share(X, c1, recipient, E1, E2, proof3, ctx)
    check_sealed = (time.perf_counter() - t) / repeat
    t = time.perf_counter()
    for _ in range(repeat):  # its recipient checks it and opens it (§6.8)
        verify_sealed_share(X, c1, recipient, check_point(E1), check_point(E2), proof3, ctx)
        open_sealed_share(y, E1, E2)
    open_sealed = (time.perf_counter() - t) / repeat
    opened = open_sealed_share(y, E1, E2)
    opening = prove_dleq(y, recipient, E1, sub(E2, opened), ctx)
    t = time.perf_counter()
    for _ in range(repeat):  # shown to all: the holder's opening proof, checked with the sealed share (§7.3.1)
        verify_dleq(recipient, E1, sub(E2, opened), opening, ctx)
        verify_sealed_share(X, c1, recipient, E1, E2, proof3, ctx)
    check_opened = (time.perf_counter() - t) / repeat
    n = players
    print(f"one public share: make {make_public * 1e3:.2f} ms, check {check_public * 1e3:.2f} ms; "
          f"one sealed share: make {make_sealed * 1e3:.2f} ms, open and check (its recipient) "
          f"{open_sealed * 1e3:.2f} ms, check its sealed-share proof (spectators) {check_sealed * 1e3:.2f} ms, "
          f"check it opened, with its opening proof (every seat, when its card is shown) {check_opened * 1e3:.2f} ms")
    print(f"play one card of the hand at {n} players (shown to all with the move, §6.11): the mover makes "
          f"1 proof, {make_public * 1e3:.1f} ms; every other seat checks the mover's share's proof and the "
          f"{n - 2} public shares of the card's first reveal it has not checked while it waited (§6.8), "
          f"{1 * check_public * 1e3:.1f}-{(n - 1) * check_public * 1e3:.1f} ms; 1 message")
    print(f"reveal one card to one player at {n} players, its first reveal: {n - 1} seats make a public share, "
          f"the recipient checks {n - 1}: {(make_public + (n - 1) * check_public) * 1e3:.1f} ms on the recipient's "
          f"path; a later reveal, by sealed shares: {(make_sealed + (n - 1) * open_sealed) * 1e3:.1f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--players", default="3,5,10")
    parser.add_argument("--edition", default="base", choices=edition_names())
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--threads", type=int, help="threads a seat uses for a shuffle proof (default: the cores, at most 4)")
    parser.add_argument("--json", metavar="FILE", help="write the figures to FILE as JSON")
    args = parser.parse_args()
    if args.threads is not None:
        set_threads(args.threads)
    # every seat checks every point and proof itself, as on its own machine
    remember_checks(False)
    figures = [round_setup(int(p), args.edition, args.runs) for p in args.players.split(",")]
    reveal_costs(5)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(figures, out, indent=1)


if __name__ == "__main__":
    main()
