"""Cheats on the cryptography of a game session are caught, and pinned on the cheater:
bad decryption shares, shuffles and their proofs, invalid points and keys (collusion:
test_session_collusion.py).

A cheater is one seat whose records are built by hand (or by its own node with one
``_make_<kind>`` method swapped) and validly signed, so only the content is wrong.  Each
record goes to every other seat and to the spectator, which checks everything; each must
raise ``ProtocolViolation`` naming the cheater and the rule.  By design, sealed shares (of
a card's later reveals) and the public shares of a card's first reveal to one seat are
checked by their recipient and the spectator only when they arrive (the other seats check
such a public share when the card is shown to all, or when the recipient names its sender),
and the seat after a shuffler checks its proof and points only once it has sent its own
shuffle (``check_later``).  All games are one 3-player round, played honestly from one seed
to a few named points (``protocol_helpers.POINTS``, and "sealed-move", where seat 1's move
carries a sealed share); each test gets its own copy of the game at its point.  Cheats on
the records themselves are in test_session_cheats_records.py.
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from cheats_catalogue import (
    BAD_POINTS,
    FALSE_PROOFS,
    a_proof_entry_missing,
    public_share_of_another_point,
    random_proof,
    sealed_share_shifted,
    unreduced_proof,
)
from protocol_helpers import (
    Verdicts,
    assert_blamed,
    cheat_once,
    expected,
    game_at,
    hear,
    honest_body,
    other_point,
    path_first,
    play_until_refused,
    seeded_bytes,
    signed_record,
)

from saboteur_p2p.crypto.group import IDENTITY, base_mul, mul, random_scalar, sub
from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.crypto.proofs import prove_dleq, prove_key, seal_share
from saboteur_p2p.crypto.shuffle import reencrypt
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.protocol.messages import MalformedMessage, Shares
from saboteur_p2p.protocol.node import Expect, ProtocolViolation
from saboteur_p2p.protocol.shares import share_context
from saboteur_p2p.rules import Deck

# protocol_helpers.snapshots() plays its honest game once per worker: keep its users on one
pytestmark = pytest.mark.xdist_group("protocol-snapshots")


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


def check_later(game: LocalGame, seat: int, input_point: bool = False) -> ProtocolViolation | None:
    """Let ``seat`` (alone) make and send its own shuffle, which it owes next, then check the
    one before it (node.py, deferred_checks), and return what that raised.  With a point
    outside the group in its input (``input_point``), making its own may check it first."""
    node = game.nodes[seat]
    assert node.next_expected == Expect(seat, "shuffle", (0,)), node.next_expected
    try:
        assert node.produce() is not None  # our shuffle goes out first ...
        node.run_deferred_checks()  # ... then the one before it is checked
    except ProtocolViolation as violation:
        assert input_point or game.nodes[seat].log.entries[-1].sender == seat, "refused before its own shuffle"
        return violation
    return None


def assert_shuffle_blamed(game: LocalGame, verdicts: Verdicts, cheater: int, reason: str = "bad-shuffle-proof") -> None:
    """Everyone refuses a bad shuffle from seat 1: at once, or (seat 2) after its own shuffle."""
    assert cheater == 1
    assert_blamed(game, verdicts, 1, reason, by=[0, None])
    assert verdicts[2] is None and game.nodes[2].deferred_checks
    late = check_later(game, 2, input_point=reason == "bad-message")
    assert late is not None and (late.peer, late.reason) == (1, reason)
    assert game.nodes[2].aborted is late


# == 1. decryption shares ===============================================================
#
# The public-share tampers change the body's first public share (the need it is of is found
# by its card among those the record owes): at "public-shares" a share of a card shown to
# all, at "dealt-shares" a share of a card's first reveal to one seat.


def _need_of(game: LocalGame, share: list[Any]) -> RevealNeed:
    """The reveal a public share in the record expected next is of."""
    batch, deck, pos = share[0]
    card = (batch, Deck(deck), pos)
    return next(n for n in expected(game).topic if n.card == card)


def _next_card(need: RevealNeed, audience: frozenset[int] | None) -> RevealNeed:
    return RevealNeed((need.card[0], need.card[1], need.card[2] + 1), audience)


def _public_share_proven_with_another_key(game: LocalGame, body: dict[str, Any]) -> None:
    cheater = game.nodes[1]
    need = _need_of(game, body["public"][0])
    c1, _ = cheater.dealer.ciphertext(need.card)
    x = random_scalar(seeded_bytes(2))
    share = mul(x, c1)
    A, B, s = prove_dleq(x, base_mul(x), c1, share, share_context(cheater.setup.game_id, need, 1, None), seeded_bytes(3))
    body["public"][0][1:] = [share, A, B, s]


def _true_share_proven_for(game: LocalGame, body: dict[str, Any], other: RevealNeed, seed: int) -> None:
    """The first public share, true, with a true proof made for the context of ``other``."""
    cheater = game.nodes[1]
    need = _need_of(game, body["public"][0])
    c1, _ = cheater.dealer.ciphertext(need.card)
    assert cheater.secret is not None
    ctx = share_context(cheater.setup.game_id, other, 1, None)
    body["public"][0][2:] = prove_dleq(cheater.secret, cheater.keys[1], c1, body["public"][0][1], ctx, seeded_bytes(seed))


def _public_share_with_the_proof_for_another_card(game: LocalGame, body: dict[str, Any]) -> None:
    need = _need_of(game, body["public"][0])
    _true_share_proven_for(game, body, _next_card(need, need.audience), 4)


def _public_share_with_the_proof_for_another_recipient(game: LocalGame, body: dict[str, Any]) -> None:
    # the same share, proven for the card's reveal to the other honest seat
    need = _need_of(game, body["public"][0])
    assert need.audience is not None and len(need.audience) == 1
    _true_share_proven_for(game, body, RevealNeed(need.card, frozenset({0, 2} - need.audience)), 19)


def _public_share_with_the_proof_for_all(game: LocalGame, body: dict[str, Any]) -> None:
    # the same share, proven for the card's reveal to all (the share is the same point)
    need = _need_of(game, body["public"][0])
    assert need.audience is not None
    _true_share_proven_for(game, body, RevealNeed(need.card, None), 20)


def _public_share_with_the_proof_for_its_first_reveal(game: LocalGame, body: dict[str, Any]) -> None:
    # a share of a card shown to all, proven for the card's reveal to its holder (the same point)
    need = _need_of(game, body["public"][0])
    assert need.audience is None
    holder = game.spectator.dealer.holding.get(need.card)
    _true_share_proven_for(game, body, RevealNeed(need.card, frozenset({0}) if holder is None else holder.audience), 21)


def _public_share_for_another_card(game: LocalGame, body: dict[str, Any]) -> None:
    # a true decryption share, with a true proof, of the card next to the one asked for
    cheater = game.nodes[1]
    need = _need_of(game, body["public"][0])
    other = _next_card(need, need.audience)
    c1, _ = cheater.dealer.ciphertext(other.card)
    assert cheater.secret is not None
    share = mul(cheater.secret, c1)
    context = share_context(cheater.setup.game_id, other, 1, None)
    proof = prove_dleq(cheater.secret, cheater.keys[1], c1, share, context, seeded_bytes(17))
    body["public"][0][1:] = [share, *proof]


@pytest.mark.parametrize("tamper", [
    public_share_of_another_point,
    _public_share_proven_with_another_key,
    _public_share_with_the_proof_for_another_card,
    _public_share_with_the_proof_for_its_first_reveal,
    _public_share_for_another_card,
], ids=lambda f: f.__name__.strip("_"))
def test_a_bad_public_decryption_share_is_blamed_on_its_sender_by_everyone(tamper):
    game = game_at("public-shares")
    assert _need_of(game, honest_body(game.nodes[1])["public"][0]).audience is None  # a card shown to all
    game, verdicts = cheat_once("public-shares", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-share")


#: bad public shares of a card's first reveal to one seat: a wrong point, or a proof for
#: another card, another recipient, the reveal to all, or by another key
FIRST_REVEAL_TAMPERS = [
    public_share_of_another_point,
    _public_share_proven_with_another_key,
    _public_share_with_the_proof_for_another_card,
    _public_share_with_the_proof_for_another_recipient,
    _public_share_with_the_proof_for_all,
    _public_share_for_another_card,
]
#: those that leave the share itself true (its recipient still decrypts its card with it)
FIRST_REVEAL_PROOF_TAMPERS = [
    _public_share_with_the_proof_for_another_card,
    _public_share_with_the_proof_for_another_recipient,
    _public_share_with_the_proof_for_all,
]


def _first_reveal_cheat(tamper: Callable[[LocalGame, dict[str, Any]], None]) -> tuple[LocalGame, RevealNeed, bytes, Verdicts]:
    """At the deal, seat 1 sends its shares with the first (of seat 0's role card) changed by
    ``tamper``; every other node hears it: (game, that share's reveal, the record, verdicts)."""
    game = game_at("dealt-shares")
    body = honest_body(game.nodes[1])
    need = _need_of(game, body["public"][0])
    assert need.audience == frozenset({0}) and game.spectator.dealer.reveals[need].public  # a first reveal, to seat 0
    tamper(game, body)
    record = signed_record(game, 1, "shares", body)
    return game, need, record, hear(game, record, 1)


@pytest.mark.parametrize("tamper", FIRST_REVEAL_TAMPERS, ids=lambda f: f.__name__.strip("_"))
def test_a_bad_public_share_of_a_first_reveal_is_blamed_at_once_by_its_recipient_and_the_spectator_only(tamper):
    game, need, _record, verdicts = _first_reveal_cheat(tamper)
    assert_blamed(game, verdicts, 1, "bad-share", by=[0, None])
    # seat 2 cannot tell yet: it keeps the share to check when the card is shown to all
    assert verdicts[2] is None and game.nodes[2].aborted is None
    assert (need.card, 1) in game.nodes[2].share_book.unchecked


@pytest.mark.parametrize("tamper", FIRST_REVEAL_TAMPERS, ids=lambda f: f.__name__.strip("_"))
def test_a_seat_named_by_the_recipient_of_a_bad_public_share_is_found_guilty_by_a_recheck(tamper):
    """Seat 0 aborts naming seat 1; seat 2, which took the record in unchecked, rechecks the
    record its abort points at and finds the same violation."""
    game, _need, record, verdicts = _first_reveal_cheat(tamper)
    accusation = verdicts[0]
    assert accusation is not None and verdicts[2] is None
    found = game.nodes[2].recheck_sealed_shares(record)
    assert found is not None and (found.peer, found.reason) == (accusation.peer, accusation.reason) == (1, "bad-share")


def test_a_recheck_of_an_honest_record_of_public_shares_finds_nothing():
    game = game_at("dealt-shares")
    record = game.nodes[1].produce()
    assert record is not None
    assert set(hear(game, record, 1).values()) == {None}
    assert game.nodes[2].share_book.unchecked  # the shares of the reveals to seat 0, kept unchecked
    assert game.nodes[2].recheck_sealed_shares(record) is None


def _play_on_without_the_spectator(game: LocalGame, limit: int = 300) -> tuple[Expect, Verdicts]:
    """Play honestly (``path_first``) among the seats alone until a seat refuses a record:
    what was expected, and each other seat's verdict, the checks it leaves for the background
    included (it finishes them before it speaks)."""
    for _ in range(limit):
        head = game.nodes[2].next_expected
        assert head is not None, "the game ended and nobody refused anything"
        node = game.nodes[head.speaker]
        record = node.move(path_first(head.speaker, node)) if node.awaiting_move() else node.produce()
        assert record is not None
        verdicts = hear(game, record, head.speaker, None)
        for seat, verdict in verdicts.items():
            if verdict is None and seat is not None:
                try:
                    game.nodes[seat].finish_checks()
                except ProtocolViolation as violation:
                    verdicts[seat] = violation
        if any(v is not None for v in verdicts.values()):
            return head, verdicts
    raise AssertionError(f"no record refused in {limit} records")


@pytest.mark.parametrize("tamper", FIRST_REVEAL_PROOF_TAMPERS, ids=lambda f: f.__name__.strip("_"))
def test_a_bad_public_share_of_a_first_reveal_is_blamed_on_its_sender_when_the_card_is_shown_to_all(tamper):
    """Seat 1 publishes a true share of the first card seat 0 plays with a false proof, and
    seat 0 lets it pass (it colludes, say); nobody else hears the record checked.  When seat
    0's move shows the card to all, seat 1's published share counts towards it: seat 2 checks
    it then, and names seat 1."""
    game = game_at("dealt-shares")
    shown = (0, Deck.DRAW, 3)
    assert path_first(0, game_at("move").nodes[0]) == "path 3 at 0,-1"  # seat 0's first move shows it
    cheater, colluder = game.nodes[1], game.nodes[0]
    honest = cheater._make_shares

    def make_shares(head: Expect) -> dict[str, Any]:
        cheater._make_shares = honest  # type: ignore[method-assign]  # once
        body = honest(head)
        at = next(i for i, share in enumerate(body["public"]) if _need_of(game, share).card == shown)
        shares = body["public"]
        shares[0], shares[at] = shares[at], shares[0]
        tamper(game, body)
        shares[0], shares[at] = shares[at], shares[0]
        return body

    cheater._make_shares = make_shares  # type: ignore[method-assign]
    colluder.share_book._proven = lambda sender, need, share, point: True  # type: ignore[method-assign]
    head, verdicts = _play_on_without_the_spectator(game)
    assert head == Expect(0, "action")
    assert (shown, 1) not in game.nodes[2].share_book.unchecked  # checked now (in the background)
    late = verdicts[2]
    assert late is not None and (late.peer, late.reason) == (1, "bad-share") and game.nodes[2].aborted is late
    assert verdicts[1] is None


def _sealed_share_of_another_key(game: LocalGame, body: dict[str, Any]) -> None:
    cheater = game.nodes[1]
    card = tuple(body["sealed"][0][0])
    recipient = body["sealed"][0][2]
    need = RevealNeed((card[0], Deck(card[1]), card[2]), frozenset(body["sealed"][0][1]))
    c1, _ = cheater.dealer.ciphertext(need.card)
    x = random_scalar(seeded_bytes(5))
    ctx = share_context(cheater.setup.game_id, need, 1, recipient)
    E1, E2, proof = seal_share(x, base_mul(x), c1, cheater.keys[recipient], ctx, seeded_bytes(6))
    body["sealed"][0][3:8] = [E1, E2, *proof]


def _sealed_share_with_the_proofs_for_another_card(game: LocalGame, body: dict[str, Any]) -> None:
    # the true share, sealed, with the proofs of the sender's share of the next card sealed to
    # the same seat (the record holds no other sealed share to take the proofs of)
    cheater = game.nodes[1]
    batch, deck, pos = body["sealed"][0][0]
    audience, recipient = body["sealed"][0][1:3]
    other = RevealNeed((batch, Deck(deck), pos + 1), frozenset(audience))
    c1, _ = cheater.dealer.ciphertext(other.card)
    assert cheater.secret is not None
    ctx = share_context(cheater.setup.game_id, other, 1, recipient)
    _E1, _E2, proof = seal_share(cheater.secret, cheater.keys[1], c1, cheater.keys[recipient], ctx, seeded_bytes(22))
    body["sealed"][0][5:] = list(proof)


@pytest.mark.parametrize("tamper", [
    sealed_share_shifted, _sealed_share_of_another_key, _sealed_share_with_the_proofs_for_another_card,
], ids=lambda f: f.__name__.strip("_"))
def test_a_bad_sealed_share_is_blamed_on_its_sender_by_its_recipient_and_the_spectator(tamper):
    """Seat 1's move carries its share of goal 0, which seat 0 maps after two seats have:
    the card's third reveal, owed sealed."""
    game = game_at("sealed-move")
    sealed = honest_body(game.nodes[1])["shares"]["sealed"]
    assert [s[2] for s in sealed] == [0]  # one sealed share, to seat 0
    game, verdicts = cheat_once("sealed-move", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-share", by=[0, None])
    assert verdicts[2] is None  # a seat checks only the sealed shares meant for it


@pytest.mark.parametrize("audience, ok", [([1, 2], True), ([2, 1], False), ([1, 1], False), ([1, 2, 2], False)])
def test_an_audience_decodes_only_listed_once_each_in_ascending_order(audience, ok):
    body = {"public": [], "sealed": [[[0, Deck.GOALS.value, 0], audience, 1, *[bytes(32)] * 5]]}
    if ok:
        assert Shares.decode(body).sealed[0].audience == tuple(audience)
    else:
        with pytest.raises(MalformedMessage, match="once each, in ascending order"):
            Shares.decode(body)


def test_a_sealed_share_whose_audience_lists_a_seat_twice_is_blamed_on_its_sender():
    """An audience is listed once each, ascending: the signed body says it one way only, so
    every log of the game holds it so (the same set used to be taken in any form)."""
    def relist(game, body):
        body["sealed"][0][1] = body["sealed"][0][1] * 2

    game, verdicts = cheat_once("sealed-move", 1, relist)
    assert_blamed(game, verdicts, 1, "bad-message")


@pytest.mark.parametrize("point,where", [
    ("sealed-move", "sealed"), ("dealt-shares", "public"), ("public-shares", "public"),
])
def test_shares_other_than_those_owed_are_blamed_on_the_sender(point, where):
    def drop_one(game, body):
        assert body[where]
        body[where].pop()

    game, verdicts = cheat_once(point, 1, drop_one)
    assert_blamed(game, verdicts, 1, "wrong-shares")


# == 2. and 3. shuffles and their proofs ====================================================


def _goals(body: dict[str, Any]) -> list[list[bytes]]:
    return next(cards for deck, cards, _proof in body["decks"] if deck == Deck.GOALS.value)


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


def _reencrypted(game: LocalGame, cards: list[list[bytes]]) -> None:
    # the same card, re-encrypted once more by a scalar the proof knows nothing of
    cards[1] = list(reencrypt((cards[1][0], cards[1][1]), random_scalar(seeded_bytes(11)), game.nodes[1].dealer.joint))


def _swapped(game: LocalGame, cards: list[list[bytes]]) -> None:
    cards[0], cards[1] = cards[1], cards[0]


@pytest.mark.parametrize("change", [_duplicate, _replace_with_a_fresh_copy, _replace_with_no_card, _reencrypted, _swapped],
                         ids=lambda f: f.__name__.strip("_"))
def test_a_shuffle_that_changes_the_cards_is_caught_by_its_proof(change):
    """The shuffler proves an honest shuffle, then sends a changed output deck: the proof
    no longer holds for it, and every seat refuses the record (the next shuffler after its
    own shuffle)."""
    game, head, verdicts = play_with_a_changed_shuffle(lambda game, body: change(game, _goals(body)))
    assert head == Expect(1, "shuffle", (0,))
    assert_shuffle_blamed(game, verdicts, 1)


def test_a_shuffle_that_drops_a_card_is_refused_at_once():
    def drop(game, body):
        _goals(body).pop()

    game, verdicts = cheat_once("shuffle", 1, drop)
    assert_blamed(game, verdicts, 1, "bad-message")


def test_a_shuffle_of_the_wrong_decks_is_refused():
    def wrong_decks(game, body):
        body["decks"].reverse()

    game, verdicts = cheat_once("shuffle", 1, wrong_decks)
    assert_blamed(game, verdicts, 1, "bad-shuffle")


@pytest.mark.parametrize("tamper", FALSE_PROOFS, ids=lambda f: f.__name__)
def test_a_tampered_shuffle_proof_is_blamed_on_the_shuffler(tamper):
    game, head, verdicts = play_with_a_changed_shuffle(tamper)
    assert head == Expect(1, "shuffle", (0,))
    assert_shuffle_blamed(game, verdicts, 1)


def test_a_proof_for_another_shuffle_is_blamed_on_the_shuffler():
    """The last shuffler sends the proof the one before it made, with its own output decks:
    each proof is bound to its shuffler and its decks."""
    game = game_at("last-shuffle")
    body = honest_body(game.nodes[2])
    earlier = next(e.body for e in map(decode_record, game.records) if e.kind == "shuffle" and e.sender == 1)
    for mine, theirs in zip(body["decks"], earlier["decks"], strict=True):
        mine[2] = theirs[2]
    verdicts = hear(game, signed_record(game, 2, "shuffle", body), 2)
    assert_blamed(game, verdicts, 2, "bad-shuffle-proof")


def test_a_malformed_shuffle_proof_is_refused_at_once():
    game, verdicts = cheat_once("shuffle", 1, a_proof_entry_missing)
    assert_blamed(game, verdicts, 1, "bad-message")


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
def test_an_invalid_point_as_a_public_share_of_a_first_reveal_is_malformed_for_all_who_check_it(bad):
    """Its point is checked with its proof (k·D): at once by its recipient and the spectator;
    seat 2 keeps it unchecked, and a recheck (the recipient's abort names seat 1) agrees."""
    game, need, record, verdicts = _first_reveal_cheat(lambda game, body: body["public"][0].__setitem__(1, BAD_POINTS[bad]))
    assert_blamed(game, verdicts, 1, "bad-message", by=[0, None])
    assert verdicts[2] is None and (need.card, 1) in game.nodes[2].share_book.unchecked
    found = game.nodes[2].recheck_sealed_shares(record)
    assert found is not None and (found.peer, found.reason) == (1, "bad-message")
    # worded alike by the seat that checked it when it came and the one that held it (an
    # attack: "decryption share for (0, <Deck.ROLES: 'roles'>, 0): decryption share: ...")
    assert found.detail == verdicts[0].detail and "Deck." not in found.detail, (found.detail, verdicts[0].detail)
    assert found.detail.startswith(f"decryption share for {need.card}: ") and found.detail.count("decryption share") == 1


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
@pytest.mark.parametrize("where", [3, 4], ids=["E1", "E2"])
def test_an_invalid_point_in_a_sealed_share_is_refused_by_its_recipient_and_the_spectator(bad, where):
    def tamper(game, shares):
        assert shares["sealed"][0][2] == 0  # sealed to seat 0
        shares["sealed"][0][where] = BAD_POINTS[bad]

    game, verdicts = cheat_once("sealed-move", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-message", by=[0, None])


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
@pytest.mark.parametrize("where", [0, 1], ids=["C1", "C2"])
def test_an_invalid_point_as_a_card_in_a_shuffled_deck_is_refused(bad, where):
    def tamper(game, body):
        _goals(body)[1][where] = BAD_POINTS[bad]

    game, verdicts = cheat_once("shuffle", 1, tamper)
    assert_shuffle_blamed(game, verdicts, 1, "bad-message")  # not a false proof: a malformed record


@pytest.mark.parametrize("bad", BAD_POINTS, ids=str)
@pytest.mark.parametrize("where", ["commitments", "chain"])
def test_an_invalid_point_in_a_shuffle_proof_is_refused(bad, where):
    def tamper(game: LocalGame, body: dict[str, Any]) -> None:
        body["decks"][0][2][where][0] = BAD_POINTS[bad]

    game, verdicts = cheat_once("shuffle", 1, tamper)
    assert_shuffle_blamed(game, verdicts, 1, "bad-message")


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


@pytest.mark.parametrize("tamper", [
    _copied_with_its_proof, _rogue_key, _proof_for_another_prover, random_proof, unreduced_proof,
], ids=lambda f: f.__name__.strip("_"))
def test_a_key_share_without_a_valid_proof_of_knowledge_is_refused(tamper):
    game, verdicts = cheat_once("key", 1, tamper)
    assert_blamed(game, verdicts, 1, "bad-key-proof")
