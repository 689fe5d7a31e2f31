"""Shares sent ahead of the record that logs them (protocol.md §12.6).

A card drawn or a goal mapped is owed to its seat by every other seat's share: public for
the card's first reveal to a seat, sealed for a later one (a goal another seat mapped
before).  The log carries those shares with each other seat's next record; sent ahead as
well, they let the seat see its card as soon as its move is taken in, not when every other
seat has moved.  Nothing in the log or the schedule changes, and a bad share sent ahead
proves nothing, so it is refused without blame.
"""
from __future__ import annotations

import dataclasses

import pytest
from protocol_helpers import CONFIG, SEED, map_goal_first, seeded_game, true_face

from saboteur_p2p.crypto.group import base_mul, scalar_from_int
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.local import LocalGame, deliver, first_move_expected, step
from saboteur_p2p.protocol.messages import ActionMsg, MalformedMessage, OpenedShare, Shares
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
    for node in game.nodes:
        node.finish_checks()  # as a session's loop does: shares wait for the checks under way
    sent = {seat: node.make_ahead() for seat, node in enumerate(game.nodes)}
    return {seat: ahead[recipient] for seat, ahead in sent.items() if recipient in ahead}


GOAL = (0, Deck.GOALS, 0)


def _shares_in(entry) -> Shares:
    if entry.kind != "action":
        return Shares((), ())
    shares = ActionMsg.decode(entry.body).shares
    return shares if shares is not None else Shares((), ())


def _two_more_moves(game: LocalGame) -> None:
    """Play on until two more moves are in (a seat's first move of a round that is not the
    last is followed by its shuffle of the next round's decks, protocol.md §5.6.2)."""
    moves = 0
    while moves < 2:
        head = game.spectator.next_expected
        assert head is not None
        moves += head.kind == "action"
        step(game, _discard)


def _after_a_draw(seed: int) -> tuple[LocalGame, int, tuple[int, Deck, int]]:
    """A 3-seat game whose first mover discarded and drew, its move taken in with no shares
    sent ahead: the drawn card's first reveal, owed by the other seats' public shares."""
    game = _dealt(seed=seed)
    head, state = game.spectator.next_expected, game.spectator.state
    assert head is not None and state is not None
    before = list(state.hands[head.speaker])
    _move_without_ahead(game, _discard)
    return game, head.speaker, _drawn(game, head.speaker, before)


def _after_a_second_map() -> tuple[LocalGame, int]:
    """The honest game of protocol_helpers, played with ``map_goal_first``, just after a seat
    mapped the first goal that another seat had mapped before (its move taken in, no shares
    sent ahead): the goal's later reveal, owed by sealed shares."""
    game = seeded_game(CONFIG, SEED)
    for _ in range(400):
        head = game.spectator.next_expected
        assert head is not None
        if head.kind == "action" and GOAL in game.spectator.dealer.holding and \
                map_goal_first(head.speaker, game.nodes[head.speaker]).startswith("map 0"):
            mover, _ = _move_without_ahead(game, map_goal_first)
            return game, mover
        step(game, map_goal_first)
    raise AssertionError("no seat mapped the first goal after another")


def test_a_drawn_card_reaches_its_drawer_with_its_move_not_after_every_other_seat_moved():
    """The drawn card's first reveal: the other seats' public shares, sent ahead, open it."""
    game, mover, card = _after_a_draw(7)
    need = RevealNeed(card, frozenset({mover}))
    assert game.spectator.dealer.reveals[need].public
    drawer = game.nodes[mover]
    assert card not in drawer.dealer.my_faces  # the log alone shows it only as the others move
    ahead = _ahead_to(game, mover)
    assert sorted(ahead) == [s for s in range(3) if s != mover]
    assert all([p.card for p in shares.public] == [card] and not shares.sealed and not shares.opened
               for shares in ahead.values())
    learnt = [drawer.take_ahead(seat, shares.encode()) for seat, shares in ahead.items()]
    assert learnt == [False, True]  # the last ower's share opens it
    assert drawer.dealer.my_faces[card] == true_face(game, card)
    assert drawer.state.faces[card[2]] == true_face(game, card)  # the engine, and so the view, knows it
    # the schedule is untouched: the reveal still waits for the logged shares
    assert need in drawer.dealer.pending and need in game.spectator.dealer.pending
    # the others' next moves carry the same public shares, premade, and the drawer takes them
    _two_more_moves(game)
    assert need not in drawer.dealer.pending and need not in game.spectator.dealer.pending
    moves = [r for r in game.spectator.log.entries if r.kind == "action"][-2:]
    logged = [p for r in moves for p in _shares_in(r).public if p.card == card]
    assert len(logged) == 2 and {p for shares in ahead.values() for p in shares.public} == set(logged)
    assert len({node.log.head for node in game.nodes} | {game.spectator.log.head}) == 1


