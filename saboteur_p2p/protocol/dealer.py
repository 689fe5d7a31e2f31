"""The mental-poker dealer: the rules engine's Dealer, backed by jointly shuffled ElGamal decks.

The engine calls this dealer exactly as it calls the trusted one.  Calls that need the
other peers block by raising ``Blocked``; the session node (node.py) then runs the protocol
step and tries the engine again on a fresh copy of its state, so the engine itself never
waits and never changes.  What blocks:

* ``shuffle``: every peer must shuffle the decks in turn, with proofs;
* ``public_random``: a commit-reveal coin of all peers;
* ``reveal(..., to=None)``: every peer's public decryption share.

A reveal to some players never blocks: it is recorded as pending, the peers that owe
shares send them in the next share round (public for a card's first reveal to a seat,
sealed for a later one), and the recipient's node then teaches its engine the face
(``State.learn``).  A card may be shown to one seat after another (a goal mapped twice,
Saboteur 2's Swap your hand shows a hand to its new owner): each showing is its own reveal,
owed by every seat outside its audience, the seats that already know the card included.
The engine's course never depends on a face only some players know, so every peer's engine
makes the same requests in the same order.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from ..crypto.group import Point, Scalar, add, hash_to_point, mul, sub
from ..crypto.shuffle import Ciphertext, initial_deck
from ..rules.cards import Card
from ..rules.dealer import Audience, Deck
from .errors import ProtocolViolation

#: Gold cards reshuffled in batch b get handles GOLD_HANDLE_STRIDE * b + position.
GOLD_HANDLE_STRIDE = 1000


class Blocked(Exception):
    """The engine asked for something the peers have not produced yet."""

    def __init__(self, need: object) -> None:
        super().__init__(repr(need))
        self.need = need


@dataclass(frozen=True)
class ShuffleNeed:
    batch: int
    fresh: tuple[tuple[Deck, int], ...]
    again: tuple[tuple[Deck, tuple[int, ...]], ...]


@dataclass(frozen=True)
class CoinNeed:
    index: int
    n: int


#: A card in a shuffled batch: (batch, deck, position).
CardKey = tuple[int, Deck, int]


class UnknownCard(ValueError):
    """A card whose every decryption share was proven opens to no card of its deck: a shuffle
    was false and its proof passed by chance (2^-k), so no one seat can be named."""


@dataclass(frozen=True)
class RevealNeed:
    card: CardKey
    audience: frozenset[int] | None

    @property
    def public(self) -> bool:
        return self.audience is None


@dataclass
class Batch:
    """One shuffle batch: the inputs, and the output once every peer has shuffled."""

    need: ShuffleNeed
    inputs: dict[Deck, list[Ciphertext]]
    faces: dict[Deck, dict[Point, Card]]
    outputs: dict[Deck, list[Ciphertext]] | None = None


@dataclass
class RevealState:
    need: RevealNeed
    #: the seats that must send something for it: for a card one seat holds (every other
    #: seat sealed its share to it), shown to all, that seat alone, which opens the others'
    owers: tuple[int, ...]
    shares: dict[int, Point] = field(default_factory=dict)
    #: for such a card, the reveal to its holder that made it the holder
    held_by: RevealNeed | None = None
    #: a card's first reveal, to one seat: its owers publish their shares instead of sealing
    #: them (the holder's own share, never published, keeps it from everyone else)
    public: bool = False

    def complete(self, players: int) -> bool:
        """Every seat's share is in (shown to all), or every ower's sealed shares (to some)."""
        return len(self.shares) == (players if self.need.audience is None else len(self.owers))


class MentalDealer:
    """One seat's (or a spectator's) view of the jointly dealt decks."""

    def __init__(self, game_id: bytes, players: int, seat: int | None, secret: Scalar | None) -> None:
        self.game_id = game_id
        self.players = players
        self.everyone = frozenset(range(players))
        self.seat = seat
        self.secret = secret
        self.keys: list[Point] = []
        self.joint: Point | None = None
        self.batches: list[Batch] = []
        self.coins: list[int | None] = []
        self.coin_needs: list[CoinNeed] = []
        #: gold handles are fixed by the batch that shuffled them: handle <-> card
        self.gold_cards: dict[int, CardKey] = {}
        self.gold_handles: dict[CardKey, int] = {}
        self.public_faces: dict[CardKey, Card] = {}
        self.my_faces: dict[CardKey, Card] = {}
        #: seats publicly known to know a card (its to-one reveals completed)
        self.knowers: dict[CardKey, set[int]] = {}
        self.reveals: dict[RevealNeed, RevealState] = {}
        #: reveals asked for and not yet complete, in the order first asked
        self.pending: dict[RevealNeed, None] = {}
        #: each card's latest reveal to one seat (in the order asked): its holder, who alone
        #: owes the card's reveal to all
        self.holding: dict[CardKey, RevealNeed] = {}
        #: the shares of each card published for its first reveal to one seat, by seat: they
        #: count towards the card's reveal to all, which then needs only its holder's
        self.published: dict[CardKey, dict[int, Point]] = {}
        self.learned: list[tuple[Deck, int, Card]] = []
        #: batches the engine opened ahead of its asking for them (``shuffle_ahead``), not yet
        #: taken up by the node, which schedules their shuffles between moves
        self.opened_ahead: list[int] = []
        self._cursor_shuffles = 0
        self._cursor_coins = 0
        self._current: dict[Deck, int] = {}
        self.committed_cursor: tuple[int, int, dict[Deck, int]] = (0, 0, {})

    # -- attempts ----------------------------------------------------------------------

    def begin_attempt(self) -> None:
        """The engine starts again from its committed state: so does the dealer's cursor."""
        shuffles, coins, current = self.committed_cursor
        self._cursor_shuffles, self._cursor_coins = shuffles, coins
        self._current = dict(current)

    def commit_attempt(self) -> None:
        self.committed_cursor = (self._cursor_shuffles, self._cursor_coins, dict(self._current))

    # -- the engine's Dealer interface ---------------------------------------------------

    def shuffle(self, fresh: Mapping[Deck, Sequence[Card]], again: Mapping[Deck, Sequence[int]]) -> dict[Deck, list[int]]:
        index = self._cursor_shuffles
        need = ShuffleNeed(
            index,
            tuple((deck, len(cards)) for deck, cards in fresh.items()),
            tuple((deck, tuple(handles)) for deck, handles in again.items()),
        )
        if index == len(self.batches):
            self.batches.append(self._prepare(need, fresh, again))
        batch = self.batches[index]
        if batch.need != need:
            raise RuntimeError(f"engine asked for shuffle {need}, the protocol prepared {batch.need}")
        if batch.outputs is None:
            raise Blocked(need)
        self._cursor_shuffles += 1
        result: dict[Deck, list[int]] = {}
        for deck in batch.outputs:
            self._current[deck] = index
            if deck is Deck.GOLD:
                base = 0 if deck in fresh else GOLD_HANDLE_STRIDE * index
                handles = [base + i for i in range(len(batch.outputs[deck]))]
                for i, h in enumerate(handles):
                    self.gold_cards[h] = (index, deck, i)
                    self.gold_handles[(index, deck, i)] = h
                result[deck] = handles
        return result

    def shuffle_ahead(self, fresh: Mapping[Deck, Sequence[Card]]) -> None:
        """Open the batch the engine's next ``shuffle`` will ask for (these fresh decks, none
        again): its index is that call's, and the seats shuffle it while the round is played."""
        index = self._cursor_shuffles
        need = ShuffleNeed(index, tuple((deck, len(cards)) for deck, cards in fresh.items()), ())
        if index == len(self.batches):
            self.batches.append(self._prepare(need, fresh, {}))
            self.opened_ahead.append(index)
        elif self.batches[index].need != need:
            raise RuntimeError(f"engine opened shuffle {need} ahead, the protocol prepared {self.batches[index].need}")

    def _prepare(self, need: ShuffleNeed, fresh: Mapping[Deck, Sequence[Card]], again: Mapping[Deck, Sequence[int]]) -> Batch:
        inputs: dict[Deck, list[Ciphertext]] = {}
        faces: dict[Deck, dict[Point, Card]] = {}
        for deck, cards in fresh.items():
            points = [hash_to_point("card", self.game_id, need.batch, deck.value, i) for i in range(len(cards))]
            inputs[deck] = initial_deck(points)
            faces[deck] = dict(zip(points, cards, strict=True))
        for deck, handles in again.items():
            keys = [self._locate(deck, h) for h in handles]
            inputs[deck] = [self.ciphertext(key) for key in keys]
            table: dict[Point, Card] = {}
            for b, d, _ in keys:
                table.update(self.batches[b].faces[d])
            faces[deck] = table
        return Batch(need, inputs, faces)

    def public_random(self, n: int) -> int:
        index = self._cursor_coins
        if index == len(self.coin_needs):
            self.coin_needs.append(CoinNeed(index, n))
            self.coins.append(None)
        value = self.coins[index]
        if value is None:
            raise Blocked(self.coin_needs[index])
        self._cursor_coins += 1
        return value

    def reveal(self, deck: Deck, handle: int, to: Audience) -> Card | None:
        card = self._locate(deck, handle)
        if to is None or to >= self.everyone:
            # shown to every player as well (possible at a 2-seat table): with no seat left
            # to owe sealed shares, only public shares open the card
            return self._reveal_to_all(card)
        known = self.public_faces.get(card)
        if known is not None:
            return known
        need = RevealNeed(card, to)
        knowers = self.knowers.get(card, set())
        if not to <= knowers:
            self._ensure(need)
        if len(to) == 1 and need in self.reveals:
            # asked again for a seat that was shown it (a gold card given to a seat it was
            # offered to before others were): that seat holds the card now, and shows it
            self.holding[card] = need
        if self.seat is not None and self.seat in to:
            return self.my_faces.get(card)
        return None

    def reveal_many(self, deck: Deck, handles: Sequence[int]) -> list[Card]:
        """Reveal several cards to everyone in one share round."""
        faces: list[Card] = []
        blocked: Blocked | None = None
        for handle in handles:
            try:
                faces.append(self._reveal_to_all(self._locate(deck, handle)))
            except Blocked as exc:
                blocked = blocked or exc  # ask for every share before blocking
        if blocked is not None:
            raise blocked
        return faces

    def _reveal_to_all(self, card: CardKey) -> Card:
        """The card's face for everyone; blocks until every seat's public share is in."""
        known = self.public_faces.get(card)
        if known is not None:
            return known
        need = RevealNeed(card, None)
        state = self._ensure(need)
        if not state.complete(self.players):
            raise Blocked(need)
        face = self._decrypt_public(state)
        self.public_faces[card] = face
        self.pending.pop(need, None)
        return face

    # -- bookkeeping for the node ---------------------------------------------------------

    def shown_to_all(self, deck: Deck, handle: int) -> bool:
        """Whether the card at ``handle`` is known to everyone (its reveal to all is done)."""
        try:
            return self._locate(deck, handle) in self.public_faces
        except KeyError:
            return False

    def _locate(self, deck: Deck, handle: int) -> CardKey:
        if deck is Deck.GOLD:
            found = self.gold_cards.get(handle)
            if found is None:
                raise KeyError(f"no gold card {handle}")
            return found
        if deck not in self._current:
            raise KeyError(f"no {deck.value} deck has been shuffled")
        batch = self._current[deck]
        outputs = self.batches[batch].outputs
        if outputs is None or not 0 <= handle < len(outputs[deck]):
            raise KeyError(f"no card {handle} in the {deck.value} deck")
        return (batch, deck, handle)

    def _ensure(self, need: RevealNeed) -> RevealState:
        state = self.reveals.get(need)
        if state is None:
            held_by = self.holding.get(need.card) if need.audience is None else None
            public = False
            if held_by is not None:
                assert held_by.audience is not None
                owers = tuple(held_by.audience)  # the holder shows it, opening the others' shares
            elif need.audience is None:
                owers = tuple(range(self.players))
            else:
                owers = tuple(s for s in range(self.players) if s not in need.audience)
                if len(need.audience) == 1:
                    public = need.card not in self.holding  # the card's first reveal to a seat
                    self.holding[need.card] = need
            state = RevealState(need, owers, held_by=held_by, public=public)
            self.reveals[need] = state
            self.pending[need] = None
        return state

    def ciphertext(self, card: CardKey) -> Ciphertext:
        b, deck, pos = card
        outputs = self.batches[b].outputs
        assert outputs is not None
        return outputs[deck][pos]

    def owed_by(self, seat: int) -> list[RevealNeed]:
        """The pending reveals ``seat`` still owes a share for, in the order they were asked;
        a card's reveal to all by its holder only once the holder has it (its reveal to the
        holder is complete: the sealed shares it opens are in the log)."""
        owed = []
        for n in self.pending:
            state = self.reveals[n]
            if seat in state.owers and seat not in state.shares and (state.held_by is None or state.held_by not in self.pending):
                owed.append(n)
        return owed

    def public_face(self, need: RevealNeed) -> Card | None:
        """A card shown to all whose shares are all in, even if the engine has not asked again."""
        state = self.reveals.get(need)
        if state is None or need.audience is not None or not state.complete(self.players):
            return None
        try:
            return self._decrypt_public(state)
        except UnknownCard:
            return None

    def _decrypt_public(self, state: RevealState) -> Card:
        _, m = self.ciphertext(state.need.card)
        for seat in range(self.players):
            m = sub(m, state.shares[seat])
        return self._face(state.need.card, m)

    def _face(self, card: CardKey, point: Point) -> Card:
        b, deck, _ = card
        face = self.batches[b].faces[deck].get(point)
        if face is None:
            raise UnknownCard(f"card {card} decrypts to no card of the {deck.value} deck")
        return face

    def complete_private(self, need: RevealNeed, opened: dict[int, Point]) -> None:
        """All sealed shares of a to-some reveal are in; the recipient decrypts."""
        self.pending.pop(need, None)
        assert need.audience is not None
        self.knowers.setdefault(need.card, set()).update(need.audience)
        if self.seat is not None and self.seat in need.audience and self.secret is not None:
            self.open_private(need, opened)

    def open_private(self, need: RevealNeed, opened: dict[int, Point]) -> None:
        """This seat, in the audience of a to-some reveal, decrypts the card with every ower's
        share (from the log, or sent ahead of it: §12.6); the schedule is not touched, so a
        seat may learn its card before the log completes the reveal.  A point that is no card
        raises UnknownCard."""
        assert self.secret is not None
        if need.card in self.my_faces:
            return
        c1, c2 = self.ciphertext(need.card)
        m = sub(c2, mul(self.secret, c1))
        for point in opened.values():
            m = sub(m, point)
        face = self._face(need.card, m)
        self.my_faces[need.card] = face
        self.learned.append((*self._handle_of(need.card), face))

    def _handle_of(self, card: CardKey) -> tuple[Deck, int]:
        _, deck, pos = card
        if deck is Deck.GOLD:
            return deck, self.gold_handles[card]
        return deck, pos

    def set_keys(self, keys: Sequence[Point]) -> None:
        self.keys = list(keys)
        joint = keys[0]
        for key in keys[1:]:
            joint = add(joint, key)
        self.joint = joint

def refusal(error: Exception, sender: int) -> ProtocolViolation:
    """The violation a record that raised ``error`` while being taken in shows."""
    if isinstance(error, ProtocolViolation):
        return error
    if isinstance(error, UnknownCard):
        # every share was proven: a shuffle was false, not this record, and whichever
        # record completed the card would be named by the order it came in
        return ProtocolViolation(-1, "bad-deck", str(error))
    return ProtocolViolation(sender, "bad-message", str(error))


def last_batch(needs: Iterable[RevealNeed]) -> int:
    """The highest batch of these cards (-1 for none): the batches whose checks their shares wait for."""
    return max((need.card[0] for need in needs), default=-1)
