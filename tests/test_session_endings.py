"""A seat's word that it ends the game (`bye`, `abort`, `gone`) is its own, whoever carries it.

A hostile seat that sent such a word to one peer alone made that peer stop in silence; the
other peers then waited for it, named it as gone, and, at the final reveal of the gold, gave
its gold away (protocol.md §12.5). A peer now passes on, as signed, every ending another seat
sent it before it stops, and a peer takes such a word from any seat's link.
"""
from __future__ import annotations

import itertools
import re
import time
from pathlib import Path

from net_doubles import session_for_tests

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.session import Session
from saboteur_p2p.net.verdicts import Outcome, SessionResult
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.protocol.node import Expect

GAME = bytes(range(32))
#: seat 1's session reaches seat 0 and seat 2 here (net_doubles.session_for_tests)
SEAT0, SEAT2 = "tcp://127.0.0.1:1", "tcp://127.0.0.1:3"


def seat1(tmp_path: Path) -> tuple[Session, list[Identity], list[str]]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    session, identities, said = session_for_tests(tmp_path)
    session.log_path = tmp_path / "seat1.log"
    return session, identities, said


#: seat 0's word that seat 2 is gone
GONE_OF_0 = {"game_id": GAME, "seat": 0, "absent": 2, "why": "s2 did not come back"}


def from_seat0(session: Session, identities: list[Identity], data: bytes) -> SessionResult | None:
    """``data`` (signed by seat 0) as it comes on seat 0's own link."""
    return session._handle(b"seat 0's link", data, identities[0].public.dh_key)


def seat0_ping(identities: list[Identity], wait: int, heard: list[int]) -> bytes:
    """Seat 0's ping to seat 1, announcing its ``wait`` and when it last heard each seat."""
    body = {"game_id": GAME, "seat": 0, "to": 1, "away": [], "t": 0, "records": 0, "got": [], "done": False,
            "heard": heard, "wait": wait}
    return seal(identities[0], "ping", body)


def waiting_for_seat2s_move(where: Path) -> tuple[Session, list[Identity], list[str]]:
    """Seat 1 of four, whose log waits for seat 2's move."""
    where.mkdir(parents=True, exist_ok=True)
    session, identities, said = session_for_tests(where, players=4)
    session.log_path = where / "seat1.log"
    session.node.expect = [[Expect(2, "action")]]
    return session, identities, said


def test_a_bye_sent_to_us_alone_is_passed_on_to_the_other_seats(tmp_path: Path) -> None:
    session, identities, _ = seat1(tmp_path)
    bye = seal(identities[2], "bye", {"game_id": GAME, "seat": 2})
    result = session._handle(b"seat 2's link", bye, identities[2].public.dh_key)
    assert result is not None and result.outcome is Outcome.QUIT and result.culprit == 2
    sent = session.transport.sent  # type: ignore[attr-defined]
    assert (SEAT0, bye) in sent  # as signed: seat 0 can check whose word it is
    assert all(endpoint != SEAT2 for endpoint, data in sent if data == bye)  # not back to its signer


def test_a_bye_another_seat_carries_ends_the_game_naming_its_signer(tmp_path: Path) -> None:
    """Seat 0 stopped because seat 2 said bye to it alone, and passed the bye on: we end too,
    naming seat 2 (before, a word signed by another seat on seat 0's link was dropped, and we
    waited for seat 0, then named it as gone)."""
    session, identities, said = seat1(tmp_path)
    bye = seal(identities[2], "bye", {"game_id": GAME, "seat": 2})
    result = session._handle(b"seat 0's link", bye, identities[0].public.dh_key)
    assert result is not None and result.outcome is Outcome.QUIT and result.culprit == 2
    assert "s2 (seat 2) left the table" in result.message
    assert not any("dropped" in line for line in said)


def test_an_abort_whose_evidence_shows_nothing_is_passed_on_and_taken_from_a_carrier(tmp_path: Path) -> None:
    """Seat 2 stops us alone with an accusation that does not hold: we name seat 2 and pass its
    abort on; a peer that gets it from another seat judges the same evidence, and names seat 2."""
    for carrier in (2, 0):
        session, identities, _ = seat1(tmp_path / f"carried by {carrier}")
        abort = seal(identities[2], "abort", {"game_id": GAME, "culprit": 0, "reason": "bad-share", "detail": "",
                                              "evidence": b"nothing", "chain": []})
        result = session._handle(b"a link", abort, identities[carrier].public.dh_key)
        assert result is not None and result.outcome is Outcome.QUIT and result.culprit == 2, carrier
        assert (SEAT0, abort) in session.transport.sent  # type: ignore[attr-defined]


