"""The absence rules and another seat's word (``heard``, protocol.md §12.4): a seat the others
hear is waited for, not named; another seat's word never makes us blame one; our own lost
link is told from another seat's silence.  Each test was written failing, before its fix
(most found by attacks on the rule)."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from clocked_sessions import clocked_session, judged_for, ping_from
from protocol_helpers import dealt_game, path_first, play_until, seeded_game

from saboteur_p2p.net import session as session_module
from saboteur_p2p.net.session import Outcome
from saboteur_p2p.net.wire import seal
from saboteur_p2p.protocol.local import LocalGame
from saboteur_p2p.rules import GameConfig


def test_a_seat_the_others_hear_is_not_named_here_until_they_too_lose_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 1 owes a move and sends us nothing (it stopped talking to us alone, or our link to
    it is down) while seat 2's pings say it heard seat 1 just now.  Before, we named seat 1
    after our wait, and seat 2, which heard it, then named us for ending the game.  Now we
    wait while seat 2 hears it (its records would reach us through seat 2's resends); once
    seat 2 stops hearing it, our wait runs from when seat 2 last did, and seat 1 is named.
    A ``heard`` that is not an array of milliseconds by seat crashes nothing and vouches for nobody."""
    game = dealt_game(GameConfig(3), 5)
    play_until(game, lambda e: e.speaker == 1 and e.kind == "action")
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    said: list[str] = []
    session.say = said.append
    other = game.nodes[2].identity
    assert other is not None

    def run_for(seconds: float, heard: Callable[[], object]) -> session_module.SessionResult | None:
        def feed(elapsed: float) -> None:
            ping = {"game_id": game.setup.game_id, "seat": 2, "to": 0, "records": len(session.node.records),
                    "got": [], "away": [], "t": 0, "done": False, "heard": heard()}
            assert session._handle(b"L2", seal(other, "ping", ping)) is None
        return judged_for(session, clock, seconds, feed)

    assert run_for(60.0, lambda: [100, 200, 0]) is None, said
    assert 1 in session.presence.away
    assert len(said) == 1 and said[0].startswith(f"{session.names[1]} is not heard here (no word for "), said
    assert said[0].endswith(f"but {session.names[2]} says it hears {session.names[1]}: what {session.names[1]} sends comes "
                            f"through the others, and the table waits for it as for any seat")
    lost = clock.now
    for bad in ({1: 0}, [0, -5], [0, 2**40], [0, "0"], [0, [0]], [0, 0.5], [0] * 300):
        assert run_for(0.5, lambda bad=bad: bad) is None  # vouches for nobody
    assert run_for(session.wait - 4.0, lambda: [0, int((clock.now - lost) * 1000)]) is None
    result = run_for(3.0, lambda: [0, int((clock.now - lost) * 1000)])
    assert result is not None and (result.outcome, result.culprit) == (Outcome.PEER_GONE, 1), said
    assert lost + session.wait <= clock.now <= lost + session.wait + 1.0


def test_a_seats_word_that_it_hears_a_gone_seat_never_makes_us_blame_the_seat_that_names_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 2 crashed; seat 1 (hostile) keeps saying in its pings that it heard seat 2 just now.
    When honest seat 3 names seat 2 as gone, we do not blame seat 3: before, seat 2 counted as
    heard here, it owed us nothing yet, and we named seat 3 (found by an attack).  Nor do we
    name seat 2 on seat 3's word, though our own silence of it is past our wait: seat 1 says it
    hears it, and a seat whose link to us alone is down is so too (a liar's word named such a
    seat: another attack).  Nothing here tells who is right: nobody is blamed."""
    game = dealt_game(GameConfig(4), 5)
    play_until(game, lambda e: e.speaker == 1 and e.kind == "action")
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    session.say = lambda text: None

    def feed(elapsed: float) -> None:
        assert session._handle(b"L1", ping_from(game, session, 1, [0, 0, 0, 0])) is None
        assert session._handle(b"L3", ping_from(game, session, 3, [0, 0, int(elapsed * 1000), 0])) is None
    assert judged_for(session, clock, 20, feed) is None  # seat 2 owes nothing here yet
    accuser = game.nodes[3].identity
    assert accuser is not None
    gone = seal(accuser, "gone", {"game_id": game.setup.game_id, "seat": 3, "absent": 2, "why": "seat 2 did not come back"})
    result = session._handle(b"L3", gone)
    assert result is not None and result.outcome is Outcome.QUIT and session.reason == "unclear-silence", result
    assert "(seat 1) says it hears it" in result.message and "nobody is blamed" in result.message, result.message


def test_a_gone_about_a_seat_that_owes_nothing_and_that_another_seat_hears_names_nobody(tmp_path: Path) -> None:
    """Seat 2's link to us alone is down (a network fault): silent here 12 s, past our wait,
    while honest seat 3's pings say it heard it 0.2 s ago; seat 3 is to move, so seat 2 owes
    us nothing, and our own rules wait.  Hostile seat 0 says seat 2 is gone: we named seat 2,
    an honest seat the table hears, on a liar's word (an attack; 3 of 3 network games).
    Nothing here tells who is right: nobody is blamed, and the others' word is said."""
    import time

    from net_doubles import session_for_tests

    from saboteur_p2p.protocol.node import Expect

    session, identities, _ = session_for_tests(tmp_path, players=4)
    session.log_path = tmp_path / "seat1.log"
    session.wait = 8.0
    game_id = session.setup.game_id
    session.node.expect = [[Expect(3, "action")]]
    now = time.monotonic()
    for seat in (0, 3):
        session.presence.heard(seat, now - 0.1)
    session.presence.last_heard[2] = session.presence.arrived[2] = now - 12.0
    session.presence.away.add(2)
    ping = seal(identities[3], "ping", {"game_id": game_id, "seat": 3, "to": 1, "away": [], "t": 0, "records": 0,
                                        "got": [], "done": False, "heard": [0, 0, 200, 0], "wait": 8})
    assert session._handle(b"seat 3's link", ping, identities[3].public.dh_key) is None
    assert session._check_gone(time.monotonic()) is None  # our own rules wait
    gone = seal(identities[0], "gone", {"game_id": game_id, "seat": 0, "absent": 2, "why": "s2 did not come back"})
    result = session._handle(b"seat 0's link", gone, identities[0].public.dh_key)
    assert result is not None and result.outcome is Outcome.QUIT and session.reason == "unclear-silence", result
    assert "(seat 2) is silent here and owes us nothing, but s3 (seat 3) says it hears it" in result.message


