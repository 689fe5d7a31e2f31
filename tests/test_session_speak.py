"""The session loop around a real node, at the moment a seat's own record shows another seat's
cheat: the honest seat names the cheater with its record as evidence, and never crashes; and
after the game's end, when another seat's abort shows a cheat that raced the last record."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cheats_catalogue import response_changed
from protocol_helpers import (
    body_for,
    dealt_game,
    expected,
    game_at,
    hear,
    honest_body,
    play_until,
    seeded_bytes,
    seeded_game,
    signed_record,
)
from session_doubles import seated_session

from saboteur_p2p.crypto.group import G, add
from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.net.chat import CHAT_MAX, CHAT_WAITING
from saboteur_p2p.net.intake import Intake
from saboteur_p2p.net.session import Outcome, Session
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.local import play_local_game
from saboteur_p2p.protocol.node import Expect, Node, ProtocolViolation
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import GameConfig


def sent_kinds(session: Session) -> list[Any]:
    return [open_envelope(data) for _, data in session.transport.sent]  # type: ignore[attr-defined]


def test_a_share_that_shows_a_card_played_as_another_kind_names_the_mover(tmp_path: Path) -> None:
    """A move sent without its shares leaves the card's reveal to all to a share round, owed by
    the mover alone (it holds the card: every other seat published its share of it when it
    was dealt or drawn, and those shares count).  Its share record shows the card, and every
    seat (and a session, which does not crash) names the mover, with that record as the
    evidence."""
    game = dealt_game(GameConfig(3, "saboteur2"), 71)
    mover = game.spectator.next_expected.speaker  # type: ignore[union-attr]
    cheater = game.nodes[mover]
    assert cheater.state is not None
    from saboteur_p2p.rules.cards import ActionKind

    faces = cheater.state.faces
    handle = next(h for h in cheater.state.hands[mover] if getattr(faces[h], "kind", None) is not ActionKind.TRAPPED)
    # a card of its hand that is not a Trapped! card named as one, on the next seat (which a
    # Trapped! card may be played on): nobody else can tell until the card is shown to all
    # (its own node, which knows the face, would refuse it: it does not take it in)
    target = (mover + 1) % 3
    verdicts = hear(game, signed_record(game, mover, "action", {"action": f"trapped @{target} #{handle}"}), mover)
    assert all(v is None for v in verdicts.values())
    head = game.spectator.next_expected
    assert head is not None and (head.speaker, head.kind) == (mover, "shares")
    assert game.spectator.outstanding == (head,)  # nobody else owes anything for it
    record = signed_record(game, mover, "shares", body_for(cheater, head))
    for seat in (s for s in range(3) if s != mover):
        session = seated_session(game, game.nodes[seat], tmp_path / str(seat))
        result = session._take_record(record, mover)
        assert result is not None and (result.outcome, result.culprit) == (Outcome.CHEATER, mover)
        aborts = [e for e in sent_kinds(session) if e.kind == "abort"]
        assert aborts and {e.body["culprit"] for e in aborts} == {mover}
        assert aborts[0].body["reason"] == "illegal-action" and aborts[0].body["evidence"] == record
    with pytest.raises(ProtocolViolation) as shown:
        game.spectator.receive(record)
    assert (shown.value.peer, shown.value.reason) == (mover, "illegal-action")


def test_a_seat_a_record_behind_agrees_with_an_abort_whose_evidence_follows_a_record_it_lacked(tmp_path: Path) -> None:
    """The abort carries the records before its evidence: a peer that had not yet taken the
    last of them in reaches the same verdict instead of blaming the seat that stopped the game."""
    game = dealt_game(GameConfig(3), 5)
    mover = game.spectator.next_expected.speaker  # type: ignore[union-attr]
    witness, behind = [s for s in range(3) if s != mover]
    last = game.spectator.records[-1]
    forged = signed_record(game, mover, "action", {"action": "path 0 at 40,40"})  # off the board: illegal
    # ``behind`` has not taken the last record in; the witness has, and refuses the forged move
    lagging = seeded_game(GameConfig(3), 5)
    lag_node = lagging.nodes[behind]
    for record in game.spectator.records[:-1]:
        lag_node.receive(record)
    witness_session = seated_session(game, game.nodes[witness], tmp_path / "w")
    with pytest.raises(ProtocolViolation) as refused:
        game.nodes[witness].receive(forged)
    result = witness_session._cheater(refused.value, forged)
    assert result.culprit == mover
    abort = next(data for _, data in witness_session.transport.sent)  # type: ignore[attr-defined]
    assert open_envelope(abort).body["chain"][-1] == last
    behind_session = seated_session(lagging, lag_node, tmp_path / "b")
    verdict = behind_session._handle(b"connection", abort)
    assert verdict is not None and verdict.outcome is Outcome.CHEATER and verdict.culprit == mover


def _abort_to(session: Session, seat: int) -> bytes:
    """The abort ``session`` sent to ``seat``'s endpoint."""
    endpoint = f"tcp://127.0.0.1:{seat + 1}"
    return next(data for to, data in session.transport.sent if to == endpoint)  # type: ignore[attr-defined]