def test_other_words_of_a_seat_carried_by_another_are_still_dropped(tmp_path: Path) -> None:
    """Only endings and busy notices travel that way: a chat signed by seat 2 on seat 0's link
    is dropped; a busy passed on moves our wait for seat 2's records (a seat that told one
    seat alone it was busy, an attack), but proves nothing of seat 2's presence (an old one
    passed on again would make a vanished seat look present)."""
    session, identities, said = seat1(tmp_path)
    heard = session.presence.last_heard[2]
    chat = seal(identities[2], "chat", {"game_id": GAME, "seat": 2, "text": "hello"})
    busy = seal(identities[2], "busy", {"game_id": GAME, "seat": 2, "seconds": 30.0})
    for data in (chat, busy):
        assert session._handle(b"seat 0's link", data, identities[0].public.dh_key) is None
    assert session.presence.records_wait_until(2) > time.monotonic() + 25  # its records are waited for longer
    assert session.presence.last_heard[2] == heard  # but it is not heard
    assert session.presence.busy_until(2) == float("-inf")  # nor taken for busy when its silence is judged
    assert any("dropped a chat signed by s2 (seat 2) that s0 (seat 0) relayed" in line for line in said)
    assert not any("busy" in line for line in said)


def test_an_ending_carried_by_another_seat_does_not_count_as_its_signer_heard(tmp_path: Path) -> None:
    session, identities, _ = seat1(tmp_path)
    before = session.presence.count[2]
    gone = seal(identities[2], "gone", {"game_id": GAME, "seat": 2, "absent": 0, "why": "s0 did not come back"})
    from_seat0(session, identities, gone)
    assert session.presence.count[2] == before


