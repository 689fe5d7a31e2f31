"""Whole games over mental-poker decks: every seat its own engine, keys and knowledge.

The whole games and deals are about dealing and play, not the proofs (test_shuffle_proof,
test_proofs and test_session_cheats check those).
"""
from __future__ import annotations

import dataclasses
import random

import pytest
from protocol_helpers import (
    copy_game,
    game_at,
    hear,
    opened_decks,
    path_first,
    play_until,
    seeded_bytes,
    seeded_game,
    trusted_replay,
)
from test_share_proofs import BYSTANDER, MOVER, SEALER, share_round_after_a_swap

from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.protocol import local
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.local import RecordTiming, critical_path, first_move_expected, play_local_game
from saboteur_p2p.protocol.messages import ActionMsg
from saboteur_p2p.rules import Deck, GameConfig


@pytest.mark.slow
def test_a_full_three_round_game_of_five_bots_ends_alike_everywhere():
    game = play_local_game(GameConfig(5), ["heuristic", "random", "heuristic", "random", "heuristic"],
                           seed=3, rand=seeded_bytes(3))
    scores = {node.state.scores for node in game.nodes}
    assert len(scores) == 1 and game.spectator.state.scores in scores
    assert {node.log.head for node in game.nodes} == {game.spectator.log.head}
    replayed = trusted_replay(game)
    assert replayed.scores == game.spectator.state.scores
    assert [r.winners for r in replayed.results] == [r.winners for r in game.spectator.state.results]
    assert [r.roles for r in replayed.results] == [r.roles for r in game.spectator.state.results]
    assert len(replayed.results) == 3


@pytest.mark.parametrize("players", [3, 5, pytest.param(10, marks=pytest.mark.slow)])
def test_an_honest_deal_gives_every_seat_its_own_cards_and_nobody_else_s(players):
    config = GameConfig(players, rounds=1)
    game = play_local_game(config, ["random"] * players, seed=players, rand=seeded_bytes(players),
                           until=first_move_expected)
    for seat, node in enumerate(game.nodes):
        hand = node.state.view_for(seat).hand
        assert len(hand) == node.state.hands[seat].__len__() > 0  # every card of its hand is known to it
        assert node.state.view_for(seat).role is not None
        others = [s for s in range(players) if s != seat]
        assert all(node.state.view_for(s).hand == () for s in others)
    decks = opened_decks(game)[0]
    assert len(decks[Deck.DRAW]) == 67
    assert len(decks[Deck.GOLD]) == 28 and len(decks[Deck.GOALS]) == 3
    spectator = game.spectator.dealer
    for seat, node in enumerate(game.nodes):
        # a seat learns faces only from its own reveals or public ones
        mine = set(node.dealer.my_faces)
        for card in mine:
            shown_to = {n.audience for n in node.dealer.reveals if n.card == card}
            assert any(a is not None and seat in a for a in shown_to)
        # what it learned is what the decks really held
        for (batch, deck, pos), face in node.dealer.my_faces.items():
            assert opened_decks(game)[batch][deck][pos] == face
    # nobody, the spectator included, ever decrypts the set-aside role
    set_aside = [(0, Deck.ROLES, p) for p in range(players, len(decks[Deck.ROLES]))]
    for card in set_aside:
        assert card not in spectator.public_faces
        assert all(card not in node.dealer.my_faces for node in game.nodes)


def test_a_seat_s_own_illegal_move_is_a_local_error_and_nothing_is_sent():
    from saboteur_p2p.protocol.node import IllegalMove

    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=2, rand=seeded_bytes(2), until=first_move_expected)
    mover = game.spectator.next_expected.speaker
    node = game.nodes[mover]
    before = (len(node.records), node.seq, node.log.head)
    for bad in ("fly away", "path 999 at 1,0", "pass 999"):
        with pytest.raises(IllegalMove):
            node.move(bad)
    assert node.aborted is None and (len(node.records), node.seq, node.log.head) == before
    assert node.awaiting_move()


def _at_a_move(seed):
    return play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=seed, rand=seeded_bytes(seed), until=first_move_expected)


def _deliver_all(game, record, mover):
    from saboteur_p2p.protocol.node import ProtocolViolation

    verdicts = {}
    for seat, node in enumerate([*game.nodes, game.spectator]):
        if seat == mover:
            continue
        try:
            node.receive(record)
            verdicts[seat] = None
        except ProtocolViolation as violation:
            verdicts[seat] = (violation.peer, violation.reason)
    return verdicts


def test_a_move_carries_the_mover_s_shares_and_a_bad_one_is_blamed_on_it():
    from saboteur_p2p.protocol.messages import PublicShare, Shares

    game = _at_a_move(7)
    mover = game.spectator.next_expected.speaker
    node = game.nodes[mover]
    play = next(a for a in node.state.legal_actions() if not str(a).startswith("pass"))
    honest = node._shares_with_move(str(play))
    assert honest is not None and honest.public  # the played card's share rides with the move
    swapped = tuple(PublicShare(p.card, p.share, (p.proof[1], p.proof[0], p.proof[2])) for p in honest.public)
    bad = Shares(swapped, honest.sealed, honest.opened)
    node._shares_with_move = lambda text: bad
    record = node.move(str(play))
    assert set(_deliver_all(game, record, mover).values()) == {(mover, "bad-share")}


