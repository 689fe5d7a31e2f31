"""The Bot protocol, loading bots by name, and a guard that keeps a bad bot from breaking a game.

A bot is told its seat, the game's configuration and a seed; on its turn it receives its
``PlayerView`` and the legal actions and returns one of them; it hears every public event.

Bots load by a bundled name (``random``, ``heuristic``), by ``module:Class``, by
``path/to/file.py:Class``, or through the entry-point group ``saboteur_p2p.bots``.
"""
from __future__ import annotations

import contextlib
import functools
import importlib
import importlib.util
import inspect
import sys
import sysconfig
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, ClassVar, Protocol, cast, runtime_checkable

from .botclock import BotTimeout, alarm, guards
from .botspec import BotLoadError, own_modules_found, spec_texts, split_spec, typed_parameters
from .rules import AnyAction, Board, Event, GameConfig, Pass, Phase, PlayerView, State
from .rules.lent_board import lend, take_back
from .rules.phases import PLAY  # Phase.PLAY read once (see there)

ENTRY_POINT_GROUP = "saboteur_p2p.bots"

#: Bundled bots, also registered as entry points; kept here so a source checkout works too.
BUNDLED = {
    "random": "saboteur_bots.random_bot:RandomBot",
    "heuristic": "saboteur_bots.heuristic:HeuristicBot",
    "heuristic-v1": "saboteur_bots.heuristic:HeuristicV1Bot",
    "ismcts": "saboteur_bots.ismcts:IsmctsBot",
}


@runtime_checkable
class Bot(Protocol):
    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        """A new game: this bot plays ``seat``; ``seed`` makes its choices repeatable."""

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        """Choose one of ``legal`` (never empty) for the player of ``view``."""

    def on_event(self, event: Event) -> None:
        """A public event happened at the table."""


class BaseBot:
    """Convenience base: remembers seat, config and seed; ignores events."""

    name = "base"
    #: A bot whose ``act`` never looks at its view sets this False: in-process games then pass
    #: it None instead of building a view every move (a sixth of a random game's time).
    reads_view = True

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        self.seat = seat
        self.config = config
        self.seed = seed

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        raise NotImplementedError

    def on_event(self, event: Event) -> None:
        return None


def _attribute(module: Any, attr: str, spec: str, source: str) -> Any:
    """``module.attr``, or a BotLoadError saying that ``source`` (the module in words) lacks it."""
    try:
        return getattr(module, attr)
    except AttributeError:
        raise BotLoadError(f"cannot load bot {spec!r}: {source} has no {attr!r}") from None


def _load_attr(module_name: str, attr: str, spec: str) -> Any:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        beside = f"{module_name.replace('.', '/')}.py"
        here = exc.name == module_name and Path(beside).is_file()  # "mybot:Greedy" beside mybot.py (a bot author)
        hint = f"; for the file {beside} here, write {beside}:{attr}" if here else ""
        raise BotLoadError(f"cannot load bot {spec!r}: no module {module_name!r} ({exc}){hint}") from exc
    except (ImportError, ValueError, TypeError) as exc:  # ValueError, TypeError: a name import cannot take
        raise BotLoadError(f"cannot load bot {spec!r}: no module {module_name!r} ({exc})") from exc
    except (MemoryError, RecursionError) as exc:
        # Python's parser gives up on a nest that deep: said as for a bot file, not as
        # "raised MemoryError() at <frozen importlib>" (review)
        parts = module_name.split(".")
        for name in (".".join(parts[:i]) for i in range(1, len(parts) + 1)):  # a package on the way too (review)
            origin = getattr(_found(name), "origin", None)
            if origin and _too_deep(Path(origin)):
                raise BotLoadError(f"cannot load bot {spec!r}: module {name!r} ({origin}) nests too deep for Python "
                                   f"to read it ({type(exc).__name__})") from None
        raise BotLoadError(f"cannot load bot {spec!r}: module {module_name!r} raised {raised(exc)}") from exc
    except (Exception, SystemExit) as exc:  # the module's own code failed (sys.exit() ended the command, silently)
        raise BotLoadError(f"cannot load bot {spec!r}: module {module_name!r} raised {raised(exc)}") from exc
    return _attribute(module, attr, spec, f"module {module_name!r}")


