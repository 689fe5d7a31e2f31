"""Sealed shares sent ahead of the record that logs them (protocol.md §12.6).

A card drawn or a goal mapped is owed to its seat by every other seat's sealed share.  The
log carries those shares with each other seat's next record; sent ahead as well, they let
the seat see its card as soon as its move is taken in, not when every other seat has moved.
Nothing in the log or the schedule changes, and a bad share sent ahead proves nothing, so it
is refused without blame.
"""
from __future__ import annotations

import dataclasses

import pytest
from protocol_helpers import seeded_game, true_face

from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.local import LocalGame, deliver, first_move_expected, step
from saboteur_p2p.protocol.messages import MalformedMessage, Shares
from saboteur_p2p.protocol.node import Node
from saboteur_p2p.protocol.shares import AheadRefused
from saboteur_p2p.rules import Deck, GameConfig
from saboteur_p2p.rules.actions import MapPeek, Pass


def _dealt(players: int = 3, seed: int = 7) -> LocalGame:
    game = seeded_game(GameConfig(players), seed)
    while not first_move_expected(game):
        step(game, lambda seat, node: "")
    return game


def _discard(seat: int, node: Node) -> str:
    assert node.state is not None
    return str(next(a for a in node.state.legal_actions() if isinstance(a, Pass)))


def _map_first(seat: int, node: Node) -> str:
    assert node.state is not None
    legal = node.state.legal_actions()
    return str(next((a for a in legal if isinstance(a, MapPeek)), next(a for a in legal if isinstance(a, Pass))))


def _move_without_ahead(game: LocalGame, choose) -> tuple[int, bytes]:
    """The mover's record, delivered to every node, with no shares sent ahead."""
    head = game.spectator.next_expected
    assert head is not None and head.kind == "action"
    node = game.nodes[head.speaker]
    record = node.move(choose(head.speaker, node))
    deliver(game, record, head.speaker)
    return head.speaker, record


def _drawn(game: LocalGame, mover: int, before: list[int]) -> tuple[int, Deck, int]:
    state = game.spectator.state
    assert state is not None
    new = [h for h in state.hands[mover] if h not in before]
    assert len(new) == 1
    return (0, Deck.DRAW, new[0])


def _ahead_to(game: LocalGame, recipient: int) -> dict[int, Shares]:
    """What every other seat sends ``recipient`` ahead now."""
    sent = {seat: node.make_ahead() for seat, node in enumerate(game.nodes)}
    return {seat: ahead[recipient] for seat, ahead in sent.items() if recipient in ahead}


def test_a_drawn_card_reaches_its_drawer_with_its_move_not_after_every_other_seat_moved():
    game = _dealt()
    mover = game.spectator.next_expected.speaker
    before = list(game.spectator.state.hands[mover])
    _move_without_ahead(game, _discard)
    card = _drawn(game, mover, before)
    need = RevealNeed(card, frozenset({mover}))
    drawer = game.nodes[mover]
    assert card not in drawer.dealer.my_faces  # the log alone shows it only as the others move
    ahead = _ahead_to(game, mover)
    assert sorted(ahead) == [s for s in range(3) if s != mover]
    learnt = [drawer.take_ahead(seat, shares.encode()) for seat, shares in ahead.items()]
    assert learnt == [False, True]  # the last ower's share opens it
    assert drawer.dealer.my_faces[card] == true_face(game, card)
    assert drawer.state.faces[card[2]] == true_face(game, card)  # the engine, and so the view, knows it
    # the schedule is untouched: the reveal still waits for the logged shares
    assert need in drawer.dealer.pending and need in game.spectator.dealer.pending
    # the others' next records carry the same sealed shares, premade, and the drawer takes them
    for _ in range(2):
        step(game, _discard)
    assert need not in drawer.dealer.pending and need not in game.spectator.dealer.pending
    logged = [s for r in game.spectator.log.entries[-2:] for s in _sealed_in(r) if s.card == card]
    assert {s for shares in ahead.values() for s in shares.sealed} == set(logged)
    assert len({node.log.head for node in game.nodes} | {game.spectator.log.head}) == 1


def _sealed_in(entry):
    from saboteur_p2p.protocol.messages import ActionMsg

    if entry.kind != "action":
        return ()
    shares = ActionMsg.decode(entry.body).shares
    return shares.sealed if shares is not None else ()


def test_a_mapped_goal_reaches_the_mapper_as_soon_as_its_move_is_taken_in():
    for seed in range(40):
        game = _dealt(4, seed)
        for _ in range(12):
            head = game.spectator.next_expected
            node = game.nodes[head.speaker]
            if head.kind == "action" and any(isinstance(a, MapPeek) for a in node.state.legal_actions()):
                break
            step(game, _discard)
        else:
            continue
        mover, _ = _move_without_ahead(game, _map_first)
        mapper = game.nodes[mover]
        assert not mapper.state.view_for(mover).known_goals
        for seat, shares in _ahead_to(game, mover).items():
            mapper.take_ahead(seat, shares.encode())
        known = mapper.state.view_for(mover).known_goals
        assert len(known) == 1
        ((slot, face),) = known.items()
        assert face == true_face(game, (0, Deck.GOALS, slot))
        return
    pytest.fail("no seat could play a map in 40 games")


def test_a_bad_share_sent_ahead_is_refused_and_the_logged_shares_still_open_the_card():
    game = _dealt(seed=11)
    mover = game.spectator.next_expected.speaker
    before = list(game.spectator.state.hands[mover])
    _move_without_ahead(game, _discard)
    card = _drawn(game, mover, before)
    ahead = _ahead_to(game, mover)
    liar, shares = next(iter(ahead.items()))
    bad = shares.sealed[0]
    forged = Shares((), (dataclasses.replace(bad, E2=bad.E1),))
    drawer = game.nodes[mover]
    with pytest.raises(AheadRefused, match="does not verify"):
        drawer.take_ahead(liar, forged.encode())
    with pytest.raises(AheadRefused, match="E1"):
        drawer.take_ahead(liar, Shares((), (dataclasses.replace(bad, E1=b"\xff" * 32),)).encode())
    with pytest.raises(MalformedMessage):
        drawer.take_ahead(liar, {"public": "no", "sealed": []})
    # another seat's share passed off as the liar's does not verify under the liar's key
    other = next(s for s in ahead if s != liar)
    with pytest.raises(AheadRefused):
        drawer.take_ahead(liar, ahead[other].encode())
    assert card not in drawer.dealer.my_faces
    for _ in range(2):
        step(game, _discard)
    assert drawer.dealer.my_faces[card] == true_face(game, card)  # from the log, as before
    assert drawer.aborted is None and game.spectator.aborted is None


def test_shares_not_owed_to_the_reader_are_ignored():
    game = _dealt(seed=12)
    mover = game.spectator.next_expected.speaker
    _move_without_ahead(game, _discard)
    ahead = _ahead_to(game, mover)
    bystander = next(s for s in range(3) if s != mover)
    reader = game.nodes[bystander]
    for seat, shares in ahead.items():
        if seat != bystander:
            assert reader.take_ahead(seat, shares.encode()) is False  # sealed to someone else
    assert not reader.make_ahead()  # made once: nothing new to send
    drawer = game.nodes[mover]
    seat, shares = next(iter(ahead.items()))
    assert drawer.take_ahead(mover, shares.encode()) is False  # the drawer owes no share of its own card
    assert drawer.take_ahead(99, shares.encode()) is False
    drawer.take_ahead(seat, shares.encode())
    assert drawer.take_ahead(seat, shares.encode()) is False  # a second copy changes nothing
