"""Running the full-screen client beside a session: the session in a background thread,
the client in this one, and what is left to say once the screen closes."""
from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from ..net.invite import LobbyError
from .agent import ClientAgent
from .app import ClientApp
from .hangup import as_ctrl_c, hang_up_handled, hang_up_kills, interrupts_ignored

T = TypeVar("T")

#: seconds the session thread gets to send our farewell after the person leaves
LINGER = 1.5
#: seconds more a stopped stand-in's session gets to say bye and let the bot peers end
STOP_GRACE = 5.0


@dataclass
class ClientRun(Generic[T]):
    """The end of a client run: the session's result (None if it had not ended) or its error."""

    result: T | None
    error: BaseException | None
    quit: bool
    session_alive: bool


def run_client(
    session: Callable[[ClientAgent], T],
    agent: ClientAgent | None = None,
    input: Input | None = None,
    output: Output | None = None,
    linger: float = LINGER,
    on_app: Callable[[ClientApp], Any] | None = None,
    stop_ends_game: Callable[[], bool] = lambda: False,
    hang_up_kills_it: bool = False,
) -> ClientRun[T]:
    """Run ``session(agent)`` in a background thread and the client in this one.
    ``stop_ends_game``: whether stopping the stand-in that plays a seat the person left
    ends the game (this machine's bot peers stop with it) or lets the table wait for the seat.
    ``hang_up_kills_it``: a closed terminal while the screen is open ends the process as a
    crash would (``hang_up_kills``: a ``play`` table), rather than as the person leaving."""
    agent = agent if agent is not None else ClientAgent()
    app = ClientApp(agent, input=input, output=output)
    if on_app is not None:
        on_app(app)
    box: dict[str, Any] = {}
    # set when the session is over: a Thread.join cut short by Ctrl-C leaves the thread
    # looking stopped while it runs on (CPython gh-90882), and the host left without its bye,
    # its bot peers running, the table waiting for them (found by a play-test)
    done = threading.Event()

    def work() -> None:
        try:
            result = session(agent)
        except BaseException as exc:  # shown on the screen and handed back to the caller
            box["error"] = exc
            # a table that refused us is no failure of the session's ("the session failed: the
            # table refused us: wrong table code" read as jargon: a play-test)
            agent.session_ended(f"no seat: {exc}" if isinstance(exc, LobbyError) else f"the session failed: {exc}")
            return
        finally:
            done.set()
        box["result"] = result
        agent.session_ended(str(getattr(result, "message", "the session has ended")), bool(getattr(result, "said", False)))

    thread = threading.Thread(target=work, name="saboteur-session", daemon=True)
    thread.start()
    hang_up = hang_up_kills() if hang_up_kills_it else _hang_up_leaves(app, agent)
    with hang_up, contextlib.suppress(OSError):  # OSError: the terminal is gone
        app.run()
    if agent.wants_to_quit:
        ends = stop_ends_game()
        try:
            # from here a closed terminal is Ctrl-C, the screen gone: a window closed, or Ctrl-C
            # pressed, in the moment after q then y killed the host, its bot peers left running
            # (found by review)
            with hang_up_handled(as_ctrl_c):
                done.wait(linger)
                if not done.is_set() and agent.stood_in:
                    wait_for_stand_in(done, agent, ends, linger)
        except KeyboardInterrupt:
            if ends:
                _wait_out_bye(done, agent, linger)
    return ClientRun(box.get("result"), box.get("error"), agent.wants_to_quit, not done.is_set())


def _plays_on(signum: int, frame: object) -> None:
    """A hang-up after the person left: nothing (the bot plays on, the terminal gone)."""


