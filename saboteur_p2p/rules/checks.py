"""Checking a turn's move before it is played (``State``'s mixin): the card is in the mover's
hand, and every rule is kept.

The rules that do not depend on the card's face come first, and only then is the face asked
for: the other seats learn it only once the card is shown to all, so a move that breaks such
a rule is refused at once, whatever its card, with the signed move as proof (protocol.md
§6.11).  Saboteur 2 adds its own moves and its trapped players (saboteur2.py).
"""
from __future__ import annotations

from .actions import OUT_OF_TURN_DOES, AnyAction, BreakTool, MapPeek, Pass, PlacePath, RepairTool, Rockfall
from .board import GOAL_CELLS, Board, Cell
from .cards import ActionCard, ActionKind, Card, PathCard, Tool
from .config import GameConfig
from .dealer import Dealer, Deck
from .errors import IllegalActionError, InvalidActionError


class TurnChecks:
    """State mixin: the checks of a turn's move (``State`` provides these attributes)."""

    #: whether the edition's deck holds ladders, which join the start wherever they lie
    LADDERS = False
    config: GameConfig
    dealer: Dealer
    board: Board
    current: int
    hands: list[list[int]]
    faces: dict[int, Card]
    broken: list[dict[Tool, int]]
    pending_stones: list[int]

    def _resolve_card(self, action: AnyAction, wanted: ActionKind, tool: Tool | None) -> int:
        hand = self.hands[self.current]
        candidates = []
        for h in hand:
            face = self.faces.get(h)
            if isinstance(face, ActionCard) and face.kind is wanted and (tool is None or tool in face.tools):
                candidates.append((len(face.tools), h))
        if not candidates:
            for_tool = f" for the {tool.value}" if tool else ""
            raise IllegalActionError(action, f"player {self.current} holds no {wanted.value} card{for_tool}")
        return min(candidates)[1]

    def _check_in_hand(self, action: AnyAction, card: int) -> None:
        if not isinstance(card, int) or isinstance(card, bool):
            raise InvalidActionError(f"card handle must be a number in {str(action)!r}")
        if card not in self.hands[self.current]:
            raise IllegalActionError(action, f"card {card} is not in player {self.current}'s hand")

    def _hand_face(self, action: AnyAction, card: int) -> Card:
        """The face of ``card``, which ``_check_in_hand`` found in the mover's hand: asked of the
        dealer when this engine has not seen it (the other seats, until it is shown to all)."""
        face = self.faces.get(card)
        if face is None:
            face = self.dealer.reveal(Deck.DRAW, card, None)
            if face is None:
                raise IllegalActionError(action, f"card {card} could not be revealed")
            self.faces[card] = face
        return face

    def blocked(self, seat: int) -> bool:
        """Whether ``seat`` may not play path cards now."""
        return bool(self.broken[seat])

    def _never_joins(self, cell: Cell) -> str | None:
        """Why no card laid at ``cell`` could join the start's network, whatever its face: no
        opening of the network faces the cell, and no ladder may lie there (the edition has
        none, or a goal is beside it; found by review), or None."""
        if cell in self.board.frontier:
            return None
        if not self.LADDERS:
            return f"the card at {cell} would not join the start's tunnel network"
        goal = self.board.goal_next_to(cell)
        if goal is None:
            return None
        # the ladder's rule first: a person who laid a ladder read "would not join the start's
        # network" first, a rule ladders do not have (a play-test)
        return (f"no card may lie at {cell}: a ladder may not lie next to a goal card ({goal}), and no tunnel of "
                "the start's network leads there")

    def _path_block(self, seat: int) -> str | None:
        """Why ``seat`` may not play path cards now (rules.md 3: a broken tool), or None."""
        if self.broken[seat]:
            tools = ", ".join(sorted(t.value for t in self.broken[seat]))
            return f"player {seat} has a broken tool ({tools}) and may not play path cards"
        return None

    def _check_target(self, action: AnyAction, target: int) -> None:
        if not isinstance(target, int) or not 0 <= target < self.config.players:
            raise InvalidActionError(f"no player {target!r} at this table in {str(action)!r}")

    def _check_turn(self, action: AnyAction) -> AnyAction:
        # The rules anyone can check come before the card's face, which the other seats learn
        # only once the card is shown: a move that breaks one is refused at once, with the
        # signed move as proof, whatever its card (a mover that sent such a move and withheld
        # its card was named only as silent: found by an attack, protocol.md §6.11).
        p = self.current
        if isinstance(action, PlacePath):
            self._check_in_hand(action, action.card)
            blocked = self._path_block(p) or self.board.cell_problem(action.cell) or self._never_joins(action.cell)
            if blocked:
                raise IllegalActionError(action, blocked)
            face = self._hand_face(action, action.card)
            if not isinstance(face, PathCard):
                raise IllegalActionError(action, f"card {action.card} is not a path card")
            problem = self.board.placement_problem(action.cell, face.turned_segments(action.turned), face.ladder)
            if problem:
                raise IllegalActionError(action, problem)
            return action
        if isinstance(action, (BreakTool, RepairTool)):
            self._check_target(action, action.target)
            kind = ActionKind.BREAK if isinstance(action, BreakTool) else ActionKind.REPAIR
            card = action.card if action.card is not None else self._resolve_card(action, kind, action.tool)
            self._check_in_hand(action, card)
            if kind is ActionKind.BREAK and action.tool in self.broken[action.target]:
                raise IllegalActionError(action, f"player {action.target}'s {action.tool.value} is already broken")
            if kind is ActionKind.REPAIR and action.tool not in self.broken[action.target]:
                raise IllegalActionError(action, f"player {action.target} has no broken {action.tool.value} to repair")
            face = self._hand_face(action, card)
            if not isinstance(face, ActionCard) or face.kind is not kind or action.tool not in face.tools:
                raise IllegalActionError(action, f"card {card} is not a {kind.value} card for the {action.tool.value}")
            return type(action)(action.tool, action.target, card)
        if isinstance(action, Rockfall):
            card = action.card if action.card is not None else self._resolve_card(action, ActionKind.ROCKFALL, None)
            self._check_in_hand(action, card)
            if not self.board.removable(action.cell):
                rule = f"there is no tunnel card at {action.cell} (the start and goal cards never move)"
                raise IllegalActionError(action, rule)
            face = self._hand_face(action, card)
            if not isinstance(face, ActionCard) or face.kind is not ActionKind.ROCKFALL:
                raise IllegalActionError(action, f"card {card} is not a rockfall card")
            return Rockfall(action.x, action.y, card)
        if isinstance(action, MapPeek):
            card = action.card if action.card is not None else self._resolve_card(action, ActionKind.MAP, None)
            self._check_in_hand(action, card)
            if not isinstance(action.goal, int) or not 0 <= action.goal < len(GOAL_CELLS):
                raise InvalidActionError(f"goal slot must be 0, 1 or 2 in {str(action)!r}")
            if self.board.tiles[GOAL_CELLS[action.goal]].card is not None or action.goal in self.pending_stones:
                raise IllegalActionError(action, f"goal {action.goal} is already face up")
            face = self._hand_face(action, card)
            if not isinstance(face, ActionCard) or face.kind is not ActionKind.MAP:
                raise IllegalActionError(action, f"card {card} is not a map card")
            return MapPeek(action.goal, card)
        if isinstance(action, Pass):
            if action.more:
                raise IllegalActionError(action, "in the base game a pass discards exactly one card")
            self._check_in_hand(action, action.card)  # a face-down discard: nothing is revealed
            return action
        what = OUT_OF_TURN_DOES.get(type(action), "is not a move of a turn")
        raise IllegalActionError(action, f"player {p} must play a card or pass now: '{str(action).split()[0]}' {what}")
