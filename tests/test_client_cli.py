"""The command line's hooks for the client: `play`, and host/join choosing the client or the line prompt."""
from __future__ import annotations

import subprocess
import sys

import pytest

from saboteur_p2p.cli import _play_table, _wants_client, build_parser


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
    assert args.log_dir == "saboteur-logs" and args.identity is None and args.shuffle_rounds is None


def test_play_passes_edition_and_variants_through():
    args = build_parser().parse_args(["play", "--variant", "stone-nuggets", "--edition", "base", "--shuffle-rounds", "4"])
    config, _ = _play_table(args)
    assert config.variants == {"stone-nuggets"} and config.edition == "base" and args.shuffle_rounds == 4


@pytest.mark.parametrize("argv", [["host"], ["join", "127.0.0.1:7777"], ["play"]])
def test_the_client_is_chosen_only_for_a_person_at_a_terminal(argv: list[str], monkeypatch: pytest.MonkeyPatch):
    parser = build_parser()
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert _wants_client(parser.parse_args(argv))
    assert not _wants_client(parser.parse_args(argv + ["--plain"]))
    if argv[0] != "play":
        assert not _wants_client(parser.parse_args(argv + ["--bot", "random"]))
    monkeypatch.setattr(sys.stdout, "isatty", lambda: False, raising=False)
    assert not _wants_client(parser.parse_args(argv))  # piped: the line prompt


def test_play_help_names_the_options():
    out = subprocess.run([sys.executable, "-m", "saboteur_p2p", "play", "--help"], capture_output=True, text=True, check=True).stdout
    for option in ("--players", "--bots", "--edition", "--variant", "--shuffle-rounds", "--log-dir", "--identity", "--plain", "--offline"):
        assert option in out
