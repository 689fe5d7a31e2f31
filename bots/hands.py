"""What the other players are likely to hold: a hand model that follows their past choices.

A sampled world that deals each hidden hand afresh from the unseen cards gives a player the
same cards whatever they did, yet a real hand holds what its player chose not to play: a
gold-digger who discarded last turn had no card that would have brought the tunnel nearer
the goals, a saboteur who dug quietly had no block worth showing.  ``HandModel`` keeps, for
each card in each other player's hand, the turns it has been held through, and for each such
turn how likely each face would have been kept under each side (digging or blocking):

    P(kept face f on a turn where the player played a) = NOISE + (1 - NOISE) * exp(-max(0, s_f - s_a) / TEMPERATURE)

where ``s_f`` is the heuristic's best score for a play of ``f`` in that position and ``s_a``
the score of the play made (a face-down discard: the best discard's), both from the
heuristic player of that seat that ``ismcts`` keeps, its role set to the side.  A card's
weight for a face is the product over the turns it was held through.  ``weights`` gives them
in the shape ``saboteur_p2p.rules.determinize``'s ``hand_weights`` takes.

Which card each player holds is public in the base game: a round deals handles 0, 1, ... in
order, a hand's worth per seat, and each turn's draw takes the next, so the handles played
tell which of a hand's cards were held through which turns.  The model covers the base game;
for other editions (``covers``) it gives no weights.
"""
from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import NamedTuple

from saboteur_p2p.rules import (
    GOAL_CELLS,
    ActionCard,
    AnyAction,
    Board,
    BreakTool,
    Card,
    CardPlayed,
    Event,
    GameConfig,
    Pass,
    PathCard,
    Phase,
    PlacePath,
    PlayerView,
    RepairTool,
    Role,
    RoundStarted,
    Tool,
)
from saboteur_p2p.rules import cards as C
from saboteur_p2p.rules.actions import pass_card
from saboteur_p2p.rules.moves import base_action_moves, placements

from .belief import BLOCKING, DIGGING, FLOOR
from .heuristic_base import BaseGameHeuristic

#: in the heuristic's score units (one step nearer the goals is worth 80)
TEMPERATURE = 10.0
#: the chance a face is kept whatever it would have scored (other bots, people, ties)
NOISE = 0.1
#: the power the kept cards' likelihood is raised to before it weighs roles: a hand's cards
#: are not independent draws, and the product over them is overconfident (on heuristic
#: games, 0.5 gave the seats' roles the lowest log loss: 0.21 a seat, against 0.24 at 1 and
#: 0.30 from play alone)
EVIDENCE = 0.5
#: a role of each side, digging and blocking, in that order
SIDES = (Role.GOLD_DIGGER, Role.SABOTEUR)

#: a turn's keep chances: face -> (under digging, under blocking)
KeepChances = dict[Card, tuple[float, float]]


class _Table(NamedTuple):
    """The public table as ``base_action_moves`` reads it (no stone waits to be turned
    during a turn of play)."""

    board: Board
    broken: Sequence[set[Tool]]
    pending_stones: tuple[int, ...]


