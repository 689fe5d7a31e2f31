"""Cheats on the records of a game session are caught, and pinned on the cheater: forged
signatures and replays, equivocation, commitments, illegal moves, speaking out of turn,
and malformed records and bodies.

A cheater is one seat whose records are built by hand and validly signed, so only the
content is wrong.  Each record goes to every other seat and to the spectator, which checks
everything; each must raise ``ProtocolViolation`` naming the cheater and the rule.

All games are one 3-player round with 4 shadow shuffles, played honestly from one seed to
a few named points (``protocol_helpers.POINTS``); each test gets its own copy of the game
at its point.  Cheats on the cryptography are in test_session_cheats_crypto.py.
"""
from __future__ import annotations

import copy
import functools
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    POINTS,
    assert_blamed,
    body_for,
    cheat_once,
    expected,
    game_at,
    hear,
    honest_body,
    judges,
    other_point,
    path_first,
    play_until_refused,
    signed_record,
    snapshots,
)

from saboteur_p2p.crypto.group import IDENTITY, G
from saboteur_p2p.crypto.log import EquivocationProof, decode_record, make_entry
from saboteur_p2p.protocol.local import LocalGame, step
from saboteur_p2p.protocol.node import Expect, ProtocolViolation
from saboteur_p2p.rules import Deck
from saboteur_p2p.rules.cards import PathCard

# protocol_helpers.snapshots() plays its honest game once per worker: keep its users on one
pytestmark = pytest.mark.xdist_group("protocol-snapshots")

# == 4. and 5. signatures and replays ========================================================


def test_a_forged_signature_is_refused_without_stopping_the_game():
    """A record for seat 1 signed by seat 2: the log names the seat it claims (the network
    knows which connection it came from), and nobody aborts; seat 1's own record still counts."""
    game = game_at("key")
    body = honest_body(game.nodes[1])
    for forged in (
        signed_record(game, 1, "key", body, identity=game.nodes[2].identity),
        msgpack.packb([decode_record(signed_record(game, 1, "key", body)).raw, bytes(64)], use_bin_type=True),
    ):
        verdicts = hear(game, forged, 1)
        assert_blamed(game, verdicts, 1, "signature", aborts=False)
    genuine = signed_record(game, 1, "key", body)
    assert hear(game, genuine, 1) == {0: None, 2: None, None: None}


def test_a_replayed_record_is_refused_without_stopping_the_game():
    game = game_at("move")
    mover = expected(game).speaker
    key_record = next(r for r in game.records if decode_record(r).kind == "key" and decode_record(r).sender == 2)
    verdicts = hear(game, key_record, 2)
    assert_blamed(game, verdicts, 2, "sequence", aborts=False)
    last = game.records[-1]
    sender = decode_record(last).sender
    verdicts = hear(game, last, sender)
    assert_blamed(game, verdicts, sender, "sequence", aborts=False)
    node = game.nodes[mover]
    assert hear(game, node.move(path_first(mover, node)), mover) == dict.fromkeys(judges(game, mover))


def test_a_record_from_another_game_is_refused():
    game = game_at("key")
    node = game.nodes[1]
    other_game = bytes(reversed(game.setup.game_id))
    entry = make_entry(node.identity, other_game, 1, 0, game.spectator.log.head, "key", honest_body(node))  # type: ignore[arg-type]
    assert_blamed(game, hear(game, entry.record, 1), 1, "game-id", aborts=False)


def test_a_record_that_does_not_extend_the_log_is_refused():
    game = game_at("key")
    record = signed_record(game, 1, "key", honest_body(game.nodes[1]), prev=bytes(32))
    assert_blamed(game, hear(game, record, 1), 1, "chain", aborts=False)


# == 6. equivocation ==========================================================================


