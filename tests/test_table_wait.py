"""The table's wait for a seat gone silent: the host's ``--wait``, which ``start`` gives and
the genesis states, and which a joiner that gives none of its own takes on (protocol.md
§6.1, §12.2, §12.4).  Each seat set its own before, and a liar played one wait against
another (attacks: an honest seat named another honest seat)."""
from __future__ import annotations

import dataclasses
import secrets
import types
from collections.abc import Callable

import pytest
from protocol_helpers import assert_blamed, game_at, hear, signed_record
from session_doubles import signed_start

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.table import DEFAULT_WAIT_MS, SeatInfo, Table
from saboteur_p2p.net.wire import BadEnvelope, open_envelope, seal
from saboteur_p2p.protocol.messages import Genesis, MalformedMessage
from saboteur_p2p.rules import GameConfig


def _start(wait_ms: object) -> Table:
    """An honest host's start, its ``wait_ms`` as given, read back as a joiner reads it."""
    identities = [Identity.generate() for _ in range(3)]
    seats = [SeatInfo(f"p{i}", who.public.sign_key, who.public.dh_key, f"tcp://127.0.0.1:{i + 1}")
             for i, who in enumerate(identities)]
    table = signed_start(identities, seats, [secrets.token_bytes(32) for _ in seats], GameConfig(3))
    return Table.from_envelope(open_envelope(seal(identities[0], "start", {**table.to_data(), "wait_ms": wait_ms})))


def test_start_gives_the_tables_wait_and_refuses_one_that_is_no_whole_number_of_ms_in_an_hour():
    table = _start(8_000)
    assert table.wait_ms == 8_000 and table.to_data()["wait_ms"] == 8_000 and table.setup().genesis().wait_ms == 8_000
    assert dataclasses.replace(table, wait_ms=DEFAULT_WAIT_MS).to_data()["wait_ms"] == 120_000
    assert Table(table.game_id, table.config, table.seats).wait_ms == DEFAULT_WAIT_MS  # a host's without --wait
    for bad in (-1, 3_600_001, True, 8.5, "8000", None):
        with pytest.raises(BadEnvelope, match="wait"):
            _start(bad)


def test_the_genesis_states_the_wait_and_refuses_a_malformed_one():
    genesis = Genesis({"players": 3}, (), ("a",), bytes(16), 8_000)
    assert Genesis.decode(genesis.encode()) == genesis
    assert "wait_ms" not in Genesis({"players": 3}, (), ("a",)).encode()  # a game dealt without a lobby
    for bad in (-1, 3_600_001, True, 8.0, "8000", None):
        with pytest.raises(MalformedMessage, match="wait_ms"):
            Genesis.decode({**genesis.encode(), "wait_ms": bad})


@pytest.mark.parametrize("agreed, stated", [(8_000, 20_000), (8_000, None), (None, 8_000)])
def test_a_genesis_whose_wait_is_not_the_one_the_seat_was_given_names_seat_0(agreed, stated):
    """A hostile host that gave two seats two waits in ``start`` (so that a liar could play one
    against the other) is named by each seat whose wait its genesis does not state."""
    game = game_at("genesis")
    for node in [*game.nodes, game.spectator]:
        node.setup = dataclasses.replace(node.setup, wait_ms=agreed)
    body = dataclasses.replace(game.setup.genesis(), wait_ms=stated).encode()
    verdicts = hear(game, signed_record(game, 0, "genesis", body), 0)
    assert_blamed(game, verdicts, 0, "bad-genesis")


def test_a_genesis_that_states_the_agreed_wait_is_taken():
    game = game_at("genesis")
    for node in [*game.nodes, game.spectator]:
        node.setup = dataclasses.replace(node.setup, wait_ms=8_000)
    body = dataclasses.replace(game.setup.genesis(), wait_ms=8_000).encode()
    assert set(hear(game, signed_record(game, 0, "genesis", body), 0).values()) == {None}


@pytest.mark.parametrize("own, kept, told", [
    (None, 8.0, "the table waits 8 s for a seat gone silent (its host's --wait)"),
    (20.0, 20.0, "you wait 20 s for a seat gone silent (--wait), the table 8 s: a seat whose own wait differs may "
                 "judge a silence otherwise than the others"),
    (8.0, 8.0, None),
])
def test_a_joiner_takes_on_the_tables_wait_unless_its_player_gave_one(tmp_path, monkeypatch, own, kept, told):
    import saboteur_p2p.net.play as play
    from saboteur_p2p.net.session import Outcome, SessionResult

    said: list[str] = []
    made: dict[str, object] = {}

    def lobby(*args: object, timeout: float, **kwargs: Callable[..., object]) -> object:
        made["lobby_timeout"] = timeout
        return types.SimpleNamespace(seat_of=lambda key: 1, game_id=bytes(32), wait_ms=8_000)

    class Seat:
        def __init__(self, table: object, identity: object, transport: object, agent: object, log_dir: object,
                     say: object, wait: float, *args: object, **kwargs: object) -> None:
            made["wait"] = wait

        def run(self) -> SessionResult:
            return SessionResult(Outcome.QUIT, "done")

    monkeypatch.setattr(play, "join_lobby", lobby)
    monkeypatch.setattr(play, "Session", Seat)
    play.join_table(Identity.generate(), "me", "127.0.0.1:9", None, None, tmp_path, None, own, said.append,
                    agent=object())  # type: ignore[arg-type]
    assert made["wait"] == kept
    assert made["lobby_timeout"] == max(60, 120 if own is None else own)  # before the table says its wait
    assert [line for line in said if "gone silent" in line] == ([] if told is None else [told])
