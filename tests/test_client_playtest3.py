"""Defects a third play-test found at 80x24, each pinned by a test that failed before its fix:
names cut in the panels, the host's lobby screen, and words and keys around a round's end."""
from __future__ import annotations

import unicodedata
from dataclasses import replace

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_controller import find2, seated
from test_client_rounds import followed_game

from saboteur_p2p.client.app import SIDE_MIN, ClientApp
from saboteur_p2p.client.model import Snapshot
from saboteur_p2p.client.render import render_players
from saboteur_p2p.client.screens import render_round_end
from saboteur_p2p.client.tracker import LastMove
from saboteur_p2p.rules import Role, Tool

BOTS = tuple(f"heuristic-{i}" for i in range(1, 6))


def text(fragments: list[tuple[str, str]]) -> str:
    return "".join(t for _, t in fragments)


def text_width(line: str) -> int:
    """The columns a line takes on a terminal: two for a wide (CJK) character."""
    return sum(2 if unicodedata.east_asian_width(char) in ("W", "F") else 1 for char in line)


def _table(names: tuple[str, ...], busy: bool = True) -> tuple[Snapshot, object]:
    """A Saboteur 2 seat with every seat's last move and our own role; ``busy``, its list is
    full of marks too: a broken tool, a trapped seat, a thief, an inspected role."""
    state = find2(lambda s: s.phase.value == "play" and s.round == 1)
    agent, _node, ctl = seated(state)
    snap = agent.snapshot()
    seat, players = snap.seat, state.players
    other = (seat + 1) % players
    view = snap.view if not busy else snap.view._replace(
        broken=tuple(frozenset((Tool.PICKAXE,)) if s == other else frozenset() for s in range(players)),
        trapped=tuple(s == other for s in range(players)),
        thefts=tuple(s == (seat + 2) % players for s in range(players)),
        known_roles={(seat + 3) % players: Role.GREEN_DIGGER},
    )
    moves = {s: LastMove(s, "", (2, 0), s + 1, "┘ 2,0") for s in range(players)}
    names = names[:players]
    ordered = names[players - seat:] + names[:players - seat]  # the first name at our seat
    return replace(snap, view=view, names=ordered, last_moves=moves), ctl


def test_at_80_columns_names_show_whole_and_our_own_last_move_shows_like_the_others():
    """`te…er*` and `he…c-1` in a 26-column list, and our own row never showed our last move.
    Names show whole unless the seats' last moves need their columns: then they keep eight at
    least, and their ends (since 2026-12-06: a play-test could not tell what seats had done)."""
    snap, ctl = _table(("tester", *BOTS))
    no_moves = text(render_players(replace(snap, last_moves={}), ctl.focus(), SIDE_MIN)).splitlines()[1:]
    for seat, line in enumerate(no_moves):
        name = snap.names[seat] + ("*" if seat == snap.seat else "")
        assert f"{seat} {name} " in line, (name, line)  # whole, not "te…er*"
    lines = text(render_players(snap, ctl.focus(), SIDE_MIN)).splitlines()[1:]
    assert all(text_width(line) == SIDE_MIN for line in lines), lines
    for seat, line in enumerate(lines):
        name = snap.names[seat] + ("*" if seat == snap.seat else "")
        assert f"{seat} {name} " in line or (f"{seat} {name[:4]}…{name[-3:]}" in line), (name, line)
    assert all("┘ 2,0" in line for line in lines), lines  # every last move
    marked = lines[(snap.seat + 1) % len(lines)]
    assert " tr" in marked and "✗P" in marked, marked  # the marks, short
    snap, ctl = _table(("tester", *BOTS), busy=False)
    lines = text(render_players(snap, ctl.focus(), SIDE_MIN)).splitlines()[1:]
    assert all("┘ 2,0" in line for line in lines), lines  # every last move, ours too


def test_wide_and_long_names_are_cut_by_display_width():
    """A CJK character takes two columns: cut by characters, a line ran past the panel."""
    wide = ("山田太郎さんのチーム", "x" * 40, "李小龍", "heuristic-3", "heuristic-4")
    snap, ctl = _table(wide)
    for width in (SIDE_MIN, 30, 40):
        lines = text(render_players(snap, ctl.focus(), width)).splitlines()
        assert all(text_width(line) == width for line in lines), (width, lines)
        assert any("…" in line for line in lines[1:])  # the 40-letter name is cut, with its end kept
    lines = text(render_players(snap, ctl.focus(), 60)).splitlines()[1:]
    assert any("山田太郎さんのチーム" in line for line in lines) and any("李小龍" in line for line in lines)


