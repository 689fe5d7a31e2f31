"""Sampling a whole game state consistent with what one seat knows: the base of hidden-
information search.

``determinize(view, rng)`` returns a ``State`` of the view's edition in which every card the
seat has not seen is dealt at random from the cards it has not seen: the other hands, the
draw pile, the face-down discards and (Saboteur 2) the cards put aside; the goals it has
not seen are drawn from the goal cards left; the roles it does not know are drawn from the
role cards left, each seat with chances proportional to ``role_weights[seat][role]`` times
the cards of that role still undealt, so the role counts are always exact.  ``role_weights``
has a row per seat; only the ratios within a row count (a seat whose role is known may have
any row).  A weight that is not a finite number >= 0, or weights under which no deal of the
roles left is possible, raise ValueError rather than being quietly ignored.  With
``hand_weights(seat, role)`` (a row of face weights per card of that seat's hand, or None)
the roles are drawn first and the other hands' cards are dealt one by one, in a random
order, by weight (an approximation of the posterior, not an exact one).  Everything
public is taken from the view and its history: the maze, broken tools, who looked at
which goal, the handles of the cards played.  In the base game the other seats' gold cards
are drawn to fit every public hand-out (a saboteur's take is worth what was owed,
gold_sample.py).

The seat's own cards keep their handles, so the mapping of the seat's moves between the
view and the sampled state is the identity: an action legal for the seat in the real game
is legal as it is in the sample, and the sample's ``legal_actions()`` on the seat's turn is
the real list.  ``legal_actions``, ``push`` and ``clone`` work on the sample as on any state
with a trusted dealer.  What the view does not carry is not used: the faces of the seat's
own face-down discards and of a hand it gave away in a Swap your hand are sampled as unseen.

The sample is made in the play and orient phases (where a bot searches); other phases
raise ValueError.  Randomness comes only from ``rng``.
"""
from __future__ import annotations

import math
import numbers
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

from . import cards as C
from .actions import (
    BreakTool,
    Clear,
    MapPeek,
    Pass,
    PlacePath,
    PlayOn,
    RepairTool,
    Rockfall,
)
from .board import Cell
from .cards import ActionCard, ActionKind, Card, GoldCard, PathCard, PathKind, Role, RoleCard, Tool
from .dealer import Audience, Deck, TrustedDealer, copied_generator
from .deals import log_deal_weights
from .events import CardPlayed, Event, GoalRevealed, GoldReceived, PiecesWon, RoundEnded, RoundStarted, Stolen
from .gold_sample import hand_outs, sample_gold
from .phases import Phase, RoundResult, Winners
from .state import State
from .view import PlayerView

#: per seat, a weight for each role (missing roles weigh 0); None: every role weighs 1
RoleWeights = Sequence[Mapping[Role, float]]
#: (seat, its role in the sample) -> per card of its hand, a weight for each face (missing
#: faces weigh 1), or None: every face weighs 1
HandWeights = Callable[[int, Role], "Sequence[Mapping[Card, float]] | None"]


class WorldDealer(TrustedDealer):
    """A trusted dealer whose gold cards are named by any handles (those a seat's view
    shows, and new ones for the gold it has not seen)."""

    def __init__(self, rng: random.Random, gold: dict[int, GoldCard]) -> None:
        super().__init__(0)
        self.rng = self.again = rng  # a world's one generator (not the trusted dealer's two)
        self.gold = gold

    def reveal(self, deck: Deck, handle: int, to: Audience) -> Card:
        if deck is Deck.GOLD:
            return self.gold[handle]
        return self.decks[deck][handle]

    def clone(self) -> WorldDealer:
        other = WorldDealer(copied_generator(self.rng), self.gold)  # gold faces never change: shared
        other.decks = {deck: list(cards) for deck, cards in self.decks.items()}
        return other


