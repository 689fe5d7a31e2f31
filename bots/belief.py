"""Who holds which role: a belief over role assignments, updated by Bayes from public moves.

The prior is the deal itself: the round's role cards (the set-aside ones included) shuffled
and dealt, so role counts are exact.  Each public move multiplies in its likelihood under
each role of its mover, ``P(move | role)``; since that likelihood depends on the mover's role
only, the posterior over whole assignments is

    P(assignment | moves)  ∝  P_deal(assignment) * prod over seats of L_seat(role of seat)

and ``RoleBelief.role_weights()`` (the products ``L_seat``) passed to
``saboteur_p2p.rules.determinize`` samples exactly from it.  ``marginals()`` gives each
seat's chance of each role under it (exact, by summing over the deal).

The likelihoods come from a model of play by side, digging or blocking:

* a path card: among every cell and turn where the same card could have gone, a digger
  prefers those that bring the network nearer the goals that may hold the treasure and a
  saboteur those that take it away; each role's chance of the chosen one is a softmax of
  that gain (temperature ``TEMPERATURE``) mixed with ``NOISE`` of uniform play;
* a rockfall: taking out a dead end helps diggers, a through card that carries the
  network nearer the goals helps saboteurs (the same softmax over the cells it could hit);
* a broken tool on a player: likelier from someone on the other side of that player, as
  far as this belief knows that player's side; a repair, from someone on the same side;
* maps and face-down discards tell nothing.

Roles a side does not settle (the profiteer and the geologist of Saboteur 2) are given the
mean of the digger's and the saboteur's likelihood.  A round's deal starts the belief
afresh; a Swap your hats forgets what was learnt of the seat's discarded card.
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence

from saboteur_p2p.rules import (
    GOAL_CELLS,
    ActionKind,
    Board,
    BreakTool,
    CardPlayed,
    Event,
    GameConfig,
    GoalRevealed,
    PathCard,
    PathKind,
    PlacePath,
    PlayOn,
    RepairTool,
    Rockfall,
    Role,
    RoleCard,
    RoundStarted,
)
from saboteur_p2p.rules.deals import log_deal_weight, role_chances
from saboteur_p2p.rules.moves import placements

from .tunnels import Network, joined_edges

#: softmax temperature, in network cost units (one step nearer the goals is 10)
TEMPERATURE = 6.0
#: the share of moves a player makes without regard to their side
NOISE = 0.15
#: the chance a digger's break hits a player of their own side... by mistake of judgement
MISJUDGED = 0.25
#: the least relative weight a role keeps in ``role_weights`` however unlikely play made it,
#: so that the weights never rule out every deal (``determinize`` refuses such weights)
FLOOR = 1e-12

DIGGING = frozenset((Role.GOLD_DIGGER, Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.SELFISH_DWARF))
BLOCKING = frozenset((Role.SABOTEUR,))


class RoleBelief:
    """One seat's belief about the others' roles in the current round (see the module docstring)."""

    def __init__(self, config: GameConfig, seat: int) -> None:
        self.config = config
        self.seat = seat
        deck = [card.role for card in config.edition_rules.role_cards(config) if isinstance(card, RoleCard)]
        self.deck = Counter(deck)
        self.roles = sorted(self.deck, key=lambda r: r.value)
        self.known: dict[int, Role] = {}
        #: dwarf cards this seat saw go out of play (Swap your hats): no seat holds them
        self.gone: Counter[Role] = Counter()
        self._new_round()

    def _new_round(self) -> None:
        n = self.config.players
        #: per seat, the log-likelihood of the moves seen this round under each role
        self.log_like: list[dict[Role, float]] = [dict.fromkeys(self.roles, 0.0) for _ in range(n)]
        self.board = Board.new_round()
        self.stones = 0
        self.known = {}
        self.gone = Counter()

    # -- what is known --------------------------------------------------------------------

    def know(self, known: Mapping[int, Role], gone: Sequence[Role] = ()) -> None:
        """Roles this seat knows for certain (its own, Saboteur 2 inspections), and the dwarf
        cards it saw go out of play (``view.discarded_roles``: a boss seen going was still
        counted as one a seat may hold, review)."""
        self.known = dict(known)
        self.gone = Counter(gone)

    def role_weights(self) -> list[dict[Role, float]]:
        """Per seat, each role's likelihood (relative), for ``determinize``'s ``role_weights``."""
        out = []
        for seat, logs in enumerate(self.log_like):
            if seat in self.known:
                out.append({self.known[seat]: 1.0})
                continue
            top = max(logs.values())
            # play alone never rules a role out: only what the seat knows does
            out.append({role: max(math.exp(v - top), FLOOR) for role, v in logs.items()})
        return out

    def marginal(self, seat: int, weights: Sequence[Mapping[Role, float]] | None = None) -> dict[Role, float]:
        """``seat``'s posterior chance of each role (exact, summed over every deal), under
        ``weights`` if given (rows like ``role_weights``'s) rather than this belief's."""
        counts = tuple(max(self.deck[r] - self.gone[r], 0) for r in self.roles)
        table = [tuple(w.get(r, 0.0) for r in self.roles) for w in (weights or self.role_weights())]
        total = log_deal_weight(tuple(table), counts)
        chances = {}
        row = table[seat]
        for j, role in enumerate(self.roles):
            table[seat] = tuple(row[k] if k == j else 0.0 for k in range(len(self.roles)))
            chances[role] = math.exp(log_deal_weight(tuple(table), counts) - total) if total > -math.inf else 0.0
        return chances

    def marginals(self) -> list[dict[Role, float]]:
        """Every seat's posterior chance of each role (exact; all seats in one pass over the
        deals, where ``marginal`` of each seat took one of its own per role)."""
        counts = tuple(max(self.deck[r] - self.gone[r], 0) for r in self.roles)
        table = tuple(tuple(w.get(r, 0.0) for r in self.roles) for w in self.role_weights())
        return [dict(zip(self.roles, row, strict=True)) for row in role_chances(table, counts)]

    # -- evidence ---------------------------------------------------------------------------

    def observe(self, event: Event) -> None:
        """Take in a public event (every event, in order)."""
        if isinstance(event, RoundStarted):
            self._new_round()
        elif isinstance(event, GoalRevealed):
            self.board.reveal_goal(GOAL_CELLS[event.slot], event.card, event.turned)
            if event.card.kind is PathKind.STONE:
                self.stones |= 1 << event.slot
        elif isinstance(event, CardPlayed):
            self._played(event)

    def _played(self, event: CardPlayed) -> None:
        action, player, card = event.action, event.player, event.card
        likelihood: tuple[float, float] | None = None  # (under digging, under blocking)
        if isinstance(action, PlacePath) and isinstance(card, PathCard):
            if player != self.seat:
                likelihood = self._placement_likelihood(action, card)
            self.board.place(action.cell, card, action.turned)
        elif isinstance(action, Rockfall):
            if player != self.seat:
                likelihood = self._rockfall_likelihood(action)
            if action.cell in self.board.tiles:
                self.board.remove(action.cell)
        elif isinstance(action, (BreakTool, RepairTool)) and player != self.seat and action.target != player:
            likelihood = self._target_likelihood(action.target, hostile=isinstance(action, BreakTool))
        elif isinstance(action, PlayOn) and action.kind is ActionKind.SWAP_HATS:
            self.log_like[action.target] = dict.fromkeys(self.roles, 0.0)  # a new dwarf card
        elif isinstance(action, PlayOn) and action.kind is ActionKind.TRAPPED and player != self.seat:
            likelihood = self._target_likelihood(action.target, hostile=True)
        if likelihood is not None:
            self._multiply(player, *likelihood)

    def _multiply(self, player: int, digging: float, blocking: float) -> None:
        logs = self.log_like[player]
        for role in self.roles:
            if role in DIGGING:
                p = digging
            elif role in BLOCKING:
                p = blocking
            else:
                p = 0.5 * (digging + blocking)
            logs[role] += math.log(max(p, 1e-9))

    def _goal_mask(self) -> int:
        return 7 & ~self.stones or 7

    def _softmax_pair(self, gains: Sequence[float], chosen: int) -> tuple[float, float]:
        """The chance of option ``chosen`` for a digger (who likes gain) and a saboteur."""
        uniform = 1.0 / len(gains)
        out = []
        for sign in (1.0, -1.0):
            top = max(sign * g for g in gains)
            exps = [math.exp((sign * g - top) / TEMPERATURE) for g in gains]
            out.append((1.0 - NOISE) * exps[chosen] / sum(exps) + NOISE * uniform)
        return out[0], out[1]

    def _placement_likelihood(self, action: PlacePath, card: PathCard) -> tuple[float, float] | None:
        options = placements(self.board, action.card, card)
        if len(options) < 2:
            return None
        net = Network(self.board, self._goal_mask())
        gains: list[float] = []
        chosen = -1
        for i, option in enumerate(options):
            assert isinstance(option, PlacePath)
            cell = option.cell
            incoming = net.incoming(cell)
            joined = joined_edges(card.turned_segments(option.turned), incoming)
            cost, reached = net.place(cell, joined, incoming)
            gain = net.cost - cost + (30.0 if reached else 0.0)
            gains.append(gain)
            if cell == action.cell and option.turned == action.turned:
                chosen = i
        if chosen < 0:  # a symmetric card laid turned: the same as upright
            chosen = next((i for i, o in enumerate(options) if isinstance(o, PlacePath) and o.cell == action.cell), -1)
        if chosen < 0 or max(gains) == min(gains):
            return None
        return self._softmax_pair(gains, chosen)

    def _rockfall_likelihood(self, action: Rockfall) -> tuple[float, float] | None:
        cells = self.board.tunnel_cells()
        if action.cell not in cells or len(cells) < 2:
            return None
        net = Network(self.board, self._goal_mask())
        gains = [net.cost - net.cost_without(cell) for cell in cells]
        if max(gains) == min(gains):
            return None
        return self._softmax_pair(gains, cells.index(action.cell))

    def _target_likelihood(self, target: int, hostile: bool) -> tuple[float, float]:
        """A hostile (or friendly) card on ``target``: likelier from the other (or the same) side."""
        if target in self.known:
            digs = 1.0 if self.known[target] in DIGGING else 0.0 if self.known[target] in BLOCKING else 0.5
        else:
            chances = self.marginal(target)
            digs = sum(p for role, p in chances.items() if role in DIGGING)
            digs += 0.5 * sum(p for role, p in chances.items() if role not in DIGGING and role not in BLOCKING)
        blocks = 1.0 - digs
        if hostile:
            from_digger, from_saboteur = blocks + MISJUDGED * digs, digs
        else:
            from_digger, from_saboteur = digs, blocks + MISJUDGED * digs
        return (1.0 - NOISE) * from_digger + NOISE, (1.0 - NOISE) * from_saboteur + NOISE
