"""Bot loading by name, module:Class, file.py:Class and entry point; guarded seats."""
from __future__ import annotations

import contextlib
import time

import pytest

from saboteur_p2p.botapi import BotLoadError, GuardedSeat, bot_factory, load_bot
from saboteur_p2p.match import play_game, replay
from saboteur_p2p.rules import Board, Game, GameConfig, Pass, PlacePath
from saboteur_p2p.rules.lent_board import lend, take_back


def test_bundled_bots_load_by_name():
    assert type(load_bot("random")).__name__ == "RandomBot"
    assert type(load_bot("heuristic")).__name__ == "HeuristicBot"


def test_bot_loads_by_module_and_class():
    bot = load_bot("saboteur_bots.random_bot:RandomBot")
    assert type(bot).__name__ == "RandomBot"


def test_bot_loads_from_a_file(tmp_path):
    source = tmp_path / "first_file_bot.py"
    source.write_text(
        "class FirstBot:\n"
        "    def start(self, seat, config, seed): self.seat = seat\n"
        "    def act(self, view, legal): return legal[0]\n"
        "    def on_event(self, event): pass\n"
    )
    bot = load_bot(f"{source}:FirstBot")
    record = play_game(GameConfig(3), [bot, "random", "random"], seed=4)
    assert record.incidents == []
    assert len(record.scores) == 3


def test_a_bot_file_imports_the_modules_beside_it(tmp_path):
    """As a script does: a bot split over two files loaded from anywhere (found by review: it
    needed PYTHONPATH)."""
    (tmp_path / "sibling_helpers_xyz.py").write_text("def first(legal):\n    return legal[0]\n")
    (tmp_path / "splitbot.py").write_text(
        "from sibling_helpers_xyz import first\n"
        "class SplitBot:\n"
        "    def start(self, seat, config, seed): pass\n"
        "    def act(self, view, legal): return first(legal)\n"
        "    def on_event(self, event): pass\n"
    )
    record = play_game(GameConfig(3), [load_bot(f"{tmp_path / 'splitbot.py'}:SplitBot"), "random", "random"], seed=4)
    assert record.incidents == [] and len(record.scores) == 3


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no-such-bot", "unknown bot 'no-such-bot'"),
        ("no_such_module_xyz:Bot", "no module 'no_such_module_xyz'"),
        ("saboteur_bots.random_bot:Missing", "has no 'Missing'"),
        ("/nonexistent/bot.py:Bot", "no file"),
        ("/some/bot.py:Bot:verbose", "after the class come key=value parameters only, and 'verbose' has no '='"),
        ("saboteur_bots.random_bot:RandomBot:fast", "and 'fast' has no '='"),
        # a file without its class read "unknown bot" as a file not found (found by an attack)
        ("bots/good.py", "bot 'bots/good.py' names a file but no class in it: bots/good.py:Class"),
        ("mybot.py:depth=3", "names a file but no class in it: mybot.py:Class"),
    ],
)
def test_bad_bot_specs_say_what_failed(spec, message):
    with pytest.raises(BotLoadError, match=message.replace("(", r"\(")):
        bot_factory(spec)


class Raising:
    def start(self, seat, config, seed):
        pass

    def act(self, view, legal):
        raise RuntimeError("boom")

    def on_event(self, event):
        pass


class Illegal(Raising):
    def act(self, view, legal):
        return "path 999 at 50,50"


class Slow(Raising):
    def act(self, view, legal):
        time.sleep(0.5)
        return legal[0]


class RaisingEq:
    """A value whose == raises, and whose repr never returns."""

    def __eq__(self, other):
        raise ValueError("The truth value of an array with more than one element is ambiguous")

    def __repr__(self):
        while True:
            pass

    __hash__ = None


class AlwaysEqual:
    def __eq__(self, other):
        return True

    __hash__ = None


class Strange(Raising):
    """Returns a value an equality check cannot settle (found by an attack: a numpy array's ==
    stopped the game; one whose == is always true passed as a legal move)."""

    def __init__(self, value):
        self.value = value

    def act(self, view, legal):
        return self.value


