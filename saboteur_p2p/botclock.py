"""The bots' time limit in-process: a timer that interrupts a bot past its deadline with
``BotTimeout``, and stops by force a bot that swallows the interruption (``alarm``).

``botapi.GuardedSeat`` sets the deadline around every call into a bot; ``bot_watchdog`` keeps
one timer ticking for a whole game.  Signals reach the main thread only: a bot called in
another thread is judged by the clock when it returns.
"""
from __future__ import annotations

import signal
import sys
import threading
import time
from typing import Any


class BotTimeout(BaseException):
    """A bot's move ran past its time limit.  Not an ``Exception``: a bot's own
    ``except Exception`` (a search that shrugs off its errors) must not swallow it."""


class alarm:
    """Interrupt a bot that runs past its time limit (main thread on Unix only).

    Inside ``bot_watchdog()`` (a whole game) an interval timer ticks every 50 ms and raises
    BotTimeout in the bot whose deadline has passed, so a move costs two clock reads and
    no system call.  Outside it, each move arms a timer that first fires at the deadline.

    A bot that catches the BotTimeout and goes on (a bare ``except:`` in a loop) hung the
    game for ever.  ``GRACE`` after its deadline it is stopped by force: every tick raises
    BotTimeout again, and a trace function raises it once more at every line the bot runs
    while it handles one, so each handler that swallows it is left, one by one, until the
    guard's frame has it (``_stop_bot``).  Two limits of doing it in-process (docs/bots.md):
    a bot stuck in one call of C code that never returns (a regular expression that
    backtracks for ever) cannot be stopped, and one that swallows it in two handlers nested
    in one function can escape (a trace function that raises is taken away until the bot's
    next call or the next tick: the outer handler runs untraced).
    """

    TICK = 0.05
    #: how long a bot interrupted at its deadline has to stop before it is stopped by force
    GRACE = 0.5
    running = False
    #: the thread the ticking timer interrupts (signals reach the main thread only)
    thread: int | None = None
    deadline: float | None = None
    #: when an interrupted bot that has not stopped is stopped by force (None: not interrupted)
    force_at: float | None = None
    #: whether the bot in the guard now is being stopped by force, and the trace and profile
    #: functions (a debugger's, coverage's) to put back once it is out
    forcing = False
    previous_trace: Any = None
    previous_profile: Any = None
    #: whether the last bot call the guard ended had to be stopped by force
    forced = False

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.one_shot: Any = None
        self.active = False

    def __enter__(self) -> None:
        if self.seconds is None or not _can_alarm():
            return
        self.active = True
        alarm.deadline = time.monotonic() + self.seconds
        if not alarm.running:
            self.one_shot = signal.signal(signal.SIGALRM, alarm._tick)
            # it ticks on after the deadline, to stop by force a bot that does not stop
            signal.setitimer(signal.ITIMER_REAL, self.seconds, alarm.TICK)

    def __exit__(self, *exc: object) -> None:
        if not self.active:
            return
        alarm.clear()  # first: no trace left to stop the calls below (signal.signal is Python)
        if self.one_shot is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.one_shot)

    @staticmethod
    def ticks_here() -> bool:
        """Whether ``bot_watchdog``'s timer is ticking for this thread."""
        return alarm.running and alarm.thread == threading.get_ident()

    @staticmethod
    def clear() -> None:
        """The bot's call is over: no deadline, and no tracing left if it was stopped by
        force (``forced`` says whether it was)."""
        alarm.deadline = alarm.force_at = None
        alarm.forced = alarm.forcing
        if alarm.forcing:
            alarm.forcing = False
            if _ours(alarm.previous_trace):
                sys.settrace(alarm.previous_trace)
            if _ours(alarm.previous_profile):
                sys.setprofile(alarm.previous_profile)
            alarm.previous_trace = alarm.previous_profile = None

    @staticmethod
    def _tick(signum: int, frame: Any) -> None:
        if frame is not None and id(frame.f_globals) in _GUARDS and frame.f_code in _FORCING:
            frame = frame.f_back  # the frame traced: the bot's, or the guard's calls once it is out
        if frame is not None and id(frame.f_globals) in _GUARDS:
            return  # the guard's own code: the bot is out, or not yet in (found by review)
        now = time.monotonic()
        deadline = alarm.deadline
        if deadline is not None and now >= deadline:
            alarm.deadline = None
            alarm.force_at = now + alarm.GRACE
            raise BotTimeout()
        force_at = alarm.force_at
        if force_at is not None and now >= force_at:
            if not alarm.forcing:
                alarm.forcing = True
                alarm.previous_trace, alarm.previous_profile = sys.gettrace(), sys.getprofile()
            _force(frame)
            raise BotTimeout()