class _RoundFacts:
    """What the public history of the current round says: where each played card went."""

    def __init__(self, view: PlayerView) -> None:
        n = view.players
        self.first_player = view.current_player
        self.last_player: int | None = None
        self.last_path_player: int | None = None
        self.treasure_reached = False
        self.placed: dict[Cell, int] = {}
        self.broken: list[dict[Tool, int]] = [{} for _ in range(n)]
        self.discards: list[int] = []
        self.hidden: list[int] = []
        self.peeks: list[set[int]] = [set() for _ in range(n)]
        self.seen_faces: list[Card] = []
        self.played_faces: dict[int, Card] = {}
        #: Saboteur 2: cards in front of players, when each Theft was played, the dwarf cards
        self.trapped: list[int | None] = [None] * n
        self.thefts: list[int | None] = [None] * n
        self.theft_played: list[int | None] = [None] * n
        self.roles = list(range(n))
        self.role_count = len(view.config.edition_rules.role_cards(view.config))
        self.set_aside_roles = list(range(n, self.role_count))
        self.discarded_roles: list[int] = []
        self.role_seen: list[set[int]] = [{s} for s in range(n)]
        history = view.history
        start = 0
        for i, event in enumerate(history):
            if isinstance(event, RoundStarted):
                start = i
        #: turns played so far, counted as the engine does (a Theft is stamped with the count
        #: of its own turn, so the count must run along the round, not be the final one)
        self.turns = sum(1 for event in history[:start] if isinstance(event, CardPlayed))
        for event in history[start:]:
            if isinstance(event, RoundStarted):
                self.first_player = event.first_player
            elif isinstance(event, GoalRevealed):
                self.treasure_reached |= event.card.kind is PathKind.TREASURE
            elif isinstance(event, CardPlayed):
                self.turns += 1
                self._played(event)
        self.turns_at_end = self.turns

    def _played(self, event: CardPlayed) -> None:
        p, action = event.player, event.action
        self.last_player = p
        if event.card is not None:
            self.seen_faces.append(event.card)
            card = getattr(action, "card", None)
            if isinstance(card, int):
                self.played_faces[card] = event.card
        cls = action.__class__
        if cls is PlacePath:
            assert isinstance(action, PlacePath)
            self.placed[action.cell] = action.card
            self.last_path_player = p
        elif cls is Pass or cls is Clear:
            assert isinstance(action, (Pass, Clear))
            self.hidden += action.cards
            if isinstance(action, Clear):
                self.discards.append(self._take_lying(p, action.what))
        elif cls is BreakTool:
            assert isinstance(action, BreakTool) and action.card is not None
            self.broken[action.target][action.tool] = action.card
        elif cls is RepairTool:
            assert isinstance(action, RepairTool) and action.card is not None
            self.discards += (action.card, self.broken[action.target].pop(action.tool))
        elif cls is Rockfall:
            assert isinstance(action, Rockfall) and action.card is not None
            self.discards += (action.card, self.placed.pop(action.cell))
        elif cls is MapPeek:
            assert isinstance(action, MapPeek) and action.card is not None
            self.peeks[p].add(action.goal)
            self.discards.append(action.card)
        elif cls is PlayOn:
            assert isinstance(action, PlayOn)
            self._played_on(p, action)

    def _take_lying(self, p: int, what: str) -> int:
        if what == "trapped":
            card, self.trapped[p] = self.trapped[p], None
        elif what == "theft":
            card, self.thefts[p], self.theft_played[p] = self.thefts[p], None, None
        else:
            card = self.broken[p].pop(Tool(what))
        assert card is not None
        return card

    def _played_on(self, p: int, action: PlayOn) -> None:
        kind, t, card = action.kind, action.target, action.card
        assert card is not None
        if kind is ActionKind.THEFT:
            self.thefts[p], self.theft_played[p] = card, self.turns
            return
        if kind is ActionKind.TRAPPED:
            self.trapped[t] = card
            return
        self.discards.append(card)
        if kind is ActionKind.HANDS_OFF:
            self.discards.append(self._take_lying(t, "theft"))
        elif kind is ActionKind.FREE:
            self.discards.append(self._take_lying(t, "trapped"))
        elif kind is ActionKind.INSPECTION:
            self.role_seen[p].add(self.roles[t])
        elif kind is ActionKind.SWAP_HATS:
            self.discarded_roles.append(self.roles[t])
            self.roles[t] = self.set_aside_roles.pop(0)
            self.role_seen[t].add(self.roles[t])

    def lying_cards(self) -> list[int]:
        cards = [h for b in self.broken for h in b.values()]
        cards += [h for h in self.trapped if h is not None]
        cards += [h for h in self.thefts if h is not None]
        return cards


