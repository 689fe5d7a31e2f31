"""Stopping the game for a cheat, and judging another seat's claim that someone cheated.

A peer that finds a violation sends ``abort`` naming the culprit, with the record that shows
it (or an equivocation proof) and the records of its log just before it.  A peer that gets an
``abort`` takes those records in, then checks the evidence itself: it names the culprit only
if the evidence shows the violation here too, and otherwise blames only the seat that stopped
the game.  ``Verdicts`` is the part of ``Session`` that does this.
"""
from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..crypto.identity import Identity
from ..crypto.log import EquivocationProof, MalformedRecord
from ..match import winners_words
from ..protocol.ending import Ending, stood_before
from ..protocol.forfeit import forfeit_scores, state_at_block
from ..protocol.messages import printable
from ..protocol.node import GameSetup, Node, ProtocolViolation
from ..protocol.split import split_table
from .defects import describe, save_traceback
from .intake import Intake
from .transport import Transport
from .wire import Envelope, seal

#: records of our log sent before the evidence of an abort, at most, and their bytes
ABORT_CHAIN = 16
ABORT_CHAIN_BYTES = 2 * 1024 * 1024


class Outcome(enum.Enum):
    FINISHED = "finished"
    CHEATER = "cheater"
    PEER_GONE = "peer-gone"
    QUIT = "quit"


@dataclass
class SessionResult:
    outcome: Outcome
    message: str
    scores: tuple[int, ...] | None = None
    culprit: int | None = None
    log_path: Path | None = None
    stats: dict[str, float] = field(default_factory=dict)
    turn_latencies: list[float] = field(default_factory=list)
    #: the session told its agent ``message`` itself (a session that ran does; a lobby
    #: closed before the game did not)
    said: bool = False


