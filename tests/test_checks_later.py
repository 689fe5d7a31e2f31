"""Checks a seat leaves for the background (protocol.md §5.6.2, §8.3): the shuffles of a batch
opened ahead, and the shares published for a card's first reveal, checked when the card is
shown to all.  The earliest record at fault decides the verdict, as for a seat that checks
at once; a check the background thread has not begun is run by the seat that needs it."""
from __future__ import annotations

import threading

from protocol_helpers import game_at, hear, signed_record

from saboteur_p2p.protocol import ahead
from saboteur_p2p.protocol.errors import ProtocolViolation


def _blame(seat: int) -> ProtocolViolation:
    return ProtocolViolation(seat, "bad-share", "a check of an earlier record failed")


def test_a_check_left_from_an_earlier_record_decides_the_verdict_over_a_later_fault() -> None:
    """A card opened with a false share can make a true move look false: the seat that took
    the card's record in without checking its shares yet must name the share's sender, as a
    seat that checked at once did, not the mover."""
    game = game_at("move")
    seat = game.nodes[2]
    release = threading.Event()
    busy = ahead._background().submit(release.wait)  # the thread cannot begin our check
    try:
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
    finally:
        release.set()
        busy.result(timeout=10)


def test_without_an_earlier_fault_a_later_record_is_refused_as_it_was() -> None:
    game = game_at("move")
    release = threading.Event()
    busy = ahead._background().submit(release.wait)
    try:
        game.nodes[2].ahead.check_later(lambda: None, game.records[-1])
        verdicts = hear(game, signed_record(game, 2, "action", {"action": "discard 0"}), 0, 1, None)
        named = verdicts[2]
        assert named is not None and (named.peer, named.reason) == (2, "out-of-turn"), named
    finally:
        release.set()
        busy.result(timeout=10)


def test_a_check_the_background_thread_has_not_begun_is_run_by_the_seat_that_needs_it() -> None:
    """On a busy machine the background thread, at the lowest priority, may wait long for a
    core: a seat about to send shares does not wait for it."""
    game = game_at("move")
    seat = game.nodes[2]
    release = threading.Event()
    busy = ahead._background().submit(release.wait)
    ran_in: list[str] = []
    try:
        seat.ahead.check_later(lambda: ran_in.append(threading.current_thread().name), game.records[-1])
        assert not seat.ahead.settled()
        finisher = threading.Thread(target=seat.finish_checks, name="the seat's own")
        finisher.start()
        finisher.join(timeout=10)  # it would wait for ``release`` if it waited for the thread
        assert not finisher.is_alive()
        assert ran_in == ["the seat's own"] and seat.ahead.settled()
    finally:
        release.set()
        busy.result(timeout=10)
