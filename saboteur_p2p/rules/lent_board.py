"""The game's maze lent read-only to bots while they run (botapi.GuardedSeat, botapi.lent).

Lent, a maze's methods that change it raise ReadOnlyBoard (``Board.read_only``); lent with
its dicts (``lend(board, dicts=True)``), the maze is a ``LentBoard`` until ``take_back``, whose
dicts are read-only copies, so a bot that writes ``tiles`` (say) fails its move rather than
breaking the game.  The copies cost a few per cent of a bot's move: the bundled bots, which
never write the dicts (a test holds them to it), are lent the maze without them.
"""
from __future__ import annotations

import sys
from typing import Any

from .board import _SLOT_OF, Board, ReadOnlyBoard

#: id of each maze lent with its dicts -> the read-only copies of them handed out so far
_COPIES: dict[int, dict[str, Any]] = {}


def lend(board: Board, dicts: bool = True) -> None:
    """Lend ``board`` read-only until ``take_back``; with ``dicts``, its dicts too."""
    if not board.read_only:
        board.read_only = True
        if dicts:
            _COPIES[id(board)] = {}
            board.__class__ = LentBoard


def take_back(board: Board) -> None:
    """End a ``lend``: the maze is the game's to change again (whatever a bot did to its
    ``read_only``; a LentBoard's is not theirs to clear)."""
    if board.__class__ is LentBoard:
        board.__class__ = Board  # type: ignore[assignment]
        _COPIES.pop(id(board), None)  # after: a reader that still saw a LentBoard reads the dicts
    board.read_only = False


class _ReadOnlyDict(dict[Any, Any]):
    """A copy of one of a lent maze's dicts that refuses changes (read as fast as a dict)."""

    __slots__ = ()

    def _refuse(self, *args: Any, **kwargs: Any) -> Any:
        raise ReadOnlyBoard("the view's maze is the game's own and read-only: try moves on board.clone()")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce_ex__(self, protocol: Any) -> Any:
        """copy, deepcopy and pickle give a dict of the bot's own (the copy is built by
        setting items, which this one refuses)."""
        return dict, (dict(self),)


def _read_only(name: str) -> property:
    """A LentBoard's attribute ``name``: a read-only copy of the maze's dict (a tuple of them
    for ``cells_for_openings``), made at its first use in a lending and the same object after
    (so ``board.network() is board.connected`` holds, as for a maze not lent)."""
    slot = _SLOT_OF[name]

    def copy(board: Board) -> Any:
        copies = _COPIES.get(id(board))
        if copies is None:  # taken back while another thread read it (client/local's screen)
            return slot.__get__(board)
        made = copies.get(name)
        if made is None:
            value = slot.__get__(board)
            made = copies[name] = tuple(map(_ReadOnlyDict, value)) if isinstance(value, list) else _ReadOnlyDict(value)
        return made

    return property(copy, doc=f"``{name}``, read-only while the maze is lent")


class LentBoard(Board):
    """A maze lent with its dicts (``lend``): the game's own, in a bot's view.  ``clone``,
    ``copy`` and pickling give an ordinary maze, the bot's own."""

    __slots__ = ()

    tiles = _read_only("tiles")
    openings = _read_only("openings")
    connected = _read_only("connected")
    frontier = _read_only("frontier")
    tunnels = _read_only("tunnels")
    cells_for_openings = _read_only("cells_for_openings")
    #: always lent: a bot that sets it False does not get the maze back (take_back does)
    read_only = property(lambda board: True, doc="True: the maze is lent")

    def __reduce_ex__(self, protocol: Any) -> Any:
        return _itself, (self.clone(),)


def _itself(board: Board) -> Board:
    """How a lent maze is pickled: as an ordinary copy."""
    return board


class _Owner:
    """Holds a board the way a game state does: in an attribute of its ``__dict__``."""

    board: object


def _references_alone() -> int:
    owner = _Owner()
    owner.board = object()
    return sys.getrefcount(owner.board)


#: what ``sys.getrefcount`` says of a board that its owner alone holds, measured rather than
#: assumed (interpreters count the argument differently); None where nothing counts references
_ALONE: int | None = _references_alone() if hasattr(sys, "getrefcount") else None


def held_elsewhere(owner: Any) -> bool:
    """Whether anything besides ``owner`` holds ``owner.board`` (a view handed out earlier, or
    its maze): then a change must go to a copy.  Always True where references are not counted."""
    return _ALONE is None or sys.getrefcount(owner.board) > _ALONE
