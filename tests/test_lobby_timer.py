"""What a table tells its joiners beside their seats: how to join a coded table, and the
host's turn timer, which a joiner takes on or refuses (protocol.md §12.2, §12.7)."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from test_lobby import HostedTable, _join_together

from saboteur_p2p.crypto.identity import Identity


def test_the_join_command_a_coded_table_gives_its_friends_says_a_code_is_needed() -> None:
    """A friend who copied the host's "friends join with" command was refused at a table with
    a code: the command left ``--code`` out (found by a play-test).  It says ``--code <code>``
    (the code itself is the host's to pass on, not printed for a screen to show)."""
    from saboteur_p2p.net.invite import join_commands, key_text, where_to_join

    key = Identity.generate().public.dh_key
    assert join_commands("tcp://127.0.0.1:7801", key, coded=True) == [
        f"saboteur-p2p join 127.0.0.1:7801 --key {key_text(key)} --code <code>"]
    told = where_to_join("tcp://127.0.0.1:7801", None, coded=True)
    assert told == "friends join with: saboteur-p2p join 127.0.0.1:7801 --code <code>"
    assert "--code" not in where_to_join("tcp://127.0.0.1:7801", key)


@pytest.mark.parametrize(("given", "told"), [(15.0, [15.0, 15.0]), (None, []), (float("nan"), []), (1e9, [])])
def test_the_hosts_turn_timer_is_told_to_every_joiner(context, given, told):
    """The host's --turn-time timed the host only: a friend sat on "YOUR MOVE" for 80 s with no
    timer, and nobody was told (found by a play-test).  The welcome gives the table's timer,
    which a joiner keeps unless it set its own; a value no --turn-time takes is not one."""
    host = HostedTable(players=3, turn_time=given)
    timers: list[float] = []
    try:
        seated = _join_together(context, host, ("ann", "bob"), timers=timers)
    finally:
        host.close()
    assert len(seated) == 2 and timers == told
    said = [line for line in host.said if line.startswith("turn timer:")]
    assert said == ([] if given is None else [f"turn timer: {given:g} s a move, then a bot moves; joiners take it on "
                                              "unless they give their own --turn-time (or off), or it is under 15 s"])


@pytest.mark.parametrize(("given", "own", "table_timer", "bot", "kept"), [
    (30.0, None, True, None, 30.0),    # taken on
    (30.0, 60.0, True, None, 60.0),    # one's own --turn-time wins
    (30.0, None, False, None, None),   # --turn-time off: none, not even the table's
    (30.0, None, True, "random", None),  # a bot seat has no person to time
    (1.0, None, True, None, None),     # a host's 1 s had a bot play a guest's whole game (found by review)
])
def test_a_joiner_takes_on_the_tables_timer_only_as_a_person_who_set_none_and_never_a_short_one(
    tmp_path, monkeypatch, given, own, table_timer, bot, kept,
):
    import types

    import saboteur_p2p.net.play as play
    from saboteur_p2p.net.session import Outcome, SessionResult

    said: list[str] = []
    made: dict[str, object] = {}

    def lobby(*args: object, on_turn_time: Callable[[float], None], **kwargs: object) -> object:
        on_turn_time(given)
        return types.SimpleNamespace(seat_of=lambda key: 1, game_id=bytes(32), wait_ms=30_000)

    class Seat:
        def __init__(self, table: object, identity: object, transport: object, agent: object, log_dir: object,
                     say: object, wait: object, turn_time: float | None, *args: object, **kwargs: object) -> None:
            made["turn_time"] = turn_time

        def run(self) -> SessionResult:
            return SessionResult(Outcome.QUIT, "done")

    monkeypatch.setattr(play, "join_lobby", lobby)
    monkeypatch.setattr(play, "Session", Seat)
    play.join_table(Identity.generate(), "me", "127.0.0.1:9", None, bot, tmp_path, None, 30.0, said.append,
                    agent=object(), turn_time=own, table_timer=table_timer)  # type: ignore[arg-type]
    assert made["turn_time"] == kept
    told = [line for line in said if "turn timer" in line or "gives each player" in line]
    if given < play.MIN_TABLE_TURN_TIME and own is None and table_timer and bot is None:
        assert told == ["this table's turn timer, 1 s, is too short to take on: you have no timer (--turn-time S sets one)"]
    else:
        assert len(told) == (1 if kept == given else 0)


def test_turn_time_takes_seconds_or_off() -> None:
    import argparse

    from saboteur_p2p.cli_table import turn_time_option

    assert turn_time_option("off") == 0.0 == turn_time_option("OFF") and turn_time_option("15") == 15.0
    assert turn_time_option("0") == turn_time_option("0.0") == turn_time_option("00") == 0.0  # off (review)
    for bad in ("0.5", "3601", "soon", "nan", "inf"):
        with pytest.raises(argparse.ArgumentTypeError, match="1 to 3600 seconds, or off"):
            turn_time_option(bad)


def test_a_seat_taken_back_keeps_the_timer_it_took_on(tmp_path, monkeypatch):
    """A seat taken back mid-game gets the game's start, not a welcome: it lost the table's
    timer it had taken on (found by review).  The timer is kept beside its log."""
    import types

    import saboteur_p2p.net.play as play
    from saboteur_p2p.net.session import Outcome, SessionResult

    made: list[float | None] = []

    def lobby(given: float | None) -> Callable[..., object]:
        def join(*args: object, on_turn_time: Callable[[float], None], **kwargs: object) -> object:
            if given is not None:
                on_turn_time(given)
            return types.SimpleNamespace(seat_of=lambda key: 1, game_id=bytes(32), wait_ms=30_000)
        return join

    class Seat:
        def __init__(self, table: object, identity: object, transport: object, agent: object, log_dir: object,
                     say: object, wait: object, turn_time: float | None, *args: object, **kwargs: object) -> None:
            made.append(turn_time)

        def run(self) -> SessionResult:
            return SessionResult(Outcome.QUIT, "done")

    monkeypatch.setattr(play, "Session", Seat)
    me = Identity.generate()
    for given in (40.0, None):  # seated with the table's timer, then taken back (no welcome)
        monkeypatch.setattr(play, "join_lobby", lobby(given))
        play.join_table(me, "me", "127.0.0.1:9", None, None, tmp_path, None, 30.0, lambda text: None, agent=object())  # type: ignore[arg-type]
    assert made == [40.0, 40.0]
    (tmp_path / "game-0000000000000000-seat1.timer").write_text("1e9")  # a value no table gives: none
    play.join_table(me, "me", "127.0.0.1:9", None, None, tmp_path, None, 30.0, lambda text: None, agent=object())  # type: ignore[arg-type]
    assert made[-1] is None
