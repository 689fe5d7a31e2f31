"""The dealer: the only way the engine learns a hidden card's face.

Cards are referred to by handles, positions in a shuffled deck.  The engine asks the dealer
to shuffle a deck at the start of a round and to reveal a card when the rules show it to
someone.  ``reveal`` returns the face when the engine instance it serves may see it, and
None otherwise.  An in-process trusted dealer serves an omniscient engine and always
answers; the network's mental-poker dealer serves one seat and answers only for what that
seat is shown.  The engine never needs to know which kind it has.
"""
from __future__ import annotations

import enum
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, TypeVar

from .cards import Card, face_from_code


class Deck(enum.Enum):
    __hash__ = object.__hash__  # members are singletons; Enum's own hash is slow Python
    ROLES = "roles"
    GOALS = "goals"
    DRAW = "draw"
    GOLD = "gold"

    def __repr__(self) -> str:
        """Its name as the protocol writes it: a card key in a verdict reads (0, 'draw', 12),
        not (0, <Deck.DRAW: 'draw'>, 12) (found by an attack)."""
        return repr(self.value)


#: the draw deck, read once for the card shown at every move (as phases.py's PLAY)
DRAW = Deck.DRAW

#: ``to=None`` means every player.
Audience = frozenset[int] | None


class Dealer(Protocol):
    def shuffle(self, fresh: Mapping[Deck, Sequence[Card]], again: Mapping[Deck, Sequence[int]]) -> dict[Deck, list[int]]:
        """Shuffle new decks from these public faces (their handles are 0..len-1), and shuffle
        again the named cards of existing decks, all at once.

        Returns the gold handles: those of a fresh gold deck, or of the reshuffled gold
        pile in its new order (a dealer may give reshuffled cards new handles).
        """

    def shuffle_ahead(self, fresh: Mapping[Deck, Sequence[Card]]) -> None:
        """The next ``shuffle`` call will ask for these fresh decks (and for no deck again):
        a dealer may shuffle them while the round is played.  Never blocks, returns nothing."""

    def reveal(self, deck: Deck, handle: int, to: Audience) -> Card | None:
        """Show a card to ``to``; the face if this engine may see it, else None."""

    def reveal_many(self, deck: Deck, handles: Sequence[int]) -> list[Card]:
        """Show these cards to everyone at once (roles at a round's end, gold at the game's)."""

    def public_random(self, n: int) -> int:
        """A public random choice in range(n) that no player could bias."""


#: The one kind of card a deck holds: RoleCard, PathCard (goals) or GoldCard.
FaceT = TypeVar("FaceT", bound=Card)


def reveal_as(dealer: Dealer, kind: type[FaceT], deck: Deck, handle: int, to: Audience) -> FaceT | None:
    """``dealer.reveal`` for a deck of one kind of card: the face as a ``kind``, or None when
    this engine may not see it.  A face of any other kind means a broken dealer: ValueError."""
    face = dealer.reveal(deck, handle, to)
    if face is None or isinstance(face, kind):
        return face
    raise _wrong_kind(face, kind, deck)


def reveal_all_as(dealer: Dealer, kind: type[FaceT], deck: Deck, handles: Sequence[int]) -> list[FaceT]:
    """``dealer.reveal_many`` for a deck of one kind of card, checked as ``reveal_as`` is."""
    faces: list[FaceT] = []
    for face in dealer.reveal_many(deck, handles):
        if not isinstance(face, kind):
            raise _wrong_kind(face, kind, deck)
        faces.append(face)
    return faces


def _wrong_kind(face: Card, kind: type[FaceT], deck: Deck) -> ValueError:
    return ValueError(f"the dealer showed {face.code} from the {deck.value} deck, where every card is a {kind.__name__}")


class TrustedDealer:
    """An in-process dealer from a seeded ``random.Random``: for bots and tests.

    The fresh decks of every round come from one generator (``rng``) and the shuffles of
    cards already dealt (the gold pile reshuffled between rounds) from another (``again``):
    how many gold cards are left depends on how the rounds were played, and drawn from one
    generator, that shuffle moved every later round's deal, so two games of a paired
    tournament (the same seed, other bots) were dealt alike only until then (found by a bot
    author).  A round's fresh decks depend on the seed and the round alone.
    """

    def __init__(self, seed: int | str | None = 0) -> None:
        self.rng = random.Random(seed)
        self.again = random.Random(None if seed is None else f"again:{seed}")
        self.decks: dict[Deck, list[Card]] = {}

    def shuffle(self, fresh: Mapping[Deck, Sequence[Card]], again: Mapping[Deck, Sequence[int]]) -> dict[Deck, list[int]]:
        handles: dict[Deck, list[int]] = {}
        for deck, cards in fresh.items():
            shuffled = list(cards)
            self.rng.shuffle(shuffled)
            self.decks[deck] = shuffled
            handles[deck] = list(range(len(shuffled)))
        for deck, kept in again.items():
            order = list(kept)
            self.again.shuffle(order)
            handles[deck] = order
        return handles

    def shuffle_ahead(self, fresh: Mapping[Deck, Sequence[Card]]) -> None:
        """Nothing to do ahead: ``shuffle`` is instant here."""

    def reveal(self, deck: Deck, handle: int, to: Audience) -> Card:
        return self.decks[deck][handle]

    def reveal_many(self, deck: Deck, handles: Sequence[int]) -> list[Card]:
        return [self.reveal(deck, h, None) for h in handles]

    def public_random(self, n: int) -> int:
        return self.rng.randrange(n)

    def clone(self) -> TrustedDealer:
        other = TrustedDealer.__new__(TrustedDealer)
        other.rng, other.again = copied_generator(self.rng), copied_generator(self.again)
        other.decks = {deck: list(cards) for deck, cards in self.decks.items()}
        return other

    def to_data(self) -> dict[str, Any]:
        return {
            "kind": "trusted",
            "rng": _state_data(self.rng),
            "again": _state_data(self.again),
            "decks": {deck.value: [card.code for card in cards] for deck, cards in self.decks.items()},
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> TrustedDealer:
        dealer = cls()
        for generator, state in ((dealer.rng, data["rng"]), (dealer.again, data["again"])):
            version, internal, gauss = state
            generator.setstate((version, tuple(internal), gauss))
        dealer.decks = {Deck(name): [face_from_code(code) for code in codes] for name, codes in data["decks"].items()}
        return dealer


def copied_generator(generator: random.Random) -> random.Random:
    """A generator that goes on as ``generator`` would, apart from it."""
    copy = random.Random()
    copy.setstate(generator.getstate())
    return copy


def _state_data(generator: random.Random) -> list[Any]:
    """A generator's state as plain data (``from_data`` reads it back)."""
    version, internal, gauss = generator.getstate()
    return [version, list(internal), gauss]
