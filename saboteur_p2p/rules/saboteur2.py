"""Saboteur 2 as an edition of the engine (rules.md 8): its set-up, turns, roles and gold.

``Saboteur2State`` keeps the base game's maze, goals, stones and checked/unchecked entry
points, and changes what differs: 117 cards of which 10 lie aside unseen, 6 cards each, the
15 dwarf cards, four kinds of turn, seven new action cards, gold pieces instead of gold
cards, and thieves who steal after the gold is shared.  Every hidden card still comes from
the dealer: an Inspection or a Swap your hats shows a dwarf card to one player, and a Swap
your hand shows each moved card to its new owner, exactly like a draw.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import combinations
from types import MappingProxyType
from typing import Any

from . import cards as C
from . import moves
from .actions import (
    CLEARABLE,
    TARGETED_KINDS,
    AnyAction,
    Clear,
    Pass,
    PlayOn,
    Steal,
    clear,
    pass_card,
    play_on,
)
from .board import GOAL_CELLS
from .cards import ActionCard, ActionKind, Card, PathCard, PathKind, Role, Tool
from .config import GameConfig
from .dealer import Dealer, Deck, reveal_as
from .editions import Edition, register
from .errors import IllegalActionError, InvalidActionError
from .events import CardPlayed, PiecesWon, RoundEnded, Stolen
from .phases import Phase, RoundResult
from .scoring2 import BASE_GOLD, score_round, side_of, theft_order
from .state import State
from .view import PlayerView

#: The edition's per-seat or per-round lists of numbers (None where nothing lies), copied by
#: ``clone`` and saved as they are by serialize.py.
NUMBER_LISTS = (
    "trapped", "thefts", "theft_played", "pieces", "round_pieces", "steal_queue", "discarded_roles", "set_aside_cards",
)

#: Saboteur 2 cards played on a player that go in front of them and stay there.
_STAYS = (ActionKind.THEFT, ActionKind.TRAPPED)


def _lying(card: int | None, action: AnyAction, seat: int) -> int:
    """The card ``action`` takes from in front of ``seat``; checking makes sure one lies there."""
    if card is None:
        raise IllegalActionError(action, f"there is no such card in front of player {seat}")
    return card


def _face_pattern(faces: dict[int, Card], ordered: list[int]) -> tuple[int, ...]:
    """The hand's faces as labels in order of first appearance: (0, 1, 0, 2) for a hand whose
    first and third cards are alike."""
    labels: dict[int, int] = {}
    return tuple([labels.setdefault(id(faces[h]), len(labels)) for h in ordered])


@lru_cache(maxsize=4096)
def _index_sets(pattern: tuple[int, ...], size: int) -> tuple[tuple[int, ...], ...]:
    """The positions of one set of ``size`` cards per multiset of labels, the first in
    ``combinations`` order.  A hand has few patterns (203 of six cards), so passes and clears
    are worked out once per pattern instead of once per turn."""
    found: dict[tuple[int, ...], tuple[int, ...]] = {}
    for picked in combinations(range(len(pattern)), size):
        key = tuple(sorted(pattern[i] for i in picked))
        if key not in found:
            found[key] = picked
    return tuple(found.values())


class Saboteur2State(State):
    """A game of Saboteur 2 for 2 to 12 players."""

    LADDERS = True

    def __init__(self, config: GameConfig, dealer: Dealer) -> None:
        super().__init__(config, dealer)
        n = config.players
        #: card handles lying in front of each player (None: nothing of that kind)
        self.trapped: list[int | None] = [None] * n
        self.thefts: list[int | None] = [None] * n
        #: when each Theft in front of a player was played (a turn number), for the thieves' order
        self.theft_played: list[int | None] = [None] * n
        self.turns = 0
        #: gold pieces per player (rules.md 8: an unlimited supply, a number per player)
        self.pieces: list[int] = [0] * n
        self.round_pieces: list[int] = [0] * n
        self.steal_queue: list[int] = []
        #: dwarf card handles each seat has seen (its own, and any it inspected)
        self.role_seen: list[set[int]] = [set() for _ in range(n)]
        self.discarded_roles: list[int] = []
        #: the cards put aside unseen at the start of the round
        self.set_aside_cards: list[int] = []

    def clone(self) -> Saboteur2State:
        other = super().clone()
        assert isinstance(other, Saboteur2State)
        for name in NUMBER_LISTS:
            setattr(other, name, list(getattr(self, name)))
        other.role_seen = [set(s) for s in self.role_seen]
        return other

    def edition_to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {name: list(getattr(self, name)) for name in NUMBER_LISTS}
        data["turns"] = self.turns
        data["role_seen"] = [sorted(seen) for seen in self.role_seen]
        return data

    def edition_from_data(self, data: dict[str, Any] | None) -> None:
        if data is None:
            raise ValueError("a saved Saboteur 2 state has no 'saboteur2' fields")
        for name in NUMBER_LISTS:
            setattr(self, name, [None if v is None else int(v) for v in data[name]])
        self.turns = int(data["turns"])
        self.role_seen = [{int(h) for h in seen} for seen in data["role_seen"]]

    # -- queries -----------------------------------------------------------------------

    def gold_total(self, seat: int) -> int:
        return self.pieces[seat]

    def blocked(self, seat: int) -> bool:
        """Whether ``seat`` may not play path cards (a broken tool or Trapped!)."""
        return bool(self.broken[seat]) or self.trapped[seat] is not None

    def _path_block(self, seat: int) -> str | None:
        if self.trapped[seat] is not None:
            return f"player {seat} is trapped and may not play path cards"
        return super()._path_block(seat)

    def known_roles(self, seat: int) -> dict[int, Role]:
        """The other players' dwarf cards ``seat`` has inspected and that are still theirs."""
        seen, faces = self.role_seen[seat], self.role_faces
        return {t: faces[h] for t, h in enumerate(self.roles) if t != seat and h in seen and h in faces}

    def view_for(self, seat: int) -> PlayerView:
        view = super().view_for(seat)
        return view._replace(
            trapped=tuple(t is not None for t in self.trapped),
            thefts=tuple(t is not None for t in self.thefts),
            known_roles=MappingProxyType(self.known_roles(seat)),
            gold_pieces=self.pieces[seat],
            has_gold=tuple(p > 0 for p in self.pieces),
            discarded_roles=self.known_discarded_roles(seat),
        )

    def known_discarded_roles(self, seat: int) -> tuple[Role, ...]:
        """The dwarf cards Swap your hats put out of play that ``seat`` has seen, in the order
        they went (determinize dealt them to other seats: found by a bot author)."""
        seen, faces = self.role_seen[seat], self.role_faces
        return tuple(faces[h] for h in self.discarded_roles if h in seen and h in faces)

    # -- legal actions ---------------------------------------------------------------

    def legal_actions(self) -> list[AnyAction]:
        if self._legal is None and self.phase is Phase.STEAL:
            thief = self.steal_queue[0]
            steals: list[AnyAction] = [Steal(t) for t in self._victims(thief)]
            self._legal = [*steals, Steal(None)]
        return super().legal_actions()

    def _victims(self, thief: int) -> list[int]:
        return [t for t in range(self.players) if t != thief and self.pieces[t] > 0]

    def _legal_play(self) -> list[AnyAction]:
        p = self.current
        hand = sorted(self.hands[p])
        faces = self.faces
        players = range(self.players)
        blocked = self.blocked(p)
        actions: list[AnyAction] = []
        seen: set[int] = set()
        for h in hand:
            face = faces[h]
            if id(face) in seen:
                continue
            seen.add(id(face))
            if isinstance(face, PathCard):
                if not blocked:
                    actions += moves.placements(self.board, h, face)
                continue
            assert isinstance(face, ActionCard)
            kind = face.kind
            if kind in (ActionKind.BREAK, ActionKind.REPAIR, ActionKind.MAP, ActionKind.ROCKFALL):
                actions += moves.base_action_moves(self, h, face)
                continue
            for target in players:
                if self._target_problem(kind, p, target) is None:
                    actions.append(play_on(kind, target, h))
        actions += self._clears(p, hand)
        actions += self._passes(hand)
        return actions

    def _clears(self, p: int, hand: list[int]) -> list[AnyAction]:
        if len(hand) < 2:
            return []
        lying = [t.value for t in self.broken[p]]
        lying += ["trapped"] if self.trapped[p] is not None else []
        lying += ["theft"] if self.thefts[p] is not None else []
        if not lying:
            return []
        pairs = self._distinct_sets(hand, 2)
        return [clear(what, pair) for what in sorted(lying, key=CLEARABLE.index) for pair in pairs]

    def _passes(self, hand: list[int]) -> list[AnyAction]:
        """A pass of one, two and three cards for each multiset of faces (lowest handles)."""
        ordered = sorted(hand)
        pattern = _face_pattern(self.faces, ordered)
        passes: list[AnyAction] = [pass_card(ordered[i], ()) for (i,) in _index_sets(pattern, 1)]
        add = passes.append
        for i, j in _index_sets(pattern, 2):
            add(pass_card(ordered[i], (ordered[j],)))
        for i, j, k in _index_sets(pattern, 3):
            add(pass_card(ordered[i], (ordered[j], ordered[k])))
        return passes

    def _distinct_sets(self, hand: list[int], size: int) -> list[tuple[int, ...]]:
        """One set of ``size`` cards per multiset of faces, with the lowest handles, in
        ``combinations`` order."""
        ordered = sorted(hand)
        return [tuple(ordered[i] for i in picked) for picked in _index_sets(_face_pattern(self.faces, ordered), size)]

    def _target_problem(self, kind: ActionKind, p: int, t: int) -> str | None:
        """Why player ``p`` may not play a ``kind`` card on player ``t``, or None."""
        if kind is ActionKind.THEFT:
            if t != p:
                return "a Theft card is played in front of yourself"
            if self.thefts[p] is not None:
                return f"player {p} already has a Theft card in front of them"
            if self.trapped[p] is not None:
                return f"player {p} is trapped and may not play a Theft card"
        elif kind is ActionKind.HANDS_OFF:
            if self.thefts[t] is None:
                return f"player {t} has no Theft card in front of them"
        elif kind in (ActionKind.SWAP_HAND, ActionKind.INSPECTION):
            if t == p:
                return f"a {kind.value} card is played on another player"
        elif kind is ActionKind.SWAP_HATS:
            if not self.set_aside_roles:
                return "no dwarf card is left to swap for"
        elif kind is ActionKind.TRAPPED:
            if t == p:
                return "a Trapped! card is played on another player"
            if self.trapped[t] is not None:
                return f"player {t} is already trapped"
        elif kind is ActionKind.FREE:
            if self.trapped[t] is None:
                return f"player {t} is not trapped"
        else:
            return f"a {kind.value} card is not played on a player that way"
        return None

    # -- checked play ----------------------------------------------------------------

    def _check(self, action: AnyAction) -> AnyAction:
        if self.phase is Phase.STEAL:
            if not isinstance(action, Steal):
                raise IllegalActionError(action, f"player {self.current} must steal a gold piece or steal none")
            if action.target is not None:
                self._check_target(action, action.target)
                if action.target == self.current:
                    raise IllegalActionError(action, "a thief steals from another player")
                if action.target not in self._victims(self.current):
                    rule = f"player {self.current} cannot steal from player {action.target}, who has no gold"
                    raise IllegalActionError(action, rule)
            return action
        if isinstance(action, Steal):
            raise IllegalActionError(action, "gold is stolen only at the end of a round")
        return super()._check(action)

    def _check_turn(self, action: AnyAction) -> AnyAction:
        if isinstance(action, PlayOn):
            return self._check_play_on(action)
        if isinstance(action, Clear):
            return self._check_clear(action)
        if isinstance(action, Pass):
            cards = action.cards
            if len(cards) > 3:
                raise IllegalActionError(action, "a pass discards one to three cards")
            for card in cards:
                self._check_in_hand(action, card)
            if len(set(cards)) != len(cards):
                raise IllegalActionError(action, "a card is named twice")
            return action
        return super()._check_turn(action)

    def _check_play_on(self, action: PlayOn) -> AnyAction:
        if action.kind not in TARGETED_KINDS:
            raise InvalidActionError(f"{action.kind!r} is not a card played on a player in {str(action)!r}")
        self._check_target(action, action.target)
        card = action.card if action.card is not None else self._resolve_card(action, action.kind, None)
        self._check_in_hand(action, card)
        problem = self._target_problem(action.kind, self.current, action.target)  # before the face: State._check_turn
        if problem:
            raise IllegalActionError(action, problem)
        face = self._hand_face(action, card)
        if not isinstance(face, ActionCard) or face.kind is not action.kind:
            raise IllegalActionError(action, f"card {card} is not a {action.kind.value} card")
        return PlayOn(action.kind, action.target, card)

    def _check_clear(self, action: Clear) -> AnyAction:
        p = self.current
        if action.what not in CLEARABLE:
            raise InvalidActionError(f"{action.what!r} cannot be cleared in {str(action)!r}; one of {', '.join(CLEARABLE)}")
        if len(action.cards) != 2:
            raise IllegalActionError(action, "clearing a card discards exactly two cards")
        for card in action.cards:
            self._check_in_hand(action, card)
        if action.cards[0] == action.cards[1]:
            raise IllegalActionError(action, "two different cards are discarded")
        if action.what in ("trapped", "theft"):
            lying = self.trapped[p] if action.what == "trapped" else self.thefts[p]
            if lying is None:
                raise IllegalActionError(action, f"player {p} has no {action.what} card in front of them")
        elif Tool(action.what) not in self.broken[p]:
            raise IllegalActionError(action, f"player {p} has no broken {action.what} in front of them")
        return action

    # -- applying actions (unchecked) ------------------------------------------------

    def push(self, action: AnyAction) -> None:
        if self.phase is Phase.STEAL:
            self._legal = None
            assert isinstance(action, Steal)
            self._apply_steal(action.target)
            return
        super().push(action)

    def _apply_turn(self, action: AnyAction) -> None:
        self.turns += 1
        if action.__class__ is PlayOn:
            self._apply_play_on(action)
        elif action.__class__ is Clear:
            self._apply_clear(action)
        elif action.__class__ is Pass:
            self._apply_pass(action)
        else:
            super()._apply_turn(action)  # a path card or a base action card

    def _finish_turn(self, p: int, action: AnyAction, shown: Card | None, draws: int) -> None:
        self.events.append(CardPlayed(p, action, shown))
        self.last_player = p
        for _ in range(min(draws, len(self.draw_pile))):
            self._draw(p)
        self._next_turn()

    def _apply_pass(self, action: Pass) -> None:
        p = self.current
        for card in action.cards:
            self.hands[p].remove(card)
        self.hidden_discards += action.cards
        self._finish_turn(p, action, None, len(action.cards))

    def _apply_clear(self, action: Clear) -> None:
        p = self.current
        for card in action.cards:
            self.hands[p].remove(card)
        self.hidden_discards += action.cards
        if action.what == "trapped":
            removed, self.trapped[p] = self.trapped[p], None
        elif action.what == "theft":
            removed, self.thefts[p], self.theft_played[p] = self.thefts[p], None, None
        else:
            removed = self.broken[p].pop(Tool(action.what))
        self.discards.append(_lying(removed, action, p))
        self._finish_turn(p, action, None, 1)

    def _apply_play_on(self, action: PlayOn) -> None:
        p, t, kind, card = self.current, action.target, action.kind, action.card
        if card is None:
            raise IllegalActionError(action, "a turn plays a card from the hand, named by its handle")
        self.hands[p].remove(card)
        shown = self._reveal_played(card)
        if kind not in _STAYS:
            self.discards.append(card)
        if kind is ActionKind.THEFT:
            self.thefts[p], self.theft_played[p] = card, self.turns
        elif kind is ActionKind.TRAPPED:
            self.trapped[t] = card
        elif kind is ActionKind.HANDS_OFF:
            self.discards.append(_lying(self.thefts[t], action, t))
            self.thefts[t] = self.theft_played[t] = None
        elif kind is ActionKind.FREE:
            self.discards.append(_lying(self.trapped[t], action, t))
            self.trapped[t] = None
        elif kind is ActionKind.INSPECTION:
            self._show_role(self.roles[t], p)
        elif kind is ActionKind.SWAP_HATS:
            self.discarded_roles.append(self.roles[t])
            # the set-aside dwarf cards lie in shuffled order: the next one is a random one
            self.roles[t] = self.set_aside_roles.pop(0)
            self._show_role(self.roles[t], t)
        elif kind is ActionKind.SWAP_HAND:
            self.hands[p], self.hands[t] = self.hands[t], self.hands[p]
            for owner in (p, t):
                for h in self.hands[owner]:
                    self._show_card(h, owner)  # as a draw shows a card to its new owner
            if self.draw_pile:
                self._draw(t)  # the other player draws; the player holds the other's whole hand
        # rules.md 8: only the other player draws after Swap your hand
        self._finish_turn(p, action, shown, 0 if kind is ActionKind.SWAP_HAND else 1)

    def _show_role(self, handle: int, seat: int) -> None:
        self.role_seen[seat].add(handle)
        face = reveal_as(self.dealer, C.RoleCard, Deck.ROLES, handle, frozenset((seat,)))
        if face is not None:
            self.role_faces[handle] = face.role

    # -- end of a round ------------------------------------------------------------------

    def _end_round(self, finder: int | None) -> None:
        n = self.players
        roles = self._reveal_roles()
        ways = None
        if finder is not None:
            slot = next(s for s, face in self.goal_faces.items() if face.kind is PathKind.TREASURE)
            ways = self.board.open_ways(GOAL_CELLS[slot])
        trapped = [t is not None for t in self.trapped]
        outcome = score_round(roles, finder, ways, trapped, self.board.crystals())
        self.round_winners = outcome.winners
        self.round_gold = [0] * n
        self.round_pieces = list(outcome.gold)
        self.events.append(RoundEnded(self.round, outcome.winners.value, roles, self.last_player))
        for seat, pieces in enumerate(outcome.gold):
            self.pieces[seat] += pieces
            if pieces:
                self.events.append(PiecesWon(seat, pieces))
        self.steal_queue = theft_order(self.theft_played, trapped)
        self._advance_steals()

    def _advance_steals(self) -> None:
        while self.steal_queue:
            thief = self.steal_queue[0]
            if self._victims(thief):
                self.phase, self.current = Phase.STEAL, thief
                return
            self.steal_queue.pop(0)  # whether anyone has gold is public: nothing to choose
        self._finish_round()

    def _apply_steal(self, victim: int | None) -> None:
        thief = self.steal_queue.pop(0)
        if victim is not None:
            self.pieces[victim] -= 1
            self.pieces[thief] += 1
            self.round_pieces[victim] -= 1
            self.round_pieces[thief] += 1
        self.events.append(Stolen(thief, victim))
        self._advance_steals()

    def _round_result(self) -> RoundResult:
        trapped = tuple(s for s, card in enumerate(self.trapped) if card is not None)
        return RoundResult(
            self.round, self.round_winners, self.revealed_roles or (), tuple(self.round_gold), tuple(self.round_pieces), trapped,
        )

    def _next_first_player(self) -> int:
        if self.config.has("left-of-first-starter"):
            return (self.first_player + 1) % self.players
        # 002: the player left of whoever played the last card of the round starts
        return (self.last_player + 1) % self.players

    def _end_game(self) -> None:
        self._declare_winners()  # no gold cards to show: the scores are the pieces

    # -- set-up of a round -------------------------------------------------------------

    def _shuffle_and_deal(self) -> None:
        """rules.md 8: shuffle the 117 cards and the 15 dwarf cards, put 10 cards aside
        unseen, deal one dwarf card and 6 cards to every player."""
        n = self.players
        self.trapped = [None] * n
        self.thefts = [None] * n
        self.theft_played = [None] * n
        self.steal_queue = []
        self.round_pieces = [0] * n
        self.discarded_roles = []
        edition = self.config.edition_rules
        dwarfs = edition.role_cards(self.config)
        draw_cards = edition.draw_cards()
        fresh: dict[Deck, list[Card]] = {Deck.ROLES: dwarfs, Deck.GOALS: C.goal_cards(), Deck.DRAW: draw_cards}
        self.dealer.shuffle(fresh, {})
        if self.round < self.config.rounds:
            self.dealer.shuffle_ahead(fresh)  # the next round's decks, shuffled while this one is played
        self.roles = list(range(n))
        self.set_aside_roles = list(range(n, len(dwarfs)))
        self.role_seen = [set() for _ in range(n)]
        for seat in range(n):
            self._show_role(seat, seat)
        self.draw_pile = list(range(len(draw_cards) - 1, -1, -1))
        self.set_aside_cards = [self.draw_pile.pop() for _ in range(C.SET_ASIDE)]
        self.hands = [[] for _ in range(n)]
        for seat in range(n):
            for _ in range(C.SABOTEUR2_HAND):
                self._draw(seat)



SABOTEUR2 = register(Edition(
    name="saboteur2",
    title="Saboteur 2",
    players=(2, 12),
    # its own roles and gold pieces leave only the first-player option of the base variants
    variants=frozenset(("left-of-first-starter",)),
    state_class=Saboteur2State,
    role_cards=lambda config: C.dwarf_cards(),
    draw_cards=C.saboteur2_draw_cards,
    gold_unit="gold piece",
    public_gold=True,
    most_gold=lambda config: _most_pieces(config),
    winning_side=side_of,
))


def _most_pieces(config: GameConfig) -> int:
    """A bound on the pieces all seats can end with: each round, 5 a winner at most (scoring2's
    BASE_GOLD), every crystal a geologist may be paid, every theft."""
    draw = C.saboteur2_draw_cards()
    crystals = sum(card.crystals for card in draw if isinstance(card, PathCard))
    thefts = sum(1 for card in draw if isinstance(card, ActionCard) and card.kind is ActionKind.THEFT)
    return config.rounds * (max(BASE_GOLD.values()) * config.players + crystals + thefts)
