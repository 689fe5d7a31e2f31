"""What one player may know: the only thing bots and clients ever see."""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, overload

from .board import GOAL_CELLS, Board, Cell
from .cards import Card, GoldCard, PathCard, Role, Tool
from .config import GameConfig
from .events import Event, RoundStarted
from .phases import KEEP_GOLD, TAKE_GOLD

if TYPE_CHECKING:
    from .state import State


class History(Sequence[Event]):
    """The public events of a game up to one moment, in order: a read-only window on the
    state's append-only event list, so making a view does not copy the history.

    Every event in it is public (match.py and the network tell each one to every seat):
    who played what, where and on whom (``CardPlayed``; a face-down discard has no card
    face), who looked at which goal (a ``MapPeek`` action), goals turned over, rounds
    started and ended, gold received.
    """

    __slots__ = ("_events", "_length")

    def __init__(self, events: list[Event], length: int | None = None) -> None:
        self._events = events
        self._length = len(events) if length is None else length

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> Event: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[Event, ...]: ...
    def __getitem__(self, index: int | slice) -> Event | tuple[Event, ...]:
        if isinstance(index, slice):
            return tuple(self._events[: self._length][index])
        if index < 0:
            index += self._length
        if not 0 <= index < self._length:
            raise IndexError("history index out of range")
        return self._events[index]

    def __iter__(self) -> Iterator[Event]:
        events = self._events
        for i in range(self._length):
            yield events[i]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, History):
            return self._length == other._length and self._events[: self._length] == other._events[: other._length]
        if isinstance(other, Sequence):
            return len(other) == self._length and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"History({self._length} events)"

    def this_round(self) -> tuple[Event, ...]:
        """The events since the current round started (from its ``RoundStarted``)."""
        events = self._events
        for i in range(self._length - 1, -1, -1):
            if isinstance(events[i], RoundStarted):
                return tuple(events[i:self._length])
        return tuple(events[: self._length])


class PlayerView(NamedTuple):
    """One player's knowledge of the game at one moment (immutable; built once per move,
    so it is a named tuple: four times cheaper to make than a frozen dataclass).

    ``board`` is the public maze (face-down goals have no card); treat it as read-only.
    ``known_goals`` holds the goal faces this player has seen: with a Map or face up.
    ``offered`` are the gold cards passed to this player to keep one of; ``gold_pile`` the
    pile this player is choosing gold from (``take_amount`` nuggets).

    Saboteur 2 adds what lies in front of each player (``trapped``, ``thefts``), the dwarf
    cards this player has inspected (``known_roles``, by seat), this player's gold pieces,
    whether each player has any gold (the totals of others are secret, rules.md 8) and the
    dwarf cards it knows Swap your hats put out of play (``discarded_roles``, in the order
    they went: its own former ones, and ones it had inspected).

    ``history`` holds every public event of the game so far, in order (see ``History``).
    """

    seat: int
    config: GameConfig
    round: int
    phase: str
    current_player: int
    role: Role | None
    hand: tuple[tuple[int, Card], ...]
    board: Board
    known_goals: dict[int, PathCard]
    broken: tuple[frozenset[Tool], ...]
    hand_sizes: tuple[int, ...]
    draw_pile_size: int
    gold: tuple[tuple[int, GoldCard], ...]
    gold_counts: tuple[int, ...]
    offered: tuple[tuple[int, GoldCard], ...]
    gold_pile: tuple[tuple[int, GoldCard], ...]
    take_amount: int
    revealed_roles: tuple[Role, ...] | None
    scores: tuple[int, ...] | None
    pending_stones: tuple[int, ...]
    trapped: tuple[bool, ...] = ()
    thefts: tuple[bool, ...] = ()
    known_roles: Mapping[int, Role] = MappingProxyType({})
    gold_pieces: int = 0
    has_gold: tuple[bool, ...] = ()
    discarded_roles: tuple[Role, ...] = ()
    history: Sequence[Event] = ()

    @property
    def players(self) -> int:
        return self.config.players

    @property
    def my_turn(self) -> bool:
        return self.current_player == self.seat

    def goal_cell(self, slot: int) -> Cell:
        return GOAL_CELLS[slot]

    def to_data(self) -> dict[str, Any]:
        """Plain msgpack/JSON-compatible data (documented in docs/state.md)."""
        return {
            "seat": self.seat,
            "config": self.config.to_data(),
            "round": self.round,
            "phase": self.phase,
            "current_player": self.current_player,
            "role": None if self.role is None else self.role.value,
            "hand": [[h, card.code] for h, card in self.hand],
            "board": [
                [x, y, None if t.card is None else t.card.code, t.turned]
                for (x, y), t in self.board.tiles.items()
            ],
            "known_goals": {str(slot): card.code for slot, card in self.known_goals.items()},
            "broken": [sorted(t.value for t in tools) for tools in self.broken],
            "hand_sizes": list(self.hand_sizes),
            "draw_pile_size": self.draw_pile_size,
            "gold": [[h, card.nuggets] for h, card in self.gold],
            "gold_counts": list(self.gold_counts),
            "offered": [[h, card.nuggets] for h, card in self.offered],
            "gold_pile": [[h, card.nuggets] for h, card in self.gold_pile],
            "take_amount": self.take_amount,
            "revealed_roles": None if self.revealed_roles is None else [r.value for r in self.revealed_roles],
            "scores": None if self.scores is None else list(self.scores),
            "pending_stones": list(self.pending_stones),
            "trapped": list(self.trapped),
            "thefts": list(self.thefts),
            "known_roles": {str(seat): role.value for seat, role in self.known_roles.items()},
            "gold_pieces": self.gold_pieces,
            "has_gold": list(self.has_gold),
            "discarded_roles": [role.value for role in self.discarded_roles],
        }


