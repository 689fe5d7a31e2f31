"""Decryption shares and their proofs (protocol.md §6.8, §7.2, §7.3, §7.3.1).

A card's first reveal to one seat is owed by the other seats' public shares: its recipient
checks them when they come, every other seat when the card is shown to all (or when the
recipient names their sender).  A later reveal is owed by sealed shares: a seat checks only
the sealed shares sent to it when they come; when the card is shown to all, its holder opens
the shares sealed to it, each with its proof of the opening, and every seat checks those and
the sealed shares they open.  Nothing in a sealed share lets anyone but its recipient test a
guess of the share it hides (protocol 5's proof for the share itself did: see the last test).
"""
from __future__ import annotations

import functools
import inspect
import itertools

import pytest
from protocol_helpers import (
    copy_game,
    game_at,
    hear,
    owes_sealed,
    path_first,
    play_until,
    seeded_bytes,
    seeded_game,
    signed_record,
)

from saboteur_p2p.crypto.group import base_mul, scalar_from_int, sub
from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.crypto.proofs import verify_dleq
from saboteur_p2p.protocol import shares
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.local import LocalGame, play_local_game
from saboteur_p2p.protocol.messages import ActionMsg, MalformedMessage, PublicShare, Shares
from saboteur_p2p.protocol.node import Expect, Node, ProtocolViolation
from saboteur_p2p.protocol.shares import ShareBook
from saboteur_p2p.rules import Deck, GameConfig
from saboteur_p2p.rules.actions import PlayOn
from saboteur_p2p.rules.cards import ActionKind


def test_a_seat_checks_the_sealed_shares_meant_for_another_only_when_they_are_opened(monkeypatch):
    """A seat checks the sealed shares sealed to it when they come; one sealed to another seat
    only when that seat shows the card to all and opens it (§6.8).  A spectator checks them
    all when they come.  (Sealed shares are a card's later reveals: random bots map goals
    another seat mapped before.)"""
    readers: list[tuple[int | None, int, str]] = []
    verified = ShareBook.verified_sealed_share

    def spy(book, sender, need, sealed):
        readers.append((book.seat, sealed.recipient, inspect.stack()[1].function))
        return verified(book, sender, need, sealed)

    monkeypatch.setattr(ShareBook, "verified_sealed_share", spy)
    game = play_local_game(GameConfig(4, rounds=1), ["random"] * 4, seed=2, rand=seeded_bytes(2))
    assert game.spectator.finished and all(node.state.scores == game.spectator.state.scores for node in game.nodes)
    by_seats = [(reader, recipient, caller) for reader, recipient, caller in readers if reader is not None]
    assert any(reader == recipient for reader, recipient, _ in by_seats)
    assert all(reader == recipient or caller == "_checked_opened_share" for reader, recipient, caller in by_seats)
    assert any(reader is None for reader, _, _ in readers)  # the spectator's


def swap_hand_first(seat: int, node: Node) -> str:
    """Saboteur 2: play Swap your hand when this seat can, else as ``path_first``."""
    assert node.state is not None
    swap = next((a for a in node.state.legal_actions() if isinstance(a, PlayOn) and a.kind is ActionKind.SWAP_HAND), None)
    return str(swap) if swap is not None else path_first(seat, node)


@functools.cache
def _after_a_swap() -> LocalGame:
    game = seeded_game(GameConfig(3, "saboteur2", rounds=1), 0)
    play_until(game, lambda e: e.kind == "shares" and owes_sealed(game.spectator, e.speaker), swap_hand_first)
    return game


#: the seats of ``share_round_after_a_swap``: seat 0 moves next, playing a card of the hand
#: seat 2 swapped it; seat 2 seals its shares of that hand to seat 0; seat 1 is a bystander
MOVER, SEALER, BYSTANDER = 0, 2, 1