def test_two_moves_signed_for_one_turn_are_proof_of_equivocation_everywhere():
    """The mover tells seat A one move and seat B another; once the records cross, both
    hold a portable proof that any third party can check with the seats' public keys."""
    game = game_at("move")
    mover = expected(game).speaker
    a, b = [s for s in range(3) if s != mover]
    legal = [str(x) for x in game.nodes[mover].state.legal_actions()]  # type: ignore[union-attr]
    first = signed_record(game, mover, "action", {"action": legal[0]})
    second = signed_record(game, mover, "action", {"action": legal[-1]})
    assert legal[0] != legal[-1]
    game.nodes[a].receive(first)
    game.nodes[b].receive(second)
    game.spectator.receive(first)
    keys = dict(enumerate(game.setup.seats))
    for node, other in ((game.nodes[a], second), (game.nodes[b], first), (game.spectator, second)):
        with pytest.raises(ProtocolViolation) as caught:
            node.receive(other)
        assert (caught.value.peer, caught.value.reason) == (mover, "equivocation")
        assert node.aborted is caught.value
        proof = node.log.proofs[-1]
        assert proof.peer == mover and proof.verify(keys)
        carried = EquivocationProof.from_bytes(proof.to_bytes())
        assert carried.peer == mover and carried.verify(keys)
        assert not EquivocationProof(proof.entry_a, proof.entry_a).verify(keys)


# == 7. commitments =============================================================================


STAND_IN_BODIES: dict[str, dict[str, list[Any]]] = {
    "reveal": {"values": []},
    "shuffle": {"decks": []},
    "shares": {"public": [], "sealed": []},
}


@pytest.mark.parametrize("point,speaker", [
    ("coin-reveal", 2), ("shuffle", 1), ("last-shuffle", 2), ("dealt-shares", 1), ("public-shares", 1),
])
def test_a_seat_that_withholds_a_reveal_is_the_one_everyone_waits_for(point, speaker):
    """Nobody can go on without it: every node names it, nobody else has anything to say,
    and another seat speaking in its place is out of turn.  The network times it out."""
    game = game_at(point)
    head = expected(game)
    assert head.speaker == speaker
    for other in game.spectator.outstanding:  # the rest of its group speaks; it does not
        if other.speaker != speaker:
            made = game.nodes[other.speaker].produce()
            assert made is not None
            assert set(hear(game, made, other.speaker).values()) == {None}
    assert game.spectator.outstanding == (head,)
    for node in (*game.nodes, game.spectator):
        assert node.next_expected == head
    assert all(node.produce() is None for seat, node in enumerate(game.nodes) if seat != speaker)
    stand_in = (speaker + 1) % 3
    record = signed_record(game, stand_in, head.kind, STAND_IN_BODIES[head.kind])
    assert_blamed(game, hear(game, record, stand_in), stand_in, "out-of-turn")


@pytest.mark.parametrize("point", ["coin-reveal"])
@pytest.mark.parametrize("change", ["value", "nonce"])
def test_revealing_another_value_than_the_one_committed_to_is_a_mismatch(point, change):
    def tamper(game, body):
        value, nonce = body["values"][0]
        body["values"][0] = [other_point(10) if change == "value" else value, nonce if change == "value" else bytes(32)]

    game, verdicts = cheat_once(point, 2, tamper)
    assert_blamed(game, verdicts, 2, "mismatch")


def test_copying_another_seat_s_commitment_and_reveal_is_a_mismatch():
    """Seat 1 commits to seat 0's coin commitment, hoping to reveal seat 0's value and so
    cancel it out; commitments are bound to the seat, so the copy cannot be opened."""
    game = game_at("coin-commit")
    entries = [decode_record(r) for r in game.records]
    seat0_commit = next(e for e in reversed(entries) if e.kind == "commit" and e.sender == 0)
    copied = signed_record(game, 1, "commit", seat0_commit.body)
    assert hear(game, copied, 1) == {0: None, 2: None, None: None}  # a commitment hides its value
    while expected(game).speaker != 1:
        speaker = expected(game).speaker
        hear(game, game.nodes[speaker].produce(), speaker, 1)  # type: ignore[arg-type]
    seat0_reveal = next(e for e in reversed(game.spectator.log.entries) if e.kind == "reveal" and e.sender == 0)
    verdicts = hear(game, signed_record(game, 1, "reveal", seat0_reveal.body), 1)
    assert_blamed(game, verdicts, 1, "mismatch", by=[0, 2, None])