def view_of(state: State, seat: int) -> PlayerView:
    """What ``seat`` may know of ``state`` now (the base game's part of a view; an edition
    adds its own fields with ``_replace``).  ``State.view_for`` is the entry point."""
    goal_faces = state.goal_faces
    peeks = state.peeks[seat]
    known = {slot: goal_faces[slot] for slot in peeks if slot in goal_faces} if peeks else {}
    tiles = state.board.tiles
    for slot, cell in enumerate(GOAL_CELLS):
        card = tiles[cell].card
        if card is not None:
            known[slot] = card
    for slot in state.pending_stones:
        known[slot] = goal_faces[slot]
    faces, gold_faces = state.faces, state.gold_faces
    offered: tuple[tuple[int, GoldCard], ...] = ()
    pile: tuple[tuple[int, GoldCard], ...] = ()
    amount = 0
    if state.current == seat:
        if state.phase is KEEP_GOLD:
            offered = tuple([(g, gold_faces[g]) for g in state.offered if g in gold_faces])
        elif state.phase is TAKE_GOLD:
            pile = tuple([(g, gold_faces[g]) for g in state.gold_pile if g in gold_faces])
            amount = state.take_queue[0][1]
    mine = state.gold_of[seat]
    # tuple.__new__ with every field rather than PlayerView(...): a view is made for every
    # move, and the named tuple's own __new__ is a Python call that sorts out keywords
    return _new_view(PlayerView, (
        seat,
        state.config,
        state.round,
        state.phase.value,
        state.current,
        state.role_faces.get(state.roles[seat]),
        tuple([(h, faces[h]) for h in state.hands[seat] if h in faces]),
        state.board,
        known,
        tuple(map(frozenset, state.broken)),
        tuple(map(len, state.hands)),
        len(state.draw_pile),
        tuple([(g, gold_faces[g]) for g in mine if g in gold_faces]) if mine else (),
        tuple(map(len, state.gold_of)),
        offered,
        pile,
        amount,
        state.revealed_roles,
        state.scores,
        tuple(state.pending_stones),
        *_EDITION_DEFAULTS,
        History(state.events),
    ))


_new_view = tuple.__new__
#: the defaults of the fields an edition fills in (``trapped`` to ``discarded_roles``), in order
_EDITION_DEFAULTS = tuple(
    PlayerView._field_defaults[name] for name in PlayerView._fields[PlayerView._fields.index("trapped"):-1]
)