@pytest.mark.parametrize("bot, kind", [
    (Raising(), "raised"), (Illegal(), "illegal"), (Slow(), "timeout"),
    (Strange(RaisingEq()), "illegal"), (Strange(AlwaysEqual()), "illegal"),
])
def test_a_misbehaving_bot_gets_a_safe_action_and_an_incident(bot, kind):
    state = Game(GameConfig(3), seed=2).new_state()
    seat = GuardedSeat(bot, "bad", state.current, time_limit=0.1)
    legal = state.legal_actions()
    action = seat.act(state.view_for(state.current), legal)
    assert isinstance(action, Pass) and action in legal
    assert [i.kind for i in seat.incidents] == [kind]
    assert seat.incidents[0].seat == state.current


def test_a_game_with_a_broken_bot_still_finishes():
    record = play_game(GameConfig(4), [Raising(), "random", "random", "random"], seed=9)
    assert record.scores and len(record.scores) == 4
    assert record.incidents and all(i.seat == 0 and i.kind == "raised" for i in record.incidents)


class SlowOnce(Raising):
    """Answers at once, except for its second move, where it sleeps past the limit."""

    def start(self, seat, config, seed):
        self.moves = 0

    def act(self, view, legal):
        self.moves += 1
        if self.moves == 2:
            time.sleep(1.0)
        return legal[0]


def test_a_bot_that_overruns_inside_a_game_is_interrupted():
    started = time.perf_counter()
    record = play_game(GameConfig(3), [SlowOnce(), "random", "random"], seed=1, time_limit=0.2)
    assert time.perf_counter() - started < 0.9  # interrupted, not waited for
    assert [i.kind for i in record.incidents] == ["timeout"]
    assert record.incidents[0].seat == 0


class Emptying(Raising):
    """Takes a legal action out of the list it is given and empties it."""

    def act(self, view, legal):
        action = legal.pop()
        legal.clear()
        return action


class Shrugging(Raising):
    """A search that shrugs off every Exception: its time limit must still stop it."""

    def act(self, view, legal):
        gives_up = time.monotonic() + 2.0  # so that a timeout that does not stop it fails, not hangs
        while time.monotonic() < gives_up:
            try:  # noqa: SIM105 (written out as a bot author writes it)
                time.sleep(0.05)
            except Exception:
                pass
        return legal[0]


def test_a_bot_that_empties_the_legal_list_it_is_given_changes_nothing_but_its_copy():
    record = play_game(GameConfig(3), [Emptying(), "random", "random"], seed=4)
    assert record.scores and record.incidents == []  # its moves were legal: nothing to report
    state = Game(GameConfig(3), seed=2).new_state()
    legal = state.legal_actions()
    before = list(legal)
    action = GuardedSeat(Emptying(), "e", state.current).act(state.view_for(state.current), legal)
    assert legal == before and action is before[-1]


def test_a_bot_that_catches_every_exception_is_still_stopped_at_its_time_limit():
    started = time.perf_counter()
    record = play_game(GameConfig(3, rounds=1), [Shrugging(), "random", "random"], seed=1, time_limit=0.1)
    assert time.perf_counter() - started < 15  # each move stopped at its limit (0.1 s), not after 2 s
    assert record.incidents and {i.kind for i in record.incidents} == {"timeout"}


class Looking(Raising):
    def act(self, view, legal):
        self.seen = view
        return legal[0]


class Blind(Raising):
    reads_view = False

    def act(self, view, legal):
        return legal[-1]


def test_only_a_bot_that_says_it_never_reads_its_view_goes_without_one():
    assert GuardedSeat(Looking(), "l", 0).reads_view and GuardedSeat(Raising(), "r", 0).reads_view
    assert not GuardedSeat(Blind(), "b", 0).reads_view and not GuardedSeat(load_bot("random"), "r", 0).reads_view


def test_act_in_builds_a_view_only_for_a_bot_that_reads_it():
    state = Game(GameConfig(3), seed=2).new_state()
    blind = GuardedSeat(Blind(), "b", state.current)
    assert blind.act_in(state) == state.legal_actions()[-1]
    assert not state._board_shared  # no view was handed out
    looking = GuardedSeat(Looking(), "l", state.current)
    assert looking.act_in(state) == state.legal_actions()[0]
    assert looking.bot.seen == state.view_for(state.current) and state._board_shared
    assert looking.incidents == blind.incidents == []


