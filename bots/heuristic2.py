"""The heuristic bot's Saboteur 2 play (rules.md 8): dwarf roles, team doors, crystals, the new cards.

``HeuristicBot`` (heuristic.py) hands a Saboteur 2 game to ``Saboteur2Heuristic``, which keeps the base
bot's way of scoring every legal action and adds what the expansion changes:

* A blue or green gold-digger measures the network its own team may use: segments behind a
  door of the other colour do not count.  It lays its own doors on the way (they shut the
  other team out), never the other colour's, and never reaches the treasure by a way shut to
  its team.  The boss builds like a digger of both teams; a geologist lays crystal cards
  and keeps the round going; the profiteer, who wins either way, mostly plays the cards
  that pay it (Theft) and passes.
* Suspicion from public plays (``ColourReading``) adds a colour leaning: laying a door of
  one colour makes a player look like that team (or a saboteur, to the other team).  An
  Inspection's answer (``view.known_roles``) outweighs every guess.
* Theft on itself early, Hands off! and Trapped! on suspected opponents, Free at last! on
  itself and trusted players, Inspection on unknown players, Swap your hats when its own
  role is lost, Swap your hand rarely, clearing (two cards) a Trapped! or broken tool when
  the cards are junk, passing one to three junk cards, and stealing from the leader.
"""
from __future__ import annotations

from collections.abc import Sequence

from saboteur_p2p.rules import (
    GOAL_CELLS,
    ActionCard,
    ActionKind,
    AnyAction,
    BreakTool,
    Card,
    CardPlayed,
    Clear,
    Door,
    Event,
    GameConfig,
    GoalRevealed,
    MapPeek,
    OrientStone,
    Pass,
    PathCard,
    PiecesWon,
    PlacePath,
    PlayerView,
    PlayOn,
    RepairTool,
    Rockfall,
    Role,
    RoundStarted,
    Steal,
    Stolen,
    Tool,
)

from .heuristic_base import BaseGameHeuristic, Turn
from .reading import ACCOMPLICE, SUSPECT, TRUSTED, TableReading
from .tunnels import CLOSED, Network, Placed, Spot, joined_edges, urgency_of

Cell = tuple[int, int]

#: The base-game side each dwarf plays for when the base bot's scores are reused.
BASE_ROLE = {
    Role.BLUE_DIGGER: Role.GOLD_DIGGER,
    Role.GREEN_DIGGER: Role.GOLD_DIGGER,
    Role.BOSS: Role.GOLD_DIGGER,
    Role.SABOTEUR: Role.SABOTEUR,
    Role.GEOLOGIST: Role.SELFISH_DWARF,
    Role.PROFITEER: Role.SELFISH_DWARF,
}
COLOUR = {Role.BLUE_DIGGER: Door.BLUE, Role.GREEN_DIGGER: Door.GREEN}
#: A colour leaning: positive for blue, negative for green.
SIGN = {Door.BLUE: 1.0, Door.GREEN: -1.0}
#: How hostile a player of a known role is, for each role of the reader (a suspicion score).
KNOWN_HOSTILITY = {
    "digger": {Role.SABOTEUR: 4.0, Role.BOSS: -1.0, Role.PROFITEER: 0.5, Role.GEOLOGIST: 1.0},
    Role.BOSS: {Role.SABOTEUR: 4.0, Role.BLUE_DIGGER: -2.0, Role.GREEN_DIGGER: -2.0, Role.PROFITEER: 0.0, Role.GEOLOGIST: 1.0},
    # a saboteur reads suspicion as "is a saboteur": accomplices high, the diggers low
    Role.SABOTEUR: {Role.SABOTEUR: 4.0, Role.BLUE_DIGGER: -3.0, Role.GREEN_DIGGER: -3.0, Role.BOSS: -3.0,
                    Role.PROFITEER: 1.0, Role.GEOLOGIST: 1.0},
    "other": {Role.SABOTEUR: 2.0, Role.BLUE_DIGGER: -1.0, Role.GREEN_DIGGER: -1.0, Role.BOSS: -1.0,
              Role.PROFITEER: 0.0, Role.GEOLOGIST: 0.0},
}
#: Same-colour digger, other-colour digger, as seen by a digger.
TEAMMATE, RIVAL = -3.0, 2.5


