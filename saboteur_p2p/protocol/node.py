"""A seat's (or a spectator's) game session, sans I/O: signed records in, signed records out.

The session is one hash chain of signed records.  At every point the log so far fixes
the next *step*: one record from one seat, or a group of records from several seats that
do not depend on each other (key shares, commitments, reveals, the shares a move needs),
made at once and taken in whatever order they come.  So every peer knows who is to speak
and what to check.  A node never touches a socket: ``receive``
takes a record from anyone (itself included), ``produce`` returns this seat's next record
when it is its turn to speak.

What is expected next comes from the rules engine.  The node runs the engine on a copy of
its state; when the engine needs the peers (a shuffle, a coin, a public reveal: see
dealer.py), the copy is dropped, the protocol step is queued, and once it is done the
engine runs again.  When the engine completes, the node commits the copy and expects the
next move, after a round of sealed shares if the player to move is still owed cards.
"""
from __future__ import annotations

import bisect
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..crypto.commit import check_reveal, commit, random_below
from ..crypto.group import InvalidPoint, Point, RandomBytes, Scalar, base_mul, check_point, hash_bytes, random_scalar
from ..crypto.identity import Identity
from ..crypto.log import Entry, LogVerifier, LogViolation, LogWriter, MalformedRecord, decode_record, make_entry
from ..crypto.proofs import Context, prove_key, verify_key
from ..crypto.shuffle import ShuffleProofError
from ..rules import GameConfig, IllegalActionError, InvalidActionError, State
from ..rules.actions import TakeGold, parse_action
from ..rules.dealer import Deck
from .ahead import AheadBatches, mover_in_play
from .dealer import Blocked, CoinNeed, MentalDealer, RevealNeed, ShuffleNeed, UnknownCard, last_batch, refusal
from .errors import IllegalMove, ProtocolViolation, SecretsLost
from .messages import (
    ActionMsg,
    Commit,
    Genesis,
    KeyShare,
    MalformedMessage,
    Reveal,
    Shares,
)
from .setup import GameSetup
from .shares import ShareBook
from .shuffle_steps import ShuffleSteps
from .shuffles import ShufflePlans, ShuffleRun

NEW_GAME = "new-game"


def _nothing() -> None:
    """Nothing to put back (``Node._as_a_spectator``)."""


@dataclass(frozen=True)
class Expect:
    speaker: int
    kind: str
    topic: tuple[Any, ...] = ()