def test_the_round_end_table_shows_bot_names_whole_in_the_narrowest_panel():
    """`heu…c-6` in the round-end table at 80x24 (and `heur…c-1` at the game's end)."""
    _state, agent, _ = followed_game(2, players=6, edition="saboteur2")
    snap = replace(agent.snapshot(), names=("tester", *BOTS))
    for summary in snap.rounds:
        lines = text(render_round_end(summary, snap, SIDE_MIN, 24)).splitlines()
        assert all(text_width(line) <= SIDE_MIN for line in lines)
        for name in BOTS:
            assert any(line.startswith(f" {name} ") for line in lines), (name, lines)


def _game_over_app() -> tuple[ClientApp, Snapshot]:
    _state, agent, _ = followed_game(2, players=6, edition="saboteur2")
    agent.names = ["tester", *BOTS]
    agent._snapshot = replace(agent.snapshot(), names=tuple(agent.names))
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
    return app, agent.snapshot()


def test_the_game_over_box_leaves_no_cut_off_words_of_the_side_panel():
    """At 80x24 the ranking's box left `igger` and `maze: 2` of the side panel beside it."""
    app, snap = _game_over_app()
    app.ui.round_seen = snap.rounds[-1].round
    lines = app.render_text(80, 24).splitlines()
    top = next(i for i, line in enumerate(lines) if "the end" in line)
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].lstrip().startswith("└"))
    for line in lines[top:bottom + 1]:
        assert line[0] in "┌│└" and line[-1] in "┐│┘" and len(line) == 80, line  # the box is the whole row
    assert "heuristic-5" in "\n".join(lines[top:bottom])


def test_the_round_end_screen_says_what_its_keys_do_not_the_hands():
    """The bottom line said `1-6 pick a card · arrows look around` under the round's summary."""
    from test_client_controller import find

    state = find(lambda s: s.phase.value == "play" and s.round == 2 and len(s.hands[s.current]) == 6)
    agent, _node, _ctl = seated(state)
    _game, followed, _ = followed_game(3)
    # the round-end screen of round 1 over our move in round 2, as the tracker keeps it
    agent._snapshot = replace(agent.snapshot(), rounds=followed.snapshot().rounds[:1])
    with create_pipe_input() as pipe:
        screen = ClientApp(agent, input=pipe, output=DummyOutput()).render_text(80, 24)
    lines = screen.splitlines()
    assert "round 1/3 is over" in screen
    bottom = "\n".join(lines[-3:])
    assert "pick a card" not in bottom and "arrows" not in bottom and "type a command" not in bottom, bottom
    assert "any key: next round" in lines[-2], lines[-2]


def test_swapping_ones_own_dwarf_card_is_told_in_plain_words():
    """`you: makes yourself swap your dwarf card`."""
    from saboteur_p2p.match import narrate
    from saboteur_p2p.rules import ActionCard, ActionKind, CardPlayed, PlayOn

    hats = CardPlayed(1, PlayOn(ActionKind.SWAP_HATS, 1, 7), ActionCard(ActionKind.SWAP_HATS))
    assert list(narrate([hats], ["a", "b", "c"], viewer=1)) == ["you swap your own dwarf card"]
    assert list(narrate([hats], ["a", "b", "c"])) == ["b: swaps their own dwarf card"]


def test_the_hosts_lobby_names_the_edition_lists_the_seated_and_shows_the_key_whole():
    """The lobby said `SABOTEUR · waiting for the table`, its list stayed empty while the log
    said `heuristic-1 takes seat 1`, and the join key wrapped at its own `-`."""
    from saboteur_p2p.client.agent import ClientAgent
    from saboteur_p2p.net.play import _LobbyWatch

    key = "qwcS8hmoVZyzOiu-HKI_5gj6Gma0ZmJTalinRV1FXnc"
    joining = (f"saboteur-p2p join 192.168.1.20:7777 --key {key}",)
    agent = ClientAgent(hosting=True)
    seats: list[int] = []
    watch = _LobbyWatch("tester", "saboteur2", 5, joining, agent.lobby, seats.append)
    # as net.lobby.host_lobby tells the names seated, each time a joiner sits down
    for seat in (1, 2):
        watch.seated(("tester", *BOTS[:seat]))
    assert seats == [2, 3]  # the announcer still hears the count
    assert agent.snapshot().names == ("tester", "heuristic-1", "heuristic-2")
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
        screen = app.render_text(80, 24)
    lines = screen.splitlines()
    assert "SABOTEUR 2 · waiting for the table" in lines[0]
    for seat, name in enumerate(("tester", "heuristic-1", "heuristic-2")):
        assert any(line.split("│")[-1].startswith(f"  {seat} {name}") for line in lines), (name, screen)
    assert any(key in line for line in lines), screen  # whole on one line, nowhere broken
    log = [line.split("│")[-1] for line in lines]
    assert not any(line.rstrip().endswith(key.split("-")[0]) for line in log), log  # not wrapped at its "-"
