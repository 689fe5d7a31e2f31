"""The command line's hooks for the client: `play`, and host/join choosing the client or the line prompt."""
from __future__ import annotations

import subprocess
import sys

import pytest

from saboteur_p2p.cli import build_parser, main
from saboteur_p2p.cli_table import _play_table, _wants_client


@pytest.mark.parametrize("argv, players, bots", [
    (["play"], 5, ["heuristic"] * 4),
    (["play", "--players", "3"], 3, ["heuristic"] * 2),
    (["play", "--bots", "heuristic,random,random"], 4, ["heuristic", "random", "random"]),
    (["play", "--players", "6", "--bots", "random,heuristic"], 6, ["random", "heuristic"] * 2 + ["random"]),
    (["play", "--bots", "random"], 5, ["random"] * 4),
])
def test_play_seats_you_and_the_bots(argv: list[str], players: int, bots: list[str]):
    args = build_parser().parse_args(argv)
    config, seat_bots = _play_table(args)
    assert config.players == players and seat_bots == bots
    assert args.log_dir is None and args.identity is None  # logs: the user data dir


def test_play_passes_edition_and_variants_through():
    args = build_parser().parse_args(["play", "--variant", "stone-nuggets", "--edition", "base"])
    config, _ = _play_table(args)
    assert config.variants == {"stone-nuggets"} and config.edition == "base"


def test_a_table_may_play_fewer_rounds_than_the_rules_three():
    assert _play_table(build_parser().parse_args(["play"]))[0].rounds == 3
    assert _play_table(build_parser().parse_args(["play", "--rounds", "1"]))[0].rounds == 1
    for bad in ("0", "11", "x"):
        with pytest.raises(SystemExit):
            build_parser().parse_args(["host", "--rounds", bad])


@pytest.mark.parametrize("argv", [["host"], ["join", "127.0.0.1:7777"], ["play"]])
def test_the_client_is_chosen_only_for_a_person_at_a_terminal(argv: list[str], monkeypatch: pytest.MonkeyPatch):
    parser = build_parser()
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert _wants_client(parser.parse_args(argv))
    assert not _wants_client(parser.parse_args([*argv, "--plain"]))
    if argv[0] != "play":
        assert not _wants_client(parser.parse_args([*argv, "--bot", "random"]))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    assert not _wants_client(parser.parse_args(argv))  # piped: the line prompt


def test_play_help_names_the_options():
    command = [sys.executable, "-m", "saboteur_p2p", "play", "--help"]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    options = (
        "--players", "--bots", "--edition", "--variant", "--log-dir", "--identity", "--plain", "--offline",
    )
    for option in options:
        assert option in out


def test_the_plain_prompt_shows_saboteur2_and_takes_its_moves():
    from test_client_controller import find2, seated

    from saboteur_p2p.net.agents import LineAgent, describe_view
    from saboteur_p2p.rules import PiecesWon, PlayOn

    state = find2(lambda s: s.phase.value == "play" and any(s.trapped) and any(s.thefts) and bool(s.known_roles(s.current)))
    seat = state.current
    names = [f"p{i}" for i in range(state.players)]
    lines = describe_view(state.view_for(seat), names)
    assert lines[0].startswith("your move (play); role ")
    assert f"your gold: {state.pieces[seat]} piece(s)" in lines[1]
    others = next(line for line in lines if line.startswith("others: "))
    for other in range(state.players):
        if other != seat and state.trapped[other] is not None:
            assert f"P{other} p{other} (trapped" in others
    for role in state.known_roles(seat).values():
        assert f"inspected: {role.value}" in others
    assert any("clear trapped with 3,7" in line for line in lines)
    # a typed Saboteur 2 move goes to the session as it was typed
    said: list[str] = []
    agent = LineAgent(said.append)
    agent.seat_no, agent.names = seat, names
    node = seated(state)[1]
    move = next((str(a) for a in state.legal_actions() if isinstance(a, PlayOn)), str(state.legal_actions()[-1]))
    agent.lines.put(move)
    assert agent.poll_move(node) == move and said[0].startswith("your move")
    agent.heard(state)
    won = [e for e in state.events if isinstance(e, PiecesWon)]
    assert sum(1 for line in said if " wins " in line and "gold piece(s)" in line) == len(won)


def test_the_plain_prompt_shows_the_steal_phase():
    from test_client_controller import find2

    from saboteur_p2p.net.agents import describe_view

    state = find2(lambda s: s.phase.value == "steal")
    lines = describe_view(state.view_for(state.current), [f"p{i}" for i in range(state.players)])
    assert lines[0].startswith("your move (steal)") and "steal @<seat>" in lines[-1]


def test_a_host_that_cannot_listen_says_so_and_exits_2(tmp_path, capsys):
    """An address in use is a clear error naming it, not a traceback."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code = main(["host", "--bind", f"127.0.0.1:{port}", "--seats", "3", "--bot", "random", "--quiet",
                     "--log-dir", str(tmp_path), "--identity", str(tmp_path / "id")])
    assert code == 2
    assert f"cannot listen at 127.0.0.1:{port}: Address already in use" in capsys.readouterr().err