def test_a_seat_that_stopped_on_anothers_word_is_not_named_gone_for_the_record_it_then_never_sent(
        tmp_path: Path) -> None:
    """Seat 0 stopped on seat 3's word and passed it on: a gone saying seat 2 withholds its
    shares.  We wait for seat 2 (a claim), and for seat 0's shares too, which never come.  Two
    colluders had an honest seat name seat 0, an honest seat that stopped so, as gone (an
    attack); only a seat that stops passes an ending on, so seat 0 is known to have stopped,
    and on whose word."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    session, identities, said = session_for_tests(tmp_path, players=4)
    session.log_path = tmp_path / "seat1.log"
    # a share round: seats 0, 2 and 3 owe their shares here (ours are in)
    session.node.expect = [[Expect(0, "shares"), Expect(2, "shares"), Expect(3, "shares")]]
    gone = seal(identities[3], "gone", {"game_id": GAME, "seat": 3, "absent": 2, "why": "s2 withholds its shares"})
    assert from_seat0(session, identities, gone) is None
    assert any("s3 (seat 3) left saying s2 (seat 2) withholds its shares record" in line for line in said)
    later = time.monotonic() + session.wait + 5
    for seat in (2, 3):  # heard lately (seat 2 by another seat, say): only seat 0 fell silent
        session.presence.heard(seat, later)
    session._check_away(later)
    result = session._check_gone(later)
    assert result is not None and result.outcome is Outcome.QUIT and result.culprit == 3, result
    assert "s0 (seat 0) stopped when s3 (seat 3) ended the game" in result.message


def test_a_seat_silent_here_that_another_vouched_for_comes_back_and_nobody_is_blamed(tmp_path: Path) -> None:
    """Seat 2 owes its move and has said nothing to us for longer than our wait; seat 3 says
    in its pings that it hears seat 2, so we do not name it.  Seat 0 says seat 2 is gone.  Then
    seat 2 passes that on to us itself (at once, or after a ping), or just talks again: we
    named seat 0 as the one who stopped the game, while seat 0 named seat 2 (two colluders, an
    attack; were seat 0 the liar and seat 3 honest, naming seat 2 would be as wrong).  One of
    them says what is not so, and nothing here tells which: nobody is blamed."""
    for how in ("passed on", "ping, then passed on", "talks again"):
        where = tmp_path / how.replace(" ", "-").replace(",", "")
        session, identities, _ = waiting_for_seat2s_move(where)
        now = time.monotonic()
        session.presence.last_heard[2] = session.presence.arrived[2] = now - session.wait - 5
        session.presence.away.add(2)
        session.presence.heard_through(2, 3, now - 0.5)  # seat 3's word: it heard seat 2 half a second ago
        gone = seal(identities[0], "gone", GONE_OF_0)
        seat2 = identities[2].public.dh_key
        if how == "passed on":
            result = session._handle(b"seat 2's link", gone, seat2)
        else:
            assert from_seat0(session, identities, gone) is None  # a claim: we wait
            session.presence.heard(2, time.monotonic())  # its ping
            if how == "talks again":
                session.presence.heard(2, time.monotonic())
                result = session._check_gone(time.monotonic())
            else:
                result = session._handle(b"seat 2's link", gone, seat2)
        assert result is not None and result.outcome is Outcome.QUIT and session.reason == "unclear-silence", (how, result)
        assert "nobody is blamed" in result.message and "blamed but" not in result.message, how
    from saboteur_p2p.protocol.ending import Ending, judge

    _, said = judge(Ending("quit", 0, session.reason, result.message, None, 1), session.node, tuple(session.names))
    assert "the log's seat blames nobody" in said  # as verify reads the log's verdict


def test_a_seat_back_here_only_since_our_pings_last_said_it_was_silent_blames_nobody(tmp_path: Path) -> None:
    """Seat 2 owes its move and fell silent to every seat; just before seat 0's wait ran out it
    pinged us alone (or said it was busy), after the last ping of ours that seat 0 could read
    in time had told it seat 2 was silent.  Seat 0 rightly said it was gone; seat 2 passed that
    on to us, or spoke again: we took it for present all along and named seat 0 (one liar, an
    attack).  By what we had told the table, seat 0 was right: nothing here tells who was,
    nobody is blamed.  A ping of ours sent less than a round trip (at least half a second)
    before the word came could not have reached seat 0 first; had our pings told seat 0 in time
    that we heard seat 2, or had we heard seat 2 all along (whatever round trip seat 0's pings
    claim: a review), seat 0 is named."""
    cases = ("passed on", "talks again", "busy, passed on", "its move came to us alone",
             "passed on, its pings claiming a long round trip", "told too late",
             "told too late for its round trip", "told before we stalled", "told in time",
             "heard all along, a long round trip claimed", "heard all along, a wait under 1 s")
    for how in cases:
        where = tmp_path / how.replace(" ", "-").replace(",", "")
        session, identities, _ = waiting_for_seat2s_move(where)
        presence = session.presence
        now = time.monotonic()
        for seat in (0, 3):
            presence.heard(seat, now - 0.2)
        presence.last_heard[2] = presence.arrived[2] = now - session.wait - 1.0
        if how.startswith("heard all along"):
            session.wait = 5.0 if "round trip" in how else 0.9
            for tick in range(20, 0, -1):  # seat 2 heard, and our pings, every half second
                presence.heard(2, now - tick / 2 - 0.5)
                presence.heard_ms(now - tick / 2 - 0.4, 4)
            presence.heard(2, now - 0.05)
            presence.rtt[0] = 3.0 if "round trip" in how else 0.0  # seat 0's pings' echoes say so
        elif how == "passed on, its pings claiming a long round trip":
            presence.rtt[2] = 3.0  # its away limit here grows past what our ping told (an attack)
            presence.last_heard[2] = presence.arrived[2] = now - 8.3
            session.wait = 8.0
            presence.heard_ms(now - 1.0, 4)  # our ping: seat 2 silent 7.3 s
            presence.heard(2, now - 0.3)
        elif how == "told too late for its round trip":
            presence.rtt[0] = 1.0
            presence.heard_ms(now - 2.5, 4)  # our ping: seat 2 silent for the wait
            presence.heard(2, now - 1.8)
            presence.heard_ms(now - 1.5, 4)  # seat 0 could not have read it before its word left
        else:
            presence.heard_ms(now - 1.0, 4)  # our ping: seat 2 silent for the wait
            if how == "told in time":
                presence.heard(2, now - 0.9)
                presence.heard_ms(now - 0.8, 4)  # and our next ping: seat 2 is heard
            elif how == "told too late":
                presence.heard(2, now - 0.4)
                presence.heard_ms(now - 0.2, 4)  # too late for seat 0, whose word was on its way
            elif how == "told before we stalled":
                presence.heard(2, now - 0.95)
                presence.heard_ms(now - 0.9, 4)  # seat 2 heard; then our loop did not listen,
                presence.deaf.append((now, 0.6))  # and the word waited here meanwhile (an attack's reading)
            elif how == "its move came to us alone":
                presence.heard(2, now - 0.3)
                session.node.expect = []  # we owe seat 2 nothing more: its move is in (an attack)
            elif how.startswith("busy"):
                presence.busy(2, now - 0.3, 2.0)
            else:
                presence.heard(2, now - 0.3)  # to us alone, after that ping
        gone = seal(identities[0], "gone", GONE_OF_0)
        if how == "its move came to us alone":
            result = from_seat0(session, identities, gone)
        elif how == "talks again":
            assert from_seat0(session, identities, gone) is None  # a claim: we wait
            presence.heard(2, time.monotonic())
            presence.heard(2, time.monotonic())
            result = session._check_gone(time.monotonic())
        else:
            result = session._handle(b"seat 2's link", gone, identities[2].public.dh_key)
        assert result is not None and result.outcome is Outcome.QUIT, (how, result)
        if how.startswith(("told in time", "heard all along")):
            assert session.reason != "unclear-silence" and "nobody is blamed but s0 (seat 0)" in result.message, (how, result)
        else:
            assert session.reason == "unclear-silence" and "blamed but" not in result.message, (how, result)


def test_a_seat_that_kept_us_waiting_less_than_our_longer_wait_comes_back_and_nobody_is_blamed(tmp_path: Path) -> None:
    """Each seat sets its own --wait.  Seat 2 fell silent (or held back a protocol record it
    owed) for 8 s; seat 0, whose wait is 8 s, rightly said it was gone; ours is 20 s, so we
    took the word as a claim, and when seat 2 then spoke twice, or its record came, we named
    seat 0 (one liar, an attack).  A seat that has kept us waiting about as long as the
    accuser's own wait, as its pings announce it (3 s, at most half ours, if they announce
    none), may rightly be called gone by it: nobody is blamed.  Not so a seat heard and owing
    nothing new until the word came, nor one silent for far less than the wait the accuser
    announced: the accuser is named."""
    for how in ("silent, then heard again", "silent, then its move comes", "its shares held back, then sent",
                "silent, its accuser's wait said 8 s, then heard again", "heard all along, then heard again",
                "silent, its accuser's wait said 60 s, then heard again",
                "silent, its accuser's wait said 60 s and 8 s, then heard again"):
        where = tmp_path / how.replace(" ", "-").replace(",", "")
        session, identities, _ = waiting_for_seat2s_move(where)
        session.wait = 20.0
        presence = session.presence
        now = time.monotonic()
        for seat in (0, 3):
            presence.heard(seat, now - 0.2)
        if how.startswith("silent"):
            presence.last_heard[2] = presence.arrived[2] = now - 8.0
        else:
            presence.heard(2, now - 0.2)
        if how.startswith("its shares"):
            session.node.expect = [[Expect(2, "shares")]]
            session._head_since = session._head_moved = now - 8.0  # due here for 8 s
            session._head_seen = session.node.log.head
        for said in re.findall(r"(\d+) s\b", how.split("said", 1)[1]) if "said" in how else ():
            # its pings: a seat that restarted may announce a shorter wait (an attack's reading)
            assert from_seat0(session, identities, seat0_ping(identities, int(said), [0, 0, 8000, 200])) is None
        gone = seal(identities[0], "gone", GONE_OF_0)
        assert from_seat0(session, identities, gone) is None, how  # a claim: we wait
        later = time.monotonic()
        if how.endswith("heard again"):
            presence.heard(2, later)
            presence.heard(2, later + 0.1)
        else:
            session.node.step_got = {2: b"its record"}
        result = session._check_gone(later + 0.1)
        assert result is not None and result.outcome is Outcome.QUIT, (how, result)
        if how.startswith("heard all along") or how.endswith("60 s, then heard again"):
            assert session.reason != "unclear-silence" and "nobody is blamed but it" in result.message, (how, result)
        else:
            assert session.reason == "unclear-silence" and "blamed but" not in result.message, (how, result)


def owing_shares_due_for(where: Path, due: float) -> tuple[Session, list[Identity], float]:
    """Seat 1 (wait 20 s) waiting for seat 2's shares, due here ``due`` seconds, with seat 0's
    pings announcing a wait of 8 s; and the time now."""
    session, identities, _ = waiting_for_seat2s_move(where)
    session.wait = 20.0
    now = time.monotonic()
    for seat in (0, 2, 3):
        session.presence.heard(seat, now - 0.2)
    assert from_seat0(session, identities, seat0_ping(identities, 8, [0, 0, 200, 200])) is None
    session.node.expect = [[Expect(2, "shares")]]
    session._head_seen, session._head_since, session._head_moved = session.node.log.head, now - due, now - due
    assert session._check_stalled(now - 0.2) is None  # waiting for it
    return session, identities, now


def test_a_record_that_came_here_due_about_as_long_as_the_accusers_wait_blames_nobody(tmp_path: Path) -> None:
    """Seat 2 held back a protocol record and sent it to us alone just before seat 0's wait of
    8 s ran out; seat 0 rightly said it withheld it.  Our wait is 20 s: the record came here
    in good time by ours, seat 2 owed us nothing more, and we named seat 0 (one liar, an
    attack).  A record due here about as long as the accuser's wait when it came, shortly
    before the word, does not show the accuser wrong: nobody is blamed.  One that came at once
    does: seat 0 is named."""
    for due in (7.8, 1.0):
        session, identities, now = owing_shares_due_for(tmp_path / f"due-{due}", due)
        session.node.step_got = {2: b"its record"}  # it came
        assert session._check_stalled(now - 0.1) is None
        session.node.expect, session.node.step_got = [[Expect(2, "shares")]], {}  # and its next, at once:
        session._head_seen = b"the next step"
        assert session._check_stalled(now - 0.08) is None
        session.node.step_got = {2: b"its next record"}  # it owes us nothing more (an attack hid the first so)
        assert session._check_stalled(now - 0.05) is None
        gone = {"game_id": GAME, "seat": 0, "absent": 2, "why": "s2 sent no shares record within 8 s"}
        result = from_seat0(session, identities, seal(identities[0], "gone", gone))
        assert result is not None and result.outcome is Outcome.QUIT, (due, result)
        if due > 5:
            assert session.reason == "unclear-silence" and "blamed but" not in result.message, (due, result)
        else:
            assert "nobody is blamed but the one who stopped" in result.message, (due, result)


def test_a_word_passed_on_behind_the_withheld_record_is_judged_as_the_claim_it_began(tmp_path: Path) -> None:
    """Seat 2 held back a protocol record, due here 8 s; seat 0, whose wait is 8 s, rightly
    said it withheld it, and we (20 s) took the word as a claim.  Then seat 2 sent us the
    record and, behind it on one write, seat 0's word (or seat 3 passed it on then): taken in
    one poll, the word found the record come but not yet noted, seat 2 owing nothing, and we
    named seat 0 (one liar, an attack).  The word again is judged as the claim would be now,
    and a record come in the same poll as a first word counts as come: a record due here
    about as long as the accuser's wait blames nobody; one due a second, the accuser."""
    for due, carrier in itertools.product((8.0, 1.0), (2, 3, 0)):  # 0: the first word, in the record's poll
        session, identities, _ = owing_shares_due_for(tmp_path / f"due-{due}-by-{carrier}", due)
        gone = seal(identities[0], "gone", {"game_id": GAME, "seat": 0, "absent": 2, "why": "s2 sent no shares record"})
        if carrier != 0:
            assert from_seat0(session, identities, gone) is None  # a claim: we wait for the record ourselves
        session.node.step_got = {2: b"its record"}  # it comes, and in the same poll the word (again):
        result = session._handle(f"seat {carrier}'s link".encode(), gone, identities[carrier].public.dh_key)
        assert result is not None and result.outcome is Outcome.QUIT, (due, carrier, result)
        if due > 5:
            assert session.reason == "unclear-silence" and "blamed but" not in result.message, (due, carrier, result)
        else:
            assert result.culprit == 0 and "nobody is blamed but" in result.message, (due, carrier, result)