@pytest.mark.parametrize("point", ["sealed-move", "dealt-shares"])
def test_a_seat_that_takes_in_a_bad_share_meant_for_another_from_an_abort_names_its_sender(tmp_path: Path, point: str) -> None:
    """The recipient refuses the share and sends its abort before the bystander has the
    record: the bystander takes the evidence in (it checks no sealed share but its own, and
    keeps the public shares of a card's first reveal to another unchecked), then must check
    them as it would for a record it held already.  At "sealed-move" the share is seat 1's
    sealed share of a goal to seat 0, carried by its move (a later reveal); at "dealt-shares"
    it is seat 1's public share of a card dealt to seat 0 (a first reveal)."""
    game = game_at(point)
    sender, recipient, bystander = 1, 0, 2
    head = expected(game)
    node = game.nodes[sender]
    body = honest_body(node)
    if point == "sealed-move":
        shares = body["shares"]
        sealed = next(s for s in shares["sealed"] if s[2] == recipient)
        sealed[4] = add(sealed[4], G)
    else:
        public = [n for n in head.topic if n.audience is None or node.dealer.reveals[n].public]
        k = next(i for i, n in enumerate(public) if n.audience == frozenset({recipient}))
        body["public"][k][1] = add(body["public"][k][1], G)
    record = signed_record(game, sender, head.kind, body)
    with pytest.raises(ProtocolViolation) as refused:
        game.nodes[recipient].receive(record)
    assert (refused.value.peer, refused.value.reason) == (sender, "bad-share")
    accuser = seated_session(game, game.nodes[recipient], tmp_path / "r")
    accuser._cheater(refused.value, record)
    judge = seated_session(game, game.nodes[bystander], tmp_path / "b")
    verdict = judge._handle(b"connection", _abort_to(accuser, bystander))
    assert verdict is not None and (verdict.outcome, verdict.culprit) == (Outcome.CHEATER, sender), verdict
    named = game.nodes[bystander].aborted
    assert named is not None and (named.peer, named.reason) == (sender, "bad-share")


def test_the_seat_after_a_shuffler_takes_in_its_bad_shuffle_from_an_abort_and_names_it(tmp_path: Path) -> None:
    """The seat after a shuffler checks its proof only after its own shuffle (§5.6.2); an abort
    whose evidence is the shuffle it had not yet taken in must have it checked now."""
    game = seeded_game(GameConfig(3), 5)
    play_until(game, lambda e: e == Expect(1, "shuffle", (0,)))
    body = body_for(game.nodes[1], Expect(1, "shuffle", (0,)))
    response_changed(game, body)
    record = signed_record(game, 1, "shuffle", body)
    with pytest.raises(ProtocolViolation) as refused:
        game.nodes[0].receive(record)
    assert (refused.value.peer, refused.value.reason) == (1, "bad-shuffle-proof")
    accuser = seated_session(game, game.nodes[0], tmp_path / "0")
    accuser._cheater(refused.value, record)
    judge = seated_session(game, game.nodes[2], tmp_path / "2")
    verdict = judge._handle(b"connection", _abort_to(accuser, 2))
    assert verdict is not None and (verdict.outcome, verdict.culprit) == (Outcome.CHEATER, 1), verdict


