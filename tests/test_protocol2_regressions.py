"""Regressions found by a review of protocol version 2 (groups, opened shares, verdicts at
the end of a stopped log): each test failed before its fix and says what the spec requires.
"""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from protocol_helpers import copy_game, hear, path_first, play_until, seeded_bytes, seeded_game, signed_record
from test_share_proofs import BYSTANDER, MOVER, SEALER, share_round_after_a_swap

from saboteur_p2p.crypto.group import IDENTITY, add, base_mul, scalar_from_int
from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.net.absence import Absence
from saboteur_p2p.net.presence import Presence
from saboteur_p2p.net.verdicts import Outcome, SessionResult
from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.local import first_move_expected, play_local_game
from saboteur_p2p.protocol.messages import ActionMsg
from saboteur_p2p.protocol.node import Expect, ProtocolViolation
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import GameConfig

CONFIG = GameConfig(3, rounds=1)


# -- 1. an opened share whose sealed share holds an invalid point is blamed on the opener ----


def test_an_opened_share_over_a_sealed_share_with_an_invalid_point_never_blames_the_opener():
    """protocol.md §6.8 (opened), §7.3.1: a sealed share holding an invalid point is blamed on
    the seat that sealed it when the share is opened, whatever is opened, as the spectator (and
    the recipient) named it at the sealing record, never on the opener (§8.4).  (Protocol
    version 2 blamed the opener.)
    Sealed shares are a card's later reveal: here Saboteur 2's Swap your hand shows seat 2's
    hand to seat 0, which then plays one of its cards (test_share_proofs)."""
    game = share_round_after_a_swap()
    mover, sealer, bystander = MOVER, SEALER, BYSTANDER
    r0 = game.nodes[mover].produce()
    r1 = game.nodes[bystander].produce()
    assert r0 is not None and r1 is not None

    # the mover's honest move, made in a copy where the sealer sealed honestly
    honest = copy_game(game, 1)
    r2 = honest.nodes[sealer].produce()
    assert r2 is not None
    for seat, record in ((mover, r0), (bystander, r1), (sealer, r2)):
        assert set(hear(honest, record, seat).values()) == {None}
    assert honest.spectator.next_expected.speaker == mover
    move = decode_record(honest.nodes[mover].move(path_first(mover, honest.nodes[mover])))
    opened = ActionMsg.decode(move.body).shares
    assert opened is not None and [o.ower for o in opened.opened] == [sealer]

    # the sealer seals its shares to the mover with E1 an invalid point (the identity); the
    # mover colludes and moves on; the bystander does not check shares sealed to others
    expect = next(e for e in game.nodes[sealer].outstanding if e.speaker == sealer)
    body = game.nodes[sealer]._make_shares(expect)
    body["sealed"] = [[*s[:3], IDENTITY, *s[4:]] if s[2] == mover else s for s in body["sealed"]]
    bad = signed_record(game, sealer, "shares", body)
    for record in (r0, bad):
        game.nodes[bystander].receive(record)
    taker = copy_game(game, 2).nodes[bystander]
    spectator = game.spectator
    spectator.receive(r0)
    spectator.receive(r1)
    with pytest.raises(ProtocolViolation) as said:
        spectator.receive(bad)
    assert said.value.peer == sealer  # the spectator (and the mover, had it been honest) name the sealer

    # the move opens the sealer's true share: the bystander checks the sealed share it opens,
    # finds the invalid point and names the sealer, as the spectator did at its record
    record = signed_record(game, mover, "action", move.body, seq=taker.log.next_seq(mover), prev=taker.log.head)
    with pytest.raises(ProtocolViolation) as opened_true:
        taker.receive(record)
    assert (opened_true.value.peer, opened_true.value.reason) == (sealer, "bad-message"), opened_true.value

    # the move opens something else: the sealer, whose sealed share is invalid, is named, not the mover
    wrong = [[*o[:2], base_mul(scalar_from_int(7)), *o[3:]] if o[1] == sealer else o for o in move.body["shares"]["opened"]]
    body = {**move.body, "shares": {**move.body["shares"], "opened": wrong}}
    node = game.nodes[bystander]
    record = signed_record(game, mover, "action", body, seq=node.log.next_seq(mover), prev=node.log.head)
    with pytest.raises(ProtocolViolation) as found:
        node.receive(record)
    assert (found.value.peer, found.value.reason) == (sealer, "bad-message"), found.value


# -- 2. a forged verdict trailer names an honest seat ------------------------------------


def test_a_forged_quit_trailer_does_not_name_a_seat_verify_cannot_check():
    """protocol.md §12.5: verify judges the verdict 'trusting nothing in it', and 'a verdict
    that does not hold ... names nobody'.  A ``quit`` trailer is unsigned and nothing in the
    records bears it out, yet judge() always holds it, so verify_records returns the seat it
    names as the culprit: anyone who edits a log file (or writes one) makes verify blame any
    seat, even one outside the table."""
    game = play_local_game(CONFIG, ["random"] * 3, seed=4, rand=seeded_bytes(4),
                           until=first_move_expected)
    records = list(game.records)
    plain = verify_records(records)
    assert plain.ok and plain.culprit is None
    for named in (2, 7, -1):
        forged = verify_records([*records, Ending("quit", named).to_bytes()])
        assert forged.culprit is None, f"a forged quit trailer made verify name seat {named}: {forged.message}"


