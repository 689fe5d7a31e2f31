"""When a seat is gone: ending the game for a seat that is away or that withholds a record,
and judging another seat's claim that one is gone.

Two rules end a game for an absent seat, and both name it in a signed ``gone``:

* **away**: the seat due to speak has not been heard for ``wait`` seconds, here nor (by their
  pings' word) by the seats we hear.  If no other seat is heard either, it is this
  machine's link that failed, and this peer names itself.
* **withheld**: the seat due to make a protocol record (not a move, which a person may take
  as long as they like) is heard, but the record has not come for ``wait`` seconds, counted
  from when the log's head last changed or the seat's announced computation ended.

A ``gone`` from another seat is believed only as far as this peer sees the same: the absent
seat is silent here too, or, if it was heard lately but we too wait for its record, our own
rules name it within our own wait; the sender is named instead if the record comes (or, for
a move, if the absent seat is still heard).  ``Absence`` is the
part of ``Session`` that does this.
"""
from __future__ import annotations

from collections.abc import Callable

from ..crypto.identity import Identity
from ..protocol.ending import LATE_RECORD, LINK_REFUSED, OTHER_GAME, UNCLEAR_SILENCE
from ..protocol.messages import printable
from ..protocol.node import GameSetup, Node
from .accusers import AccuserView, GoneClaim, due_start, late_grace
from .presence import Presence
from .transport import Transport
from .verdicts import Outcome, SessionResult
from .wire import Envelope, seal