def wait_for_stand_in(done: threading.Event, agent: ClientAgent, ends: bool, linger: float = LINGER) -> None:
    """The person left and a bot plays their seat until ``done``: wait for the game's end, or
    for Ctrl-C.  ``ends``: this machine runs bot peers, which stop with us, so Ctrl-C has the
    session say bye (nobody waits for seats that are gone); otherwise the table waits for the seat."""
    with contextlib.suppress(OSError):  # the terminal may be gone (closed while the screen was open)
        print("A bot plays your seat until the game ends, in this terminal; closing the terminal leaves it playing. "
              "Ctrl-C stops it " + (
                  "and this table's bot peers: the others are told you left, and the game ends." if ends
                  else "(the table then waits a while for your seat, and ends the game if it does not come back)."),
              flush=True)
    # the person has left: a closed terminal leaves the bot playing the seat to the game's end.
    # It was Ctrl-C here, and a host that left could not close its window without ending the
    # game of everyone at the table (found by a play-test); killed, as by default, it quit
    # without its bye and the others waited for its seats in vain (found by an earlier one)
    try:
        with hang_up_handled(_plays_on):
            while not done.wait(0.5):
                pass
    except KeyboardInterrupt:
        if ends:
            _wait_out_bye(done, agent, linger)


def _wait_out_bye(done: threading.Event, agent: ClientAgent, linger: float) -> None:
    """Ask the session to say bye, and wait for it (and the bot peers to hear it: play.py): a
    second Ctrl-C, or the window closed after the first, cut that short and left them waiting
    (found by review), so both are ignored meanwhile."""
    agent.stop_asked = True
    deadline = time.monotonic() + linger + STOP_GRACE
    with interrupts_ignored():
        while not done.is_set() and time.monotonic() < deadline:
            with contextlib.suppress(KeyboardInterrupt):  # one raised just before they were ignored
                done.wait(0.2)


def _hang_up_leaves(app: ClientApp, agent: ClientAgent) -> contextlib.AbstractContextManager[None]:
    """While the screen is open, a closed terminal (SIGHUP) is the person leaving, as q then y:
    the process, killed, left its table waiting for it, and a host's bot peers ran on
    (found by review).  The seat is then played by the stand-in, or the game ends, as the
    table's rule for a person who leaves says."""

    def leave(signum: int, frame: object) -> None:
        if not agent.wants_to_quit:
            agent.quit()
        screen = getattr(app, "application", None)
        loop = getattr(screen, "loop", None)
        if screen is not None and loop is not None:
            loop.call_soon_threadsafe(lambda: screen.exit(result="quit") if screen.is_running else None)

    return hang_up_handled(leave)


def run_in_client(session: Callable[[ClientAgent, list[Any]], T], hosting: bool = False, play: bool = False) -> ClientRun[T]:
    """Play a network seat in the client: ``session(agent, children)`` runs the table.

    ``children`` collects the bot peer processes the session starts; if the person leaves
    while the session cannot stop, they are ended so they do not wait for us in vain.
    After the screen closes, the session's closing message is printed.  ``play``: a table of
    the person and this machine's bot peers, which a closed terminal leaves to be taken back.
    """
    children: list[Any] = []
    run = run_client(lambda agent: session(agent, children), ClientAgent(hosting=hosting),
                     stop_ends_game=lambda: bool(children), hang_up_kills_it=play)
    if run.session_alive:
        for child in children:
            if child.poll() is None:
                child.terminate()
    if run.error is None:
        with contextlib.suppress(OSError):  # the terminal may be gone (closed: a hang-up)
            print(_closing(run, dropped=run.session_alive and not children))
    return run


def _closing(run: ClientRun[Any], dropped: bool = False) -> str:
    """What is said once the screen closes.  ``dropped``: the seat stopped while its game goes
    on (Ctrl-C after a bot took it over, at a table that does not end with us)."""
    result = run.result
    if result is None and dropped:
        # "you left the table" read as gone for good, yet the table waited and took the seat
        # back (found by a play-test)
        return ("you stopped your seat before the end: the table waits for it (--wait), "
                "and the same command takes it back")
    if result is None:
        return "you left the table before the end; the others were told in the chat"
    lines = [str(getattr(result, "message", result))]
    log_path = getattr(result, "log_path", None)
    if log_path is not None:
        lines.append(f"log saved: {log_path}")
    return "\n".join(lines)
