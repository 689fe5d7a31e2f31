"""The card catalogue of the base game and of Saboteur 2: faces, edges and deck composition.

Path cards are modelled as segments: each segment is a bit mask of the edges it joins
(N=1, E=2, S=4, W=8).  A one-edge segment is a dead end.  Two tunnels connect through a
card only if they share a segment.  Turning a card 180 degrees swaps N<->S and E<->W.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field

N, E, S, W = 1, 2, 4, 8
ALL_EDGES = N | E | S | W
EDGE_NAMES = {N: "N", E: "E", S: "S", W: "W"}
EDGE_ORDER = (N, E, S, W)
#: (dx, dy) of the neighbour beyond each edge; y grows south.
EDGE_DELTA = {N: (0, -1), E: (1, 0), S: (0, 1), W: (-1, 0)}
OPPOSITE = {N: S, E: W, S: N, W: E}


def turn_mask(mask: int) -> int:
    """Return an edge mask turned by 180 degrees."""
    return ((mask << 2) | (mask >> 2)) & ALL_EDGES


def mask_from_letters(letters: str) -> int:
    """Parse 'NES' into an edge mask."""
    mask = 0
    for letter in letters:
        try:
            mask |= {"N": N, "E": E, "S": S, "W": W}[letter]
        except KeyError:
            raise ValueError(f"not an edge letter: {letter!r} in {letters!r}") from None
    return mask


def mask_letters(mask: int) -> str:
    return "".join(EDGE_NAMES[e] for e in EDGE_ORDER if mask & e)


class Tool(enum.Enum):
    __hash__ = object.__hash__  # members are singletons; Enum's own hash is slow Python
    PICKAXE = "pickaxe"
    LANTERN = "lantern"
    CART = "cart"


class Role(enum.Enum):
    __hash__ = object.__hash__  # members are singletons; Enum's own hash is slow Python
    GOLD_DIGGER = "gold-digger"
    SABOTEUR = "saboteur"
    SELFISH_DWARF = "selfish-dwarf"
    # Saboteur 2 dwarf cards (rules.md 8); SABOTEUR above is shared
    BLUE_DIGGER = "blue-digger"
    GREEN_DIGGER = "green-digger"
    BOSS = "boss"
    PROFITEER = "profiteer"
    GEOLOGIST = "geologist"


class Door(enum.Enum):
    """The colour of a door on a Saboteur 2 path card; it lets only that team's diggers by."""

    __hash__ = object.__hash__  # members are singletons; Enum's own hash is slow Python
    BLUE = "blue"
    GREEN = "green"

    @property
    def other(self) -> Door:
        return Door.GREEN if self is Door.BLUE else Door.BLUE


class PathKind(enum.Enum):
    __hash__ = object.__hash__  # members are singletons; Enum's own hash is slow Python
    START = "start"
    TREASURE = "treasure"
    STONE = "stone"
    TUNNEL = "tunnel"


class ActionKind(enum.Enum):
    __hash__ = object.__hash__  # members are singletons; Enum's own hash is slow Python
    BREAK = "break"
    REPAIR = "repair"
    MAP = "map"
    ROCKFALL = "rockfall"
    # Saboteur 2 (rules.md 8)
    THEFT = "theft"
    HANDS_OFF = "hands-off"
    SWAP_HAND = "swap-hand"
    INSPECTION = "inspection"
    SWAP_HATS = "swap-hats"
    TRAPPED = "trapped"
    FREE = "free"


