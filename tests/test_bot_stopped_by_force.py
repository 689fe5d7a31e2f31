"""A bot that catches its time limit's interruption and goes on is stopped by force.

A bare ``except:`` in a search loop swallowed the BotTimeout at every move: the game (and a
tournament) waited for ever.  Half a second after the deadline (``_alarm.GRACE``) the guard
raises BotTimeout again at every tick, and again at every line the bot runs in a handler
of it, until the bot's frames are left; the seat then plays safe moves for the rest of the game.
"""
from __future__ import annotations

import sys
import time

from saboteur_p2p.botapi import REST_SAFE, BaseBot, GuardedSeat
from saboteur_p2p.match import play_game
from saboteur_p2p.rules import Game, GameConfig, Pass

#: how long each bot here swallows interruptions in all (so that without the guard's force a
#: test fails after that, rather than hang the suite)
GIVE_UP = 10.0


def _work(until: float) -> int:
    """A search's step: arithmetic until ``until`` (a bound so that a broken guard fails the test)."""
    total = 0
    while time.monotonic() < until:
        total += 1
    return total


class Stubborn(BaseBot):
    """Gives up swallowing ``GIVE_UP`` after it was made."""

    def __init__(self) -> None:
        self.gives_up = time.monotonic() + GIVE_UP


class Swallowing(Stubborn):
    """A search whose every step sits in a bare ``except``: it never lets the interruption out."""

    def start(self, seat, config, seed):
        super().start(seat, config, seed)
        self.moves = 0

    def act(self, view, legal):
        self.moves += 1
        gives_up = self.gives_up
        while True:
            try:
                if _work(gives_up) >= 0 and time.monotonic() >= gives_up:
                    return legal[0]
            except:  # noqa: E722 (the bot author's mistake under test)
                pass


class SwallowingListener(Stubborn):
    """Hears events in a loop that swallows everything."""

    def on_event(self, event):
        gives_up = self.gives_up
        while True:
            try:
                if _work(gives_up) >= 0 and time.monotonic() >= gives_up:
                    return
            except BaseException:
                continue

    def act(self, view, legal):
        return legal[0]


class SwallowingStarter(Stubborn):
    def start(self, seat, config, seed):
        super().start(seat, config, seed)
        gives_up = self.gives_up
        while True:
            try:
                if _work(gives_up) >= 0 and time.monotonic() >= gives_up:
                    return
            except:  # noqa: E722
                _work(time.monotonic() + 0.01)  # a clean-up that takes a while, traced too

    def act(self, view, legal):
        return legal[0]


class LateOnce(BaseBot):
    """Catches the interruption once, then answers at once: late, but it stopped by itself."""

    def act(self, view, legal):
        try:  # noqa: SIM105 (written out as a bot author writes it)
            time.sleep(1.0)
        except BaseException:
            pass
        return legal[0]


def test_a_bot_that_swallows_the_interruption_in_act_is_stopped_and_plays_safe_moves_from_then_on():
    started = time.monotonic()
    bot = Swallowing()
    record = play_game(GameConfig(3, rounds=1), [bot, "random", "random"], seed=1, time_limit=0.1)
    assert time.monotonic() - started < 5  # one move's limit and grace, not GIVE_UP a move
    assert record.scores
    assert bot.moves == 1  # never asked again
    [incident] = record.incidents
    assert incident.seat == 0 and incident.kind == "timeout" and incident.fallback == REST_SAFE
    assert "caught the interruption and went on: stopped by force" in incident.detail


def test_a_bot_that_swallows_it_in_on_event_or_start_is_stopped_and_named():
    for bot, where in ((SwallowingListener(), "on_event()"), (SwallowingStarter(), "start()")):
        started = time.monotonic()
        record = play_game(GameConfig(3, rounds=1), [bot, "random", "random"], seed=2, time_limit=0.1)
        assert time.monotonic() - started < 5
        [incident] = record.incidents
        assert incident.detail.startswith(f"{where}: no answer within 0.1 s")
        assert "stopped by force" in incident.detail and incident.fallback == REST_SAFE


def test_outside_a_games_watchdog_the_one_shot_timer_stops_it_too_and_puts_a_tracer_back():
    """A seat asked on its own (a network peer's bot) arms a timer per move: it ticks on
    after the deadline.  A trace function set before (a debugger's, coverage's) is put back."""
    state = Game(GameConfig(3), seed=2).new_state()
    seat = GuardedSeat(Swallowing(), "swallowing", state.current, time_limit=0.1)
    seat.start(GameConfig(3), 0)

    def tracer(frame, event, arg):
        return None

    before = sys.gettrace()
    sys.settrace(tracer)
    try:
        started = time.monotonic()
        action = seat.act(state.view_for(state.current), state.legal_actions())
        elapsed = time.monotonic() - started
        after = sys.gettrace()
    finally:
        sys.settrace(before)
    assert after is tracer
    assert elapsed < 5 and isinstance(action, Pass)
    assert seat.broken and "stopped by force" in seat.incidents[0].detail


def test_a_bot_that_stops_by_itself_after_catching_it_is_only_late():
    state = Game(GameConfig(3), seed=2).new_state()
    seat = GuardedSeat(LateOnce(), "late", state.current, time_limit=0.1)
    action = seat.act(state.view_for(state.current), state.legal_actions())
    assert isinstance(action, Pass)
    [incident] = seat.incidents
    assert incident.kind == "timeout" and "force" not in incident.detail
    assert not seat.broken  # asked again next move
