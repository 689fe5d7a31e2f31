"""A sealed share carries its sender's proof for the share it hides (protocol.md §7.3,
§7.3.1): a seat checks only the sealed shares sent to it, and a card shown to all is
checked by those proofs alone, unless one fails and blame must be found."""
from __future__ import annotations

import pytest
from protocol_helpers import hear, path_first, play_until, seeded_bytes, seeded_game, signed_record

from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.protocol import shares
from saboteur_p2p.protocol.local import play_local_game
from saboteur_p2p.protocol.node import ProtocolViolation
from saboteur_p2p.protocol.shares import ShareBook
from saboteur_p2p.rules import GameConfig


def test_a_seat_checks_only_the_sealed_shares_sent_to_it(monkeypatch):
    """A seat checks the sealed shares sealed to it (their own proof and their share proof);
    a shown card's opened shares are checked by their share proofs alone, so no seat checks
    a sealed share meant for another (§6.8).  A spectator checks them all."""
    readers: list[tuple[int | None, int]] = []
    verified = ShareBook.verified_sealed_share
    checked = shares.verify_sealed_share

    def spy(book, sender, need, sealed):
        readers.append((book.seat, sealed.recipient))
        return verified(book, sender, need, sealed)

    def count(*args):
        readers.append((-1, -1))
        return checked(*args)

    monkeypatch.setattr(ShareBook, "verified_sealed_share", spy)
    monkeypatch.setattr(shares, "verify_sealed_share", count)
    game = play_local_game(GameConfig(4, rounds=1), ["random"] * 4, seed=2, rand=seeded_bytes(2))
    assert game.spectator.finished and all(node.state.scores == game.spectator.state.scores for node in game.nodes)
    by_seats = [(reader, recipient) for reader, recipient in readers if reader is not None and reader >= 0]
    assert by_seats and all(reader == recipient for reader, recipient in by_seats)
    assert any(reader is None for reader, _ in readers)  # the spectator's
    assert readers.count((-1, -1)) == len(readers) // 2  # every proof checked was checked there


def _share_round_before_seat_1_moves():
    """A 3-seat game at its first share round, where seat 1 moves first."""
    for seed in range(1, 40):
        game = seeded_game(GameConfig(3, rounds=1), seed)
        play_until(game, lambda e: e.kind == "shares")
        if game.spectator.state.current == 1:
            return game
    raise AssertionError("no deal where seat 1 moves first")


def test_a_false_proof_for_a_sealed_share_is_blamed_on_its_sender_when_the_card_is_shown():
    """Seat 0 seals its shares to seat 1 correctly but signs a false proof for them.  Seat 1
    finds it when it opens them, but cannot show it before it shows the card (the proof is
    of a share only it sees); when it plays the card, every seat, seat 1 included, and the
    spectator name seat 0."""
    game = _share_round_before_seat_1_moves()
    sealer, mover, bystander = 0, 1, 2
    own = {seat: game.nodes[seat].produce() for seat in (1, 2)}
    expect = next(e for e in game.nodes[sealer].outstanding if e.speaker == sealer)
    body = game.nodes[sealer]._make_shares(expect)
    body["sealed"] = [[*s[:8], s[9], s[8]] if s[2] == mover else s for s in body["sealed"]]
    false = signed_record(game, sealer, "shares", body)
    for seat, record in own.items():
        assert set(hear(game, record, seat).values()) == {None}
    assert set(hear(game, false).values()) == {None}  # the sealed shares themselves are right

    node = game.nodes[mover]  # it opened the shares sealed to it, and checked their proofs
    assert (sealer, False) in {(ower, holds) for (_, ower), holds in node.share_book.proven.items()}
    assert all(holds for (_, ower), holds in node.share_book.proven.items() if ower == bystander)

    with pytest.raises(ProtocolViolation) as refused:
        node.move(path_first(mover, node))  # its own node finds what the others will
    assert (refused.value.peer, refused.value.reason) == (sealer, "bad-share")
    assert "is false" in refused.value.detail
    verdicts = hear(game, node.log.entries[-1].record, mover)
    for judge in (bystander, None):
        assert verdicts[judge] is not None, judge
        assert (verdicts[judge].peer, verdicts[judge].reason) == (sealer, "bad-share"), verdicts[judge]
        assert "is false" in verdicts[judge].detail


def test_a_card_shown_opens_its_shares_without_opening_proofs_when_their_share_proofs_hold():
    game = _share_round_before_seat_1_moves()
    for seat in (0, 1, 2):
        assert set(hear(game, game.nodes[seat].produce(), seat).values()) == {None}
    node = game.nodes[1]
    record = node.move(path_first(1, node))
    opened = decode_record(record).body["shares"]["opened"]
    assert [o[1] for o in opened] == [0, 2] and all(len(o) == 3 for o in opened)  # [card, ower, D]
    assert set(hear(game, record, 1).values()) == {None}


def test_a_sealed_share_whose_own_proof_fails_is_named_by_its_recipient_even_when_its_share_proof_holds():
    """Seat 0 seals its true share to seat 1 with a right share proof but a sealed-share proof
    that does not verify: seat 1 names seat 0 at once, as the spectator does, and the seat
    that does not check shares meant for others can check the accusation from the record.
    (Found by a review: the recipient once skipped that proof when the share proof held, so
    the table played on with a log that ``verify`` refuses.)"""
    game = _share_round_before_seat_1_moves()
    sealer, mover, bystander = 0, 1, 2
    own = {seat: game.nodes[seat].produce() for seat in (1, 2)}
    expect = next(e for e in game.nodes[sealer].outstanding if e.speaker == sealer)
    body = game.nodes[sealer]._make_shares(expect)
    body["sealed"] = [[*s[:6], s[7], s[6], *s[8:]] if s[2] == mover else s for s in body["sealed"]]
    bad = signed_record(game, sealer, "shares", body)
    for seat, record in own.items():
        assert set(hear(game, record, seat).values()) == {None}
    verdicts = hear(game, bad, sealer)
    for judge in (mover, None):
        assert (verdicts[judge].peer, verdicts[judge].reason) == (sealer, "bad-share"), verdicts[judge]
    assert verdicts[bystander] is None  # it checks only the sealed shares meant for it ...
    rechecked = game.nodes[bystander].recheck_sealed_shares(bad)  # ... and the accusation, when it comes
    assert rechecked is not None and (rechecked.peer, rechecked.reason) == (sealer, "bad-share")
