"""A seat takes some records in before it checks them: the shuffle just before its own (its
proof checked once the seat's shuffle is out) and the shuffles of a batch opened ahead
(checked in the background).  However the game then ends (another seat's abort naming
someone else, a ``bye``, a ``gone``, a seat's absence or this seat's own leaving), those
checks are finished first and a false record they find decides: its maker is named, with
the record as evidence, and ``verify`` of the seat's log says the same.

Found by an attack: a cheater that sent a false shuffle and at once an abort naming an honest
seat (or a ``bye``) was named nowhere; each honest seat ended "quit", its log holding a
shuffle ``verify`` named the cheater for; and at a table with a second cheater an honest
accuser was blamed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cheats_catalogue import response_changed
from net_doubles import Stage, Trick, as_record, start_double, to_everyone
from protocol_helpers import LocalGame, body_for, play_until, seeded_game, signed_record
from session_doubles import seated_session, signed_abort, signed_bye, signed_gone
from test_network import free_port, host_args, join_args, only_log, processes  # noqa: F401 (a fixture)

from saboteur_p2p.crypto.log import decode_record, make_entry
from saboteur_p2p.net.session import Outcome, Session, SessionResult
from saboteur_p2p.net.wire import seal
from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.node import Expect
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import GameConfig


def _false_shuffle(game: LocalGame, head: Expect) -> bytes:
    body = body_for(game.nodes[head.speaker], head)
    response_changed(game, body)  # one response of the proof changed: it no longer checks
    return signed_record(game, head.speaker, "shuffle", body)


def _postponed(players: int) -> tuple[LocalGame, bytes]:
    """Seat 1's false shuffle of the first batch, taken in by seat 2, which checks it only
    once its own shuffle is out."""
    game = seeded_game(GameConfig(players), 5)
    head = play_until(game, lambda e: e == Expect(1, "shuffle", (0,)))
    bad = _false_shuffle(game, head)
    game.nodes[2].receive(bad)
    assert game.nodes[2].deferred_checks and game.nodes[2].aborted is None
    return game, bad


def _ahead() -> tuple[LocalGame, int, bytes]:
    """A false shuffle of the next round's batch (opened ahead, during the first round), and its maker."""
    game = seeded_game(GameConfig(3, rounds=2), 5)
    head = play_until(game, lambda e: e.kind == "shuffle" and e.topic[0] >= 1)
    return game, head.speaker, _false_shuffle(game, head)


def _names_in_its_log(session: Session, result: SessionResult, culprit: int) -> None:
    """The session named ``culprit`` for the false shuffle, and ``verify`` of its log agrees."""
    assert (result.outcome, result.culprit) == (Outcome.CHEATER, culprit), result.message
    assert "bad-shuffle-proof" in result.message
    node = session.node
    trailer = Ending(result.outcome.value, result.culprit, session.reason, result.message, session.evidence, session.seat)
    verdict = verify_records([*node.records, trailer.to_bytes()])
    assert verdict.ok and verdict.culprit == culprit, verdict.message
    assert "cheated (bad-shuffle-proof), evidence checks" in verdict.message, verdict.message


def test_an_abort_naming_an_honest_seat_right_after_a_false_shuffle_gets_its_sender_named_for_the_shuffle(tmp_path: Path):
    game, _bad = _postponed(3)
    judge = seated_session(game, game.nodes[2], tmp_path)
    result = judge._handle(b"connection", signed_abort(game, 1, 0, game.records[-1]))
    assert result is not None
    _names_in_its_log(judge, result, 1)
    # and it tells the others, with the false shuffle as evidence
    sent = [data for _, data in judge.transport.sent]  # type: ignore[attr-defined]
    assert any(b"abort" in data and _bad in data for data in sent)


def test_with_a_second_cheater_at_the_table_the_honest_seat_whose_abort_names_it_is_not_blamed(tmp_path: Path):
    """Seat 1's false shuffle waits at seat 2 for its check; seat 3 sends seat 0 a record out of
    turn, and seat 0 rightly stops the game naming seat 3.  Seat 2 blamed seat 0 ("its evidence
    did not show that here") without looking at the evidence; it names seat 1 now, whose record
    comes first."""
    game, _bad = _postponed(4)
    sent_by_3 = sum(decode_record(r).sender == 3 for r in game.nodes[0].records)
    out_of_turn = signed_record(game, 3, "action", {"action": "pass 0"}, seq=sent_by_3, prev=game.nodes[0].log.head)
    accuser = seated_session(game, game.nodes[0], tmp_path / "0")
    named = accuser._handle(b"connection3", seal(game.nodes[3].identity, "record", {"record": out_of_turn}))
    assert named is not None and (named.outcome, named.culprit) == (Outcome.CHEATER, 3)
    abort = next(data for to, data in accuser.transport.sent if to == "tcp://127.0.0.1:3")  # type: ignore[attr-defined]
    judge = seated_session(game, game.nodes[2], tmp_path / "2")
    result = judge._handle(b"connection", abort)
    assert result is not None
    _names_in_its_log(judge, result, 1)


@pytest.mark.parametrize("ending", ["abort", "bye"])
def test_a_false_shuffle_of_a_batch_opened_ahead_followed_by_an_abort_or_a_bye_is_named_by_every_honest_seat(
    tmp_path: Path, ending: str,
):
    game, cheater, bad = _ahead()
    honest = [seat for seat in range(3) if seat != cheater]
    for seat in honest:
        other = next(s for s in honest if s != seat)
        game.nodes[seat].receive(bad)  # taken in; its proof is checked in the background
        judge = seated_session(game, game.nodes[seat], tmp_path / str(seat))
        said = signed_abort(game, cheater, other, game.records[-1]) if ending == "abort" else signed_bye(game, cheater)
        result = judge._handle(b"connection", said)
        assert result is not None
        _names_in_its_log(judge, result, cheater)


