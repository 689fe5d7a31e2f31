"""The game state of base Saboteur: rounds, turns, goal reveals and the gold hand-out.

``Game(config, dealer).new_state()`` gives a ``State``.  ``play`` is the checked entry point
(the network and the clients use it); ``push`` applies an action from ``legal_actions()``
without checks, for bots that search.  Hidden cards are handles; their faces come from the
dealer only when the rules reveal them (see dealer.py).
"""
from __future__ import annotations

from typing import Any

from . import cards as C
from . import goal_reveal, gold_handout, moves
from .actions import (
    AnyAction,
    BreakTool,
    KeepGold,
    MapPeek,
    OrientStone,
    Pass,
    PlacePath,
    RepairTool,
    Rockfall,
    TakeGold,
    parse_action,
)
from .board import Board, Cell
from .cards import Card, GoldCard, PathCard, Role, Tool
from .checks import TurnChecks
from .config import VARIANTS, GameConfig
from .dealer import DRAW, Dealer, Deck, TrustedDealer, reveal_all_as, reveal_as
from .editions import Edition, register
from .errors import IllegalActionError, InvalidActionError
from .events import CardPlayed, Event, GameEnded, RoundStarted
from .goal_reveal import Settled
from .gold import gold_choices
from .lent_board import held_elsewhere
from .phases import GAME_OVER, PLAY, Phase, RoundResult, Winners
from .view import PlayerView, view_of

#: the actions that change the maze; the others leave a shared board alone.
_BOARD_ACTIONS = frozenset((PlacePath, Rockfall, OrientStone))
#: the audience of a card shown to one seat, made once (a draw shows one every turn).
_ONLY = tuple(frozenset((seat,)) for seat in range(16))
#: the base game's turns: each plays (or, passing, discards) one card from the hand.
_CARD_TURNS = (PlacePath, BreakTool, RepairTool, Rockfall, MapPeek, Pass)


class Game:
    """A game's fixed parts: its configuration and its dealer."""

    def __init__(self, config: GameConfig, dealer: Dealer | None = None, seed: int | str | None = 0) -> None:
        self.config = config
        self.dealer: Dealer = dealer if dealer is not None else TrustedDealer(seed)

    def new_state(self) -> State:
        return State.new(self.config, self.dealer)  # the edition's class (State.new picks it)