# -- 3. a group's effect depends on the order its records come in ------------------------


def _cheating_last_shuffler(node) -> None:
    """Seat 2 shuffles the first batch honestly but for one card: the draw deck's first card
    is re-encrypted to a point that is no card."""
    honest = node._make_shuffle

    def make(head):
        body = honest(head)
        if head.topic[0] == 0:
            for deck, cards, _proof in body["decks"]:
                if deck == "draw":
                    c1, c2 = cards[0]
                    cards[0] = [c1, add(c2, base_mul(scalar_from_int(5)))]
        return body

    node._make_shuffle = make


def test_the_seat_blamed_for_a_card_that_opens_to_nothing_does_not_depend_on_the_order_of_a_group(
    monkeypatch: pytest.MonkeyPatch,
):
    """protocol.md §5.4: 'what a record of a group does never depends on the other records of
    the group ... so the order a peer takes a group in does not change anything it computes'.
    The sealed shares of the first deal are one group; the holder of a card decrypts it when
    the last ower's record of the group is in, and if the card opens to no card (here: the
    last shuffler cheated and its proof passed), Node.receive blamed ``bad-message`` on
    whichever record happened to come last.  Two orders, two different innocent seats
    blamed, and never the shuffler that did it.  A false proof passes with negligible chance
    since the Terelius-Wikstrom proof; the test lets it pass on purpose, since what follows
    must still name no innocent seat."""
    monkeypatch.setattr("saboteur_p2p.protocol.shuffles.verify_shuffle_proof", lambda *args: None)
    game = seeded_game(CONFIG, 1)
    _cheating_last_shuffler(game.nodes[2])
    play_until(game, lambda e: e.kind == "shares")  # the proof passed: the deal's share round
    holder = 0  # seat 0 holds draw card 0
    made = {seat: game.nodes[seat].produce() for seat in (1, 2)}
    blamed = {}
    for order in ((1, 2), (2, 1)):
        twin = copy_game(game, 0)
        try:
            for seat in order:
                twin.nodes[holder].receive(made[seat])
        except ProtocolViolation as violation:
            blamed[order] = (violation.peer, violation.reason)
        else:
            blamed[order] = None
    assert blamed[(1, 2)] == blamed[(2, 1)], f"seat {holder}'s verdict depends on arrival order: {blamed}"
    assert blamed[(1, 2)] == (-1, "bad-deck")  # a false shuffle: no one record's sender is named


# -- 4. the away rule times a seat from another seat's silence ----------------------------


class _Table(Absence):
    """The absence rules of a session at seat 0 of a 3-seat table, without sockets."""

    def __init__(self, now: float) -> None:
        self.node = SimpleNamespace(
            outstanding=(Expect(1, "shares"), Expect(2, "shares")),
            log=SimpleNamespace(head=b"root", next_seq=lambda seat: 0), step_got={},
        )
        self.presence = Presence([1, 2], now)
        self.endpoints = {1: "tcp://127.0.0.1:1", 2: "tcp://127.0.0.1:2"}
        self.names = ["a", "b", "c"]
        self.seat = 0
        self.wait = 120.0
        self.say = lambda text: None
        self.named: int | None = None
        self._start_absence(now)

    def _end(self, outcome, message, culprit, scores=None):
        return SessionResult(outcome, message, culprit=culprit)

    def _end_gone(self, absent, why):
        self.named = absent
        return SessionResult(Outcome.PEER_GONE, why, culprit=absent)


def test_a_seat_of_a_group_is_named_gone_only_after_it_has_been_silent_for_the_wait():
    """protocol.md §12.4: 'When the seat expected to speak is away, the table waits (--wait)
    counted from when it was last heard.'  In a group two seats may be away one after the
    other: once seat 1 is back and has sent its record, seat 2 (away since t = 98) must be
    timed from its own silence, not from when seat 1 went away."""
    table = _Table(0.0)
    t = 0.0
    while t < 95.0:  # seat 1 is silent from the start; seat 2 pings until t = 95
        t += 0.5
        table.presence.heard(2, t)
        table.presence.newly_away(t)
        assert table._check_gone(t) is None
    assert table.presence.away == {1}
    while t < 100.0:
        t += 0.5
        table.presence.newly_away(t)
        assert table._check_gone(t) is None
    # seat 1 comes back and its record of the group comes; seat 2 has been away since t = 98
    table.presence.heard(1, t)
    table.node.step_got = {1: b"its record"}
    table.node.outstanding = (Expect(2, "shares"),)
    assert table.presence.away == {2}
    while t < 121.0:
        t += 0.5
        table.presence.heard(1, t)
        table.presence.newly_away(t)
        result = table._check_gone(t)
        silent = table.presence.silent_for(2, t)
        assert result is None, f"seat {table.named} named gone after {silent:.0f} s of silence (wait {table.wait:.0f} s)"


