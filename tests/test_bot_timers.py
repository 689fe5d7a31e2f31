"""What a bot does to SIGALRM leaves the game's time limits alone (the watchdog's timer, armed
again after each seat's start: botclock.bot_watchdog.rearm)."""
from __future__ import annotations

import time

from test_botapi import FirstLegal

from saboteur_p2p.match import play_game
from saboteur_p2p.rules import GameConfig


class TimesItsOwnStart(FirstLegal):
    """Caps its own set-up with SIGALRM the usual way: its handler and timer, then both put back."""

    def start(self, seat, config, seed):
        super().start(seat, config, seed)
        import signal

        old = signal.signal(signal.SIGALRM, lambda *_: None)
        signal.setitimer(signal.ITIMER_REAL, 2.0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


class KeepsItsOwnAlarmHandler(FirstLegal):
    def start(self, seat, config, seed):
        super().start(seat, config, seed)
        import signal

        def on_alarm(*_):
            raise TimeoutError("its own search deadline")

        signal.signal(signal.SIGALRM, on_alarm)


class HangsOnce(FirstLegal):
    def __init__(self):
        self.hung = False

    def act(self, view, legal):
        if not self.hung:  # its first move hangs (3 s at most, so a test without the timer ends)
            self.hung = True
            until = time.monotonic() + 3
            while time.monotonic() < until:
                time.sleep(0.01)
        return legal[0]


def test_what_a_bot_does_to_sigalrm_in_start_leaves_the_games_time_limits_alone():
    """The starts run under the game's ticking timer: a start that timed its own set-up
    (setitimer, then setitimer(0)) switched the time limit off, so a later act() that hung was
    never stopped; one that kept its own handler had it take the ticks, and another seat was
    blamed for its TimeoutError (review).  The timer is armed again after the starts."""
    started = time.monotonic()
    record = play_game(GameConfig(3), [TimesItsOwnStart(), HangsOnce(), "random"], seed=1, time_limit=0.3)
    assert time.monotonic() - started < 2.5
    assert [(i.seat, i.kind) for i in record.incidents] == [(1, "timeout")]
    assert record.incidents[0].detail.startswith("no answer within 0.3 s")  # stopped, not waited out ("took 3.0 s")
    for seed in range(3):
        record = play_game(GameConfig(5), [KeepsItsOwnAlarmHandler(), "heuristic", "heuristic", "random", "random"],
                           seed=seed, time_limit=5)
        assert record.incidents == []
    # and between the starts: the next seat's start that hangs is stopped, not waited out
    started = time.monotonic()
    record = play_game(GameConfig(3), [TimesItsOwnStart(), HangsAtStartAWhile(), KeepsItsOwnAlarmHandler()], seed=2,
                       time_limit=0.3)
    assert time.monotonic() - started < 2.5
    assert [(i.seat, i.kind) for i in record.incidents] == [(1, "timeout")], record.incidents
    assert record.incidents[0].detail.startswith("start(): no answer within 0.3 s"), record.incidents[0].detail


class HangsAtStartAWhile(FirstLegal):
    def start(self, seat, config, seed):
        super().start(seat, config, seed)
        until = time.monotonic() + 3
        while time.monotonic() < until:
            time.sleep(0.01)