def share_round_after_a_swap() -> LocalGame:
    """A 3-seat Saboteur 2 game at the share round (a group of all three seats) after seat 2
    played Swap your hand on seat 0.  The hand seat 0 gets was first shown to seat 2 by the
    others' public shares; now it is shown to seat 0 again, by shares that seats 1 and 2 seal
    to it (a later reveal).  Seat 0 then moves, playing one of those cards: it opens seat 2's
    sealed share (seat 1's share of the card counts from the one it published)."""
    game = copy_game(_after_a_swap(), 0)
    assert {e.speaker for e in game.spectator.outstanding} == {0, 1, 2}
    assert any(n.audience == frozenset({MOVER}) for n in game.nodes[SEALER].dealer.owed_by(SEALER))
    return game


def _sealer_body(game: LocalGame) -> dict:
    expect = next(e for e in game.nodes[SEALER].outstanding if e.speaker == SEALER)
    return game.nodes[SEALER]._make_shares(expect)


def test_an_opening_that_does_not_verify_is_blamed_on_the_opener():
    """The holder shows the card with a share it says it opened, but not the one sealed to it
    (another point): its opening proof does not hold for it, so every other seat and the
    spectator name the holder, not the seat that sealed the share."""
    game = share_round_after_a_swap()
    for seat in (0, 1, 2):
        assert set(hear(game, game.nodes[seat].produce(), seat).values()) == {None}
    node = game.nodes[MOVER]
    move = decode_record(node.move(path_first(MOVER, node)))
    wrong = [[*o[:2], base_mul(scalar_from_int(7)), *o[3:]] if o[1] == SEALER else o for o in move.body["shares"]["opened"]]
    body = {**move.body, "shares": {**move.body["shares"], "opened": wrong}}
    record = signed_record(game, MOVER, "action", body, seq=move.seq, prev=move.prev)  # in place of the honest one
    verdicts = hear(game, record, MOVER)
    for judge in (SEALER, BYSTANDER, None):
        assert verdicts[judge] is not None, judge
        assert (verdicts[judge].peer, verdicts[judge].reason) == (MOVER, "bad-share"), verdicts[judge]


def test_a_false_opening_of_a_right_share_is_blamed_on_the_opener_by_the_ower_too():
    """Found by a review of protocol 6: the seat whose share is opened compared it with its own
    and checked nothing more, so with the right share and a false opening proof it took the
    move that every other seat refused naming the opener, then judged their accusation false."""
    game = share_round_after_a_swap()
    for seat in (0, 1, 2):
        assert set(hear(game, game.nodes[seat].produce(), seat).values()) == {None}
    node = game.nodes[MOVER]
    move = decode_record(node.move(path_first(MOVER, node)))
    false = [[*o[:5], scalar_from_int(5)] if o[1] == SEALER else o for o in move.body["shares"]["opened"]]
    body = {**move.body, "shares": {**move.body["shares"], "opened": false}}
    verdicts = hear(game, signed_record(game, MOVER, "action", body, seq=move.seq, prev=move.prev), MOVER)
    for judge in (SEALER, BYSTANDER, None):
        assert verdicts[judge] is not None and (verdicts[judge].peer, verdicts[judge].reason) == (MOVER, "bad-share"), judge


def test_nothing_in_a_sealed_share_lets_an_outsider_test_a_guess_of_its_share():
    """Regression (protocol 5): a sealed share carried the sealer's proof for the share it
    hid.  For a card first shown to the sealer, every other share was public, so anyone could
    compute the share each face would need and find the one the proof held for: the card
    (a goal mapped twice, a hand after a swap, a dwarf inspected) was open to all.  Here the
    swapped hand's shares sealed to the mover: for every face of the deck, no pair of scalars
    in the sealed share verifies as a proof for the share that face would need."""
    game = share_round_after_a_swap()
    body = _sealer_body(game)
    spectator = game.spectator
    checked = 0
    for entry in body["sealed"]:
        card = (entry[0][0], Deck(entry[0][1]), entry[0][2])
        need = RevealNeed(card, frozenset(entry[1]))
        published = spectator.dealer.published.get(card, {})
        if set(published) != set(range(3)) - {SEALER}:
            continue  # another share unknown to outsiders: nothing to test anyway
        c1, c2 = spectator.dealer.ciphertext(card)
        rest = c2
        for point in published.values():
            rest = sub(rest, point)
        scalars = [v for v in entry[5:] if isinstance(v, bytes)]
        faces = spectator.dealer.batches[card[0]].faces[card[1]]
        context = shares.share_context(game.setup.game_id, need, SEALER, entry[2])
        for point in faces:
            guess = sub(rest, point)  # the sealer's share, if the card were this face
            for e, s_ in itertools.permutations(scalars, 2):
                assert not verify_dleq(game.nodes[SEALER].keys[SEALER], c1, guess, (e, s_), context)
        checked += 1
    assert checked and all(len(entry) == 8 for entry in body["sealed"])


