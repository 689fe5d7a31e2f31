"""A Session without sockets, for sans-I/O tests of the session loop: a transport that keeps
what it is given to send, and a Session seated on a node of a local game."""
from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from protocol_helpers import dealt_game

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.intake import Intake
from saboteur_p2p.net.lobby import SeatInfo, Table
from saboteur_p2p.net.session import Session
from saboteur_p2p.net.wire import seal
from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.protocol.node import Node
from saboteur_p2p.rules import GameConfig


class SentLog:
    """A transport that keeps what it is given to send."""

    #: no encrypted link endpoint: every connection is unproven, as on a peer without link keys
    link = None

    def __init__(self) -> None:
        self.sent: list[tuple[str | bytes, bytes]] = []
        #: where each inbound connection comes from (a test may set these)
        self.addresses: dict[bytes, str] = {}
        #: why each link broke off in its handshake (a test may set these)
        self.refusals: dict[str, str] = {}
        self.connected: list[str] = []
        self.replacing = {}

    def send(self, endpoint: str, data: bytes) -> bool:
        self.sent.append((endpoint, data))
        return True

    def reply(self, connection: bytes, data: bytes) -> None:
        """An answer on the connection a message came in on (kept as if sent to it)."""
        self.sent.append((connection, data))

    def address_of(self, connection: bytes) -> str:
        return self.addresses.get(connection, "")

    def connect(self, endpoint: str, server_key: bytes | None = None, client_keys: object = None) -> bool:
        """Open a link (kept: a test may look); always works here."""
        self.connected.append(endpoint)
        return True

    def refused(self, endpoint: str) -> str:
        """Why the link to ``endpoint`` broke off in its handshake: a test may set it."""
        return self.refusals.get(endpoint, "")

    def advertised(self, towards: str) -> str:
        return "tcp://127.0.0.1:9"

    def replace(self, old: str, new: str, keep_old: bool = False, server_key: bytes | None = None) -> bool:
        """A seat's link moved from ``old`` to ``new`` (kept, in ``sent``, as a message of none)."""
        self.sent.append((new, b""))
        self.replacing[new] = old
        return True

    #: new endpoint -> the one it replaces, until it has shaken hands (a test may say so)
    replacing: dict[str, str]

    def wrong_key(self, endpoint: str) -> bool:
        from saboteur_p2p.net.dialer import WRONG_KEY

        return self.refusals.get(endpoint) == WRONG_KEY

    def unproven(self, new: str) -> str | None:
        return self.replacing.get(new)

    def disconnect(self, endpoint: str) -> None:
        self.replacing.pop(endpoint, None)


def listening_seat(tmp_path: Path) -> tuple[LocalGame, Session, list[str], Identity]:
    """Seat 0's session of a 3-seat game at its first move, what it says kept in the list, and
    seat 2's identity: a hostile peer's, to send it messages with."""
    game = dealt_game(GameConfig(3), 5)
    session = seated_session(game, game.nodes[0], tmp_path)
    said: list[str] = []
    session.say = said.append  # type: ignore[method-assign]
    hostile = game.nodes[2].identity
    assert hostile is not None
    return game, session, said, hostile


def seated_session(
    game: LocalGame, node: Node, tmp_path: Path, transport: object | None = None, agent: object | None = None,
) -> Session:
    """A Session for ``node``'s seat that drives ``node`` itself (at its point in the game);
    ``transport``: a real one instead of a ``SentLog``; ``agent``: who plays the seat."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    setup = game.setup
    seats = tuple(SeatInfo(name, pub.sign_key, pub.dh_key, f"tcp://127.0.0.1:{n + 1}")
                  for n, (name, pub) in enumerate(zip(setup.names, setup.seats, strict=True)))
    table = Table(setup.game_id, setup.config, seats, wait_ms=setup.wait_ms)
    assert node.identity is not None
    session = Session(table, node.identity, transport or SentLog(), agent, tmp_path, lambda text: None)  # type: ignore[arg-type]
    session.node = node
    session.intake = Intake(node)
    for index in range(len(node.log.entries)):
        session.intake.remember(index)
    session.log_path = tmp_path / f"seat{node.seat}.log"
    return session


def signed_start(identities: Sequence[Identity], seats: Sequence[SeatInfo], nonces: Sequence[bytes], config: GameConfig,
                 salt: bytes = bytes(range(16)), listens: Sequence[str] | None = None) -> Table:
    """The ``start`` an honest host builds: every joiner's hello, signed for the table's
    ``salt`` with its seat's name, endpoint and nonce (and, given ``listens``, each joiner's
    table endpoint), and each seat's link-key proof."""
    from saboteur_p2p.net.lobby import hello, joint_game_id
    from saboteur_p2p.net.wire import open_envelope

    tables = listens if listens is not None else [None] * (len(seats) - 1)
    hellos = tuple(hello(i, s.name, s.endpoint, b"", None, n, salt, identities[0].public.sign_key, t)
                   for i, s, n, t in zip(identities[1:], seats[1:], nonces[1:], tables, strict=True))
    proofs = (identities[0].prove_link_key(nonces[0]), *(open_envelope(h).body["dh_proof"] for h in hellos))
    return Table(joint_game_id(tuple(nonces)), config, tuple(seats), tuple(nonces), proofs, salt, hellos)


def signed_abort(game: LocalGame, signer: int, culprit: int, evidence: bytes) -> bytes:
    """An ``abort`` of ``signer``'s naming ``culprit`` (out of turn) with ``evidence``, no chain."""
    body = {"game_id": game.setup.game_id, "culprit": culprit, "reason": "out-of-turn", "detail": "",
            "evidence": evidence, "chain": []}
    return seal(game.nodes[signer].identity, "abort", body)


def signed_bye(game: LocalGame, signer: int) -> bytes:
    return seal(game.nodes[signer].identity, "bye", {"game_id": game.setup.game_id, "seat": signer})


def signed_gone(game: LocalGame, signer: int, absent: int) -> bytes:
    """``signer``'s ``gone`` saying seat ``absent`` did not come back."""
    return seal(game.nodes[signer].identity, "gone", {
        "game_id": game.setup.game_id, "seat": signer, "absent": absent,
        "why": f"seat{absent} (seat {absent}) did not come back within 1 s"})