@dataclass(frozen=True, slots=True)
class PathCard:
    """A path card face: its segments as edge masks, in the upright turn.

    Saboteur 2 cards may carry a ladder (every segment of the card is joined to the start),
    a door on the segment with the most edges, and crystals.
    """

    kind: PathKind
    segments: tuple[int, ...]
    ladder: bool = False
    door: Door | None = None
    crystals: int = 0
    #: openings in the upright and in the turned position (derived, for speed).
    openings: int = field(init=False, compare=False, repr=False)
    turned_openings: int = field(init=False, compare=False, repr=False)
    #: True when turning the card gives the same card.
    symmetric: bool = field(init=False, compare=False, repr=False)
    #: index of the segment the door sits on, the one with the most edges (rules.md 8); None
    #: without a door.  Door walks ask it for every segment they pass.
    door_segment: int | None = field(init=False, compare=False, repr=False)
    #: True when every segment is a dead end (one edge each).  Bots ask it of every placement
    #: they weigh, so it is worked out once here.
    is_dead_end: bool = field(init=False, compare=False, repr=False)
    #: the segments in the turned position
    segments_turned: tuple[int, ...] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        mask = 0
        for segment in self.segments:
            mask |= segment
        object.__setattr__(self, "openings", mask)
        object.__setattr__(self, "turned_openings", turn_mask(mask))
        turned = sorted(turn_mask(s) for s in self.segments)
        object.__setattr__(self, "symmetric", turned == sorted(self.segments))
        door_segment = None
        if self.door is not None:
            counts = [bin(segment).count("1") for segment in self.segments]
            door_segment = counts.index(max(counts))
        object.__setattr__(self, "door_segment", door_segment)
        object.__setattr__(self, "is_dead_end", all(bin(s).count("1") == 1 for s in self.segments))
        object.__setattr__(self, "segments_turned", tuple(turn_mask(s) for s in self.segments))

    def turned_segments(self, turned: bool) -> tuple[int, ...]:
        return self.segments_turned if turned else self.segments

    @property
    def code(self) -> str:
        body = "+".join(mask_letters(s) for s in self.segments)
        if self.kind is PathKind.TUNNEL:
            if self.ladder:
                body += ":ladder"
            if self.door is not None:
                body += f":{self.door.value}-door"
            if self.crystals:
                body += ":crystal" if self.crystals == 1 else f":crystal{self.crystals}"
            return f"path:{body}"
        if self.kind is PathKind.START:
            return "start"
        if self.kind is PathKind.TREASURE:
            return "goal:treasure"
        return f"goal:stone-{body}"


@dataclass(frozen=True, slots=True)
class ActionCard:
    kind: ActionKind
    tools: tuple[Tool, ...] = ()

    @property
    def code(self) -> str:
        if self.tools:
            return f"{self.kind.value}:" + "+".join(t.value for t in self.tools)
        return self.kind.value


@dataclass(frozen=True, slots=True)
class GoldCard:
    nuggets: int

    @property
    def code(self) -> str:
        return f"gold:{self.nuggets}"


@dataclass(frozen=True, slots=True)
class RoleCard:
    role: Role

    @property
    def code(self) -> str:
        return f"role:{self.role.value}"


Card = PathCard | ActionCard | GoldCard | RoleCard


def _tunnel(*segments: str, ladder: bool = False, door: Door | None = None, crystals: int = 0) -> PathCard:
    return PathCard(PathKind.TUNNEL, tuple(mask_from_letters(s) for s in segments), ladder, door, crystals)


START = PathCard(PathKind.START, (ALL_EDGES,))
TREASURE = PathCard(PathKind.TREASURE, (ALL_EDGES,))
STONE_NW = PathCard(PathKind.STONE, (N | W,))
STONE_NE = PathCard(PathKind.STONE, (N | E,))

#: (card, count) for the 40 tunnel cards: 31 through-paths then 9 dead ends.
TUNNEL_COUNTS: tuple[tuple[PathCard, int], ...] = (
    (_tunnel("NESW"), 5),
    (_tunnel("NES"), 5),
    (_tunnel("NEW"), 5),
    (_tunnel("EW"), 3),
    (_tunnel("NS"), 4),
    (_tunnel("NW"), 4),
    (_tunnel("NE"), 5),
    (_tunnel("W"), 1),
    (_tunnel("S"), 1),
    (_tunnel("N", "S"), 1),
    (_tunnel("W", "E"), 1),
    (_tunnel("N", "W"), 1),
    (_tunnel("S", "W"), 1),
    (_tunnel("N", "S", "W"), 1),
    (_tunnel("W", "E", "S"), 1),
    (_tunnel("N", "E", "S", "W"), 1),
)