def test_the_wrong_number_of_commitments_or_reveals_is_refused():
    def two_commitments(game, body):
        body["commitments"].append(bytes(32))

    game, verdicts = cheat_once("coin-commit", 1, two_commitments)
    assert_blamed(game, verdicts, 1, "bad-commit")

    def two_values(game, body):
        body["values"].append(body["values"][0])

    game, verdicts = cheat_once("coin-reveal", 2, two_values)
    assert_blamed(game, verdicts, 2, "bad-reveal")



# == 8. illegal moves ===========================================================================


def test_playing_a_card_from_another_hand_is_an_illegal_action():
    game = game_at("move")
    mover = expected(game).speaker
    state = game.spectator.state
    assert state is not None
    stolen = state.hands[(mover + 1) % 3][0]
    for text in (f"path {stolen} at 0,1", f"pass {stolen}", "path 999 at 0,1", "fly away"):
        game = game_at("move")
        verdicts = hear(game, signed_record(game, mover, "action", {"action": text}), mover)
        assert_blamed(game, verdicts, mover, "illegal-action")


def test_a_card_played_as_what_it_is_not_is_blamed_on_the_mover_once_revealed():
    """The mover names a card it holds for an action its face does not allow.  Only the
    mover knows the face, so the engine asks for it to be shown to all, and then names the
    rule; the mover takes part in the reveal like anyone else."""
    game = game_at("move")
    mover = expected(game).speaker
    cheater = game.nodes[mover]
    assert cheater.state is not None
    handle = cheater.state.hands[mover][0]
    face = cheater.state.faces[handle]
    text = f"map 1 #{handle}" if isinstance(face, PathCard) else f"path {handle} at 0,1"

    records = iter([signed_record(game, mover, "action", {"action": text})])

    def cheat(head: Expect) -> bytes:
        if head.kind == "action":
            return next(records)
        return signed_record(game, mover, head.kind, body_for(cheater, head))

    head, verdicts = play_until_refused(game, mover, cheat)
    assert head.kind == "shares"
    assert game.spectator.dealer.public_faces[(0, Deck.DRAW, handle)] == face
    assert_blamed(game, verdicts, mover, "illegal-action")


def test_an_honest_move_that_leaves_out_its_card_s_handle_is_not_taken_for_a_cheat():
    """"map 1" (no handle) is a valid move for the mover's engine, which sees its hand; the
    others cannot pick the card, so the node sends the handle its engine picked."""
    game = game_at("move")
    named = None
    for _ in range(300):  # play on (paths first) until the mover may play an action card
        head = expected(game)
        node = game.nodes[head.speaker]
        if head.kind == "action" and node.state is not None:
            named = next((a for a in node.state.legal_actions()
                          if getattr(a, "card", None) is not None and not str(a).startswith(("path", "pass"))), None)
            if named is not None:
                break
        step(game, path_first)
    assert named is not None
    mover = head.speaker
    bare = str(named).split(" #")[0]
    record = node.move(bare)
    assert decode_record(record).body["action"] == str(named)
    assert hear(game, record, mover) == dict.fromkeys(judges(game, mover))



# == 10. speaking out of turn ======================================================================


