"""Which opening masks fit an empty cell of the maze, by what its neighbours show: a table
built once, indexed by the openings that must be open, those that must be walls, and the
ones joined to the start's network (board.py keeps each frontier cell's entry)."""
from __future__ import annotations


def _legal_openings_table() -> list[int]:
    """Index ``must_open | must_closed << 4 | joined << 8`` -> set of fitting opening masks."""
    table = [0] * 4096
    for must_open in range(16):
        for must_closed in range(16):
            if must_open & must_closed:
                continue
            for joined in range(16):
                if joined & ~must_open:
                    continue
                bits = 0
                for openings in range(16):
                    if openings & (must_open | must_closed) == must_open and openings & joined:
                        bits |= 1 << openings
                table[must_open | must_closed << 4 | joined << 8] = bits
    return table


LEGAL_OPENINGS = _legal_openings_table()
