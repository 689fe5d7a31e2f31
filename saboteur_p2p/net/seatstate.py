"""A seat's secrets on disk, so a peer that crashed can take its seat again.

Everything public is in the signed log; what only this seat knows is its deck key share
and the coin values it committed to and has not revealed yet.  They are written
(atomically, mode 0600) after every record this seat makes;
with the log they rebuild the seat exactly.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import msgpack

from ..crypto.log import TruncatedLog, read_log
from ..protocol.ending import split_ending
from ..protocol.node import Node

SECRETS_FORMAT = "saboteur-p2p/seat-secrets/2"


def export_secrets(node: Node) -> bytes:
    return msgpack.packb({
        "format": SECRETS_FORMAT,
        "game_id": node.setup.game_id,
        "seat": node.seat,
        "x": node.secret,
        "coins": [[i, v, n] for i, (v, n) in node.my_coin.items()],
    }, use_bin_type=True)


def import_secrets(node: Node, data: bytes) -> None:
    saved: dict[str, Any] = msgpack.unpackb(data, raw=False, strict_map_key=False)
    if saved.get("format") != SECRETS_FORMAT or saved.get("game_id") != node.setup.game_id or saved.get("seat") != node.seat:
        raise ValueError("the saved seat secrets belong to another game or seat")
    node.secret = saved["x"]
    node.dealer.secret = saved["x"]
    node.my_coin = {int(i): (v, n) for i, v, n in saved["coins"]}


def save_secrets(node: Node, path: Path) -> None:
    data = export_secrets(node)
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as out:
        out.write(data)
    # atomic against the process dying (the case rejoin is for); not fsync'd on every
    # record, which would cost a disk flush per message
    os.replace(tmp, path)


def restore(node: Node, secrets_path: Path, log_path: Path) -> int:
    """Rebuild a seat from its secrets and its own log; returns how many records it had."""
    import_secrets(node, secrets_path.read_bytes())
    try:
        records = read_log(log_path)
    except TruncatedLog as cut:
        records = cut.records
        os.truncate(log_path, cut.offset)  # the tail that was being written when we died
    assert node.seat is not None
    for record in split_ending(records)[0]:  # a verdict written when the game stopped is no record
        node.receive(record)
    node.seq = node.log.next_seq(node.seat)
    return len(records)