def _take(pool: list[Card], face: Card) -> None:
    """Remove one card of ``face`` from ``pool`` (the cards a seat has not seen)."""
    try:
        pool.remove(face)
    except ValueError:
        raise ValueError(f"the view shows more {face.code} cards than the game has") from None


def determinize(
    view: PlayerView, rng: random.Random, role_weights: RoleWeights | None = None, hand_weights: HandWeights | None = None,
) -> State:
    """A full state consistent with ``view``, its unseen parts drawn with ``rng`` (see the
    module's docstring); ``role_weights[seat][role]`` tilts the roles drawn for each seat and
    ``hand_weights`` the faces dealt to each other seat's hand."""
    phase = Phase(view.phase)
    if phase not in (Phase.PLAY, Phase.ORIENT):
        raise ValueError(f"a state is sampled in the play and orient phases, not in {phase.value!r}")
    config = view.config
    edition = config.edition_rules
    n = config.players
    facts = _RoundFacts(view)
    world = edition.state_class(config, WorldDealer(rng, {}))
    dealer = world.dealer
    assert isinstance(dealer, WorldDealer)
    role_deck = [c for c in edition.role_cards(config) if isinstance(c, RoleCard)]
    # the hands' faces may depend on the roles: then the roles are drawn first
    role_faces = _deal_roles(view, facts, role_deck, rng, role_weights) if hand_weights is not None else None

    # -- the draw deck: the seat's hand keeps its handles, the unseen cards are shuffled
    deck = edition.draw_cards()
    unseen = list(deck)
    for _, face in view.hand:
        _take(unseen, face)
    for face in facts.seen_faces:
        _take(unseen, face)
    mine = [h for h, _ in view.hand]
    known = set(mine) | set(facts.placed.values()) | set(facts.discards) | set(facts.hidden) | set(facts.lying_cards())
    free = [h for h in range(len(deck)) if h not in known]
    set_aside = C.SET_ASIDE if hasattr(world, "set_aside_cards") else 0
    others = sum(size for s, size in enumerate(view.hand_sizes) if s != view.seat)
    if others + view.draw_pile_size + set_aside != len(free) or len(unseen) != len(free) + len(facts.hidden):
        raise ValueError("the view's history does not account for every card of the draw deck")
    rng.shuffle(unseen)
    rng.shuffle(free)
    faces: list[Card | None] = [None] * len(deck)
    for h, face in view.hand:
        faces[h] = face
    for h, face in facts.played_faces.items():
        faces[h] = face
    hands: list[list[int]] = []
    at = 0
    for s in range(n):
        if s == view.seat:
            hands.append(list(mine))
        else:
            hands.append(free[at:at + view.hand_sizes[s]])
            at += view.hand_sizes[s]
    dealt: set[int] = set()
    if role_faces is not None and hand_weights is not None:
        slots: list[tuple[int, Mapping[Card, float]]] = []
        for s in range(n):
            rows = hand_weights(s, role_faces[facts.roles[s]].role) if s != view.seat else None
            if rows is not None:
                slots += _weighted_slots(s, hands[s], rows)
                dealt.update(hands[s])
        rng.shuffle(slots)  # dealt in a random order: no seat has the first pick of the faces
        _deal_weighted(slots, unseen, faces, rng)
    for h, face in zip([h for h in free if h not in dealt] + facts.hidden, unseen, strict=True):
        faces[h] = face
    dealer.decks[Deck.DRAW] = [f if f is not None else deck[0] for f in faces]
    world.set_aside_cards = free[at:at + set_aside] if set_aside else []  # type: ignore[attr-defined]
    at += set_aside
    world.draw_pile = free[at:]
    world.hands = hands
    world.faces = dict(enumerate(dealer.decks[Deck.DRAW]))

    # -- goals: the known ones stay, the others are drawn from the goal cards left
    goals = C.goal_cards()
    left = list(goals)
    for face in view.known_goals.values():
        _take(left, face)
    rng.shuffle(left)
    goal_faces: list[Card] = []
    for slot in range(len(goals)):
        seen = view.known_goals.get(slot)
        goal_faces.append(seen if seen is not None else left.pop())
    dealer.decks[Deck.GOALS] = goal_faces
    shown = {slot for peeks in facts.peeks for slot in peeks} | set(view.known_goals)
    world.goal_faces = {slot: f for slot, f in enumerate(goal_faces) if slot in shown and isinstance(f, PathCard)}

    # -- roles: exact counts, the unknown ones tilted by the weights
    if role_faces is None:
        role_faces = _deal_roles(view, facts, role_deck, rng, role_weights)
    dealer.decks[Deck.ROLES] = list(role_faces)
    world.roles = list(facts.roles)
    world.set_aside_roles = list(facts.set_aside_roles)
    world.role_faces = {h: role_faces[h].role for h in (*facts.roles, *facts.discarded_roles)}

    # -- the public parts of the round
    world.round = view.round
    world.phase = phase
    world.current = view.current_player
    world.first_player = facts.first_player
    world.last_player = facts.last_player if facts.last_player is not None else (facts.first_player - 1) % n
    world.last_path_player = facts.last_path_player
    # the player to orient a stone is the one who reached it (``goal_reveal``), as is the one
    # to play: either way, the view's current player
    world.orienter = view.current_player
    world.treasure_reached = facts.treasure_reached
    world.board = view.board.clone()
    world.placed = dict(facts.placed)
    world.broken = [dict(b) for b in facts.broken]
    world.discards = list(facts.discards)
    world.hidden_discards = list(facts.hidden)
    world.peeks = [set(p) for p in facts.peeks]
    world.pending_stones = list(view.pending_stones)
    world.revealed_roles = view.revealed_roles
    world.events = list(view.history)
    world.results = _results(view.history, n, view.config.edition == "saboteur2")
    _deal_gold(world, dealer, view, rng)
    part = _EDITION_PARTS.get(config.edition)
    if part is not None:
        part(world, view, facts)
    return world


