"""One shuffle batch as the session runs it: the decks each shuffler takes in and puts out,
the challenge values, and the check of a shuffler's proof (to run at once or later)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..crypto.group import Point, hash_bytes
from ..crypto.shuffle import Ciphertext, ShuffleProofError, challenge_bits, deck_digest, verify_shuffle
from ..rules.dealer import Deck
from .dealer import ShuffleNeed
from .errors import ProtocolViolation
from .messages import Open


@dataclass
class ShuffleRun:
    need: ShuffleNeed
    decks: list[Deck]
    commitments: dict[int, tuple[bytes, ...]]
    inputs: dict[Deck, list[Ciphertext]]
    outputs: dict[Deck, list[Ciphertext]] | None = None
    shadows: dict[Deck, list[list[Ciphertext]]] | None = None
    values: dict[int, bytes] | None = None

    def challenge(self, game_id: bytes, shuffler: int, rounds: int) -> list[int]:
        """The challenge bits for ``shuffler``'s proof: from the coin of the other seats'
        revealed values and a digest of everything the shuffler published (§6.6)."""
        assert self.values is not None and self.outputs is not None and self.shadows is not None
        values = (self.values[s] for s in sorted(self.values))
        coin = hash_bytes("shuffle-coin", game_id, self.need.batch, shuffler, *values)
        statement = deck_digest(
            *(self.inputs[d] for d in self.decks),
            *(self.outputs[d] for d in self.decks),
            *(s for d in self.decks for s in self.shadows[d]),
        )
        return challenge_bits(coin, statement, rounds)


def shuffle_check(
    shuffler: int,
    inputs: dict[Deck, list[Ciphertext]],
    outputs: dict[Deck, list[Ciphertext]],
    shadows: dict[Deck, list[list[Ciphertext]]],
    bits: list[int],
    message: Open,
    joint: Point | None,
) -> Callable[[], None]:
    """The check of one shuffler's proof, to run now or later."""
    assert joint is not None

    def check() -> None:
        for deck, openings in message.openings:
            try:
                verify_shuffle(inputs[deck], outputs[deck], shadows[deck], bits, openings, joint)
            except ShuffleProofError as exc:
                raise ProtocolViolation(shuffler, "bad-shuffle-proof", f"{deck.value}: {exc}") from None

    return check


__all__ = ["ShuffleRun", "shuffle_check"]