class HandModel:
    """One seat's model of the other players' hands in the current round (see the module docstring)."""

    def __init__(self, config: GameConfig, seat: int) -> None:
        self.config = config
        self.seat = seat
        #: whether the edition's handles follow the base game's order of dealing
        self.covers = config.edition == "base"
        #: the round's draw deck, by face
        self.deck = Counter(config.edition_rules.draw_cards())
        self.deck_size = self.deck.total()
        self.faces: list[Card] = list(self.deck)
        self._new_round()

    def _new_round(self) -> None:
        # an edition the model does not cover follows no hands (Saboteur 2 seats 2-12 players,
        # beyond the base game's table of hand sizes)
        n = self.config.players
        size = C.hand_size(n) if self.covers else 0
        #: per seat, its cards' handles -> the keep chances of each turn the card was held through
        self.held: list[dict[int, list[KeepChances]]] = [
            {h: [] for h in range(s * size, (s + 1) * size)} for s in range(n)
        ]
        self.next_handle = n * size
        self.broken: list[set[Tool]] = [set() for _ in range(n)]
        #: the faces played face up this round
        self.shown: Counter[Card] = Counter()
        #: (seat, side) -> ``weights``' rows, until the next card play
        self._weights: dict[tuple[int, int | None], list[Mapping[Card, float]]] = {}

    # -- evidence -----------------------------------------------------------------------

    def observe(self, event: Event, board: Board, player: BaseGameHeuristic | None = None) -> None:
        """Take in a public event, with ``board`` the maze as it was before it and ``player``
        the heuristic player of the event's seat (a card play of another seat is weighed
        only with one)."""
        if not self.covers:
            return
        if isinstance(event, RoundStarted):
            self._new_round()
            return
        if not isinstance(event, CardPlayed):
            return
        self._weights.clear()
        p, action = event.player, event.action
        held = self.held[p]
        for h in _cards_of(action):
            held.pop(h, None)  # type: ignore[arg-type]
        if event.card is not None:
            self.shown[event.card] += 1
        if p != self.seat and player is not None and held:
            chances = self._keep_chances(event, board, player)
            if chances is not None:
                for turns in held.values():
                    turns.append(chances)
        if isinstance(action, BreakTool):
            self.broken[action.target].add(action.tool)
        elif isinstance(action, RepairTool):
            self.broken[action.target].discard(action.tool)
        if self.next_handle < self.deck_size:
            held[self.next_handle] = []
            self.next_handle += 1

    def _keep_chances(self, event: CardPlayed, board: Board, player: BaseGameHeuristic) -> KeepChances | None:
        """Each face's chance of being kept, under each side, on the turn of ``event``."""
        p, action = event.player, event.action
        hand = tuple(enumerate(self.faces))
        legal = self._moves(p, board, hand)
        made = self._as_played(action, event.card)
        best: list[list[float]] = []
        thresholds: list[float] = []
        saved = player.role
        try:
            for role in SIDES:
                view = self._view(p, board, hand, role)
                scored = player.score_actions(view, legal)
                tops = [-math.inf] * len(self.faces)
                chosen: float | None = None
                passes = -math.inf
                for a, score in scored:
                    card = _card_of(a)
                    if score > tops[card]:
                        tops[card] = score
                    if isinstance(a, Pass):
                        passes = max(passes, score)
                    elif made is not None and a == made:
                        chosen = score
                if made is None and isinstance(action, Pass):
                    chosen = passes  # the discard made was the least worth keeping
                if chosen is None:
                    return None  # a play this model does not list: it tells nothing
                best.append(tops)
                thresholds.append(chosen)
        finally:
            player.role = saved
        return {
            face: (_keep(best[0][i], thresholds[0]), _keep(best[1][i], thresholds[1]))
            for i, face in enumerate(self.faces)
        }

    def _as_played(self, action: AnyAction, card: Card | None) -> AnyAction | None:
        """``action`` with its card's handle replaced by that face's in the model's hand."""
        if card is None or isinstance(action, Pass) or card not in self.faces:
            return None
        index = self.faces.index(card)
        if isinstance(action, PlacePath) and isinstance(card, PathCard) and card.symmetric:
            action = dataclasses.replace(action, turned=False)
        return dataclasses.replace(action, card=index)  # type: ignore[arg-type]

    def _moves(self, p: int, board: Board, hand: Sequence[tuple[int, Card]]) -> list[AnyAction]:
        """Every play of ``hand`` by seat ``p`` on ``board`` (as the engine lists them)."""
        moves: list[AnyAction] = []
        passes: list[AnyAction] = []
        table = _Table(board, self.broken, ())
        for h, face in hand:
            passes.append(pass_card(h))
            if isinstance(face, PathCard):
                if not self.broken[p]:
                    moves += placements(board, h, face)
                continue
            assert isinstance(face, ActionCard)
            moves += base_action_moves(table, h, face)
        return moves + passes

    def _view(self, p: int, board: Board, hand: tuple[tuple[int, Card], ...], role: Role) -> PlayerView:
        """Seat ``p``'s view as far as the public table tells it, holding ``hand``."""
        n = self.config.players
        known = {slot: card for slot, cell in enumerate(GOAL_CELLS) if isinstance(card := board.tiles[cell].card, PathCard)}
        return PlayerView(
            seat=p, config=self.config, round=0, phase=Phase.PLAY.value, current_player=p, role=role,
            hand=hand, board=board, known_goals=known, broken=tuple(frozenset(b) for b in self.broken),
            hand_sizes=tuple(len(h) for h in self.held), draw_pile_size=self.deck_size - self.next_handle,
            gold=(), gold_counts=(0,) * n, offered=(), gold_pile=(), take_amount=0, revealed_roles=None,
            scores=None, pending_stones=(),
        )

    # -- what determinize takes -----------------------------------------------------------

    def weights(self, seat: int, role: Role) -> list[Mapping[Card, float]] | None:
        """Per card of ``seat``'s hand, each face's weight (relative) if ``seat`` plays
        ``role``; None when the model has nothing to say."""
        if not self.covers or seat == self.seat:
            return None
        side = 0 if role in DIGGING else 1 if role in BLOCKING else None
        known = self._weights.get((seat, side))
        if known is not None:
            return known
        out: list[Mapping[Card, float]] = []
        for turns in self.held[seat].values():
            weight = dict.fromkeys(self.faces, 1.0)
            for chances in turns:
                for face, pair in chances.items():
                    weight[face] *= pair[side] if side is not None else 0.5 * (pair[0] + pair[1])
            out.append(weight)
        self._weights[seat, side] = out
        return out

    def role_weights(self, view: PlayerView, weights: Sequence[Mapping[Role, float]]) -> list[dict[Role, float]]:
        """``weights`` (a ``RoleBelief``'s) times the likelihood of the cards each seat kept
        under each role (``role_evidence``, raised to ``EVIDENCE``)."""
        out = []
        for row, (digging, blocking) in zip(weights, self.role_evidence(view), strict=True):
            top = max(digging, blocking)
            # never 0: a deal the play alone allows stays possible
            dig, block = (max(math.exp(EVIDENCE * (x - top)), FLOOR) for x in (digging, blocking))
            out.append({
                role: w * (dig if role in DIGGING else block if role in BLOCKING else 0.5 * (dig + block))
                for role, w in row.items()
            })
        return out

    def role_evidence(self, view: PlayerView) -> list[tuple[float, float]]:
        """Per seat, the log-likelihood of the cards it kept under digging and under blocking:
        for each card of its hand, the mean of its faces' weights over the cards ``view``'s
        seat has not seen (as if the card were any of them)."""
        pool = self.deck - self.shown - Counter(face for _, face in view.hand)
        total = sum(pool.values())
        out = []
        for seat in range(self.config.players):
            logs = [0.0, 0.0]
            if seat != self.seat and total:
                for side, role in enumerate(SIDES):
                    for row in self.weights(seat, role) or ():
                        logs[side] += math.log(sum(k * row[face] for face, k in pool.items()) / total)
            out.append((logs[0], logs[1]))
        return out

    def consistent(self, view: PlayerView) -> bool:
        """Whether the hands this model follows have the sizes ``view`` shows."""
        return self.covers and all(len(h) == size for h, size in zip(self.held, view.hand_sizes, strict=True))


def _cards_of(action: AnyAction) -> tuple[int | None, ...]:
    """The handles of the cards an action plays (a Saboteur 2 pass: up to three)."""
    return action.cards if isinstance(action, Pass) else (getattr(action, "card", None),)


def _card_of(action: AnyAction) -> int:
    """The handle of the card an action of the model's hand plays."""
    card = _cards_of(action)[0]
    assert isinstance(card, int)
    return card


def _keep(score: float, chosen: float) -> float:
    return NOISE + (1.0 - NOISE) * math.exp(-max(0.0, score - chosen) / TEMPERATURE)