def test_a_busy_said_as_the_accusers_wait_ran_out_does_not_make_the_withheld_record_look_fresh(tmp_path: Path) -> None:
    """Seat 2 held back a protocol record for all of seat 0's wait and ours (8 s each), then,
    as they ran out, told us alone it was busy for 20 s: our wait moved on, seat 0 rightly
    said it withheld the record, and the record then came here (or came just before the
    word).  It looked due for no time at all, and we named seat 0 (one liar, an attack).  A
    busy notice that comes later than ``_least_silence`` after the record fell due moves our
    own wait, not how long the record was due when we judge a word about it: nobody is blamed.
    One said as the record fell due, which we passed on, seat 0 should have heeded: named."""
    for busy_after, record_first in itertools.product((7.9, 0.2), (False, True)):
        session, identities, now = owing_shares_due_for(tmp_path / f"busy-{busy_after}-{record_first}", 8.0)
        session.presence.busy(2, session._head_moved + busy_after, 20.0)
        gone = seal(identities[0], "gone", {"game_id": GAME, "seat": 0, "absent": 2, "why": "s2 sent no shares record"})
        if record_first:
            session.node.step_got = {2: b"its record"}
            assert session._check_stalled(now) is None  # it came, noted
            result = from_seat0(session, identities, gone)
        else:
            assert from_seat0(session, identities, gone) is None  # a claim: we wait for the record ourselves
            session.node.step_got = {2: b"its record"}
            result = session._check_gone(now + 0.1)
        assert result is not None and result.outcome is Outcome.QUIT, (busy_after, record_first, result)
        if busy_after > 5:
            assert session.reason == "unclear-silence" and "blamed but" not in result.message, (busy_after, result)
        else:
            assert result.culprit == 0 and "nobody is blamed but" in result.message, (busy_after, result)