def test_the_seat_after_a_bad_shuffler_sends_its_own_shuffle_first_then_names_it(tmp_path: Path) -> None:
    """Seat 2 takes seat 1's shuffle in without checking its proof, makes and sends its own
    shuffle (checking does not lengthen the chain of shuffles, §5.6.2), then checks seat 1's
    proof and names seat 1, with its own record as the evidence."""
    game = seeded_game(GameConfig(3), 5)
    play_until(game, lambda e: e == Expect(1, "shuffle", (0,)))
    body = body_for(game.nodes[1], Expect(1, "shuffle", (0,)))
    response_changed(game, body)
    record = signed_record(game, 1, "shuffle", body)
    game.nodes[2].receive(record)  # taken in, its proof kept for later
    assert game.nodes[2].deferred_checks and game.nodes[2].aborted is None
    session = seated_session(game, game.nodes[2], tmp_path / "2")
    result = session._speak()
    assert result is not None and (result.outcome, result.culprit) == (Outcome.CHEATER, 1), result
    sent = sent_kinds(session)
    records = [decode_record(e.body["record"]) for e in sent if e.kind == "record"]
    assert [(r.sender, r.kind) for r in records][:1] == [(2, "shuffle")]
    aborts = [e for e in sent if e.kind == "abort"]
    assert aborts and aborts[0].body["reason"] == "bad-shuffle-proof" and aborts[0].body["culprit"] == 1
    assert sent.index(aborts[0]) > next(i for i, e in enumerate(sent) if e.kind == "record")


def test_a_seat_that_stopped_before_its_postponed_check_makes_it_when_it_comes_back(tmp_path: Path) -> None:
    """Seat 2 sent its own shuffle and stopped before checking seat 1's (bad) proof: its log,
    replayed, leaves that check pending.  The session it comes back in makes it first, and
    names seat 1, rather than waiting for a shuffle that the others, who named seat 1 at
    once, will never send (and then blaming that seat for its absence)."""
    game = seeded_game(GameConfig(3), 5)
    play_until(game, lambda e: e == Expect(1, "shuffle", (0,)))
    body = body_for(game.nodes[1], Expect(1, "shuffle", (0,)))
    response_changed(game, body)
    game.nodes[2].receive(signed_record(game, 1, "shuffle", body))
    assert game.nodes[2].produce() is not None and game.nodes[2].deferred_checks  # sent, then stopped
    session = seated_session(game, game.nodes[2], tmp_path / "2")
    result = session._loop([])
    assert (result.outcome, result.culprit) == (Outcome.CHEATER, 1), result
    aborts = [e.body["reason"] for e in sent_kinds(session) if e.kind == "abort"]
    assert aborts and set(aborts) == {"bad-shuffle-proof"}, aborts


def assert_log_names(game: Any, session: Session, result: Any, seat: int, cheater: int, reason: str) -> None:
    """verify of ``seat``'s log, the game's records then the verdict ``session`` writes after
    them (``result``), names ``cheater`` for ``reason`` with evidence that checks, and gives
    the scores the session gave (none where it gave none: found by an attack)."""
    trailer = Ending("cheater", cheater, session.reason, result.message, session.evidence, seat).to_bytes()
    verdict = verify_records([*game.records, trailer])
    assert verdict.culprit == cheater
    assert verdict.scores == result.scores and verdict.finished == (result.scores is not None), (verdict, result.scores)
    said = f"stopped: seat {cheater} ({game.setup.names[cheater]}) cheated ({reason}), evidence checks"
    assert verdict.message.startswith(said), verdict.message


def _finished_with_a_late_cheat(tmp_path: Path) -> tuple[Any, Session, Any, bytes]:
    """A finished 3-seat game, seat 0's session, and a record out of turn by the seat that did
    not make the last record: signed, naming the head before the last record (so it reached
    some seat before that record, while seat 0 took the last record in and finished)."""
    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=4, rand=seeded_bytes(4))
    assert game.spectator.finished
    entries = [decode_record(r) for r in game.records]
    last = entries[-1]
    cheater = next(s for s in (1, 2) if s != last.sender)
    seq = max(e.seq for e in entries if e.sender == cheater) + 1
    stale = signed_record(game, cheater, "action", {"action": "pass 0"}, seq=seq, prev=last.prev)
    return game, seated_session(game, game.nodes[0], tmp_path / "0"), cheater, stale