#: seconds an accused seat stays for the record it is said to withhold, if that is not due yet
ACCUSED_STAYS = 5.0
class Absence(AccuserView):
    """Absent-seat rules, mixed into ``Session`` (which provides these attributes)."""

    identity: Identity
    setup: GameSetup
    node: Node
    transport: Transport
    presence: Presence
    endpoints: dict[int, str]
    names: list[str]
    seat: int
    wait: float
    say: Callable[[str], None]
    #: until when a seat that came back waits to hear what the others hold (heartbeat.py)
    catch_up_until: float
    #: whether that wait goes on (heartbeat.py)
    _catching_up: Callable[[float], bool]
    #: send a peer the records it lacks (heartbeat.py)
    _resend_to: Callable[[int], None]
    #: how many records each seat's last ping said it holds (heartbeat.py)
    records_of: dict[int, int]
    #: the reason the log's verdict gives (verdicts.py); for a seat gone, what we saw of it
    reason: str

    def _end(self, outcome: Outcome, message: str, culprit: int | None, scores: tuple[int, ...] | None = None) -> SessionResult:
        raise NotImplementedError

    def _speak(self) -> SessionResult | None:
        raise NotImplementedError

    def _start_absence(self, now: float) -> None:
        self._head_seen = b""
        self._head_since = now
        #: when the head last moved, by the clock alone (``_head_since`` moves on with our own
        #: stalls, which another seat's wait did not see)
        self._head_moved = now
        #: seats that ended the game here and left (we heard them say so: our link to them worked)
        self._left: set[int] = set()
        #: seats that passed another seat's ending on to us, and so stopped (only a seat that
        #: stops passes endings on, §12.5), each with the seat whose ending it passed on first
        self._stopped_on: dict[int, int] = {}
        self._claim: GoneClaim | None = None
        #: seats away here that we said another seat hears (said once an absence)
        self._told_relayed: set[int] = set()
        #: a seat that said this seat withholds a record not yet due here: (it, when, our
        #: records then, why we name it, as things stood then); we stay until we have made
        #: our next record, so the others see it
        self._accused: tuple[int, float, int, str] | None = None
        #: seats heard signing messages for another game, with its id (the first one heard:
        #: splitting.py); said when the game ends for such a seat's absence
        self._other_game: dict[int, bytes] = {}
        #: the seats that owed us a protocol record at the last check: how many records of theirs
        #: we held then, and when our wait for the one owed runs out (their busy notices counted)
        self._due_until: dict[int, tuple[int, float]] = {}
        #: seats whose last protocol record came late here (LATE_GRACE): when it came, and how
        #: long before the end of our wait for it (less than 0: after)
        self._came_late: dict[int, tuple[float, float]] = {}
        #: each seat's protocol record seen come by a check of ours that had been due here
        #: longest lately: when, and how long it had been due then (about as long as an
        #: accuser's shorter wait, say)
        self._came_after: dict[int, tuple[float, float]] = {}

    def _gone_why(self, absent: int, why: str) -> str:
        """Why the game ends for ``absent``, with what we heard of it signing for another game,
        or what its link endpoint said when it refused us (then ``reason``, kept in the log's
        verdict, says which: ``verify`` reports it as this seat's word)."""
        name = self._seat_name(absent)
        other = self._other_game.get(absent)
        if other is not None:
            self.reason = OTHER_GAME
            return (f"{why}; but {name} signs its messages for another game ({other.hex()[:16]}…): if the host started "
                    f"the seats on different games, {name} waited for our records as we waited for its, and is not to blame")
        refused = self.transport.refused(self.endpoints[absent]) if absent in self.endpoints else ""
        if refused:
            self.reason = LINK_REFUSED
            return (f"{why}; but {name}'s link endpoint refused our link ({refused}): it holds another key than the "
                    f"start gave it, or it plays a game we are not seated at (a host can start a table's seats on "
                    f"different games): then it is not to blame")
        return why

    def _not_listened(self, seconds: float) -> None:
        """This peer did not poll for ``seconds`` (it was computing): nobody's time runs on."""
        self.presence.not_listening(seconds)
        self._head_since += seconds

    def _check_away(self, now: float) -> None:
        self._told_relayed &= self.presence.away  # heard here again: told afresh if it falls silent
        for seat in self.presence.newly_away(now):
            # a seat never heard in this run is not "away" nor later "back": we are starting, or
            # it is this seat that came back (found by a play-test: a rejoiner said the others were)
            first = self.presence.count[seat] == 0
            if not self.presence.notice_away(seat, now, back=not first):
                continue
            by = self.presence.heard_elsewhere(seat, now)
            if by is not None:
                self._tell_relayed(seat, by, now)
                continue
            name, silent = self.names[seat], self.presence.quiet_for(seat, now)
            if first:
                self.say(f"no word yet from {name} ({silent:.0f} s since this seat started); "
                         f"the table waits up to {self.wait:.0f} s")
            else:
                self.say(f"{name} is away (no word for {silent:.0f} s); the table waits up to {self.wait:.0f} s")
            self._show_genesis_at_table(seat)  # it may play a game we are not seated at (splitting.py)
        for seat in sorted(self.presence.away - self._told_relayed):
            by = self.presence.heard_elsewhere(seat, now)
            # away here, and since then another seat says it hears it (it came back, say)
            if by is not None and self.presence.notice_away(seat, now):
                self._tell_relayed(seat, by, now)
        for seat in sorted(self._told_relayed):
            # told as heard by the others, and now they have no word of it either (found by a
            # test run: a seat cut off from all was heard by one seat a moment later than here,
            # so the player was told the others hear it, and then never that it was away)
            if self.presence.unheard_for(seat, now) > self.presence.away_after(seat):
                self._told_relayed.discard(seat)
                heard = self.presence.count[seat] > 0  # never heard here: no "away", nor "back" (as above)
                self.presence.notice_away(seat, now, back=heard, again=True)
                name, silent = self.names[seat], self.presence.unheard_for(seat, now)
                said = (f"{name} is away (no word for {silent:.0f} s" if heard else f"no word yet from {name} (none for "
                        f"{silent:.0f} s")
                self.say(f"{said}, here or from the others); the table waits up to {self.wait:.0f} s")

    def _tell_relayed(self, seat: int, by: int, now: float) -> None:
        self._told_relayed.add(seat)
        name, silent = self.names[seat], self.presence.quiet_for(seat, now)
        self.say(f"{name} is not heard here (no word for {silent:.0f} s), but {self.names[by]} says it hears "
                 f"{name}: what {name} sends comes through the others, and the table waits for it as for any seat")

    def _check_gone(self, now: float) -> SessionResult | None:
        if self._accused is not None:
            accuser, since, made, why = self._accused
            if self._catching_up(now):
                # the stay counts from the end of our wait for the others' resends, and so do
                # our records: ours they bring back are not the one we owe
                since, made = now, self.node.seq
                self._accused = (accuser, since, made, why)
            if self.node.seq > made or now - since > ACCUSED_STAYS:
                # our record may have come back in a peer's resends rather than from our own
                # making: the seats that still play get what they lack of ours before we go
                for seat in self._still_playing(but=accuser):
                    self._resend_to(seat)
                return self._end(Outcome.QUIT, why, accuser)
        settled = self._settle_claim(now)
        if settled is not None:
            return settled
        stalled = self._check_stalled(now)
        if stalled is not None:
            return stalled
        # each away seat is timed from when it was last heard, here or by another seat we hear
        # (time we spent computing and time it said it would be busy do not count: Presence
        # moves last_heard for both): one that talks to the others but not to us is there
        away = [e for e in self.node.outstanding if e.speaker in self.presence.away]
        if not away:
            return None
        head = max(away, key=lambda e: self.presence.unheard_for(e.speaker, now))
        if self.presence.unheard_for(head.speaker, now) <= self.wait:
            return None
        stopped_on = self._stopped_on.get(head.speaker)
        if stopped_on is not None:
            # it stopped on another seat's word (it passed that on to us): not gone, stopped
            # (two colluders had one honest seat name another that stopped so: an attack)
            why = (f"{self._seat_name(head.speaker)} stopped when {self._seat_name(stopped_on)} ended the game (it passed "
                   f"that on to us), and its record never came here; nobody is blamed but the one who stopped the game")
            return self._end(Outcome.QUIT, why, stopped_on)
        others = self._still_playing()
        if len(others) >= 2 and all(self.presence.is_silent(s, now) for s in others) and self._fell_silent_together(head.speaker):
            # no other seat is heard either, and none has been heard here long since that one
            # fell silent: it is our link that is down, not theirs
            why = (f"no other seat has been heard for {self.wait:.0f} s: this machine lost the table (or every "
                   f"other seat stopped without a word, as when a machine with several seats is switched off); the game ends")
            return self._end(Outcome.PEER_GONE, why, self.seat)
        return self._end_gone(head.speaker, f"{self._seat_name(head.speaker)} did not come back within {self.wait:.0f} s")

    def _settle_claim(self, now: float) -> SessionResult | None:
        """The end of the game another seat's `gone` began (``_claim``), once what has happened
        here since says who was right (the record came, the seat is heard again, or our wait
        since the word ran out while another seat vouched for it); None while nothing does."""
        claim = self._claim
        if claim is None:
            return None
        by, name = self._seat_name(claim.sender), self._seat_name(claim.absent)
        came = self.node.log.head != claim.head or claim.absent in self.node.step_got
        late = self._lately_late(claim.absent, now) if came and claim.withheld else None
        if late is not None:
            return self._end_late(claim.absent, claim.sender, claim.kind, late)
        heard_again = self.presence.count[claim.absent] > claim.heard + 1
        if (came and (claim.unclear or claim.owed_long)) or (heard_again and claim.unclear):
            return self._end_unclear(claim.absent, claim.sender)
        if came:
            why = (f"{by} ended the game saying {name} withheld its {claim.kind} record, but the record came; "
                   f"nobody is blamed but the one who stopped")
            return self._end(Outcome.QUIT, why, claim.sender)
        if not claim.withheld and heard_again:
            why = f"{by} ended the game saying {name} was gone, but {name} is still heard here; nobody is blamed but it"
            return self._end(Outcome.QUIT, why, claim.sender)
        voucher = self._vouched_out(claim, now) if not claim.withheld else None
        return None if voucher is None else self._end_unclear(claim.absent, claim.sender, voucher)

    def _fell_silent_together(self, absent: int) -> bool:
        """Whether ``absent`` fell silent here about when the last other seat did (within its
        away limit): a link of ours that failed silences every seat at once.  One that went
        silent while we still heard another seat for long did so with our link up (it stopped
        talking to us, and another seat's word kept us waiting for it: found by an attack)."""
        arrived = self.presence.arrived  # when messages came, not when a busy seat said it would be back
        latest = max(arrived[s] for s in self._still_playing(but=absent))
        # the absent seat's own busy time counts, up to then: it computed, silent, as our link failed
        fell = max(arrived[absent], min(self.presence.busy_until(absent), latest))
        return fell + self.presence.away_after(absent) >= latest

    def _check_stalled(self, now: float) -> SessionResult | None:
        """A seat that is present but sends no protocol record for ``wait`` seconds stops the game.

        Protocol records (shares, shuffles, reveals) are made without a person, in seconds;
        a move may take a person as long as it takes, so moves are never timed out.
        """
        log_head = self.node.log.head
        owing = {e.speaker for e in self.node.outstanding if e.kind != "action" and e.speaker != self.seat}
        self._note_arrivals(now)
        moved = log_head != self._head_seen
        if moved:
            self._head_seen, self._head_since, self._head_moved = log_head, now, now
        self._due_until = {seat: (self._records_of(seat), self._stall_deadline(seat)) for seat in owing}
        if moved:
            return None
        # moves may take a person long; a seat not heard lately may be away (or our own link
        # is down), which _check_gone judges
        due = [e for e in self.node.outstanding
               if e.kind != "action" and e.speaker != self.seat and self.presence.heard_lately(e.speaker, now)]
        head = next((e for e in due if now > self._stall_deadline(e.speaker)), None)
        if head is None:
            return None
        name = self._seat_name(head.speaker)
        return self._end_gone(head.speaker, f"{name} sent no {head.kind} record within {self.wait:.0f} s")

    def _note_arrivals(self, now: float) -> None:
        """Note each protocol record come since the last check from a seat we waited on: how
        late it came by our wait (``_came_late``) and how long it had been due (``_came_after``).
        Each is noted once, at the check, or at once when a `gone` comes in the same poll as
        the record (a liar sent its withheld record and, behind it, the accuser's word on one
        write: the word found the record not yet noted, and we named the accuser; an attack)."""
        for seat, (records, deadline) in self._due_until.items():
            got = self._records_of(seat)
            if got <= records:
                continue
            left = self._late(seat, now)
            if left is not None:
                self._came_late[seat] = (now, left)
            due_for = now - self._due_since(seat)
            last = self._came_after.get(seat)
            # a record due long is kept through the window it is judged in: a liar's next
            # record, sent at once, hid it (an attack)
            if last is None or due_for >= last[1] or not self._lately(last[0], now):
                self._came_after[seat] = (now, due_for)
            self._due_until[seat] = (got, deadline)

    def _stall_deadline(self, seat: int) -> float:
        """When our wait for a protocol record due from ``seat`` runs out: ``wait`` from when the
        log's head last changed or from the end of the seat's last busy notice, whichever is
        later; a busy notice moves the start on by at most BUSY_MAX in one step, so a seat that
        says busy again and again does not withhold its record for ever."""
        return due_start(self._head_since, self.presence.records_wait_until(seat)) + self.wait

    def _lately(self, when: float, now: float) -> bool:
        """Whether a record that came at ``when`` came lately enough to bear on a word that
        comes ``now``: within twice LATE_GRACE (``_lately_late``, ``_came_after``)."""
        return now - when <= 2 * self._late_grace()

    def _late_grace(self) -> float:
        return late_grace(self.wait)

    def _records_of(self, seat: int) -> int:
        """How many of ``seat``'s records we hold (of a step not yet whole, too)."""
        return self.node.log.next_seq(seat) + (seat in self.node.step_got)

    def _late(self, seat: int, now: float) -> float | None:
        """How long before the end of our wait for it (less than 0: after) the protocol record
        ``seat`` owed at the last check came, if it has come since and that late (LATE_GRACE);
        None if it has not come, or came in good time.  Our wait as it stood then, the seat's
        busy notices counted (a busy it sent after another seat's `gone` moved it on too)."""
        due = self._due_until.get(seat)
        if due is None or self._records_of(seat) <= due[0] or now < due[1] - self._late_grace():
            return None
        return due[1] - now

    def _lately_late(self, seat: int, now: float) -> float | None:
        """``_late``: come since our last check (in this same poll), or seen come late by a
        check of ours within the last twice LATE_GRACE seconds; None if neither."""
        left = self._late(seat, now)
        came = self._came_late.get(seat)
        if left is None and came is not None and self._lately(came[0], now):
            left = came[1]  # as it stood when the record came (told as such: an attack read 0.0 s for 0.3 s)
        return left

    def _end_late(self, absent: int, accuser: int, kind: str, left: float) -> SessionResult:
        """``accuser`` ended the game saying ``absent`` withheld its ``kind`` record, which came
        here only ``left`` seconds before our own wait for it ran out (or after): its wait may
        honestly have run out first, or it may have said so too soon of a seat only slow, and
        nothing here tells which.  The game ends, and nobody is blamed (the reason LATE_RECORD:
        verify reports the accuser as the seat that stopped, and our word that it was late)."""
        self.reason = LATE_RECORD
        by, name = self._seat_name(accuser), self._seat_name(absent)
        when = f"{abs(left):.1f} s {'before' if left > 0 else 'after'} our own wait for it ran out"
        why = (f"{by} ended the game saying {name} withheld its {kind} record; it came here {when}: late, but "
               f"not so late that {by} cannot have been too quick; nobody is blamed")
        return self._end(Outcome.QUIT, why, accuser)

    def _end_unclear(self, absent: int, accuser: int, voucher: int | None = None, claimed: bool = True) -> SessionResult:
        """``accuser`` ended the game saying ``absent`` was gone, which was silent longer than
        our wait while another seat said it heard it (or while this seat was busy and did not
        listen, or which came back only after our pings had told the table it was silent), and
        which is heard, or passes the word on, now; or (``voucher``) which is silent here as our
        wait since that word runs out, while ``voucher`` says it hears it: one of them said
        what was not so, and nothing here tells which (``claimed`` False: when the word came,
        about a seat that owed us nothing).  The game ends, and nobody is blamed (the reason
        UNCLEAR_SILENCE)."""
        self.reason = UNCLEAR_SILENCE
        by, name = self._seat_name(accuser), self._seat_name(absent)
        if voucher is None:
            why = (f"{by} ended the game saying {name} was gone; {name} had kept this seat waiting long enough that "
                   f"{by} may have been right (its wait may be shorter than ours, another seat said it heard {name}, "
                   f"this seat was busy, or our pings had told the table {name} was silent), and it is here now: "
                   f"nothing here tells who was right; nobody is blamed")
        else:
            when = f" as our wait of {self.wait:.0f} s since that word runs out" if claimed else " and owes us nothing"
            why = (f"{by} ended the game saying {name} was gone; {name} is silent here{when}, but "
                   f"{self._seat_name(voucher)} says it hears it: nothing here tells who is right; nobody is blamed")
        return self._end(Outcome.QUIT, why, accuser)

    def _end_gone(self, absent: int, why: str) -> SessionResult:
        """End the game for a seat that is gone, and tell the others why (a signed ``gone``), so
        they stop waiting for it too."""
        data = seal(self.identity, "gone", {"game_id": self.setup.game_id, "seat": self.seat, "absent": absent, "why": why})
        for endpoint in self.endpoints.values():
            self.transport.send(endpoint, data)
        return self._end(Outcome.PEER_GONE, self._gone_why(absent, f"{why}; the game ends"), absent)

    def _heard_gone(self, env: Envelope, sender: int, now: float, carrier: int | None = None) -> SessionResult | None:
        """Another seat ended the game for an absent seat: agree if we see the same.
        ``carrier``: the seat whose proven link brought it, if any (it may pass on another's)."""
        absent = env.field("absent", int)
        by = self._seat_name(sender)
        passed_by = carrier if carrier != sender else None  # another seat passed the word on
        if absent == self.seat:
            # some other seat hears us (it passed the word on), or is heard here: then it is not
            # this machine that lost the table, whatever connection brought the word
            unheard = self.presence.is_silent(sender, now)
            others = self._still_playing(but=sender)
            # every other seat silent, and at least one still playing: a seat that stopped but is
            # heard shows our link works (two colluders made one look stopped: an attack)
            lost = bool(others) and all(self.presence.is_silent(s, now) for s in self.endpoints if s != sender)
            if unheard and passed_by is None and lost:
                # we lost each other: the link between us failed, and it says it waited for us
                why = f"{by} ended the game: it had not heard from this seat for too long"
                return self._end(Outcome.PEER_GONE, why, self.seat)
            why = self._accused_why(sender, unheard, passed_by)  # as things stand now, before we stay
            mine = self.node.my_expect()
            # a seat that came back and still waits to hear what the others hold does not
            # make the record now: its run may have lost it from the disk after sending it, and
            # made again, with fresh randomness, it would be a second version (equivocation).
            # A gone sent to end that wait got an honest seat named (found by an attack)
            catching_up = self._catching_up(now)
            if mine is not None and mine.kind != "action" and not catching_up:
                # send the record it says we withhold, so the others see it come before we go
                spoke = self._speak()
                if spoke is not None:
                    return spoke
            elif mine is None or catching_up:
                # the record it names is not due here yet (what makes it due is on its way),
                # or the peers' resends may still bring it back: stay until we have it, so
                # that no other seat waits for it in vain (the same word said again changes
                # nothing: an attacker sent it three times to cut that stay short)
                if self._accused is None:
                    self._accused = (sender, now, self.node.seq, why)  # our records' count: stay until it grows
                self._left.add(sender)  # each seat that said so has left (not only the first: an attack)
                return None
            return self._end(Outcome.QUIT, why, sender)
        if not 0 <= absent < len(self.names) or absent == sender:
            return self._end(Outcome.QUIT, f"{by} left the table; the game ends", sender)
        name = self._seat_name(absent)
        self._note_arrivals(now)  # a record of its that came in this same poll counts as come
        if self._claim is not None and self._claim.absent == absent:
            # the word again (passed on, or another seat's): judged first as the claim it began
            # would be now, never less unclear than when it came (a liar sent its withheld record
            # and, behind it on one write, the accuser's word: we named the accuser; an attack)
            settled = self._settle_claim(now)
            if settled is not None:
                return settled
        head = next((e for e in self.node.outstanding if e.speaker == absent), None)
        # our own silence, not another seat's word that it hears the seat: a word no one can
        # check must not make us blame the seat that names a gone one (found by an attack)
        silent = self.presence.silent_for(absent, now)
        silent_here = self.presence.is_silent(absent, now) and silent > self.wait
        # ... yet a seat silent here but heard lately by another seat is not named on the word:
        # one that owes us something is judged as a claim below, one that owes nothing is
        # unclear (its link to us alone may be down: a liar's word named such a seat, one
        # that owed nothing, while an honest seat's pings said it heard it; attacks)
        heard_elsewhere = self.presence.unheard_for(absent, now) <= self.wait
        # our own stalls (time not listening) moved its silence on here, not at the accuser's
        masked = silent <= self.wait < silent + self.presence.deaf_since(now - 2 * self.wait)
        # the silence the accuser's word needs to be right by its own wait, where that is
        # shorter than ours (each seat sets its own: an attack had a seat with a longer wait
        # than the accuser's name it)
        right = min(self.wait, self._right_after(sender))
        # it came back here only since our pings told the accuser it was silent that long (a
        # liar silent to all pinged us alone just before the accuser's rightful word, which it
        # then passed on, or spoke on: we named the accuser; an attack)
        back = not silent_here and self._back_since_told(absent, sender, now, right)
        # or it had been silent that long already, if not for our whole wait
        silent_long = not silent_here and silent >= right
        # or a protocol record of its came here lately, due that long by then: it may have
        # reached us alone just before the accuser's wait ran out (an attack, at a seat whose
        # own wait was longer, named the accuser)
        came = self._came_after.get(absent)
        came_long = came is not None and self._lately(came[0], now) and came[1] >= right
        unclear = (silent_here and heard_elsewhere) or masked or back or silent_long or came_long
        # a protocol record it owes, due here that long: if it comes now, it does not show the
        # accuser wrong (and if it never comes, our own wait names its maker, as ever)
        owed_long = head is not None and head.kind != "action" and now - self._due_since(absent) >= right
        claim = self._claim
        if carrier == absent and (unclear or (claim is not None and claim.absent == absent and claim.unclear)):
            # it passes the word on itself, after a silence longer than our wait that only
            # another seat's word, or our own stall, excused: one of them says what is not so
            # (two colluders: the accuser was named, an attack; and the accused, were the
            # accuser the liar)
            return self._end_unclear(absent, sender)
        if carrier == absent and not silent_here and (head is None or head.kind == "action" or
                                                      not self._due_at_its_seat(absent, now)):
            # the seat it calls gone passed its word on to us itself: it is here, and whatever it
            # made before it stopped came first on its link.  A protocol record it still owes
            # here, which its own pings say was not due at its seat yet (it lacked another
            # seat's record, which reached us only lately), is not withheld: an attack held back
            # what made it due from that seat alone and told it alone that it was gone; its stay
            # ran out, and the others named it.  (One that was due there is judged as ever: an
            # honest seat makes it before it stops, and a liar passed an honest gone on, unmoved)
            why = f"{by} ended the game saying {name} was gone, but {name} itself passed that on to us; nobody is blamed but {by}"
            return self._end(Outcome.QUIT, why, sender)
        if silent_here and not heard_elsewhere:
            # silent longer than our own wait: our own rule names it (a shorter silence is
            # judged below, within our wait: a blip must not let another's word name it)
            said = printable(env.field("why", str, 200))
            quiet = self.presence.quiet_for(absent, now)
            why = f"{said}; the game ends ({by} ended it, and {name} has been silent here for {quiet:.0f} s too)"
            return self._end(Outcome.PEER_GONE, self._gone_why(absent, why), absent)
        left = self._lately_late(absent, now)
        if left is not None:
            # its record came late here too, just before the word: that seat's wait may have run
            # out first, whatever it owes now (a word that soon after cannot be about its next
            # record, whose wait has not run out anywhere; an attack waited out the claim)
            return self._end_late(absent, sender, "last", left)
        if head is None:
            if silent_here and heard_elsewhere:
                # silent here past our wait, while another seat says it hears it: its link to us
                # alone may be down, and the word a liar's (one named such a seat: an attack)
                return self._end_unclear(absent, sender, self.presence.relayed_by.get(absent), claimed=False)
            if unclear:
                # what it owed came here only since it was silent to the table by what we told it
                # (a liar sent its move to us alone just before the accuser's wait ran out: an attack)
                return self._end_unclear(absent, sender)
            why = (f"{by} ended the game saying {name} was gone, but {name} owes nothing here and was heard "
                   f"{silent:.0f} s ago; nobody is blamed but the one who stopped")
            return self._end(Outcome.QUIT, why, sender)
        self._left.add(sender)  # its silence from now on says nothing of our link (each that said so: an attack)
        if self._claim is None:
            # we wait for that seat too, and it was heard lately: see for ourselves, within our
            # own wait, whether its record comes (or, for a move, whether it is heard again)
            self._claim = GoneClaim(sender, absent, self.node.log.head, head.kind, self.presence.count[absent], now, unclear,
                                    owed_long)
            what = f"withholds its {head.kind} record" if self._claim.withheld else "is gone"
            self.say(f"{by} left saying {name} {what}; waiting up to {self.wait:.0f} s to see it here")
        return None

    def _carried(self, env: Envelope, signer: int, carrier: int | None) -> None:
        """An ending ``signer`` signed, taken in as sound, came on ``carrier``'s link: the carrier
        has stopped, since only a seat that stops passes endings on (§12.5), on that word.  Not
        so a `gone` naming the carrier itself: an accused passes it on as it leaves, whether or
        not it withheld what it owes (``_heard_gone`` judges that)."""
        if carrier is None or carrier == signer or (env.kind == "gone" and env.body.get("absent") == carrier):
            return
        self._stopped_on.setdefault(carrier, signer)
        self._left.add(carrier)

    def _due_at_its_seat(self, seat: int, now: float) -> bool:
        """Whether the protocol record ``seat`` owes here was due at its own seat too: its last
        ping (signed) says it holds every record before this step, or one it lacks is its own,
        or our log last grew so long ago (LATE_GRACE) that the others' resends, which each of
        its pings draws, have brought it what it lacked (a liar may say it lacks a record).
        That by the clock (``_head_moved``): the others resend while our own loop stalls, and
        a liar that stalled ours (records slow to decode) must not make its record look new."""
        start = self.node.step_starts[-1]
        held = self.records_of.get(seat, 0)
        if held >= start or any(entry.sender == seat for entry in self.node.log.entries[held:start]):
            return True
        return now - self._head_moved > self._late_grace()

    def _accused_why(self, accuser: int, unheard: bool, carrier: int | None) -> str:
        """Why the game ends naming a seat that said this one was gone: ``unheard``, whether
        that seat was silent here when its word came; ``carrier``, the seat that passed its word
        on, if another did."""
        by = self._seat_name(accuser)
        if not unheard:
            why = f"{by} ended the game saying this seat was gone, but we hear each other"
        elif carrier is None:
            why = (f"{by} ended the game saying this seat was gone; {by} is not heard here, but other seats are: "
                   f"it is not this machine that lost the table")
        else:
            # it does not talk to us, but another seat does, so this machine did not lose the table:
            # the link between the two of us failed, or it stopped talking to us on purpose
            why = (f"{by} ended the game saying this seat was gone; {by} is not heard here, but "
                   f"{self._seat_name(carrier)}, which hears this seat, passed that on")
        return f"{why}; nobody is blamed but it"

    def _still_playing(self, but: int | None = None) -> list[int]:
        """The other seats that have not ended the game here (and not ``but``)."""
        return [s for s in self.endpoints if s not in self._left and s != but]

    def _seat_name(self, seat: int) -> str:
        return f"{self.names[seat]} (seat {seat})"

    def _show_genesis_at_table(self, seat: int) -> None:
        """A seat is away: what may show it played another game (splitting.py does)."""