def _weighted_slots(seat: int, hand: list[int], rows: object) -> list[tuple[int, Mapping[Card, float]]]:
    """``hand``'s handles, each with its row of ``hand_weights``; ValueError names a malformed row."""
    if not isinstance(rows, Sequence) or len(rows) != len(hand):
        raise ValueError(f"hand_weights gives seat {seat} no row for each of its {len(hand)} cards: {rows!r}")
    for row in rows:
        if not isinstance(row, Mapping):
            raise ValueError(f"hand_weights gives seat {seat} a row that is not a mapping of faces to weights: {row!r}")
        for face, weight in row.items():
            if not isinstance(face, (PathCard, ActionCard)):
                raise ValueError(f"hand_weights gives seat {seat} a key that is not a draw card's face: {face!r}")
            # the rule of role weights (``_log_of``), floats checked without its logarithm
            if not (0.0 <= weight < math.inf if type(weight) is float else _log_of(weight) is not None):
                raise ValueError(f"hand_weights for seat {seat} gives {face.code} a weight not finite and >= 0: {weight!r}")
    return list(zip(hand, rows, strict=True))


def _deal_weighted(
    slots: list[tuple[int, Mapping[Card, float]]], pool: list[Card], faces: list[Card | None], rng: random.Random,
) -> None:
    """Deal each slot's handle a face taken from ``pool``, one after another, with chances
    proportional to the slot's row's weights (a slot whose faces left all weigh 0 takes any)."""
    for h, row in slots:
        chances = [row.get(face, 1.0) for face in pool]
        i = rng.choices(range(len(pool)), chances)[0] if sum(chances) > 0.0 else rng.randrange(len(pool))
        faces[h] = pool.pop(i)


