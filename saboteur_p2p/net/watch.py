"""Watching a table: a spectator that takes the public log from a seated peer and checks it.

The spectator says ``watch`` to one seat (protocol.md §12.8) and takes the records it is
sent into a spectator node (``Node(setup, None)``), which checks every record, every
proof and every sealed share, as ``verify`` does, and decrypts only what is shown to all.
It trusts its seat for nothing but delivery: a record that does not check names its
culprit; a seat that sent a made-up game is found out only by comparing the seats'
fingerprints, which the spectator prints first.
"""
from __future__ import annotations

import functools
import time
from collections.abc import Callable
from dataclasses import dataclass

from ..crypto.identity import Identity
from ..crypto.log import MAX_RECORD_SIZE
from ..protocol.ending import Ending, judge
from ..protocol.messages import MalformedMessage, printable
from ..protocol.node import Node
from ..protocol.verify import describe_setup, seat_0_signer, setup_from_genesis
from .intake import Dropped, Intake
from .notices import Notices
from .transport import Transport, dealer_connection, local_address_towards, unknown_machine, valid_endpoint
from .watchers import FEED_WINDOW, WATCH_VERSION
from .wire import BadEnvelope, open_envelope, seal

#: how often the spectator says it is still there (seconds)
WATCH_EVERY = 1.0


class WatchFailed(RuntimeError):
    """The table could not be watched: it does not answer, refuses, or went quiet."""


@dataclass(frozen=True)
class Watched:
    """How watching ended: the game finished, or it stopped (a seat caught cheating, or a
    verdict the seat sent: ``caught`` only when a cheat is borne out by what was checked)."""

    finished: bool
    message: str
    records: int
    caught: bool = False


