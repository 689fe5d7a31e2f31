"""Whole games over mental-poker decks: every seat its own engine, keys and knowledge.

The whole games and deals are about dealing and play, not the proofs (test_shuffle_proof,
test_proofs and test_session_cheats check those).
"""
from __future__ import annotations

import dataclasses
import random

import pytest
from protocol_helpers import copy_game, opened_decks, path_first, seeded_bytes, seeded_game, trusted_replay

from saboteur_p2p.protocol.local import RecordTiming, critical_path, first_move_expected, play_local_game
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
    swapped = tuple(PublicShare(p.card, p.share, (p.proof[1], p.proof[0])) for p in honest.public)
    bad = Shares(swapped, honest.sealed, honest.opened)
    node._shares_with_move = lambda text: bad
    record = node.move(str(play))
    assert set(_deliver_all(game, record, mover).values()) == {(mover, "bad-share")}


def test_a_move_opens_the_other_seats_shares_of_the_card_it_shows_and_a_bad_opening_is_blamed_on_it():
    """The played card came to the mover sealed by every other seat; the move opens those
    shares with a proof, so the card is open with the move and no round of shares follows."""
    from saboteur_p2p.protocol.messages import OpenedShare, Shares
    from saboteur_p2p.protocol.node import ProtocolViolation

    game = _at_a_move(7)
    mover = game.spectator.next_expected.speaker
    node = game.nodes[mover]
    play = next(a for a in node.state.legal_actions() if not str(a).startswith("pass"))
    honest = node._shares_with_move(str(play))
    assert honest is not None
    assert sorted(o.ower for o in honest.opened) == [s for s in range(len(game.nodes)) if s != mover]
    clean = copy_game(game, 0)
    record = clean.nodes[mover].move(str(play))
    assert set(_deliver_all(clean, record, mover).values()) == {None}
    assert clean.spectator.next_expected.kind == "action"  # the next move, with no shares between

    forged = honest.opened[0]
    wrong_share = OpenedShare(forged.card, forged.ower, honest.public[0].share, forged.proof)  # the mover's, not the ower's
    bad = Shares(honest.public, honest.sealed, (wrong_share, *honest.opened[1:]))
    node._shares_with_move = lambda text: bad
    with pytest.raises(ProtocolViolation):
        node.move(str(play))  # its own node takes its openings unchecked: the card opens to nothing
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


def test_a_bad_sealed_share_can_be_shown_to_a_seat_that_did_not_check_it():
    """Seats check only the sealed shares sent to them; when the recipient accuses the sender,
    any other seat can check the accused record itself (recheck_sealed_shares)."""
    from saboteur_p2p.crypto.group import add, base_mul
    from saboteur_p2p.protocol.local import step
    from saboteur_p2p.protocol.messages import Shares
    from saboteur_p2p.protocol.node import ProtocolViolation

    game = _at_a_move(9)
    pick = lambda seat, node: str(node.state.legal_actions()[0])  # noqa: E731
    for _ in range(400):
        head = game.spectator.next_expected
        if head.kind == "shares" and any(n.audience is not None for n in head.topic):
            break
        step(game, pick)
    else:
        raise AssertionError("no sealed shares were owed")
    sender = game.nodes[head.speaker]
    honest = sender._shares_for

    def corrupt(needs):
        shares = honest(needs)
        bent = [dataclasses.replace(s, E2=add(s.E2, base_mul(b"\x01" + bytes(31)))) for s in shares.sealed]
        return Shares(shares.public, tuple(bent))

    sender._shares_for = corrupt
    record = sender.produce()
    recipient = next(r for n in head.topic if n.audience is not None for r in n.audience)
    bystander = next(s for s in range(3) if s not in (head.speaker, recipient))
    with pytest.raises(ProtocolViolation) as caught:
        game.nodes[recipient].receive(record)
    assert (caught.value.peer, caught.value.reason) == (head.speaker, "bad-share")
    game.nodes[bystander].receive(record)  # a bystander does not check shares meant for others
    verdict = game.nodes[bystander].recheck_sealed_shares(record)
    assert verdict is not None and (verdict.peer, verdict.reason) == (head.speaker, "bad-share")


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