ACTION_COUNTS: tuple[tuple[ActionCard, int], ...] = (
    (ActionCard(ActionKind.BREAK, (Tool.PICKAXE,)), 3),
    (ActionCard(ActionKind.BREAK, (Tool.LANTERN,)), 3),
    (ActionCard(ActionKind.BREAK, (Tool.CART,)), 3),
    (ActionCard(ActionKind.REPAIR, (Tool.PICKAXE,)), 2),
    (ActionCard(ActionKind.REPAIR, (Tool.LANTERN,)), 2),
    (ActionCard(ActionKind.REPAIR, (Tool.CART,)), 2),
    (ActionCard(ActionKind.REPAIR, (Tool.PICKAXE, Tool.LANTERN)), 1),
    (ActionCard(ActionKind.REPAIR, (Tool.PICKAXE, Tool.CART)), 1),
    (ActionCard(ActionKind.REPAIR, (Tool.LANTERN, Tool.CART)), 1),
    (ActionCard(ActionKind.MAP), 6),
    (ActionCard(ActionKind.ROCKFALL), 3),
)

GOLD_COUNTS: tuple[tuple[GoldCard, int], ...] = (
    (GoldCard(1), 16),
    (GoldCard(2), 8),
    (GoldCard(3), 4),
)

#: players -> (saboteurs, gold-diggers, hand size)
ROLE_TABLE: dict[int, tuple[int, int, int]] = {
    3: (1, 3, 6),
    4: (1, 4, 6),
    5: (2, 4, 6),
    6: (2, 5, 5),
    7: (3, 5, 5),
    8: (3, 6, 4),
    9: (3, 7, 4),
    10: (4, 7, 4),
}
#: rules.md 7, selfish dwarf: players -> (saboteurs, gold-diggers); plus one selfish dwarf.
SELFISH_ROLE_TABLE: dict[int, tuple[int, int]] = {
    3: (1, 2), 4: (1, 3), 5: (2, 3), 6: (2, 4), 7: (3, 4), 8: (3, 5), 9: (3, 6), 10: (4, 6),
}
#: rules.md 7, tournament roles (5-9 players): players -> (saboteurs, gold-diggers); plus one
#: selfish dwarf; as many role cards as players.
TOURNAMENT_ROLE_TABLE: dict[int, tuple[int, int]] = {
    5: (1, 3), 6: (2, 3), 7: (2, 4), 8: (2, 5), 9: (3, 5),
}


#: The 30 Saboteur 2 path cards (rules.md 8; the shapes within each class are ours).
EXPANSION_PATH_COUNTS: tuple[tuple[PathCard, int], ...] = (
    # 1 segment, 1 edge
    (_tunnel("S", ladder=True), 2),
    (_tunnel("E", crystals=1), 1),
    (_tunnel("N", crystals=1), 1),
    # 1 segment, 2 edges
    (_tunnel("ES", ladder=True), 1),
    (_tunnel("NS", ladder=True), 1),
    (_tunnel("NS", door=Door.BLUE), 1),
    (_tunnel("EW", door=Door.BLUE), 1),
    (_tunnel("NE", door=Door.BLUE), 1),
    (_tunnel("NS", door=Door.GREEN), 1),
    (_tunnel("EW", door=Door.GREEN), 1),
    # 1 segment, 3 and 4 edges
    (_tunnel("ESW", crystals=1), 3),
    (_tunnel("NES", crystals=1), 1),
    (_tunnel("NESW", crystals=1), 1),
    # 2 segments, 3 edges
    (_tunnel("EW", "S", door=Door.GREEN), 1),
    (_tunnel("EW", "N"), 1),
    (_tunnel("NS", "E"), 1),
    (_tunnel("NE", "S"), 2),
    (_tunnel("EW", "S", crystals=1), 1),
    # 2 segments, 4 edges: bridges, double curves, and two with crystals
    (_tunnel("NS", "EW"), 2),
    (_tunnel("NW", "ES"), 1),
    (_tunnel("NE", "SW"), 1),
    (_tunnel("NS", "EW", crystals=1), 1),
    (_tunnel("NW", "ES", crystals=1), 1),
    # 3 segments, 4 edges
    (_tunnel("EW", "N", "S"), 1),
    (_tunnel("NS", "E", "W"), 1),
)