def test_a_bot_that_fails_without_a_view_still_gets_a_face_down_discard():
    state = Game(GameConfig(3), seed=2).new_state()
    class BlindAndIllegal(Illegal):
        reads_view = False

    seat = GuardedSeat(BlindAndIllegal(), "bad", state.current)
    assert not seat.reads_view
    action = seat.act_in(state)
    assert isinstance(action, Pass) and [i.kind for i in seat.incidents] == ["illegal"]


def test_a_bot_guarded_in_another_thread_never_interrupts_the_watchdog_thread():
    """The watchdog's timer signals the main thread only: a seat guarded in a worker thread
    judges its bot by the clock afterwards and must not arm the main thread's deadline."""
    import threading

    from saboteur_p2p.botclock import bot_watchdog

    state = Game(GameConfig(3), seed=2).new_state()
    seat = GuardedSeat(Slow(), "slow", state.current, time_limit=0.1)
    legal = state.legal_actions()
    answers = []
    with bot_watchdog():
        worker = threading.Thread(target=lambda: answers.append(seat.act(state.view_for(state.current), legal)))
        worker.start()
        time.sleep(0.7)  # a BotTimeout raised here would fail the test
        worker.join()
    assert isinstance(answers[0], Pass) and [i.kind for i in seat.incidents] == ["timeout"]
    assert seat.incidents[0].detail.startswith("took ")


def _first_placement(state):
    return next(a for a in state.legal_actions() if type(a) is PlacePath)


def test_a_view_keeps_the_maze_it_was_given_while_it_is_held():
    state = Game(GameConfig(3), seed=2).new_state()
    view = state.view_for(state.current)
    before = dict(view.board.tiles)
    placement = _first_placement(state)
    state.push(placement)
    assert view.board.tiles == before and placement.cell not in view.board.tiles
    assert placement.cell in state.board.tiles and state.board is not view.board


def test_a_maze_no_view_holds_any_more_is_not_copied():
    state = Game(GameConfig(3), seed=2).new_state()
    maze = id(state.board)
    state.view_for(state.current)  # handed out and dropped at once, as a bot seat's view is
    state.push(_first_placement(state))
    assert id(state.board) == maze and not state._board_shared


def test_the_game_command_reports_a_bot_s_failures(tmp_path, capsys):
    from saboteur_p2p.cli import main

    bot = tmp_path / "failing.py"
    bot.write_text("class Failing:\n    def start(self, seat, config, seed): pass\n"
                   "    def on_event(self, event): pass\n"
                   "    def act(self, view, legal): raise RuntimeError('boom in act')\n")
    assert main(["game", "--players", "3", "--bots", f"{bot}:Failing,random", "--seed", "1"]) == 0
    err = capsys.readouterr().err
    assert "bot incident: seat 0 (" in err and "raised: act(): RuntimeError('boom in act') at failing.py:4" in err
    assert "played instead: pass " in err and "bot incident(s) in this game" in err