class Node(ShuffleSteps):
    def __init__(
        self,
        setup: GameSetup,
        seat: int | None,
        identity: Identity | None = None,
        rand: RandomBytes = secrets.token_bytes,
        verify_all: bool | None = None,
    ) -> None:
        n = setup.config.players
        if len(setup.seats) != n or len(setup.names) != n:
            raise ValueError(f"a {n}-player game needs {n} seats and names")
        if seat is not None and identity is None:
            raise ValueError("a seated node needs its identity")
        self.setup = setup
        self.players = n
        self.seat = seat
        self.identity = identity
        self.rand = rand
        #: Check the shares of reveals to other seats (sealed, or public for a first reveal)
        #: when they come.  A seat need not: the recipient checks its own and names a cheater
        #: with the signed record as evidence, which anyone can check, and a public one is
        #: checked when its card is shown.  Spectators and `verify` check everything at once.
        self.verify_all = seat is None if verify_all is None else verify_all
        self.secret: Scalar | None = random_scalar(rand) if seat is not None else None
        self.dealer = MentalDealer(setup.game_id, n, seat, self.secret)
        self.log = LogVerifier(setup.game_id, dict(enumerate(setup.seats)))
        self.records: list[bytes] = []
        #: the steps to come: each a record from one seat, or a group from several (any order)
        self.expect: deque[tuple[Expect, ...]] = deque([(Expect(0, "genesis"),)])
        #: the entry hashes of the current step's records taken in so far, by speaker
        self.step_got: dict[int, bytes] = {}
        #: where each step's records begin in ``records`` (the last: the current step's)
        self.step_starts: list[int] = [0]
        self.state: State | None = None
        self.work: str | None = None
        self.work_player: int | None = None
        self.keys: dict[int, Point] = {}
        self.share_book = ShareBook(setup.game_id, self.dealer, self.keys, seat)
        self.coin_commitments: dict[int, dict[int, bytes]] = {}
        self.coin_values: dict[int, dict[int, bytes]] = {}
        self.my_coin: dict[int, tuple[bytes, bytes]] = {}
        # the shuffle steps' own (ShuffleSteps says what each is)
        self.shuffles = {}
        self.plans = ShufflePlans()
        self.deferred_checks = []
        self.ahead = AheadBatches(n)
        if seat is not None and not self.verify_all:
            self.share_book.check_later = self._check_share_later
        #: the record being taken in (the evidence of a check it leaves for the background), and its sender
        self._taking, self._taking_from = b"", -1
        #: shares the mover sent with its move, kept until the move blocks on a reveal
        self.early_shares: Shares | None = None
        #: the record of the move at work, when it carried shares
        self.work_record: bytes | None = None
        #: seconds the last record took to make (signing included, taking it in excluded)
        self.last_make_seconds = 0.0
        self.aborted: ProtocolViolation | None = None
        self.finished = False
        self.on_commit: Callable[[State], None] | None = None
        #: called with the committed state when a logged share round shows this seat a card
        #: (its hand at a round's start, a card drawn): the state changed without a commit
        self.on_learn: Callable[[State], None] | None = None
        #: where accepted records are appended as they come (fsync'd at round boundaries; the
        #: session syncs it too before each record of ours goes out)
        self.writer: LogWriter | None = None

    # -- whose turn to speak --------------------------------------------------------------

    @property
    def outstanding(self) -> tuple[Expect, ...]:
        """The records of the current step not taken in yet, in the step's order."""
        if not self.expect:
            return ()
        return tuple(e for e in self.expect[0] if e.speaker not in self.step_got)

    @property
    def next_expected(self) -> Expect | None:
        """The first record of the current step not taken in yet."""
        waiting = self.outstanding
        return waiting[0] if waiting else None

    def step_start(self, count: int) -> int:
        """Where the step holding record number ``count`` (0-based) begins: a peer holding
        ``count`` records may hold any of that step's, in any order."""
        return self.step_starts[bisect.bisect_right(self.step_starts, count) - 1]

    def my_expect(self) -> Expect | None:
        """The record this seat owes in the current step, if any (and the game runs)."""
        if self.aborted is not None or self.seat is None:
            return None
        return next((e for e in self.outstanding if e.speaker == self.seat), None)

    @property
    def seq(self) -> int:
        """The seq of our next record: our records in the log (one may have come from a peer)."""
        return self.log.next_seq(self.seat) if self.seat is not None else 0

    def my_turn_to_speak(self) -> bool:
        return self.my_expect() is not None

    def awaiting_move(self) -> bool:
        """True when this seat must choose a move (``move``); other records come from ``produce``."""
        mine = self.my_expect()
        return mine is not None and mine.kind == "action"

    # -- producing -----------------------------------------------------------------------

    def produce(self) -> bytes | None:
        """This seat's next record, when it is its turn and no move is to be chosen."""
        if not self.my_turn_to_speak() or self.awaiting_move():
            return None
        head = self.my_expect()
        assert head is not None
        if head.kind != "shuffle":
            self._run_deferred_checks()  # nothing of a batch goes out before its proofs are checked
        self._making_since = time.perf_counter()
        body = getattr(self, f"_make_{head.kind}")(head)
        return self._send(head.kind, body)

    def move(self, action: str) -> bytes:
        """This seat's move, as action text; it is checked when the record comes back in.

        An action card named without its handle ("map 1") goes out with the handle the
        engine picks from this seat's hand: the other seats cannot see the hand, so they
        could not pick it, and would refuse the move.
        """
        if not self.awaiting_move():
            raise RuntimeError("it is not this seat's move")
        assert self.state is not None
        self._run_deferred_checks()
        self._making_since = time.perf_counter()
        try:
            text = str(self.state.check(action, player=self.seat))
        except (IllegalActionError, InvalidActionError) as exc:
            raise IllegalMove(str(exc)) from exc
        return self._send("action", ActionMsg(text, self._shares_with_move(text)).encode())

    def _shares_with_move(self, text: str) -> Shares | None:
        """The shares this seat owes once its move is applied (or blocks on a public reveal),
        sent with the move itself, with the other seats' shares of the cards it shows to all
        that it can open: the card is open with the move, and the cards drawn since this
        seat's last turn get its sealed shares on the way."""
        assert self.state is not None and self.seat is not None
        self.dealer.begin_attempt()
        try:
            self.state.clone().play(text, player=self.seat)
        except Blocked as blocked:
            need = blocked.need
            if not (isinstance(need, RevealNeed) and need.audience is None):
                return None  # a coin or a shuffle first: the shares wait for a round of their own
        owed = self.dealer.owed_by(self.seat)
        return self._shares_for(tuple(owed)) if owed else None

    def _send(self, kind: str, body: dict[str, Any]) -> bytes:
        assert self.identity is not None and self.seat is not None
        entry = make_entry(self.identity, self.setup.game_id, self.seat, self.seq, self.log.head, kind, body)
        record = entry.record
        self.last_make_seconds = time.perf_counter() - self._making_since
        self.receive(record, entry)
        return record

    def _make_genesis(self, head: Expect) -> dict[str, Any]:
        return self.setup.genesis().encode()

    def _make_key(self, head: Expect) -> dict[str, Any]:
        assert self.secret is not None and self.seat is not None
        X = base_mul(self.secret)
        return KeyShare(X, prove_key(self.secret, X, self._ctx("key", "", self.seat), self.rand)).encode()

    def _make_commit(self, head: Expect) -> dict[str, Any]:
        value = self.rand(32)
        commitment, nonce = commit(value, *self.commit_context(head.topic))
        self.my_coin[head.topic[1]] = (value, nonce)
        return Commit((commitment,)).encode()

    def _make_reveal(self, head: Expect) -> dict[str, Any]:
        coin = self.my_coin.get(head.topic[1])
        if coin is None:  # a KeyError named a defect of ours (found by an attack)
            raise SecretsLost(f"this seat's saved secrets lack coin {head.topic[1]}, which it committed to: lost on this "
                              "machine (a power loss, or secrets restored from an older copy), so it cannot reveal it")
        return Reveal((coin,)).encode()

    def _make_shares(self, head: Expect) -> dict[str, Any]:
        return self._shares_for(head.topic).encode()

    def _shares_for(self, needs: tuple[RevealNeed, ...]) -> Shares:
        assert self.secret is not None and self.seat is not None
        # no share of a card of a batch whose shuffles are not checked (§5.6.2), nor any
        # share while one published for a card shown to all is unchecked (§8.3)
        last = last_batch(needs)
        self._stopping_on(lambda: self.ahead.finish(last))
        return self.share_book.make(self.seat, self.secret, needs, self.rand)

    def make_ahead(self) -> dict[int, Shares]:
        """The shares this seat will owe for cards just shown to some seats, by recipient, to
        send them at once (unlogged, §12.6): a card drawn or a goal mapped reaches its seat
        with the move, not only when each other seat has moved."""
        if self.seat is None or self.secret is None or self.aborted is not None or self.finished:
            return {}
        if not self.ahead.settled(last_batch(self.dealer.owed_by(self.seat))):
            return {}  # checks still under way: the shares wait for the record that owes them
        return self.share_book.make_ahead(self.seat, self.secret, self.rand)

    def take_ahead(self, sender: int, body: Any) -> bool:
        """Shares another seat sent ahead of its record; True when this seat learnt a card.
        Raises MalformedMessage or AheadRefused (which prove nothing: nothing is logged)."""
        if self.seat is None or self.secret is None or self.aborted is not None or not 0 <= sender < self.players:
            return False
        learnt = self.share_book.take_ahead(sender, Shares.decode(body), self.seat, self.secret)
        if learnt:
            self._teach_engine()
        return learnt

    # -- receiving -----------------------------------------------------------------------

    def receive(self, record: bytes, entry: Entry | None = None) -> None:
        """Check a record and everything it says; raises ProtocolViolation naming the culprit.

        ``entry`` is ``decode_record(record)``, when the caller has decoded it already.
        """
        if self.aborted is not None:
            raise self.aborted
        if entry is None:
            try:
                entry = decode_record(record)
            except MalformedRecord as exc:
                raise ProtocolViolation(-1, "malformed-record", str(exc)) from None
        try:
            self.log.append(entry, in_group=bool(self.expect) and len(self.expect[0]) > 1)
        except LogViolation as exc:
            refused = ProtocolViolation(exc.peer, exc.reason, str(exc))
            if exc.reason == "equivocation":
                # both versions are the evidence (§4.7): a peer holding either one can check it
                refused.evidence = self.log.proofs[-1].to_bytes()
                self.aborted = refused = self.earlier_failure() or refused
            raise refused from None
        self._taking, self._taking_from = record, entry.sender
        try:
            self._accept(entry)
        except (ProtocolViolation, UnknownCard, MalformedMessage, ShuffleProofError, InvalidPoint, ValueError) as exc:
            self.aborted = self.earlier_failure() or refusal(exc, entry.sender)
            raise self.aborted from None
        self.records.append(record)
        if not self.step_got:
            self.step_starts.append(len(self.records))  # that record completed its step
        if self.writer is not None:
            self.writer.append(record)
            if self.finished:
                self.writer.sync()
        if self.finished:
            self._stopping_on(self.ahead.finish)  # a game is over once every check of it is done

    def _check_share_later(self, check: Callable[[], None]) -> None:
        """A share to check when its card is shown to all: in the background (ShareBook.check_later),
        unless the record that shows it is our own, which must not go out before the check, or
        we are (most likely) the seat to move next: its move waits for the check anyway, and
        at the priority of the turns it does not wait for a core (measured: turn p50 about
        0.8 ms less)."""
        if self._taking_from == self.seat or (self._taking_from + 1) % self.players == self.seat:
            check()
        else:
            self.ahead.check_later(check, self._taking)

    def _accept(self, entry: Entry) -> None:
        waiting = self.outstanding
        head = next((e for e in waiting if e.speaker == entry.sender), None)
        if head is None or entry.kind != head.kind:
            wanted = " or ".join(f"{e.kind} from seat {e.speaker}" for e in waiting) or "nothing"
            raise ProtocolViolation(entry.sender, "out-of-turn", f"sent {entry.kind!r}, expected {wanted}")
        getattr(self, f"_on_{entry.kind}")(entry, head)
        self.step_got[entry.sender] = entry.hash
        step = self.expect[0]
        if len(self.step_got) < len(step):
            return
        if len(step) > 1:
            self.log.close_group([self.step_got[e.speaker] for e in step])
        self.expect.popleft()
        self.step_got = {}
        if not self.expect:
            self._advance()

    def _on_genesis(self, entry: Entry, head: Expect) -> None:
        genesis = Genesis.decode(entry.body)
        try:
            # read as verify and a spectator read it back from the log (strictly: 3.0 and true
            # equal 3 and 1 as Python values, but are no player count or number of rounds)
            GameConfig.from_data(genesis.config)
        except (ValueError, KeyError, TypeError) as exc:
            raise ProtocolViolation(entry.sender, "bad-genesis", f"the genesis record's config: {exc}") from None
        if genesis != self.setup.genesis():
            raise ProtocolViolation(entry.sender, "bad-genesis", "the genesis record does not match the agreed game")
        # one after another, not a group: a key equal to an earlier one names the later sender
        self.expect.extend((Expect(s, "key"),) for s in range(self.players))

    def _on_key(self, entry: Entry, head: Expect) -> None:
        share = KeyShare.decode(entry.body)
        X = check_point(share.X, "key share")
        if not verify_key(X, share.pok, self._ctx("key", "", entry.sender)):
            raise ProtocolViolation(entry.sender, "bad-key-proof", "proof of knowledge of the key share does not verify")
        if X in self.keys.values():
            raise ProtocolViolation(entry.sender, "duplicate-key", "key share equals another peer's")
        self.keys[entry.sender] = X
        if len(self.keys) == self.players:
            self.dealer.set_keys([self.keys[s] for s in range(self.players)])
            self.plans.joint = self.dealer.joint
            self.work = NEW_GAME

    def _on_commit(self, entry: Entry, head: Expect) -> None:
        message = Commit.decode(entry.body)
        if len(message.commitments) != 1:
            raise ProtocolViolation(entry.sender, "bad-commit", "expected 1 commitment")
        self.coin_commitments.setdefault(head.topic[1], {})[entry.sender] = message.commitments[0]

    def _on_reveal(self, entry: Entry, head: Expect) -> None:
        message = Reveal.decode(entry.body)
        topic = head.topic
        if len(message.values) != 1:
            raise ProtocolViolation(entry.sender, "bad-reveal", "expected one value")
        value, nonce = message.values[0]
        committed = self.coin_commitments[topic[1]][entry.sender]
        if not check_reveal(committed, value, nonce, *self.commit_context(topic, entry.sender)):
            raise ProtocolViolation(entry.sender, "mismatch", "revealed a value other than the one committed to")
        values = self.coin_values.setdefault(topic[1], {})
        values[entry.sender] = value
        if len(values) == self.players:
            need = self.dealer.coin_needs[topic[1]]
            seed = hash_bytes("coin", self.setup.game_id, topic[1], *(values[s] for s in range(self.players)))
            self.dealer.coins[topic[1]] = random_below(seed, need.n)

    def recheck_sealed_shares(self, record: bytes) -> ProtocolViolation | None:
        """Check every sealed share in a record already taken in, and its public shares of
        reveals to others not checked yet (a seat checks only its own when they arrive): how a
        seat tests another's accusation of a bad share."""
        return self.share_book.recheck(record)

    def _on_shares(self, entry: Entry, head: Expect) -> None:
        learnt = self._take_shares(entry.sender, Shares.decode(entry.body), head.topic)
        if learnt and self.on_learn is not None and self.state is not None:
            self.on_learn(self.state)

    def _take_shares(self, sender: int, message: Shares, owed: tuple[RevealNeed, ...]) -> bool:
        """Check and keep a seat's shares, which must be exactly the ones it owes; True when
        the engine learnt a card face from them."""
        self.share_book.take(sender, message, owed, self.seat, self.secret, self.verify_all)
        return self._teach_engine()

    def _on_action(self, entry: Entry, head: Expect) -> None:
        message = ActionMsg.decode(entry.body)
        self.work, self.work_player = message.action, entry.sender
        self.early_shares = message.shares
        self.work_record = entry.record if message.shares is not None else None

    # -- running the engine ----------------------------------------------------------------

    def _advance(self) -> None:
        while not self.expect and not self.finished:
            if self.work is not None:
                before = self.state
                if not self._attempt():
                    return
                self.ahead.take_up(self.dealer, self.shuffles)
                self._make_before_our_turn()
                mover = mover_in_play(before, self.state)
                if mover is not None and (batch := self.ahead.due_from(mover)) is not None:
                    self.expect.append((Expect(mover, "shuffle", (batch,)),))  # right after its move
                    return
            state = self.state
            assert state is not None
            if state.is_terminal():
                self.finished = True
                return
            actor = state.current
            owed = [n for n in self.dealer.pending if n.audience is not None and actor in n.audience]
            if owed:
                self._queue_share_round()
            else:
                self.expect.append((Expect(actor, "action"),))

    def _attempt(self) -> bool:
        """Run the pending work on a copy of the state; False when the peers must act first."""
        while True:
            self.dealer.begin_attempt()
            try:
                if self.work == NEW_GAME:
                    trial = State.new(self.setup.config, self.dealer)
                else:
                    assert self.state is not None and self.work is not None
                    trial = self.state.clone()
                    self.play_work(trial)
            except Blocked as blocked:
                if not self._queue_for(blocked.need):
                    continue  # the move's own shares opened the card it blocked on: run it again
                self._no_early_shares_left()
                return False
            except (IllegalActionError, InvalidActionError) as exc:
                assert self.work_player is not None
                if self.early_shares is None and self.work_record is not None:
                    # the move's shares were taken (§6.11) before its card showed it false: a
                    # fault in one of them, checked later here, is what every judge names (§6.8)
                    found = self.share_book.recheck(self.work_record)
                    if found is not None:
                        found.evidence = self.work_record  # the record at fault, if a later one showed it
                        raise found from None
                # a take of gold checked only at the end of the game names its taker
                culprit = getattr(exc, "player", None)
                raise ProtocolViolation(self.work_player if culprit is None else culprit, "illegal-action", str(exc)) from None
            break
        self.dealer.commit_attempt()
        if self.writer is not None and (self.state is None or trial.round != self.state.round):
            self.writer.sync()
        self.state = trial
        mover, self.work, self.work_player, self.work_record = self.work_player, None, None, None
        early, self.early_shares = self.early_shares, None
        if early is not None and mover is not None:
            # shares a move carried that no public reveal used: what it owes now the move is made
            self._take_shares(mover, early, tuple(self.dealer.owed_by(mover)))
        self._teach_engine()
        if self.on_commit is not None:
            self.on_commit(trial)
        return True

    def play_work(self, trial: State) -> None:
        """Play the pending move on ``trial``, a copy of the state, judged as a spectator would
        judge it (``_as_a_spectator``); what was hidden for it is put back, whatever the move
        did.  ``_attempt`` runs every move so, and ``forfeit.state_at_block`` runs the last one
        again so (it judged a take on the pile's faces once: found by an attack)."""
        assert self.work is not None
        put_back = self._as_a_spectator(trial)
        try:
            trial.play(self.work, player=self.work_player)
        finally:
            put_back()  # what we know and hid while judging the move: we still know it

    def _as_a_spectator(self, trial: State) -> Callable[[], None]:
        """Judge another seat's move as a spectator would, on what every seat knows, so that
        every seat and ``verify`` name the same culprit (protocol.md §8.4, §11.1).  Hidden from
        ``trial`` while the move is judged: the face of the card it plays, if only this seat
        knows it (a card it held before a Swap your hand), so that the engine asks for it to
        be shown to all; and the gold pile's faces at another seat's take, if this seat was
        shown the pile (the take is then checked at the game's end, §9.3).  A move that plays
        a card without naming its handle is refused here, by every seat alike (``Node.move``
        always names it).  Returns what puts the hidden faces back."""
        if self.work is None or self.work_player is None or self.work_player == self.seat:
            return _nothing
        try:
            action = parse_action(self.work)
        except InvalidActionError:
            return _nothing
        if getattr(action, "card", 0) is None:
            raise IllegalActionError(action, "a move sent to the table names its card's handle (#N)")
        if isinstance(action, TakeGold):
            faces = trial.gold_faces
            pile = {g: faces.pop(g) for g in trial.gold_pile if g in faces}
            return lambda: faces.update(pile)
        card = getattr(action, "card", None)
        if not isinstance(card, int) or card not in trial.faces or self.dealer.shown_to_all(Deck.DRAW, card):
            return _nothing
        hidden = {card: trial.faces.pop(card)}
        return lambda: trial.faces.update(hidden)  # put down unseen: still ours to know

    def _no_early_shares_left(self) -> None:
        """A move that blocks first on a coin or a shuffle carries no shares."""
        early, self.early_shares = self.early_shares, None
        if early is not None and self.work_player is not None:
            raise ProtocolViolation(self.work_player, "wrong-shares", "shares sent with a move that blocks on a coin or shuffle")

    def _queue_for(self, need: object) -> bool:
        """Queue the steps ``need`` takes; False when there is none to queue (the shares sent
        with the move opened the card)."""
        n = self.players
        if isinstance(need, CoinNeed):
            topic = ("coin", need.index)
            self.expect.append(tuple(Expect(s, "commit", topic) for s in range(n)))
            self.expect.append(tuple(Expect(s, "reveal", topic) for s in range(n)))
        elif isinstance(need, ShuffleNeed):
            self.ahead.take_up(self.dealer, self.shuffles)
            if need.batch in self.ahead.shufflers:  # the seats that have not shuffled it yet, in seat order
                self.expect.extend((Expect(j, "shuffle", (need.batch,)),) for j in self.ahead.remaining(need.batch))
            else:
                batch = self.dealer.batches[need.batch]
                self.shuffles[need.batch] = ShuffleRun.starting(need, batch.inputs)
                self.expect.extend((Expect(j, "shuffle", (need.batch,)),) for j in range(n))
        else:
            assert isinstance(need, RevealNeed)
            if self.early_shares is not None and need.audience is None:
                assert self.work_player is not None
                early, self.early_shares = self.early_shares, None
                self._take_shares(self.work_player, early, tuple(self.dealer.owed_by(self.work_player)))
                state = self.dealer.reveals[need]
                if state.complete(self.players):
                    return False
            self._queue_share_round()
        return True

    def _queue_share_round(self) -> None:
        owers = tuple(Expect(s, "shares", tuple(owed)) for s in range(self.players) if (owed := self.dealer.owed_by(s)))
        if owers:
            self.expect.append(owers)

    def _teach_engine(self) -> bool:
        """Tell the committed engine the faces the dealer learnt since; True if there were any."""
        if self.state is None:
            return False  # the engine's first run asks the dealer, which remembers what this seat saw
        learned = self.dealer.learned
        for deck, handle, face in learned:
            self.state.learn(deck, handle, face)
        taught = bool(learned)
        learned.clear()
        return taught

    # -- contexts ------------------------------------------------------------------------

    def _ctx(self, step: str, deck: str, prover: int) -> Context:
        return Context(self.setup.game_id, step, deck, prover)

    def commit_context(self, topic: tuple[Any, ...], seat: int | None = None) -> tuple[Any, ...]:
        who = self.seat if seat is None else seat
        return (self.setup.game_id, topic[0], topic[1], 0, who)


__all__ = ["NEW_GAME", "Expect", "GameSetup", "IllegalMove", "Node", "ProtocolViolation"]