#: The 20 Saboteur 2 action cards (rules.md 8: the 20 listed, not the 21 of 002's contents).
EXPANSION_ACTION_COUNTS: tuple[tuple[ActionCard, int], ...] = (
    (ActionCard(ActionKind.THEFT), 4),
    (ActionCard(ActionKind.HANDS_OFF), 3),
    (ActionCard(ActionKind.SWAP_HAND), 2),
    (ActionCard(ActionKind.INSPECTION), 2),
    (ActionCard(ActionKind.SWAP_HATS), 2),
    (ActionCard(ActionKind.TRAPPED), 3),
    (ActionCard(ActionKind.FREE), 4),
)

#: The 15 Saboteur 2 dwarf cards.
DWARF_COUNTS: tuple[tuple[RoleCard, int], ...] = (
    (RoleCard(Role.BLUE_DIGGER), 4),
    (RoleCard(Role.GREEN_DIGGER), 4),
    (RoleCard(Role.BOSS), 1),
    (RoleCard(Role.PROFITEER), 1),
    (RoleCard(Role.GEOLOGIST), 2),
    (RoleCard(Role.SABOTEUR), 3),
)

#: Saboteur 2: cards put aside unseen each round, and the hand size at any table.
SET_ASIDE = 10
SABOTEUR2_HAND = 6


def expand(counts: tuple[tuple[Card, int], ...]) -> list[Card]:
    return [card for card, count in counts for _ in range(count)]


def base_draw_cards() -> list[Card]:
    """The 40 tunnels and 27 action cards, in catalogue order."""
    return list(_BASE_DRAW)


def saboteur2_draw_cards() -> list[Card]:
    """The 117 path and action cards of the base game and the expansion, in catalogue order."""
    return list(_SABOTEUR2_DRAW)


#: the draw decks, built once (every round of every game shuffles a copy)
_BASE_DRAW: tuple[Card, ...] = (*expand(TUNNEL_COUNTS), *expand(ACTION_COUNTS))
_SABOTEUR2_DRAW: tuple[Card, ...] = (*_BASE_DRAW, *expand(EXPANSION_PATH_COUNTS), *expand(EXPANSION_ACTION_COUNTS))


def dwarf_cards() -> list[Card]:
    return expand(DWARF_COUNTS)


def goal_cards() -> list[Card]:
    return [TREASURE, STONE_NW, STONE_NE]


def gold_cards(stone_nuggets: bool = False) -> list[Card]:
    cards = expand(GOLD_COUNTS)
    if stone_nuggets:
        # rules.md 7: six one-nugget cards are replaced by six worthless stones.
        cards = cards[6:] + [GoldCard(0)] * 6
    return cards


def role_cards(players: int, selfish_dwarf: bool = False, tournament_roles: bool = False) -> list[Card]:
    """The role cards shuffled for a round with this many players."""
    if players not in ROLE_TABLE:
        raise ValueError(f"the base game is for 3 to 10 players, not {players}")
    if tournament_roles:
        if players not in TOURNAMENT_ROLE_TABLE:
            raise ValueError(f"tournament-roles is for 5 to 9 players, not {players}")
        saboteurs, diggers = TOURNAMENT_ROLE_TABLE[players]
        selfish = 1
    elif selfish_dwarf:
        saboteurs, diggers = SELFISH_ROLE_TABLE[players]
        selfish = 1
    else:
        saboteurs, diggers, _ = ROLE_TABLE[players]
        selfish = 0
    cards: list[Card] = []
    return cards + (
        [RoleCard(Role.GOLD_DIGGER)] * diggers
        + [RoleCard(Role.SABOTEUR)] * saboteurs
        + [RoleCard(Role.SELFISH_DWARF)] * selfish
    )


def hand_size(players: int) -> int:
    return ROLE_TABLE[players][2]


def _all_faces() -> list[Card]:
    faces: list[Card] = [START, TREASURE, STONE_NW, STONE_NE]
    faces += [card for card, _ in TUNNEL_COUNTS + ACTION_COUNTS + GOLD_COUNTS]
    faces += [card for card, _ in EXPANSION_PATH_COUNTS + EXPANSION_ACTION_COUNTS]
    faces += [GoldCard(0)] + [RoleCard(role) for role in Role]
    return faces


#: Every face by its code, for parsing serialised states.
FACES_BY_CODE: dict[str, Card] = {face.code: face for face in _all_faces()}


def face_from_code(code: str) -> Card:
    try:
        return FACES_BY_CODE[code]
    except KeyError:
        raise ValueError(f"unknown card code {code!r}") from None