def test_a_seat_that_finished_names_a_cheat_another_seat_saw_just_before_the_end(tmp_path: Path) -> None:
    """The last record raced a record out of turn: one seat took the cheat first and stopped,
    naming the cheater; a seat that had finished hears its abort while it lingers and names
    the same cheater, and verify of its log (complete, then the verdict) agrees."""
    game, session, cheater, stale = _finished_with_a_late_cheat(tmp_path)
    witness = next(s for s in (1, 2) if s != cheater)
    abort = {"game_id": game.setup.game_id, "culprit": cheater, "reason": "out-of-turn", "detail": "", "evidence": stale,
             "chain": []}
    env = open_envelope(seal(game.nodes[witness].identity, "abort", abort))
    named = session._late_abort(env, witness)
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, cheater)
    assert named.scores == game.spectator.state.scores  # type: ignore[union-attr]
    assert_log_names(game, session, named, 0, cheater, "out-of-turn")


def test_a_late_abort_whose_evidence_shows_nothing_changes_nothing(tmp_path: Path) -> None:
    game, session, cheater, _ = _finished_with_a_late_cheat(tmp_path)
    witness = next(s for s in (1, 2) if s != cheater)
    honest = next(r for r in game.records if decode_record(r).sender == cheater)  # a copy of its own record
    abort = {"game_id": game.setup.game_id, "culprit": cheater, "reason": "out-of-turn", "detail": "", "evidence": honest,
             "chain": []}
    assert session._late_abort(open_envelope(seal(game.nodes[witness].identity, "abort", abort)), witness) is None
    assert session.node.aborted is None and session.node.finished


def test_a_seat_that_finished_names_a_record_out_of_turn_that_comes_while_it_lingers(tmp_path: Path) -> None:
    """The same race, when the cheat itself reaches the finished seat (no other seat stopped
    on it first): the record is not in the finished log, so it is out of turn there as it
    was before the last record, and the seat names its signer, whichever came first; a copy
    of a record it holds (an honest resend) changes nothing."""
    game, session, cheater, stale = _finished_with_a_late_cheat(tmp_path)
    cheater_link = f"seat{cheater}".encode()
    held = next(r for r in game.records if decode_record(r).sender == cheater)
    assert session._heard_lingering(cheater_link, seal(game.nodes[cheater].identity, "record", {"record": held})) is None
    assert session.node.aborted is None and session.node.finished
    named = session._heard_lingering(cheater_link, seal(game.nodes[cheater].identity, "record", {"record": stale}))
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, cheater) and session.reason == "out-of-turn"
    # the game was over: its result stands (found by an attack: the seat the cheater chose to
    # send it to alone lost the final scores, and said the game had stopped early)
    assert named.scores == session.node.state.scores and "stopped early" not in named.message, named.message
    assert "the game stands" in named.message
    aborts = [e for e in sent_kinds(session) if e.kind == "abort"]
    assert aborts and aborts[0].body["evidence"] == stale  # the others hear it, with the record as evidence
    assert_log_names(game, session, named, 0, cheater, "out-of-turn")


def test_a_cheat_in_the_game_found_as_its_last_record_comes_gives_no_score(tmp_path: Path) -> None:
    """A check left to the background (a share of an earlier record) failed only as the
    game's last record came in: the game was over in the node, and the seat said "the game
    stands" and kept the cheater's gold, where the seat that checked at once gave no score
    (found by review).  Only a record out of turn after the last one leaves the game standing."""
    config = GameConfig(3, rounds=1)
    whole = play_local_game(config, ["random"] * 3, seed=4, rand=seeded_bytes(4))
    game = play_local_game(config, ["random"] * 3, seed=4, rand=seeded_bytes(4),
                           until=lambda g: len(g.records) == len(whole.records) - 1)
    speaker = game.spectator.next_expected.speaker  # type: ignore[union-attr]
    node = game.nodes[speaker]
    last = node.move(str(node.state.legal_actions()[0])) if node.awaiting_move() else node.produce()  # type: ignore[union-attr]
    assert last is not None
    seat = next(s for s in range(3) if s != speaker)
    culprit = next(s for s in range(3) if s != seat)
    session = seated_session(game, game.nodes[seat], tmp_path / "seat")

    def failing() -> None:
        raise ProtocolViolation(culprit, "bad-share", "a share of an earlier record does not check")

    game.nodes[seat].ahead.check_later(failing, game.records[-1])  # still being checked as the last record comes
    named = session._take_record(last, speaker)
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, culprit)
    assert named.scores is None and "the game stands" not in named.message, named.message