def test_our_own_stall_does_not_make_the_withheld_record_look_fresh_when_a_word_about_it_comes(tmp_path: Path) -> None:
    """Seat 2 held back a protocol record for all of seat 0's wait and ours (8 s each), and
    stalled our loop meanwhile with messages slow to decode: our wait moved on by the stall
    (rightly: we did not listen), seat 0 rightly said it withheld the record, and when the
    record then came it looked due a few seconds by our moved clock: we named seat 0 (one
    liar, an attack).  How long a record was due, against an accuser's wait, is by the clock:
    nobody is blamed."""
    session, identities, now = owing_shares_due_for(tmp_path, 8.0)
    session._not_listened(5.0)
    gone = seal(identities[0], "gone", {"game_id": GAME, "seat": 0, "absent": 2, "why": "s2 sent no shares record"})
    assert from_seat0(session, identities, gone) is None  # a claim: by our own wait it is not late yet
    session.node.step_got = {2: b"its record"}
    result = session._check_gone(now + 0.1)
    assert result is not None and result.outcome is Outcome.QUIT, result
    assert session.reason == "unclear-silence" and "blamed but" not in result.message, result


def test_our_own_stall_does_not_make_a_withheld_record_look_not_due_at_the_seat_that_passes_on_the_word(
        tmp_path: Path) -> None:
    """Seat 2 held back a shares record for all of seat 0's wait and ours (8 s each), said in
    its pings to us that it lacked a record of another seat's from before this step, and stalled
    our loop meanwhile with records slow to decode.  Seat 0 rightly said it withheld the record,
    and seat 2 passed that word on to us itself.  Whether the record was due at seat 2's own seat
    (the others' resends bring it what it says it lacks) was judged by how long ago our log grew
    by our clock, which the stall had moved on: not due there, and we named seat 0 (one liar,
    an attack).  By the clock the word is a claim, as without the stall."""
    for deaf in (0.0, 6.0):
        session, identities, _ = owing_shares_due_for(tmp_path / f"deaf-{deaf}", 8.0)
        session.wait = 8.0
        session.node.step_starts = [0, 5]  # the step starts at record 5, none before it seat 2's
        ping = seal(identities[2], "ping", {"game_id": GAME, "seat": 2, "to": 1, "away": [], "t": 0, "records": 4,
                                           "got": [], "done": False, "heard": [0, 0, 0, 0], "wait": 8})
        assert session._handle(b"seat 2's link", ping, identities[2].public.dh_key) is None
        session._not_listened(deaf)
        gone = seal(identities[0], "gone", {"game_id": GAME, "seat": 0, "absent": 2, "why": "s2 sent no shares record"})
        assert session._handle(b"seat 2's link", gone, identities[2].public.dh_key) is None, deaf  # a claim
        assert session._claim is not None and session._claim.absent == 2, deaf


