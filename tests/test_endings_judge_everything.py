"""Before a seat's game ends early, it makes every check it had left for later, shares
included, and the earliest record at fault decides; a game whose last record comes inside
an abort is over, as when that record comes on its own.  Found by an attack (the round after
``test_pending_checks_decide.py``'s):

* a false share of a card's first reveal to seat H (public, or sealed), followed at once by
  its sender's ``bye`` or an abort naming H: H named the cheater, every other seat (which
  checks such shares only when the card is shown to all, protocol.md §8.3) ended "quit", its
  log holding the false record that ``verify`` names the cheater for;
* a false shuffle sent only in an abort's ``chain``, with a second cheater's equivocation as
  the evidence: the seat named the equivocator, its log holding the earlier false shuffle;
* the game's last record sent only in an abort's ``chain`` or as its evidence: each seat took
  it in, then ended "quit" with no score, though its log held the whole game."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cheats_catalogue import response_changed, sealed_share_shifted
from protocol_helpers import LocalGame, body_for, path_first, play_until, seeded_game, signed_record
from session_doubles import seated_session, signed_abort, signed_bye

from saboteur_p2p.crypto.group import G, add, check_point
from saboteur_p2p.crypto.log import EquivocationProof, decode_record
from saboteur_p2p.crypto.proofs import verify_dleq
from saboteur_p2p.net.session import Outcome, Session, SessionResult
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.local import deliver, prepare, send_ahead, step
from saboteur_p2p.protocol.messages import ActionMsg
from saboteur_p2p.protocol.node import Expect, Node
from saboteur_p2p.protocol.shares import share_context
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import Deck, GameConfig, Pass


def _verdict_agrees_with_the_log(session: Session, result: SessionResult, culprit: int, reason: str) -> None:
    assert (result.outcome, result.culprit) == (Outcome.CHEATER, culprit), result.message
    assert reason in result.message, result.message
    trailer = Ending(result.outcome.value, result.culprit, session.reason, result.message, session.evidence, session.seat)
    verdict = verify_records([*session.node.records, trailer.to_bytes()])
    assert verdict.ok and verdict.culprit == culprit and "evidence checks" in verdict.message, verdict.message


# -- a false share meant for another seat ---------------------------------------------------


def _false_sealed_share() -> tuple[LocalGame, int, int, bytes]:
    """A record with a false share sealed to another seat: the game, its maker, the share's
    recipient, the record."""
    game = seeded_game(GameConfig(3), 11)
    found: dict[str, Any] = {}

    def carries_sealed(expect: Expect) -> bool:
        node = game.nodes[expect.speaker]
        if expect.kind == "shares":
            body = body_for(node, expect)
            found.update(kind="shares", body=body, shares=body)
            return bool(body["sealed"])
        if expect.kind == "action":
            text = path_first(expect.speaker, node)
            shares = node._shares_with_move(text)
            if shares is not None and shares.sealed:
                move = ActionMsg(text, shares).encode()
                found.update(kind="action", body=move, shares=move["shares"])
                return True
        return False

    head = play_until(game, carries_sealed)
    sealed_share_shifted(game, found["shares"])
    recipient = found["shares"]["sealed"][0][2]
    return game, head.speaker, recipient, signed_record(game, head.speaker, found["kind"], found["body"])


def _move_sharing_a_first_reveal(
    game: LocalGame, falsify: int, movers: set[int] | None = None, recipients: set[int] | None = None,
) -> tuple[Expect, dict[str, Any], tuple[Any, ...], int]:
    """Play until a move (of one of ``movers``) carries a public share of a card's first
    reveal to another seat (one of ``recipients``), and make field ``falsify`` of that share
    false (1: its point, 3: a point of its proof): the move's head, its body, the card and
    the share's recipient."""
    seats = set(range(game.setup.config.players))
    found: dict[str, Any] = {}

    def carries(expect: Expect) -> bool:
        if expect.kind != "action" or expect.speaker not in (seats if movers is None else movers):
            return False
        node = game.nodes[expect.speaker]
        text = path_first(expect.speaker, node)
        shares = node._shares_with_move(text)
        if shares is None:
            return False
        move = ActionMsg(text, shares).encode()
        for share in move["shares"]["public"]:
            card = (share[0][0], Deck(share[0][1]), share[0][2])
            c1, _ = node.dealer.ciphertext(card)
            for recipient in (seats if recipients is None else recipients) - {expect.speaker}:
                context = share_context(game.setup.game_id, RevealNeed(card, frozenset((recipient,))), expect.speaker, None)
                if verify_dleq(node.keys[expect.speaker], c1, check_point(share[1]), tuple(share[2:5]), context):
                    share[falsify] = add(check_point(share[falsify]), G)
                    found.update(move=move, card=card, recipient=recipient)
                    return True
        return False

    head = play_until(game, carries)
    return head, found["move"], found["card"], found["recipient"]