def test_a_card_shown_opens_the_shares_sealed_to_its_holder_each_with_its_opening_proof():
    """Only the share sealed to the holder by a seat that never published one is opened
    (seat 1 published its share of the card for its first reveal, to seat 2)."""
    game = share_round_after_a_swap()
    for seat in (0, 1, 2):
        assert set(hear(game, game.nodes[seat].produce(), seat).values()) == {None}
    node = game.nodes[MOVER]
    record = node.move(path_first(MOVER, node))
    shown = decode_record(record).body["shares"]
    opened = shown["opened"]
    assert [o[1] for o in opened] == [SEALER] and all(len(o) == 6 for o in opened)  # [card, ower, D, A, B, s]
    card = (opened[0][0][0], Deck(opened[0][0][1]), opened[0][0][2])
    assert [p[0] for p in shown["public"]] == [opened[0][0]]  # the mover's own share of it
    assert BYSTANDER in game.spectator.dealer.published[card] and SEALER not in game.spectator.dealer.published[card]
    assert set(hear(game, record, MOVER).values()) == {None}
    assert card in game.spectator.dealer.public_faces
    assert game.spectator.next_expected.kind == "action"  # open with the move: no share round


def test_a_sealed_share_whose_own_proof_fails_is_named_by_its_recipient():
    """Seat 2 seals its true share to seat 0 with a sealed-share proof that does not verify:
    seat 0 names seat 2 at once, as the spectator does, and the seat that does not check shares
    meant for others can check the accusation from the record.  (Found by a review: the
    recipient once skipped that proof when protocol 5's proof for the share held, so the table
    played on with a log that ``verify`` refuses.)"""
    game = share_round_after_a_swap()
    own = {seat: game.nodes[seat].produce() for seat in (MOVER, BYSTANDER)}
    body = _sealer_body(game)
    body["sealed"] = [[*s[:6], s[7], s[6], *s[8:]] if s[2] == MOVER else s for s in body["sealed"]]
    bad = signed_record(game, SEALER, "shares", body)
    for seat, record in own.items():
        assert set(hear(game, record, seat).values()) == {None}
    verdicts = hear(game, bad, SEALER)
    for judge in (MOVER, None):
        assert (verdicts[judge].peer, verdicts[judge].reason) == (SEALER, "bad-share"), verdicts[judge]
    assert verdicts[BYSTANDER] is None  # it checks only the sealed shares meant for it ...
    rechecked = game.nodes[BYSTANDER].recheck_sealed_shares(bad)  # ... and the accusation, when it comes
    assert rechecked is not None and (rechecked.peer, rechecked.reason) == (SEALER, "bad-share")


