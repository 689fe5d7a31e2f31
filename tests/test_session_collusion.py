"""A coalition of every seat but one, pooling its secrets and records, learns none of the
card faces the protocol keeps from it (protocol.md §1, §9): 12. of the cheats catalogue.
The game is one honest 3-player round at its first move (``protocol_helpers.game_at``)."""
from __future__ import annotations

from protocol_helpers import game_at

from saboteur_p2p.crypto.group import Point, check_point, mul, sadd, sub
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.messages import Shares
from saboteur_p2p.rules import Deck


def test_all_seats_but_one_pooling_their_secrets_cannot_decrypt_its_cards():
    """The coalition holds every record and every secret but the victim's.  The victim's
    hand, its role, the set-aside role, the goals and the undealt draw pile decrypt (with
    the coalition's secrets) to points that are no card at all, and the victim published
    its share of none of them; a card shown to a coalition member (by the victim's public
    share) decrypts to its face, so the check itself can fail."""
    game = game_at("move")
    victim = 0  # seats 1 and 2 pool their secrets
    pooled = sadd(game.nodes[1].secret, game.nodes[2].secret)  # type: ignore[arg-type]
    dealer = game.spectator.dealer
    state = game.spectator.state
    assert state is not None
    batch = dealer.batches[0]
    every_face = {point for faces in batch.faces.values() for point in faces}

    def decrypt(card: tuple[int, Deck, int]) -> Point:
        c1, c2 = dealer.ciphertext(card)
        return sub(c2, mul(pooled, c1))

    hidden = [(0, Deck.DRAW, h) for h in state.hands[victim]]
    hidden += [(0, Deck.ROLES, victim)] + [(0, Deck.ROLES, p) for p in range(3, len(batch.faces[Deck.ROLES]))]
    hidden += [(0, Deck.GOALS, p) for p in range(3)] + [(0, Deck.DRAW, h) for h in state.draw_pile]
    assert len(hidden) == 6 + 1 + 1 + 3 + len(state.draw_pile) and len(state.draw_pile) > 40
    for card in hidden:
        assert decrypt(card) not in every_face, f"the coalition decrypted {card}"
    victim_shares = [Shares.decode(e.body) for e in game.spectator.log.entries if e.kind == "shares" and e.sender == victim]
    published = {p.card for shares in victim_shares for p in shares.public}
    assert published and not published & set(hidden), "the victim published its share of a hidden card"
    assert not any(shares.sealed for shares in victim_shares)

    # the control: a card first shown to a coalition member, by the victim's public share
    member = game.nodes[1]
    shown = (0, Deck.DRAW, state.hands[1][0])
    public = next(p for shares in victim_shares for p in shares.public if p.card == shown)
    assert dealer.reveals[RevealNeed(shown, frozenset({1}))].public
    face_point = sub(decrypt(shown), check_point(public.share))
    assert batch.faces[Deck.DRAW][face_point] == member.dealer.my_faces[shown]