def _false_public_share() -> tuple[LocalGame, int, int, bytes]:
    """A move whose public share of a card's first reveal to another seat is false."""
    game = seeded_game(GameConfig(3), 11)
    head, move, _card, recipient = _move_sharing_a_first_reveal(game, 1)
    return game, head.speaker, recipient, signed_record(game, head.speaker, "action", move)


@pytest.mark.parametrize("share", ["sealed", "public"])
@pytest.mark.parametrize("ending", ["bye", "abort"])
def test_a_false_share_for_another_seat_then_its_senders_ending_is_named_by_a_seat_that_had_not_checked_it(
    tmp_path: Path, share: str, ending: str,
):
    game, cheater, recipient, bad = _false_sealed_share() if share == "sealed" else _false_public_share()
    judge_seat = 3 - cheater - recipient
    # the recipient names the cheater at once
    named = seated_session(game, game.nodes[recipient], tmp_path / "recipient")._handle(
        b"c", seal(game.nodes[cheater].identity, "record", {"record": bad}))
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, cheater)
    # the third seat takes the record in without checking a share that is not its own
    judge = seated_session(game, game.nodes[judge_seat], tmp_path / "judge")
    assert judge._handle(b"c", seal(game.nodes[cheater].identity, "record", {"record": bad})) is None
    said = signed_bye(game, cheater) if ending == "bye" else signed_abort(game, cheater, recipient, game.records[-1])
    result = judge._handle(b"c", said)
    assert result is not None
    _verdict_agrees_with_the_log(judge, result, cheater, "bad-share")
    assert judge.evidence == bad  # the abort it sends shows the record


def test_a_seat_that_ends_early_with_every_share_right_checks_them_and_ends_as_before(tmp_path: Path):
    game = seeded_game(GameConfig(3), 11)
    play_until(game, lambda e: len(game.records) > 40)
    book = game.nodes[2].share_book
    assert book.unchecked  # shares it had not checked
    judge = seated_session(game, game.nodes[2], tmp_path)
    result = judge._handle(b"c", signed_bye(game, 1))
    assert result is not None and (result.outcome, result.culprit) == (Outcome.QUIT, 1), result.message
    assert not book.unchecked and set(book.sealed_seen) <= book.sealed_checked  # every one checked, and right


# -- an earlier false record than the evidence ----------------------------------------------


def _equivocation_of(game: LocalGame, seat: int) -> bytes:
    seq = sum(decode_record(r).sender == seat for r in game.spectator.records) + 5
    one = signed_record(game, seat, "action", {"action": "pass 0"}, seq=seq)
    two = signed_record(game, seat, "action", {"action": "pass 1"}, seq=seq)
    return EquivocationProof(decode_record(one), decode_record(two)).to_bytes()


@pytest.mark.parametrize("ahead", [False, True], ids=["checked-after-its-own", "of-a-batch-opened-ahead"])
def test_a_false_shuffle_in_an_aborts_chain_outweighs_a_second_cheaters_equivocation_as_its_evidence(
    tmp_path: Path, ahead: bool,
):
    game = seeded_game(GameConfig(4, rounds=2 if ahead else 1), 5)
    if ahead:
        head = play_until(game, lambda e: e.kind == "shuffle" and e.topic[0] >= 1)
    else:
        head = play_until(game, lambda e: e == Expect(1, "shuffle", (0,)))
    body = body_for(game.nodes[head.speaker], head)
    response_changed(game, body)
    cheater, bad = head.speaker, signed_record(game, head.speaker, "shuffle", body)
    equivocator = next(s for s in range(4) if s not in (cheater, (cheater + 1) % 4))
    judge_seat = (cheater + 1) % 4 if not ahead else next(s for s in range(4) if s not in (cheater, equivocator))
    abort = seal(game.nodes[cheater].identity, "abort", {
        "game_id": game.setup.game_id, "culprit": equivocator, "reason": "equivocation", "detail": "",
        "evidence": _equivocation_of(game, equivocator), "chain": [bad]})
    judge = seated_session(game, game.nodes[judge_seat], tmp_path)
    result = judge._handle(b"connection", abort)
    assert result is not None and bad in judge.node.records
    _verdict_agrees_with_the_log(judge, result, cheater, "bad-shuffle-proof")


