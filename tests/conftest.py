"""Shared helpers for the rules tests: constructed scenarios, snapshots and random play.

A scenario is a real ``State`` (from ``Game(...).new_state()``) whose round has been
rearranged by hand: the trusted dealer's decks are rebuilt so that every handle still names
the face the dealer would reveal, and the maze is laid card by card through ``Board.place``.
Test modules import these helpers with ``from conftest import ...``.
"""
from __future__ import annotations

import os
import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import pytest
import zmq

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.rules import Game, GameConfig, IllegalActionError, Role, State, Tool
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.actions import AnyAction
from saboteur_p2p.rules.board import GOAL_CELLS, Board
from saboteur_p2p.rules.cards import ActionCard, ActionKind, Card, Door, GoldCard, PathCard, PathKind, RoleCard
from saboteur_p2p.rules.dealer import Deck, TrustedDealer
from saboteur_p2p.rules.saboteur2 import Saboteur2State
from saboteur_p2p.rules.serialize import state_to_data
from saboteur_p2p.rules.state import Phase

Cell = tuple[int, int]
#: a maze: cells to what ``card_and_turn`` reads, as a mapping or as (cell, item) pairs in placing order
Maze = Mapping[Cell, Any] | Sequence[tuple[Cell, Any]]

TUNNELS: list[PathCard] = [card for card, _ in C.TUNNEL_COUNTS]
BREAK = {tool: ActionCard(ActionKind.BREAK, (tool,)) for tool in Tool}
REPAIR = {tool: ActionCard(ActionKind.REPAIR, (tool,)) for tool in Tool}
REPAIR2 = {
    frozenset(card.tools): card for card, _ in C.ACTION_COUNTS if card.kind is ActionKind.REPAIR and len(card.tools) == 2
}
MAP = ActionCard(ActionKind.MAP)
ROCKFALL = ActionCard(ActionKind.ROCKFALL)
THEFT = ActionCard(ActionKind.THEFT)
TRAPPED = ActionCard(ActionKind.TRAPPED)
GOALS_TSS = (C.TREASURE, C.STONE_NW, C.STONE_NE)