def watch_table(
    address: str,
    on_update: Callable[[Node], None],
    say: Callable[[str], None],
    connect_timeout: float = 10.0,
    quiet_timeout: float = 30.0,
    seat_key: bytes | None = None,
) -> Watched:
    """Watch the table of the seat at ``address`` (HOST:PORT) until its game ends.

    ``on_update(node)`` is called after every record taken in.  Raises WatchFailed when
    nothing answers within ``connect_timeout`` or the seat goes quiet for ``quiet_timeout``.
    With ``seat_key`` (that seat's link key: ``--key``) the feed is encrypted, and a peer that
    does not hold the key cannot answer.
    """
    host = address.replace("tcp://", "").rsplit(":", 1)[0]
    endpoint = address if address.startswith("tcp://") else f"tcp://{address}"
    if not valid_endpoint(endpoint):  # said at once, as join says it (it waited the whole timeout: a play-test)
        raise WatchFailed(f"not a table address: {address!r} (expected HOST:PORT)")
    unknown = unknown_machine(host)
    if unknown is not None:  # said at once: ZeroMQ would keep trying the name until the timeout
        raise WatchFailed(f"no machine called {host!r}: {unknown} (check the address)")
    transport = Transport(f"{local_address_towards(host)}:0")
    identity = Identity.generate()  # a spectator needs no lasting name: nobody trusts it with anything
    node: Node | None = None
    intake: Intake | None = None
    from_seat = dealer_connection(endpoint)  # the connection we open to the seat (as join_lobby's)
    notice = Notices(say)  # what the seat sends wrong, said at a bounded rate
    try:
        transport.connect(endpoint, server_key=seat_key, client_keys=identity.link_keys())
        started = heard = progressed = time.monotonic()
        said_watch, said_held = 0.0, 0
        #: the most records the seat said it holds (its ``watching``)
        behind = 0
        while True:
            now = time.monotonic()
            held = len(node.records) if node is not None else 0
            if now - said_watch >= WATCH_EVERY or held - said_held >= FEED_WINDOW // 2:
                # now and then, and whenever half the window the seat sends ahead has come in
                transport.send(endpoint, seal(identity, "watch", {"version": WATCH_VERSION, "records": held}))
                said_watch, said_held = now, held
            if seat_key is not None and node is None and transport.refused(endpoint):
                raise WatchFailed(f"the seat at {address} does not hold the key given (--key): {transport.refused(endpoint)}")
            if node is None and now - started > connect_timeout:
                raise WatchFailed(f"no table answered at {address} within {connect_timeout:g} s")
            if intake is not None and intake.waiting and now - progressed > quiet_timeout:
                # its `watching` keeps a spectator waiting, not records that never join the game
                raise WatchFailed(f"the feed from the seat at {address} stalled: it sent records that do not follow "
                                  f"the game, and none that does for {quiet_timeout:g} s")
            if node is not None and now - heard > quiet_timeout:
                if behind > held:
                    raise WatchFailed(f"the seat at {address} says it holds {behind} records, and for {quiet_timeout:g} s "
                                      f"sent none past the {held} this spectator holds that follow the game")
                raise WatchFailed(f"the seat at {address} went quiet for {quiet_timeout:g} s (its game may have been stopped)")
            for inbound in transport.poll(0.1):
                if inbound.connection != from_seat:
                    continue  # the spectator's own port is open to anyone: only the seat watched feeds it
                try:
                    env = open_envelope(inbound.data)
                    if env.kind == "reject":
                        raise WatchFailed(f"the seat at {address} refused: {printable(env.field('reason', str, 200))}")
                    if env.kind == "watching":
                        # a seat that says it holds more than it sends keeps us waiting for
                        # ever if it counts as heard (found by an attack): it counts once we
                        # hold what it says it holds; till then only records that follow do
                        claimed = env.field("records", int)
                        if claimed <= (len(node.records) if node is not None else 0):
                            heard = time.monotonic()
                        elif node is not None:
                            behind = max(behind, claimed)
                        continue
                    if env.kind == "stopped":
                        return _stopped(address, node, env.field("verdict", bytes, MAX_RECORD_SIZE + 4096),
                                        env.field("records", int))
                    if env.kind != "record":
                        continue
                    record = env.field("record", bytes, 5 * 1024 * 1024)
                except BadEnvelope as exc:
                    notice(f"dropped a bad message from the seat at {address}: {exc}")
                    continue
                if node is None:
                    if seat_0_signer(record) is None:
                        # the game is read from a genesis its seat 0 signed, or from none: an
                        # unsigned copy with one variant changed got the honest host named for
                        # its real genesis (found by an attack)
                        notice(f"dropped a first record from the seat at {address}: not a genesis signed by its seat 0")
                        continue
                    try:
                        setup = setup_from_genesis(record)
                        node = Node(setup, None)  # refuses a setup that makes no game (seats for another count)
                    except (MalformedMessage, ValueError, KeyError, TypeError, OverflowError):
                        continue  # not the genesis (or not one of a game): wait for it (the seat sends from the start)
                    intake = Intake(node)
                    for line in describe_setup(setup):
                        say(line)
                assert intake is not None
                held = len(node.records)
                taken = intake.take(record, functools.partial(on_update, node))
                if len(node.records) > held:
                    # the game moved on: a record parked for a head that never comes, or
                    # dropped, is no sign of a game (a seat fed a spectator such records
                    # for ever, one core busy and nothing said: found by an attack)
                    heard = progressed = time.monotonic()
                if taken.dropped is not None and taken.dropped is not Dropped.MALFORMED:
                    notice(f"dropped a record from the seat at {address}: {taken.detail or taken.dropped.value}")
                if taken.violation is not None:
                    v = taken.violation
                    who = f"seat {v.peer} ({node.setup.names[v.peer]})" if 0 <= v.peer < node.players else "the seat watched"
                    return Watched(False, f"{who} broke the protocol: {v.reason}: {v.detail}", len(node.records), True)
                if node.finished:
                    return Watched(True, "the game is over", len(node.records))
    finally:
        notice.flush()
        transport.close()


def _stopped(address: str, node: Node | None, verdict: bytes, records: int) -> Watched:
    """The seat watched says its game stopped before its end, with the verdict its log ends
    with: checked against the records taken in, as ``verify`` checks a log's verdict."""
    ending = Ending.from_bytes(verdict)
    held = 0 if node is None else len(node.records)
    if ending is None:
        return Watched(False, f"the seat at {address} says its game stopped, with a verdict that cannot be read", held)
    if node is None or held < records:
        # judged against fewer records than the seat's, a true verdict reads as a false one
        # (found by review): what the seat says is reported, unchecked (its words may name a
        # folder of its machine: not passed on)
        who = "" if ending.culprit is None else f", naming seat {ending.culprit}"
        return Watched(False, f"the seat at {address} says its game stopped ({ending.outcome}{who}); not checked: this "
                              f"spectator holds {held} of its {records} records", held)
    holds, said = judge(ending, node, node.setup.names)
    return Watched(False, f"the seat at {address} {said}", held, holds and ending.outcome == "cheater")


__all__ = ["WatchFailed", "Watched", "watch_table"]