def test_a_goal_mapped_again_reaches_its_mapper_from_sealed_shares_sent_ahead():
    """A later reveal (a goal another seat mapped first) is sent ahead sealed, as logged."""
    game, mover = _after_a_second_map()
    need = RevealNeed(GOAL, frozenset({mover}))
    assert not game.spectator.dealer.reveals[need].public
    mapper = game.nodes[mover]
    assert GOAL not in mapper.dealer.my_faces
    ahead = _ahead_to(game, mover)
    assert sorted(ahead) == [s for s in range(3) if s != mover]
    for shares in ahead.values():  # and public shares of the card the map drew, its first reveal
        assert [(s.card, s.recipient) for s in shares.sealed] == [(GOAL, mover)] and not shares.opened
        assert GOAL not in [p.card for p in shares.public]
    assert [mapper.take_ahead(seat, shares.encode()) for seat, shares in ahead.items()] == [False, True]
    assert mapper.dealer.my_faces[GOAL] == true_face(game, GOAL)
    assert mapper.state.view_for(mover).known_goals[0] == true_face(game, GOAL)
    assert need in mapper.dealer.pending  # the logged shares still complete it
    while need in game.spectator.dealer.pending:
        step(game, map_goal_first)
    logged = [s for r in game.spectator.log.entries for s in _shares_in(r).sealed if s.card == GOAL and s.recipient == mover]
    assert {s for shares in ahead.values() for s in shares.sealed} == set(logged)
    assert mapper.aborted is None and game.spectator.aborted is None


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
            assert not shares.sealed and any(p.card[1] is Deck.GOALS for p in shares.public)  # its first reveal
            mapper.take_ahead(seat, shares.encode())
        known = mapper.state.view_for(mover).known_goals
        assert len(known) == 1
        ((slot, face),) = known.items()
        assert face == true_face(game, (0, Deck.GOALS, slot))
        return
    pytest.fail("no seat could play a map in 40 games")


def test_a_bad_share_sent_ahead_is_refused_and_the_logged_shares_still_open_the_card():
    game, mover, card = _after_a_draw(11)
    ahead = _ahead_to(game, mover)
    liar, shares = next(iter(ahead.items()))
    bad = shares.public[0]
    assert bad.card == card
    drawer = game.nodes[mover]
    with pytest.raises(AheadRefused, match="does not verify"):  # a false proof
        drawer.take_ahead(liar, Shares((dataclasses.replace(bad, proof=bad.proof[::-1]),), ()).encode())
    with pytest.raises(AheadRefused, match="does not verify"):  # another point, with the share's proof
        drawer.take_ahead(liar, Shares((dataclasses.replace(bad, share=base_mul(scalar_from_int(7))),), ()).encode())
    with pytest.raises(AheadRefused, match="decryption share"):
        drawer.take_ahead(liar, Shares((dataclasses.replace(bad, share=b"\xff" * 32),), ()).encode())
    with pytest.raises(MalformedMessage):
        drawer.take_ahead(liar, {"public": "no", "sealed": []})
    # another seat's share passed off as the liar's does not verify under the liar's key
    other = next(s for s in ahead if s != liar)
    with pytest.raises(AheadRefused, match="does not verify"):
        drawer.take_ahead(liar, ahead[other].encode())
    assert drawer.take_ahead(other, ahead[other].encode()) is False  # the honest one is kept ...
    assert card not in drawer.dealer.my_faces  # ... but the card waits for the liar's logged share
    _two_more_moves(game)
    assert drawer.dealer.my_faces[card] == true_face(game, card)  # from the log, as before
    assert drawer.aborted is None and game.spectator.aborted is None