def raised(exc: BaseException, home: Sequence[Path] = ()) -> str:
    """An exception a bot raised, with where: ``RuntimeError('boom') at mybot.py:12`` (the
    frame it was raised in; for a syntax error, the line that does not parse).  Raised within
    this package, for what the bot did there, it also names the bot's last line on the way:
    ``ReadOnlyBoard(...) at lent_board.py:43, from mybot.py:20`` (a bot author could not tell
    which of its lines wrote to the board).  ``home``: the bot's own code (``code_home``): an
    error raised in a package it uses (numpy, say) names the bot's last line there too."""
    if isinstance(exc, SyntaxError) and exc.lineno is not None:
        return f"{type(exc).__name__}: {exc.msg} at {Path(exc.filename or '?').name}:{exc.lineno}"
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return repr(exc)
    where = f"{exc!r} at {Path(frames[-1].filename).name}:{frames[-1].lineno}"
    own = [frame for frame in frames if home and _within(frame.filename, home)]
    if own:
        return where if own[-1] is frames[-1] else f"{where}, from {Path(own[-1].filename).name}:{own[-1].lineno}"
    if _the_bots(frames[-1].filename):
        return where
    # the guard's own frames come first: the bot's last frame is the last one of its code
    theirs = [frame for frame in frames if _the_bots(frame.filename)]
    return f"{where}, from {Path(theirs[-1].filename).name}:{theirs[-1].lineno}" if theirs else where


def code_home(kind: type) -> tuple[Path, ...]:
    """Where a bot class's own code lies: its top package's folders (a namespace package has
    several: only the first was taken, review), or its module's file when that is a module of
    its own (a bot file); none when it cannot be told."""
    module = sys.modules.get(kind.__module__.partition(".")[0])
    if module is None:
        return ()
    folders = getattr(module, "__path__", None)
    if folders:
        return tuple(Path(folder).resolve() for folder in folders)
    file = getattr(module, "__file__", None)
    return (Path(file).resolve(),) if file else ()


def _within(filename: str, homes: Sequence[Path]) -> bool:
    if filename.startswith("<"):
        return False
    path = Path(filename).resolve()
    return any(path == home or path.is_relative_to(home) for home in homes)


#: this package's folder: frames in it are the engine's, not a bot's
_PACKAGE = Path(__file__).resolve().parent


#: Python's own library folders, and the installed packages' (which may lie inside them)
_LIBRARY = {Path(sysconfig.get_paths()[name]).resolve() for name in ("stdlib", "platstdlib")}
_INSTALLED = {Path(sysconfig.get_paths()[name]).resolve() for name in ("purelib", "platlib")}


def _the_bots(filename: str) -> bool:
    """Whether a frame of ``filename`` may be the bot's own code: not of this package, nor
    code Python made (``<string>``: a frozen action's __setattr__, found by a bot author),
    nor a module of Python's own library (random.choice([]) named only random.py: a review)."""
    if filename.startswith("<"):
        return False
    path = Path(filename).resolve()
    if path.is_relative_to(_PACKAGE):
        return False
    return not any(path.is_relative_to(f) for f in _LIBRARY) or any(path.is_relative_to(f) for f in _INSTALLED)


def _load_file(path: str, attr: str, spec: str) -> Any:
    file = Path(path)
    if not file.is_file():
        raise BotLoadError(f"cannot load bot {spec!r}: no file {path!r}")
    name = f"saboteur_user_bot_{abs(hash(str(file.resolve())))}"
    module_spec = importlib.util.spec_from_file_location(name, file)
    if module_spec is None or module_spec.loader is None:
        raise BotLoadError(f"cannot load bot {spec!r}: {path!r} is not a Python module")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module
    folder = str(file.resolve().parent)
    if folder not in sys.path:  # its own modules beside it import, as a script's do
        sys.path.append(folder)
    own_modules_found(file, spec)
    deep = _too_deep(file)  # Python's parser gives up on a nest that deep (an attack)
    if deep:
        raise BotLoadError(f"cannot load bot {spec!r}: {path!r} nests too deep for Python to read it ({deep})")
    try:
        module_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # sys.exit() at import ended the command, silently (found by a bot author)
        raise BotLoadError(f"cannot load bot {spec!r}: {path!r} raised {raised(exc)}") from exc
    return _attribute(module, attr, spec, repr(path))


