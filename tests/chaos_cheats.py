"""The chaos test's catalogue of cheats (tests/test_chaos.py): where a cheat is made (``Point``),
what the cheater sends (``Plan``), and one function per cheat, which returns None where it does
not apply."""
from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from cheats_catalogue import (
    BAD_POINTS,
    FALSE_PROOFS,
    a_proof_entry_missing,
    public_share_of_another_point,
    random_proof,
    sealed_share_shifted,
    sealed_share_with_another_share_s_proof,
    unreduced_proof,
)
from protocol_helpers import body_for, other_point, path_first, signed_record

from saboteur_p2p.crypto.group import check_point
from saboteur_p2p.crypto.proofs import verify_dleq
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.protocol.messages import ActionMsg
from saboteur_p2p.protocol.node import Expect, Node
from saboteur_p2p.protocol.shares import share_context
from saboteur_p2p.rules import Deck, IllegalActionError, InvalidActionError, Pass
from saboteur_p2p.rules.board import GOAL_CELLS
from saboteur_p2p.rules.cards import ActionKind, PathCard
from saboteur_p2p.rules.state import Phase

#: seats at the chaos test's tables (CHAOS_PLAYERS=4 for more bystanders: 400 trials passed on 2026-12-04)
PLAYERS = int(os.environ.get("CHAOS_PLAYERS", 3))


@dataclass
class Plan:
    """What the cheater sends: ``records[seat]`` to each honest seat, then the ``relays`` the
    honest seats pass on to each other (relayer, to, record), as resends do."""

    records: dict[int, list[bytes]]
    reasons: frozenset[str]
    relays: list[tuple[int, int, bytes]] = field(default_factory=list)
    #: the cheat shows only once the card is shown to all: the cheater sends the shares it owes
    continues: bool = False


@dataclass
class Point:
    """Where the cheat is made: the game, and the record the cheater owes there."""

    game: LocalGame
    cheater: int
    head: Expect
    rng: random.Random

    @property
    def node(self) -> Node:
        return self.game.nodes[self.cheater]

    @property
    def honest(self) -> list[int]:
        return [s for s in range(PLAYERS) if s != self.cheater]

    def sign(self, body: Any, kind: str | None = None) -> bytes:
        """A record from the cheater extending the log, validly signed (of the kind it owes, or ``kind``)."""
        return signed_record(self.game, self.cheater, self.head.kind if kind is None else kind, body)

    def honest_body(self) -> dict[str, Any]:
        return body_for(self.node, self.head)

    def to_all(self, record: bytes, *reasons: str, continues: bool = False) -> Plan:
        return Plan({s: [record] for s in self.honest}, frozenset(reasons), continues=continues)


Cheat = Callable[[Point], Plan | None]


def _any_one(rng: random.Random, items: list[Any], tamper: Callable[[], None]) -> None:
    """Run a tamper that changes the first of ``items`` on one of them drawn at random."""
    i = rng.randrange(len(items))
    items[0], items[i] = items[i], items[0]
    tamper()
    items[0], items[i] = items[i], items[0]


def bad_genesis(p: Point) -> Plan:
    body = p.honest_body()
    body["names"] = [name + "x" for name in body["names"]]
    return p.to_all(p.sign(body), "bad-genesis")


def bad_key_proof(p: Point) -> Plan:
    tamper = p.rng.choice([random_proof, unreduced_proof])
    return p.to_all(p.sign(tamper(p.game, p.honest_body())), "bad-key-proof")


def key_an_invalid_point(p: Point) -> Plan:
    body = p.honest_body()
    body["X"] = BAD_POINTS[p.rng.choice(sorted(BAD_POINTS))]
    return p.to_all(p.sign(body), "bad-message")


def wrong_number_of_commitments(p: Point) -> Plan:
    body = p.honest_body()
    body["commitments"].append(p.rng.randbytes(32))
    return p.to_all(p.sign(body), "bad-commit")


def reveal_another_value(p: Point) -> Plan:
    body = p.honest_body()
    _value, nonce = body["values"][0]
    body["values"][0] = [other_point(p.rng.randrange(1000)), nonce]
    return p.to_all(p.sign(body), "mismatch")


def reveal_two_values(p: Point) -> Plan:
    body = p.honest_body()
    body["values"].append(body["values"][0])
    return p.to_all(p.sign(body), "bad-reveal")