def test_a_bad_public_share_meant_for_another_is_named_by_every_seat_when_the_card_is_shown(monkeypatch):
    """At the deal, seat 1 publishes its share of a card dealt to seat 0 (the card seat 0
    plays first) with a false proof.  The spectator names seat 1 at once; seat 0, the only
    seat that checks it then, colludes; seat 2 keeps it unchecked, also while it waits
    (``Node.prepare``).  When seat 0 plays the card, its own share and the ones published for
    it open it: seat 2 checks seat 1's share then and names it."""
    game = game_at("dealt-shares")
    cheater, recipient, bystander = 1, 0, 2
    probe = copy_game(game, 0)  # the card seat 0 plays first
    play_until(probe, lambda e: e.kind == "action")
    assert probe.spectator.next_expected.speaker == recipient
    first = probe.nodes[recipient]._shares_with_move(path_first(recipient, probe.nodes[recipient]))
    assert first is not None and not first.opened
    (card,) = [p.card for p in first.public]
    need = RevealNeed(card, frozenset({recipient}))
    assert game.spectator.dealer.reveals[need].public

    sender = game.nodes[cheater]
    honest = sender._shares_for

    def false_proof(needs):
        made = honest(needs)
        bent = tuple(PublicShare(p.card, p.share, p.proof[::-1]) if p.card == card else p for p in made.public)
        return Shares(bent, made.sealed, made.opened)

    sender._shares_for = false_proof  # type: ignore[method-assign]
    record = sender.produce()
    assert record is not None
    # the colluding recipient takes the share as if its proof held
    book = game.nodes[recipient].share_book
    monkeypatch.setattr(book, "_proven", lambda sender, need, share, point: True)
    verdicts = hear(game, record, cheater)
    assert verdicts[recipient] is None and verdicts[bystander] is None
    assert verdicts[None] is not None and (verdicts[None].peer, verdicts[None].reason) == (cheater, "bad-share")
    assert game.nodes[bystander].share_book.unchecked[(card, cheater)][0] == need
    seats = game.nodes
    while (head := seats[bystander].next_expected) is not None and head.kind != "action":  # the deal goes on
        made = seats[head.speaker].produce()
        assert made is not None
        for seat, node in enumerate(seats):
            if seat != head.speaker:
                node.receive(made)
    assert head == Expect(recipient, "action")
    while seats[bystander].prepare():
        pass
    assert (card, cheater) in seats[bystander].share_book.unchecked and seats[bystander].aborted is None
    move = seats[recipient].move(path_first(recipient, seats[recipient]))
    shown = ActionMsg.decode(decode_record(move).body).shares
    assert shown is not None and [p.card for p in shown.public] == [card] and not shown.opened
    seats[bystander].receive(move)  # taken in; the share is checked in the background (§8.3) ...
    assert seats[bystander].make_ahead() == {}  # ... and no share goes out before that check
    for seat in (cheater, bystander):
        try:
            if seat == cheater:
                seats[seat].receive(move)
            seats[seat].finish_checks()  # done before the seat speaks
        except ProtocolViolation as violation:
            verdicts[seat] = violation
        else:
            verdicts[seat] = None
    assert verdicts[cheater] is None  # its own share: it does not check it
    named = verdicts[bystander]
    assert named is not None and (named.peer, named.reason) == (cheater, "bad-share"), named
    assert seats[bystander].aborted is named


def test_a_shares_body_has_one_encoding_an_empty_opened_list_is_malformed() -> None:
    """`opened` is left out when empty; a body that sends it empty is refused (one message,
    one encoding: every peer reads the same bytes the same way)."""
    assert Shares.decode({"public": [], "sealed": []}) == Shares((), (), ())
    assert "opened" not in Shares((), (), ()).encode()
    with pytest.raises(MalformedMessage, match="never an empty list"):
        Shares.decode({"public": [], "sealed": [], "opened": []})


def test_a_false_sealed_share_found_at_its_opening_is_judged_as_its_record_was():
    """Seat 2's shares record seals its share of a card to seat 0 with a proof that fails, and
    holds a public share whose point is outside the group.  Seat 0, the only seat that checks
    either when they come, colludes (it takes an honest twin of the record).  The spectator
    checks the record when it comes: a point outside the group makes it malformed
    (bad-message, §6.8).  Seat 1 checks the sealed share when seat 0 shows the card and opens
    it: it must judge the record alike, not bad-share (found by a review: the opening checked
    the sealed share alone, so ``verify`` and the table named the same seat for different
    faults)."""
    game = share_round_after_a_swap()
    for seat in (MOVER, BYSTANDER):
        assert set(hear(game, game.nodes[seat].produce(), seat).values()) == {None}
    honest = _sealer_body(game)
    body = {**honest, "sealed": [[*s[:6], s[7], s[6], *s[8:]] if s[2] == MOVER else s for s in honest["sealed"]],
            "public": [[p[0], bytes(31) + b"\x80", *p[2:]] for p in honest["public"]]}  # not a point of the group
    game.nodes[MOVER].receive(signed_record(game, SEALER, "shares", honest))
    verdicts = hear(game, signed_record(game, SEALER, "shares", body), SEALER, MOVER)
    assert verdicts[BYSTANDER] is None  # it checks neither share when it comes
    assert (verdicts[None].peer, verdicts[None].reason) == (SEALER, "bad-message"), verdicts[None]
    node = game.nodes[MOVER]
    move = decode_record(node.move(path_first(MOVER, node)))
    assert [o[1] for o in move.body["shares"]["opened"]] == [SEALER]  # seat 2's sealed share, opened
    shown = signed_record(game, MOVER, "action", move.body, seq=move.seq, prev=game.nodes[BYSTANDER].log.head)
    with pytest.raises(ProtocolViolation) as found:
        game.nodes[BYSTANDER].receive(shown)
    assert (found.value.peer, found.value.reason) == (SEALER, "bad-message"), found.value