def test_a_seat_that_stopped_talking_to_us_long_before_the_last_seat_fell_silent_is_named_not_our_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 2 owes a move and stops talking to us alone; seat 1 hears it and says so, until
    seat 1's machine crashes 10 s later.  Now nobody is heard here, but seat 2 fell silent 10 s
    before seat 1 did, with our link up: we name seat 2, not this machine (before, seat 1's
    word kept us waiting until everyone was silent, and we named ourselves: found by an attack).
    A link of ours that fails silences every seat at once, and then we do name ourselves."""
    game = dealt_game(GameConfig(3), 5)
    play_until(game, lambda e: e.speaker == 2 and e.kind == "action")
    for crash_at in (10.0, 0.0):
        session, clock = clocked_session(game, tmp_path / f"crash{crash_at}", monkeypatch)
        session.say = lambda text: None

        def feed(elapsed: float, session: session_module.Session = session, crash_at: float = crash_at) -> None:
            if elapsed < crash_at:
                assert session._handle(b"L1", ping_from(game, session, 1, [0, 0, 0])) is None
        result = judged_for(session, clock, 60, feed)
        assert result is not None, crash_at
        assert (result.outcome, result.culprit) == (Outcome.PEER_GONE, 2 if crash_at else 0), (crash_at, result.message)


def test_a_gone_about_a_seat_another_seat_still_hears_is_judged_as_a_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 1 owes a move; its link to us alone is down, and seat 2 says it hears seat 1, so we
    wait for it.  Hostile seat 3 then says seat 1 is gone.  Our own silence of seat 1 is past
    our wait, but another seat heard it within it: we do not agree at once (we named seat 1:
    found by an attack) but see for ourselves, and when seat 1's move comes through seat 2,
    we name seat 3."""
    game = dealt_game(GameConfig(4), 5)
    play_until(game, lambda e: e.speaker == 1 and e.kind == "action")
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    said: list[str] = []
    session.say = said.append

    def feed(elapsed: float) -> None:
        for seat in (2, 3):
            assert session._handle(b"L%d" % seat, ping_from(game, session, seat, [0, 0, 0, 0])) is None
    assert judged_for(session, clock, 15, feed) is None
    hostile, relayer = game.nodes[3].identity, game.nodes[2].identity
    assert hostile is not None and relayer is not None
    gone = seal(hostile, "gone", {"game_id": game.setup.game_id, "seat": 3, "absent": 1, "why": "seat 1 is gone"})
    assert session._handle(b"L3", gone) is None
    assert session._check_gone(clock.now) is None and "waiting up to 5 s to see it here" in said[-1], said
    move = game.nodes[1].move(path_first(1, game.nodes[1]))
    result = session._handle(b"L2", seal(relayer, "record", {"record": move}))
    result = result or session._check_gone(clock.now)
    assert result is not None and (result.outcome, result.culprit) == (Outcome.QUIT, 3), result