def shuffle_drops_a_card(p: Point) -> Plan:
    body = p.honest_body()
    deck = p.rng.choice([cards for _, cards, _proof in body["decks"] if len(cards) > 1])
    deck.pop(p.rng.randrange(len(deck)))
    return p.to_all(p.sign(body), "bad-message")


def shuffle_proof_malformed(p: Point) -> Plan:
    body = p.honest_body()
    _any_one(p.rng, body["decks"], lambda: a_proof_entry_missing(p.game, body))
    return p.to_all(p.sign(body), "bad-message")


def shuffle_decks_reordered(p: Point) -> Plan | None:
    body = p.honest_body()
    if len(body["decks"]) < 2:
        return None
    body["decks"].reverse()
    return p.to_all(p.sign(body), "bad-shuffle")


def bad_shuffle_proof(p: Point) -> Plan:
    """A well-formed proof that does not hold (of a random deck): every seat but the next
    shuffler refuses it at once; that one checks it after its own shuffle (§5.6.2)."""
    body = p.honest_body()
    tamper = p.rng.choice(FALSE_PROOFS)
    _any_one(p.rng, body["decks"], lambda: tamper(p.game, body))
    return p.to_all(p.sign(body), "bad-shuffle-proof")


def _with_shares(p: Point) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """An honest body that carries shares, and its shares: the shares record the cheater
    owes, or (owing a move) its ``path_first`` move with the shares it carries, if any."""
    if p.head.kind == "shares":
        body = p.honest_body()
        return body, body
    assert p.head.kind == "action"
    text = path_first(p.cheater, p.node)
    shares = p.node._shares_with_move(text)
    if shares is None:
        return None
    move = ActionMsg(text, shares).encode()
    return move, move["shares"]


def _shown_to_all(p: Point, share: list[Any]) -> bool:
    """Whether an honest public share is of a card shown to all (its proof is for that), not
    of a card's first reveal to one seat."""
    batch, deck, position = share[0]
    need = RevealNeed((batch, Deck(deck), position), None)
    c1, _ = p.node.dealer.ciphertext(need.card)
    context = share_context(p.game.setup.game_id, need, p.cheater, None)
    return verify_dleq(p.node.keys[p.cheater], c1, check_point(share[1]), (share[2], share[3], share[4]), context)


def _a_bad_public_share(p: Point, shown_to_all: bool) -> Plan | None:
    made = _with_shares(p)
    if made is None:
        return None
    body, shares = made
    public = shares["public"]
    chosen = [i for i, share in enumerate(public) if _shown_to_all(p, share) == shown_to_all]
    if not chosen:
        return None
    i = p.rng.choice(chosen)
    public[0], public[i] = public[i], public[0]
    public_share_of_another_point(p.game, shares)
    public[0], public[i] = public[i], public[0]
    return p.to_all(p.sign(body), "bad-share")


def bad_public_share(p: Point) -> Plan | None:
    """A share of a card shown to all: everyone checks it at once."""
    return _a_bad_public_share(p, shown_to_all=True)


def bad_first_reveal_share(p: Point) -> Plan | None:
    """A public share of a card's first reveal to one seat: checked by that seat at once; the
    other honest seat keeps it unchecked, and learns of it from the recipient's abort."""
    return _a_bad_public_share(p, shown_to_all=False)


def bad_sealed_share(p: Point) -> Plan | None:
    """A sealed share (of a card's later reveal to a seat), checked by its recipient only: the
    other honest seat takes it in, and learns of it from the recipient's abort."""
    made = _with_shares(p)
    if made is None or not made[1]["sealed"]:
        return None
    body, shares = made
    tampers = [sealed_share_shifted] + ([sealed_share_with_another_share_s_proof] if len(shares["sealed"]) > 1 else [])
    tamper = p.rng.choice(tampers)
    _any_one(p.rng, shares["sealed"], lambda: tamper(p.game, shares))
    return p.to_all(p.sign(body), "bad-share")


def invalid_point_in_a_share(p: Point) -> Plan | None:
    """Every seat checks that a public share is a valid point; a sealed one's recipient checks it."""
    made = _with_shares(p)
    if made is None:
        return None
    body, shares = made
    where = [("public", 1)] * bool(shares["public"]) + [("sealed", 3), ("sealed", 4)] * bool(shares["sealed"])
    if not where:
        return None
    name, field_ = p.rng.choice(where)
    p.rng.choice(shares[name])[field_] = BAD_POINTS[p.rng.choice(sorted(BAD_POINTS))]
    return p.to_all(p.sign(body), "bad-message")