class State(TurnChecks):
    """Everything about a game in progress that this engine instance knows."""

    def __init__(self, config: GameConfig, dealer: Dealer) -> None:
        n = config.players
        self.config = config
        self.dealer = dealer
        self.round = 0
        self.phase = Phase.PLAY
        self.current = 0
        self.first_player = 0
        self.board = Board.new_round()
        self.placed: dict[tuple[int, int], int] = {}
        self.draw_pile: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.faces: dict[int, Card] = {}
        self.roles: list[int] = []
        self.role_faces: dict[int, Role] = {}
        self.set_aside_roles: list[int] = []
        self.goal_faces: dict[int, PathCard] = {}
        self.broken: list[dict[Tool, int]] = [{} for _ in range(n)]
        self.discards: list[int] = []
        self.hidden_discards: list[int] = []
        self.peeks: list[set[int]] = [set() for _ in range(n)]
        self.gold_pile: list[int] = []
        self.gold_faces: dict[int, GoldCard] = {}
        self.gold_of: list[list[int]] = [[] for _ in range(n)]
        self.offered: list[int] = []
        self.keep_order: list[int] = []
        self.take_queue: list[tuple[int, int]] = []
        self.pending_stones: list[int] = []
        #: the treasure was turned over and the round ends once the pending stones are turned
        self.treasure_reached = False
        self.orienter = 0
        self.last_path_player: int | None = None
        self.last_player = 0
        self.round_gold: list[int] = [0] * n
        self.round_winners = Winners.NOBODY
        self.revealed_roles: tuple[Role, ...] | None = None
        self.results: list[RoundResult] = []
        #: whether a player has seen the gold pile since it was last shuffled
        self.gold_pile_seen = False
        #: takes of gold this engine could not check (it was not shown the pile): (taker, cards, amount)
        self.unchecked_takes: list[tuple[int, tuple[int, ...], int]] = []
        self.scores: tuple[int, ...] | None = None
        self.events: list[Event] = []
        self._legal: list[AnyAction] | None = None
        self._board_shared = False

    # -- construction ----------------------------------------------------------------

    @classmethod
    def new(cls, config: GameConfig, dealer: Dealer) -> State:
        if cls is State:
            cls = config.edition_rules.state_class  # State.new(saboteur2 config) is a Saboteur 2 game
        state = cls(config, dealer)
        state._start_round(dealer.public_random(config.players))
        return state

    def clone(self) -> State:
        """An independent copy; a trusted dealer is copied too, so the copy may be played on."""
        other = type(self).__new__(type(self))
        other.__dict__.update(self.__dict__)
        if isinstance(self.dealer, TrustedDealer):
            other.dealer = self.dealer.clone()
        other.board = self.board.clone()
        other.placed = dict(self.placed)
        other.draw_pile = list(self.draw_pile)
        other.hands = [list(h) for h in self.hands]
        other.faces = dict(self.faces)
        other.roles = list(self.roles)
        other.role_faces = dict(self.role_faces)
        other.set_aside_roles = list(self.set_aside_roles)
        other.goal_faces = dict(self.goal_faces)
        other.broken = [dict(b) for b in self.broken]
        other.discards = list(self.discards)
        other.hidden_discards = list(self.hidden_discards)
        other.peeks = [set(p) for p in self.peeks]
        other.gold_pile = list(self.gold_pile)
        other.gold_faces = dict(self.gold_faces)
        other.gold_of = [list(g) for g in self.gold_of]
        other.offered = list(self.offered)
        other.keep_order = list(self.keep_order)
        other.take_queue = list(self.take_queue)
        other.pending_stones = list(self.pending_stones)
        other.round_gold = list(self.round_gold)
        other.results = list(self.results)
        other.unchecked_takes = list(self.unchecked_takes)
        other.events = list(self.events)
        other._legal = None
        other._board_shared = False
        return other

    def edition_to_data(self) -> dict[str, Any] | None:
        """An edition's own fields for serialize.py (saved under the edition's name), or None."""
        return None

    def edition_from_data(self, data: dict[str, Any] | None) -> None:
        """Restore what ``edition_to_data`` saved."""

    # -- queries -----------------------------------------------------------------------

    @property
    def players(self) -> int:
        return self.config.players

    def current_player(self) -> int:
        return self.current

    def is_terminal(self) -> bool:
        return self.phase is GAME_OVER

    def role_of(self, seat: int) -> Role | None:
        return self.role_faces.get(self.roles[seat]) if self.roles else None

    def gold_total(self, seat: int) -> int:
        return sum(self.gold_faces[g].nuggets for g in self.gold_of[seat] if g in self.gold_faces)

    def view_for(self, seat: int) -> PlayerView:
        """What ``seat`` may know now, and nothing more."""
        if not 0 <= seat < self.players:
            raise InvalidActionError(f"no seat {seat!r} at a table of {self.players}")
        self._board_shared = True  # copy-on-write: the view keeps the maze it is given
        return view_of(self, seat)

    def learn(self, deck: Deck, handle: int, face: Card) -> None:
        """Take note of a card face a dealer showed this engine's player after the fact."""
        if deck is Deck.DRAW:
            self.faces[handle] = face
        elif deck is Deck.ROLES and isinstance(face, C.RoleCard):
            self.role_faces[handle] = face.role
        elif deck is Deck.GOALS and isinstance(face, PathCard):
            self.goal_faces[handle] = face
        elif deck is Deck.GOLD and isinstance(face, GoldCard):
            self.gold_faces[handle] = face
        else:
            raise ValueError(f"a {type(face).__name__} is not a card of the {deck.value} deck")
        self._legal = None

    # -- legal actions ---------------------------------------------------------------

    def legal_actions(self) -> list[AnyAction]:
        """Every distinct legal action of the current player (needs their hand's faces).

        Cards with the same face are interchangeable, so only the lowest-numbered one of each
        face appears; a symmetric path card appears only upright.
        """
        if self._legal is None:
            if self.phase is PLAY:
                self._legal = self._legal_play()
            elif self.phase is Phase.ORIENT:
                slot = self.pending_stones[0]
                self._legal = [OrientStone(slot, False), OrientStone(slot, True)]
            elif self.phase is Phase.KEEP_GOLD:
                self._legal = [KeepGold(g) for g in gold_handout.distinct_gold(self, self.offered)]
            elif self.phase is Phase.TAKE_GOLD:
                choices = gold_choices(gold_handout.pile_values(self), self.take_queue[0][1])
                self._legal = [TakeGold(c) for c in choices] or [TakeGold(())]
            else:
                self._legal = []
        return self._legal

    def _legal_play(self) -> list[AnyAction]:
        """The current player's plays of the play phase (moves.py; an edition widens them)."""
        return moves.base_game_moves(self)

    # -- checked play ----------------------------------------------------------------

    def play(self, action: AnyAction | str, player: int | None = None) -> AnyAction:
        """Check an action against the rules and apply it; returns it with its card resolved.

        Raises InvalidActionError (unreadable) or IllegalActionError (names the rule); the
        state is then unchanged.  ``player``, when given, must be the one whose turn it is.
        """
        resolved = self.check(action, player)
        self.push(resolved)
        return resolved

    def check(self, action: AnyAction | str, player: int | None = None) -> AnyAction:
        """What ``play`` checks, without playing: returns the action with its card resolved."""
        if isinstance(action, str):
            action = parse_action(action)
        if player is not None and player != self.current:
            raise IllegalActionError(action, f"it is player {self.current}'s turn, not player {player}'s")
        return self._check(action)

    def _check(self, action: AnyAction) -> AnyAction:
        phase = self.phase
        if phase is Phase.GAME_OVER:
            raise IllegalActionError(action, "the game is over")
        if phase is Phase.ORIENT:
            if not isinstance(action, OrientStone):
                rule = f"player {self.current} must first choose the turn of the stone in goal slot {self.pending_stones[0]}"
                raise IllegalActionError(action, rule)
            if action.goal != self.pending_stones[0]:
                raise IllegalActionError(action, f"the stone to turn is in goal slot {self.pending_stones[0]}")
            return action
        if phase is Phase.KEEP_GOLD:
            if not isinstance(action, KeepGold):
                raise IllegalActionError(action, f"player {self.current} must keep one of the gold cards passed to them")
            if action.gold not in self.offered:
                raise IllegalActionError(action, f"gold card {action.gold} was not passed to player {self.current}")
            return action
        if phase is Phase.TAKE_GOLD:
            return gold_handout.check_take(self, action)
        return self._check_turn(action)

    # -- applying actions (unchecked) ------------------------------------------------

    def push(self, action: AnyAction) -> None:
        """Apply an action known to be legal (from legal_actions or checked by play)."""
        self._legal = None
        if self._board_shared and action.__class__ in _BOARD_ACTIONS:
            # copy-on-write: a view handed out earlier keeps the maze it was given, unless
            # nothing holds that maze any more but this state
            if held_elsewhere(self):
                self.board = self.board.clone()
            self._board_shared = False
        phase = self.phase
        if phase is PLAY:
            self._apply_turn(action)
        elif phase is Phase.ORIENT:
            assert isinstance(action, OrientStone)
            self._apply_orient(action)
        elif phase is Phase.KEEP_GOLD:
            assert isinstance(action, KeepGold)
            if gold_handout.apply_keep(self, action.gold):
                self._finish_round()
        elif phase is Phase.TAKE_GOLD:
            assert isinstance(action, TakeGold)
            if gold_handout.apply_take(self, action.golds):
                self._finish_round()

    def _reveal_played(self, card: int) -> Card:
        face = self.dealer.reveal(DRAW, card, None)
        if face is None:  # a dealer must reveal a played card to everyone
            raise IllegalActionError(card, f"card {card} was not revealed")
        self.faces[card] = face
        return face

    def _apply_turn(self, action: AnyAction) -> None:
        if not isinstance(action, _CARD_TURNS) or action.card is None:
            raise IllegalActionError(action, "a turn plays a card from the hand, named by its handle")
        p = self.current
        card = action.card
        self.hands[p].remove(card)
        reached: list[tuple[int, int]] = []
        shown: Card | None = None
        if action.__class__ is PlacePath:
            shown = self._reveal_played(card)
            assert isinstance(shown, PathCard)  # the dealer's face of a card played as a path
            reached = self.board.place(action.cell, shown, action.turned)
            self.placed[action.cell] = card
            self.last_path_player = p
        elif action.__class__ is Pass:
            self.hidden_discards.append(card)
        else:
            shown = self._reveal_played(card)
            if action.__class__ is BreakTool:
                self.broken[action.target][action.tool] = card
            elif action.__class__ is RepairTool:
                self.discards += (card, self.broken[action.target].pop(action.tool))
            elif action.__class__ is Rockfall:
                cell = action.cell
                self.discards += (card, self.placed.pop(cell))
                self.board.remove(cell)
            elif action.__class__ is MapPeek:
                slot = action.goal
                self.peeks[p].add(slot)
                face = reveal_as(self.dealer, PathCard, Deck.GOALS, slot, frozenset((p,)))
                if face is not None:
                    self.goal_faces[slot] = face
                self.discards.append(card)
        self.events.append(CardPlayed(p, action, shown))
        self.last_player = p
        if self.draw_pile:
            self._draw(p)
        if reached:
            self.orienter = p
            if not self._settle_goals(reached):
                return
        self._next_turn()

    def _draw(self, seat: int) -> None:
        handle = self.draw_pile.pop()
        self.hands[seat].append(handle)
        self._show_card(handle, seat)

    def _show_card(self, handle: int, seat: int) -> None:
        """Show a draw-deck card to ``seat`` (this engine learns it if it may see it)."""
        face = self.dealer.reveal(DRAW, handle, _ONLY[seat] if seat < len(_ONLY) else frozenset((seat,)))
        if face is not None:
            self.faces[handle] = face

    def _settle_goals(self, reached: list[Cell]) -> bool:
        """Turn over the goals just reached (goal_reveal.py); True when the turn goes on as
        usual, False when the round ended or the reacher must choose a stone's turn."""
        settled = goal_reveal.settle(self, reached)
        if settled is Settled.TREASURE:
            self._end_round(finder=self.orienter)
        return settled is Settled.GO_ON

    def _apply_orient(self, action: OrientStone) -> None:
        if self._settle_goals(goal_reveal.orient(self, action.turned)):
            self.current = self.orienter
            self._next_turn()

    def _next_turn(self) -> None:
        hands = self.hands
        if not self.draw_pile and not any(hands):
            self._end_round(finder=None)
            return
        n = len(hands)
        seat = self.current
        for _ in range(n):
            seat = (seat + 1) % n
            if hands[seat]:
                self.current = seat
                return

    # -- end of a round and gold -----------------------------------------------------

    def _end_round(self, finder: int | None) -> None:
        """Show the roles and hand out the gold (gold_handout.py); ``finder`` reached the treasure."""
        if gold_handout.end_round(self, finder, self._reveal_roles()):
            self._finish_round()

    def _reveal_roles(self) -> tuple[Role, ...]:
        """Turn every player's role card face up (the end of a round); returns them by seat."""
        for handle, role in zip(self.roles, reveal_all_as(self.dealer, C.RoleCard, Deck.ROLES, self.roles), strict=True):
            self.role_faces[handle] = role.role
        self.revealed_roles = tuple(self.role_faces[self.roles[s]] for s in range(self.players))
        return self.revealed_roles

    def _finish_round(self) -> None:
        self.results.append(self._round_result())
        if self.round >= self.config.rounds:
            self._end_game()
            return
        self._start_round(self._next_first_player())

    def _round_result(self) -> RoundResult:
        return RoundResult(self.round, self.round_winners, self.revealed_roles or (), tuple(self.round_gold))

    def _next_first_player(self) -> int:
        """rules.md 2.5: left of whoever played the last path card (or of the last first player)."""
        n = self.players
        if self.config.has("left-of-first-starter") or self.last_path_player is None:
            return (self.first_player + 1) % n
        return (self.last_path_player + 1) % n

    def _end_game(self) -> None:
        gold_handout.reveal_gold(self)
        self._declare_winners()

    def _declare_winners(self) -> None:
        """The game is over: everyone's gold is the score; the most gold wins (rules.md 6)."""
        scores = tuple(self.gold_total(s) for s in range(self.players))
        best = max(scores)
        self.scores = scores
        self.phase = Phase.GAME_OVER
        self.events.append(GameEnded(scores, tuple(s for s in range(self.players) if scores[s] == best)))

    # -- set-up of a round -------------------------------------------------------------

    def _start_round(self, first: int) -> None:
        cfg = self.config
        n = cfg.players
        self.round += 1
        self.phase = Phase.PLAY
        self.board = Board.new_round()
        self._board_shared = False
        self.placed = {}
        self.faces = {}
        self.role_faces = {}
        self.goal_faces = {}
        self.broken = [{} for _ in range(n)]
        self.discards, self.hidden_discards = [], []
        self.peeks = [set() for _ in range(n)]
        self.pending_stones = []
        self.treasure_reached = False
        self.last_path_player = None
        self.revealed_roles = None
        self.round_winners = Winners.NOBODY
        self._shuffle_and_deal()
        self.first_player = self.current = first
        self.last_player = (first - 1) % n
        self.events.append(RoundStarted(self.round, first))

    def _shuffle_and_deal(self) -> None:
        """Shuffle this round's decks, deal the roles and the hands (rules.md 2)."""
        cfg = self.config
        n = cfg.players
        edition = cfg.edition_rules
        role_cards = edition.role_cards(cfg)
        draw_cards = edition.draw_cards()
        fresh: dict[Deck, list[Card]] = {Deck.ROLES: role_cards, Deck.GOALS: C.goal_cards(), Deck.DRAW: draw_cards}
        again: dict[Deck, list[int]] = {}
        if self.round == 1:
            fresh[Deck.GOLD] = C.gold_cards(cfg.has("stone-nuggets"))
        elif self.gold_pile_seen:
            # The gold not yet won is shuffled again (rules.md 2.4).  Only a player who took
            # gold from the pile has seen its order; when nobody has, its order is still
            # unknown to all and shuffling it again would change nothing anyone knows.
            again[Deck.GOLD] = self.gold_pile
        # the fresh decks and the gold shuffled again are two shuffles: the fresh decks of the
        # next round are shuffled while this one is played (shuffle_ahead), the gold after it
        handles = self.dealer.shuffle(fresh, {})
        if again:
            handles.update(self.dealer.shuffle({}, again))
        self.gold_pile = handles.get(Deck.GOLD, self.gold_pile)
        self.gold_pile_seen = False
        if self.round < cfg.rounds:
            self.dealer.shuffle_ahead({deck: cards for deck, cards in fresh.items() if deck is not Deck.GOLD})
        self.roles = list(range(n))
        self.set_aside_roles = list(range(n, len(role_cards)))
        self.draw_pile = list(range(len(draw_cards) - 1, -1, -1))
        for seat in range(n):
            role = reveal_as(self.dealer, C.RoleCard, Deck.ROLES, seat, frozenset((seat,)))
            if role is not None:
                self.role_faces[seat] = role.role
        size = C.hand_size(n)
        self.hands = [[] for _ in range(n)]
        for seat in range(n):
            for _ in range(size):
                self._draw(seat)


def _base_role_cards(config: GameConfig) -> list[Card]:
    return C.role_cards(config.players, config.has("selfish-dwarf"), config.has("tournament-roles"))


BASE = register(Edition(
    name="base",
    title="the base game",
    players=(3, 10),
    variants=frozenset(VARIANTS),
    state_class=State,
    role_cards=_base_role_cards,
    draw_cards=C.base_draw_cards,
    gold_unit="nugget",
    public_gold=False,
    most_gold=lambda config: sum(card.nuggets for card in C.gold_cards() if isinstance(card, GoldCard)),
))