def vouched(session: Session, at: float) -> None:
    """Seat 3 is heard at ``at``, saying it heard seat 2 just before."""
    session.presence.heard(3, at)
    session.presence.heard_through(2, 3, at - 0.2)


def test_a_move_claim_whose_accused_stays_silent_here_while_another_vouches_ends_after_our_wait(tmp_path: Path) -> None:
    """Seat 0 says seat 2, whose move we wait for, is gone; seat 2 was heard here lately, so we
    take the word as a claim and tell the player we wait up to our wait to see it here.  Seat 2
    says nothing more to us, while seat 3 keeps saying it hears seat 2: we waited for the move
    for ever, past what we told the player (two colluders keep the table so).  Once our own
    wait since the claim has run out, the game ends, blaming nobody: seat 0 or seat 3 says what
    is not so, and nothing here tells which.  Not while seat 2 was heard here lately, nor while
    our own time not listening leaves the wait short."""
    for how in ("silent", "heard here lately", "we stalled"):
        where = tmp_path / how.replace(" ", "-")
        session, identities, said = waiting_for_seat2s_move(where)
        now = time.monotonic()
        for seat in (0, 2, 3):
            session.presence.heard(seat, now - 1.0)
        gone = seal(identities[0], "gone", GONE_OF_0)
        assert from_seat0(session, identities, gone) is None  # a claim: we wait
        assert any(f"waiting up to {session.wait:.0f} s" in line for line in said), said
        since = session._claim.since
        for later in (since + 3.0, since + session.wait / 2, since + session.wait - 0.5):
            vouched(session, later)
            assert session._check_gone(later) is None, (how, later)  # within our wait: we still wait
        end = since + session.wait + 0.5
        if how == "heard here lately":
            session.presence.heard(2, end - 1.0)  # once: not yet a sign that it is back
        elif how == "we stalled":
            session.presence.deaf.append((end - 2.0, 1.5))
        vouched(session, end)
        result = session._check_gone(end)
        if how != "silent":
            assert result is None, (how, result)
            continue
        assert result is not None and result.outcome is Outcome.QUIT and session.reason == "unclear-silence", result
        assert "is silent here as our wait" in result.message and "s3 (seat 3) says it hears it" in result.message
        assert "nobody is blamed" in result.message and "blamed but" not in result.message