class ColourReading(TableReading):
    """The base reading of the table plus each player's leaning towards a team colour."""

    def __init__(self, players: int, seat: int) -> None:
        super().__init__(players, seat)
        #: > 0: looks blue, < 0: looks green
        self.lean = [0.0] * players

    def observe_edition(self, event: CardPlayed, digger: bool, colour: Door | None) -> None:
        """What the expansion's plays say about their player (``colour``: this reader's team)."""
        action, player = event.action, event.player
        if player == self.seat:
            return
        card = event.card
        if isinstance(action, PlacePath) and isinstance(card, PathCard) and card.door is not None:
            on_way = self.placement_suspicion(action.cell, card, action.turned) <= 0
            self.lean[player] += SIGN[card.door] * (1.5 if on_way else 0.7)
            if colour is not None and card.door is not colour and on_way:
                self.suspicion[player] += 0.3  # a saboteur shuts a team out too
        elif isinstance(action, PlayOn):
            kind, target = action.kind, action.target
            if kind is ActionKind.TRAPPED:
                # read like a broken tool: the trapper takes the target for an opponent
                self.observe(CardPlayed(player, BreakTool(Tool.PICKAXE, target), None), digger)
                lean = self.lean[target]
                if abs(lean) >= 1.0:
                    self.lean[player] -= 0.5 if lean > 0 else -0.5
            elif kind is ActionKind.FREE and target != player:
                self.observe(CardPlayed(player, RepairTool(Tool.PICKAXE, target), None), digger)
                self.lean[player] += 0.3 * max(-1.0, min(1.0, self.lean[target]))
            elif kind is ActionKind.SWAP_HATS:
                # a new dwarf card: what was known of the player no longer holds
                self.suspicion[target] = 0.0
                self.lean[target] = 0.0


class Turn2(Turn):
    """``Turn`` for Saboteur 2: the network is the one the player's team may use."""

    __slots__ = ("colour", "dwarf", "full")

    def __init__(self, view: PlayerView, dwarf: Role) -> None:
        super().__init__(view, BASE_ROLE[dwarf])
        self.dwarf = dwarf
        self.colour = COLOUR.get(dwarf)
        #: the whole network, whoever may use it (``net`` is the team's)
        self.full = self.net
        if self.colour is not None:
            closed = frozenset((self.colour.other,))
            if view.board.network(closed) is not view.board.connected:  # a door of the other team's lies in the maze
                self.net = Network(view.board, self.goal_mask, closed)
                self.urgency = urgency_of(self.net.best)
        if dwarf is Role.GEOLOGIST:
            self.digger, self.quiet = False, True  # never ends the round early, never blocks openly
        elif dwarf is Role.PROFITEER:
            self.digger = True