def _too_deep(file: Path) -> str:
    """The error Python's parser gives up with on ``file`` (its source nests too deep), or ""
    (it parses, or fails otherwise: said as the module is run, with its line)."""
    try:
        compile(file.read_bytes(), str(file), "exec", dont_inherit=True)
    except (MemoryError, RecursionError) as exc:
        return type(exc).__name__
    except (SyntaxError, ValueError, OSError):
        pass
    return ""


def _found(module_name: str) -> Any:
    """The import system's spec of ``module_name``, or None."""
    try:
        return importlib.util.find_spec(module_name)
    except (Exception, SystemExit):  # a parent package that fails, a name find_spec refuses
        return None


@functools.lru_cache(maxsize=256)
def bot_factory(spec: str) -> Callable[[], Bot]:
    """Resolve a bot spec to a zero-argument factory of fresh bots.

    A spec is a bundled name or entry point, ``module:Class`` or ``path/to/file.py:Class``,
    optionally followed by ``:key=value`` parameters passed to the class as keyword
    arguments (``ismcts:playouts=200``; see ``split_spec``)."""
    target_spec, texts = spec_texts(spec)
    factory = _resolve(target_spec, spec)
    if not callable(factory):
        raise BotLoadError(f"bot {spec!r} is not a class or factory")
    if not texts:
        return factory  # type: ignore[no-any-return]
    return functools.partial(factory, **typed_parameters(factory, texts, spec))


def _resolve(spec: str, full: str) -> Any:
    """What a spec without parameters names (``full`` is quoted in errors)."""
    if ":" in spec:
        target, attr = spec.rsplit(":", 1)
        head, _, name = target.rpartition(":")
        if len(head) > 1 and name.isidentifier():  # module:Class:word or file.py:Class:word (not C:\\x.py)
            raise BotLoadError(f"bot {full!r}: after the class come key=value parameters only, and {attr!r} has no '='")
        first = target.split(":", 1)[0]
        if attr and (first in BUNDLED or any(ep.name == first for ep in entry_points(group=ENTRY_POINT_GROUP))):
            # "ismcts:playouts" was read as the module ismcts and its attribute playouts
            raise BotLoadError(f"bot {full!r}: {first!r} is a bot's name, and after it come key=value "
                               f"parameters only: {attr!r} has no '='")
        if not target or not attr:
            raise BotLoadError(
                f"bot {full!r} names no {'module or file' if not target else 'class'}: "
                "a bot is a name, module:Class or file.py:Class, then any :key=value parameters"
            )
        if target.endswith(".py") or "/" in target or "\\" in target:
            return _load_file(target, attr, full)
        return _load_attr(target, attr, full)
    found = [ep for ep in entry_points(group=ENTRY_POINT_GROUP) if ep.name == spec]
    if found:
        try:
            return found[0].load()
        except (Exception, SystemExit) as exc:
            raise BotLoadError(f"cannot load bot {full!r} from its entry point: {exc!r}") from exc
    if spec in BUNDLED:
        module_name, attr = BUNDLED[spec].split(":")
        return _load_attr(module_name, attr, full)
    if spec.endswith(".py") or "/" in spec or "\\" in spec:  # "unknown bot" read as a file not found (an attack)
        raise BotLoadError(f"bot {full!r} names a file but no class in it: {spec}:Class")
    known = sorted(set(BUNDLED) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})
    raise BotLoadError(f"unknown bot {full!r}; known: {', '.join(known)}, or module:Class, or file.py:Class")


def bot_source(spec: str) -> Path | None:
    """The file that defines the bot of ``spec`` (parameters aside), found as ``bot_factory``
    finds the bot (an entry point first); None when it cannot be found."""
    try:
        # what a bot prints as its file is imported goes to stderr, as in the games (it reached
        # stdout, the report's, from here: found by an attack)
        with contextlib.redirect_stdout(sys.stderr):
            file = inspect.getsourcefile(_resolve(split_spec(spec)[0], spec))
    except (BotLoadError, TypeError, OSError):
        return None
    return Path(file) if file is not None else None