def test_a_seat_whose_silence_our_own_stall_hid_comes_back_and_nobody_is_blamed(tmp_path: Path) -> None:
    """Seat 2 was silent a little longer than the wait, everywhere; seat 0 rightly said it was
    gone.  Our loop had stalled for a second as that wait ran out: our clocks skip time we do
    not listen, so seat 2 looked silent for less than the wait here, seat 0's word became a
    claim, and when seat 2 then spoke twice we named seat 0, honest (an attack)."""
    session, identities, _ = waiting_for_seat2s_move(tmp_path)
    now = time.monotonic()
    session.presence.last_heard[2] = session.presence.arrived[2] = now - session.wait - 0.1
    for seat in (0, 3):
        session.presence.heard(seat, now - 1.0)
    session._not_listened(1.0)  # our loop was busy for the last second
    gone = seal(identities[0], "gone", GONE_OF_0)
    assert from_seat0(session, identities, gone) is None  # a claim: we wait
    later = time.monotonic()
    session.presence.heard(2, later)
    session.presence.heard(2, later + 0.5)
    result = session._check_gone(later + 0.5)
    assert result is not None and result.outcome is Outcome.QUIT and session.reason == "unclear-silence", result


def test_an_ending_of_another_game_passed_on_does_not_make_its_carrier_look_stopped(tmp_path: Path) -> None:
    """Seat 0 passed on seat 3's bye from another game (identities outlive games), then
    withheld its shares: it was counted as stopped on seat 3's word, and the game ended
    naming seat 3, honest, as the one who stopped it (found by review)."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    session, identities, _ = session_for_tests(tmp_path, players=4)
    session.log_path = tmp_path / "seat1.log"
    session.node.expect = [[Expect(0, "shares"), Expect(2, "shares"), Expect(3, "shares")]]
    old_bye = seal(identities[3], "bye", {"game_id": bytes(32), "seat": 3})
    assert session._handle(b"seat 0's link", old_bye, identities[0].public.dh_key) is None
    later = time.monotonic() + session.wait + 5
    for seat in (2, 3):
        session.presence.heard(seat, later)
    session._check_away(later)
    result = session._check_gone(later)
    assert result is not None and result.outcome is Outcome.PEER_GONE and result.culprit == 0, result


def test_an_ending_dropped_as_bad_does_not_make_its_carrier_look_stopped(tmp_path: Path) -> None:
    """Two colluders: seat 2 passed on a gone of seat 0's that names no seat, which we drop;
    yet its carrier was counted as stopped, and when seat 0, silent here, then said we were
    gone, no other seat seemed to be playing: we named ourselves as cut off, with seat 2 heard
    all along (an attack).  Only an ending taken as sound shows its carrier stopped."""
    session, identities, said = seat1(tmp_path)
    now = time.monotonic()
    session.presence.away.add(0)  # seat 0 talks to us no more
    bad = seal(identities[0], "gone", {"game_id": GAME, "seat": 0, "absent": "x", "why": "?"})
    assert session._handle(b"seat 2's link", bad, identities[2].public.dh_key) is None
    assert any("dropped a bad gone" in line for line in said)
    session.presence.heard(2, now)
    gone = seal(identities[0], "gone", {"game_id": GAME, "seat": 0, "absent": 1, "why": "s1 did not come back"})
    # as the session judges a gone that came on a connection that proves no key
    assert session._heard_gone(open_envelope(gone), 0, now) is None  # we owe nothing yet: we stay a moment for it
    result = session._check_gone(time.monotonic() + 10)
    assert result is not None and result.outcome is Outcome.QUIT and result.culprit == 0, said
    assert "it is not this machine that lost the table" in result.message


def test_a_seat_heard_signing_for_another_game_is_not_simply_named_as_gone(tmp_path: Path) -> None:
    """A host that starts the seats on two games with the same seats (two nonces of its own)
    leaves each joiner hearing the other's pings for the other game while its records never
    come: each named the other, an honest seat, as withholding its record.  The seat is heard
    signing for another game; the ending says so, and that it is then not to blame."""
    session, identities, said = seat1(tmp_path)
    other = bytes(reversed(range(32)))
    ping = seal(identities[2], "ping", {"game_id": other, "seat": 2, "to": 1})
    assert session._handle(b"seat 2's link", ping, identities[2].public.dh_key) is None
    assert session._handle(b"seat 2's link", ping, identities[2].public.dh_key) is None
    notices = [line for line in said if "another game" in line]
    assert len(notices) == 1 and "s2 (seat 2)" in notices[0]  # said once
    result = session._end_gone(2, "s2 (seat 2) sent no key record within 8 s")
    assert result.outcome is Outcome.PEER_GONE and result.culprit == 2
    assert "signs its messages for another game" in result.message and "not to blame" in result.message


def test_a_verdict_read_back_keeps_its_reason_and_detail_as_short_as_a_written_one() -> None:
    """A forged `stopped` verdict's reason of 4,000 spaces went whole into a spectator's
    line, pushing the words that refute it screens away (found by an attack): read back, a
    verdict's reason and detail are cut as Ending.to_bytes cuts them."""
    import msgpack

    from saboteur_p2p.protocol.ending import VERDICT_TAG, Ending

    body = {"outcome": "cheater", "culprit": 1, "reason": "bad-shuffle" + " " * 4000 + "x",
            "detail": "d" * 4000, "evidence": None, "seat": 0}
    read = Ending.from_bytes(msgpack.packb([VERDICT_TAG, body], use_bin_type=True))
    assert read is not None and read.outcome == "cheater"
    assert len(read.reason.encode()) <= 64 and read.reason.startswith("bad-shuffle")
    assert len(read.detail.encode()) <= 500


