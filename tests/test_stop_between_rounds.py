"""A game stopped at the set-up of the next round (found by an attack): the last move of a
round and the next round's set-up are one engine attempt, which blocks on a shuffle (the gold
shuffled again after saboteurs won, say), so the round's result is not yet in the committed
state.  A seat that stopped there said "No round was completed: there is no score", with the
whole round in its log; another seat, past the block, told the round."""
from __future__ import annotations

from pathlib import Path

from protocol_helpers import seeded_bytes
from test_session_speak import seated_session

from saboteur_p2p.protocol.forfeit import state_at_block
from saboteur_p2p.protocol.local import LocalGame, play_local_game
from saboteur_p2p.rules import GameConfig


def _blocked_between_rounds(game: LocalGame) -> bool:
    spectator = game.spectator
    head, state = spectator.next_expected, spectator.state
    if head is None or head.kind != "shuffle" or state is None:
        return False
    blocked = state_at_block(spectator)
    return blocked is not None and len(blocked.results) > len(state.results)


def test_a_game_stopped_at_the_next_rounds_set_up_tells_the_round_its_last_move_ended(tmp_path: Path) -> None:
    for seed in range(40):
        game = play_local_game(GameConfig(3, rounds=2), ["heuristic"] * 3, seed, rand=seeded_bytes(seed),
                               until=_blocked_between_rounds)
        if _blocked_between_rounds(game):
            break
    else:
        raise AssertionError("no game of 40 stopped at a shuffle after its first round")
    shuffler = game.spectator.next_expected.speaker  # type: ignore[union-attr]
    seat = next(s for s in range(3) if s != shuffler)
    session = seated_session(game, game.nodes[seat], tmp_path / "seat")
    assert not session.node.state.results  # type: ignore[union-attr]  # the round's end is not committed
    told = session._what_the_log_supports()
    assert "No round was completed" not in told and "round 1: " in told, told
