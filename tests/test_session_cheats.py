"""Every kind of cheating in a game session is caught, and pinned on the cheater.

A cheater is one seat whose records are built by hand (or by its own node with one
``_make_<kind>`` method swapped) and validly signed, so only the content is wrong.  Each
record goes to every other seat and to the spectator, which checks everything; each must
raise ``ProtocolViolation`` naming the cheater and the rule.  By design, sealed shares are
checked by their recipient and the spectator only, and the seat after a shuffler checks
its proof only once it has sent its own shuffle and opening (``check_later``).

All games are one 3-player round with 4 shadow shuffles, played honestly from one seed to
a few named points; each test gets its own copy of the game at its point.
"""
from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    Verdicts,
    copy_game,
    hear,
    honest_body,
    path_first,
    play_until_refused,
    seeded_bytes,
    seeded_game,
    signed_record,
)

from saboteur_p2p.crypto.group import IDENTITY, G, Point, add, base_mul, mul, random_scalar, sadd, scalar_from_int, sub
from saboteur_p2p.crypto.log import EquivocationProof, decode_record, make_entry
from saboteur_p2p.crypto.proofs import open_sealed_share, prove_dleq, prove_key, seal_share
from saboteur_p2p.crypto.shuffle import open_shadows, reencrypt
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.local import LocalGame, step
from saboteur_p2p.protocol.messages import Shares
from saboteur_p2p.protocol.node import Expect, Node, ProtocolViolation
from saboteur_p2p.rules import Deck, GameConfig
from saboteur_p2p.rules.cards import PathCard

CONFIG = GameConfig(3, rounds=1)
SHUFFLE_ROUNDS = 4
SEED = 1
P = 2**255 - 19


def _is_shuffle(topic: tuple[Any, ...]) -> bool:
    return bool(topic) and topic[0] == "shuffle"


#: The points of the honest game where cheats start: the first time what is expected next
#: matches.  Seat 1 is the cheater at most of them.
POINTS: dict[str, Callable[[Expect], bool]] = {
    "genesis": lambda e: e.kind == "genesis",
    "key": lambda e: e == Expect(1, "key"),
    "coin-commit": lambda e: e.kind == "commit" and e.topic[0] == "coin" and e.speaker == 1,
    "coin-reveal": lambda e: e.kind == "reveal" and e.topic[0] == "coin" and e.speaker == 2,
    "shuffle-commit": lambda e: e.kind == "commit" and _is_shuffle(e.topic) and e.speaker == 1,
    "shuffle": lambda e: e == Expect(1, "shuffle", (0,)),
    "shuffle-reveal": lambda e: e == Expect(2, "reveal", ("shuffle", 0, 1)),
    "open": lambda e: e == Expect(1, "open", (0,)),
    "sealed-shares": lambda e: e.kind == "shares" and e.speaker == 1,
    "move": lambda e: e.kind == "action",
    "public-shares": lambda e: e.kind == "shares" and e.speaker == 1 and any(n.audience is None for n in e.topic),
}


@functools.cache
def _snapshots() -> dict[str, LocalGame]:
    game = seeded_game(CONFIG, SHUFFLE_ROUNDS, SEED)
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
    """A fresh copy of the honest game at ``point``."""
    return copy_game(_snapshots()[point], seed)


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
    body = tamper(game, body) or body
    record = signed_record(game, cheater, expected(game).kind, body)
    return game, hear(game, record, cheater)


def play_with_a_changed_shuffle(tamper: Callable[[LocalGame, dict[str, Any]], None]) -> tuple[LocalGame, Expect, Verdicts]:
    """Seat 1's node makes its honest shuffle, ``tamper`` changes it before it is signed, and
    the game plays on until some node refuses a record: (game, what was expected, verdicts)."""
    game = game_at("shuffle")
    cheater = game.nodes[1]
    honest = cheater._make_shuffle

    def make_shuffle(head: Expect) -> dict[str, Any]:
        body = honest(head)
        tamper(game, body)
        return body

    cheater._make_shuffle = make_shuffle  # type: ignore[method-assign]
    head, verdicts = play_until_refused(game)
    return game, head, verdicts


def check_later(game: LocalGame, seat: int) -> ProtocolViolation | None:
    """Bring ``seat`` (alone) to the end of its own shuffle and opening, the other seats
    answering honestly, and return what it raised: the next shuffler checks the proof
    before its own only after sending its own shuffle (node.py, deferred_checks)."""
    node = game.nodes[seat]
    while True:
        head = node.next_expected
        assert head is not None and head.kind in ("shuffle", "reveal", "open"), head
        if head.speaker == seat:
            try:
                node.produce()
            except ProtocolViolation as violation:
                return violation
            if head.kind == "open":
                return None
            continue
        other = game.nodes[head.speaker]
        body = getattr(other, f"_make_{head.kind}")(head)
        record = signed_record(game, head.speaker, head.kind, body, seq=node.log.next_seq(head.speaker), prev=node.log.head)
        node.receive(record)