# -- the game's last record inside an abort ---------------------------------------------------


def _one_record_before_the_end() -> tuple[LocalGame, int, bytes]:
    """A game played as ``step`` plays it, up to its last record: made (its maker's game is
    over) and sent to nobody.  (Replaying a seeded game to one record before its end missed:
    the work done between the records moves how many there are.)"""
    game = seeded_game(GameConfig(3), 5)
    while True:
        head = game.spectator.next_expected
        assert head is not None
        maker = game.nodes[head.speaker]
        record = maker.move(path_first(head.speaker, maker)) if maker.awaiting_move() else maker.produce()
        if maker.finished:
            return game, head.speaker, record
        deliver(game, record, head.speaker)
        maker.run_deferred_checks()
        send_ahead(game)
        prepare(game)


@pytest.mark.parametrize("where", ["chain", "evidence"])
def test_the_games_last_record_sent_only_inside_an_abort_finishes_the_game(tmp_path: Path, where: str):
    game, maker, last = _one_record_before_the_end()
    judge_seat = (maker + 1) % 3
    honest = 3 - maker - judge_seat  # the abort names it falsely
    judge = seated_session(game, game.nodes[judge_seat], tmp_path)
    in_chain = where == "chain"
    abort = seal(game.nodes[maker].identity, "abort", {
        "game_id": game.setup.game_id, "culprit": honest, "reason": "bad-share", "detail": "",
        "evidence": game.nodes[judge_seat].records[-1] if in_chain else last, "chain": [last] if in_chain else []})
    # the abort came after the game's end: it stops nothing, and the session's loop finishes
    # the game (it ended "quit", with no score)
    assert judge._handle(b"c", abort) is None
    assert judge.node.finished and judge.evidence is None
    assert judge.node.state is not None and judge.node.state.scores == game.nodes[maker].state.scores  # type: ignore[union-attr]


# -- a colluding recipient lets a false share through -----------------------------------------


def _let_through(game: LocalGame, judge: int, exclude: set[int]) -> tuple[int, tuple[Any, ...], int, bytes]:
    """Play until a seat other than ``judge`` and ``exclude`` moves with a public share of a
    card's first reveal to a seat other than ``judge``; make that share's proof false, and
    have its recipient (and the spectator) take it without a word, as a colluder would: the
    seat, the card, the recipient and the record."""
    seats = set(range(game.setup.config.players))
    head, move, card, recipient = _move_sharing_a_first_reveal(game, 3, seats - exclude - {judge}, seats - {judge})
    record = signed_record(game, head.speaker, "action", move)
    colluders = [game.nodes[recipient].share_book, game.spectator.share_book]
    for book in colluders:
        book._proven = lambda *_: True  # type: ignore[method-assign]
    game.nodes[head.speaker].receive(record)
    deliver(game, record, head.speaker)
    for book in colluders:
        del book._proven
    return head.speaker, card, recipient, record


def _finished_with_a_false_share_never_shown(tmp_path: Path) -> tuple[LocalGame, Session, int, int]:
    """A finished 4-seat game in which seat 3 (the judge, whose session is returned) holds a
    false share it never checked: its card's recipient let it through and never showed it.
    Also the share's sender and recipient."""
    game, judge_seat = seeded_game(GameConfig(4), 11), 3
    cheater, card, recipient, _ = _let_through(game, judge_seat, set())

    def the_recipient_never_shows_a_card(seat: int, node: Node) -> str:
        passes = [a for a in node.state.legal_actions() if isinstance(a, Pass)] if seat == recipient else []  # type: ignore[union-attr]
        return str(passes[0]) if passes else path_first(seat, node)

    while step(game, the_recipient_never_shows_a_card):
        pass
    judge = seated_session(game, game.nodes[judge_seat], tmp_path)
    assert judge.node.finished and (card, cheater) in judge.node.share_book.unchecked
    return game, judge, cheater, recipient


