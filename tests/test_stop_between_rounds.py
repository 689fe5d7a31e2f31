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
    for seed in range(3, 43):  # seed 3 stops there (the loop keeps the test if the engine changes)
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


def test_a_move_found_illegal_at_the_games_end_leaves_the_rounds_before_it_told(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A take of too much gold is found when the gold is shown at the game's end, inside the
    last move's engine attempt: the summary dropped the last round and said the game stopped
    early with all of it in the log (found by an attack).  The state where that attempt
    stopped holds the round."""
    import types

    from saboteur_p2p.rules import IllegalActionError, State

    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, 3, rand=seeded_bytes(3))
    played = game.spectator.state
    assert played is not None and played.results
    before = played.clone()
    before.results = []  # as the committed state is before the last move's attempt

    def refused_at_the_end(self: State, text: str, player: int | None = None) -> None:
        self.results = list(played.results)  # the attempt got as far as the round's end
        raise IllegalActionError(text, "player 2 took gold worth 6 ([3, 3]), more than 4 or a stone", player=2)

    monkeypatch.setattr(State, "play", refused_at_the_end)
    node = types.SimpleNamespace(state=before, work="take 1,2", work_player=2,
                                 dealer=types.SimpleNamespace(begin_attempt=lambda: None))
    node.play_work = lambda trial: trial.play(node.work, player=node.work_player)  # (no face to hide here)
    assert state_at_block(node) is None  # type: ignore[arg-type]  # (the forfeit rule wants a block only)
    stopped = state_at_block(node, refused=True)  # type: ignore[arg-type]
    assert stopped is not None and stopped.results == played.results