def bot_label(spec: str) -> str:
    """A short name for a bot seat at a table: the bot's name, or its class for
    ``module:Class`` and ``path/file.py:Class``, without parameters ("Greedy" for
    "/home/me/mybot.py:Greedy:depth=3", whose whole spec a seat and its folder were named)."""
    target = split_spec(spec)[0]
    return (target.rsplit(":", 1)[-1] or target)[:30]


def load_bot(spec: str) -> Bot:
    factory = bot_factory(spec)
    try:
        bot = factory()
    except (Exception, SystemExit) as exc:  # a bot made well once may fail later (found by review): named, not a traceback
        abstract = str(exc).startswith("Can't instantiate abstract class")  # a method to write, not a parameter
        if isinstance(exc, TypeError) and len(traceback.extract_tb(exc.__traceback__)) == 1 and not abstract:
            # the call itself failed, not the bot's code: what it names is not a class that
            # takes the spec's parameters (a function of the play's arguments, a parameter left out)
            raise BotLoadError(f"bot {spec!r} could not be made: {exc} (a bot is made by calling what the spec "
                               "names with the spec's key=value parameters only)") from None
        raise BotLoadError(f"bot {spec!r} could not be made: {raised(exc)}") from None
    for method in ("start", "act", "on_event"):
        if not callable(getattr(bot, method, None)):
            raise BotLoadError(f"bot {spec!r} has no {method}() method")
    if getattr(type(bot), "act", None) is BaseBot.act:  # it would raise NotImplementedError every move
        raise BotLoadError(f"bot {spec!r} has no act() of its own: a bot chooses its moves in act(view, legal)")
    return bot


#: what a seat whose bot failed outside a move plays from then on (an Incident's fallback)
REST_SAFE = "safe moves for the rest of the game"


@dataclass(frozen=True)
class Incident:
    """A bot misbehaved; its seat played ``fallback`` instead."""

    seat: int
    bot: str
    kind: str  # "raised", "illegal", "timeout"
    detail: str
    fallback: str

    #: the most of a bot's own words an incident keeps: its exception or move may be any size,
    #: and a tournament writes every incident into a results file's line (found by review)
    MAX_DETAIL: ClassVar[int] = 300

    def __post_init__(self) -> None:
        if len(self.detail) > self.MAX_DETAIL:
            object.__setattr__(self, "detail", self.detail[: self.MAX_DETAIL - 1] + "…")

    def __str__(self) -> str:
        return f"seat {self.seat} ({self.bot}) {self.kind}: {self.detail}"


def incident_words(incident: Incident, who: str) -> str:
    """An incident as a line for people at a table: ``who`` (\"my bot\", a seat's name) failed,
    how, and what the seat played instead."""
    instead = f"it plays {REST_SAFE}" if incident.fallback == REST_SAFE else "a safe move was played instead"
    # the bot's name or class, not its spec: a file's path is nobody's business at the table
    return f"{who} ({bot_label(incident.bot)}) failed, {incident.kind}: {incident.detail}; {instead}"


