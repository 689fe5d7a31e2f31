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


def test_a_tick_that_comes_while_the_guard_takes_the_stopped_bot_back_raises_nothing(monkeypatch):
    """The force's profile function runs for the guard's own calls too, after the bot is
    out: a tick in it raised BotTimeout in the guard (and the engine) and left the trace in
    place (found by review).  The tick is made to come just there."""
    import signal

    from saboteur_p2p import botclock

    fired = []
    keep = botclock._keep_stopping

    def tick_in_the_guard(frame, event, arg):
        if event == "call" and id(frame.f_globals) in botclock._GUARDS and botclock.alarm.force_at is not None and not fired:
            fired.append(frame.f_code.co_name)
            signal.raise_signal(signal.SIGALRM)  # as if the 50 ms tick came now
        return keep(frame, event, arg)

    monkeypatch.setattr(botclock, "_keep_stopping", tick_in_the_guard)
    monkeypatch.setattr(botclock, "_FORCING", (*botclock._FORCING, tick_in_the_guard.__code__))
    record = play_game(GameConfig(3, rounds=1), [Swallowing(), "random", "random"], seed=1, time_limit=0.1)
    assert fired and record.scores
    assert "stopped by force" in record.incidents[0].detail
    assert sys.gettrace() is None and sys.getprofile() is None and not botclock.alarm.forcing


def test_a_bot_stopped_by_force_under_cprofile_leaves_the_profiler_running():
    """sys.setprofile cannot put cProfile's profiler back: it ended profiling, and the bot was
    blamed for the TypeError (found by review)."""
    import cProfile

    profiler = cProfile.Profile()
    profiler.enable()
    try:
        record = play_game(GameConfig(3, rounds=1), [Swallowing(), "random", "random"], seed=1, time_limit=0.1)
        running = sys.getprofile()
    finally:
        profiler.disable()
    assert running is not None  # still cProfile's
    assert [i.kind for i in record.incidents] == ["timeout"], record.incidents


class RaisesItsOwnTimeout(BaseBot):
    """Raises BotTimeout itself (it is exported), at once."""

    def act(self, view, legal):
        from saboteur_p2p.botclock import BotTimeout

        raise BotTimeout()


def test_a_bot_that_raises_a_timeout_itself_after_another_was_forced_is_not_said_to_be_forced():
    """``forced`` was reset only when a call had been interrupted: a bot raising BotTimeout
    itself after another seat's forced stop was benched as 'stopped by force' (found by review)."""
    record = play_game(GameConfig(3, rounds=1), [Swallowing(), RaisesItsOwnTimeout(), "random"], seed=1, time_limit=0.1)
    forced = [i for i in record.incidents if i.seat == 0]
    own = [i for i in record.incidents if i.seat == 1]
    assert len(forced) == 1 and "stopped by force" in forced[0].detail
    assert own and all("force" not in i.detail for i in own)
    assert len(own) > 1  # asked again every move: not benched
