"""The record intake: copies dropped, early records parked, equivocation proved, and a record
of another game (a replay) never turned into evidence against the seat that signed it."""
from __future__ import annotations

from protocol_helpers import path_first, seeded_bytes

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import decode_record, make_entry
from saboteur_p2p.net.intake import Intake
from saboteur_p2p.protocol.local import LocalGame, make_setup, step
from saboteur_p2p.protocol.node import Node
from saboteur_p2p.rules import GameConfig


def game_of(identities: list[Identity], game_seed: int) -> LocalGame:
    """A 3-seat game between these identities, its id and secrets drawn from ``game_seed``."""
    rand = seeded_bytes(game_seed)
    setup = make_setup(GameConfig(3), identities, rand)
    return LocalGame(setup, [Node(setup, seat, identities[seat], rand) for seat in range(3)], Node(setup, None))


def played(game: LocalGame, records: int) -> list[bytes]:
    while len(game.spectator.records) < records:
        assert step(game, path_first)
    return list(game.spectator.records)


def test_a_record_of_an_earlier_game_between_the_same_seats_frames_nobody():
    identities = [Identity.generate(seeded_bytes(n)) for n in range(3)]
    earlier, now = game_of(identities, 1), game_of(identities, 2)
    assert earlier.setup.game_id != now.setup.game_id
    old = played(earlier, 12)
    current = played(now, 8)
    intake = Intake(Node(now.setup, None))
    for record in current:
        assert intake.take(record).accepted == 1
    # the earlier game's record for a (sender, seq) already taken in here, relayed by a liar
    taken = intake.take(old[5])
    assert taken.violation is None and taken.evidence == b""
    assert taken.dropped == "unsigned"
    assert taken.detail.startswith(f"peer {intake.node.log.entries[5].sender} broke the protocol (game-id)")
    assert not intake.node.log.proofs


def test_a_forged_record_is_reported_alike_whether_it_comes_early_or_at_the_head():
    """A relayed forgery is dropped with the same report wherever it falls in the chain, so
    what a player reads does not depend on network timing."""
    identities = [Identity.generate(seeded_bytes(n)) for n in range(3)]
    game = game_of(identities, 4)
    records = played(game, 8)
    intake = Intake(Node(game.setup, None))
    for record in records[:4]:
        intake.take(record)
    reports = []
    for index in (4, 6):  # at the head, and early (its predecessor not yet in)
        entry = decode_record(records[index])
        liar = identities[(entry.sender + 1) % 3]
        forged = make_entry(liar, game.setup.game_id, entry.sender, entry.seq, entry.prev, entry.kind, entry.body)
        taken = intake.take(forged.record)
        assert taken.violation is None and taken.accepted == 0
        reports.append((taken.dropped, taken.detail.split(":")[0]))
    assert reports == [("unsigned", f"peer {decode_record(records[4]).sender} broke the protocol (signature)"),
                       ("unsigned", f"peer {decode_record(records[6]).sender} broke the protocol (signature)")]
    assert intake.waiting == {} and all(count == 0 for count, _ in intake.waiting_of.values())


def test_two_records_of_this_game_for_one_seq_prove_equivocation():
    identities = [Identity.generate(seeded_bytes(n)) for n in range(3)]
    game = game_of(identities, 3)
    records = played(game, 8)
    intake = Intake(Node(game.setup, None))
    for record in records:
        intake.take(record)
    entry = intake.node.log.entries[5]
    twin = make_entry(identities[entry.sender], game.setup.game_id, entry.sender, entry.seq, b"\x00" * 32,
                      entry.kind, {"other": 1})
    taken = intake.take(twin.record)
    assert taken.violation is not None and (taken.violation.peer, taken.violation.reason) == (entry.sender, "equivocation")
    assert len(intake.node.log.proofs) == 1
