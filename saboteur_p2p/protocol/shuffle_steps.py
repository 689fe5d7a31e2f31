"""A node's part in the shuffles (protocol.md §5.6.2): making its own, planning them while it
waits, taking in the others' and checking them now, after its own, or in the background for
a batch opened ahead."""
from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..crypto.group import InvalidPoint, RandomBytes
from ..crypto.log import Entry, decode_record
from ..crypto.shuffle_proof import ShufflePlan
from ..rules import State
from .ahead import AheadBatches, with_evidence
from .dealer import MentalDealer
from .errors import ProtocolViolation
from .messages import Shuffle
from .setup import GameSetup
from .shares import ShareBook
from .shuffles import ShufflePlans, ShuffleRun, make_shuffle, read_shuffle

if TYPE_CHECKING:
    from .node import Expect


class ShuffleSteps:
    """The shuffle steps of ``Node`` (a part of it: it holds these attributes), and the checks
    of records taken in that it leaves for later (``earlier_failure``, ``pending_failure``)."""

    setup: GameSetup
    players: int
    seat: int | None
    rand: RandomBytes
    dealer: MentalDealer
    aborted: ProtocolViolation | None
    finished: bool
    state: State | None
    shuffles: dict[int, ShuffleRun]
    #: shuffles this seat makes ahead of their input decks (``prepare``)
    plans: ShufflePlans
    #: shuffle proofs this seat checks later: the next shuffler first sends its own
    #: shuffle, so checking does not lengthen the chain of shuffles.
    deferred_checks: list[Callable[[], None]]
    #: the next round's batch, shuffled between this round's moves (§5.6.2)
    ahead: AheadBatches
    share_book: ShareBook
    #: the records taken in, in order
    records: list[bytes]

    def _make_shuffle(self, head: Expect) -> dict[str, Any]:
        assert self.seat is not None
        batch = head.topic[0]
        try:
            made = self.ahead.made(batch) if batch in self.ahead.shufflers else None
            if made is None:
                made = make_shuffle(self.shuffles[batch], self.setup.game_id, self.seat, self.plans, self.rand)
            return made.encode()
        except InvalidPoint:
            # our input, the shuffle before ours, is not checked yet (§5.6.2): it holds a
            # point outside the group, and its check names its shuffler
            self._run_deferred_checks()
            self._stopping_on(self.ahead.finish)
            raise

    def _make_before_our_turn(self) -> None:
        """Make our shuffle of the batch opened ahead while our move is being chosen, when
        its input is in and we move next: it goes out right after our move, made already.
        Only with fresh randomness (a seeded source for tests is drawn from by one thread)."""
        state = self.state
        if self.seat is None or self.rand is not secrets.token_bytes or state is None or state.current != self.seat:
            return
        batch = self.ahead.due_from(self.seat)
        if batch is None:
            return
        run = self.shuffles[batch]
        ours = ShuffleRun.starting(run.need, run.inputs)
        handed: dict[int, list[ShufflePlan]] = {}  # the plans made while waiting, each used once
        for cards in run.inputs.values():
            spare = self.plans.ready.get(len(cards))
            if cards and spare:
                handed.setdefault(len(cards), []).append(spare.pop())
        game_id, seat, plans = self.setup.game_id, self.seat, ShufflePlans(joint=self.plans.joint, ready=handed)
        self.ahead.make_later(batch, lambda: make_shuffle(ours, game_id, seat, plans, secrets.token_bytes))

    def prepare(self) -> bool:
        """Do one piece of work ahead of need, while the seat waits: check a share of a card
        the seat before us holds (about 0.25 ms; ``ShareBook.precheck``: when that seat plays
        the card, our turn comes next and would wait for the check), or plan a shuffle of a
        deck this seat will shuffle (in a queued batch, or else in one like the last; about
        1.5 ms, eight cards of a plan).  False when there is nothing to do."""
        if self.seat is None or self.aborted is not None or self.finished:
            return False
        book = self.share_book
        if book.check_later is not None and book.precheck((self.seat - 1) % self.players):
            return True
        sizes = [len(cards) for run in self.shuffles.values() for cards in run.inputs.values()]
        return self.plans.prepare_one(sizes, self.rand)

    def _on_shuffle(self, entry: Entry, head: Expect) -> None:
        message = Shuffle.decode(entry.body)
        run = self.shuffles[head.topic[0]]
        shuffler = entry.sender
        own = shuffler == self.seat  # our own output and proof need no checking
        outputs, check = read_shuffle(run, message, shuffler, own, self.setup.game_id, self.dealer.joint)
        batch = run.need.batch
        ahead = batch in self.ahead.shufflers
        complete = self.ahead.shuffled(batch, shuffler) if ahead else shuffler == self.players - 1
        if not own:
            if ahead and self.seat is not None:
                self.ahead.check_later(check, entry.record, batch)  # in the background, between the turns
            elif self.seat is not None and self.seat == shuffler + 1:
                # checked once our own shuffle has gone out (run_deferred_checks), so that
                # checking does not lengthen the chain of shuffles (protocol.md 5.6.2); what
                # it finds names the record, as a check in the background does
                record = entry.record
                self.deferred_checks.append(lambda: with_evidence(check, record))
            else:
                check()
            if complete:
                self._run_deferred_checks()
        run.inputs = outputs
        if ahead and (own or complete):
            self.ahead.forget_made(batch)
        if complete:
            self.dealer.batches[batch].outputs = outputs
            del self.shuffles[batch]
            self.plans.wanted = [len(cards) for cards in outputs.values()]
        elif ahead:
            self._make_before_our_turn()

    def run_deferred_checks(self) -> None:
        """Check now the shuffle proofs kept for later (raises ProtocolViolation), and say
        what the background checks have found so far: the session calls it once each record
        of ours has gone out; ``produce`` (but for a shuffle) and ``move`` call it before
        they make anything."""
        self._run_deferred_checks()
        found = self.ahead_failure()
        if found is not None:
            raise found

    def ahead_failure(self) -> ProtocolViolation | None:
        """A violation the background checks have found so far (it also stops this node)."""
        found = None if self.aborted is not None else self.ahead.failure()
        if found is not None:
            self.aborted = found
        return found

    def finish_checks(self) -> None:
        """Every check kept for later, the background ones waited for (before judging
        another seat's accusation: its evidence may be a shuffle not checked yet)."""
        found = self.earlier_failure()
        if found is not None:
            self.aborted = found
            raise found

    def earlier_failure(self) -> ProtocolViolation | None:
        """What a check of an earlier record still pending finds (the shuffle proof this seat
        checks once its own shuffle is out, and the checks in the background, waited for):
        it, not what a later record (or anything else) shows, stops the game, as it stops a
        seat that checks at once (a card opened with a false share can make a true move look
        false), and it outweighs any other way the game ends (an abort naming another seat,
        a ``bye``, a ``gone`` its cheater sends right after a false shuffle hid it: an attack).
        The violation carries the record it was found in as its evidence."""
        try:
            self._run_deferred_checks()
            self.ahead.finish()
        except ProtocolViolation as violation:
            return violation
        return None

    def pending_failure(self, known: ProtocolViolation | None = None, shares: bool = True) -> ProtocolViolation | None:
        """Every check this seat left for later, made now: ``earlier_failure``'s, and (unless
        not ``shares``) the shares it checks only when their card is shown to all
        (``ShareBook.failing_senders``, §8.3); of those and ``known`` (a violation found
        meanwhile), the one of the earliest record at fault, with that record as evidence.
        What a seat whose game ends (a cheat named, a seat gone or left) judges first, so that
        its verdict agrees with its log as ``verify`` reads it (protocol.md §12.5).

        A shuffle's violation carries its own record; a share's found at its card's showing
        carries the showing, and the record it came in is found here (``recheck``), so a
        later false share is not named over it (found by review)."""
        defect: Exception | None = None
        try:
            found = self.earlier_failure()
        except Exception as error:  # a defect of ours: the shares are still checked, then it is raised
            found, defect = None, error
        candidates = [v for v in (found, known) if v is not None]
        records = self.records
        placed = [(records.index(v.evidence), v) for v in candidates if v.evidence is not None and v.evidence in records]
        if shares:
            try:
                failing = self.share_book.failing_senders() | {v.peer for v in candidates}
            except Exception:
                if found is not None:
                    return found  # what the checks before found stands (a defect here is the caller's to say)
                raise
            end = min((index for index, _ in placed), default=len(records))
            for record in records[:end]:
                if decode_record(record).sender in failing:
                    violation = self.share_book.recheck(record)  # judged as ``take`` judges the record
                    if violation is not None:
                        violation.evidence = record
                        return violation
        if defect is not None:
            raise defect
        if placed:
            return min(placed, key=lambda each: each[0])[1]
        return found or known

    def _run_deferred_checks(self) -> None:
        while self.deferred_checks:
            self._stopping_on(self.deferred_checks.pop(0))

    def _stopping_on(self, check: Callable[[], None]) -> None:
        """Run ``check``; a violation it raises stops this node."""
        try:
            check()
        except ProtocolViolation as violation:
            self.aborted = violation
            raise


__all__ = ["ShuffleSteps"]