def _deal_roles(
    view: PlayerView, facts: _RoundFacts, deck: list[RoleCard], rng: random.Random, weights: RoleWeights | None,
) -> list[RoleCard]:
    """A role card for every role handle: the known ones as known, each unknown seat's drawn
    with chances proportional to weight times the cards left, the rest shuffled."""
    faces: list[RoleCard | None] = [None] * facts.role_count
    left = Counter(card.role for card in deck)
    by_role = {card.role: card for card in deck}
    fixed = dict(view.known_roles)
    if view.role is not None:
        fixed[view.seat] = view.role
    # and the dwarf cards it saw go out of play by Swap your hats (dealt, they were in play twice: a bot author)
    gone = [h for h in facts.discarded_roles if h in facts.role_seen[view.seat]]
    if len(gone) != len(view.discarded_roles):
        raise ValueError(f"the view knows {len(view.discarded_roles)} dwarf cards out of play, its history {len(gone)}")
    for handle, role in [*((facts.roles[s], r) for s, r in fixed.items()), *zip(gone, view.discarded_roles, strict=True)]:
        if left[role] <= 0:
            raise ValueError(f"the view knows more {role.value} cards than the game has")
        left[role] -= 1
        faces[handle] = by_role[role]
    unknown = [s for s in range(view.players) if s not in fixed]
    roles = sorted((r for r, k in left.items() if k > 0), key=lambda r: r.value)
    counts = tuple(left[r] for r in roles)
    # in logarithms: a product of weights over many seats, or one ratio, may underflow a float
    table = (
        [(0.0,) * len(roles) for _ in unknown] if weights is None else _log_weight_table(weights, view.players, unknown, roles)
    )
    log_weight = log_deal_weights(tuple(table), counts)
    if log_weight(0, (0,) * len(roles)) == -math.inf:
        raise ValueError("role_weights rule out every deal of the role cards the seat has not seen (a role missing "
                         f"from a row weighs 0; the roles left to deal: {', '.join(r.value for r in roles)})")
    used = [0] * len(roles)
    for i, seat in enumerate(unknown):
        # the chance of each card for this seat: its weight times the cards of it left times
        # the weight of all deals of the cards left to the seats after it (exact sampling)
        logs = []
        for j in range(len(roles)):
            k = counts[j] - used[j]
            if k <= 0 or table[i][j] == -math.inf:
                logs.append(-math.inf)
                continue
            used[j] += 1
            logs.append(table[i][j] + math.log(k) + log_weight(i + 1, tuple(used)))
            used[j] -= 1
        top = max(logs)
        chances = [math.exp(x - top) for x in logs]
        j = rng.choices(range(len(roles)), chances)[0]
        used[j] += 1
        left[roles[j]] -= 1
        faces[facts.roles[seat]] = by_role[roles[j]]
    rest = [by_role[r] for r in sorted(left, key=lambda r: r.value) for _ in range(left[r])]
    rng.shuffle(rest)
    out: list[RoleCard] = []
    for face in faces:
        out.append(face if face is not None else rest.pop())
    return out


def _log_weight_table(weights: RoleWeights, players: int, unknown: list[int], roles: list[Role]) -> list[tuple[float, ...]]:
    """The logarithms of the rows of ``weights`` for the seats whose roles are drawn, each less
    its largest; ValueError names a malformed weight or a seat left with no role it can still
    have.  A weight is any real number (int, float, Fraction, NumPy's) >= 0, not infinite."""
    if len(weights) != players:
        raise ValueError(f"role_weights has {len(weights)} rows for a table of {players} players")
    table = []
    for seat in unknown:
        row = weights[seat]
        if not isinstance(row, Mapping):
            raise ValueError(f"role_weights[{seat}] is not a mapping of roles to weights")
        logged: dict[Role, float] = {}
        for role, weight in row.items():
            if not isinstance(role, Role):
                raise ValueError(f"role_weights[{seat}] has a key that is not a Role: {role!r}")
            log = _log_of(weight)
            if log is None:
                raise ValueError(f"role_weights[{seat}][{role.value}] is not a finite weight >= 0: {weight!r}")
            logged[role] = log
        logs = [logged.get(r, -math.inf) for r in roles]
        top = max(logs)
        if top == -math.inf:
            raise ValueError(f"role_weights gives seat {seat} no weight for any role it can still have")
        table.append(tuple(x - top for x in logs))
    return table


def _log_of(weight: object) -> float | None:
    """log(weight) of a real number >= 0 (-inf for 0), exact for a fraction or an integer of
    any size; None for anything else."""
    if isinstance(weight, bool) or not isinstance(weight, numbers.Real):
        return None
    if isinstance(weight, numbers.Rational):
        top, bottom = int(weight.numerator), int(weight.denominator)
        if top < 0:
            return None
        return -math.inf if top == 0 else math.log(top) - math.log(bottom)
    number = float(weight)
    if not 0.0 <= number < math.inf:
        return None
    return math.log(number) if number > 0.0 else -math.inf