def test_a_seat_speaking_when_another_is_expected_is_out_of_turn():
    game = game_at("key")  # the key shares come one after another
    early = game.nodes[2]
    record = signed_record(game, 2, "key", early._make_key(Expect(2, "key")))
    assert_blamed(game, hear(game, record, 2), 2, "out-of-turn")

    # a group's records come in any order, but one per seat: a second is out of turn
    game = game_at("coin-commit")
    assert {e.speaker for e in game.spectator.outstanding} == {1, 2}
    commit_body = {"commitments": [bytes(32)]}
    first = signed_record(game, 2, "commit", commit_body)
    assert set(hear(game, first, 2).values()) == {None}
    again = signed_record(game, 2, "commit", commit_body, seq=game.spectator.log.next_seq(2), prev=game.spectator.log.head)
    assert_blamed(game, hear(game, again, 2), 2, "out-of-turn")

    game = game_at("genesis")
    record = signed_record(game, 1, "genesis", game.setup.genesis().encode())
    assert_blamed(game, hear(game, record, 1), 1, "out-of-turn")


def test_a_move_from_a_seat_whose_turn_it_is_not_is_out_of_turn():
    game = game_at("move")
    mover = expected(game).speaker
    other = (mover + 1) % 3
    state = game.nodes[other].state
    assert state is not None
    text = f"pass {state.hands[other][0]}"
    assert_blamed(game, hear(game, signed_record(game, other, "action", {"action": text}), other), other, "out-of-turn")


def test_the_right_seat_sending_the_wrong_kind_is_out_of_turn():
    game = game_at("move")
    mover = expected(game).speaker
    record = signed_record(game, mover, "shares", {"public": [], "sealed": []})
    assert_blamed(game, hear(game, record, mover), mover, "out-of-turn")

    game = game_at("dealt-shares")
    record = signed_record(game, 1, "action", {"action": "pass 0"})
    assert_blamed(game, hear(game, record, 1), 1, "out-of-turn")

    # a seat to move owing sealed shares sends them alone, as a shares record
    game = game_at("sealed-move")
    shares = honest_body(game.nodes[1])["shares"]
    assert shares["sealed"]
    record = signed_record(game, 1, "shares", shares)
    assert_blamed(game, hear(game, record, 1), 1, "out-of-turn")


def test_a_genesis_other_than_the_agreed_game_is_refused():
    def tamper(game, body):
        body["names"] = list(reversed(body["names"]))

    game, verdicts = cheat_once("genesis", 0, tamper)
    assert_blamed(game, verdicts, 0, "bad-genesis")


# == 11. malformed records and bodies ===============================================================


GARBAGE = {
    "empty": b"",
    "one byte": b"\x00",
    "random": bytes(range(200)),
    "msgpack int": msgpack.packb(7),
    "short signature": msgpack.packb([b"x", b"y"], use_bin_type=True),
    "not bytes": "a record",
    "none": None,
}


@pytest.mark.parametrize("garbage", GARBAGE, ids=str)
def test_garbage_is_refused_without_blame_or_stopping_the_game(garbage):
    game = game_at("key")
    for node in (*game.nodes, game.spectator):
        with pytest.raises(ProtocolViolation) as caught:
            node.receive(GARBAGE[garbage])
        assert (caught.value.peer, caught.value.reason) == (-1, "malformed-record")
        assert node.aborted is None
    genuine = signed_record(game, 1, "key", honest_body(game.nodes[1]))
    assert hear(game, genuine, 1) == {0: None, 2: None, None: None}


#: Every point, so every kind of record, is sent malformed by the seat due to speak there.
BODY_POINTS = list(POINTS)


@functools.cache
def _honest_at(point: str) -> tuple[int, bytes]:
    """The speaker at ``point`` and its honest body, packed (unpack for a fresh copy)."""
    speaker, body = _speaker_and_body(game_at(point), point)
    return speaker, msgpack.packb(body, use_bin_type=True)


def _speaker_and_body(game: LocalGame, point: str) -> tuple[int, dict[str, Any]]:
    head = expected(game)
    if head.kind == "action":
        return head.speaker, {"action": path_first(head.speaker, game.nodes[head.speaker])}
    return head.speaker, honest_body(game.nodes[head.speaker])


