"""Helpers for the mental-poker session tests: decks opened with every seat's secret, cheats."""
from __future__ import annotations

import copy
import functools
import random
from collections.abc import Callable, Sequence
from typing import Any

from saboteur_p2p.crypto.group import Point, Scalar, base_mul, mul, random_scalar, sadd, sub
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import decode_record, make_entry
from saboteur_p2p.protocol.dealer import GOLD_HANDLE_STRIDE
from saboteur_p2p.protocol.local import LocalGame, make_setup, step
from saboteur_p2p.protocol.messages import ActionMsg, PublicShare, Shares
from saboteur_p2p.protocol.node import Expect, Node, ProtocolViolation
from saboteur_p2p.rules import Card, Deck, GameConfig, State
from saboteur_p2p.rules.actions import MapPeek, PlacePath


class seeded_bytes:
    """A repeatable byte source for tests (never for real games).  A deep copy goes on from
    where the source stood, so a copied game draws what the game itself would have."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def __call__(self, n: int) -> bytes:
        return self.rng.randbytes(n)


def joint_secret(game: LocalGame) -> Scalar:
    total = game.nodes[0].secret
    for node in game.nodes[1:]:
        total = sadd(total, node.secret)
    return total


def opened_decks(game: LocalGame) -> list[dict[Deck, list[Card]]]:
    """Every shuffled batch's decks, decrypted with all seats' secrets pooled (none for a
    batch opened ahead whose shuffles are not all in yet)."""
    x = joint_secret(game)
    batches = []
    for batch in game.spectator.dealer.batches:
        decks = {}
        for deck, cards in (batch.outputs or {}).items():
            decks[deck] = [batch.faces[deck][sub(c2, mul(x, c1))] for c1, c2 in cards]
        batches.append(decks)
    return batches


class ScriptedDealer:
    """Deals exactly the cards the mental-poker decks held, in the clear, as a trusted dealer would."""

    def __init__(self, batches: Sequence[dict[Deck, list[Card]]], coins: Sequence[int]) -> None:
        self.batches = list(batches)
        self.coins = list(coins)
        self.current: dict[Deck, list[Card]] = {}
        self.gold: dict[int, Card] = {}
        self.next_batch = 0

    def shuffle(self, fresh, again):
        b = self.next_batch
        self.next_batch += 1
        decks = self.batches[b]
        handles = {}
        for deck in list(fresh) + list(again):
            self.current[deck] = decks[deck]
            if deck is Deck.GOLD:
                base = 0 if deck in fresh else GOLD_HANDLE_STRIDE * b
                handles[deck] = [base + i for i in range(len(decks[deck]))]
                for i, h in enumerate(handles[deck]):
                    self.gold[h] = decks[deck][i]
        return handles

    def shuffle_ahead(self, fresh):
        """The batch it announces is the next one ``shuffle`` takes: nothing to do here."""

    def reveal(self, deck, handle, to):
        return self.gold[handle] if deck is Deck.GOLD else self.current[deck][handle]

    def public_random(self, n):
        return self.coins.pop(0)

    def reveal_many(self, deck, handles):
        return [self.reveal(deck, h, None) for h in handles]


def true_face(game: LocalGame, card: tuple[int, Deck, int]) -> Card:
    """A card's face, read with every seat's secret (what no seat alone can do)."""
    batch, deck, pos = card
    return opened_decks(game)[batch][deck][pos]


def actions_of(game: LocalGame) -> list[str]:
    entries = map(decode_record, game.records)
    return [e.body["action"] for e in entries if e.kind == "action"]


def trusted_replay(game: LocalGame) -> State:
    """The same game replayed by an all-knowing engine dealt the same cards."""
    coins = [c for c in game.spectator.dealer.coins if c is not None]
    state = State.new(game.setup.config, ScriptedDealer(opened_decks(game), coins))
    for text in actions_of(game):
        state.play(text)
    return state


# -- cheating: games at a chosen point, records a cheater makes, who blames whom ---------


def seeded_game(config: GameConfig, seed: int) -> LocalGame:
    """``new_local_game`` with the identities, game id and secrets all drawn from one seed."""
    rand = seeded_bytes(seed)
    identities = [Identity.generate(rand) for _ in range(config.players)]
    setup = make_setup(config, identities, rand)
    nodes = [Node(setup, seat, identities[seat], rand) for seat in range(config.players)]
    return LocalGame(setup, nodes, Node(setup, None))


def dealt_game(config: GameConfig, seed: int) -> LocalGame:
    """``seeded_game(config, seed)`` played to its first move, as a copy that goes on exactly
    as that game would (its byte source copied too).  The deal, about a third of a second of
    CPU a seat, is made once a test process: many tests start at the first move."""
    return exact_copy(_dealt(config, seed))


@functools.cache
def _dealt(config: GameConfig, seed: int) -> LocalGame:
    game = seeded_game(config, seed)
    play_until(game, lambda e: e.kind == "action")
    return game


def exact_copy(game: LocalGame) -> LocalGame:
    """An independent copy of a game in progress that draws the same bytes as the game would."""
    shared: dict[int, Any] = {id(node.identity): node.identity for node in game.nodes}  # private keys do not copy
    for node in (*game.nodes, game.spectator):
        shared[id(node.on_commit)] = node.on_commit
    return copy.deepcopy(game, shared)


def path_first(seat: int, node: Node) -> str:
    """An honest move that puts a card on the table when it can (so a public reveal follows)."""
    assert node.state is not None
    legal = node.state.legal_actions()
    return str(next((a for a in legal if isinstance(a, PlacePath)), legal[0]))


def map_goal_first(seat: int, node: Node) -> str:
    """An honest move that maps the first goal when this seat has not seen it, else as
    ``path_first``: a second seat's map of that goal is the card's second reveal, which the
    other seats owe by sealed shares (a first reveal's shares are public, protocol.md §6.8)."""
    assert node.state is not None
    if 0 not in node.state.view_for(seat).known_goals:
        mapping = next((a for a in node.state.legal_actions() if isinstance(a, MapPeek) and a.goal == 0), None)
        if mapping is not None:
            return str(mapping)
    return path_first(seat, node)


def owes_sealed(node: Node, seat: int) -> bool:
    """Whether ``seat`` owes a sealed share now, as ``node`` reads the log."""
    dealer = node.dealer
    return any(n.audience is not None and not dealer.reveals[n].public for n in dealer.owed_by(seat))


def play_until(game: LocalGame, stop: Callable[[Expect], bool], choose: Callable[[int, Node], str] = path_first) -> Expect:
    """Play honestly until the record expected next satisfies ``stop``; returns that expectation."""
    while True:
        head = game.spectator.next_expected
        assert head is not None, "the game ended before the point looked for"
        if stop(head):
            return head
        step(game, choose)


def copy_game(game: LocalGame, seed: int) -> LocalGame:
    """An independent copy of a game in progress, every seat drawing fresh seeded randomness."""
    shared: dict[int, Any] = {id(node.identity): node.identity for node in game.nodes}  # private keys do not copy
    for node in (*game.nodes, game.spectator):
        shared[id(node.rand)] = node.rand
        shared[id(node.on_commit)] = node.on_commit
    twin = copy.deepcopy(game, shared)
    for seat, node in enumerate(twin.nodes):
        node.rand = seeded_bytes(seed * 1000 + seat)
        node.on_commit = None
    return twin


def body_for(node: Node, head: Expect) -> dict[str, Any]:
    """The body ``node``'s seat would make for ``head``, the expectation of a game its node has
    not followed to the end (a cheater that never took its own refused move in): the reveals
    that expectation names are made known to its dealer first."""
    for need in head.topic if head.kind == "shares" else ():
        node.dealer._ensure(need)
    return getattr(node, f"_make_{head.kind}")(head)  # type: ignore[no-any-return]


def honest_body(node: Node) -> dict[str, Any]:
    """The body this seat would honestly send next (its node keeps the secrets it makes); a
    move is ``path_first``'s, with the shares the seat owes."""
    head = node.next_expected
    assert head is not None and head.speaker == node.seat
    if head.kind == "action":
        text = path_first(head.speaker, node)
        return ActionMsg(text, node._shares_with_move(text)).encode()
    return getattr(node, f"_make_{head.kind}")(head)  # type: ignore[no-any-return]


def signed_record(
    game: LocalGame,
    seat: int,
    kind: str,
    body: Any,
    *,
    seq: int | None = None,
    prev: bytes | None = None,
    identity: Identity | None = None,
) -> bytes:
    """A record from ``seat`` that extends the log everyone has heard, validly signed by it.

    The seat's own node does not take it in.  Any field can be overridden to build a
    forged, replayed or misplaced record.
    """
    log = game.spectator.log
    entry = make_entry(
        game.nodes[seat].identity if identity is None else identity,  # type: ignore[arg-type]
        game.setup.game_id,
        seat,
        log.next_seq(seat) if seq is None else seq,
        log.head if prev is None else prev,
        kind,
        body,
    )
    return entry.record


Verdicts = dict[int | None, ProtocolViolation | None]


def hear(game: LocalGame, record: bytes, *absent: int | None) -> Verdicts:
    """Deliver a record to every node but the ``absent`` seats' (None among them: the spectator),
    and to the spectator (key None).

    Returns what each node raised (None: accepted it).  Any other exception propagates.
    """
    verdicts: Verdicts = {}
    for seat, node in [*enumerate(game.nodes), (None, game.spectator)]:
        if seat in absent:  # None: the spectator
            continue
        try:
            node.receive(record)
        except ProtocolViolation as violation:
            verdicts[seat] = violation
        else:
            verdicts[seat] = None
    return verdicts


def play_until_refused(
    game: LocalGame, cheater: int | None = None, cheat: Callable[[Expect], bytes] | None = None, limit: int = 500
) -> tuple[Expect, Verdicts]:
    """Play on until some node refuses a record; returns what was expected and every verdict.

    Honest seats speak through their nodes (``path_first`` chooses moves).  When ``cheat``
    is given, ``cheater``'s records come from it instead and the cheater's node hears
    nothing more.  A node whose own record brings a violation to light raises it from
    ``produce``; its verdict is that violation, and the record (already in its log) still
    goes out to the others.
    """
    absent = () if cheat is None else (cheater,)
    for _ in range(limit):
        head = game.spectator.next_expected
        assert head is not None, "the game ended and nobody refused anything"
        verdicts: Verdicts = {}
        if cheat is not None and head.speaker == cheater:
            record = cheat(head)
        else:
            node = game.nodes[head.speaker]
            try:
                produced = node.move(path_first(head.speaker, node)) if node.awaiting_move() else node.produce()
            except ProtocolViolation as violation:
                verdicts[head.speaker] = violation
                produced = node.log.entries[-1].record
            assert produced is not None
            record = produced
        verdicts.update(hear(game, record, head.speaker, *absent))
        if any(v is not None for v in verdicts.values()):
            return head, verdicts
    raise AssertionError(f"no record refused in {limit} records")


# -- cheats at named points of one honest game -------------------------------------------
#
# All games are one 3-player round, played honestly from one seed to
# a few named points; each test gets its own copy of the game at its point.

CONFIG = GameConfig(3, rounds=1)
SEED = 1


def _is_shuffle(topic: tuple[Any, ...]) -> bool:
    return bool(topic) and topic[0] == "shuffle"


#: The points of the honest game where cheats start: the first time what is expected next
#: matches.  Seat 1 is the cheater at most of them.
POINTS: dict[str, Callable[[Expect], bool]] = {
    "genesis": lambda e: e.kind == "genesis",
    "key": lambda e: e == Expect(1, "key"),
    "coin-commit": lambda e: e.kind == "commit" and e.topic[0] == "coin" and e.speaker == 1,
    "coin-reveal": lambda e: e.kind == "reveal" and e.topic[0] == "coin" and e.speaker == 2,
    "shuffle": lambda e: e == Expect(1, "shuffle", (0,)),
    "last-shuffle": lambda e: e == Expect(2, "shuffle", (0,)),
    "dealt-shares": lambda e: e.kind == "shares" and e.speaker == 1,
    "move": lambda e: e.kind == "action",
    "public-shares": lambda e: e.kind == "shares" and e.speaker == 1 and any(n.audience is None for n in e.topic),
}


@functools.cache
def sealed_snapshot() -> LocalGame:
    """The honest game played with ``map_goal_first`` until seat 1 is to move owing sealed
    shares (of the first goal, which a seat before it mapped after another seat had)."""
    game = seeded_game(CONFIG, SEED)
    while True:
        head = game.spectator.next_expected
        assert head is not None, "nobody mapped a goal another seat had mapped"
        if head == Expect(1, "action") and owes_sealed(game.spectator, 1):
            return copy_game(game, 0)
        step(game, map_goal_first)


@functools.cache
def snapshots() -> dict[str, LocalGame]:
    game = seeded_game(CONFIG, SEED)
    found: dict[str, LocalGame] = {}
    while len(found) < len(POINTS):
        head = game.spectator.next_expected
        assert head is not None
        for name, wanted in POINTS.items():
            if name not in found and wanted(head):
                found[name] = copy_game(game, 0)
        step(game, path_first)
    return found


def game_at(point: str, seed: int = 0) -> LocalGame:
    """A fresh copy of the honest game at ``point`` (one of POINTS, or "sealed-move": seat 1
    to move, owing sealed shares that its move carries)."""
    return copy_game(sealed_snapshot() if point == "sealed-move" else snapshots()[point], seed)


def expected(game: LocalGame) -> Expect:
    head = game.spectator.next_expected
    assert head is not None
    return head


def judges(game: LocalGame, cheater: int) -> list[int | None]:
    """Every node that hears the cheater: the other seats and the spectator (None)."""
    return [s for s in range(len(game.nodes)) if s != cheater] + [None]


def node_of(game: LocalGame, seat: int | None) -> Node:
    return game.spectator if seat is None else game.nodes[seat]


def assert_blamed(
    game: LocalGame, verdicts: Verdicts, cheater: int, reason: str, by: list[int | None] | None = None, aborts: bool = True
) -> None:
    """Each judge refused the record, naming ``cheater`` for ``reason`` (and stopped, if ``aborts``)."""
    for seat in judges(game, cheater) if by is None else by:
        who = "the spectator" if seat is None else f"seat {seat}"
        violation = verdicts[seat]
        assert violation is not None, f"{who} accepted the cheat"
        assert (violation.peer, violation.reason) == (cheater, reason), f"{who}: {violation}"
        assert node_of(game, seat).aborted is (violation if aborts else None)


def cheat_once(point: str, cheater: int, tamper: Callable[[LocalGame, dict[str, Any]], Any]) -> tuple[LocalGame, Verdicts]:
    """At ``point``, ``cheater`` sends its honest body changed by ``tamper``; every other node hears it."""
    game = game_at(point)
    assert expected(game).speaker == cheater
    body = honest_body(game.nodes[cheater])
    if expected(game).kind == "action":  # the shares a move carries are tampered with
        body["shares"] = tamper(game, body["shares"]) or body["shares"]
    else:
        body = tamper(game, body) or body
    record = signed_record(game, cheater, expected(game).kind, body)
    return game, hear(game, record, cheater)


def other_point(seed: int) -> Point:
    return base_mul(random_scalar(seeded_bytes(seed)))


def bend_first_played_share(game: LocalGame, player: int, liar: int) -> tuple[int, int, int]:
    """From the dealt hands' share round (``game_at("dealt-shares")``): make ``liar``'s
    public share of the card ``player`` will play first carry a false proof, and ``player``
    collude (it takes every share as proven).  Returns the card's key."""
    probe = copy_game(game, 0)
    play_until(probe, lambda e: e.kind == "action")
    first = probe.nodes[player]._shares_with_move(path_first(player, probe.nodes[player]))
    assert first is not None
    (card,) = [p.card for p in first.public]
    honest = game.nodes[liar]._shares_for

    def false_proof(needs: Any) -> Shares:
        made = honest(needs)
        return Shares(tuple(PublicShare(p.card, p.share, p.proof[::-1]) if p.card == card else p for p in made.public),
                      made.sealed, made.opened)

    game.nodes[liar]._shares_for = false_proof  # type: ignore[method-assign]
    game.nodes[player].share_book._proven = lambda *_: True  # type: ignore[method-assign]  # the colluder
    return card