def _deal_gold(world: State, dealer: WorldDealer, view: PlayerView, rng: random.Random) -> None:
    """Base game: the seat's gold as shown, the other seats' and the pile's drawn from the
    rest to fit the public hand-outs (gold_sample.py)."""
    if view.config.edition_rules.public_gold:
        return
    cards = [c for c in C.gold_cards(view.config.has("stone-nuggets")) if isinstance(c, GoldCard)]
    outs = hand_outs(view.history, view.config)
    others, pile = sample_gold(cards, [face for _, face in view.gold], view.seat, view.players, outs, rng)
    rng.shuffle(pile)
    own = [h for h, _ in view.gold]
    gold: dict[int, GoldCard] = dict(view.gold)
    spare = (h for h in range(1 << 30) if h not in gold)  # new handles, apart from the seat's
    world.gold_of = [[] for _ in range(view.players)]
    for seat, faces in enumerate(others):
        if seat == view.seat:
            world.gold_of[seat] = list(own)
            continue
        for face in faces:
            h = next(spare)
            gold[h] = face
            world.gold_of[seat].append(h)
    world.gold_pile = []
    for face in pile:
        h = next(spare)
        gold[h] = face
        world.gold_pile.append(h)
    dealer.gold = gold
    world.gold_faces = {h: gold[h] for golds in world.gold_of for h in golds}


def _results(history: Sequence[Event], n: int, saboteur2: bool) -> list[RoundResult]:
    """The results of the rounds played, from the public events (as the edition's engine
    makes them: Saboteur 2's also say the pieces and who was trapped at the round's end)."""
    results: list[RoundResult] = []
    cards = [0] * n
    pieces = [0] * n
    trapped: set[int] = set()
    ended: RoundEnded | None = None
    at_end: tuple[int, ...] = ()

    def close() -> None:
        if ended is None:
            return
        if saboteur2:
            results.append(RoundResult(
                ended.round, Winners(ended.winners), ended.roles, tuple(cards), tuple(pieces), at_end,
            ))
        else:
            results.append(RoundResult(ended.round, Winners(ended.winners), ended.roles, tuple(cards)))

    for event in history:
        if isinstance(event, RoundStarted):
            close()
            ended, cards, pieces, trapped = None, [0] * n, [0] * n, set()
        elif isinstance(event, RoundEnded):
            ended, at_end = event, tuple(sorted(trapped))
        elif isinstance(event, CardPlayed) and isinstance(event.action, (PlayOn, Clear)):
            action = event.action
            if isinstance(action, Clear):
                if action.what == "trapped":
                    trapped.discard(event.player)
            elif action.kind is ActionKind.TRAPPED:
                trapped.add(action.target)
            elif action.kind is ActionKind.FREE:
                trapped.discard(action.target)
        elif isinstance(event, GoldReceived):
            cards[event.player] += event.cards
        elif isinstance(event, PiecesWon):
            pieces[event.player] += event.pieces
        elif isinstance(event, Stolen) and event.victim is not None:
            pieces[event.victim] -= 1
            pieces[event.thief] += 1
    return results


def _saboteur2_part(world: State, view: PlayerView, facts: _RoundFacts) -> None:
    """Saboteur 2's own fields: cards in front of players, turns, gold pieces, dwarf cards."""
    n = view.players
    pieces = [0] * n
    for event in view.history:
        if isinstance(event, PiecesWon):
            pieces[event.player] += event.pieces
        elif isinstance(event, Stolen) and event.victim is not None:
            pieces[event.victim] -= 1
            pieces[event.thief] += 1
    fields = {
        "trapped": list(facts.trapped),
        "thefts": list(facts.thefts),
        "theft_played": list(facts.theft_played),
        "turns": facts.turns_at_end,
        "pieces": pieces,
        "round_pieces": [0] * n,
        "steal_queue": [],
        "role_seen": [set(seen) for seen in facts.role_seen],
        "discarded_roles": list(facts.discarded_roles),
    }
    for name, value in fields.items():
        setattr(world, name, value)


#: an edition's own part of a sample, by edition name (the base game has none)
_EDITION_PARTS: dict[str, Callable[[State, PlayerView, _RoundFacts], None]] = {"saboteur2": _saboteur2_part}