def test_a_gone_naming_the_other_honest_seat_after_a_false_shuffle_is_judged_by_the_shuffle(tmp_path: Path):
    """(The seat a false ``gone`` names keeps playing, and its own check names the cheater at
    its next turn, as ever.)"""
    game, cheater, bad = _ahead()
    seat, absent = (s for s in range(3) if s != cheater)
    game.nodes[seat].receive(bad)
    judge = seated_session(game, game.nodes[seat], tmp_path)
    result = judge._handle(b"connection", signed_gone(game, cheater, absent))
    assert result is not None
    _names_in_its_log(judge, result, cheater)


def test_a_bye_after_a_false_shuffle_whose_check_waits_for_the_seats_own_is_named_too(tmp_path: Path):
    game, _bad = _postponed(3)
    judge = seated_session(game, game.nodes[2], tmp_path)
    result = judge._handle(b"connection", signed_bye(game, 1))
    assert result is not None
    _names_in_its_log(judge, result, 1)


def test_a_seat_that_leaves_holding_a_false_shuffle_it_has_not_checked_names_its_maker(tmp_path: Path):
    """Its own player's leaving, too: the log it leaves holds the false record, and its verdict
    says so (verify would otherwise contradict "you left the table")."""
    game, _bad = _postponed(3)
    judge = seated_session(game, game.nodes[2], tmp_path)
    _names_in_its_log(judge, judge._leave(), 1)


def test_a_defect_in_a_check_left_for_later_does_not_stop_an_ending_halfway(tmp_path: Path):
    game = seeded_game(GameConfig(3), 5)
    play_until(game, lambda e: e == Expect(1, "shuffle", (0,)))

    def broken() -> None:
        raise TypeError("a defect of ours in a check")

    game.nodes[2].deferred_checks.append(broken)
    judge = seated_session(game, game.nodes[2], tmp_path)
    said: list[str] = []
    judge.say = said.append  # type: ignore[method-assign]
    result = judge._handle(b"connection", signed_bye(game, 1))
    assert result is not None and (result.outcome, result.culprit) == (Outcome.QUIT, 1)
    assert "left the table" in result.message
    # the defect is said, and its traceback saved beside the log (it went unsaid: a review)
    assert any("defect in saboteur-p2p (TypeError" in line for line in said), said
    assert (tmp_path / "seat2.log.defect.txt").read_text().count("TypeError") >= 1


# -- over loopback: a double that is an honest seat but for this -----------------------------

ENDING: list[str] = []


def _owes_ahead_shuffle(session: Session) -> bool:
    head = session.node.my_expect()
    return head is not None and head.kind == "shuffle" and head.topic[0] >= 1 and bool(session.move_heads)


def _false_shuffle_then_ending(session: Session) -> None:
    entry = decode_record(session.node.produce())  # its honest shuffle, taken into its own node
    body = dict(entry.body)
    response_changed(None, body)
    bad = make_entry(session.identity, entry.game_id, entry.sender, entry.seq, entry.prev, entry.kind, body).record
    victim = session.names.index("b1")
    if ENDING[-1] == "bye":
        ending = seal(session.identity, "bye", {"game_id": session.setup.game_id, "seat": session.seat})
    else:
        ending = seal(session.identity, "abort", {"game_id": session.setup.game_id, "culprit": victim,
                                                   "reason": "out-of-turn", "detail": "",
                                                   "evidence": session.node.records[-2], "chain": []})
    to_everyone(session, as_record(session, bad), ending)


@pytest.mark.parametrize("ending", ["abort", "bye"])
def test_over_loopback_every_honest_peer_names_the_false_shuffle_sent_with_an_ending(
    processes, tmp_path: Path, ending: str,  # noqa: F811
):
    ENDING.append(ending)
    # once in about ten games on a loaded machine the double never owed a shuffle of the
    # next round's batch where its trick looks for one, and the game ended honestly: a second
    # game then (the trick must have been played for the assertions below)
    for attempt in range(2):
        logs = {"host": f"host{attempt}", "b1": f"b1-{attempt}"}  # each game's own logs
        port = free_port()
        host = processes.start("host", host_args(port, 3, wait=60, rounds=2, log_dir=logs["host"]))
        joining = join_args(port, "b1", wait=60)
        joining[joining.index("--log-dir") + 1] = logs["b1"]
        joiner = processes.start("b1", joining)
        double = start_double(f"127.0.0.1:{port}", "double",
                              Trick((Stage(_owes_ahead_shuffle, _false_shuffle_then_ending),), cheats=True),
                              tmp_path / f"double{attempt}")
        codes = {peer.name: peer.wait(120) for peer in (host, joiner)}
        double.finish(10)
        if double.stages_done:
            break
    assert double.stages_done == 1, double.error
    assert codes == {"host": 3, "b1": 3}, codes  # 3: a cheater named
    for peer, name in ((host, "host"), (joiner, "b1")):
        assert "double (seat" in peer.text() and "bad-shuffle-proof" in peer.text()
        checked = subprocess.run([sys.executable, "-m", "saboteur_p2p", "verify", str(only_log(tmp_path / logs[name]))],
                                 capture_output=True, text=True, timeout=60)
        assert checked.returncode == 0 and "cheated (bad-shuffle-proof), evidence checks" in checked.stdout, checked.stdout