def test_a_second_version_of_an_old_record_made_up_after_the_game_leaves_it_standing(tmp_path: Path) -> None:
    """After the game's end a cheater signed a second version of one of its earlier records
    and sent it to one seat as it lingered: that seat named it and gave no score, the others
    finished with the scores (found by review).  Every seat held the game whole: it stands.
    Two versions of a record of the last step may have given the seats other games: no score."""
    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=4, rand=seeded_bytes(4))
    entries = [decode_record(r) for r in game.records]
    cheater = next(s for s in (1, 2) if s != entries[-1].sender)
    old = [e for e in entries if e.sender == cheater][-2]  # long in everyone's log
    forged = signed_record(game, cheater, "action", {"action": "pass 0"}, seq=old.seq, prev=old.prev)
    session = seated_session(game, game.nodes[0], tmp_path / "0")
    named = session._heard_lingering(f"seat{cheater}".encode(), seal(game.nodes[cheater].identity, "record", {"record": forged}))
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, cheater) and session.reason == "equivocation"
    assert named.scores == session.node.state.scores and "the game stands" in named.message, named.message  # type: ignore[union-attr]


def test_a_record_that_follows_the_game_s_last_one_changes_nothing_whenever_it_comes(tmp_path: Path) -> None:
    """Nothing is owed after the game's last record, so a record chained to it is dropped
    alike by a seat that hears it while it lingers and by one that parked it before the last
    record came: a seat it was sent to alone did not stop the game that the others finished."""
    game, session, cheater, _ = _finished_with_a_late_cheat(tmp_path)
    after = signed_record(game, cheater, "action", {"action": "pass 0"})  # chained to the last record
    sent = seal(game.nodes[cheater].identity, "record", {"record": after})
    assert session._heard_lingering(f"seat{cheater}".encode(), sent) is None
    assert session.node.aborted is None and session.node.finished
    behind = Intake(Node(game.setup, None))
    for record in game.records[:-1]:
        behind.take(record)
    assert not behind.take(after).accepted and not behind.node.finished  # parked: it follows a record not here yet
    taken = behind.take(game.records[-1])
    assert taken.violation is None and behind.node.finished and behind.node.aborted is None


def test_a_seat_that_finished_names_a_second_version_of_the_last_record_while_it_lingers(tmp_path: Path) -> None:
    """A seat that signs two versions of the game's last record, one to each peer: nothing
    follows it to stall the chain, so the peers' tips differ as they linger; each is sent the
    other's version (our last steps) and names the equivocation, and verify of each log agrees."""
    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=4, rand=seeded_bytes(4))
    last = decode_record(game.records[-1])
    other = signed_record(game, last.sender, last.kind, {**last.body, "x": 1} if last.kind != "action" else {"action": "pass 0"},
                          seq=last.seq, prev=last.prev)
    seat = next(s for s in range(3) if s != last.sender)
    session = seated_session(game, game.nodes[seat], tmp_path / "seat")
    link = f"seat{last.sender}".encode()
    named = session._heard_lingering(link, seal(game.nodes[last.sender].identity, "record", {"record": other}))
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, last.sender)
    assert session.reason == "equivocation" and session.evidence is not None
    # the other peer hears of it by our abort, whose proof its verdict keeps as evidence
    witness = next(s for s in range(3) if s not in (seat, last.sender))
    peer = seated_session(game, game.nodes[witness], tmp_path / "witness")
    abort = {"game_id": game.setup.game_id, "culprit": last.sender, "reason": "equivocation", "detail": "",
             "evidence": session.evidence, "chain": []}
    heard = peer._late_abort(open_envelope(seal(game.nodes[seat].identity, "abort", abort)), seat)
    assert heard is not None and (heard.outcome, heard.culprit) == (Outcome.CHEATER, last.sender)
    assert named.scores is None and heard.scores is None  # the seats may hold other games: no score stands
    assert_log_names(game, session, named, seat, last.sender, "equivocation")
    assert_log_names(game, peer, heard, witness, last.sender, "equivocation")
    trailer = Ending("cheater", last.sender, "equivocation", "", session.evidence, seat).to_bytes()
    verdict = verify_records([*game.records, trailer])
    assert "no score stands" in verdict.message, verdict.message