def test_busy_notices_are_passed_on_once_each_second_they_move_the_wait_and_never_when_they_move_nothing(
    tmp_path: Path,
) -> None:
    """Attacks on the relay of busy notices: one with seconds 0 moved nothing and went round
    the honest seats for ever (hundreds a second); notices that each moved the wait by 0.9 s
    were never passed on, and crept one seat's wait 60 s ahead of the others'."""
    session, identities, _ = seat1(tmp_path)
    sent = session.transport.sent  # type: ignore[attr-defined]
    link = identities[2].public.dh_key
    for seconds in (0, -5.0, float("nan")):
        nothing = seal(identities[2], "busy", {"game_id": GAME, "seat": 2, "seconds": seconds})
        session._handle(b"seat 2's link", nothing, link)
        session._handle(b"seat 0's link", nothing, identities[0].public.dh_key)  # brought back by another
        assert not any(data == nothing for _, data in sent), seconds
    passed = []
    for step in range(1, 21):  # 0.9 s more each time, as fast as they come
        creeping = seal(identities[2], "busy", {"game_id": GAME, "seat": 2, "seconds": 0.9 * step})
        session._handle(b"seat 2's link", creeping, link)
        passed += [step for endpoint, data in sent if data == creeping and endpoint == SEAT0]
    assert passed and all(later - earlier <= 2 for earlier, later in itertools.pairwise(passed))
    assert 0.9 * 20 - 0.9 * passed[-1] <= 1.0  # seat 0 is never more than a second behind us
    again = seal(identities[2], "busy", {"game_id": GAME, "seat": 2, "seconds": 0.9 * 20})
    sent.clear()
    session._handle(b"seat 0's link", again, identities[0].public.dh_key)  # a copy that moves nothing
    assert not sent