def a_share_missing(p: Point) -> Plan | None:
    body = p.honest_body()
    lists = [name for name in ("public", "sealed") if body[name]]
    if not lists:
        return None
    shares = body[p.rng.choice(lists)]
    shares.pop(p.rng.randrange(len(shares)))
    return p.to_all(p.sign(body), "wrong-shares")


def an_extra_share(p: Point) -> Plan | None:
    body = p.honest_body()
    lists = [name for name in ("public", "sealed") if body[name]]
    if not lists:
        return None
    shares = body[p.rng.choice(lists)]
    shares.append(list(p.rng.choice(shares)))
    return p.to_all(p.sign(body), "wrong-shares")


def a_share_for_another_card(p: Point) -> Plan | None:
    body = p.honest_body()
    lists = [name for name in ("public", "sealed") if body[name]]
    if not lists:
        return None
    share = p.rng.choice(body[p.rng.choice(lists)])
    batch, deck, position = share[0]
    share[0] = [batch, deck, position + 1 + p.rng.randrange(3)]
    return p.to_all(p.sign(body), "wrong-shares")


def _illegal(node: Node, text: str) -> bool:
    assert node.state is not None
    try:
        node.state.check(text, player=node.seat)
    except (IllegalActionError, InvalidActionError):
        return True
    return False


def a_card_from_another_hand(p: Point) -> Plan | None:
    state = p.game.spectator.state
    assert state is not None
    others = [h for s in p.honest for h in state.hands[s]]
    if not others:
        return None
    handle = p.rng.choice(others)
    text = p.rng.choice([f"path {handle} at 0,1", f"pass {handle}", f"rockfall 0,1 #{handle}"])
    return p.to_all(p.sign({"action": text}), "illegal-action")


def an_unreadable_move(p: Point) -> Plan:
    text = p.rng.choice(["fly away", "path 999 at 0,1", "pass", "steal @9"])
    return p.to_all(p.sign({"action": text}), "illegal-action")


def _played_as_what_it_is_not(p: Point) -> str | None:
    """A move that plays one of the cheater's cards as a kind it is not, if it has one: where
    the kind played could go (every rule the others can check without the card holds), so
    that only the card, once shown, shows the cheat (protocol.md §6.11)."""
    state = p.node.state
    assert state is not None
    if p.head.kind != "action" or state.phase is not Phase.PLAY or not state.hands[p.cheater]:
        return None
    handle = p.rng.choice(state.hands[p.cheater])
    face = state.faces[handle]
    text: str | None = None
    if p.game.setup.config.edition == "saboteur2":
        trappable = [s for s in range(state.players) if s != p.cheater and state.trapped[s] is None]  # type: ignore[attr-defined]
        if trappable and getattr(face, "kind", None) is not ActionKind.TRAPPED:
            text = f"trapped @{p.rng.choice(trappable)} #{handle}"
    elif isinstance(face, PathCard):
        tiles = state.board.tiles
        hidden = [g for g, cell in enumerate(GOAL_CELLS) if tiles[cell].card is None and g not in state.pending_stones]
        text = f"map {p.rng.choice(hidden)} #{handle}" if hidden else None
    elif not state.blocked(p.cheater):
        cells = sorted(c for c in state.board.frontier if state.board.cell_problem(c) is None)
        if cells:
            x, y = p.rng.choice(cells)
            text = f"path {handle} at {x},{y}"
    return text if text is not None and _illegal(p.node, text) else None


def a_card_played_as_what_it_is_not(p: Point) -> Plan | None:
    """Only the mover knows the card's face, so the others take the move in and refuse it once
    the card is shown to all, by the mover's own share."""
    text = _played_as_what_it_is_not(p)
    if text is None:
        return None
    return p.to_all(p.sign({"action": text}), "illegal-action", continues=True)


