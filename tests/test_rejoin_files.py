"""Taking a seat back: what a seat's own files here must be, and one process per seat.

A seat that comes back needs its own log and secrets (protocol.md 12.4); files missing or
damaged on this machine are named as such, never as another seat's cheat, and never a
traceback; a second ``join`` with the same identity and folder is refused before it joins.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from net_doubles import session_for_tests


def test_a_seat_with_a_log_but_no_secrets_refuses_to_come_back(tmp_path: Path) -> None:
    from saboteur_p2p.net.seatstate import SeatLost

    session, _, _ = session_for_tests(tmp_path)
    game = session.setup.game_id.hex()[:16]
    (tmp_path / f"game-{game}-seat1.log").write_bytes(b"")
    with pytest.raises(SeatLost, match="secret"):
        session._open_log()


def test_a_seat_whose_files_are_missing_or_damaged_here_says_so_and_blames_nobody(tmp_path: Path) -> None:
    """Taking a seat back: a game running when we joined needs our seat's own files (a log of
    another seat's is not ours: we started over with new secrets, and the deck broke); files
    damaged on this machine are named as such, not as a peer's cheat, and never a traceback."""
    from saboteur_p2p.net.seatstate import SeatLost

    session, _, _ = session_for_tests(tmp_path)
    session.resuming = True
    with pytest.raises(SeatLost, match="holds no log or secrets of seat 1 of this game"):
        session._open_log()
    from saboteur_p2p.net.seatstate import save_secrets

    game = session.setup.game_id.hex()[:16]
    log_path, secrets_path = tmp_path / f"game-{game}-seat1.log", tmp_path / f"game-{game}-seat1.secret"
    save_secrets(session.node, secrets_path)  # a seat's files as it leaves them before its first record
    log_path.write_bytes(b"")
    log, secrets = log_path.read_bytes(), secrets_path.read_bytes()
    import msgpack

    from saboteur_p2p.net.seatstate import SECRETS_FORMAT

    keyless = msgpack.packb({"format": SECRETS_FORMAT, "game_id": session.setup.game_id, "seat": 1}, use_bin_type=True)
    for damage, what in ((b"\x90", "are not a map"), (b"\xc1", "cannot be read"), (keyless, "lack the deck key")):
        secrets_path.write_bytes(damage)
        with pytest.raises(SeatLost, match=f"are damaged: the saved seat secrets {what}"):
            session_for_tests(tmp_path)[0]._open_log()
    secrets_path.write_bytes(secrets)
    log_path.write_bytes(b"\xff" * 16)
    with pytest.raises(SeatLost, match=r"are damaged: .* outside 1\.\.4194304"):
        session_for_tests(tmp_path)[0]._open_log()
    assert log == b""


def test_a_second_join_with_the_same_identity_and_folder_is_refused(tmp_path: Path) -> None:
    """Two processes playing one seat from the same files sign different records for one seq:
    the seat was named an equivocating cheater and everyone's game ended."""
    from saboteur_p2p.crypto.identity import Identity
    from saboteur_p2p.net.lobby import LobbyError
    from saboteur_p2p.net.play import _one_process_per_identity

    identity = Identity.generate()
    with _one_process_per_identity(tmp_path, identity):
        with pytest.raises(LobbyError, match="one process per seat"), _one_process_per_identity(tmp_path, identity):
            pass
        with _one_process_per_identity(tmp_path, Identity.generate()):
            pass  # another identity (another player on this machine) is not held up
    with _one_process_per_identity(tmp_path, identity):
        pass  # free again once the first is done