def test_a_false_share_found_at_its_cards_showing_is_named_over_a_later_false_share_of_another_seat(tmp_path: Path):
    """Seat A's false share (let through by its recipient) is found when its card is shown;
    a later false share of seat Y waits unchecked.  The judge named Y, whose record is later,
    and ``verify`` of its log named A (found by review): the earliest record decides."""
    game, judge_seat = seeded_game(GameConfig(4), 11), 3
    first, card, _, first_record = _let_through(game, judge_seat, set())
    for _ in range(3):
        step(game, path_first)
    _later, _, _, _ = _let_through(game, judge_seat, {first})
    judge = seated_session(game, game.nodes[judge_seat], tmp_path)
    book = judge.node.share_book
    book.shown[(card, first)] = book.unchecked.pop((card, first))  # its card shown, as ``_count_published`` does
    found = book._held(first, card, book.shown[(card, first)])
    assert found is not None and found.peer == first
    result = judge._cheater(found, judge.node.records[-1])  # the showing record is the evidence
    _verdict_agrees_with_the_log(judge, result, first, "bad-share")
    assert judge.evidence == first_record


def test_a_late_abort_does_not_void_a_finished_game_over_a_share_of_a_card_never_shown(tmp_path: Path):
    """A false share of a card whose recipient colludes and never shows it stays unchecked to
    the game's end (§8.3).  A late abort, naming anyone with any record as evidence, made a
    seat check such shares and end the finished game naming a cheater, with no score, at the
    seats its sender chose (found by review): once the game is over an abort stops nothing."""
    game, judge, cheater, recipient = _finished_with_a_false_share_never_shown(tmp_path)
    accused = next(s for s in range(4) if s not in (cheater, recipient, judge.seat))
    late = signed_abort(game, recipient, accused, judge.node.records[-5])
    assert judge._late_abort(open_envelope(late), recipient) is None


def test_a_false_share_whose_check_waits_behind_a_later_records_is_still_named_first(tmp_path: Path):
    """Two cards shown, their shares' checks queued in the order the cards were shown: the
    later record's check ran first and failed, the earlier one never ran, and the verdict
    named the later record (found by review)."""
    game, judge_seat = seeded_game(GameConfig(4), 11), 3
    first, first_card, _, first_record = _let_through(game, judge_seat, set())
    for _ in range(3):
        step(game, path_first)
    later, later_card, _, _ = _let_through(game, judge_seat, {first})
    judge = seated_session(game, game.nodes[judge_seat], tmp_path)
    book = judge.node.share_book
    for card, seat in ((later_card, later), (first_card, first)):  # shown, the later record's first
        book.shown[(card, seat)] = book.unchecked.pop((card, seat))
        judge.node.deferred_checks.append(book._held_check(seat, card, book.shown[(card, seat)]))
    result = judge._handle(b"c", signed_bye(game, later))
    assert result is not None
    _verdict_agrees_with_the_log(judge, result, first, "bad-share")
    assert judge.evidence == first_record


def test_a_late_abort_naming_the_sender_of_a_share_never_shown_does_not_void_the_finished_game(tmp_path: Path):
    """The same, the abort naming the share's own sender, with a record of its that extends a
    head the log has moved past: the seat checked that sender's shares and voided the game
    (found by review).  Only an out-of-turn record, after the end, is named: the game stands."""
    game, judge, cheater, recipient = _finished_with_a_false_share_never_shown(tmp_path)
    out_of_turn = signed_record(game, cheater, "action", {"action": "pass 0"}, prev=judge.node.log.entries[-1].prev)
    late = signed_abort(game, recipient, cheater, out_of_turn)
    result = judge._late_abort(open_envelope(late), recipient)
    assert result is None or result.scores == judge.node.state.scores, result.message  # type: ignore[union-attr]