def a_card_played_as_what_it_is_not_with_a_bad_share(p: Point) -> Plan | None:
    """Such a move that also carries a false share (a proof for another point, a sealed share
    shifted, or an invalid point): the share is the fault every seat names, also a seat that
    kept it unchecked and refuses the move once the card shows (it rechecks the move's
    shares first, protocol.md §6.11)."""
    text = _played_as_what_it_is_not(p)
    state = p.node.state
    assert state is not None
    handle = None if text is None else int(text.rsplit("#", 1)[-1]) if "#" in text else int(text.split()[1])
    # the shares a move carries depend on the card it shows, not on how it is played: made
    # for a legal play of the same card face up
    honest = [a for a in state.legal_actions() if getattr(a, "card", None) == handle and not isinstance(a, Pass)]
    made = p.node._shares_with_move(str(honest[0])) if honest else None
    if text is None or made is None:
        return None
    move = ActionMsg(text, made).encode()
    shares = move["shares"]
    tampers = [(name, how) for name in ("public", "sealed") if shares[name] for how in ("proof", "point")]
    if not tampers:
        return None
    name, how = p.rng.choice(tampers)
    if how == "point":
        p.rng.choice(shares[name])[1 if name == "public" else 3] = BAD_POINTS[p.rng.choice(sorted(BAD_POINTS))]
    else:
        tamper = public_share_of_another_point if name == "public" else sealed_share_shifted
        _any_one(p.rng, shares[name], lambda: tamper(p.game, shares))
    return p.to_all(p.sign(move), "bad-message" if how == "point" else "bad-share", continues=True)


def malformed_body(p: Point) -> Plan:
    body = {"action": "pass 0"} if p.head.kind == "action" else p.honest_body()
    name = p.rng.choice(sorted(body))
    if p.rng.random() < 0.5:
        del body[name]
    else:
        body[name] = p.rng.choice([None, 7, "x", [[]], {"a": 1}])
    return p.to_all(p.sign(body), "bad-message", "illegal-action", "bad-genesis")


def equivocation(p: Point) -> Plan | None:
    """Two versions of the cheater's record, one to each honest seat; each relays its own to
    the other."""
    if p.head.kind == "action":
        assert p.node.state is not None
        legal = [str(a) for a in p.node.state.legal_actions()]
        if len(legal) < 2:
            return None
        one, two = p.rng.sample(legal, 2)
        bodies = [{"action": one}, {"action": two}]
    elif p.head.kind in ("key", "commit", "shares", "shuffle"):
        bodies = [p.honest_body(), p.honest_body()]  # made with fresh randomness each
    else:
        return None  # genesis and reveal are the same whenever they are made
    a, *others = p.honest
    first, second = p.sign(bodies[0]), p.sign(bodies[1])
    if first == second:
        return None
    relays = [relay for b in others for relay in ((a, b, first), (b, a, second))]
    return Plan({a: [first], **{b: [second] for b in others}}, frozenset({"equivocation"}), relays)


def out_of_turn(p: Point) -> Plan:
    """A seat that owes nothing here (or the wrong kind) sends a record anyway."""
    kind = p.rng.choice([k for k in ("action", "shares", "commit") if k != p.head.kind])
    body = {"action": "pass 0"} if kind == "action" else (
        {"public": [], "sealed": []} if kind == "shares" else {"commitments": [p.rng.randbytes(32)]})
    return p.to_all(p.sign(body, kind), "out-of-turn")


#: kind of record the cheater owes -> the cheats it can make there
CATALOGUE: dict[str, list[Cheat]] = {
    "genesis": [bad_genesis],
    "key": [bad_key_proof, key_an_invalid_point],
    "commit": [wrong_number_of_commitments],
    "reveal": [reveal_another_value, reveal_two_values],
    "shuffle": [shuffle_drops_a_card, shuffle_proof_malformed, shuffle_decks_reordered, bad_shuffle_proof],
    "shares": [bad_public_share, bad_first_reveal_share, bad_sealed_share, invalid_point_in_a_share, a_share_missing,
               an_extra_share, a_share_for_another_card],
    # the shares a move carries: public ones of the card it shows and of cards drawn since the
    # mover's last move (their first reveal), sealed ones of cards shown again to a seat
    "action": [a_card_from_another_hand, an_unreadable_move, a_card_played_as_what_it_is_not,
               a_card_played_as_what_it_is_not_with_a_bad_share, bad_public_share,
               bad_first_reveal_share, bad_sealed_share, invalid_point_in_a_share],
}
#: cheats on a record of any kind, and how often a trial draws each (the rest: the kind's own)
ANY_KIND: list[tuple[float, Cheat]] = [(0.12, malformed_body), (0.12, equivocation)]
#: the kind of record trial ``seed`` cheats on is ``KINDS[seed % 10]``, so that every run tries
#: each kind (the kinds with more cheats more often); the rest is drawn from the seed
KINDS = ["shares", "action", "key", "commit", "reveal", "shuffle", "shuffle", "shares", "action", "genesis"]
#: cheats made by a seat that owes nothing (or something else) at the point, and how often
ANYWHERE: list[Cheat] = [out_of_turn]
OUT_OF_TURN = 0.08