def _wrong_shapes(body: dict[str, Any]) -> list[Any]:
    shapes: list[Any] = [None, [], "text", 5, {}, [body], {**body, "extra": 1}]
    wrong_values: list[Any] = [None, 7, "x", b"\x00" * 32, [], [[]], {"a": 1}, True, 1.5]
    for field in body:
        shapes.append({k: v for k, v in body.items() if k != field})
        for wrong in wrong_values:
            shapes.append({**body, field: wrong})
    return shapes


@pytest.mark.parametrize("point", BODY_POINTS)
def test_bodies_of_the_wrong_shape_are_blamed_on_the_sender(point):
    """Missing and unknown fields, wrong types: the sender is blamed, nothing else escapes."""
    base = game_at(point)
    speaker, body = _speaker_and_body(base, point)
    spectator = base.spectator
    for wrong in _wrong_shapes(body):
        if wrong == body:
            continue  # the same body after all (a field that was already empty)
        judge = copy.deepcopy(spectator)
        record = signed_record(base, speaker, expected(base).kind, wrong)
        with pytest.raises(ProtocolViolation) as caught:
            judge.receive(record)
        assert caught.value.peer == speaker, f"{wrong!r:.200}: {caught.value}"
        assert judge.aborted is caught.value


MSGPACK_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**64 - 1) | st.floats(allow_nan=False) | st.text(max_size=8)
    | st.binary(max_size=40) | st.sampled_from([b"\x00" * 32, IDENTITY, G, bytes(64)]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place inside a body: map keys and list indexes, the body itself first."""
    found = [prefix]
    if isinstance(value, dict):
        for key, child in value.items():
            found += _paths(child, (*prefix, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            found += _paths(child, (*prefix, i))
    return found


def _mutate(body: Any, path: tuple[Any, ...], how: str, new: Any) -> Any:
    if not path:
        return new
    parent = body
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if how == "replace":
        parent[last] = new
    elif how == "delete":
        del parent[last]
    elif isinstance(parent, list):
        parent.insert(last, new)
    else:
        parent[f"{last}+"] = new
    return body


@pytest.mark.parametrize("point", BODY_POINTS)
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_mutated_body_is_accepted_or_blamed_on_its_sender_and_nothing_else_escapes(point, data):
    base = snapshots()[point]
    speaker, packed = _honest_at(point)
    body = msgpack.unpackb(packed, raw=False)
    paths = _paths(body)
    path = data.draw(st.sampled_from(paths), label="path")
    how = data.draw(st.sampled_from(["replace", "delete", "insert"] if path else ["replace"]), label="how")
    new = data.draw(MSGPACK_VALUES, label="new")
    mutated = _mutate(body, path, how, new)
    try:
        record = signed_record(base, speaker, expected(base).kind, mutated)
    except ValueError:
        return  # nothing our peers would accept can be made of it (too deep, say)
    judge = copy.deepcopy(base.spectator)
    try:
        judge.receive(record)
    except ProtocolViolation as violation:
        assert violation.peer == speaker
        assert judge.aborted is violation


@settings(max_examples=60, deadline=None)
@given(text=st.text(max_size=40) | st.builds(
    lambda verb, n, rest: f"{verb} {n}{rest}",
    st.sampled_from(["path", "pass", "break", "repair", "rockfall", "map", "orient", "keep", "take"]),
    st.integers(-5, 2**70), st.sampled_from(["", " at 0,1", " at 1,0 turned", " at 99,99", " #3", " @1", ",2", " lantern @7"]),
))
def test_any_action_text_is_played_or_blamed_on_the_mover(text):
    base = snapshots()["move"]
    mover = expected(base).speaker
    judge = copy.deepcopy(base.spectator)
    try:
        judge.receive(signed_record(base, mover, "action", {"action": text}))
    except ProtocolViolation as violation:
        assert (violation.peer, violation.reason) == (mover, "illegal-action")