def test_busy_notices_from_a_seat_do_not_turn_our_lost_link_into_another_seats_absence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 1 owes a move; hostile seat 2 keeps saying it is busy (60 s); then our own link
    fails, and nothing comes from anyone.  A busy notice moves a seat's silence on, and the
    test of whether seat 1 fell silent with the rest read that as seat 2 being heard long
    after: we named seat 1 rather than our own link (found by an attack).  It reads when
    messages came."""
    game = dealt_game(GameConfig(3), 5)
    play_until(game, lambda e: e.speaker == 1 and e.kind == "action")
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    session.say = lambda text: None
    session.wait = 120.0
    hostile = game.nodes[2].identity
    assert hostile is not None

    def feed(elapsed: float) -> None:
        if elapsed < 10:
            for seat in (1, 2):
                assert session._handle(b"L%d" % seat, ping_from(game, session, seat, [0, 0, 0])) is None
            busy = seal(hostile, "busy", {"game_id": game.setup.game_id, "seat": 2, "seconds": 60})
            assert session._handle(b"L2", busy) is None
    result = judged_for(session, clock, 300, feed)
    assert result is not None and (result.outcome, result.culprit) == (Outcome.PEER_GONE, 0), result


def test_our_lost_link_is_not_blamed_on_a_seat_that_was_busy_making_a_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 1 says it is busy (a shuffle's proof, 20 s) and goes quiet; 8 s later our own link
    fails.  Its last message came 8 s before seat 2's, but it was busy then: we name our own
    link, not seat 1 (found by review)."""
    game = seeded_game(GameConfig(3), 5)
    play_until(game, lambda e: e.speaker == 1 and e.kind != "action")
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    session.say = lambda text: None
    busy_seat = game.nodes[1].identity
    assert busy_seat is not None
    busy = seal(busy_seat, "busy", {"game_id": game.setup.game_id, "seat": 1, "seconds": 20})
    assert session._handle(b"L1", busy) is None

    def feed(elapsed: float) -> None:
        if elapsed < 8:
            assert session._handle(b"L2", ping_from(game, session, 2, [0, 0, 0])) is None
    result = judged_for(session, clock, 120, feed)
    assert result is not None and (result.outcome, result.culprit) == (Outcome.PEER_GONE, 0), result


def test_a_seat_away_here_that_another_seat_then_hears_is_said_to_be_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 1 falls silent (away); later seat 2 says it hears seat 1 again, but seat 1 still
    sends us nothing (it came back on a new endpoint we never learnt, say).  The player was
    left reading that seat 1 was away while its moves kept coming (found by a play-test):
    now they are told, once, that seat 2 hears it."""
    # seat 2 hears seat 1 again at 10 s
    _game, session, said = seat_1_falls_silent(tmp_path, monkeypatch, 20.0, lambda t: 0 if t > 10.0 else int(t * 1000))
    names = session.names
    assert said[0] == f"{names[1]} is away (no word for 4 s); the table waits up to 5 s", said
    relayed = [line for line in said if line.startswith(f"{names[1]} is not heard here")]
    assert len(relayed) == 1 and f"but {names[2]} says it hears {names[1]}" in relayed[0], said


def test_a_seat_never_heard_since_this_one_started_is_not_called_away_nor_then_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat that came back (or is starting) heard nobody for its first seconds, and told its
    player that the others were away, then back (found by a play-test): it was the one that
    had been away.  A seat not yet heard in this run gets "no word yet", and no "back"; a seat
    heard, then silent, is away and back as ever."""
    game = dealt_game(GameConfig(3), 5)
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    said: list[str] = []
    session.say = said.append
    identities = {seat: game.nodes[seat].identity for seat in (1, 2)}

    def ping(seat: int) -> None:
        identity = identities[seat]
        assert identity is not None
        body = {"game_id": game.setup.game_id, "seat": seat, "to": 0, "records": len(session.node.records), "got": [],
                "away": [], "t": 0, "done": False}
        assert session._handle(b"L%d" % seat, seal(identity, "ping", body)) is None

    clock.now += 4.0
    session._check_away(clock.now)
    names = session.names
    assert said == [f"no word yet from {names[s]} (4 s since this seat started); the table waits up to 5 s" for s in (1, 2)]
    ping(1)
    ping(2)  # no "back": it was never away
    clock.now += 11.0  # past the one notice a seat gets in 10 s
    ping(1)
    session._check_away(clock.now)
    assert said[2:] == [f"{names[2]} is away (no word for 11 s); the table waits up to 5 s"], said
    ping(2)
    assert said[3:] == [f"{names[2]} is back after 11 s of silence"], said
    # busy for 30 s, then away: back, its silence is the one its absence was told with (it
    # read "back after 0 s of silence" after "no word for 5 s", counted from the busy's end: a play-test)
    session.presence.busy(2, clock.now, 30.0)
    clock.now += 45.0
    ping(1)
    session._check_away(clock.now)
    assert said[4:] == [f"{names[2]} is away (no word for 45 s); the table waits up to 5 s"], said
    ping(2)
    assert said[5:] == [f"{names[2]} is back after 45 s of silence"], said