def safe_action(view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
    """A harmless legal action: discard a card face down, else the first legal action."""
    return _harmless(legal, view.phase == Phase.PLAY.value)


def _harmless(legal: Sequence[AnyAction], playing: bool) -> AnyAction:
    """``safe_action`` for a phase known without a view: ``playing`` in the play phase."""
    if playing:
        for action in legal:
            if isinstance(action, Pass):
                return action
    return legal[0]


def _is_bundled(kind: type) -> bool:
    """Whether ``kind`` is a class of the bundled bots' package, not one that only says so
    (a file bot that sets its ``__module__`` to theirs is not)."""
    module = sys.modules.get(kind.__module__)
    return kind.__module__.partition(".")[0] == "saboteur_bots" and getattr(module, kind.__qualname__, None) is kind


class lent:
    """``with lent(board, dicts):`` the game's maze read-only while bots hear events: a bot
    may hold it through a view it kept, and the state copies it only before a move that
    changes it (``State.push``); with ``dicts`` (some bot is not bundled: ``GuardedSeat.bundled``)
    its dicts too (``rules.lent_board``).  A class, not a generator: it is entered at every move."""

    __slots__ = ("board", "dicts")

    def __init__(self, board: Board, dicts: bool) -> None:
        self.board = board
        self.dicts = dicts

    def __enter__(self) -> None:
        lend(self.board, self.dicts)

    def __exit__(self, *exc: object) -> None:
        take_back(self.board)


class GuardedSeat:
    """Calls a bot and turns any failure into a safe action and an incident."""

    def __init__(self, bot: Bot, name: str, seat: int, time_limit: float | None = 5.0) -> None:
        self.bot = bot
        self.name = name
        self.seat = seat
        self.time_limit = time_limit
        self.incidents: list[Incident] = []
        self.broken = False
        #: a bot that comes with saboteur-p2p: it never writes the maze's dicts (tests prove
        #: it), so they are not copied read-only for it (``rules.lent_board``)
        self.bundled = _is_bundled(type(bot))
        #: a bot that keeps BaseBot's on_event hears nothing, so it is not called at all
        self.listens = getattr(type(bot), "on_event", None) is not BaseBot.on_event
        #: whether ``act_in`` builds a view for the bot: only a bot that says it never reads
        #: one (``reads_view = False``, as the random bot does) goes without
        self.reads_view = getattr(bot, "reads_view", True) is not False

    @property
    def home(self) -> tuple[Path, ...]:
        """The bot's own code, which its errors are traced back to (``raised``): found when
        one is (resolving its folder for every seat of every game cost a tournament 3%)."""
        return code_home(type(self.bot))

    def start(self, config: GameConfig, seed: int) -> None:
        self._guarded("start()", lambda: self.bot.start(self.seat, config, seed))

    def hear(self, events: Sequence[Event], ticking: bool | None = None) -> None:
        """The bot's ``on_event`` for each of ``events``, all within one move's time limit (a
        loop here rather than ``_guarded``'s call: it runs for every seat at every move).
        ``ticking``: whether ``bot_watchdog``'s timer ticks here (None: find out)."""
        if self.broken or not self.listens or not events:
            return
        limit = self.time_limit
        try:
            if limit is None or (alarm.ticks_here() if ticking is None else ticking):
                # no time limit, or the watchdog's timer ticks: a deadline is all it takes, no
                # timer to arm (without a limit not even that: ``alarm(None)`` would do nothing)
                if limit is not None:
                    alarm.deadline = time.monotonic() + limit
                try:
                    on_event = self.bot.on_event  # inside: a property of the bot's may fail or hang
                    for event in events:
                        on_event(event)
                finally:
                    if alarm.force_at is None:
                        # not interrupted (every move, every seat): no force, whatever an earlier call's
                        alarm.deadline, alarm.forced = None, False
                    else:
                        alarm.clear()
            else:
                with alarm(limit):
                    on_event = self.bot.on_event
                    for event in events:
                        on_event(event)
        except BotTimeout:
            self._broke("timeout", f"on_event(): no answer within {limit} s{_overran()}")
        except (Exception, SystemExit) as exc:
            self._broke("raised", f"on_event(): {raised(exc, self.home)}")

    @staticmethod
    def hear_all(seats: Sequence[GuardedSeat], events: Sequence[Event]) -> None:
        """Every seat hears ``events``, each within its own time limit (asking once whether
        the watchdog ticks: it is the same for them all)."""
        ticking = alarm.ticks_here()
        for seat in seats:
            seat.hear(events, ticking)

    def _guarded(self, what: str, call: Callable[[], None]) -> None:
        """``call`` into the bot within its time limit; a failure or overrun is an incident,
        and the seat plays safe moves from then on (the bot missed what it was told)."""
        limit = self.time_limit
        try:
            with alarm(limit):
                call()
        except BotTimeout:
            self._broke("timeout", f"{what}: no answer within {limit} s{_overran()}")
        except (Exception, SystemExit) as exc:
            self._broke("raised", f"{what}: {raised(exc, self.home)}")

    def _broke(self, kind: str, detail: str) -> None:
        self.broken = True
        self.incidents.append(Incident(self.seat, self.name, kind, detail, REST_SAFE))

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        """The bot's choice among ``legal``, or a safe action (and an incident) if it fails."""
        return self._act(view, legal, view.phase == Phase.PLAY.value)

    def act_in(self, state: State) -> AnyAction:
        """The bot's move for ``state``, where this seat is to play: as ``act``, but the view is
        built only for a bot that reads it (``reads_view``; a random bot does not)."""
        view = state.view_for(self.seat) if self.reads_view else _UNREAD_VIEW
        return self._act(view, state.legal_actions(), state.phase is PLAY)

    def _act(self, view: PlayerView, legal: Sequence[AnyAction], playing: bool) -> AnyAction:
        if self.broken:
            return _harmless(legal, playing)
        limit = self.time_limit
        started = time.monotonic()
        mine = list(legal)  # the bot's own copy: what it does to it changes nothing here
        # the view's maze is the game's own: lent read-only while the bot runs (it tries moves
        # on a clone; once it returns, the state copies a maze a bot kept before changing it)
        maze = view.board if view is not None else None
        if maze is not None:
            lend(maze, not self.bundled)
        try:
            if limit is None or alarm.ticks_here():
                # the game's watchdog timer is ticking: a deadline is all a move needs (and
                # without a limit, nothing: ``alarm(None)`` would do nothing)
                if limit is not None:
                    alarm.deadline = started + limit
                try:
                    action = self.bot.act(view, mine)
                finally:
                    if alarm.force_at is None:
                        # not interrupted (every move, every seat): no force, whatever an earlier call's
                        alarm.deadline, alarm.forced = None, False
                    else:
                        alarm.clear()
            else:
                with alarm(limit):
                    action = self.bot.act(view, mine)
        except BotTimeout:
            if alarm.forced:
                # it would hang every move it is asked for: safe moves from now on
                self.broken = True
                return self._fall_back(legal, playing, "timeout", f"no answer within {limit} s{_overran()}", REST_SAFE)
            return self._fall_back(legal, playing, "timeout", f"no answer within {limit} s")
        except (Exception, SystemExit) as exc:  # sys.exit() in a bot ends its move, not the tournament
            return self._fall_back(legal, playing, "raised", f"act(): {raised(exc, self.home)}")
        finally:
            if maze is not None:
                take_back(maze)
        elapsed = time.monotonic() - started
        if limit is not None and elapsed > limit:
            return self._fall_back(legal, playing, "timeout", f"took {elapsed:.2f} s")
        for candidate in legal:  # by identity first: a bot almost always returns one of them
            if candidate is action:
                return action
        # else the legal action it equals, of its own class: a value whose == raises or is always
        # true (a numpy array) stopped the game, tournament or table (found by an attack)
        try:
            same = [candidate for candidate in legal if type(candidate) is type(action) and candidate == action]
        except Exception:  # a field whose == raises
            same = []
        if not same:
            # its text ("path 2 at 0,1") is what state.play takes, not what act returns (a bot author asked)
            text = " (text: act returns one of the actions in legal)" if isinstance(action, str) else ""
            return self._fall_back(legal, playing, "illegal", f"returned {_shown(action)}{text}")
        return same[0]

    def _fall_back(
        self, legal: Sequence[AnyAction], playing: bool, kind: str, detail: str, instead: str | None = None,
    ) -> AnyAction:
        fallback = _harmless(legal, playing)
        self.incidents.append(Incident(self.seat, self.name, kind, detail, instead or str(fallback)))
        return fallback


def _overran() -> str:
    """What an incident adds when the bot had to be stopped by force (botclock.alarm: ``_stop_bot``)."""
    return ", and it caught the interruption and went on: stopped by force" if alarm.forced else ""


def _shown(value: object) -> str:
    """A bot's value in an incident: the repr of an action or a plain value, else only its
    class (its own repr may raise, or never return, outside the bot's time limit)."""
    plain = type(value) in (str, int, float, bool, type(None)) or type(value).__module__.startswith("saboteur_p2p.rules")
    return repr(value)[:200] if plain else f"a {type(value).__module__}.{type(value).__qualname__}"


#: What a bot that never reads its view is handed instead of one (it cannot tell).
_UNREAD_VIEW: PlayerView = cast(PlayerView, None)


guards(globals())  # the seat's code around a bot's call: a tick never raises in it