#: the globals of the modules whose frames are the guard's (``guards``): a tick never raises
#: in them, nor traces them
_GUARDS: set[int] = set()


def guards(module_globals: dict[str, Any]) -> None:
    """Count the frames of a module (by its ``globals()``) as the guard's: the code that calls
    bots and takes their answers (botapi), which a tick must not interrupt."""
    _GUARDS.add(id(module_globals))


def _ours(hook: Any) -> bool:
    """Whether the force may take the trace or profile hook that was ``hook`` before it, and
    put it back after: none, or a Python callable.  A profiler of C's own (cProfile's) cannot
    be put back through ``sys.setprofile``: it is left alone, and the force does without that
    hook (found by review: a forced bot ended profiling and was blamed for the TypeError)."""
    return hook is None or callable(hook)


def _force(frame: Any) -> None:
    """Trace the bot's frames from ``frame`` up to the guard's, and every frame they call,
    with ``_stop_bot``; and profile them with ``_keep_stopping`` (each hook only if ``_ours``)."""
    if _ours(alarm.previous_profile):
        sys.setprofile(_keep_stopping)
    if not _ours(alarm.previous_trace):
        return
    sys.settrace(_stop_bot)
    while frame is not None and id(frame.f_globals) not in _GUARDS:
        frame.f_trace = _stop_bot
        frame.f_trace_lines = True
        frame = frame.f_back


def _stop_bot(frame: Any, event: str, arg: Any) -> Any:
    """The trace of a bot being stopped by force: at a line it runs while it handles a
    BotTimeout (a handler that swallows it), BotTimeout again, out of that handler.  Python
    takes away a trace function that raises: ``_keep_stopping`` and the next tick put it back."""
    if id(frame.f_globals) in _GUARDS:
        return None
    if event == "line" and isinstance(sys.exc_info()[1], BotTimeout):
        raise BotTimeout()
    return _stop_bot


def _keep_stopping(frame: Any, event: str, arg: Any) -> None:
    """The profile function of a bot being stopped by force: at every call and return the
    bot makes, ``_stop_bot`` is put back if raising took it away."""
    if sys.gettrace() is None and id(frame.f_globals) not in _GUARDS:
        _force(frame)


#: the code of the functions that run within a bot being stopped by force
_FORCING = (_force.__code__, _stop_bot.__code__, _keep_stopping.__code__)


def _can_alarm() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


class bot_watchdog:
    """Keep one ticking timer for the bots' time limits while a whole game is played."""

    def __enter__(self) -> bot_watchdog:
        self.previous: Any = None
        if _can_alarm() and not alarm.running:
            self.previous = signal.signal(signal.SIGALRM, alarm._tick)
            signal.setitimer(signal.ITIMER_REAL, alarm.TICK, alarm.TICK)
            alarm.running = True
            alarm.thread = threading.get_ident()
        return self

    def rearm(self) -> None:
        """This watchdog's handler and timer again, whatever a bot did to them: a bot's start()
        that timed its own set-up with SIGALRM (its handler, then ``setitimer(0)``) switched
        the game's time limits off, or had its handler take the ticks meant for others (review)."""
        if self.previous is None:
            return
        if signal.getsignal(signal.SIGALRM) is not alarm._tick:
            signal.signal(signal.SIGALRM, alarm._tick)
        if signal.getitimer(signal.ITIMER_REAL)[1] != alarm.TICK:
            signal.setitimer(signal.ITIMER_REAL, alarm.TICK, alarm.TICK)

    def __exit__(self, *exc: object) -> None:
        if self.previous is not None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
            alarm.running = False
            alarm.thread = None


guards(globals())  # its own frames too (the timer's handler, the trace)