def test_a_seat_said_to_be_heard_elsewhere_is_said_to_be_away_once_the_others_lose_it_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 1 is cut off from every seat, and seat 2 heard it a moment later than we did (its
    last ping went out a little later).  The player was told that seat 2 hears seat 1, and then
    nothing for the whole outage (found by a test run on a faulty network): now, once seat 2
    has no word of it either, they are told that seat 1 is away, and later that it is back."""
    # seat 2 last heard seat 1 a second after we did
    game, session, said = seat_1_falls_silent(tmp_path, monkeypatch, 15.0, lambda t: max(0, int((t - 1.0) * 1000)))
    names = session.names
    assert said[0].startswith(f"{names[1]} is not heard here (no word for "), said
    assert said[1:] == [f"{names[1]} is away (no word for 4 s, here or from the others); the table waits up to 5 s"], said
    assert session._handle(b"L1", ping_from(game, session, 1, [0, 0, 0])) is None
    assert said[2:] == [f"{names[1]} is back after 15 s of silence"], said
    # a seat never heard here, only through seat 2, gets "no word yet", and no "back" (found by review)
    game, session, said = seat_1_falls_silent(tmp_path, monkeypatch, 15.0, lambda t: max(0, int((t - 1.0) * 1000)),
                                              heard_first=False)
    names = session.names
    assert said[-1] == f"no word yet from {names[1]} (none for 4 s, here or from the others); the table waits up to 5 s", said
    assert session._handle(b"L1", ping_from(game, session, 1, [0, 0, 0])) is None
    assert not any(" is back" in line for line in said), said


def seat_1_falls_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: float, heard_of_1: Callable[[float], int],
    heard_first: bool = True,
) -> tuple[LocalGame, session_module.Session, list[str]]:
    """Seat 0's session hears seat 1 once (unless not ``heard_first``), then for ``seconds``
    only seat 2's pings, which say it heard seat 1 ``heard_of_1(elapsed)`` ms ago; the game,
    the session and what it said."""
    game = dealt_game(GameConfig(3), 5)
    play_until(game, lambda e: e.speaker == 0 and e.kind == "action")
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    said: list[str] = []
    session.say = said.append
    if heard_first:
        assert session._handle(b"L1", ping_from(game, session, 1, [0, 0, 0])) is None
    started = clock.now
    while clock.now < started + seconds:
        clock.now += 0.5
        assert session._handle(b"L2", ping_from(game, session, 2, [0, heard_of_1(clock.now - started), 0])) is None
        session._check_away(clock.now)
    return game, session, said


def test_a_seat_silent_after_its_busy_time_is_told_by_its_whole_silence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A seat said it would be busy for 60 s and then said nothing for 65: the player read
    "is away (no word for 3 s)" (found by an attack).  Its silence counts for the rules from
    the end of its busy time, as before; the player is told all of it."""
    game = dealt_game(GameConfig(3), 5)
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    said: list[str] = []
    session.say = said.append
    identity = game.nodes[1].identity
    assert identity is not None
    busy = seal(identity, "busy", {"game_id": game.setup.game_id, "seat": 1, "seconds": 60})
    session._handle(b"seat1", busy)

    def others_ping(elapsed: float) -> None:
        session._handle(b"seat2", ping_from(game, session, 2, [0, int(elapsed * 1000), 0]))  # nor does seat 2 hear it

    judged_for(session, clock, 64.0, others_ping)
    away = [line for line in said if line.startswith(f"{session.names[1]} is away")]
    assert away and away[0].startswith(f"{session.names[1]} is away (no word for 6"), said


def test_a_seat_cannot_teach_us_to_wait_for_its_records_longer_than_the_wait(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The away limit is 1.5 times the longest silence between a seat's messages: a seat that
    grew its silences (2.8, 4.1 ... 17.9 s) taught every peer to wait 20 s before each of its
    records, four times a --wait of 5 s, without a word (found by an attack; silences while it
    owed nothing taught the same: found by review).  The limit is never more than the wait."""
    from saboteur_p2p.net.presence import AWAY_MAX, AWAY_MIN, Presence

    game = dealt_game(GameConfig(3), 5)
    session, clock = clocked_session(game, tmp_path, monkeypatch)
    session.presence = Presence(session.endpoints, clock.now, session.wait)
    for silence in (2.8, 4.1, 5.9, 8.5, 12.4):
        clock.now += silence
        session._handle(b"seat1", ping_from(game, session, 1, [0, 0, 0]))
    assert session.presence.away_after(1) == session.wait
    assert Presence([1], 0.0, 120.0).ceiling == AWAY_MAX and Presence([1], 0.0, 1.0).ceiling == AWAY_MIN