def test_a_peer_that_ends_on_another_version_of_the_last_record_keeps_a_finished_seat_lingering(tmp_path: Path) -> None:
    """Same records counted, another tip: the peer took another version of a record, so the
    game is not over for us until it hears ours (resent) and we hear its version; a peer
    whose tip matches lets us go."""
    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=4, rand=seeded_bytes(4))
    session = seated_session(game, game.nodes[0], tmp_path / "seat")
    total = len(game.records)
    session.done |= {1, 2}
    for peer in (1, 2):
        session.records_of[peer], session.tip_of[peer] = total, session._tip()
    assert session._lingering_for(total) == []
    session.tip_of[2] = bytes(32)
    assert session._lingering_for(total) == [2]
    session.transport.sent.clear()  # type: ignore[attr-defined]
    session._resend_to(2)  # as a ping with that tip prompts: our last two steps
    resent = [open_envelope(data).body["record"] for _, data in session.transport.sent]  # type: ignore[attr-defined]
    assert resent and resent[-1] == game.records[-1]


def test_chat_lines_said_quickly_go_out_one_a_second_and_none_is_lost(tmp_path: Path, monkeypatch) -> None:
    """The others take one chat line a second from a seat, so our own lines wait their turn
    (a few at most) instead of being dropped while the player was told they were said."""
    import saboteur_p2p.net.session as session_module

    game = dealt_game(GameConfig(3), 5)
    session = seated_session(game, game.nodes[0], tmp_path)
    heard: list[str] = []
    session.agent = type("Agent", (), {"chat": lambda self, seat, name, text: heard.append(text)})()
    said: list[str] = []
    session.say = said.append
    clock = [1000.0]
    monkeypatch.setattr(session_module.time, "monotonic", lambda: clock[0])

    def chats() -> list[str]:
        return [env.body["text"] for env in sent_kinds(session) if env.kind == "chat"]

    for line in ("one", "two", "three"):
        session._chat(line)
    assert chats() == ["one"] * (len(session.endpoints))  # to every other seat, once
    clock[0] += 0.5
    session._send_chat()
    assert chats().count("two") == 0
    clock[0] += 0.6
    session._send_chat()
    clock[0] += 1.0
    session._send_chat()
    assert heard == ["one", "two", "three"] and chats()[-1] == "three"
    for n in range(CHAT_WAITING + 1):  # past the few that may wait: told, not silently lost
        session._chat(f"more {n}")
    assert any("not sent: more 5" in line for line in said)


def test_a_long_chat_line_goes_out_in_pieces_and_a_seat_away_is_named(tmp_path: Path, monkeypatch) -> None:
    """The others refuse a chat line of more than CHAT_MAX characters, and ours was cut there
    without a word (found by a play-test); now it goes out in pieces cut between words, one a
    second.  Chat is not resent, so the player is told which seats are away when it goes."""
    import saboteur_p2p.net.session as session_module

    game = dealt_game(GameConfig(3), 5)
    session = seated_session(game, game.nodes[0], tmp_path)
    session.agent = type("Agent", (), {"chat": lambda self, seat, name, text: None})()
    said: list[str] = []
    session.say = said.append
    clock = [1000.0]
    monkeypatch.setattr(session_module.time, "monotonic", lambda: clock[0])
    words = [f"word{n}" for n in range(90)]
    session._chat(" ".join(words))
    for _ in range(4):
        clock[0] += 1.0
        session._send_chat()  # one a second: three more pieces, then nothing
    lines = [env.body["text"] for env in sent_kinds(session) if env.kind == "chat"][::len(session.endpoints)]
    assert len(lines) == 4 and all(len(line) <= CHAT_MAX for line in lines), lines
    assert " ".join(lines).split() == words  # every word, none cut in two
    assert not said
    session.presence.away.add(2)
    clock[0] += 1.0
    session._chat(" ".join(words[:60]))  # two pieces: told once
    clock[0] += 1.0
    session._send_chat()
    assert said == [f"chat: {session.names[2]} is away and will not hear that line"], said