def test_a_move_shows_a_card_first_shown_by_public_shares_with_its_own_share_alone():
    """A dealt or drawn card came to the mover by every other seat's public share: the move
    carries the mover's own share and opens nothing, and the shares published for the card
    count, so the card is open with the move and no round of shares follows."""
    game = _at_a_move(7)
    mover = game.spectator.next_expected.speaker
    node = game.nodes[mover]
    play = next(a for a in node.state.legal_actions() if not str(a).startswith("pass"))
    record = node.move(str(play))
    shares = ActionMsg.decode(decode_record(record).body).shares
    assert shares is not None and not shares.opened and not shares.sealed
    (own,) = shares.public
    card = own.card
    assert card[1] is Deck.DRAW and card[2] in game.spectator.state.hands[mover]
    published = game.spectator.dealer.published[card]
    assert sorted(published) == [s for s in range(3) if s != mover]
    assert set(_deliver_all(game, record, mover).values()) == {None}
    assert game.spectator.next_expected.kind == "action"  # the next move, with no shares between
    assert game.spectator.dealer.reveals[RevealNeed(card, None)].shares == {mover: own.share, **published}
    assert game.spectator.dealer.public_faces[card] == opened_decks(game)[0][Deck.DRAW][card[2]]


def test_a_move_opens_the_shares_sealed_to_the_mover_of_the_card_it_shows_and_a_bad_opening_is_blamed_on_it():
    """A card shown to the mover again (Saboteur 2's Swap your hand gave it another seat's
    hand) came to it sealed by the seats that had not published their shares of it: the move
    opens those shares, so the card is open with the move and no round of shares follows."""
    from saboteur_p2p.protocol.messages import OpenedShare, Shares
    from saboteur_p2p.protocol.node import ProtocolViolation

    game = share_round_after_a_swap()
    for seat in range(3):
        assert set(hear(game, game.nodes[seat].produce(), seat).values()) == {None}
    mover = game.spectator.next_expected.speaker
    assert mover == MOVER
    node = game.nodes[mover]
    play = path_first(mover, node)
    honest = node._shares_with_move(play)
    assert honest is not None
    assert [o.ower for o in honest.opened] == [SEALER]  # the bystander published its share of it
    card = honest.public[0].card
    assert BYSTANDER in game.spectator.dealer.published[card]
    clean = copy_game(game, 0)
    record = clean.nodes[mover].move(play)
    assert set(_deliver_all(clean, record, mover).values()) == {None}
    assert clean.spectator.next_expected.kind == "action"  # the next move, with no shares between
    assert card in clean.spectator.dealer.public_faces

    forged = honest.opened[0]
    wrong_share = OpenedShare(forged.card, forged.ower, honest.public[0].share, forged.proof)  # the mover's, not the ower's
    bad = Shares(honest.public, honest.sealed, (wrong_share, *honest.opened[1:]))
    node._shares_with_move = lambda text: bad
    with pytest.raises(ProtocolViolation):
        node.move(play)  # its own node takes its openings unchecked: the card opens to nothing
    record = node.log.entries[-1].record
    assert set(_deliver_all(game, record, mover).values()) == {(mover, "bad-share")}


def test_shares_sent_with_a_move_that_needs_none_are_refused():
    game = _at_a_move(8)
    mover = game.spectator.next_expected.speaker
    node = game.nodes[mover]
    discard = next(a for a in node.state.legal_actions() if str(a).startswith("pass"))
    other = next(a for a in node.state.legal_actions() if not str(a).startswith("pass"))
    shares = copy_game(game, 0).nodes[mover]._shares_with_move(str(other))  # a copy: a trial leaves its needs behind
    assert shares is not None and shares.public
    node._shares_with_move = lambda text: shares
    from saboteur_p2p.protocol.node import ProtocolViolation

    with pytest.raises(ProtocolViolation, match="wrong-shares"):
        node.move(str(discard))  # the mover's own node refuses it too
    record = node.log.entries[-1].record
    assert set(_deliver_all(game, record, mover).values()) == {(mover, "wrong-shares")}