def test_a_bad_sealed_share_sent_ahead_is_refused_and_the_logged_shares_still_open_the_card():
    game, mover = _after_a_second_map()
    need = RevealNeed(GOAL, frozenset({mover}))
    ahead = _ahead_to(game, mover)
    liar, shares = next(iter(ahead.items()))
    bad = shares.sealed[0]
    mapper = game.nodes[mover]
    with pytest.raises(AheadRefused, match="does not verify"):
        mapper.take_ahead(liar, Shares((), (dataclasses.replace(bad, E2=bad.E1),)).encode())
    with pytest.raises(AheadRefused, match="E1"):
        mapper.take_ahead(liar, Shares((), (dataclasses.replace(bad, E1=b"\xff" * 32),)).encode())
    other = next(s for s in ahead if s != liar)
    with pytest.raises(AheadRefused, match="does not verify"):  # another seat's, passed off as the liar's
        mapper.take_ahead(liar, Shares((), ahead[other].sealed).encode())
    assert GOAL not in mapper.dealer.my_faces
    while need in game.spectator.dealer.pending:
        step(game, map_goal_first)
    assert mapper.dealer.my_faces[GOAL] == true_face(game, GOAL)  # from the log, as before
    assert mapper.aborted is None and game.spectator.aborted is None


def test_a_share_sent_ahead_in_another_form_than_owed_is_refused():
    """A first reveal is owed public shares and a later one sealed shares: a share in the other
    form is refused, and so is an opened share, which is never sent ahead (§12.6)."""
    game, mover, card = _after_a_draw(11)
    ahead = _ahead_to(game, mover)
    liar, shares = next(iter(ahead.items()))
    drawer = game.nodes[mover]
    public = shares.public[0]
    opened = OpenedShare(card, liar, public.share, public.proof)
    with pytest.raises(AheadRefused, match="opened shares are not sent ahead"):
        drawer.take_ahead(liar, Shares((), (), (opened,)).encode())
    with pytest.raises(AheadRefused, match="opened shares are not sent ahead"):  # even beside the right share
        drawer.take_ahead(liar, Shares((public,), (), (opened,)).encode())
    assert not drawer.share_book.ahead

    mapped, mapper_seat = _after_a_second_map()
    sealed_ahead = _ahead_to(mapped, mapper_seat)
    mapper = mapped.nodes[mapper_seat]
    seat, sent = next(iter(sealed_ahead.items()))
    # the goal's later reveal, owed sealed: a public share for it is refused
    with pytest.raises(AheadRefused, match="owed sealed"):
        mapper.take_ahead(seat, Shares((dataclasses.replace(public, card=GOAL),), ()).encode())
    # the drawn card's first reveal, owed public: a sealed share for it is refused
    sealed = dataclasses.replace(sent.sealed[0], card=card, audience=(mover,), recipient=mover)
    with pytest.raises(AheadRefused, match="owed public"):
        drawer.take_ahead(liar, Shares((), (sealed,)).encode())
    assert GOAL not in mapper.dealer.my_faces and not mapper.share_book.ahead
    assert card not in drawer.dealer.my_faces and not drawer.share_book.ahead


def test_shares_not_owed_to_the_reader_are_ignored():
    game = _dealt(seed=12)
    mover = game.spectator.next_expected.speaker
    _move_without_ahead(game, _discard)
    ahead = _ahead_to(game, mover)
    bystander = next(s for s in range(3) if s != mover)
    reader = game.nodes[bystander]
    for seat, shares in ahead.items():
        if seat != bystander:
            assert reader.take_ahead(seat, shares.encode()) is False  # owed to someone else
    assert not reader.make_ahead()  # made once: nothing new to send
    drawer = game.nodes[mover]
    seat, shares = next(iter(ahead.items()))
    assert drawer.take_ahead(mover, shares.encode()) is False  # the drawer owes no share of its own card
    assert drawer.take_ahead(99, shares.encode()) is False
    drawer.take_ahead(seat, shares.encode())
    assert drawer.take_ahead(seat, shares.encode()) is False  # a second copy changes nothing