class Verdicts:
    """Abort and evidence handling, mixed into ``Session`` (which provides these attributes)."""

    identity: Identity
    setup: GameSetup
    seat: int
    node: Node
    intake: Intake
    transport: Transport
    endpoints: dict[int, str]
    names: list[str]
    #: what shows the cheat that stopped the game (a record or an equivocation proof), and its reason
    evidence: bytes | None = None
    reason: str = ""
    say: Callable[[str], None]
    log_path: Path
    secrets_path: Path
    stats: dict[str, float]
    turn_latencies: list[float]
    #: the endings (``bye``, ``abort``, ``gone``) other seats sent us, by signer, as signed
    endings_heard: dict[int, bytes]

    def _take_record(self, record: bytes, relayed_by: int) -> SessionResult | None:
        raise NotImplementedError

    #: the figures of the game, written beside the log (timing.py): a declaration, as a method
    #: here would stand in front of Timing's
    _write_stats: Callable[[str], None]
    #: the spectators we feed are told why the game stopped (watchers.py)
    _tell_watchers_stopped: Callable[[bytes], None]

    def _heard_abort(self, env: Envelope, sender: int) -> SessionResult | None:
        """Another seat stopped the game naming a cheater: check its evidence ourselves (None:
        the game's last record came with the abort, and the game is over: the abort came
        after its end, and named nobody here)."""
        culprit = env.field("culprit", int)
        reason = printable(env.field("reason", str, 64))
        evidence = env.body.get("evidence")
        kept = self.evidence
        if isinstance(evidence, bytes):
            self.evidence = evidence
        if self.node.aborted is None and (own := self._checked_late()) is not None:
            # a record we took in and had not checked yet is false: its cheat decides,
            # whoever the abort names (that seat's sender, say, right after its false shuffle)
            return self._cheater(own, checked=True)
        chain = env.body.get("chain")
        records = [r for r in chain[-ABORT_CHAIN:] if isinstance(r, bytes)] if isinstance(chain, list) else []
        while sum(map(len, records)) > ABORT_CHAIN_BYTES:
            records.pop(0)  # the oldest go first: the ones just before the evidence matter
        for record in records:
            if self.node.aborted is None and not self.node.finished:
                found = self._take_record(record, sender)  # a record we lacked (copies are dropped)
                if found is not None:
                    return found
        if self.node.finished:
            # the game's last record was in the chain (its maker sent it nowhere else: an
            # attack): the game is over, as when that record comes on its own (§12.5)
            self.evidence = kept
            return self._late_abort(env, sender)
        if isinstance(evidence, bytes) and self.node.aborted is None:
            confirmed = self._check_evidence(evidence, sender, culprit)
            if confirmed is not None:
                return confirmed  # our own node found the violation in the evidence
            if self.node.finished:  # the evidence was the game's last record, and showed nothing
                self.evidence = kept
                return None
        if self.node.aborted is not None and self.node.aborted.peer == culprit:
            v = self.node.aborted
            return self._named(culprit, f"{v.reason}: {v.detail}")
        name = self.names[culprit] if 0 <= culprit < len(self.names) else f"seat {culprit}"
        return self._end(
            Outcome.QUIT,
            f"{self.names[sender]} stopped the game saying {name} broke the protocol ({reason}); "
            "its evidence did not show that here, so nobody is blamed but the one who stopped",
            sender,
        )

    def _late_abort(self, env: Envelope, sender: int) -> SessionResult | None:
        """An abort that comes after we took the game's last record (its sender stopped just
        before it): we name its cheater too if the evidence shows the cheat to our log, such
        as a record out of turn (it names a head we have moved past); else nothing changes."""
        culprit = env.field("culprit", int)
        evidence = env.body.get("evidence")
        if not isinstance(evidence, bytes) or not 0 <= culprit < len(self.names) or culprit == self.seat:
            return None
        kept, self.evidence = self.evidence, evidence  # our verdict's evidence, if it shows the cheat here
        named = self._check_evidence(evidence, sender, culprit)
        if named is None:
            self.evidence = kept
        return named

    def _check_evidence(self, evidence: bytes, sender: int, culprit: int) -> SessionResult | None:
        """Our own verdict on another seat's evidence: a proof of equivocation or of a split
        table, or a record."""
        try:
            proof = EquivocationProof.from_bytes(evidence)
        except (MalformedRecord, ValueError):
            proof = None
        if proof is not None:
            mine = proof.entry_a.game_id == self.setup.game_id  # two records of this game, not a replay
            if mine and proof.peer == culprit and proof.verify(dict(enumerate(self.setup.seats))):
                return self._named(culprit, "equivocation")
            return None
        split = split_table(evidence, self.setup)  # two geneses the host signed for this table
        if split is not None:
            return self._named(culprit, f"{split.reason}: {split.detail}") if culprit == split.peer else None
        if not self.intake.has(evidence):
            found = self._take_record(evidence, sender)  # (a record that cannot be decoded is dropped there)
            if found is not None or not self.intake.has(evidence):
                return found
        # we took that record in (now or before) without checking all of it: sealed shares that
        # are not ours, a shuffle proof that we check only after our own shuffle (§8.3)
        deferred = self._checked_late()
        if deferred is not None:  # the evidence, or a record before it, is false here: its cheat decides
            return self._cheater(deferred, evidence, checked=True)
        violation = self.node.recheck_sealed_shares(evidence)
        if violation is not None and violation.peer == culprit:
            self.node.aborted = violation
            return self._end_cheater(culprit, f"{violation.reason}: {violation.detail}")
        return None

    def _cheater(self, violation: ProtocolViolation, evidence: bytes | None = None, checked: bool = False) -> SessionResult:
        """Name the cheater to everyone, with the record that shows it, and stop: the record
        the violation carries (a shuffle checked in the background), else ``evidence``, else
        the last record of our log.  The checks of earlier records left for later are made
        first (unless ``checked``: the violation is what they found): the earliest record at
        fault decides."""
        if not checked:
            violation = self._checked_late(violation) or violation
        if self.node.aborted is None:
            self.node.aborted = violation  # the node stops on it, as on a record it refused
        evidence = violation.evidence or evidence or self.node.log.entries[-1].record
        data = seal(self.identity, "abort", {
            "game_id": self.setup.game_id,
            "culprit": violation.peer,
            "reason": violation.reason,
            "detail": violation.detail[:500],
            "evidence": evidence,
            "chain": self._chain_before_evidence(),
        })
        for endpoint in self.endpoints.values():
            self.transport.send(endpoint, data)
        self.evidence = evidence
        return self._end_cheater(violation.peer, f"{violation.reason}: {violation.detail}")

    def _chain_before_evidence(self) -> list[bytes]:
        """Our log's last records (at most ABORT_CHAIN of them, ABORT_CHAIN_BYTES in all): a peer
        a few records behind us takes them in first, so the evidence follows its head and its
        verdict does not depend on which records reached it before the abort."""
        chain: list[bytes] = []
        size = 0
        for record in reversed(self.node.records[-ABORT_CHAIN:]):
            size += len(record)
            if size > ABORT_CHAIN_BYTES:
                break
            chain.append(record)
        return chain[::-1]

    def _named(self, culprit: int, how: str) -> SessionResult:
        """Name ``culprit`` for what another seat's evidence shows here (an equivocation, a split
        table), unless a check this seat left for later finds an earlier record false: that
        one decides, as ``verify`` of this seat's log would find it first (an attack)."""
        found = self._checked_late()
        if found is not None:
            return self._cheater(found, checked=True)
        return self._end_cheater(culprit, how)

    def _end_cheater(self, culprit: int, how: str) -> SessionResult:
        """Stop the game blaming the peer at seat ``culprit``; ``how`` says what they broke."""
        self.reason = how.partition(":")[0]
        if not 0 <= culprit < len(self.names):
            return self._end(Outcome.CHEATER, f"the game cannot go on and no one seat can be named: {how}", culprit)
        name = self.names[culprit]
        return self._end(Outcome.CHEATER, f"{name} (seat {culprit}) broke the protocol: {how}", culprit)

    def _game_stood(self, outcome: Outcome) -> bool:
        """Whether the game ended whole before the cheat we name (``stood_before``: the
        sessions and verify judge alike), whenever we took the cheat in: lingering after the
        last record, or with it, parked behind it (found by review)."""
        return outcome is Outcome.CHEATER and stood_before(self.reason, self.evidence, self.node)

    def _game_stands(self) -> str:
        """What a seat that named a cheater after the game's last record says of the game."""
        state = self.node.state
        assert state is not None and state.scores is not None
        scores = ", ".join(f"{self.names[i]} {s}" for i, s in enumerate(state.scores))
        return f"The cheat came after the game's last record: the game stands. {state.config.edition_rules.gold_unit}s: {scores}"

    def _what_the_log_supports(self) -> str:
        """What a seat that stopped the game early says the signed log shows of it: the rounds
        its last move ended too, when the next round's set-up (a shuffle of the gold, say) is
        what the game stopped at (it said "No round was completed", found by an attack)."""
        state = self.node.state
        blocked = state_at_block(self.node, refused=True)
        if state is None or (blocked is not None and len(blocked.results) > len(state.results)):
            state = blocked
        if state is None or not state.results:
            return "No round was completed: there is no score."
        pieces = self.setup.config.edition_rules.public_gold  # gold is a public count of pieces, not cards
        secret = "" if pieces else " (only the number of gold cards: their values are turned over at the game's end)"
        lines = [f"The game stopped early; what the signed log shows{secret}:"]
        for result in state.results:
            got = result.gold_pieces if pieces else result.gold_cards
            cards = ", ".join(f"{self.names[i]} {c}" for i, c in enumerate(got))
            what = "gold pieces won" if pieces else "gold cards received"
            lines.append(f"  round {result.round}: {winners_words(result.winners.value, result.roles)} won; {what}: {cards}")
        mine = state.gold_total(self.seat)
        lines.append(f"  your own gold: {mine} {'piece' if pieces else 'nugget'}(s)")
        return "\n".join(lines)

    def _end(self, outcome: Outcome, message: str, culprit: int | None, scores: tuple[int, ...] | None = None) -> SessionResult:
        if outcome in (Outcome.PEER_GONE, Outcome.QUIT) and (found := self._checked_late()) is not None:
            # a cheat checked late outweighs an absence or a seat's leaving (a false shuffle,
            # or a false share sent to another seat, followed at once by its maker's ``bye``
            # went unnamed: attacks)
            return self._cheater(found, checked=True)
        if outcome is not Outcome.FINISHED:
            self._pass_on_endings()
        stands = self._game_stood(outcome)
        if stands and scores is None:
            assert self.node.state is not None
            scores = self.node.state.scores  # the game ended whole before the cheat: it stands
        if outcome is Outcome.PEER_GONE and scores is None and culprit is not None and culprit != self.seat:
            forfeit = forfeit_scores(self.node, culprit)  # gone at the final reveal of the gold: it forfeits
            if forfeit is not None:
                scores, message = forfeit.scores, f"{message}; {forfeit.describe(self.names)}"
        if outcome is not Outcome.FINISHED:
            # why the game stopped, after the records: verify checks it against them, and so
            # does a spectator we feed (it knew only that we went quiet: a play-test)
            evidence = self.evidence if outcome is Outcome.CHEATER else None
            verdict = Ending(outcome.value, culprit, self.reason, message, evidence, self.seat).to_bytes()
            if self.node.writer is not None:
                self.node.writer.append(verdict)
            self._tell_watchers_stopped(verdict)
        if self.node.writer is not None:
            self.node.writer.sync()
        if outcome is Outcome.FINISHED:
            # the game is over and every share is out: this seat's secrets serve nothing more
            self.secrets_path.unlink(missing_ok=True)
            Path(f"{self.log_path}.run").unlink(missing_ok=True)  # its runs' numbers (seatstate.next_run) too
        if outcome is not Outcome.FINISHED:
            message += "\n" + (self._game_stands() if stands else self._what_the_log_supports())
        self.say(message)
        self.say(f"log saved: {self.log_path}")
        self._write_stats(outcome.value)
        return SessionResult(outcome, message, scores, culprit, self.log_path, dict(self.stats), list(self.turn_latencies),
                             said=True)

    def _checked_late(self, known: ProtocolViolation | None = None) -> ProtocolViolation | None:
        """``Node.pending_failure`` as the game ends (``known``: the violation at hand).  Once
        the game is over, only the shuffle proofs: a late abort made a seat check the shares
        of cards never shown, and void a finished game at the seats its sender chose (found
        by review).  A defect of ours in a check (the way this seat may be leaving) is saved
        and said, and leaves the ending as it is rather than stopping it halfway."""
        try:
            return self.node.pending_failure(known, shares=not self.node.finished)
        except Exception as error:
            where = save_traceback(self.log_path, error)
            self.say(f"a check of the records reached a defect in saboteur-p2p ({describe(error)}); "
                     f"please report it with {where}")
            return None

    def _pass_on_endings(self) -> None:
        """Before we stop, every other seat gets the endings other seats sent us, as signed: one
        sent to us alone (a `bye`, an `abort`, a `gone`) would otherwise leave the others waiting
        for us, and then naming us as gone."""
        for signer, data in self.endings_heard.items():
            for seat, endpoint in self.endpoints.items():
                if seat != signer:
                    self.transport.send(endpoint, data)