@pytest.mark.parametrize("point", ["sealed-move", "dealt-shares"])
def test_a_bad_share_can_be_shown_to_a_seat_that_did_not_check_it(point):
    """Seats check only the sealed shares sent to them, and the public shares of a card's
    first reveal to them; when the recipient accuses the sender, any other seat can check the
    accused record itself (recheck_sealed_shares).  At "sealed-move" seat 1's move carries its
    sealed share of the first goal to seat 0 (a later reveal); at "dealt-shares" seat 1's
    record publishes its shares of the cards dealt to seats 0 and 2 (first reveals)."""
    from saboteur_p2p.crypto.group import add, base_mul
    from saboteur_p2p.protocol.messages import Shares
    from saboteur_p2p.protocol.node import ProtocolViolation

    game = game_at(point)
    cheater, recipient, bystander = 1, 0, 2
    sender = game.nodes[cheater]
    honest = sender._shares_for
    shift = base_mul(b"\x01" + bytes(31))

    def corrupt(needs):
        shares = honest(needs)
        if point == "sealed-move":  # its sealed shares to seat 0
            sealed = tuple(dataclasses.replace(s, E2=add(s.E2, shift)) if s.recipient == recipient else s for s in shares.sealed)
            assert sealed != shares.sealed
            return Shares(shares.public, sealed, shares.opened)
        mine = {n.card for n in needs if n.audience == frozenset({recipient})}  # its public shares of seat 0's cards
        public = tuple(dataclasses.replace(p, share=add(p.share, shift)) if p.card in mine else p for p in shares.public)
        assert public != shares.public and not shares.sealed
        return Shares(public, shares.sealed, shares.opened)

    sender._shares_for = corrupt
    record = sender.produce() if point == "dealt-shares" else sender.move(path_first(cheater, sender))
    assert record is not None
    with pytest.raises(ProtocolViolation) as caught:
        game.nodes[recipient].receive(record)
    assert (caught.value.peer, caught.value.reason) == (cheater, "bad-share")
    game.nodes[bystander].receive(record)  # a bystander does not check shares meant for others
    verdict = game.nodes[bystander].recheck_sealed_shares(record)
    assert verdict is not None and (verdict.peer, verdict.reason) == (cheater, "bad-share")
    with pytest.raises(ProtocolViolation) as spectator:
        game.spectator.receive(record)
    assert (spectator.value.peer, spectator.value.reason) == (cheater, "bad-share")


@pytest.mark.slow
def test_records_of_a_group_taken_in_any_order_give_every_peer_the_same_game():
    """The records of a group (commitments, reveals, the shares a move needs) are made at once
    and reach each peer in its own order: every node still reaches the same head, the same
    state and the same scores as the spectator, which takes them in the order they were made."""
    shuffler = random.Random(5)
    game = seeded_game(GameConfig(4, rounds=1), 8)
    groups = 0
    while not game.spectator.finished:
        waiting = game.spectator.outstanding
        assert waiting, "the game stopped"
        made = []
        for expect in waiting:  # every member of the step speaks before any hears the others
            node = game.nodes[expect.speaker]
            record = node.move(path_first(expect.speaker, node)) if node.awaiting_move() else node.produce()
            assert record is not None, expect
            made.append((expect.speaker, record))
        groups += len(made) > 1
        for seat, node in enumerate(game.nodes):
            others = [record for speaker, record in made if speaker != seat]
            shuffler.shuffle(others)
            for record in others:
                node.receive(record)
        for _, record in made:
            game.spectator.receive(record)
    assert groups >= 4  # coin commitments, reveals and shares, each taken in in many orders
    assert {node.log.head for node in game.nodes} == {game.spectator.log.head}
    assert {node.state.scores for node in game.nodes} == {game.spectator.state.scores}
    assert {len(node.records) for node in game.nodes} == {len(game.spectator.records)}


def test_the_critical_path_counts_a_group_s_records_as_made_at_once():
    """Two seats' records of one group are made in parallel; the same records as two steps
    are made one after the other."""
    take = {0: 0.0, 1: 0.0, 2: 0.0}
    grouped = [RecordTiming(0, "commit", 1.0, take, step=1), RecordTiming(1, "commit", 1.0, take, step=1)]
    chained = [RecordTiming(0, "commit", 1.0, take, step=1), RecordTiming(1, "commit", 1.0, take, step=2)]
    assert critical_path(grouped, 3, latency=0.5) == 1.5
    assert critical_path(chained, 3, latency=0.5) == 3.0


def test_every_seat_is_told_when_a_logged_share_round_shows_it_its_hand(monkeypatch):
    # the hands dealt at a round's start reach every seat in the share round before the first
    # move, when the shares sent ahead of it did not (they came before the seat knew the
    # cards were owed, and were passed over): a person who does not move first must see
    # their cards then, not only once the first move is made
    monkeypatch.setattr(local, "send_ahead", lambda game: {})
    game = seeded_game(GameConfig(4, rounds=1), 11)
    told: dict[int, list[int]] = {seat: [] for seat in range(4)}
    for seat, node in enumerate(game.nodes):
        node.on_learn = lambda state, seat=seat: told[seat].append(len(state.view_for(seat).hand))
    head = play_until(game, lambda head: head.kind == "action")
    for seat, node in enumerate(game.nodes):
        hand = len(node.state.hands[seat])
        assert hand > 0 and told[seat] and told[seat][-1] == hand, (seat, head.speaker, told)