def test_shares_sent_ahead_go_again_to_a_seat_that_came_back_once_it_holds_every_record(tmp_path) -> None:
    """A seat that restarts loses the shares the others sent it ahead: its drawn card (or a
    goal it mapped) showed only when each other seat's next record brought them (found by a
    play-test: a rejoined person saw a hand of 5 while the table counted 6).  A seat that sees
    another come back (its ``link`` names a newer run) sends them again once that seat's
    pings say it holds every record: the same shares, which open its card."""
    from session_doubles import seated_session

    from saboteur_p2p.net.wire import open_envelope, seal

    game, mover, card = _after_a_draw(7)
    drawer = game.nodes[mover]
    first = _ahead_to(game, mover)  # sent once, and lost with the drawer's run
    sender = next(seat for seat in first if seat != mover)
    session = seated_session(game, game.nodes[sender], tmp_path)
    identity = drawer.identity
    assert identity is not None
    gid, records = game.setup.game_id, len(game.nodes[sender].records)

    def hear(kind: str, body: dict) -> list:
        session.transport.sent.clear()  # type: ignore[attr-defined]
        assert session._handle(b"L%d" % mover, seal(identity, kind, {"game_id": gid, "seat": mover, **body})) is None
        return [open_envelope(data) for _, data in session.transport.sent if data]  # type: ignore[attr-defined]

    ping = {"to": sender, "got": [], "away": [], "t": 0, "done": False}
    assert hear("link", {"to": sender, "endpoint": session.endpoints[mover], "incarnation": 1}) == []
    assert not [e for e in hear("ping", {**ping, "records": records}) if e.kind == "ahead"]  # its first run: nothing again
    hear("link", {"to": sender, "endpoint": session.endpoints[mover], "incarnation": 2})  # it came back
    assert not [e for e in hear("ping", {**ping, "records": records - 1}) if e.kind == "ahead"]  # still catching up
    again = [e for e in hear("ping", {**ping, "records": records}) if e.kind == "ahead"]
    assert len(again) == 1 and Shares.decode(again[0].body["shares"]) == first[sender]
    assert not [e for e in hear("ping", {**ping, "records": records}) if e.kind == "ahead"]  # once
    learnt = [drawer.take_ahead(seat, shares.encode()) for seat, shares in sorted(first.items())]
    assert learnt[-1] and drawer.dealer.my_faces[card] == true_face(game, card)


def test_shares_sent_ahead_and_refused_cost_their_sender_what_checking_them_took(tmp_path, monkeypatch) -> None:
    """A liar's `ahead` of one sealed share with a bad proof cost a token to open and 0.7 ms to
    check: at its seat's budget, a burst kept the receiver's loop busy about 0.9 s, and a third
    of the time after (an attack).  Refused shares cost their sender REFUSED_AHEAD_TOKENS more,
    from both its budgets: a burst has a ninth as many checked."""
    import os
    import time

    from session_doubles import seated_session

    from saboteur_p2p.net import inflow
    from saboteur_p2p.net.wire import seal

    game, mover = _after_a_second_map()
    liar, shares = next(iter(_ahead_to(game, mover).items()))
    bad = shares.sealed[0]
    session = seated_session(game, game.nodes[mover], tmp_path)
    identity = game.nodes[liar].identity
    assert identity is not None
    monkeypatch.setattr(time, "monotonic", lambda: 500.0)
    checked: list[int] = []
    real = session.node.take_ahead
    monkeypatch.setattr(session.node, "take_ahead", lambda *a: checked.append(1) or real(*a))
    wrong = Shares((), (dataclasses.replace(bad, proof=(bad.proof[0], bad.proof[1], os.urandom(31) + b"\x00")),)).encode()
    envelope = seal(identity, "ahead", {"game_id": game.setup.game_id, "seat": liar, "shares": wrong})
    for _ in range(1000):
        assert session._handle(b"link-of-liar", envelope, session.table.seats[liar].dh_key) is None
    each = 1 + inflow.REFUSED_AHEAD_TOKENS  # a token to open it (the records' budget does not open it)
    assert 0 < len(checked) <= inflow.SEAT_BURST / each + 1, len(checked)
