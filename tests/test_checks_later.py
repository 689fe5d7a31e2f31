"""Checks a seat leaves for the background (protocol.md §5.6.2, §8.3): the shuffles of a batch
opened ahead, and the shares published for a card's first reveal, checked when the card is
shown to all.  The earliest record at fault decides the verdict, as for a seat that checks
at once."""
from __future__ import annotations

import pytest
from protocol_helpers import bend_first_played_share, game_at, hear, path_first, signed_record

from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.errors import ProtocolViolation
from saboteur_p2p.protocol.messages import PublicShare, Shares


def _blame(seat: int) -> ProtocolViolation:
    return ProtocolViolation(seat, "bad-share", "a check of an earlier record failed")


def test_a_check_left_from_an_earlier_record_decides_the_verdict_over_a_later_fault() -> None:
    """A card opened with a false share can make a true move look false: the seat that took
    the card's record in without checking its shares yet must name the share's sender, as a
    seat that checked at once did, not the mover."""
    game = game_at("move")
    seat = game.nodes[2]
    earlier = game.records[-1]

    def failing() -> None:
        raise _blame(1)

    seat.ahead.check_later(failing, earlier)
    out_of_turn = signed_record(game, 2, "action", {"action": "discard 0"})
    verdicts = hear(game, out_of_turn, 0, 1, None)
    named = verdicts[2]
    assert named is not None and (named.peer, named.reason) == (1, "bad-share"), named
    assert named.evidence == earlier  # its own record, as if checked when it came
    assert seat.aborted is named


def test_without_an_earlier_fault_a_later_record_is_refused_as_it_was() -> None:
    game = game_at("move")
    game.nodes[2].ahead.check_later(lambda: None, game.records[-1])
    verdicts = hear(game, signed_record(game, 2, "action", {"action": "discard 0"}), 0, 1, None)
    named = verdicts[2]
    assert named is not None and (named.peer, named.reason) == (2, "out-of-turn"), named


def test_an_equivocation_after_a_card_opened_with_a_false_share_names_the_share_s_sender() -> None:
    """Seat 1 publishes a false share of the card seat 0 plays first; seat 0 colludes, plays
    the card, and then signs a second record with the move's number.  A seat still checking
    the share names seat 1, as the spectator did at once, not seat 0's equivocation: else
    the colluders would choose which of them is blamed."""
    game = game_at("dealt-shares")
    seats = game.nodes
    bend_first_played_share(game, 0, 1)
    record = seats[1].produce()
    assert record is not None
    spectator = hear(game, record, 1)[None]
    assert spectator is not None and (spectator.peer, spectator.reason) == (1, "bad-share")
    while (head := seats[2].next_expected) is not None and head.kind != "action":
        made = seats[head.speaker].produce()
        assert made is not None
        for seat in (s for s in range(3) if s != head.speaker):
            seats[seat].receive(made)
    move = seats[0].move(path_first(0, seats[0]))
    seats[2].receive(move)  # its check of seat 1's share waits for the thread
    shown = decode_record(move)
    other = signed_record(game, 0, "action", {"action": "discard 0"}, seq=shown.seq, prev=shown.prev)
    with pytest.raises(ProtocolViolation) as named:
        seats[2].receive(other)
    assert (named.value.peer, named.value.reason) == (1, "bad-share")
    assert seats[2].aborted is named.value


def test_a_seat_s_own_record_that_shows_a_card_waits_for_its_checks() -> None:
    """A seat that shows a card first shown to another seat (Swap your hand) holds other
    seats' unchecked shares of it: its move, which carries its own shares, must not go out
    before they are checked (before, the check was left for the background)."""
    game = game_at("move")
    mover = game.spectator.next_expected.speaker
    node = game.nodes[mover]
    text = path_first(mover, node)
    first = node._shares_with_move(text)
    assert first is not None
    (card,) = [p.card for p in first.public]
    published = node.dealer.published[card]
    ower = next(s for s in sorted(published) if s != mover)
    bent = PublicShare(card, published[ower], (b"\x01" * 32, b"\x02" * 32))
    node.share_book.unchecked[(card, ower)] = (RevealNeed(card, frozenset({mover})), bent, Shares((bent,), (), ()))
    with pytest.raises(ProtocolViolation) as named:
        node.move(text)
    assert (named.value.peer, named.value.reason) == (ower, "bad-share")