def test_every_seat_that_says_another_withholds_its_record_has_left_not_only_the_first():
    """A second seat's `gone` that came while the first's claim was judged did not count its
    sender as gone: silent then, it made us name our own link as lost (found by an attack)."""
    from saboteur_p2p.net.wire import Envelope

    table = _Table(0.0)
    table.presence = Presence([1, 2, 3], 0.0)
    table.endpoints = {1: "tcp://127.0.0.1:1", 2: "tcp://127.0.0.1:2", 3: "tcp://127.0.0.1:3"}
    table.names = ["a", "b", "c", "d"]
    table._start_absence(0.0)
    table.node.outstanding = (Expect(1, "shares"),)
    for seat in (1, 2, 3):
        table.presence.heard(seat, 1.0)
    for sender in (2, 3):
        gone = Envelope("gone", {"seat": sender, "absent": 1, "why": "b (seat 1) sent no shares record"}, b"")
        assert table._heard_gone(gone, sender, 1.5) is None  # seat 1 was heard lately: we see for ourselves
    assert table._left == {2, 3}


# -- 5. a verdict trailer with a long non-ASCII detail is read as a broken record ---------


def test_the_verdict_after_an_illegal_move_with_long_non_ascii_text_is_still_read_as_a_verdict():
    """A hostile mover sends an action of 399 emoji (within the 400-character limit).  Every
    honest seat blames it (``illegal-action``; the engine's message quotes the text) and
    Session._end writes the verdict trailer with ``detail = message[:500]``: 500 *characters*,
    up to 2000 bytes, while Ending.from_bytes unpacks with ``max_str_len=1000`` *bytes*.  The
    trailer is then not taken for a verdict, so split_ending hands it to the replay as a
    record, and verify reports the honest seat's log as broken ('malformed-record by an
    unknown sender'), with the cheater's name lost (seatstate.restore would likewise raise)."""
    game = play_local_game(CONFIG, ["random"] * 3, seed=4, rand=seeded_bytes(4),
                           until=first_move_expected)
    mover = game.spectator.next_expected.speaker
    evidence = signed_record(game, mover, "action", {"action": "\N{GRINNING FACE}" * 399})
    verdicts = hear(game, evidence, mover)
    violation = verdicts[None]
    assert violation is not None and (violation.peer, violation.reason) == (mover, "illegal-action")
    # what Verdicts._end_cheater and Session._end write
    how = f"{violation.reason}: {violation.detail}"
    message = f"{game.setup.names[mover]} (seat {mover}) broke the protocol: {how}"
    trailer = Ending("cheater", mover, how.partition(":")[0], message, evidence).to_bytes()
    verdict = verify_records([*game.records, trailer])
    assert verdict.ok and verdict.culprit == mover, verdict.message
    assert Ending.from_bytes(trailer) is not None


def test_a_seat_that_left_saying_another_withholds_its_record_is_not_taken_for_our_link_failing():
    """CI: seat 0 ended the game saying seat 1 withheld a reveal (and left); seat 1 was then cut
    off.  Both fell silent here, but one of them had said goodbye: it is seat 1 that is gone,
    not this machine's link."""
    table = _Table(0.0)
    table.node.outstanding = (Expect(2, "reveal"),)
    table._left.add(1)  # what _heard_gone notes when it takes a withholding claim from seat 1
    t = 0.0
    while table.named is None and t < 200.0:
        t += 0.5
        table.presence.newly_away(t)
        result = table._check_gone(t)
    assert table.named == 2 and result.outcome is Outcome.PEER_GONE
    assert table.presence.silent_for(2, t) > table.wait


class _Gone:
    """A ``gone`` envelope from seat 1 naming ``absent`` (only what _heard_gone reads)."""

    def __init__(self, absent: int) -> None:
        self.body = {"absent": absent, "why": "it did not come back"}

    def field(self, name, kind, limit=None):
        return self.body[name]


def test_a_gone_for_a_mover_still_heard_here_is_judged_by_what_this_peer_hears():
    """CI: seat 1 named seat 2 gone after its --wait; here seat 2 was heard 3 s ago, within its
    away limit.  The peer neither agrees at once nor blames seat 1 at once: if seat 2 is heard
    again, seat 1 is named; if it stays silent, this peer's own rules name seat 2."""
    for comes_back in (True, False):
        table = _Table(0.0)
        table.node.outstanding = (Expect(2, "action"),)
        for t in (0.5, 1.0, 1.5, 2.0):
            table.presence.heard(1, t)
            table.presence.heard(2, t)
        t = 2.5
        assert table._heard_gone(_Gone(2), 1, t) is None  # seat 2 is not silent here yet
        result = None
        while result is None and t < 200.0:
            t += 0.5
            if comes_back:
                table.presence.heard(2, t)
            table.presence.newly_away(t)
            result = table._check_gone(t)
        if comes_back:
            assert (result.outcome, result.culprit) == (Outcome.QUIT, 1) and t < 5.0
        else:
            assert table.named == 2 and table.presence.silent_for(2, t) > table.wait