def test_a_bot_file_that_does_not_parse_or_raises_on_load_names_its_line(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("import random\n\nclass Oops(:\n    pass\n")
    with pytest.raises(BotLoadError, match=r"raised SyntaxError: invalid syntax at broken.py:3"):
        bot_factory(f"{broken}:Oops")
    raising = tmp_path / "raising.py"
    raising.write_text("x = 1\nraise RuntimeError('not today')\n")
    with pytest.raises(BotLoadError, match=r"raised RuntimeError\('not today'\) at raising.py:2"):
        bot_factory(f"{raising}:Bot")
    # nested too deep for Python's parser: a MemoryError traceback, here or in a module
    # beside it that it imports (found by an attack)
    deep = tmp_path / "deep.py"
    deep.write_text("x = " + "-" * 200_000 + "1\n")
    with pytest.raises(BotLoadError, match=r"'.*deep.py' nests too deep for Python to read it \((MemoryError|RecursionError)\)"):
        bot_factory(f"{deep}:Bot")
    beside = tmp_path / "beside.py"
    beside.write_text("if False:\n    import deep\nfrom saboteur_bots.random_bot import RandomBot as Bot\n")
    assert bot_factory(f"{beside}:Bot")().name == "random"  # deep.py is never run: the bot loads


def test_a_module_bot_nested_too_deep_is_said_so_as_a_bot_file_is(tmp_path, monkeypatch):
    """`module:Class` for a module nested too deep said "raised MemoryError() at <frozen
    importlib>" (review); a module whose own code runs out of memory still says it raised."""
    (tmp_path / "deepmod.py").write_text("x = " + "-" * 200_000 + "1\n")
    (tmp_path / "hungrymod.py").write_text("raise MemoryError('its own')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(BotLoadError, match=r"module 'deepmod' \(.*deepmod.py\) nests too deep for Python to read it"):
        bot_factory("deepmod:Bot")
    with pytest.raises(BotLoadError, match=r"module 'hungrymod' raised MemoryError\('its own'\) at hungrymod.py:1"):
        bot_factory("hungrymod:Bot")
    (tmp_path / "deeppkg").mkdir()  # the package on the way to the bot's module is the deep one
    (tmp_path / "deeppkg" / "__init__.py").write_text("x = " + "-" * 200_000 + "1\n")
    (tmp_path / "deeppkg" / "bot.py").write_text("Bot = None\n")
    with pytest.raises(BotLoadError, match=r"module 'deeppkg' \(.*__init__.py\) nests too deep for Python to read it"):
        bot_factory("deeppkg.bot:Bot")


class TriesMovesOnItsView(Raising):
    """Tries a placement on the view's own maze, as if it were a copy (found by review: the
    game's maze changed, and the game then crashed or went on with other results)."""

    def act(self, view, legal):
        placement = next((a for a in legal if type(a) is PlacePath), None)
        if placement is not None:
            view.board.place(placement.cell, dict(view.hand)[placement.card], placement.turned)
        return legal[0]


class KeepsItsViewsMaze(Raising):
    """Plays the first legal move, and changes the maze of its last view when it hears a move."""

    def act(self, view, legal):
        self.kept = view.board
        return legal[0]

    def on_event(self, event):
        kept = getattr(self, "kept", None)
        if kept is not None and kept.tunnels:
            kept.remove(next(iter(kept.tunnels)))


class FirstLegal(Raising):
    def act(self, view, legal):
        return legal[0]


class Exits(Raising):
    def act(self, view, legal):
        raise SystemExit(3)


def test_a_bot_cannot_change_the_games_maze_through_its_view():
    state = Game(GameConfig(3), seed=2).new_state()
    while not any(type(a) is PlacePath for a in state.legal_actions()):
        state.push(state.legal_actions()[-1])
    tiles = dict(state.board.tiles)
    seat = GuardedSeat(TriesMovesOnItsView(), "meddler", state.current)
    action = seat.act_in(state)
    assert isinstance(action, Pass) and state.board.tiles == tiles and not state.board.read_only
    assert [i.kind for i in seat.incidents] == ["raised"] and "read-only" in seat.incidents[0].detail
    copy = state.board.clone()  # a bot's own copy takes moves
    placement = _first_placement(state)
    copy.place(placement.cell, state.faces[placement.card], placement.turned)
    assert placement.cell in copy.tiles and placement.cell not in state.board.tiles


def test_a_maze_a_bot_kept_from_a_view_and_changes_as_it_hears_moves_is_not_the_games():
    """While the state still holds that maze (no move has changed it since), the change is
    refused; once it has, the state changed a copy.  Either way the game is the rules' game:
    its moves replay from scratch to the same scores."""
    config = GameConfig(4)
    record = play_game(config, [KeepsItsViewsMaze(), "random", "random", "random"], seed=9)
    assert record.incidents and all("read-only" in i.detail for i in record.incidents)
    assert replay(config, 9, record.actions).scores == record.scores


def test_sys_exit_in_a_bot_ends_its_move_not_the_game():
    record = play_game(GameConfig(4), [Exits(), "random", "random", "random"], seed=9)
    assert record.scores and record.incidents and all("SystemExit" in i.detail for i in record.incidents)


class HangsAtStart(Raising):
    def start(self, seat, config, seed):
        time.sleep(0.5)


class HangsWhenTold(FirstLegal):
    def on_event(self, event):
        time.sleep(0.5)


@pytest.mark.parametrize("bot, where", [(HangsAtStart(), "start()"), (HangsWhenTold(), "on_event()")])
def test_start_and_on_event_are_held_to_the_time_limit_too(bot, where):
    """Only act was timed (found by review): a bot looping in start or on_event hung the
    tournament.  Now it is stopped, named, and plays safe moves; the others play on."""
    started = time.monotonic()
    record = play_game(GameConfig(3, rounds=1), [bot, "heuristic", "heuristic"], seed=5, time_limit=0.1)
    assert time.monotonic() - started < 3
    assert [(i.seat, i.kind) for i in record.incidents] == [(0, "timeout")]
    assert record.incidents[0].detail.startswith(where) and record.scores


@pytest.mark.parametrize("dicts", [False, True])
def test_a_copy_or_pickle_of_the_lent_maze_is_the_bots_own(dicts):
    """copy.deepcopy of view.board kept the lent flag, and a search on it was refused (found by review)."""
    import copy
    import pickle

    state = Game(GameConfig(3), seed=2).new_state()
    board = state.board
    lend(board, dicts)
    try:
        for own in (copy.copy(board), copy.deepcopy(board), pickle.loads(pickle.dumps(board)), board.clone()):
            assert type(own) is Board and not own.read_only and own.tiles == board.tiles
            assert all(type(cells) is dict for cells in own.cells_for_openings)
            placement = _first_placement(state)
            own.place(placement.cell, state.faces[placement.card], placement.turned)
            assert placement.cell in own.tiles and placement.cell not in board.tiles
            own.tiles.clear()  # its dicts are its own too
    finally:
        take_back(board)
    assert type(board) is Board and board.tiles and not board.read_only


#: what a bot might write into the maze's dicts, each a way the game broke before
MAZE_WRITES = {
    "a tile on an empty cell": lambda board, cell: board.tiles.__setitem__(cell, board.tiles[(0, 0)]),
    "a tile replaced": lambda board, cell: board.tiles.__setitem__((0, 0), board.tiles[(8, 0)]),
    "the openings cleared": lambda board, cell: board.openings.clear(),
    "a connected cell dropped": lambda board, cell: board.connected.pop((0, 0)),
    "the frontier updated": lambda board, cell: board.frontier.update({cell: 0}),
    "a tunnel added": lambda board, cell: board.tunnels.setdefault(cell),
    "cells for some openings cleared": lambda board, cell: board.cells_for_openings[15].clear(),
    "the tiles replaced": lambda board, cell: setattr(board, "tiles", {}),
}


class WritesTheMaze(FirstLegal):
    """Writes the maze's dicts in ``act`` (or, with ``hearing``, in ``on_event``)."""

    def __init__(self, write, hearing=False):
        self.write, self.hearing, self.view = write, hearing, None

    def act(self, view, legal):
        self.view = view
        if not self.hearing:
            self.write(view.board, (3, 3))
        return legal[0]

    def on_event(self, event):
        if self.hearing and self.view is not None:
            self.write(self.view.board, (3, 3))


@pytest.mark.parametrize("hearing", [False, True])
@pytest.mark.parametrize("what", list(MAZE_WRITES))
def test_a_bot_that_writes_the_mazes_dicts_fails_its_move_and_the_game_goes_on(what, hearing):
    """Only the maze's methods were guarded: a bot that wrote ``view.board.tiles`` (say)
    broke the game, and a tournament stopped on a KeyError naming no one (found by review).
    Now the write is refused as the bot's failure and the game is the rules' game.  (A maze
    kept from a view is the bot's own once a move has changed the game's, as the state then
    changed a copy: hearing, the bot may write it and fail later, on what it wrote.)"""
    config = GameConfig(4)
    bots = [WritesTheMaze(MAZE_WRITES[what], hearing), "heuristic", "random", "heuristic"]
    record = play_game(config, bots, seed=9)
    assert record.incidents and {i.seat for i in record.incidents} == {0}
    if not hearing:
        assert "read-only" in record.incidents[0].detail or "no setter" in record.incidents[0].detail
    assert replay(config, 9, record.actions).scores == record.scores


def test_the_bundled_bots_never_write_the_mazes_dicts():
    """The dicts are left unguarded for the bundled bots (a copy per move would cost a few
    per cent of a game): held to the guard, they play the very same games."""
    for edition, bots in (("base", ["heuristic", "heuristic-v1", "random", "heuristic", "heuristic-v1"]),
                          ("saboteur2", ["heuristic"] * 5)):
        config = GameConfig(5, edition)
        for seed in range(3):
            trusted = play_game(config, bots, seed)
            with pytest.MonkeyPatch.context() as patch:
                patch.setattr(GuardedSeat, "__init__", _unbundled(GuardedSeat.__init__))
                guarded = play_game(config, bots, seed)
            assert not guarded.incidents and (guarded.actions, guarded.scores) == (trusted.actions, trusted.scores)


def _unbundled(init):
    def unbundled_init(self, *args, **kwargs):
        init(self, *args, **kwargs)
        self.bundled = False
    return unbundled_init


class SlowListener(FirstLegal):
    """Slow to hear the first three moves (each within the limit)."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.heard = 0

    def on_event(self, event):
        if type(event).__name__ == "CardPlayed" and self.heard < 3:
            self.heard += 1
            time.sleep(self.seconds)


class BrokenListener(FirstLegal):
    @property
    def on_event(self):
        raise SystemExit("no ears")


def test_each_seat_has_its_own_time_to_hear_a_move_and_a_failing_on_event_is_an_incident():
    """One deadline for every seat's hearing blamed the seat after a slow one; a bot whose
    on_event could not even be looked up ended the whole game (found by review)."""
    record = play_game(
        GameConfig(3, rounds=1), [SlowListener(0.3), SlowListener(0.25), BrokenListener()], seed=5, time_limit=0.5,
    )
    assert [(i.seat, i.kind) for i in record.incidents] == [(2, "raised")] and record.scores
    assert "SystemExit" in record.incidents[0].detail
    # what was played for it, in words (it read "played instead: every turn", found by a bot author)
    assert record.incidents[0].fallback == "safe moves for the rest of the game"


class ClearsTheLentFlag(FirstLegal):
    """Sets its view's maze's ``read_only`` to False, then plays."""

    def act(self, view, legal):
        with contextlib.suppress(AttributeError):  # a lent maze's flag is not the bot's to set
            view.board.read_only = False
        return legal[0]


class CopiesTheDicts(FirstLegal):
    """Copies the lent maze's dicts, as a search may, and writes its copies."""

    def act(self, view, legal):
        import copy
        import pickle

        for own in (copy.copy(view.board.tiles), copy.deepcopy(view.board.connected),
                    pickle.loads(pickle.dumps(view.board.frontier)), dict(view.board.openings)):
            assert type(own) is dict
            own.clear()
        return legal[0]


def test_a_bot_cannot_keep_the_maze_lent_by_clearing_its_flag_and_may_copy_its_dicts():
    """A bot that set read_only False left the maze a LentBoard: the next move of the game
    raised ReadOnlyBoard and the tournament stopped; and copy.copy or deepcopy of a lent
    dict was refused (found by review)."""
    config = GameConfig(4)
    for bot in (ClearsTheLentFlag(), CopiesTheDicts()):
        record = play_game(config, [bot, "heuristic", "random", "heuristic"], seed=9)
        assert replay(config, 9, record.actions).scores == record.scores
        assert not record.incidents or isinstance(bot, ClearsTheLentFlag)


def test_a_bot_saying_its_class_is_a_bundled_ones_is_held_to_the_guard():
    fake = type("HeuristicBot", (WritesTheMaze,), {"__module__": "saboteur_bots.heuristic"})
    seat = GuardedSeat(fake(MAZE_WRITES["the openings cleared"]), "fake", 0)
    assert not seat.bundled and GuardedSeat(load_bot("heuristic"), "heuristic", 0).bundled


def test_a_maze_taken_back_while_another_thread_reads_it_reads_as_the_game_s():
    """client/local's screen reads the maze in another thread: a read as it was taken back
    raised KeyError (found by review)."""
    state = Game(GameConfig(3), seed=2).new_state()
    board = state.board
    lend(board, True)
    read = type(board).__dict__["tiles"].fget  # a reader that saw a LentBoard ...
    take_back(board)  # ... reads after it is taken back
    assert read(board) is board.tiles
