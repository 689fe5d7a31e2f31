"""A fingerprint of seeded bot games, to show that a change keeps the engine's behaviour.

Plays every edition at several table sizes and every variant, with heuristic and random
bots and a trusted dealer, and hashes each game's actions, events and scores.  Prints one
hash for all games; ``--json FILE`` writes each game's hash so two runs can be compared
game by game (``--compare OLD.json``).

    python scripts/engine_fingerprint.py --json before.json
    # ... change the engine ...
    python scripts/engine_fingerprint.py --compare before.json
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import VARIANTS, GameConfig

BASE_SIZES = (3, 4, 5, 7, 10)
SABOTEUR2_SIZES = (2, 3, 5, 8, 12)
VARIANT_SETS = [[v] for v in VARIANTS] + [["tournament-roles", "broken-tools-forfeit"]]


def configs() -> list[GameConfig]:
    out = [GameConfig(n) for n in BASE_SIZES]
    out += [GameConfig(5, variants=frozenset(v)) for v in VARIANT_SETS]
    out += [GameConfig(n, "saboteur2") for n in SABOTEUR2_SIZES]
    out.append(GameConfig(5, "saboteur2", frozenset({"left-of-first-starter"})))
    return out


def game_hashes(seeds: int) -> dict[str, str]:
    hashes: dict[str, str] = {}
    for config in configs():
        for seed in range(seeds):
            for lineup in ("heuristic", "random+heuristic"):
                mixed = (["random", "heuristic"] * 12)[: config.players]
                bots = ["heuristic"] * config.players if lineup == "heuristic" else mixed
                record = play_game(config, bots, seed, time_limit=None)
                text = "\n".join(record.actions) + f"\n{record.scores}\n{record.round_winners}"
                key = f"{config.edition}/{config.players}/{','.join(sorted(config.variants)) or '-'}/{lineup}/{seed}"
                hashes[key] = hashlib.sha256(text.encode()).hexdigest()
    return hashes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=6, help="seeds per table and line-up (default 6)")
    parser.add_argument("--json", metavar="FILE", help="write each game's hash to FILE")
    parser.add_argument("--compare", metavar="FILE", help="say which games differ from an earlier --json FILE")
    args = parser.parse_args()
    hashes = game_hashes(args.seeds)
    total = hashlib.sha256("".join(f"{k}={v}\n" for k, v in sorted(hashes.items())).encode()).hexdigest()
    print(f"{len(hashes)} games, fingerprint {total}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump(hashes, out, indent=0, sort_keys=True)
    if args.compare:
        with open(args.compare) as old_file:
            old = json.load(old_file)
        changed = sorted(k for k in hashes if k in old and old[k] != hashes[k])
        print(f"{len(changed)} of {len(hashes)} games differ from {args.compare}")
        for key in changed:
            print(f"  {key}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
