"""Decryption shares: the ones a seat owes, made with their proofs, and the ones it gets, checked.

A card is opened by every owing seat's decryption share ``D_i = x_i C1`` (protocol.md
§1.2).  To everyone, a seat publishes ``D_i`` with a Chaum-Pedersen proof that it used the
key behind its key share (§7.2).  To some seats, it sends each recipient ``D_i`` sealed
under the recipient's key, with a proof anyone can check (§7.3).  A seat checks the sealed
shares sent to it (spectators check them all), so a bad sealed share meant for another seat
goes by unchecked until that seat names its sender; every other seat can then recheck the
signed record itself (``ShareBook.recheck``, §8.3).
"""
from __future__ import annotations

from collections.abc import Mapping

from ..crypto.group import InvalidPoint, Point, RandomBytes, Scalar, check_point, mul
from ..crypto.log import MalformedRecord, decode_record
from ..crypto.proofs import Context, open_sealed_share, prove_dleq, seal_share, verify_dleq, verify_sealed_share
from .dealer import MentalDealer, RevealNeed
from .errors import ProtocolViolation
from .messages import ActionMsg, MalformedMessage, PublicShare, SealedShare, Shares


def share_context(game_id: bytes, need: RevealNeed, prover: int, recipient: int | None) -> Context:
    """What a share's proof is bound to: the card, its audience and the share's recipient."""
    batch, deck, pos = need.card
    to = "all" if need.audience is None else ",".join(map(str, sorted(need.audience)))
    step = f"share/{batch}/{pos}/{to}/{'public' if recipient is None else recipient}"
    return Context(game_id, step, deck.value, prover)


class ShareBook:
    """One seat's (or a spectator's) side of the decryption shares of one game."""

    def __init__(self, game_id: bytes, dealer: MentalDealer, keys: Mapping[int, Point]) -> None:
        self.game_id = game_id
        self.dealer = dealer
        #: every seat's key share, read as the key records fill it in (the node's own table)
        self.keys = keys
        #: sealed shares opened for this seat, per reveal, until every ower's are in
        self.opened: dict[RevealNeed, dict[int, Point]] = {}

    def make(self, seat: int, secret: Scalar, needs: tuple[RevealNeed, ...], rand: RandomBytes) -> Shares:
        """The shares ``seat`` owes for ``needs``, in the order the protocol fixes."""
        X = self.keys[seat]
        public, sealed = [], []
        for need in needs:
            c1, _ = self.dealer.ciphertext(need.card)
            if need.audience is None:
                share = mul(secret, c1)
                proof = prove_dleq(secret, X, c1, share, share_context(self.game_id, need, seat, None), rand)
                public.append(PublicShare(need.card, share, proof))
                continue
            for recipient in sorted(need.audience):
                context = share_context(self.game_id, need, seat, recipient)
                E1, E2, proof3 = seal_share(secret, X, c1, self.keys[recipient], context, rand)
                sealed.append(SealedShare(need.card, tuple(sorted(need.audience)), recipient, E1, E2, proof3))
        return Shares(tuple(public), tuple(sealed))

    def take(
        self,
        sender: int,
        message: Shares,
        owed: tuple[RevealNeed, ...],
        seat: int | None,
        secret: Scalar | None,
        verify_all: bool,
    ) -> None:
        """Check and keep a seat's shares, which must be exactly the ones it owes.

        ``seat`` and ``secret`` are the reader's: it checks the sealed shares sent to it, and
        all of them when ``verify_all``.
        """
        X = self.keys[sender]
        wanted_public = [n for n in owed if n.audience is None]
        wanted_sealed = [(n, r) for n in owed if n.audience is not None for r in sorted(n.audience)]
        got_public = [RevealNeed(p.card, None) for p in message.public]
        got_sealed = [(RevealNeed(s.card, frozenset(s.audience)), s.recipient) for s in message.sealed]
        if got_public != wanted_public or got_sealed != wanted_sealed:
            raise ProtocolViolation(sender, "wrong-shares", "the shares sent are not exactly the shares owed")
        own = sender == seat
        for need, share in zip(wanted_public, message.public, strict=True):
            c1, _ = self.dealer.ciphertext(need.card)
            point = share.share if own else check_point(share.share, "decryption share")
            if not own and not verify_dleq(X, c1, point, share.proof, share_context(self.game_id, need, sender, None)):
                raise ProtocolViolation(sender, "bad-share", f"decryption share for {need.card} does not verify")
            self.dealer.reveals[need].shares[sender] = point
        for (need, recipient), sealed in zip(wanted_sealed, message.sealed, strict=True):
            if own or (recipient != seat and not verify_all):
                continue
            points = self.verified_sealed_share(sender, need, sealed)
            if points is None:
                raise ProtocolViolation(sender, "bad-share", f"sealed share for {need.card} to seat {recipient} does not verify")
            if recipient == seat and secret is not None:
                self.opened.setdefault(need, {})[sender] = open_sealed_share(secret, *points)
        for need in {n: None for n, _ in wanted_sealed}:
            state = self.dealer.reveals[need]
            state.shares[sender] = b""
            if len(state.shares) == len(state.owers):
                self.dealer.complete_private(need, self.opened.pop(need, {}))

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
        """Check every sealed share in a record already taken in (a seat checks only its own
        when they arrive): how a seat tests another's accusation of a bad sealed share."""
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
        for sealed in shares.sealed:
            need = RevealNeed(sealed.card, frozenset(sealed.audience))
            try:
                good = self.verified_sealed_share(entry.sender, need, sealed) is not None
            except (InvalidPoint, KeyError, IndexError, TypeError):
                good = False
            if not good:
                detail = f"sealed share for {sealed.card} to seat {sealed.recipient} does not verify"
                return ProtocolViolation(entry.sender, "bad-share", detail)
        return None


__all__ = ["ShareBook", "share_context"]
