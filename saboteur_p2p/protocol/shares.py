"""Decryption shares: the ones a seat owes, made with their proofs, and the ones it gets, checked.

A card is opened by every owing seat's decryption share ``D_i = x_i C1`` (protocol.md
§1.2).  To everyone, a seat publishes ``D_i`` with a Chaum-Pedersen proof that it used the
key behind its key share (§7.2).  A card's first reveal to one seat is public too: the
recipient's own share, which it never publishes, keeps the card from everyone else; its
recipient checks those shares at once, and the other seats when the card is shown to all
(or when the recipient names their sender: ``ShareBook.recheck``, §8.3).  A later reveal of
the card to another seat would show it to all if published, so there a seat sends each
recipient ``D_i`` sealed under the recipient's key, with a proof anyone can check (§7.3),
and nothing that checks ``D_i`` on its own (``D_i`` has as few values as the deck has faces:
anyone could try each).  A seat checks the sealed shares sent to it (spectators check them
all); a bad sealed share meant for another seat goes by unchecked until that seat names its
sender, and every other seat can then recheck the signed record itself.

A seat that holds a card is the one seat that owes the card's reveal to all: it publishes
its own share; the others' shares published for the card's first reveal count as theirs,
and it opens the shares sealed to it, each with a proof that it decrypted the sealed share
with its own key (§7.3.1).  Every other seat checks that opening proof and the sealed
share's proof: a false opening is the holder's fault, a false sealed share its sender's.
A move shows its card that way, so the turn needs no round of shares after it; at the end
of the game each seat shows its own gold, so a seat that stalls holds up only its own.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping

from ..crypto.group import InvalidPoint, Point, RandomBytes, Scalar, check_point, mul, sub
from ..crypto.log import MalformedRecord, decode_record
from ..crypto.proofs import Context, open_sealed_share, prove_dleq, seal_share, verify_dleq, verify_sealed_share
from .dealer import CardKey, MentalDealer, RevealNeed, UnknownCard
from .errors import ProtocolViolation
from .messages import ActionMsg, MalformedMessage, OpenedShare, PublicShare, SealedShare, Shares


def share_context(game_id: bytes, need: RevealNeed, prover: int, recipient: int | None) -> Context:
    """What a share's proof is bound to: the card, its audience and the share's recipient."""
    batch, deck, pos = need.card
    to = "all" if need.audience is None else ",".join(map(str, sorted(need.audience)))
    step = f"share/{batch}/{pos}/{to}/{'public' if recipient is None else recipient}"
    return Context(game_id, step, deck.value, prover)


def opened_context(game_id: bytes, need: RevealNeed, opener: int, ower: int) -> Context:
    """What the proof of an opened share is bound to: the card shown to all, and whose share it is."""
    batch, deck, pos = need.card
    return Context(game_id, f"opened/{batch}/{pos}/{ower}", deck.value, opener)


class AheadRefused(ValueError):
    """Shares sent ahead of a record that this seat does not take (they prove nothing)."""


class ShareBook:
    """One seat's (or a spectator's) side of the decryption shares of one game."""

    def __init__(self, game_id: bytes, dealer: MentalDealer, keys: Mapping[int, Point], seat: int | None) -> None:
        self.game_id = game_id
        self.dealer = dealer
        #: the reader's seat (None for a spectator)
        self.seat = seat
        #: every seat's key share, read as the key records fill it in (the node's own table)
        self.keys = keys
        #: the shares of each reveal to this seat (public, or sealed and opened), until every
        #: ower's are in
        self.opened: dict[RevealNeed, dict[int, Point]] = {}
        #: every sealed share in the log, by (card, sender, recipient): the first for each,
        #: with the shares of the record it came in (which judge a false proof: ``take``)
        self.sealed_seen: dict[tuple[CardKey, int, int], tuple[RevealNeed, SealedShare, Shares]] = {}
        #: those of them this seat has checked (its own, those sealed to it, those its card's
        #: showing checked): ``failing_senders`` checks the rest
        self.sealed_checked: set[tuple[CardKey, int, int]] = set()
        #: this seat's own share of each card it published or sealed: its opening by another
        #: seat is compared with it
        self.my_shares: dict[CardKey, Point] = {}
        #: the shares sealed to this seat, opened, by (card, sender)
        self.opened_for_me: dict[tuple[CardKey, int], Point] = {}
        #: shares this seat made before it owed them, sent ahead to their recipients (§12.6)
        self.premade: dict[RevealNeed, PublicShare | tuple[SealedShare, ...]] = {}
        #: shares sent ahead to this seat, checked and opened: by (card, sender), the share and
        #: its opening
        self.ahead: dict[tuple[CardKey, int], tuple[PublicShare | SealedShare, Point]] = {}
        #: public shares of reveals to other seats, not checked yet, by (card, sender): each is
        #: checked when its card is shown to all, or when its sender is named for it
        #: (with the shares of the record it came in, which judge a false proof: ``take``)
        self.unchecked: dict[tuple[CardKey, int], tuple[RevealNeed, PublicShare, Shares]] = {}
        #: those of them whose check, made early (``precheck``), failed: they stay unchecked,
        #: to be blamed when their card is shown, as if never checked before
        self.failed_early: set[tuple[CardKey, int]] = set()
        #: those checked at their card's showing (taken out of ``unchecked`` then): a false one
        #: found so is blamed with the showing record, and ``recheck`` still finds the record
        #: it came in, to judge which record at fault is the earliest (found by review)
        self.shown: dict[tuple[CardKey, int], tuple[RevealNeed, PublicShare, Shares]] = {}
        #: where a seat sends the checks of such shares at a card's showing, to run them in
        #: the background (Node); None: they run at once
        self.check_later: Callable[[Callable[[], None]], None] | None = None

    def openable(self, opener: int, need: RevealNeed) -> list[int]:
        """The seats whose shares ``opener`` opens for a reveal to all: none, unless it holds the
        card and so owes the reveal alone; then every other seat whose share of the card was
        sealed to it (in the log), that has not given one and published none of the card."""
        state = self.dealer.reveals[need]
        if need.audience is not None or state.owers != (opener,):
            return []
        published = self.dealer.published.get(need.card, {})
        return [i for i in range(self.dealer.players) if i != opener and i not in state.shares and i not in published
                and (need.card, i, opener) in self.sealed_seen]

    def make(
        self, seat: int, secret: Scalar, needs: tuple[RevealNeed, ...], rand: RandomBytes,
    ) -> Shares:
        """The shares ``seat`` owes for ``needs``, in the order the protocol fixes, and the
        other seats' shares of the cards it holds and shows to all, opened."""
        X = self.keys[seat]
        public: list[PublicShare] = []
        sealed: list[SealedShare] = []
        opened: list[OpenedShare] = []
        for need in needs:
            made = self.premade.pop(need, None)
            if need.audience is None or self.dealer.reveals[need].public:
                public.append(made if isinstance(made, PublicShare) else self._publish(seat, secret, need, rand))
            else:
                sealed.extend(made if isinstance(made, tuple) else self._seal(seat, secret, need, rand))
        for need in needs:
            for ower in self.openable(seat, need):
                D = self.opened_for_me[(need.card, ower)]
                _, kept, _ = self.sealed_seen[(need.card, ower, seat)]
                context = opened_context(self.game_id, need, seat, ower)
                opening = prove_dleq(secret, X, kept.E1, sub(kept.E2, D), context, rand)
                opened.append(OpenedShare(need.card, ower, D, opening))
        return Shares(tuple(public), tuple(sealed), tuple(opened))

    def _publish(self, seat: int, secret: Scalar, need: RevealNeed, rand: RandomBytes) -> PublicShare:
        """``seat``'s share of a card shown to all, or of a card's first reveal to one seat,
        with its proof."""
        c1, D = self._my_share(secret, need.card)
        proof = prove_dleq(secret, self.keys[seat], c1, D, share_context(self.game_id, need, seat, None), rand)
        return PublicShare(need.card, D, proof)

    def _my_share(self, secret: Scalar, card: CardKey) -> tuple[Point, Point]:
        """The card's C1, and this seat's share of the card ``x·C1`` (made once)."""
        c1, _ = self.dealer.ciphertext(card)
        D = self.my_shares.get(card)
        if D is None:
            D = self.my_shares[card] = mul(secret, c1)
        return c1, D

    def _seal(self, seat: int, secret: Scalar, need: RevealNeed, rand: RandomBytes) -> tuple[SealedShare, ...]:
        """``seat``'s share of a card shown to some seats, sealed to each of them (ascending)."""
        assert need.audience is not None
        X = self.keys[seat]
        c1, D = self._my_share(secret, need.card)
        audience = tuple(sorted(need.audience))
        sealed = []
        for recipient in audience:
            context = share_context(self.game_id, need, seat, recipient)
            E1, E2, proof = seal_share(secret, X, c1, self.keys[recipient], context, rand, share=D)
            sealed.append(SealedShare(need.card, audience, recipient, E1, E2, proof))
        return tuple(sealed)

    def made_ahead_for(self, recipient: int) -> Shares | None:
        """The shares made ahead (``make_ahead``) for ``recipient`` that no record of ours holds
        yet: sent again to a seat that came back, which lost them with its run (§12.6)."""
        public = [made for need, made in self.premade.items()
                  if isinstance(made, PublicShare) and need.audience is not None and recipient in need.audience]
        sealed = [share for made in self.premade.values() if isinstance(made, tuple) for share in made
                  if share.recipient == recipient]
        return Shares(tuple(public), tuple(sealed)) if public or sealed else None

    def make_ahead(self, seat: int, secret: Scalar, rand: RandomBytes) -> dict[int, Shares]:
        """The shares ``seat`` will owe for cards just shown to some seats, made now (once
        each) so they can go to their recipients at once, by recipient (§12.6).  Its record
        sends the same shares later; the log stays the record of them."""
        public: dict[int, list[PublicShare]] = {}
        sealed: dict[int, list[SealedShare]] = {}
        for need in self.dealer.owed_by(seat):
            if need.audience is None or need in self.premade:
                continue
            if self.dealer.reveals[need].public:
                made = self.premade[need] = self._publish(seat, secret, need, rand)
                (recipient,) = need.audience
                public.setdefault(recipient, []).append(made)
                continue
            made_sealed = self.premade[need] = self._seal(seat, secret, need, rand)
            for share in made_sealed:
                sealed.setdefault(share.recipient, []).append(share)
        return {r: Shares(tuple(public.get(r, ())), tuple(sealed.get(r, ()))) for r in sorted({*public, *sealed})}

    def take_ahead(self, sender: int, shares: Shares, seat: int, secret: Scalar) -> bool:
        """Shares ``sender`` sent ahead of its record (public ones of a card's first reveal to
        this seat, sealed ones of a later reveal): check each (and open a sealed one), and
        decrypt every card whose owers' shares are then all here.  True when a card was
        learnt.  The log is untouched, so a bad share here proves nothing: it raises
        AheadRefused, and the reveal waits for the logged shares as it would have anyway."""
        if shares.opened:
            raise AheadRefused("opened shares are not sent ahead")
        sent: list[tuple[RevealNeed, PublicShare | SealedShare]] = [
            *((RevealNeed(p.card, frozenset((seat,))), p) for p in shares.public),
            *((RevealNeed(s.card, frozenset(s.audience)), s) for s in shares.sealed),
        ]
        learnt = False
        for need, share in sent:
            state = self.dealer.reveals.get(need)
            if state is None or need not in self.dealer.pending or sender not in state.owers:
                continue  # not (or no longer) owed to us by this sender: late, or never asked
            if sender in state.shares or (need.card, sender) in self.ahead:
                continue
            if isinstance(share, PublicShare) != state.public or (isinstance(share, SealedShare) and share.recipient != seat):
                raise AheadRefused(f"a {'public' if isinstance(share, PublicShare) else 'sealed'} share for {need.card}, "
                                   f"which is owed {'public' if state.public else 'sealed'} to this seat")
            try:
                if isinstance(share, PublicShare):
                    mine = share.share if self._proven(sender, need, share, share.share) else None
                else:
                    mine = self._open_mine(sender, need, share, secret)
            except InvalidPoint as exc:  # (a public share's names its card already)
                raise AheadRefused(str(exc) if isinstance(share, PublicShare) else f"share for {need.card}: {exc}") from None
            if mine is None:
                raise AheadRefused(f"share for {need.card} does not verify")
            self.ahead[(need.card, sender)] = (share, mine)
            shares_of = {**self.opened.get(need, {})}
            for ower in state.owers:
                if ower not in shares_of and (need.card, ower) in self.ahead:
                    shares_of[ower] = self.ahead[(need.card, ower)][1]
            if len(shares_of) == len(state.owers):
                try:
                    self.dealer.open_private(need, shares_of)
                except UnknownCard:
                    continue  # every share checked, so the deck is at fault: the log's shares will say so
                learnt = True
        return learnt

    def _proven(self, sender: int, need: RevealNeed, share: PublicShare, D: Point) -> bool:
        """Whether the proof of ``sender``'s public share ``D`` for ``need`` holds (``_share_proven``)."""
        c1, _ = self.dealer.ciphertext(need.card)
        context = share_context(self.game_id, need, sender, None)
        return _share_proven(self.keys[sender], c1, D, share.proof, context, f"decryption share for {need.card}")

    def take(
        self,
        sender: int,
        message: Shares,
        owed: tuple[RevealNeed, ...],
        seat: int | None,
        secret: Scalar | None,
        verify_all: bool,
    ) -> None:
        """Check and keep a seat's shares, which must be exactly the ones it owes (and exactly
        the other seats' shares of the cards it holds and shows to all, opened).

        ``seat`` and ``secret`` are the reader's: it checks the shares of the reveals to it,
        and all of them when ``verify_all``; the public shares of a reveal to another seat are
        checked when the card is shown to all (or when that seat names their sender).  A
        share of the sender's that fails its proof makes the record malformed (bad-message)
        if any point in it is invalid, checked or not, else false (bad-share): so every
        reader blames the record alike, whichever of its shares it checks first.
        """
        try:
            self._take(sender, message, owed, seat, secret, verify_all)
        except ProtocolViolation as violation:
            if violation.peer == sender and violation.reason == "bad-share":
                invalid = _invalid_point(message)
                if invalid is not None:
                    raise ProtocolViolation(sender, "bad-message", invalid) from None
            raise

    def _take(
        self, sender: int, message: Shares, owed: tuple[RevealNeed, ...], seat: int | None, secret: Scalar | None,
        verify_all: bool,
    ) -> None:
        reveals = self.dealer.reveals
        wanted_public = [n for n in owed if n.audience is None or reveals[n].public]
        wanted_sealed = [(n, r) for n in owed if n.audience is not None and not reveals[n].public for r in sorted(n.audience)]
        wanted_opened = [(n, i) for n in wanted_public for i in self.openable(sender, n)]
        got_public = [p.card for p in message.public]
        got_sealed = [(RevealNeed(s.card, frozenset(s.audience)), s.recipient) for s in message.sealed]
        got_opened = [(RevealNeed(o.card, None), o.ower) for o in message.opened]
        if got_public != [n.card for n in wanted_public] or got_sealed != wanted_sealed or got_opened != wanted_opened:
            raise ProtocolViolation(sender, "wrong-shares", "the shares sent are not exactly the shares owed")
        own = sender == seat
        for need, share in zip(wanted_public, message.public, strict=True):
            point = share.share  # its check_point comes with its proof's (_proven)
            if need.audience is not None:
                self._take_published(sender, need, share, point, own or not (seat in need.audience or verify_all), message)
                continue
            if not own and not self._proven(sender, need, share, point):
                raise ProtocolViolation(sender, "bad-share", f"decryption share for {need.card} does not verify")
            reveals[need].shares[sender] = point
        for (need, recipient), sealed in zip(wanted_sealed, message.sealed, strict=True):
            key = (need.card, sender, recipient)
            self.sealed_seen.setdefault(key, (need, sealed, message))
            if own:
                self.sealed_checked.add(key)
                continue  # made here
            if recipient != seat and not verify_all:
                continue  # its recipient checks it; if it is ever opened, every seat checks it then
            detail = f"sealed share for {need.card} to seat {recipient} does not verify"
            if recipient != seat or secret is None:
                if self.verified_sealed_share(sender, need, sealed) is None:
                    raise ProtocolViolation(sender, "bad-share", detail)
                self.sealed_checked.add(key)
                continue
            ahead = self.ahead.get((need.card, sender))
            if ahead is not None and ahead[0] == sealed:
                mine: Point | None = ahead[1]  # the very share sent ahead, checked and opened then
            else:
                mine = self._open_mine(sender, need, sealed, secret)
            if mine is None:
                raise ProtocolViolation(sender, "bad-share", detail)
            self.sealed_checked.add(key)
            self.opened.setdefault(need, {})[sender] = mine
            self.opened_for_me.setdefault((need.card, sender), mine)
        for (need, ower), opened in zip(wanted_opened, message.opened, strict=True):
            point = opened.share if own else self._checked_opened_share(sender, need, ower, opened)
            reveals[need].shares[ower] = point
        for need in wanted_public:
            if need.audience is None and reveals[need].owers == (sender,):
                self._count_published(need)
                if not verify_all:
                    self._check_sealed_copies(need.card, {o.ower for o in message.opened if o.card == need.card})
        for need in {n: None for n in owed if n.audience is not None}:
            state = reveals[need]
            state.shares.setdefault(sender, b"")  # the sealed shares of a seat in: its part is done
            if len(state.shares) == len(state.owers):
                self.dealer.complete_private(need, self.opened.pop(need, {}))
                for ower in state.owers:
                    self.ahead.pop((need.card, ower), None)

    def _take_published(
        self, sender: int, need: RevealNeed, share: PublicShare, point: Point, later: bool, message: Shares,
    ) -> None:
        """A seat's public share of a card's first reveal to one seat: checked now by that seat
        (and with ``verify_all``), or ``later``, when the card is shown to all (§6.8)."""
        card = need.card
        if later:
            if sender != self.seat:
                self.unchecked[(card, sender)] = (need, share, message)
        else:
            ahead = self.ahead.get((card, sender))
            if not (ahead is not None and ahead[0] == share) and not self._proven(sender, need, share, point):
                raise ProtocolViolation(sender, "bad-share", f"decryption share for {card} does not verify")
            self.opened.setdefault(need, {})[sender] = point
        self.dealer.published.setdefault(card, {})[sender] = point
        self.dealer.reveals[need].shares[sender] = point

    def _check_sealed_copies(self, card: CardKey, opened: set[int]) -> None:
        """A card shown to all: check every share of it sealed to another seat that was not
        opened now (a seat whose published share counts sealed a copy anyway), so that a bad
        one a colluding recipient kept quiet about is named by every seat, as a spectator
        named it when it came (§8.3); its record is judged as ``take`` judges it."""
        for (each, ower, recipient), (need, sealed, message) in self.sealed_seen.items():
            if each != card or ower in opened or self.seat in (ower, recipient):
                continue
            self._judge_sealed(ower, need, sealed, message)

    def _judge_sealed(self, ower: int, need: RevealNeed, sealed: SealedShare, message: Shares) -> None:
        """Raise what is wrong with ``ower``'s sealed share (nothing: return), judging the
        record it came in (``message``) as ``take`` does: a point outside the group anywhere
        in it is bad-message, else a false proof is bad-share."""
        what = f"sealed share for {need.card} to seat {sealed.recipient}"
        try:
            good = self.verified_sealed_share(ower, need, sealed) is not None
        except InvalidPoint as exc:
            raise ProtocolViolation(ower, "bad-message", f"{what}: {exc}") from None
        if not good:
            invalid = _invalid_point(message)
            if invalid is not None:
                raise ProtocolViolation(ower, "bad-message", invalid)
            raise ProtocolViolation(ower, "bad-share", f"{what} does not verify")
        self.sealed_checked.add((need.card, ower, sealed.recipient))

    def failing_senders(self) -> set[int]:
        """The seats whose shares, taken in and not checked yet (public shares of first reveals
        to other seats, and shares sealed to other seats: §8.3; and those of cards shown,
        whose checks may wait in the background), fail a check made now.  A
        seat whose game ends before those cards are shown checks them so, that its verdict
        agrees with its log, whose every share ``verify`` checks (a false share sent to
        another seat just before its sender left went unnamed: an attack)."""
        failing: set[int] = set()
        # those of cards shown too: the check of one may still wait behind another's that
        # failed first, in the order the cards were shown, not the order of their records
        # (found by review); one that passes is checked, as at its card's showing (``precheck``)
        for held in (self.unchecked, self.shown):
            for (card, sender), waiting in list(held.items()):
                if sender in failing:
                    continue
                if self._held(sender, card, waiting) is None:
                    del held[(card, sender)]
                else:
                    failing.add(sender)
        for key, (need, sealed, message) in list(self.sealed_seen.items()):
            ower = key[1]
            if key in self.sealed_checked or ower == self.seat or ower in failing:
                continue
            try:
                self._judge_sealed(ower, need, sealed, message)
            except ProtocolViolation:
                failing.add(ower)
        return failing

    def _count_published(self, need: RevealNeed) -> None:
        """A card its holder shows to all: the shares the others published for its first
        reveal count as theirs; each not checked when it came is checked now, or, with
        ``check_later``, in the background (a check reads nothing that changes meanwhile)."""
        state = self.dealer.reveals[need]
        for ower, point in sorted(self.dealer.published.get(need.card, {}).items()):
            waiting = self.unchecked.pop((need.card, ower), None)
            if waiting is not None:
                self.shown[(need.card, ower)] = waiting
                check = self._held_check(ower, need.card, waiting)
                if self.check_later is None:
                    check()
                else:
                    self.check_later(check)
            state.shares.setdefault(ower, point)  # the holder's share in its record stands

    def precheck(self, holder: int) -> bool:
        """Check one public share of a card ``holder`` was dealt (its first reveal) before the
        card is shown; False when none is left.  A share that passes is checked, as if at its
        card's showing; one that fails stays unchecked and is blamed then, as it would be
        without this check (protocol.md §6.8): the seat to move after ``holder`` takes this
        work off its turn's path while it waits."""
        audience = frozenset((holder,))
        for key, waiting in self.unchecked.items():
            if waiting[0].audience == audience and key not in self.failed_early:
                break
        else:
            return False
        card, sender = key
        if self._held(sender, card, waiting) is None:
            del self.unchecked[key]
        else:
            self.failed_early.add(key)
        return True

    def _held_check(self, sender: int, card: CardKey, waiting: tuple[RevealNeed, PublicShare, Shares]) -> Callable[[], None]:
        """A check of ``sender``'s unchecked public share of ``card`` that raises what is wrong
        with it (``_held_verdict``); it reads nothing that changes after this call."""
        need, share, message = waiting
        c1, _ = self.dealer.ciphertext(need.card)
        key, context = self.keys[sender], share_context(self.game_id, need, sender, None)

        def check() -> None:
            verdict = _held_verdict(sender, card, key, c1, share, message, context)
            if verdict is not None:
                raise verdict

        return check

    def _held(
        self, sender: int, card: CardKey, waiting: tuple[RevealNeed, PublicShare, Shares] | None,
    ) -> ProtocolViolation | None:
        """What is wrong with ``sender``'s unchecked public share of ``card`` (None: none
        waits), checked now (``_held_verdict``)."""
        if waiting is None:
            return None
        try:
            self._held_check(sender, card, waiting)()
        except ProtocolViolation as verdict:
            return verdict
        return None

    def _checked_opened_share(self, opener: int, need: RevealNeed, ower: int, opened: OpenedShare) -> Point:
        """``ower``'s share of a card shown to all, opened by ``opener``: right when the
        opening's proof shows it is the decryption of the share the ower sealed to the opener
        (else the opener is at fault) and that sealed share's proof holds (else the ower is,
        its record judged as ``take`` judges it): §7.3.1.  The ower itself checks the opening
        too, though it knows its share: with a right share and a false proof, every other seat
        names the opener, and so must it."""
        sealed_need, sealed, message = self.sealed_seen[(need.card, ower, opener)]
        D = check_point(opened.share, "opened share")
        try:
            E1, E2 = check_point(sealed.E1, "sealed share E1"), check_point(sealed.E2, "sealed share E2")
        except InvalidPoint as exc:  # the sealer's record is at fault, as a seat that checked it said then
            raise ProtocolViolation(ower, "bad-message", f"sealed share for {need.card} to seat {opener}: {exc}") from None
        context = opened_context(self.game_id, need, opener, ower)
        if not verify_dleq(self.keys[opener], E1, sub(E2, D), opened.proof, context):
            raise ProtocolViolation(opener, "bad-share", f"opened share of seat {ower} for {need.card} does not verify")
        if ower != self.seat:  # (ours is right)
            self._judge_sealed(ower, sealed_need, sealed, message)
        return D

    def _open_mine(self, sender: int, need: RevealNeed, sealed: SealedShare, secret: Scalar) -> Point | None:
        """Open a share sealed to this seat; None when the sealed share's proof fails (its
        sender is at fault, as anyone can check: §8.3).  An invalid point raises InvalidPoint."""
        points = self.verified_sealed_share(sender, need, sealed)
        if points is None:
            return None
        return open_sealed_share(secret, *points)

    def verified_sealed_share(self, sender: int, need: RevealNeed, sealed: SealedShare) -> tuple[Point, Point] | None:
        """The share's points (E1, E2) when its proof verifies, else None; an invalid point
        raises InvalidPoint."""
        c1, _ = self.dealer.ciphertext(need.card)
        E1, E2 = check_point(sealed.E1, "sealed share E1"), check_point(sealed.E2, "sealed share E2")
        if not verify_sealed_share(self.keys[sender], c1, self.keys[sealed.recipient], E1, E2, sealed.proof,
                                   share_context(self.game_id, need, sender, sealed.recipient)):
            return None
        return E1, E2

    def recheck(self, record: bytes) -> ProtocolViolation | None:
        """Check every sealed share in a record already taken in, and the public shares in it
        of reveals to other seats not checked yet (a seat checks only its own when they
        arrive): how a seat tests another's accusation of a bad share."""
        try:
            entry = decode_record(record)
            if entry.kind == "shares":
                shares: Shares | None = Shares.decode(entry.body)
            elif entry.kind == "action":
                shares = ActionMsg.decode(entry.body).shares
            else:
                return None
        except (MalformedRecord, MalformedMessage):
            return None
        if shares is None or entry.sender not in self.keys:
            return None
        verdict = self._recheck(entry.sender, shares)
        if verdict is not None and verdict.reason == "bad-share":  # as ``take`` judges the record
            invalid = _invalid_point(shares)
            if invalid is not None:
                return ProtocolViolation(entry.sender, "bad-message", invalid)
        return verdict

    def _recheck(self, sender: int, shares: Shares) -> ProtocolViolation | None:
        for public in shares.public:
            waiting = self.unchecked.get((public.card, sender)) or self.shown.get((public.card, sender))
            verdict = self._held(sender, public.card, waiting) if waiting is not None and waiting[1] == public else None
            if verdict is not None:
                return verdict
        for sealed in shares.sealed:
            need = RevealNeed(sealed.card, frozenset(sealed.audience))
            try:
                good = self.verified_sealed_share(sender, need, sealed) is not None
            except (InvalidPoint, KeyError, IndexError, TypeError):
                good = False
            if not good:
                detail = f"sealed share for {sealed.card} to seat {sealed.recipient} does not verify"
                return ProtocolViolation(sender, "bad-share", detail)
        return None


