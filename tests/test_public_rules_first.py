"""A move that breaks a rule anyone can check is refused at once, before its card is shown.

An attack on a Saboteur 2 table sent validly signed moves with no shares, and then withheld
them: a Theft played on another seat, Free at last! on a seat not trapped, a path card from a
trapped seat.  The engine asked for the card's face first, so the honest seats waited for the
card and named the mover only as silent, a claim verify cannot check.  The rules that do not
depend on the face now come first: every seat refuses such a move with the signed move as
proof (``illegal-action``)."""
from __future__ import annotations

import pytest
from protocol_helpers import hear, seeded_bytes, signed_record

from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.local import first_move_expected, play_local_game
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import GameConfig


@pytest.mark.parametrize("edition, move", [
    ("base", "path {card} at 0,0"),  # the start cell: no card ever goes there
    ("saboteur2", "path {card} at 8,0"),  # a goal cell
    ("base", "path {card} at 4,4"),  # touches no card (found by review)
    ("base", "path {card} at 7,0"),  # touches only a goal: no card could join the start there
    ("saboteur2", "path {card} at 8,-1"),  # between goals: not even a ladder (found by review)
    ("base", "rockfall 0,0 #{card}"),  # the start card never moves
    ("base", "repair lantern @{other} #{card}"),  # nothing broken to repair
    ("saboteur2", "theft @{other} #{card}"),  # a Theft lies in front of its player alone
    ("saboteur2", "free @{other} #{card}"),  # nobody is trapped yet
])
def test_a_move_against_a_public_rule_is_refused_by_every_seat_without_its_card(edition, move):
    config = GameConfig(3, edition, rounds=1)
    game = play_local_game(config, ["random"] * 3, seed=5, rand=seeded_bytes(5), until=first_move_expected)
    state = game.spectator.state
    assert state is not None
    mover = game.spectator.next_expected.speaker  # type: ignore[union-attr]
    other = (mover + 1) % 3
    card = state.hands[mover][0]  # any card of its hand: the move is refused whatever it is
    text = move.format(card=card, other=other)
    evidence = signed_record(game, mover, "action", {"action": text})  # no shares: its card is never shown
    verdicts = hear(game, evidence, mover)
    for seat, violation in verdicts.items():
        assert violation is not None and (violation.peer, violation.reason) == (mover, "illegal-action"), (seat, violation)
    trailer = Ending("cheater", mover, "illegal-action", "", evidence).to_bytes()
    verdict = verify_records([*game.records, trailer])
    assert verdict.culprit == mover and "evidence checks" in verdict.message, verdict.message