def test_a_finished_saboteur2_game_reports_gold_pieces_not_nuggets(tmp_path: Path) -> None:
    from protocol_helpers import path_first

    from saboteur_p2p.protocol.local import step

    game = seeded_game(GameConfig(3, "saboteur2", rounds=1), 7)
    while step(game, path_first):  # to the end
        pass
    session = seated_session(game, game.nodes[0], tmp_path)
    session._linger = lambda limit=5.0: None  # type: ignore[method-assign]
    session.secrets_path = tmp_path / "seat0.secret"
    result = session._finish()
    assert result.outcome is Outcome.FINISHED and result.message.startswith("game over. gold pieces: ")


def test_lines_of_one_seat_read_in_one_poll_are_shown_within_its_allowance() -> None:
    """The pieces of a long line go out a second apart, but a peer busy for a moment reads
    them in one poll: it dropped all but the first (found by review).  A seat has an allowance
    of a few lines, which grows by one a second: a flood is still cut."""
    from saboteur_p2p.net.chat import CHAT_WAITING, IncomingChat

    chat = IncomingChat()
    assert [chat.take(1, 100.0) for _ in range(CHAT_WAITING + 2)] == [True] * CHAT_WAITING + [False, False]
    assert chat.take(2, 100.0)  # each seat its own
    assert not chat.take(1, 100.5) and chat.take(1, 101.1) and not chat.take(1, 101.2)


def _spoken_past(game: Any, seat: int) -> tuple[bytes, int]:
    """The next record, made by the seat due and taken in by every node but ``seat``'s."""
    head = game.spectator.next_expected
    node = game.nodes[head.speaker]
    record = node.move(str(node.state.legal_actions()[0])) if node.awaiting_move() else node.produce()
    game.records.append(record)
    for s, other in enumerate(game.nodes):
        if s not in (head.speaker, seat):
            other.receive(record)
    game.spectator.receive(record)
    return record, head.speaker


@pytest.mark.parametrize("parked", [True, False])
def test_a_record_out_of_turn_parked_behind_the_last_record_leaves_the_game_standing_too(tmp_path: Path, parked: bool) -> None:
    """A record out of turn naming the head before the last record reached a seat with the
    last record, both held back for the record before them: the intake named the cheat as it
    took them in, before any lingering, and the seat gave no score where verify of its log,
    and a seat that heard the cheat a moment later, kept the scores (found by review)."""
    config = GameConfig(4, rounds=1)
    whole = play_local_game(config, ["random"] * 4, seed=4, rand=seeded_bytes(4))
    total = len(whole.records)
    game = play_local_game(config, ["random"] * 4, seed=4, rand=seeded_bytes(4), until=lambda g: len(g.records) == total - 2)
    before, before_sender = _spoken_past(game, 0)
    last, last_sender = _spoken_past(game, 0)
    assert game.spectator.finished and 0 not in (before_sender, last_sender)
    entries = [decode_record(r) for r in game.records]
    cheater = next(s for s in range(1, 4) if s != last_sender)
    seq = max(e.seq for e in entries if e.sender == cheater) + 1
    stale = signed_record(game, cheater, "action", {"action": "pass 0"}, seq=seq, prev=entries[-1].prev)
    session = seated_session(game, game.nodes[0], tmp_path / "0")
    if parked:
        assert session._take_record(last, last_sender) is None and session._take_record(stale, cheater) is None
        named = session._take_record(before, before_sender)
    else:  # a moment later, as the seat lingers
        assert session._take_record(before, before_sender) is None and session._take_record(last, last_sender) is None
        sent = seal(game.nodes[cheater].identity, "record", {"record": stale})
        named = session._heard_lingering(f"seat{cheater}".encode(), sent)
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, cheater)
    assert named.scores == game.spectator.state.scores  # type: ignore[union-attr]
    assert_log_names(game, session, named, 0, cheater, "out-of-turn")
