"""What a host tells its friends so they can join its table: the command, at each address
of this machine, with the table's key as people pass it on (``--key``)."""
from __future__ import annotations

import base64
import binascii

from ..crypto.identity import valid_dh_key
from .transport import endpoint_host, interface_addresses, is_wildcard


class LobbyError(RuntimeError):
    """The table could not be joined or opened; the message says why."""


def where_to_join(endpoint: str, key: bytes | None = None, coded: bool = False) -> str:
    """What the host tells its friends: the command to join, at each address of this machine
    (``join_commands``)."""
    commands = join_commands(endpoint, key, coded)
    if is_wildcard(endpoint_host(endpoint)) and not interface_addresses():
        return f"no network interface but loopback: friends on this machine join with: {commands[0]}"
    return "friends join with: " + " or ".join(commands)


def join_commands(endpoint: str, key: bytes | None = None, coded: bool = False) -> list[str]:
    """The command that joins the table at ``endpoint``, one for each address of this machine
    (a table bound to every interface is reachable at all of them; loopback when there is no
    other), with the table's key (``--key``: the lobby is then encrypted, and only this table
    can answer it), and ``--code <code>`` at a ``coded`` table: a friend who copied the command
    without it was refused (found by a play-test; the code itself is the host's to pass on, and
    a shell refuses ``<code>`` pasted as it is, where ``CODE`` used up one of the friend's tries)."""
    host, port = endpoint_host(endpoint), endpoint.rsplit(":", 1)[1]
    addresses = (interface_addresses() or ["127.0.0.1"]) if is_wildcard(host) else [host]
    keyed = ("" if key is None else f" --key {key_text(key)}") + (" --code <code>" if coded else "")
    return [f"saboteur-p2p join {address}:{port}{keyed}" for address in addresses]


def key_text(key: bytes) -> str:
    """A table's key (its host's X25519 link key) as people pass it on: base64url, unpadded."""
    return base64.urlsafe_b64encode(key).rstrip(b"=").decode()


def parse_key_text(text: str) -> bytes:
    """The key ``key_text`` wrote; LobbyError for anything else."""
    try:
        key = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)) if len(text) == 43 else b""
    except (binascii.Error, ValueError):
        key = b""
    if not valid_dh_key(key):
        raise LobbyError(f"not a table key: {text[:60]!r} (43 characters, as the host printed it)")
    return key
