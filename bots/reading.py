"""Who can be trusted: the heuristic bot's suspicion scores from the public card plays."""
from __future__ import annotations

from saboteur_p2p.rules import (
    GOAL_CELLS,
    START_CELL,
    ActionCard,
    ActionKind,
    BreakTool,
    CardPlayed,
    GoalRevealed,
    PathCard,
    PathKind,
    PlacePath,
    RepairTool,
    Rockfall,
    Tool,
)
from saboteur_p2p.rules.cards import ACTION_COUNTS

from .tunnels import CLOSED, GOAL_SLOT, Cell, around, goal_distance

#: A gold-digger breaks the tools of players suspected at least this much...
SUSPECT = 1.5
#: ...and repairs those suspected at most this much; a saboteur spares fellow suspects.
TRUSTED = 0.5
ACCOMPLICE = SUSPECT + 1.0
#: How many repair cards in the deck name each tool (a two-tool card counts for both).
REPAIRS_OF = {
    tool: sum(count for card, count in ACTION_COUNTS if card.kind is ActionKind.REPAIR and tool in card.tools)
    for tool in Tool
}

#: goal mask -> cell -> what ``placement_suspicion`` reads at the cell whatever has been seen
#: (``_read_at``), filled lazily: a saboteur judges every legal placement each turn.
_READINGS: dict[int, dict[Cell, tuple[float, int, tuple[tuple[int, Cell | None, int], ...]]]] = {
    mask: {} for mask in range(8)
}


def _read_at(goal_mask: int, cell: Cell) -> tuple[float, int, tuple[tuple[int, Cell | None, int], ...]]:
    """The weight of a play at ``cell``, its goal distance, and (edge, neighbour, distance) for
    each edge that may lead somewhere new: into a goal in ``goal_mask`` (distance 0, neighbour
    None: always new) or into a neighbour that is new while unseen (its goal distance)."""
    here = goal_distance(goal_mask, cell)
    weight = 1.0 + 0.5 * max(0, 4 - here)  # as TableReading._weight(cell)
    onto: list[tuple[int, Cell | None, int]] = []
    for edge, other, _ in around(cell):
        slot = GOAL_SLOT.get(other)
        if slot is not None:
            if goal_mask >> slot & 1:
                onto.append((edge, None, 0))
        else:
            onto.append((edge, other, goal_distance(goal_mask, other)))
    entry = _READINGS[goal_mask][cell] = (weight, here, tuple(onto))
    return entry


class TableReading:
    """Who can be trusted, from the public card plays of one round.

    A player's suspicion rises for dead ends and detours (more the nearer the goals), for
    rockfalls of through tunnels and for breaking the tools of trusted players; it falls
    for building towards the goals, repairs of others and clearing dead ends.  Placements
    are judged against the cells this reader has seen filled, not against the live maze.
    """

    def __init__(self, players: int, seat: int) -> None:
        self.seat = seat
        self.suspicion = [0.0] * players
        #: what has been seen placed: cell -> face (None for the start and the goals).
        self.seen: dict[Cell, PathCard | None] = dict.fromkeys(GOAL_CELLS)
        self.seen[START_CELL] = None
        self.public_stones = 0
        #: the goals that everybody knows may still hold the treasure (kept with
        #: ``public_stones`` rather than a property: every placement judged reads it)
        self.goal_mask = 7
        #: repair cards for each tool not yet seen played (a two-tool card counts for both)
        self.repairs_left = dict(REPAIRS_OF)

    def observe(self, event: CardPlayed, digger: bool) -> None:
        """Update the player's suspicion from a card they played (``digger``: this reader's side)."""
        action, player = event.action, event.player
        mine = player == self.seat
        s = self.suspicion
        if isinstance(action, PlacePath):
            card = event.card
            if isinstance(card, PathCard):
                cell = (action.x, action.y)  # not the ``cell`` property: every seat reads every card
                if not mine:
                    s[player] += self.placement_suspicion(cell, card, action.turned)
                self.seen[cell] = card
        elif isinstance(action, Rockfall):
            removed = self.seen.pop(action.cell, None)
            if not mine and removed is not None:
                s[player] += -0.7 if removed.is_dead_end else 0.8 * self._weight(action.cell)
        elif isinstance(action, BreakTool):
            target = action.target
            if mine:
                return
            if target == self.seat:
                # a digger knows it is one; a saboteur learns the player took it for a digger
                s[player] += 2.5 if digger else -1.0
            elif s[target] <= -TRUSTED:
                s[player] += 1.2
            elif s[target] >= SUSPECT:
                s[player] -= 0.8
            else:
                s[player] += 0.4
        elif isinstance(action, RepairTool):
            if isinstance(event.card, ActionCard):
                for tool in event.card.tools:
                    self.repairs_left[tool] -= 1
            target = action.target
            if mine or target == player:
                return
            if target == self.seat:
                s[player] += -1.5 if digger else 1.0
            elif s[target] >= SUSPECT:
                s[player] += 1.0
            else:
                s[player] -= 0.7

    def reveal(self, event: GoalRevealed) -> None:
        if event.card.kind is PathKind.STONE:
            self.public_stones |= 1 << event.slot
            self.goal_mask = 7 & ~self.public_stones

    def _weight(self, cell: Cell) -> float:
        """Plays matter more the nearer they are to the goals."""
        return 1.0 + 0.5 * max(0, 4 - goal_distance(self.goal_mask, cell))

    def placement_suspicion(self, cell: Cell, card: PathCard, turned: bool) -> float:
        """Dead ends and detours raise suspicion; a step towards the goals lowers it."""
        return self.suspicion_of(cell, card.turned_openings if turned else card.openings, card.is_dead_end)

    def suspicion_of(self, cell: Cell, openings: int, dead_end: bool) -> float:
        """``placement_suspicion`` of a card with ``openings`` (as laid) at ``cell``."""
        goal_mask = self.goal_mask
        weight, here, onto = _READINGS[goal_mask].get(cell) or _read_at(goal_mask, cell)
        if dead_end:
            return 0.8 * weight
        seen = self.seen
        onward = CLOSED
        for edge, other, d in onto:
            if openings & edge and d < onward and (other is None or other not in seen):
                onward = d
        if onward == CLOSED:
            return 0.2 * weight  # a through card that leads nowhere new
        progress = here - onward
        if progress > 0:
            return -0.5 * weight
        if progress < 0:
            return 0.6 * weight
        return 0.0
