"""A record of decryption shares with more than one bad share gets the same verdict from
every judge, whichever of its shares each checks first: a seat checks only the public shares
of the cards shown to it (the others when the card is shown to all, or on a recheck), the
spectator and ``verify`` check them all.  An invalid point anywhere in the record makes it
malformed (bad-message); only a record whose points are all valid is blamed for a false
proof (bad-share).  The deal of a 3-player round: seat 1's record holds a public share of
every card first shown to seat 0 (its role card first) and to seat 2."""
from __future__ import annotations

from typing import Any

import pytest
from cheats_catalogue import BAD_POINTS
from protocol_helpers import expected, game_at, hear, honest_body, other_point, signed_record

from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.protocol.verify import replay_records
from saboteur_p2p.rules.dealer import Deck

POINTS = ["off-curve", "identity", "mixed-order", "non-canonical"]


def _shown_to(game: LocalGame, body: dict[str, Any], seat: int) -> list[int]:
    """The indexes of the public shares in ``body`` of cards first shown to ``seat``."""
    audiences = {need.card: need.audience for need in expected(game).topic}
    return [i for i, share in enumerate(body["public"])
            if audiences[(share[0][0], Deck(share[0][1]), share[0][2])] == frozenset({seat})]


def _verdicts(game: LocalGame, body: dict[str, Any]) -> tuple[dict[int | None, tuple[int, str] | None], tuple[int | None, str]]:
    """Every node's verdict on seat 1's record with ``body``, and ``verify``'s on the log up to it."""
    before = list(game.spectator.records)
    record = signed_record(game, 1, "shares", body)
    heard = {seat: None if v is None else (v.peer, v.reason) for seat, v in hear(game, record, 1).items()}
    verdict, _ = replay_records([*before, record])
    return heard, (verdict.culprit, verdict.message)


@pytest.mark.parametrize("bad", POINTS)
@pytest.mark.parametrize("layout", ["point to seat 0, proof to seat 2", "proof to seat 0, point to seat 2"])
def test_an_invalid_point_and_a_false_proof_in_one_record_are_a_malformed_record_for_every_judge(bad: str, layout: str) -> None:
    game = game_at("dealt-shares")
    body = honest_body(game.nodes[1])
    to_0, to_2 = _shown_to(game, body, 0)[0], _shown_to(game, body, 2)[0]
    point_at, proof_at = (to_0, to_2) if layout.startswith("point") else (to_2, to_0)
    body["public"][point_at][1] = BAD_POINTS[bad]
    body["public"][proof_at][1] = other_point(1)  # a valid point, not the share its proof is for
    heard, (culprit, message) = _verdicts(game, body)
    assert heard == {0: (1, "bad-message"), 2: (1, "bad-message"), None: (1, "bad-message")}
    assert culprit == 1 and "bad-message" in message


@pytest.mark.parametrize("bad", POINTS)
def test_a_recheck_blames_the_record_as_its_recipient_did(bad: str) -> None:
    """Both bad shares are of cards shown to seat 0, the false proof first: seat 0 meets the
    false proof first and still calls the record malformed; seat 2 takes it in unchecked, and
    its recheck of seat 0's accusation says the same."""
    game = game_at("dealt-shares")
    body = honest_body(game.nodes[1])
    first, later = _shown_to(game, body, 0)[:2]
    body["public"][first][1] = other_point(2)
    body["public"][later][1] = BAD_POINTS[bad]
    before = list(game.spectator.records)
    record = signed_record(game, 1, "shares", body)
    verdicts = hear(game, record, 1)
    assert verdicts[2] is None
    accusation = verdicts[0]
    assert accusation is not None and (accusation.peer, accusation.reason) == (1, "bad-message")
    found = game.nodes[2].recheck_sealed_shares(record)
    assert found is not None and (found.peer, found.reason) == (1, "bad-message")
    verdict, _ = replay_records([*before, record])
    assert verdict.culprit == 1 and "bad-message" in verdict.message


def test_a_false_proof_alone_is_still_a_false_proof() -> None:
    game = game_at("dealt-shares")
    body = honest_body(game.nodes[1])
    body["public"][_shown_to(game, body, 0)[0]][1] = other_point(3)
    heard, (culprit, message) = _verdicts(game, body)
    assert heard == {0: (1, "bad-share"), 2: None, None: (1, "bad-share")}
    assert culprit == 1 and "bad-share" in message


@pytest.mark.parametrize("bad", POINTS)
def test_a_share_checked_when_its_card_is_shown_is_judged_with_its_record(bad: str) -> None:
    """Seat 2 keeps both bad shares of cards shown to seat 0 unchecked (seat 0 keeps quiet, say);
    when the card with the false proof is shown to all, seat 2 checks that share alone
    (``_count_published`` asks ``_held``), and still calls seat 1's record malformed, as the
    spectator and ``verify`` did when it came."""
    game = game_at("dealt-shares")
    body = honest_body(game.nodes[1])
    first, later = _shown_to(game, body, 0)[:2]
    body["public"][first][1] = other_point(2)
    body["public"][later][1] = BAD_POINTS[bad]
    heard, _ = _verdicts(game, body)
    assert heard[2] is None and heard[None] == (1, "bad-message")
    book = game.nodes[2].share_book
    card = next(card for card, sender in book.unchecked if sender == 1 and book.unchecked[(card, 1)][1].share == other_point(2))
    verdict = book._held(1, card, book.unchecked[(card, 1)])
    assert verdict is not None and (verdict.peer, verdict.reason) == (1, "bad-message")