class Saboteur2Heuristic(BaseGameHeuristic):
    """The heuristic bot's play of Saboteur 2 (see the module docstring)."""

    name = "heuristic"

    def start(self, seat: int, config: GameConfig, seed: int) -> None:
        #: gold pieces of every player as the public events tell them (won, stolen)
        self.tally = [0] * config.players
        self.known: dict[int, Role] = {}
        self._hostility: list[float] | None = None
        super().start(seat, config, seed)

    def _new_round(self) -> None:
        self.role = Role.BLUE_DIGGER  # until the round's first view says otherwise
        self.reading: ColourReading = ColourReading(self.config.players, self.seat)
        self.known = {}
        self._hostility = None

    # -- what the bot knows of the others ---------------------------------------------

    def on_event(self, event: Event) -> None:
        self._hostility = None
        if isinstance(event, CardPlayed):
            digger = BASE_ROLE.get(self.role) is Role.GOLD_DIGGER
            self.reading.observe(event, digger)
            self.reading.observe_edition(event, digger, COLOUR.get(self.role))
            self._played(event)
        elif isinstance(event, PiecesWon):
            self.tally[event.player] += event.pieces
        elif isinstance(event, Stolen):
            if event.victim is not None:
                self.tally[event.victim] -= 1
                self.tally[event.thief] += 1
        elif isinstance(event, GoalRevealed):
            self.reading.reveal(event)
        elif isinstance(event, RoundStarted):
            self._new_round()

    @property
    def suspicion(self) -> list[float]:
        """How hostile each player looks to this one's side (base scale: SUSPECT, TRUSTED)."""
        if self._hostility is None:
            self._hostility = [self._hostile(p) for p in range(self.config.players)]
        return self._hostility

    def _hostile(self, p: int) -> float:
        if p == self.seat:
            return 0.0
        role = self.role
        colour = COLOUR.get(role)
        known = self.known.get(p)
        if known is not None:
            if colour is not None:
                if known in COLOUR:
                    return TEAMMATE if COLOUR[known] is colour else RIVAL
                return KNOWN_HOSTILITY["digger"][known]
            return KNOWN_HOSTILITY.get(role, KNOWN_HOSTILITY["other"]).get(known, 0.0)
        s = self.reading.suspicion[p]
        if colour is not None:
            lean = self.reading.lean[p] * SIGN[colour]  # > 0: looks like my team
            return s - 0.6 * lean if lean < 0 else s - 0.3 * min(lean, 3.0)
        return s

    def friend(self, p: int) -> bool:
        """Whether ``p`` looks like this player's side in this round."""
        if p == self.seat:
            return True
        h = self.suspicion[p]
        if self.role is Role.SABOTEUR:
            return h >= ACCOMPLICE
        if BASE_ROLE[self.role] is Role.GOLD_DIGGER:
            return h <= -TRUSTED
        return False

    # -- acting --------------------------------------------------------------------------

    def _turn(self, view: PlayerView) -> Turn:
        return Turn2(view, self.role)

    def _see(self, view: PlayerView) -> None:
        """The view's role and the roles this seat has inspected (neither comes as an event)."""
        if view.role is not None and view.role is not self.role:
            self.role = view.role
            self._hostility = None
        if dict(view.known_roles) != self.known:
            self.known = dict(view.known_roles)
            self._hostility = None

    def act(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        self._see(view)
        first = legal[0]
        if isinstance(first, Steal):
            return self._steal(view, legal)
        if isinstance(first, OrientStone):
            return self._orient(view, legal)
        return self._play(view, legal)

    def _steal(self, view: PlayerView, legal: Sequence[AnyAction]) -> AnyAction:
        """Take a piece from the richest player, the most hostile among equals."""
        victims = [a for a in legal if isinstance(a, Steal) and a.target is not None]
        if not victims:
            return legal[0]
        hostility = self.suspicion
        return max(victims, key=lambda a: (self.tally[a.target], hostility[a.target], -a.target))  # type: ignore[index,operator]

    def _scores(self, view: PlayerView, legal: Sequence[AnyAction]) -> list[float]:
        turn = self._turn(view)
        assert isinstance(turn, Turn2)
        faces = dict(view.hand)
        keep = {h: self._keep_value(turn, face) for h, face in faces.items()}
        memo: dict[tuple[int, bool, Cell], float] = {}
        #: (face, turned) -> the turned segments and whether the face is a dead end
        shapes: dict[tuple[int, bool], tuple[tuple[int, ...], bool]] = {}
        scores: list[float] = []
        for action in legal:
            cls = action.__class__
            if cls is PlacePath:
                face = faces[action.card]  # type: ignore[union-attr,index]
                key = (id(face), action.turned, action.cell)  # type: ignore[union-attr]
                score = memo.get(key)
                if score is None:
                    shape = shapes.get(key[:2])
                    if shape is None:
                        shape = shapes[key[:2]] = (face.turned_segments(action.turned), face.is_dead_end)  # type: ignore[union-attr]
                    score = memo[key] = self._place_score(turn, face, action, *shape)  # type: ignore[arg-type]
            elif cls is Pass:
                score = self._pass_score(turn, [keep[c] for c in action.cards])  # type: ignore[union-attr]
            elif cls is PlayOn:
                score = self._play_on_score(turn, action, keep)  # type: ignore[arg-type]
            elif cls is Clear:
                score = self._clear_score(turn, action, keep, faces)  # type: ignore[arg-type]
            elif cls is BreakTool:
                score = self._break_score(turn, action)  # type: ignore[arg-type]
                if turn.dwarf in (Role.GEOLOGIST, Role.PROFITEER):
                    score -= 20.0  # a dwarf who wins anyway keeps out of fights
            elif cls is RepairTool:
                score = self._repair_score(turn, action)  # type: ignore[arg-type]
            elif cls is MapPeek:
                score = self._map_score(turn, action.goal) if BASE_ROLE[turn.dwarf] is not Role.SELFISH_DWARF else 2.0  # type: ignore[union-attr]
            elif cls is Rockfall:
                score = self._rockfall2(turn, action)  # type: ignore[arg-type]
            else:
                score = 0.0
            scores.append(score)
        return scores

    # -- path cards ------------------------------------------------------------------------

    def _place_score(self, turn: Turn2, face: PathCard, action: PlacePath, segments: tuple[int, ...], dead_end: bool) -> float:
        """``segments`` and ``dead_end``: the face's in this turn, worked out once per act."""
        net = turn.net
        cell = action.cell
        colour = turn.colour
        door = face.door
        spot = net.spot(cell)
        incoming = spot.incoming
        if face.ladder:
            joined = face.turned_openings if action.turned else face.openings  # joined to the start by itself
        elif door is not None and colour is not None and door is not colour:
            passable = tuple(s for i, s in enumerate(segments) if i != face.door_segment)
            joined = joined_edges(passable, incoming)
        else:
            joined = joined_edges(segments, incoming)
        out = joined & ~incoming
        result = self._rejoined(turn, cell, spot, out, face, action.turned) if out & spot.cut_off else net.extend(spot, out)
        score = self._path_score(turn, result, dead_end, joined)
        if turn.dwarf is Role.PROFITEER:
            score *= 0.3
        elif turn.dwarf is Role.GEOLOGIST and face.crystals:
            score += 60.0 * face.crystals
        if colour is not None:
            if door is colour and score >= 20.0:
                score += 15.0  # the way stays ours and is shut to the other team
            elif door is not None and door is not colour:
                score -= 40.0
            if not result[1] and self._reaches_by_another_way(turn, cell, segments, face.ladder):
                score -= 150.0  # the treasure by a way shut to this team wins the round for the others
        elif turn.dwarf is Role.BOSS and door is not None:
            score -= 5.0
        return score

    def _rejoined(self, turn: Turn2, cell: Cell, spot: Spot, out: int, face: PathCard, turned: bool) -> Placed:
        """The network's cost and the goal slots it reaches once ``face`` (turned or not) lies
        at ``cell``, its joined segments opening onto ``out``, for a card that opens onto a
        part cut off from the team's network (``Spot.cut_off``): this version counts the
        card's own ends alone, as for any other card (``Network.extend``)."""
        return turn.net.extend(spot, out)

    @staticmethod
    def _reaches_by_another_way(turn: Turn2, cell: Cell, segments: tuple[int, ...], ladder: bool) -> bool:
        """Whether the card reaches a goal that may hold the treasure through the whole network."""
        full = turn.full
        if full is turn.net:
            return False
        x, y = cell
        if all(abs(x - gx) + abs(y - gy) != 1 for gx, gy in GOAL_CELLS):
            return False
        if ladder:
            return False  # a ladder never lies next to a goal
        incoming = full.incoming(cell)
        _, reached = full.place(cell, joined_edges(segments, incoming), incoming)
        return any(turn.goal_mask >> slot & 1 for slot in reached)

    def _rockfall2(self, turn: Turn2, action: Rockfall) -> float:
        tile = turn.view.board.tiles.get(action.cell)
        crystals = tile.card.crystals if tile is not None and tile.card is not None else 0
        if turn.dwarf is Role.GEOLOGIST:
            return -30.0 if crystals else -10.0
        if turn.dwarf is Role.PROFITEER:
            return -10.0
        score = self._rockfall_score(turn, action.cell)
        if turn.colour is not None and tile is not None and tile.card is not None and tile.card.door is turn.colour.other:
            # taking out the other colour's door opens the way again
            score = max(score, 40.0 + 10.0 * turn.urgency)
        return score

    # -- the expansion's cards ----------------------------------------------------------------

    def _play_on_score(self, turn: Turn2, action: PlayOn, keep: dict[int, float]) -> float:
        kind, target = action.kind, action.target
        view = turn.view
        me = self.seat
        h = self.suspicion[target]
        friend = self.friend(target)
        dwarf = turn.dwarf
        if kind is ActionKind.THEFT:
            return 20.0 if view.trapped[me] else 65.0
        if kind is ActionKind.HANDS_OFF:
            if target == me or friend:
                return -30.0
            leads = self.tally[target] == max(self.tally) and self.tally[target]
            return 22.0 + 5.0 * max(0.0, min(h, 4.0)) + (4.0 if leads else 0.0)
        if kind is ActionKind.TRAPPED:
            if friend:
                return -30.0
            if dwarf is Role.SABOTEUR:
                if turn.quiet:
                    return -5.0
                return 40.0 + 20.0 * turn.urgency - 5.0 * h
            if BASE_ROLE[dwarf] is Role.GOLD_DIGGER:
                return 40.0 + 15.0 * min(h, 5.0) + 10.0 * turn.urgency if h >= SUSPECT else -5.0
            return 15.0 + 5.0 * min(h, 5.0) if h >= SUSPECT else -5.0
        if kind is ActionKind.FREE:
            if target == me:
                return 150.0
            if friend:
                return 40.0 + 10.0 * min(abs(h), 3.0) + 5.0 * turn.urgency
            return -20.0 if h >= SUSPECT else 5.0
        if kind is ActionKind.INSPECTION:
            if target in self.known:
                return -20.0
            return 30.0 + 3.0 * (2.0 - min(abs(h), 2.0))
        if kind is ActionKind.SWAP_HATS:
            if target == me:
                return 80.0 if self._role_is_lost(turn) else -30.0
            known = self.known.get(target)
            if known is not None and self._hostile(target) >= SUSPECT:
                return 30.0
            return 10.0 if h >= SUSPECT + 1.5 else -20.0
        if kind is ActionKind.SWAP_HAND:
            if target == me or friend:
                return -30.0
            rest = [v for c, v in keep.items() if c != action.card]
            junk = sum(rest) / len(rest) if rest else 0.0
            # only a hand of junk is worth giving away, to a player with a full hand
            return 12.0 - 3.0 * junk + (2.0 if view.hand_sizes[target] >= 5 else -10.0)
        return 0.0

    def _role_is_lost(self, turn: Turn2) -> bool:
        """A role worth changing: the team's way is shut for good, a lone colour, a beaten saboteur."""
        colour = turn.colour
        if colour is not None:
            if turn.net.best >= CLOSED and turn.full.best < CLOSED:
                return True
            rivals = sum(1 for p in range(turn.view.players) if p != self.seat and self._colour_of(p) is colour.other)
            mates = sum(1 for p in range(turn.view.players) if p != self.seat and self._colour_of(p) is colour)
            return rivals >= 2 and mates == 0
        if turn.dwarf is Role.SABOTEUR:
            return turn.urgency >= 3 and turn.full.counts[0] + turn.full.counts[1] >= 3
        return False

    def _colour_of(self, p: int) -> Door | None:
        known = self.known.get(p)
        if known is not None:
            return COLOUR.get(known)
        lean = self.reading.lean[p]
        return Door.BLUE if lean >= 1.5 else Door.GREEN if lean <= -1.5 else None

    def _clear_score(self, turn: Turn2, action: Clear, keep: dict[int, float], faces: dict[int, Card]) -> float:
        what = action.what
        if what == "theft":
            return -100.0
        cost = 6.0 * sum(keep[c] for c in action.cards)
        held = [f for c, f in faces.items() if c not in action.cards and isinstance(f, ActionCard)]
        if what == "trapped":
            if any(f.kind is ActionKind.FREE for f in held):
                return -10.0  # Free at last! does it for one card
            return 95.0 - cost
        tool = Tool(what)
        if any(f.kind is ActionKind.REPAIR and tool in f.tools for f in held):
            return -10.0
        if turn.dwarf in (Role.GEOLOGIST, Role.PROFITEER):
            return 15.0 - cost
        return 70.0 + 5.0 * turn.urgency - cost - (20.0 if len(turn.view.broken[self.seat]) > 1 else 0.0)

    def _pass_score(self, turn: Turn2, values: list[float]) -> float:
        """Discarding junk: the least valuable card as in the base game, and more junk is better."""
        values = sorted(values)
        score = 10.0 - values[-1] + sum(3.0 - v for v in values[:-1])
        extra = len(values) - 1
        if extra and turn.view.draw_pile_size < len(values):
            # nothing to draw in return: a smaller hand ends the round sooner
            score += 3.0 * extra if turn.dwarf is Role.SABOTEUR else -5.0 * extra
        return score

    def _keep_value(self, turn: Turn, card: Card) -> float:
        assert isinstance(turn, Turn2)
        dwarf = turn.dwarf
        if isinstance(card, PathCard):
            if card.door is not None and turn.colour is not None:
                return 7.0 if card.door is turn.colour else 0.0
            if card.crystals and dwarf is Role.GEOLOGIST:
                return 10.0
            if card.ladder:
                return 7.0 if turn.digger else 3.0
            return super()._keep_value(turn, card)
        assert isinstance(card, ActionCard)
        kind = card.kind
        view = turn.view
        me = self.seat
        if kind is ActionKind.THEFT:
            return 0.0 if view.thefts and view.thefts[me] else 9.0
        if kind is ActionKind.HANDS_OFF:
            return 5.0 if any(view.thefts[p] for p in range(view.players) if p != me) else 3.0
        if kind is ActionKind.SWAP_HAND:
            return 1.0
        if kind is ActionKind.INSPECTION:
            return 5.0 if len(self.known) < view.players - 1 else 0.0
        if kind is ActionKind.SWAP_HATS:
            return 4.0
        if kind is ActionKind.TRAPPED:
            return 8.0
        if kind is ActionKind.FREE:
            return 9.0 if view.trapped and view.trapped[me] else 6.0
        return super()._keep_value(turn, card)
