"""One shuffle batch as the session runs it: the decks each shuffler takes in and puts out,
the making and the check of a shuffler's record, and the shuffles a seat plans ahead."""
from __future__ import annotations

from collections.abc import Callable, Generator
from dataclasses import dataclass, field
from typing import Any

from ..crypto.group import InvalidPoint, Point, RandomBytes, hash_bytes
from ..crypto.shuffle import Ciphertext, ShuffleProofError, check_deck
from ..crypto.shuffle_proof import (
    ShufflePlan,
    ShuffleProof,
    apply_plan,
    invalid_point,
    plan_shuffle,
    plan_shuffle_in_steps,
    prove_shuffle,
    verify_shuffle_proof,
)
from ..rules.dealer import Deck
from .dealer import ShuffleNeed
from .errors import ProtocolViolation
from .messages import Shuffle

#: Plans a seat keeps ready per deck size: one batch never shuffles more than two decks of
#: one size (base game: the goal deck and, some rounds, a three-card gold deck).
PLANS_PER_SIZE = 2


@dataclass
class ShuffleRun:
    need: ShuffleNeed
    decks: list[Deck]
    #: the decks the next shuffler takes in: the batch's inputs, then each shuffler's output
    inputs: dict[Deck, list[Ciphertext]]

    @classmethod
    def starting(cls, need: ShuffleNeed, inputs: dict[Deck, list[Ciphertext]]) -> ShuffleRun:
        """A run of a batch whose next shuffler takes in ``inputs`` (copied: the run moves on)."""
        return cls(need, list(inputs), dict(inputs))


def shuffle_context(game_id: bytes, batch: int, shuffler: int, deck: Deck) -> bytes:
    """What a shuffle proof is bound to besides its decks and the joint key (§6.5)."""
    return hash_bytes("shuffle-context", game_id, batch, shuffler, deck.value)


@dataclass
class ShufflePlans:
    """Shuffles made ahead of their input deck (permutation, pads, permutation commitment):
    a seat makes them while it waits, so that its turn in the chain of shuffles costs only
    applying and proving.  Secret: they never leave the seat."""

    joint: Point | None = None
    ready: dict[int, list[ShufflePlan]] = field(default_factory=dict)
    #: deck sizes to keep plans for: the last batch's, for the next round
    wanted: list[int] = field(default_factory=list)
    #: the plan being made a step at a time, and its deck size
    making: tuple[int, Generator[None, None, ShufflePlan]] | None = None

    def take(self, n: int, rand: RandomBytes) -> ShufflePlan:
        assert self.joint is not None
        if not self.ready.get(n) and self.making is not None and self.making[0] == n:
            while self.making is not None:
                self._step()  # half made: finish it
        plans = self.ready.get(n)
        plan = plans.pop() if plans else plan_shuffle(n, self.joint, rand)
        assert plan.joint == self.joint
        return plan

    def prepare_one(self, sizes: list[int], rand: RandomBytes) -> bool:
        """One step (about 1.5 ms) of making a plan that ``sizes`` (or, with none, ``wanted``)
        lacks; False when none lacks."""
        if self.joint is None:
            return False
        if self.making is None:
            missing = _missing(sizes or self.wanted, self.ready)
            if missing is None:
                return False
            self.making = (missing, plan_shuffle_in_steps(missing, self.joint, rand))
        self._step()
        return True

    def _step(self) -> None:
        assert self.making is not None
        n, steps = self.making
        try:
            next(steps)
        except StopIteration as done:
            self.ready.setdefault(n, []).append(done.value)
            self.making = None


def _missing(sizes: list[int], ready: dict[int, list[ShufflePlan]]) -> int | None:
    counts: dict[int, int] = {}
    for n in sizes:
        if n:  # an empty deck is shuffled without a plan
            counts[n] = counts.get(n, 0) + 1
    return next((n for n, k in counts.items() if len(ready.get(n, ())) < min(k, PLANS_PER_SIZE)), None)


def make_shuffle(run: ShuffleRun, game_id: bytes, shuffler: int, plans: ShufflePlans, rand: RandomBytes) -> Shuffle:
    """This seat's shuffle of each of the batch's decks, each with its proof."""
    decks: list[tuple[Deck, list[Ciphertext], dict[str, Any]]] = []
    for deck in run.decks:
        inputs = run.inputs[deck]
        if not inputs:
            decks.append((deck, [], {}))  # nothing to hide in an empty deck (§6.6)
            continue
        plan = plans.take(len(inputs), rand)
        outputs = apply_plan(plan, inputs)
        proof = prove_shuffle(plan, shuffle_context(game_id, run.need.batch, shuffler, deck), inputs, outputs, rand)
        decks.append((deck, outputs, proof.to_data()))
    return Shuffle(tuple(decks))


def read_shuffle(
    run: ShuffleRun, message: Shuffle, shuffler: int, own: bool, game_id: bytes, joint: Point | None,
) -> tuple[dict[Deck, list[Ciphertext]], Callable[[], None]]:
    """The shuffler's output decks (their shape and points checked) and the check of its
    proofs, to run now or later; raises ProtocolViolation naming the shuffler."""
    assert joint is not None
    if [d for d, _, _ in message.decks] != run.decks:
        raise ProtocolViolation(shuffler, "bad-shuffle", f"expected decks {[d.value for d in run.decks]}")
    outputs: dict[Deck, list[Ciphertext]] = {}
    proofs: dict[Deck, ShuffleProof] = {}
    for deck, cards, data in message.decks:
        n = len(run.inputs[deck])
        if n == 0:
            if cards or data:
                raise ProtocolViolation(shuffler, "bad-message", f"{deck.value}: an empty deck's output and proof are empty")
            outputs[deck] = []
            continue
        try:
            # shape only: the proof's check multiplies every point, which checks it (§6.7)
            outputs[deck] = check_deck(cards, n, f"{deck.value} deck", points=False)
            proofs[deck] = ShuffleProof.from_data(data, n, points=False)
        except (ShuffleProofError, InvalidPoint) as exc:
            raise ProtocolViolation(shuffler, "bad-message", f"{deck.value}: {exc}") from None
    inputs = dict(run.inputs)

    def check() -> None:
        for deck in proofs:
            context = shuffle_context(game_id, run.need.batch, shuffler, deck)
            try:
                verify_shuffle_proof(context, joint, inputs[deck], outputs[deck], proofs[deck])
            except ShuffleProofError as exc:
                for each in proofs:  # an invalid point anywhere makes the record malformed
                    invalid = invalid_point(outputs[each], proofs[each], f"{each.value} deck")
                    if invalid is not None:
                        raise ProtocolViolation(shuffler, "bad-message", f"{each.value}: {invalid}") from None
                raise ProtocolViolation(shuffler, "bad-shuffle-proof", f"{deck.value}: {exc}") from None

    return outputs, check


__all__ = ["ShufflePlans", "ShuffleRun", "make_shuffle", "read_shuffle", "shuffle_context"]
