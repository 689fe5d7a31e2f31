"""Sockets only: one bound ROUTER for everything inbound, one DEALER out to each peer.

A ROUTER tags every inbound message with the connection it came on, so the session can
tell which peer sent garbage once that connection has introduced itself with a signed
``link``.  Nothing here knows the game: it moves envelopes and says which connection
they came on.
"""
from __future__ import annotations

import contextlib
import re
import socket
from dataclasses import dataclass

import zmq

from .wire import MAX_WIRE_MESSAGE

#: Outbound messages queued for a peer that is away, before the oldest are dropped.
SEND_HIGH_WATER = 10_000
#: What a peer may give as its endpoint: tcp://host:port, nothing else.
ENDPOINT = re.compile(r"tcp://[A-Za-z0-9.\-]{1,253}:[0-9]{1,5}")


def valid_endpoint(endpoint: object) -> bool:
    if not isinstance(endpoint, str) or ENDPOINT.fullmatch(endpoint) is None:
        return False
    return 0 < int(endpoint.rsplit(":", 1)[1]) < 65536


@dataclass(frozen=True)
class Inbound:
    connection: bytes
    data: bytes


class Transport:
    def __init__(self, bind: str, context: zmq.Context | None = None) -> None:
        self.context = context or zmq.Context.instance()
        self.router = self.context.socket(zmq.ROUTER)
        self.router.setsockopt(zmq.MAXMSGSIZE, MAX_WIRE_MESSAGE)
        self.router.setsockopt(zmq.LINGER, 0)
        self.router.setsockopt(zmq.ROUTER_HANDOVER, 1)  # a peer that reconnects takes over its old slot
        self.router.bind(_endpoint(bind))
        self.endpoint = self.router.getsockopt(zmq.LAST_ENDPOINT).decode()
        self.dealers: dict[str, zmq.Socket] = {}
        self.poller = zmq.Poller()
        self.poller.register(self.router, zmq.POLLIN)

    def connect(self, endpoint: str) -> bool:
        """Open (once) the outbound link to a peer's bound endpoint; False if it is not one."""
        if endpoint in self.dealers:
            return True
        if not valid_endpoint(endpoint):
            return False
        dealer = self.context.socket(zmq.DEALER)
        dealer.setsockopt(zmq.LINGER, 500)
        dealer.setsockopt(zmq.SNDHWM, SEND_HIGH_WATER)
        dealer.setsockopt(zmq.MAXMSGSIZE, MAX_WIRE_MESSAGE)
        dealer.setsockopt(zmq.RECONNECT_IVL, 100)
        dealer.setsockopt(zmq.RECONNECT_IVL_MAX, 2000)
        try:
            dealer.connect(endpoint)
        except zmq.ZMQError:
            dealer.close()
            return False
        self.dealers[endpoint] = dealer
        self.poller.register(dealer, zmq.POLLIN)
        return True

    def disconnect(self, endpoint: str) -> None:
        """Close the outbound link to an endpoint a peer has left."""
        dealer = self.dealers.pop(endpoint, None)
        if dealer is not None:
            self.poller.unregister(dealer)
            dealer.close()

    def send(self, endpoint: str, data: bytes) -> bool:
        """Queue a message to a peer; False if its queue is full (it has been away long)."""
        try:
            self.dealers[endpoint].send(data, zmq.NOBLOCK)
            return True
        except zmq.Again:
            return False

    def reply(self, connection: bytes, data: bytes) -> None:
        """Answer on an inbound connection (lobby replies to a joiner not yet known)."""
        with contextlib.suppress(zmq.Again, zmq.ZMQError):  # the joiner went away; nothing to keep
            self.router.send_multipart([connection, data], zmq.NOBLOCK)

    def poll(self, timeout: float) -> list[Inbound]:
        """Every message that arrives within ``timeout`` seconds (returns early on the first)."""
        out: list[Inbound] = []
        events = dict(self.poller.poll(max(0, int(timeout * 1000))))
        if self.router in events:
            while True:
                try:
                    frames = self.router.recv_multipart(zmq.NOBLOCK)
                except zmq.Again:
                    break
                if len(frames) == 2:
                    out.append(Inbound(frames[0], frames[1]))
        for endpoint, dealer in self.dealers.items():
            if dealer in events:
                while True:
                    try:
                        frames = dealer.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    if len(frames) == 1:
                        out.append(Inbound(b"dealer:" + endpoint.encode(), frames[0]))
        return out

    def close(self) -> None:
        for dealer in self.dealers.values():
            dealer.close()
        self.router.close()


def _endpoint(address: str) -> str:
    if address.startswith("tcp://"):
        return address
    host, _, port = address.rpartition(":")
    if not host:
        host, port = address, "*"
    return f"tcp://{host}:{port or '*'}"


def local_address_towards(host: str) -> str:
    """The address of this machine's interface that reaches ``host`` (no packet is sent)."""
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect((host, 9))
            return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