D, S_, X = Role.GOLD_DIGGER, Role.SABOTEUR, Role.SELFISH_DWARF


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: a worker a core and two more, at most 4.  The network tests spend much of
    their time waiting (on peer processes, timeouts, a cut link), and the extra workers fill it:
    on two cores the suite took about a tenth less wall time with three workers than with two,
    and (2026-12-06, with more tests that wait) 274 s with four against 294 s with three."""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return min(4, cores + 2)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The long end-to-end tests (marked ``slow``) first, so that on a few pytest-xdist
    workers the short ones fill the time around them instead of one long test at the end."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)


@pytest.fixture
def loopback_browse() -> Iterator[None]:
    """Held by a test that browses lo for tables or floods it with announcements, across the
    pytest-xdist workers (a file lock: the xdist_group mark does not keep tests apart here), so
    that no browse hears another test's flood."""
    import fcntl
    import tempfile

    with open(os.path.join(tempfile.gettempdir(), "saboteur-p2p-tests-loopback-browse.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def segments_of(spec: str) -> tuple[int, ...]:
    """'NES' -> one segment; 'N+S' -> two one-edge segments (a dead end)."""
    return tuple(C.mask_from_letters(part) for part in spec.split("+"))


def path(spec: str) -> tuple[PathCard, bool]:
    """The catalogue tunnel and the turn that lie with exactly these segments.

    'ES' is the {N,W} curve turned; an upright match is preferred.
    """
    wanted = sorted(segments_of(spec))
    for turned in (False, True):
        for card in TUNNELS:
            if sorted(card.turned_segments(turned)) == wanted:
                return card, turned
    raise ValueError(f"no tunnel card lies as {spec!r}")


def tunnel(spec: str) -> PathCard:
    """The catalogue tunnel whose upright segments are exactly ``spec``."""
    card, turned = path(spec)
    if turned:
        raise ValueError(f"{spec!r} is a turned card; use path()")
    return card


def face(item: Card | str) -> Card:
    """A face; a string names the tunnel that lies as that spec, upright or turned."""
    return path(item)[0] if isinstance(item, str) else item


def card_and_turn(item: PathCard | tuple[PathCard, bool] | str) -> tuple[PathCard, bool]:
    """A maze entry as (card, turned): a tunnel spec (see ``path``), an upright card, or the pair."""
    if isinstance(item, str):
        return path(item)
    return (item, False) if isinstance(item, PathCard) else item


def _new_handle(deck: list[Card], card: Card) -> int:
    """Put ``card`` on the scenario's draw deck; its handle is its place there."""
    deck.append(card)
    return len(deck) - 1


def _lay_round(
    state: State, maze: Maze, hands: Mapping[int, Sequence[Card | str]] | None, draw: Sequence[Card | str] | None,
) -> list[Card]:
    """Lay ``maze``, deal ``hands`` and stack ``draw`` (default: ten N-S tunnels); the draw deck so far."""
    deck: list[Card] = []
    _lay_maze(state, maze, deck)
    hands = hands or {}
    state.hands = [[_new_handle(deck, face(c)) for c in hands.get(seat, ())] for seat in range(state.players)]
    state.draw_pile = [_new_handle(deck, face(c)) for c in (["NS"] * 10 if draw is None else draw)]
    return deck


def _lay_maze(state: State, maze: Maze, deck: list[Card]) -> None:
    """A fresh board with ``maze`` placed card by card, each fitting and reaching no goal."""
    state.board = Board.new_round()
    state.placed = {}
    for cell, item in (maze.items() if isinstance(maze, Mapping) else maze):
        card, turned = card_and_turn(item)
        assert state.board.fits(cell, card.turned_openings if turned else card.openings), f"{item} misfits at {cell}"
        reached = state.board.place(cell, card, turned)
        assert not reached, f"scenario card at {cell} reaches goal(s) {reached}"
        state.placed[cell] = _new_handle(deck, card)


def _hide_goals(state: State, goals: Sequence[PathCard]) -> None:
    """The goal deck dealt as ``goals`` (west to east), none of them seen yet."""
    state.dealer.decks[Deck.GOALS] = list(goals)
    state.goal_faces = {}
    state.peeks = [set() for _ in range(state.players)]
    state.pending_stones = []


def _start_play(state: State, current: int) -> None:
    """``current`` to play the round's first turn."""
    state.current = state.first_player = current
    state.last_player = (current - 1) % state.players
    state.last_path_player = None
    state.phase = Phase.PLAY
    state.events = []
    state._legal = None
    state._board_shared = False


def build(
    players: int = 5,
    *,
    variants: Iterable[str] = (),
    seed: int = 0,
    goals: Sequence[PathCard] = GOALS_TSS,
    maze: Maze = (),
    hands: Mapping[int, Sequence[Card | str]] | None = None,
    draw: Sequence[Card | str] | None = None,
    roles: Sequence[Role] | None = None,
    set_aside: Sequence[Role] = (),
    current: int = 0,
    broken: Mapping[int, Iterable[Tool]] | None = None,
    gold: Sequence[int] | None = None,
    rounds: int = 3,
) -> State:
    """A state in round 1 laid out as described.

    ``maze`` maps cells to segment specs ('NESW', 'ES', 'N+S'), placed in order; no card may
    reach a face-down goal and each must fit its neighbours (it need not join the start).
    ``hands`` maps seats to faces (a string is a tunnel spec); unnamed seats hold nothing.
    ``draw`` lists the draw pile bottom first (default: ten straight N-S tunnels).
    ``gold`` lists the gold pile's nugget values, bottom first.
    """
    config = GameConfig(players=players, variants=frozenset(variants), rounds=rounds)
    state = Game(config, seed=seed).new_state()
    dealer = state.dealer
    deck = _lay_round(state, maze, hands, draw)
    _hide_goals(state, goals)

    if roles is not None:
        assert len(roles) == players
        role_deck = [RoleCard(r) for r in roles] + [RoleCard(r) for r in set_aside]
        dealer.decks[Deck.ROLES] = role_deck
        state.roles = list(range(players))
        state.set_aside_roles = list(range(players, len(role_deck)))
        state.role_faces = {seat: roles[seat] for seat in range(players)}

    state.broken = [{} for _ in range(players)]
    state.discards, state.hidden_discards = [], []
    for seat, tools in (broken or {}).items():
        for tool in tools:
            state.broken[seat][tool] = _new_handle(deck, BREAK[tool])
    dealer.decks[Deck.DRAW] = deck
    state.faces = dict(enumerate(deck))

    if gold is not None:
        dealer.decks[Deck.GOLD] = [GoldCard(v) for v in gold]
        state.gold_pile = list(range(len(gold)))
        state.gold_faces = {}
        state.gold_of = [[] for _ in range(players)]

    _start_play(state, current)
    return state


def build2(
    players: int = 5,
    *,
    maze: Maze = (),
    hands: Mapping[int, Sequence[Card | str]] | None = None,
    draw: Sequence[Card | str] | None = None,
    roles: Sequence[Role] | None = None,
    set_aside_roles: Sequence[Role] = (),
    inspected: Mapping[int, Iterable[int]] | None = None,
    current: int = 0,
    trapped: Sequence[int] = (),
    thefts: Mapping[int, int] | None = None,
    broken: Mapping[int, Sequence[Tool]] | None = None,
    pieces: Sequence[int] | None = None,
    goals: Sequence[PathCard] = GOALS_TSS,
    rounds: int = 3,
    seed: int = 0,
) -> Saboteur2State:
    """A Saboteur 2 state in round 1 laid out as described (the expansion's ``build``).

    ``maze`` takes what ``card_and_turn`` reads, so expansion cards too; ``draw`` is bottom first
    (default: ten N-S tunnels); three N-S tunnels are put aside.  ``roles`` default to blue
    diggers; ``inspected`` maps a seat to the seats whose dwarf cards it has seen; ``thefts``
    maps seats to the turn their Theft was played.
    """
    state = Game(GameConfig(players, "saboteur2", rounds=rounds), seed=seed).new_state()
    assert isinstance(state, Saboteur2State)
    dealer = state.dealer
    deck = _lay_round(state, maze, hands, draw)
    state.set_aside_cards = [_new_handle(deck, face("NS")) for _ in range(3)]
    state.broken = [{} for _ in range(players)]
    for seat, tools in (broken or {}).items():
        for tool in tools:
            state.broken[seat][tool] = _new_handle(deck, BREAK[tool])
    state.trapped = [_new_handle(deck, TRAPPED) if seat in trapped else None for seat in range(players)]
    state.thefts = [None] * players
    state.theft_played = [None] * players
    for seat, turn in (thefts or {}).items():
        state.thefts[seat] = _new_handle(deck, THEFT)
        state.theft_played[seat] = turn
    state.discards, state.hidden_discards = [], []
    dealer.decks[Deck.DRAW] = deck
    state.faces = dict(enumerate(deck))
    _hide_goals(state, goals)

    roles = list(roles) if roles is not None else [Role.BLUE_DIGGER] * players
    assert len(roles) == players
    dealer.decks[Deck.ROLES] = [RoleCard(r) for r in roles + list(set_aside_roles)]
    state.roles = list(range(players))
    state.set_aside_roles = list(range(players, players + len(set_aside_roles)))
    state.role_faces = {h: card.role for h, card in enumerate(dealer.decks[Deck.ROLES])}  # type: ignore[union-attr]
    state.role_seen = [{seat} | set((inspected or {}).get(seat, ())) for seat in range(players)]
    state.discarded_roles = []

    state.pieces = list(pieces) if pieces is not None else [0] * players
    state.round_pieces = [0] * players
    state.steal_queue = []
    state.turns = 100
    _start_play(state, current)
    return state


def hand_card(state: State, seat: int, item: Card | str) -> int:
    """The lowest handle in ``seat``'s hand with this face."""
    wanted = face(item)
    handles = sorted(h for h in state.hands[seat] if state.faces[h] == wanted)
    assert handles, f"seat {seat} holds no {wanted}"
    return handles[0]


def place_text(state: State, seat: int, spec: str, cell: Cell, turned: bool | None = None) -> str:
    """The action text that places ``seat``'s card lying as ``spec`` at ``cell``."""
    card, auto_turned = path(spec)
    turned = auto_turned if turned is None else turned
    return f"path {hand_card(state, seat, card)} at {cell[0]},{cell[1]}" + (" turned" if turned else "")


def snapshot(state: State) -> Any:
    """Everything a failed action must leave alone: every seat's view and the hidden piles."""
    return (
        [state.view_for(seat).to_data() for seat in range(state.players)],
        state.phase,
        state.current,
        [list(h) for h in state.hands],
        list(state.draw_pile),
        dict(state.placed),
        [dict(b) for b in state.broken],
        list(state.discards),
        list(state.hidden_discards),
        [set(p) for p in state.peeks],
        list(state.gold_pile),
        [list(g) for g in state.gold_of],
        list(state.offered),
        list(state.take_queue),
        list(state.pending_stones),
        len(state.events),
        dict(state.board.frontier),
        dict(state.board.connected),
    )


def goal_slot(cell: Cell) -> int:
    return GOAL_CELLS.index(cell)


def finish_gold(state: State, choose: str = "first") -> None:
    """Play the gold phases with the first (or last) legal choice until play resumes or the game ends."""
    while state.phase in (Phase.KEEP_GOLD, Phase.TAKE_GOLD):
        legal = state.legal_actions()
        state.play(legal[0] if choose == "first" else legal[-1])


def random_game(config: GameConfig, seed: int, steps: int | None = None) -> tuple[State, list[AnyAction]]:
    """Play uniformly random legal actions (from a generator seeded by ``seed``)."""
    rng = random.Random(seed)
    state = Game(config, seed=seed).new_state()
    played: list[AnyAction] = []
    while not state.is_terminal() and (steps is None or len(played) < steps):
        action = rng.choice(state.legal_actions())
        state.push(action)
        played.append(action)
    return state, played


def permute_faces(state: State, deck: Deck, handles: list[int], known: dict[int, Any], rng: random.Random) -> None:
    """Shuffle the faces behind ``handles`` in ``deck``, updating those already in ``known``."""
    cards = state.dealer.decks[deck]
    faces = [cards[h] for h in handles]
    rng.shuffle(faces)
    for h, f in zip(handles, faces, strict=True):
        cards[h] = f
        if h in known:
            known[h] = f


def permute_unseen_goals(state: State, seat: int, rng: random.Random) -> None:
    """Shuffle the faces of the goals still face down that ``seat`` has not peeked at."""
    unseen = [slot for slot, cell in enumerate(GOAL_CELLS)
              if state.board.tiles[cell].card is None and slot not in state.peeks[seat] and slot not in state.pending_stones]
    permute_faces(state, Deck.GOALS, unseen, state.goal_faces, rng)


def shuffle_hidden(state: State, seat: int, rng: random.Random) -> State:
    """A clone in which everything ``seat`` cannot see is permuted.

    Permuted: the faces of other players' hands, the draw pile and face-down discards, and
    the draw pile's order; unseen goal faces; other players' roles and the set-aside role
    (until the roles are revealed); the faces of gold cards ``seat`` is not shown.
    """
    other = state.clone()
    decks = other.dealer.decks
    hidden = [h for s, hand in enumerate(other.hands) if s != seat for h in hand]
    hidden += other.draw_pile + other.hidden_discards
    permute_faces(other, Deck.DRAW, hidden, other.faces, rng)
    rng.shuffle(other.draw_pile)
    permute_unseen_goals(other, seat, rng)

    if other.revealed_roles is None:
        handles = [h for s, h in enumerate(other.roles) if s != seat] + other.set_aside_roles
        cards = [decks[Deck.ROLES][h] for h in handles]
        rng.shuffle(cards)
        for h, card in zip(handles, cards, strict=True):
            decks[Deck.ROLES][h] = card
            if h in other.role_faces:
                other.role_faces[h] = card.role

    if other.phase is not Phase.GAME_OVER:
        gold = [g for s, gs in enumerate(other.gold_of) if s != seat for g in gs]
        if not (other.phase is Phase.TAKE_GOLD and other.current == seat):
            gold += other.gold_pile
        if not (other.phase is Phase.KEEP_GOLD and other.current == seat):
            gold += other.offered
        permute_faces(other, Deck.GOLD, gold, other.gold_faces, rng)
    return other


class SeatDealer:
    """A trusted dealer that answers like the network's: only what ``seat`` is shown."""

    def __init__(self, seed: int, seat: int) -> None:
        self.inner = TrustedDealer(seed)
        self.seat = seat

    def shuffle(self, fresh, again):
        return self.inner.shuffle(fresh, again)

    def shuffle_ahead(self, fresh):
        self.inner.shuffle_ahead(fresh)

    def public_random(self, n: int) -> int:
        return self.inner.public_random(n)

    def reveal_many(self, deck, handles):
        return self.inner.reveal_many(deck, handles)

    def reveal(self, deck: Deck, handle: int, to: frozenset[int] | None) -> Card | None:
        if to is None or self.seat in to:
            return self.inner.reveal(deck, handle, to)
        return None


# -- Saboteur 2: the expansion's path cards and checked play ------------------------------

B, G, BOSS, PROF, GEO, SAB = (
    Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.PROFITEER, Role.GEOLOGIST, Role.SABOTEUR,
)


def expansion(spec: str, *, ladder: bool = False, door: Door | None = None, crystals: int = 0) -> PathCard:
    """The catalogue's expansion path card with these upright segments and marks."""
    wanted = PathCard(PathKind.TUNNEL, tuple(C.mask_from_letters(s) for s in spec.split("+")), ladder, door, crystals)
    for card, _ in C.EXPANSION_PATH_COUNTS:
        if card == wanted:
            return card
    raise ValueError(f"no expansion card {wanted}")


LADDER_S = expansion("S", ladder=True)
LADDER_ES = expansion("ES", ladder=True)
LADDER_NS = expansion("NS", ladder=True)
BLUE_EW = expansion("EW", door=Door.BLUE)
BLUE_NS = expansion("NS", door=Door.BLUE)
GREEN_EW = expansion("EW", door=Door.GREEN)
GREEN_NS = expansion("NS", door=Door.GREEN)
GREEN_EW_S = expansion("EW+S", door=Door.GREEN)
BRIDGE = expansion("NS+EW")
CURVES = expansion("NW+ES")
CRYSTAL_EW_S = expansion("EW+S", crystals=1)
CRYSTAL_X = expansion("NESW", crystals=1)
CRYSTAL_BRIDGE = expansion("NS+EW", crystals=1)
CRYSTAL_N = expansion("N", crystals=1)


#: a tunnel from the start to the cell west of the middle goal, which (7, 0) then reaches
CORRIDOR = [((x, 0), "WE") for x in range(1, 7)]
MIDDLE_TREASURE = (C.STONE_NE, C.TREASURE, C.STONE_NW)


def config2(players: int, rounds: int = 3) -> GameConfig:
    return GameConfig(players, "saboteur2", rounds=rounds)


def fingerprint(state: Saboteur2State) -> Any:
    return (
        state_to_data(state),
        [state.view_for(seat).to_data() for seat in range(state.players)],
        sorted(map(str, state.legal_actions())),
        dict(state.board.frontier), dict(state.board.connected),
    )


def refused(state: Saboteur2State, action: Any, rule: str) -> IllegalActionError:
    """Checked play refuses ``action`` naming ``rule``, and leaves the state as it was."""
    before = fingerprint(state)
    with pytest.raises(IllegalActionError, match=rule) as caught:
        state.play(action)
    assert str(action) in str(caught.value)
    assert fingerprint(state) == before
    return caught.value


def corridor_state(finder: int, roles: Sequence[Role], *, last: Any = ("WE"), maze=CORRIDOR, **kwargs: Any) -> Saboteur2State:
    """A state where ``finder`` holds the card that reaches the middle goal (the treasure)."""
    hands = {seat: ["NS", MAP] for seat in range(len(roles))}
    hands[finder] = [last, MAP]
    return build2(len(roles), maze=maze, goals=MIDDLE_TREASURE, hands=hands, roles=roles, current=finder, **kwargs)


@pytest.fixture
def context() -> Iterator[zmq.Context]:
    """A ZeroMQ context of the test's own, terminated after it (every socket must be closed)."""
    context = zmq.Context()
    yield context
    context.term()


@pytest.fixture
def link_seat(context: zmq.Context) -> Iterator[tuple[Transport, Identity]]:
    """A peer's transport with an encrypted link endpoint, and its identity."""
    identity = Identity.generate()
    transport = Transport("127.0.0.1:0", context, link_keys=identity.link_keys())
    yield transport, identity
    transport.close()
