"""One shuffle batch as the session runs it: the decks each shuffler takes in and puts out,
the challenge values, and the check of a shuffler's proof (to run at once or later)."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..crypto.group import Point
from ..crypto.shuffle import Ciphertext, ShuffleProofError, verify_shuffle
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