def assert_shuffle_blamed(game: LocalGame, verdicts: Verdicts, cheater: int) -> None:
    """Everyone refuses a bad shuffle proof from seat 1: at once, or (seat 2) after its own shuffle."""
    assert cheater == 1
    assert_blamed(game, verdicts, 1, "bad-shuffle-proof", by=[0, None])
    assert verdicts[2] is None and game.nodes[2].deferred_checks
    late = check_later(game, 2)
    assert late is not None and (late.peer, late.reason) == (1, "bad-shuffle-proof")
    assert game.nodes[2].aborted is late


def other_point(seed: int) -> Point:
    return base_mul(random_scalar(seeded_bytes(seed)))


# -- invalid points ---------------------------------------------------------------------


def _off_curve() -> bytes:
    """The encoding of a y for which no x is on the curve."""
    d = -121665 * pow(121666, -1, P) % P
    for y in range(2, 100):
        x2 = (y * y - 1) * pow(d * y * y + 1, -1, P) % P
        if pow(x2, (P - 1) // 2, P) == P - 1:
            return y.to_bytes(32, "little")
    raise AssertionError("no y off the curve below 100")


ORDER_8 = bytes.fromhex("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
BAD_POINTS = {
    "identity": IDENTITY,
    "order-2": (P - 1).to_bytes(32, "little"),
    "order-4": bytes(32),
    "order-8": ORDER_8,
    "off-curve": _off_curve(),
    "mixed-order": add(G, ORDER_8),
    "non-canonical": (P + 1).to_bytes(32, "little"),
}


# == 1. decryption shares ===============================================================


def _public_share_of_another_point(game: LocalGame, body: dict[str, Any]) -> None:
    body["public"][0][1] = other_point(1)


def _public_share_proven_with_another_key(game: LocalGame, body: dict[str, Any]) -> None:
    cheater = game.nodes[1]
    need = expected(game).topic[0]
    c1, _ = cheater.dealer.ciphertext(need.card)
    x = random_scalar(seeded_bytes(2))
    share = mul(x, c1)
    e, s = prove_dleq(x, base_mul(x), c1, share, cheater._share_ctx(need, 1, None), seeded_bytes(3))
    body["public"][0][1:] = [share, e, s]


def _public_share_with_the_proof_for_another_card(game: LocalGame, body: dict[str, Any]) -> None:
    cheater = game.nodes[1]
    need = expected(game).topic[0]
    c1, _ = cheater.dealer.ciphertext(need.card)
    other = RevealNeed((need.card[0], need.card[1], need.card[2] + 1), None)
    assert cheater.secret is not None
    ctx = cheater._share_ctx(other, 1, None)
    e, s = prove_dleq(cheater.secret, cheater.keys[1], c1, body["public"][0][1], ctx, seeded_bytes(4))
    body["public"][0][2:] = [e, s]


def _public_share_for_another_card(game: LocalGame, body: dict[str, Any]) -> None:
    # a true decryption share, with a true proof, of the card next to the one asked for
    cheater = game.nodes[1]
    need = expected(game).topic[0]
    other = RevealNeed((need.card[0], need.card[1], need.card[2] + 1), None)
    c1, _ = cheater.dealer.ciphertext(other.card)
    assert cheater.secret is not None
    share = mul(cheater.secret, c1)
    proof = prove_dleq(cheater.secret, cheater.keys[1], c1, share, cheater._share_ctx(other, 1, None), seeded_bytes(17))
    body["public"][0][1:] = [share, *proof]


@pytest.mark.parametrize("tamper", [
    _public_share_of_another_point,
    _public_share_proven_with_another_key,
    _public_share_with_the_proof_for_another_card,
    _public_share_for_another_card,
], ids=lambda f: f.__name__.strip("_"))
def test_a_bad_public_decryption_share_is_blamed_on_its_sender_by_everyone(tamper):
    game, verdicts = cheat_once("public-shares", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-share")


def _sealed_share_shifted(game: LocalGame, body: dict[str, Any]) -> None:
    body["sealed"][0][4] = add(body["sealed"][0][4], G)


def _sealed_share_of_another_key(game: LocalGame, body: dict[str, Any]) -> None:
    cheater = game.nodes[1]
    card = tuple(body["sealed"][0][0])
    recipient = body["sealed"][0][2]
    need = RevealNeed((card[0], Deck(card[1]), card[2]), frozenset(body["sealed"][0][1]))
    c1, _ = cheater.dealer.ciphertext(need.card)
    x = random_scalar(seeded_bytes(5))
    ctx = cheater._share_ctx(need, 1, recipient)
    E1, E2, proof = seal_share(x, base_mul(x), c1, cheater.keys[recipient], ctx, seeded_bytes(6))
    body["sealed"][0][3:] = [E1, E2, *proof]


def _sealed_share_with_another_share_s_proof(game: LocalGame, body: dict[str, Any]) -> None:
    body["sealed"][0][5:] = body["sealed"][1][5:]


@pytest.mark.parametrize("tamper", [
    _sealed_share_shifted, _sealed_share_of_another_key, _sealed_share_with_another_share_s_proof,
], ids=lambda f: f.__name__.strip("_"))
def test_a_bad_sealed_share_is_blamed_on_its_sender_by_its_recipient_and_the_spectator(tamper):
    game = game_at("sealed-shares")
    body = honest_body(game.nodes[1])
    recipient = body["sealed"][0][2]
    tamper(game, body)
    verdicts = hear(game, signed_record(game, 1, "shares", body), 1)
    assert_blamed(game, verdicts, 1, "bad-share", by=[recipient, None])
    bystander = ({0, 2} - {recipient}).pop()
    assert verdicts[bystander] is None  # a seat checks only the sealed shares meant for it


@pytest.mark.parametrize("point", ["sealed-shares", "public-shares"])
def test_shares_other_than_those_owed_are_blamed_on_the_sender(point):
    def drop_one(game, body):
        body["sealed" if point == "sealed-shares" else "public"].pop()

    game, verdicts = cheat_once(point, 1, drop_one)
    assert_blamed(game, verdicts, 1, "wrong-shares")


# == 2. and 3. shuffles and their proofs ====================================================


def _goals(body: dict[str, Any]) -> list[list[bytes]]:
    return next(cards for deck, cards in body["decks"] if deck == Deck.GOALS.value)


def _duplicate(game: LocalGame, cards: list[list[bytes]]) -> None:
    cards[0] = list(cards[1])  # goal 0 is gone, goal 1 is there twice


def _replace_with_a_fresh_copy(game: LocalGame, cards: list[list[bytes]]) -> None:
    # a new encryption of the card the input deck holds first: unlinkable, but a copy
    node = game.nodes[1]
    batch = node.dealer.batches[0]
    first = next(point for point, face in batch.faces[Deck.GOALS].items())
    cards[0] = list(reencrypt((IDENTITY, first), random_scalar(seeded_bytes(7)), node.dealer.joint))  # type: ignore[arg-type]


def _replace_with_no_card(game: LocalGame, cards: list[list[bytes]]) -> None:
    node = game.nodes[1]
    cards[2] = list(reencrypt((IDENTITY, other_point(8)), random_scalar(seeded_bytes(9)), node.dealer.joint))  # type: ignore[arg-type]


@pytest.mark.parametrize("change", [_duplicate, _replace_with_a_fresh_copy, _replace_with_no_card],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_shuffle_that_changes_the_cards_is_caught_by_its_proof(change):
    """The shuffler proves an honest shuffle, then sends a changed output deck.

    Every shadow whose challenge bit is 1 must open to the output deck, and cannot; the
    cheat escapes only if all 4 bits are 0 (chance 1/16), which the test rules out for
    its seed by checking which record was refused.
    """
    game, head, verdicts = play_with_a_changed_shuffle(lambda game, body: change(game, _goals(body)))
    assert head == Expect(1, "open", (0,))
    assert_shuffle_blamed(game, verdicts, 1)


def test_a_shuffle_that_drops_a_card_is_refused_at_once():
    def drop(game, body):
        _goals(body).pop()

    game, verdicts = cheat_once("shuffle", 1, drop)
    assert_blamed(game, verdicts, 1, "bad-message")


def test_a_shuffle_with_too_few_shadows_or_the_wrong_decks_is_refused():
    def fewer_shadows(game, body):
        body["shadows"][0][1].pop()

    def wrong_decks(game, body):
        body["decks"].reverse()

    for tamper in (fewer_shadows, wrong_decks):
        game, verdicts = cheat_once("shuffle", 1, tamper)
        assert_blamed(game, verdicts, 1, "bad-shuffle")


def _scalar_changed(game: LocalGame, body: dict[str, Any]) -> None:
    _perm, scalars = body["openings"][0][1][0]
    scalars[0] = sadd(scalars[0], scalar_from_int(1))


def _permutation_swapped(game: LocalGame, body: dict[str, Any]) -> None:
    perm, _scalars = body["openings"][0][1][0]
    perm[0], perm[1] = perm[1], perm[0]


def _openings_exchanged(game: LocalGame, body: dict[str, Any]) -> None:
    shadows = body["openings"][0][1]
    shadows[0], shadows[1] = shadows[1], shadows[0]


def _the_other_challenge_answered(game: LocalGame, body: dict[str, Any]) -> None:
    cheater = game.nodes[1]
    run = cheater.shuffles[0]
    witness = cheater.my_witness[0]
    bits = [1 - b for b in cheater._challenge(run, 1)]
    body["openings"] = [[deck.value, [[p, s] for p, s in open_shadows(witness[deck], bits)]] for deck in run.decks]


def _an_opening_missing(game: LocalGame, body: dict[str, Any]) -> None:
    body["openings"][0][1].pop()


def _openings_for_the_wrong_decks(game: LocalGame, body: dict[str, Any]) -> None:
    body["openings"].reverse()


@pytest.mark.parametrize("tamper", [
    _scalar_changed, _permutation_swapped, _openings_exchanged, _the_other_challenge_answered,
    _an_opening_missing, _openings_for_the_wrong_decks,
], ids=lambda f: f.__name__.strip("_"))
def test_a_tampered_shuffle_proof_is_blamed_on_the_shuffler(tamper):
    game = game_at("open")
    cheater = game.nodes[1]
    witness = cheater.my_witness[0]
    body = honest_body(cheater)
    cheater.my_witness[0] = witness  # the cheater keeps it, to answer other challenges
    tamper(game, body)
    verdicts = hear(game, signed_record(game, 1, "open", body), 1)
    if tamper is _openings_for_the_wrong_decks:
        assert_blamed(game, verdicts, 1, "bad-shuffle-proof")  # checked at once by everyone
    else:
        assert_shuffle_blamed(game, verdicts, 1)


# == 4. and 5. signatures and replays ========================================================


def test_a_forged_signature_is_refused_without_stopping_the_game():
    """A record for seat 1 signed by seat 2: the log names the seat it claims (the network
    knows which connection it came from), and nobody aborts; seat 1's own record still counts."""
    game = game_at("key")
    body = honest_body(game.nodes[1])
    for forged in (
        signed_record(game, 1, "key", body, identity=game.nodes[2].identity),
        msgpack.packb([decode_record(signed_record(game, 1, "key", body)).raw, bytes(64)], use_bin_type=True),
    ):
        verdicts = hear(game, forged, 1)
        assert_blamed(game, verdicts, 1, "signature", aborts=False)
    genuine = signed_record(game, 1, "key", body)
    assert hear(game, genuine, 1) == {0: None, 2: None, None: None}


def test_a_replayed_record_is_refused_without_stopping_the_game():
    game = game_at("move")
    mover = expected(game).speaker
    key_record = next(r for r in game.records if decode_record(r).kind == "key" and decode_record(r).sender == 2)
    verdicts = hear(game, key_record, 2)
    assert_blamed(game, verdicts, 2, "sequence", aborts=False)
    last = game.records[-1]
    sender = decode_record(last).sender
    verdicts = hear(game, last, sender)
    assert_blamed(game, verdicts, sender, "sequence", aborts=False)
    node = game.nodes[mover]
    assert hear(game, node.move(path_first(mover, node)), mover) == dict.fromkeys(judges(game, mover))


def test_a_record_from_another_game_is_refused():
    game = game_at("key")
    node = game.nodes[1]
    other_game = bytes(reversed(game.setup.game_id))
    entry = make_entry(node.identity, other_game, 1, 0, game.spectator.log.head, "key", honest_body(node))  # type: ignore[arg-type]
    assert_blamed(game, hear(game, entry.record, 1), 1, "game-id", aborts=False)


def test_a_record_that_does_not_extend_the_log_is_refused():
    game = game_at("key")
    record = signed_record(game, 1, "key", honest_body(game.nodes[1]), prev=bytes(32))
    assert_blamed(game, hear(game, record, 1), 1, "chain", aborts=False)


# == 6. equivocation ==========================================================================


def test_two_moves_signed_for_one_turn_are_proof_of_equivocation_everywhere():
    """The mover tells seat A one move and seat B another; once the records cross, both
    hold a portable proof that any third party can check with the seats' public keys."""
    game = game_at("move")
    mover = expected(game).speaker
    a, b = [s for s in range(3) if s != mover]
    legal = [str(x) for x in game.nodes[mover].state.legal_actions()]  # type: ignore[union-attr]
    first = signed_record(game, mover, "action", {"action": legal[0]})
    second = signed_record(game, mover, "action", {"action": legal[-1]})
    assert legal[0] != legal[-1]
    game.nodes[a].receive(first)
    game.nodes[b].receive(second)
    game.spectator.receive(first)
    keys = dict(enumerate(game.setup.seats))
    for node, other in ((game.nodes[a], second), (game.nodes[b], first), (game.spectator, second)):
        with pytest.raises(ProtocolViolation) as caught:
            node.receive(other)
        assert (caught.value.peer, caught.value.reason) == (mover, "equivocation")
        assert node.aborted is caught.value
        proof = node.log.proofs[-1]
        assert proof.peer == mover and proof.verify(keys)
        carried = EquivocationProof.from_bytes(proof.to_bytes())
        assert carried.peer == mover and carried.verify(keys)
        assert not EquivocationProof(proof.entry_a, proof.entry_a).verify(keys)


# == 7. commitments =============================================================================


STAND_IN_BODIES: dict[str, dict[str, list[Any]]] = {
    "reveal": {"values": []},
    "open": {"openings": []},
    "shares": {"public": [], "sealed": []},
}


@pytest.mark.parametrize("point,speaker", [
    ("coin-reveal", 2), ("shuffle-reveal", 2), ("open", 1), ("sealed-shares", 1), ("public-shares", 1),
])
def test_a_seat_that_withholds_a_reveal_is_the_one_everyone_waits_for(point, speaker):
    """Nobody can go on without it: every node names it, nobody else has anything to say,
    and another seat speaking in its place is out of turn.  The network times it out."""
    game = game_at(point)
    head = expected(game)
    assert head.speaker == speaker
    for node in (*game.nodes, game.spectator):
        assert node.next_expected == head
    assert all(node.produce() is None for seat, node in enumerate(game.nodes) if seat != speaker)
    stand_in = (speaker + 1) % 3
    record = signed_record(game, stand_in, head.kind, STAND_IN_BODIES[head.kind])
    assert_blamed(game, hear(game, record, stand_in), stand_in, "out-of-turn")


@pytest.mark.parametrize("point", ["coin-reveal", "shuffle-reveal"])
@pytest.mark.parametrize("change", ["value", "nonce"])
def test_revealing_another_value_than_the_one_committed_to_is_a_mismatch(point, change):
    def tamper(game, body):
        value, nonce = body["values"][0]
        body["values"][0] = [other_point(10) if change == "value" else value, nonce if change == "value" else bytes(32)]

    game, verdicts = cheat_once(point, 2, tamper)
    assert_blamed(game, verdicts, 2, "mismatch")


def test_copying_another_seat_s_commitment_and_reveal_is_a_mismatch():
    """Seat 1 commits to seat 0's coin commitment, hoping to reveal seat 0's value and so
    cancel it out; commitments are bound to the seat, so the copy cannot be opened."""
    game = game_at("coin-commit")
    entries = [decode_record(r) for r in game.records]
    seat0_commit = next(e for e in reversed(entries) if e.kind == "commit" and e.sender == 0)
    copied = signed_record(game, 1, "commit", seat0_commit.body)
    assert hear(game, copied, 1) == {0: None, 2: None, None: None}  # a commitment hides its value
    while expected(game).speaker != 1:
        speaker = expected(game).speaker
        hear(game, game.nodes[speaker].produce(), speaker, 1)  # type: ignore[arg-type]
    seat0_reveal = next(e for e in reversed(game.spectator.log.entries) if e.kind == "reveal" and e.sender == 0)
    verdicts = hear(game, signed_record(game, 1, "reveal", seat0_reveal.body), 1)
    assert_blamed(game, verdicts, 1, "mismatch", by=[0, 2, None])


def test_the_wrong_number_of_commitments_or_reveals_is_refused():
    def two_commitments(game, body):
        body["commitments"].append(bytes(32))

    game, verdicts = cheat_once("coin-commit", 1, two_commitments)
    assert_blamed(game, verdicts, 1, "bad-commit")

    def two_values(game, body):
        body["values"].append(body["values"][0])

    game, verdicts = cheat_once("coin-reveal", 2, two_values)
    assert_blamed(game, verdicts, 2, "bad-reveal")


# == 8. illegal moves ===========================================================================


def test_playing_a_card_from_another_hand_is_an_illegal_action():
    game = game_at("move")
    mover = expected(game).speaker
    state = game.spectator.state
    assert state is not None
    stolen = state.hands[(mover + 1) % 3][0]
    for text in (f"path {stolen} at 0,1", f"pass {stolen}", "path 999 at 0,1", "fly away"):
        game = game_at("move")
        verdicts = hear(game, signed_record(game, mover, "action", {"action": text}), mover)
        assert_blamed(game, verdicts, mover, "illegal-action")


def test_a_card_played_as_what_it_is_not_is_blamed_on_the_mover_once_revealed():
    """The mover names a card it holds for an action its face does not allow.  Only the
    mover knows the face, so the engine asks for it to be shown to all, and then names the
    rule; the mover takes part in the reveal like anyone else."""
    game = game_at("move")
    mover = expected(game).speaker
    cheater = game.nodes[mover]
    assert cheater.state is not None
    handle = cheater.state.hands[mover][0]
    face = cheater.state.faces[handle]
    text = f"map 1 #{handle}" if isinstance(face, PathCard) else f"path {handle} at 0,1"

    records = iter([signed_record(game, mover, "action", {"action": text})])

    def cheat(head: Expect) -> bytes:
        if head.kind == "action":
            return next(records)
        return signed_record(game, mover, head.kind, getattr(cheater, f"_make_{head.kind}")(head))

    head, verdicts = play_until_refused(game, mover, cheat)
    assert head.kind == "shares"
    assert game.spectator.dealer.public_faces[(0, Deck.DRAW, handle)] == face
    assert_blamed(game, verdicts, mover, "illegal-action")


def test_an_honest_move_that_leaves_out_its_card_s_handle_is_not_taken_for_a_cheat():
    """"map 1" (no handle) is a valid move for the mover's engine, which sees its hand; the
    others cannot pick the card, so the node sends the handle its engine picked."""
    game = game_at("move")
    mover = expected(game).speaker
    node = game.nodes[mover]
    assert node.state is not None
    named = next(
        a for a in node.state.legal_actions() if getattr(a, "card", None) is not None and not str(a).startswith(("path", "pass"))
    )
    bare = str(named).split(" #")[0]
    record = node.move(bare)
    assert decode_record(record).body["action"] == str(named)
    assert hear(game, record, mover) == dict.fromkeys(judges(game, mover))


# == 9. invalid points and keys ====================================================================


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
def test_an_invalid_point_as_a_key_share_is_refused(bad):
    def tamper(game, body):
        body["X"] = BAD_POINTS[bad]

    game, verdicts = cheat_once("key", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-message")


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
def test_an_invalid_point_as_a_public_decryption_share_is_refused(bad):
    def tamper(game, body):
        body["public"][0][1] = BAD_POINTS[bad]

    game, verdicts = cheat_once("public-shares", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-message")


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
@pytest.mark.parametrize("where", [3, 4], ids=["E1", "E2"])
def test_an_invalid_point_in_a_sealed_share_is_refused_by_its_recipient_and_the_spectator(bad, where):
    game = game_at("sealed-shares")
    body = honest_body(game.nodes[1])
    body["sealed"][0][where] = BAD_POINTS[bad]
    verdicts = hear(game, signed_record(game, 1, "shares", body), 1)
    assert_blamed(game, verdicts, 1, "bad-message", by=[body["sealed"][0][2], None])


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
@pytest.mark.parametrize("where", [0, 1], ids=["C1", "C2"])
def test_an_invalid_point_as_a_card_in_a_shuffled_deck_is_refused(bad, where):
    def tamper(game, body):
        _goals(body)[1][where] = BAD_POINTS[bad]

    game, verdicts = cheat_once("shuffle", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-message")


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
def test_an_invalid_point_in_a_shadow_deck_fails_the_shuffle_proof(bad):
    """Shadow decks are checked for their shape only when they arrive; an invalid point in
    one is found when it is opened, whichever way the challenge asks."""
    def tamper(game: LocalGame, body: dict[str, Any]) -> None:
        for shadow in next(s for deck, s in body["shadows"] if deck == Deck.GOALS.value):
            shadow[1][0] = BAD_POINTS[bad]

    game, head, verdicts = play_with_a_changed_shuffle(tamper)
    assert head == Expect(1, "open", (0,))
    assert_shuffle_blamed(game, verdicts, 1)


def test_a_key_share_equal_to_another_s_is_refused_even_with_a_valid_proof():
    """Seat 1 knows seat 0's secret (say it stole it) and proves knowledge of seat 0's key."""
    def tamper(game, body):
        x0 = game.nodes[0].secret
        X0 = game.nodes[0].keys[0]
        ctx = game.nodes[1]._ctx("key", "", 1)
        return {"X": X0, "pok": list(prove_key(x0, X0, ctx, seeded_bytes(11)))}

    game, verdicts = cheat_once("key", 1, tamper)
    assert_blamed(game, verdicts, 1, "duplicate-key")


def _copied_with_its_proof(game: LocalGame, body: dict[str, Any]) -> dict[str, Any]:
    return next(e.body for e in game.spectator.log.entries if e.kind == "key" and e.sender == 0)


def _rogue_key(game: LocalGame, body: dict[str, Any]) -> dict[str, Any]:
    # X1 = xG - X0 would make the joint key xG, known to seat 1 alone; it cannot prove it
    x = random_scalar(seeded_bytes(12))
    X = sub(base_mul(x), game.nodes[0].keys[0])
    return {"X": X, "pok": list(prove_key(x, X, game.nodes[1]._ctx("key", "", 1), seeded_bytes(13)))}


def _proof_for_another_prover(game: LocalGame, body: dict[str, Any]) -> dict[str, Any]:
    node = game.nodes[1]
    return {"X": body["X"], "pok": list(prove_key(node.secret, body["X"], node._ctx("key", "", 0), seeded_bytes(14)))}  # type: ignore[arg-type]


def _random_proof(game: LocalGame, body: dict[str, Any]) -> dict[str, Any]:
    return {"X": body["X"], "pok": [seeded_bytes(15)(32), seeded_bytes(16)(32)]}


def _unreduced_proof(game: LocalGame, body: dict[str, Any]) -> dict[str, Any]:
    e, s = body["pok"]
    L = 2**252 + 27742317777372353535851937790883648493
    return {"X": body["X"], "pok": [e, (int.from_bytes(s, "little") + L).to_bytes(32, "little")]}


@pytest.mark.parametrize("tamper", [
    _copied_with_its_proof, _rogue_key, _proof_for_another_prover, _random_proof, _unreduced_proof,
], ids=lambda f: f.__name__.strip("_"))
def test_a_key_share_without_a_valid_proof_of_knowledge_is_refused(tamper):
    game, verdicts = cheat_once("key", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-key-proof")


# == 10. speaking out of turn ======================================================================


def test_a_seat_speaking_when_another_is_expected_is_out_of_turn():
    game = game_at("key")
    early = game.nodes[2]
    record = signed_record(game, 2, "key", early._make_key(Expect(2, "key")))
    assert_blamed(game, hear(game, record, 2), 2, "out-of-turn")

    game = game_at("genesis")
    record = signed_record(game, 1, "genesis", game.setup.genesis().encode())
    assert_blamed(game, hear(game, record, 1), 1, "out-of-turn")


def test_a_move_from_a_seat_whose_turn_it_is_not_is_out_of_turn():
    game = game_at("move")
    mover = expected(game).speaker
    other = (mover + 1) % 3
    state = game.nodes[other].state
    assert state is not None
    text = f"pass {state.hands[other][0]}"
    assert_blamed(game, hear(game, signed_record(game, other, "action", {"action": text}), other), other, "out-of-turn")


def test_the_right_seat_sending_the_wrong_kind_is_out_of_turn():
    game = game_at("move")
    mover = expected(game).speaker
    record = signed_record(game, mover, "shares", {"public": [], "sealed": []})
    assert_blamed(game, hear(game, record, mover), mover, "out-of-turn")

    game = game_at("sealed-shares")
    record = signed_record(game, 1, "action", {"action": "pass 0"})
    assert_blamed(game, hear(game, record, 1), 1, "out-of-turn")


def test_a_genesis_other_than_the_agreed_game_is_refused():
    def tamper(game, body):
        body["shuffle_rounds"] = 1

    game, verdicts = cheat_once("genesis", 0, tamper)
    assert_blamed(game, verdicts, 0, "bad-genesis")


# == 11. malformed records and bodies ===============================================================


GARBAGE = {
    "empty": b"",
    "one byte": b"\x00",
    "random": bytes(range(200)),
    "msgpack int": msgpack.packb(7),
    "short signature": msgpack.packb([b"x", b"y"], use_bin_type=True),
    "not bytes": "a record",
    "none": None,
}


@pytest.mark.parametrize("garbage", GARBAGE, ids=str)
def test_garbage_is_refused_without_blame_or_stopping_the_game(garbage):
    game = game_at("key")
    for node in (*game.nodes, game.spectator):
        with pytest.raises(ProtocolViolation) as caught:
            node.receive(GARBAGE[garbage])
        assert (caught.value.peer, caught.value.reason) == (-1, "malformed-record")
        assert node.aborted is None
    genuine = signed_record(game, 1, "key", honest_body(game.nodes[1]))
    assert hear(game, genuine, 1) == {0: None, 2: None, None: None}


#: Every point, so every kind of record, is sent malformed by the seat due to speak there.
BODY_POINTS = list(POINTS)


@functools.cache
def _honest_at(point: str) -> tuple[int, bytes]:
    """The speaker at ``point`` and its honest body, packed (unpack for a fresh copy)."""
    speaker, body = _speaker_and_body(game_at(point), point)
    return speaker, msgpack.packb(body, use_bin_type=True)


def _speaker_and_body(game: LocalGame, point: str) -> tuple[int, dict[str, Any]]:
    head = expected(game)
    if head.kind == "action":
        return head.speaker, {"action": path_first(head.speaker, game.nodes[head.speaker])}
    return head.speaker, honest_body(game.nodes[head.speaker])


def _wrong_shapes(body: dict[str, Any]) -> list[Any]:
    shapes: list[Any] = [None, [], "text", 5, {}, [body], {**body, "extra": 1}]
    wrong_values: list[Any] = [None, 7, "x", b"\x00" * 32, [], [[]], {"a": 1}, True, 1.5]
    for field in body:
        shapes.append({k: v for k, v in body.items() if k != field})
        for wrong in wrong_values:
            shapes.append({**body, field: wrong})
    return shapes


@pytest.mark.parametrize("point", BODY_POINTS)
def test_bodies_of_the_wrong_shape_are_blamed_on_the_sender(point):
    """Missing and unknown fields, wrong types: the sender is blamed, nothing else escapes."""
    base = game_at(point)
    speaker, body = _speaker_and_body(base, point)
    spectator = base.spectator
    for wrong in _wrong_shapes(body):
        if wrong == body:
            continue  # the same body after all (a field that was already empty)
        judge = copy.deepcopy(spectator)
        record = signed_record(base, speaker, expected(base).kind, wrong)
        with pytest.raises(ProtocolViolation) as caught:
            judge.receive(record)
        assert caught.value.peer == speaker, f"{wrong!r:.200}: {caught.value}"
        assert judge.aborted is caught.value


MSGPACK_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.binary(max_size=40) | st.sampled_from([b"\x00" * 32, IDENTITY, G, bytes(64)]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a body: map keys and list indexes, the body itself first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += _paths(child, (*prefix, i))
    return found


def _mutate(body: Any, path: tuple[Any, ...], how: str, new: Any) -> Any:
    if not path:
        return new
    parent = body
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if how == "replace":
        parent[last] = new
    elif how == "delete":
        del parent[last]
    elif isinstance(parent, list):
        parent.insert(last, new)
    else:
        parent[f"{last}+"] = new
    return body


@pytest.mark.parametrize("point", BODY_POINTS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutated_body_is_accepted_or_blamed_on_its_sender_and_nothing_else_escapes(point, data):
    base = _snapshots()[point]
    speaker, packed = _honest_at(point)
    body = msgpack.unpackb(packed, raw=False)
    paths = _paths(body)
    path = data.draw(st.sampled_from(paths), label="path")
    how = data.draw(st.sampled_from(["replace", "delete", "insert"] if path else ["replace"]), label="how")
    new = data.draw(MSGPACK_VALUES, label="new")
    mutated = _mutate(body, path, how, new)
    try:
        record = signed_record(base, speaker, expected(base).kind, mutated)
    except ValueError:
        return  # nothing our peers would accept can be made of it (too deep, say)
    judge = copy.deepcopy(base.spectator)
    try:
        judge.receive(record)
    except ProtocolViolation as violation:
        assert violation.peer == speaker
        assert judge.aborted is violation


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40) | st.builds(
    lambda verb, n, rest: f"{verb} {n}{rest}",
    st.sampled_from(["path", "pass", "break", "repair", "rockfall", "map", "orient", "keep", "take"]),
    st.integers(-5, 2**70), st.sampled_from(["", " at 0,1", " at 1,0 turned", " at 99,99", " #3", " @1", ",2", " lantern @7"]),
))
def test_any_action_text_is_played_or_blamed_on_the_mover(text):
    base = _snapshots()["move"]
    mover = expected(base).speaker
    judge = copy.deepcopy(base.spectator)
    try:
        judge.receive(signed_record(base, mover, "action", {"action": text}))
    except ProtocolViolation as violation:
        assert (violation.peer, violation.reason) == (mover, "illegal-action")


# == 12. collusion ====================================================================================


def test_all_seats_but_one_pooling_their_secrets_cannot_decrypt_its_cards():
    """The coalition holds every record and every secret but the victim's.  The victim's
    hand, its role, the set-aside role, the goals and the undealt draw pile decrypt (with
    the coalition's secrets) to points that are no card at all; a card shown to a
    coalition member decrypts to its face, so the check itself can fail."""
    game = game_at("move")
    victim = 0  # seats 1 and 2 pool their secrets
    pooled = sadd(game.nodes[1].secret, game.nodes[2].secret)  # type: ignore[arg-type]
    dealer = game.spectator.dealer
    state = game.spectator.state
    assert state is not None
    batch = dealer.batches[0]
    every_face = {point for faces in batch.faces.values() for point in faces}

    def decrypt(card: tuple[int, Deck, int]) -> Point:
        c1, c2 = dealer.ciphertext(card)
        return sub(c2, mul(pooled, c1))

    hidden = [(0, Deck.DRAW, h) for h in state.hands[victim]]
    hidden += [(0, Deck.ROLES, victim)] + [(0, Deck.ROLES, p) for p in range(3, len(batch.faces[Deck.ROLES]))]
    hidden += [(0, Deck.GOALS, p) for p in range(3)] + [(0, Deck.DRAW, h) for h in state.draw_pile]
    assert len(hidden) == 6 + 1 + 1 + 3 + len(state.draw_pile) and len(state.draw_pile) > 40
    for card in hidden:
        assert decrypt(card) not in every_face, f"the coalition decrypted {card}"

    member = game.nodes[1]
    shown = (0, Deck.DRAW, state.hands[1][0])
    victim_shares = [Shares.decode(e.body) for e in game.spectator.log.entries if e.kind == "shares" and e.sender == victim]
    sealed = next(s for shares in victim_shares for s in shares.sealed if s.card == shown and s.recipient == 1)
    face_point = sub(decrypt(shown), open_sealed_share(member.secret, sealed.E1, sealed.E2))  # type: ignore[arg-type]
    assert batch.faces[Deck.DRAW][face_point] == member.dealer.my_faces[shown]