@pytest.mark.parametrize("fault", ["proof", "point"])
def test_a_move_refused_once_its_card_shows_is_judged_first_by_the_shares_it_carried(fault):
    """Found by a review: seat 1's move carries its public share of the card seat 0 drew (a
    first reveal to seat 0) with a false proof or a point outside the group, and names a path
    card as a Map.  Its shares are taken where the move waits for the card's showing (§6.11):
    the spectator and seat 0 check that share then and name it; seat 2 kept it unchecked and
    found the move illegal once the card showed.  Every judge must name the record alike
    (§6.8): seat 2 checks the move's shares before it calls the move illegal."""
    game = game_at("move")
    play_until(game, lambda e: e.kind == "action" and e.speaker == 1)
    node = game.nodes[1]
    honest = path_first(1, node)
    handle = int(honest.split()[1])
    body = ActionMsg(honest, node._shares_with_move(honest)).encode()
    i = next(i for i, p in enumerate(body["shares"]["public"]) if p[0][2] != handle)  # the share of seat 0's draw
    card, point, A, B, s = body["shares"]["public"][i]
    body["shares"]["public"][i] = [card, point, B, A, s] if fault == "proof" else [card, bytes(31) + b"\x80", A, B, s]
    body["action"] = f"map 1 #{handle}"  # a path card played as a Map: false only once the card shows
    verdicts = hear(game, signed_record(game, 1, "action", body), 1)
    reason = "bad-share" if fault == "proof" else "bad-message"
    assert {judge: (v.peer, v.reason) for judge, v in verdicts.items()} == {0: (1, reason), 2: (1, reason), None: (1, reason)}


def test_a_false_sealed_copy_that_is_never_opened_is_named_at_the_showing():
    """Found by a review: after the swap, seat 1, whose share of the swapped hand was published
    for its first reveal (to seat 2), seals a copy to seat 0 anyway, with a false proof; seat 0
    colludes (it takes an honest twin).  The spectator names seat 1 when the record comes.
    When seat 0 plays that card, seat 1's published share counts and its sealed copy is not
    opened; seat 2 must still check it then and name seat 1, as §8.3 promises."""
    cheater, other = BYSTANDER, SEALER
    game = share_round_after_a_swap()
    for seat in (MOVER, other):
        assert set(hear(game, game.nodes[seat].produce(), seat).values()) == {None}
    expect = next(e for e in game.nodes[cheater].outstanding if e.speaker == cheater)
    honest = game.nodes[cheater]._make_shares(expect)
    body = {**honest, "sealed": [[*s[:5], s[6], s[5], s[7]] if s[2] == MOVER else s for s in honest["sealed"]]}
    game.nodes[MOVER].receive(signed_record(game, cheater, "shares", honest))
    verdicts = hear(game, signed_record(game, cheater, "shares", body), cheater, MOVER)
    assert verdicts[other] is None and (verdicts[None].peer, verdicts[None].reason) == (cheater, "bad-share")
    node = game.nodes[MOVER]
    move = decode_record(node.move(path_first(MOVER, node)))
    assert [o[1] for o in move.body["shares"]["opened"]] == [other]  # the cheater's copy is not opened
    shown = signed_record(game, MOVER, "action", move.body, seq=move.seq, prev=game.nodes[other].log.head)
    with pytest.raises(ProtocolViolation) as found:
        game.nodes[other].receive(shown)
    assert (found.value.peer, found.value.reason) == (cheater, "bad-share"), found.value