def _share_proven(
    key: Point, c1: Point, D: Point, proof: tuple[bytes, bytes, bytes], context: Context, what: str = "decryption share",
) -> bool:
    """Whether the proof of a public share ``D`` of the card whose first point is ``c1``
    holds, for the seat whose key share is ``key``.  ``D``'s ``check_point`` is left to the
    proof check, whose multiplication ``k·D`` refuses what it refuses; when the proof fails,
    an invalid ``D`` raises InvalidPoint (the record is malformed, protocol.md §6.8), else
    the answer is False."""
    if verify_dleq(key, c1, D, proof, context):
        return True
    check_point(D, what)
    return False


def _held_verdict(
    sender: int, card: CardKey, key: Point, c1: Point, share: PublicShare, message: Shares, context: Context,
) -> ProtocolViolation | None:
    """What is wrong with ``sender``'s public share of ``card``, which came in ``message``:
    nothing (None); a point outside the group, here or anywhere in the record it came in
    (``bad-message``, as ``take`` judges a record); or a false proof (``bad-share``); blamed
    on ``sender`` whichever record is being read."""
    try:
        if _share_proven(key, c1, share.share, share.proof, context, f"decryption share for {card}"):
            return None
    except InvalidPoint as exc:  # worded as when the record came: every seat says the same
        return ProtocolViolation(sender, "bad-message", str(exc))
    invalid = _invalid_point(message)
    if invalid is not None:
        return ProtocolViolation(sender, "bad-message", invalid)
    return ProtocolViolation(sender, "bad-share", f"decryption share for {card} does not verify")


def _invalid_point(message: Shares) -> str | None:
    """What is wrong with the first point in ``message`` that fails ``check_point`` (public
    and opened shares, then sealed shares' E1 and E2), or None when every one passes."""
    try:
        for public in message.public:
            check_point(public.share, f"decryption share for {public.card}")
        for opened in message.opened:
            check_point(opened.share, f"opened share for {opened.card}")
        for sealed in message.sealed:
            check_point(sealed.E1, f"sealed share E1 for {sealed.card}")
            check_point(sealed.E2, f"sealed share E2 for {sealed.card}")
    except InvalidPoint as exc:
        return str(exc)
    return None


__all__ = ["AheadRefused", "ShareBook", "opened_context", "share_context"]
