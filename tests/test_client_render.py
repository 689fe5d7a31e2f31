"""The client's screen model: card glyphs, the maze panel, the panels and the whole 80x24 screen."""
from __future__ import annotations

import re
from dataclasses import replace

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_controller import find, find2, seated

from saboteur_p2p.client.app import COLOUR_STYLE, MONO_STYLE, ClientApp
from saboteur_p2p.client.controller import Controller
from saboteur_p2p.client.maze import (
    MazeMarks,
    card_marks,
    cell_rows,
    face_down_goal_rows,
    mini_card_rows,
    mini_rows,
    render_maze,
    tile_rows,
)
from saboteur_p2p.client.model import ROLE_SHORT, Item, ItemKind
from saboteur_p2p.client.render import render_hand, render_info, render_players
from saboteur_p2p.client.screens import render_ranking
from saboteur_p2p.rules import ActionCard, ActionKind, Board, Door, PathCard, PathKind, Role
from saboteur_p2p.rules.cards import START, STONE_NW, TREASURE, E, N, S, W, mask_from_letters


def tunnel(*segments: str) -> PathCard:
    return PathCard(PathKind.TUNNEL, tuple(mask_from_letters(s) for s in segments))


def text(fragments: list[tuple[str, str]]) -> str:
    return "".join(t for _, t in fragments)


@pytest.mark.parametrize("segments, rows", [
    ((N | E | S | W,), ["  │  ", "──┼──", "  │  "]),
    ((N | E | S,), ["  │  ", "  ├──", "  │  "]),
    ((E | W | N,), ["  │  ", "──┴──", "     "]),
    ((N | W,), ["  │  ", "──┘  ", "     "]),
    ((E | S,), ["     ", "  ┌──", "  │  "]),
    ((N, S), ["  │  ", "  ■  ", "  │  "]),  # two dead ends: the rock between them
    ((W,), ["     ", "──■  ", "     "]),
    ((N, E, S, W), ["  │  ", "──■──", "  │  "]),
    ((E | W, N), ["  ╵  ", "─────", "     "]),  # a through-tunnel and a dead end (Saboteur 2 shapes)
])
def test_a_cell_is_drawn_from_its_segments(segments, rows):
    assert cell_rows(segments) == rows


def test_special_cards_and_the_small_hand_tiles():
    assert tile_rows(START, False)[1] == "──H──"
    assert tile_rows(TREASURE, False)[1] == "──$──"
    assert tile_rows(STONE_NW, True) == ["     ", "  ○──", "  │  "]  # N+W turned is S+E
    assert face_down_goal_rows(2, None) == ["╔═2═╗", "║ ? ║", "╚═══╝"]
    assert face_down_goal_rows(1, TREASURE)[1] == "║ $ ║"
    assert mini_rows((N | E | S,)) == [" │ ", " ├─", " │ "]
    assert mini_rows(tunnel("W", "E", "S").turned_segments(True)) == [" │ ", "─■─", "   "]


def long_board(length: int) -> Board:
    board = Board.new_round()
    for x in range(1, length + 1):
        board.place((x, 0), tunnel("EW"), False)
    return board


def test_the_maze_pans_to_follow_the_cursor_when_it_outgrows_the_panel():
    board = long_board(14)
    east, origin = render_maze(board, {}, MazeMarks(cursor=(15, 0)), 53, 16)
    header = text(east).splitlines()[0]
    assert "15" in header and header.startswith("◀") and " 0 " not in header
    west, origin = render_maze(board, {}, MazeMarks(cursor=(-1, 0)), 53, 16, origin)
    header = text(west).splitlines()[0]
    assert "-1" in header and header.rstrip().endswith("▶")
    # panning keeps the origin while the cursor stays in view
    _again, same = render_maze(board, {}, MazeMarks(cursor=(2, 0)), 53, 16, origin)
    assert same == origin


def test_the_maze_shows_coordinates_goals_legal_cells_and_a_preview():
    board = Board.new_round()
    marks = MazeMarks(cursor=(1, 0), legal=frozenset({(1, 0), (0, 1)}), preview=tunnel("EW").segments, preview_legal=True)
    lines = text(render_maze(board, {0: TREASURE}, marks, 60, 17)[0]).splitlines()
    assert len(lines) == 16 and all(len(line) <= 60 for line in lines)  # a header and 5 rows of 3
    assert re.search(r"-1 +0 +1 +2 .* 8", lines[0])
    start_row = next(line for line in lines if "H" in line)
    assert start_row.startswith(" 0 ") and "──H───────  " in start_row  # the preview joins the start
    assert any("╔═0═╗" in line for line in lines) and any("║ $ ║" in line for line in lines)  # mapped treasure
    assert any("╔═2═╗" in line for line in lines) and any("║ ? ║" in line for line in lines)
    below = lines.index(start_row) + 2
    assert "·   ·" in lines[below]  # (0, 1) is a legal cell


def test_the_players_panel_shows_turn_hands_broken_tools_roles_and_connection():
    state = find(lambda s: any(s.broken[p] for p in range(s.players)))
    agent, _node, _ctl = seated(state)
    agent.say("p1 is away (no word for 3 s); the table waits up to 120 s")
    snap = agent.snapshot()
    view = snap.view
    snap = replace(snap, view=view._replace(revealed_roles=(Role.SABOTEUR,) + (Role.GOLD_DIGGER,) * (state.players - 1)))
    lines = text(render_players(snap, Controller(agent).focus(), 40)).splitlines()
    assert lines[0].strip() == "players"
    current = lines[1 + state.current]
    assert current.startswith(f"▶{state.current} p{state.current}*")
    assert f" {len(state.hands[state.current])}c g" in current
    broken = next(p for p in range(state.players) if state.broken[p])
    letters = "".join(t.value[0].upper() for t in sorted(state.broken[broken], key=lambda t: t.value))
    assert f"✗{letters}" in lines[1 + broken]
    assert "away" in lines[2] and "SAB" in lines[1] and "dig" in lines[2]
    assert all(len(line) <= 40 for line in lines)


def test_the_players_panel_lines_up_its_columns_and_shows_a_last_move_whole_or_not_at_all():
    from saboteur_p2p.client.tracker import LastMove

    state = find(lambda s: any(s.broken[p] for p in range(s.players)))
    agent, _node, _ctl = seated(state)
    snap = agent.snapshot()
    names = tuple(f"heuristic-{seat}" for seat in range(state.players))
    moves = {seat: LastMove(seat, "", (7, -1), seat, "┤ 7,-1") for seat in range(state.players)}
    roles = (Role.SABOTEUR,) + (Role.GOLD_DIGGER,) * (state.players - 1)
    snap = replace(snap, names=names, last_moves=moves, view=snap.view._replace(revealed_roles=roles))
    lines = text(render_players(snap, Controller(agent).focus(), 40)).splitlines()[1:]
    assert len({re.search(r" (SAB|dig)", line).start() for line in lines}) == 1, lines  # type: ignore[union-attr]
    for width in (22, 26, 30, 40):
        lines = text(render_players(snap, Controller(agent).focus(), width)).splitlines()[1:]
        # the gold counts stand in one column, whichever seat has broken tools or the turn (the
        # hand counts, all alike, make room for the last moves in a narrow panel)
        columns = {re.search(r" g\d", line).start() for line in lines}  # type: ignore[union-attr]
        assert len(columns) == 1, (width, lines)
        assert all(len(line) <= width for line in lines)
        for line in lines:  # a last move is shown whole, or not at all
            assert ("┤ 7,-1" in line) or ("┤" not in line and "7,-" not in line), (width, line)
    wide = text(render_players(snap, Controller(agent).focus(), 60)).splitlines()[1:]
    assert all("┤ 7,-1" in line for line in wide)


def test_the_ranking_at_the_end_of_the_game():
    state = find(lambda s: s.phase.value == "play")
    agent, _node, _ctl = seated(state, 0)
    snap = agent.snapshot()
    snap = replace(snap, view=snap.view._replace(scores=(3, 7, 7, 0, 2), phase="game-over"))
    snap = replace(snap, rounds=())
    lines = render_ranking(snap).splitlines()
    assert lines[0] == "Game over · nuggets"
    assert lines[2:7] == [
        "★ 1. p1   7 nuggets", "★ 1. p2   7 nuggets", "  3. you  3 nuggets", "  4. p4   2 nuggets", "  5. p3   0 nuggets",
    ]


def screen_of(state, width: int, height: int, pick: int | None = None, round_end: bool = False) -> tuple[str, ClientApp]:
    """The screen of the seat to move; the round-end screen of a round that just ended is
    closed unless ``round_end``."""
    agent, _node, _ctl = seated(state)
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
        if not round_end:
            app.ui.round_seen = state.round
        if pick is not None:
            app.controller.pick(pick)
        return app.render_text(width, height), app


def test_the_80x24_screen_has_the_maze_the_hand_and_the_players():
    state = find(lambda s: s.phase.value == "play" and len(s.hands[s.current]) == 6)
    screen, _app = screen_of(state, 80, 24, pick=0)
    lines = screen.splitlines()
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    assert "YOUR MOVE: play a card" in lines[0] and "? help" in lines[0]
    # the maze: coordinates, the start ladder and the three face-down goals
    assert re.search(r" 0 +1 +2 ", lines[1]) and " 8" in lines[1]
    assert any(line.startswith(" 0 ") and "H" in line for line in lines)
    for slot in range(3):
        assert any(f"╔═{slot}═╗" in line for line in lines)
    # the players panel, right of the maze
    assert any(line.rstrip().endswith("players") for line in lines[:3])
    for seat in range(5):
        assert any(re.search(rf"[▶◀ ]{seat} p{seat}", line) for line in lines), seat
    assert any(f"▶{state.current} p{state.current}*" in line for line in lines)
    assert any("you: " in line for line in lines)
    # the hand strip: six numbered tiles, then the message line and the command line
    hand = lines[18]
    assert re.match(r"▶1 \w+ +2 \w+ +3 \w+ +4 \w+ +5 \w+ +6 \w+", hand), hand  # card 1 picked
    # what the keys do with the picked card, at once (not an echo of its name: ▶ marks it)
    assert "Enter" in lines[-2] and "·" in lines[-2] and lines[-1].startswith(":")


def test_a_bigger_screen_gives_the_maze_and_the_log_more_room():
    state = find(lambda s: s.phase.value == "play" and s.round == 2)
    small, _ = screen_of(state, 80, 24)
    big, _ = screen_of(state, 132, 43)
    assert len(big.splitlines()) == 43 and max(len(line) for line in big.splitlines()) > 100

    def count(screen: str) -> int:
        moves = r"\w: (path|dead end|discards|breaks|repairs|rockfall|looks)"
        return sum(1 for line in screen.splitlines() if re.search(moves, line))

    assert count(big) > count(small)  # more of the log shows
    assert big.count("│") > small.count("│")


def test_no_color_gives_a_monochrome_style(monkeypatch):
    state = find(lambda s: s.phase.value == "play")
    agent, _node, _ctl = seated(state)
    with create_pipe_input() as pipe:
        coloured = ClientApp(agent, input=pipe, output=DummyOutput())
        monkeypatch.setenv("NO_COLOR", "1")
        mono = ClientApp(agent, input=pipe, output=DummyOutput())
    colour_rules = dict(coloured.application.style.style_rules)
    mono_rules = dict(mono.application.style.style_rules)
    assert any("#" in rule for rule in colour_rules.values())
    assert not any("#" in rule for rule in mono_rules.values())
    assert mono_rules["maze.cursor"] == "reverse" and "bold" in mono_rules["maze.legal"]


# -- Saboteur 2 ------------------------------------------------------------------------


def card2(*segments: str, ladder: bool = False, door: Door | None = None, crystals: int = 0) -> PathCard:
    return PathCard(PathKind.TUNNEL, tuple(mask_from_letters(s) for s in segments), ladder, door, crystals)


@pytest.mark.parametrize("card, rows", [
    (card2("S", ladder=True), ["     ", "  ╫  ", "  │  "]),
    (card2("NS", door=Door.BLUE), ["  │  ", "  B  ", "  │  "]),
    (card2("EW", "S", door=Door.GREEN), ["     ", "──G──", "  ╷  "]),  # the door on the longer tunnel
    (card2("ESW", crystals=1), ["    ◆", "──┬──", "  │  "]),
    (card2("NS", "EW"), ["  │  ", "──│──", "  │  "]),  # a bridge: the tunnels do not meet
    (card2("NS", "E", "W"), ["  │  ", "─╴│╶─", "  │  "]),  # not a bridge: two dead ends
    (card2("NW", "ES"), ["  │  ", "──╱──", "  │  "]),  # two curves apart
    (card2("NE", "SW"), ["  │  ", "──╲──", "  │  "]),
])
def test_saboteur2_cards_in_the_maze(card: PathCard, rows: list[str]):
    assert tile_rows(card, False) == rows
    assert tile_rows(tunnel("NESW"), False)[1] == "──┼──"  # a crossroads still joins


def test_saboteur2_hand_tiles_and_their_marks():
    assert mini_card_rows(card2("NE", door=Door.BLUE), True) == ["   ", "─B ", " │ "]
    assert mini_card_rows(card2("NS", "EW", crystals=1), False) == [" │◆", "─│─", " │ "]
    assert mini_card_rows(card2("EW", "N"), False) == [" ╵ ", "───", "   "]  # a dead end beside a tunnel
    assert card_marks(card2("EW", door=Door.GREEN)) == {(1, 2): "door-green"}
    assert card_marks(card2("NESW", crystals=1), mini=True) == {(0, 2): "crystal"}


def test_doors_are_coloured_and_marked_for_no_color():
    board = Board.new_round()
    board.place((1, 0), card2("EW", door=Door.BLUE), False)
    board.place((-1, 0), card2("EW", door=Door.GREEN), False)
    board.place((0, 1), card2("NS", ladder=True), False)
    fragments, _ = render_maze(board, {}, MazeMarks(), 60, 17)
    styled = {t: style for style, t in fragments if t in ("B", "G", "╫")}
    assert "class:maze.door-blue" in styled["B"] and "class:maze.door-green" in styled["G"]
    assert "class:maze.ladder" in styled["╫"]
    assert "──G────H────B──" in text(fragments)  # the letters alone tell the doors apart
    # the colour style colours them; the monochrome one marks them with attributes only
    assert "#" in COLOUR_STYLE["maze.door-blue"] and "#" in COLOUR_STYLE["maze.door-green"]
    assert MONO_STYLE["maze.door-blue"] != MONO_STYLE["maze.door-green"]
    assert not any("#" in rule for rule in MONO_STYLE.values())


def test_the_hand_strip_names_the_saboteur2_cards():
    state = find2(lambda s: s.phase.value == "play")
    agent, _node, ctl = seated(state)
    cards = [card2("S", ladder=True), card2("NS", door=Door.GREEN), card2("N", crystals=1), card2("NS", "EW"),
             ActionCard(ActionKind.TRAPPED), ActionCard(ActionKind.HANDS_OFF), ActionCard(ActionKind.SWAP_HATS)]
    labels = [Item(ItemKind.PATH if isinstance(c, PathCard) else ItemKind.ACTION, 90 + i, c).label() for i, c in enumerate(cards)]
    assert labels == ["ladr", "green", "gem", "2way", "trap", "h.off", "hats"]
    names = {kind: Item(ItemKind.ACTION, 1, ActionCard(kind)).label() for kind in ActionKind}
    assert names[ActionKind.THEFT] == "theft" and names[ActionKind.SWAP_HAND] == "swap"
    assert names[ActionKind.INSPECTION] == "look" and names[ActionKind.FREE] == "free"
    snap = agent.snapshot()
    hand = tuple((90 + i, c) for i, c in enumerate(cards[:4] + cards[5:]))
    snap = replace(snap, view=snap.view._replace(hand=hand))
    ctl.link.snapshot = lambda: snap  # type: ignore[method-assign]
    strip = text(render_hand(snap, ctl.focus(), 80)).splitlines()
    assert strip[0].split() == ["1", "ladr", "2", "green", "3", "gem", "4", "2way", "5", "h.off", "6", "hats"]
    assert "hands" in strip[2] and "swap" in strip[2]


def test_the_players_panel_in_saboteur2():
    state = find2(lambda s: s.phase.value == "play" and any(s.trapped) and any(s.thefts) and bool(s.known_roles(s.current)))
    seat = state.current
    agent, _node, ctl = seated(state)
    snap = agent.snapshot()
    lines = text(render_players(snap, ctl.focus(), 40)).splitlines()
    assert all(len(line) <= 40 for line in lines)
    for other in range(state.players):
        line = lines[1 + other]
        assert (" trap" in line) == (state.trapped[other] is not None), line
        assert (" thief" in line) == (state.thefts[other] is not None), line
        if other == seat:
            assert f"c ${state.pieces[seat]}" in line  # our own gold pieces
        else:
            assert ("c $" in line) == (state.pieces[other] > 0)  # of the others: only whether they have gold
    for other, role in state.known_roles(seat).items():
        assert ROLE_SHORT[role.value] in lines[1 + other]
    mine = state.role_faces[state.roles[seat]]
    assert ROLE_SHORT[mine.value] in lines[1 + seat]
    hidden = [o for o in range(state.players) if o != seat and o not in state.known_roles(seat)]
    other_view = seated(state, hidden[0])[0].snapshot()  # what we saw is ours alone
    others = text(render_players(other_view, Controller(agent).focus(), 40)).splitlines()
    for other in state.known_roles(seat):
        if other != hidden[0]:
            assert not any(name in others[1 + other] for name in ROLE_SHORT.values())
    # the info panel names our role in its team's colour
    info = render_info(snap, 40)
    assert any(style.startswith("class:info.role") and "you: " in t for style, t in info)


def test_the_saboteur2_screen_and_the_ranking_by_gold_pieces():
    state = find2(lambda s: s.phase.value == "steal")
    screen, app = screen_of(state, 80, 24)
    lines = screen.splitlines()
    assert "SABOTEUR 2" in lines[0] and "YOUR MOVE: steal a gold piece" in lines[0]
    assert any("Your Theft: steal 1 gold piece" in line for line in lines)
    assert any("crystals in the maze" in line for line in lines)
    snap = app.agent.snapshot()
    snap = replace(snap, view=snap.view._replace(scores=(3, 7, 7, 0, 2), phase="game-over"))
    assert render_ranking(snap).splitlines()[2].startswith("★ 1. p1   7 gold pieces   (r1 ")


def test_a_round_end_of_twelve_seats_fits_a_short_panel_with_its_key_last():
    """At 80x24 a 12-seat round end has one line a seat; the legend under it goes first when the
    panel is short (the help page has it too), never the line that says how to go on."""
    import dataclasses

    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board, Role

    roles = (Role.GOLD_DIGGER,) * 8 + (Role.SABOTEUR,) * 4
    summary = RoundSummary(1, 3, "gold-diggers won", roles, Board.new_round(), {}, ("2 gold cards",) * 12, ("3",) * 12,
                           settled=True)
    snap = dataclasses.replace(Snapshot(), seat=0, names=tuple(f"player-{i}" for i in range(12)))
    for height in (16, 17, 18, 19, 30):
        lines = "".join(text for _, text in render_round_end(summary, snap, 27, height)).splitlines()
        assert len(lines) <= height and lines[-1].startswith(" any key")
        assert sum(" dig " in line or " SAB " in line for line in lines) == 12  # a line a seat
        # how the round ended (the cards ran out) before the legend, after the seats
        assert any("the cards ran out" in line for line in lines) == (height >= 17)
        assert any("others: c gold cards" in line for line in lines) == (height >= 19)


def test_the_player_list_tells_a_break_or_repair_in_words_not_in_the_marks_of_broken_tools():
    from saboteur_p2p.client.tracker import _short_move
    from saboteur_p2p.rules import ActionCard, ActionKind, BreakTool, CardPlayed, RepairTool, Tool

    broke = CardPlayed(0, BreakTool(Tool.CART, 2, 7), ActionCard(ActionKind.BREAK, (Tool.CART,)))
    fixed = CardPlayed(1, RepairTool(Tool.LANTERN, 0, 8), ActionCard(ActionKind.REPAIR, (Tool.LANTERN,)))
    assert _short_move(broke) == "brk cart→2"
    assert _short_move(fixed) == "fix lamp→0"
    assert "✗" not in _short_move(broke) + _short_move(fixed)  # ✗ marks the seat's own broken tools


def test_the_player_list_shows_a_turned_path_card_as_it_lies_in_the_maze():
    from saboteur_p2p.client.tracker import _short_move
    from saboteur_p2p.rules import CardPlayed, PlacePath

    t_up = tunnel("NEW")  # ┴, turned ┬
    assert _short_move(CardPlayed(0, PlacePath(3, 7, -1, turned=False), t_up)) == "┴ 7,-1"
    assert _short_move(CardPlayed(0, PlacePath(3, 7, -1, turned=True), t_up)) == "┬ 7,-1"
    assert _short_move(CardPlayed(0, PlacePath(4, 5, 0, turned=True), tunnel("NE"))) == "┐ 5,0"


def test_a_round_end_has_two_lines_a_seat_only_when_each_fits_whole():
    """At a width where "won 1 gold card · total 1 gold card" does not fit, one line a seat."""
    import dataclasses

    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board

    roles = (Role.GOLD_DIGGER,) * 3 + (Role.SABOTEUR,)
    won = ("0 nuggets", "1 gold card", "1 gold card", "-")
    totals = ("0 nuggets", "1 gold card", "1 gold card", "0 gold cards")
    summary = RoundSummary(1, 1, "the gold-diggers won", roles, Board.new_round(), {}, won, totals)
    snap = dataclasses.replace(Snapshot(), seat=0, names=("Ann", "heuristic-1", "heuristic-2", "Bob"))
    for width in (36, 37, 40, 44):
        lines = text(render_round_end(summary, snap, width, 30)).splitlines()
        assert all(len(line) <= width for line in lines)
        for line in lines:
            if "won " in line and "total " in line and not line.startswith(" who"):  # the two-line form: nothing cut off
                assert line.rstrip().endswith(("nuggets", "gold card", "gold cards")), (width, line)
        assert sum("heuristic-" in line for line in lines) == 2


def test_why_a_move_is_not_legal_is_shown_whole_beside_the_hand_at_80_columns():
    """"you have a broken tool (pickaxe) and may not play path cards" wraps onto the rows under
    the move instead of stopping at "and may not"."""
    from test_client_controller import index_of, is_path

    state = find(lambda s: s.phase.value == "play" and len(s.broken[s.current]) == 1 and len(s.hands[s.current]) == 6
                 and any(isinstance(s.faces.get(h), PathCard) for h in s.hands[s.current]))
    agent, _node, _ctl = seated(state)
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
        app.ui.round_seen = state.round
        app.controller.pick(index_of(app.controller, is_path))
        problem = app.controller.focus().problem
        assert problem is not None and problem.endswith("may not play path cards")
        for width in (80, 100):
            lines = app.render_text(width, 24).splitlines()
            assert all(len(line) <= width for line in lines)
            notes = " ".join(line[55:].strip() for line in lines[-5:-2]).strip()  # right of the six tiles
            assert f"✗ {problem}" == notes, (width, lines[-6:-2])


def test_two_goals_known_to_be_stones_show_the_third_as_the_treasure():
    """Each edition has one treasure among its three goals: after Maps showed two stones, the
    last face-down goal is shown as the treasure on the maze and in the info panel."""
    state = find(lambda s: s.phase.value == "play")
    screen, app = screen_of(state, 80, 24)
    assert "$" not in screen and "TREASURE" not in screen
    snap = app.agent.snapshot()
    view = snap.view._replace(known_goals={0: STONE_NW, 2: STONE_NW})
    app.agent._snapshot = replace(snap, view=view)  # as after two Maps
    screen = app.render_text(80, 24)
    info = text(render_info(app.agent.snapshot(), 40))
    assert "goals: g0 stone, g2 stone → g1 TREASURE" in info
    goal_rows = [line for line in screen.splitlines() if "║" in line]
    assert any("║ $ ║" in line for line in goal_rows) and sum("║ ○ ║" in line for line in goal_rows) == 2
    one_map = snap.view._replace(known_goals={0: STONE_NW})
    assert "TREASURE" not in text(render_info(replace(snap, view=one_map), 40))  # one stone: two goals remain


def test_our_turn_before_our_cards_are_readable_says_they_are_being_dealt():
    """At a round's start the table counts our cards before the deal lets us read them: the
    top line said "Ann's move" (as if someone else's) over "(no cards in hand)"."""
    from saboteur_p2p.client.render import render_status

    state = find(lambda s: s.phase.value == "play" and len(s.hands[s.current]) == 6)
    agent, _node, ctl = seated(state)
    snap = agent.snapshot()
    agent._snapshot = replace(snap, decision=None, view=snap.view._replace(hand=()))  # as during the deal
    dealt = agent.snapshot()
    assert "your move: your cards are being dealt" in text(render_status(dealt, 100))
    assert "(your cards are being dealt…)" in text(render_hand(dealt, ctl.focus(), 100))
    agent._snapshot = replace(snap, decision=None)  # the move sent, not yet played
    assert "your move: waiting for the table" in text(render_status(agent.snapshot(), 100))
    empty = replace(snap, decision=None, view=snap.view._replace(hand=(), hand_sizes=(0,) * state.players))
    agent._snapshot = empty
    assert "(no cards in hand)" in text(render_hand(empty, ctl.focus(), 100))


def test_a_log_line_of_wide_characters_wraps_by_columns_and_loses_nothing():
    """A name in CJK characters (two columns each) was wrapped by its count of characters, so
    its rows took twice the panel's width and the terminal cut them (found by a play-test)."""
    from saboteur_p2p.client.model import LogKind, LogLine, text_width
    from saboteur_p2p.client.render import render_log

    text = "<张伟> 我们 一起 挖 金子 吧 朋友们 ，宝藏 在 左边 的 目标 下面 ！"
    width = 16
    rows = [row.rstrip("\n") for _, row in render_log([LogLine(LogKind.CHAT, text)], 0, width, 20)]
    assert rows and all(text_width(row) == width for row in rows), rows  # padded to the panel, never past it
    assert "".join(row.strip() for row in rows).replace(" ", "") == text.replace(" ", "")


def test_wrapping_by_columns_matches_textwrap_for_text_one_column_a_character():
    """``wrap_to_width`` is textwrap's wrap (never at a hyphen) measured in columns: on text of
    one column a character it gives the same rows, long words, indents and spaces included."""
    import random
    import textwrap

    from saboteur_p2p.client.model import wrap_to_width

    chance = random.Random(7)
    words = ["a", "bb", "hello", "saboteur-p2p", "x" * 30, "path", "2,0", "  ", " \t", "y" * 9]
    for _ in range(1500):
        text = chance.choice(["", "  "]) + " ".join(chance.choice(words) for _ in range(chance.randint(0, 12)))
        width = chance.randint(6, 40)
        for first, later in (("", ""), ("", "   "), ("    ", "    ")):
            for long_words in (True, False):
                expected = textwrap.wrap(text, width, initial_indent=first, subsequent_indent=later,
                                         break_on_hyphens=False, break_long_words=long_words)
                assert wrap_to_width(text, width, first, later, long_words) == expected, (text, width, first, later)


def test_the_pinned_chat_line_does_not_leave_the_tail_of_a_wrapped_line_below_it():
    """At the bottom of the log the last chat line is pinned on top; it took the place of the
    first row shown, which could be the head of a wrapped line, leaving its tail ("  goal 1
    with a map") under the chat, meaning nothing (found by a play-test)."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import render_log

    lines = [LogLine(LogKind.CHAT, "<Ari> where did bo go")]
    lines += [LogLine(LogKind.NOTICE, f"heuristic-{n}: looks at goal 1 with a map") for n in range(6)]
    for height in (5, 6, 7):
        rows = [text.rstrip() for _, text in render_log(lines, 0, 24, height)]
        assert rows[0] == "↑ <Ari> where did bo go", rows
        assert rows[1].startswith("heuristic-"), rows  # a line's head (cut with … if need be), never its tail
        assert rows[-1] == "  goal 1 with a map", rows  # the newest line shows whole at the bottom


def test_the_status_line_counts_down_a_turn_timer_and_warns_before_the_bot_moves():
    """With --turn-time the header said "YOUR MOVE: play a card" until a bot moved for the
    person, with no warning (found by a play-test)."""
    from saboteur_p2p.client.render import TIMER_WARNING, render_status

    state = find(lambda s: s.phase.value == "play" and len(s.hands[s.current]) == 6)
    agent, _node, _ctl = seated(state)
    agent.turn_deadline(100.0)
    snap = agent.snapshot()
    assert snap.my_move and snap.move_deadline == 100.0
    early = render_status(snap, 100, now=70.2)
    assert "YOUR MOVE: play a card · 30 s left" in text(early) and early[0][0] == "class:status.mine"
    late = render_status(snap, 100, now=100.0 - TIMER_WARNING + 0.5)
    assert f"{TIMER_WARNING} s left, then a bot moves for you" in text(late) and late[0][0] == "class:status.warn"
    agent.turn_deadline(None)
    assert "s left" not in text(render_status(agent.snapshot(), 100))


def test_a_line_longer_than_the_log_panel_can_be_read_to_its_end():
    """`what 6` at 80x24 was the newest line, longer than the log panel: the panel showed its
    head ending in "…", and no scrolling showed its last rows (found by a play-test)."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import log_rows, render_log

    text = ("what 6: path ─ (blue door): lay it beside a card so every side matches its neighbours (path SLOT at "
            "X,Y [turned]); a blue door: a route through it keeps the other team out")
    lines = [LogLine(LogKind.EVENT, "heuristic-1: path ┼ at 1,0"), LogLine(LogKind.NOTICE, text)]
    width, height = 24, 4
    whole = log_rows(text, width)
    assert len(whole) > height
    seen: set[str] = set()
    for scroll in range(len(whole) + 2):
        seen.update(row.rstrip() for _, row in render_log(lines, scroll, width, height))
    assert all(row.rstrip() in seen for row in whole), (whole, seen)


def test_the_log_scrolls_back_to_its_first_row_however_long_its_lines():
    """Scrolled back, the "↓ more" mark takes the panel's last row, and the clamp left the
    log's first row above the top page; scrolling also stopped at three rows a log line, short
    of the top of a log of long lines (found by review)."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import log_page, log_rows, render_log

    long = "what 6: " + " ".join(f"word{i}" for i in range(40))
    lines = [LogLine(LogKind.EVENT, "line 0"), *(LogLine(LogKind.NOTICE, long) for _ in range(6))]
    width, height = 20, 4
    rows = sum(len(log_rows(line.text, width)) for line in lines)
    assert rows > 3 * len(lines)
    scroll, anchor = 0, None
    for _ in range(rows):  # PgUp, a page at a time, well past the top
        scroll, anchor = log_page(lines, width, height, scroll, anchor, height - 1)
    shown = [text.strip() for _, text in render_log(lines, scroll, width, height, anchor)]
    assert shown[0] == "line 0", shown
    down = log_page(lines, width, height, scroll, anchor, -(height - 1))
    assert down == (scroll - (height - 1), anchor)  # the first page down moves at once
    taller = height + 6  # the panel grew: the top is nearer, and a page down still moves a page
    top, _ = log_page(lines, width, taller, scroll, anchor, 0)
    assert log_page(lines, width, taller, scroll, anchor, -(taller - 1))[0] == top - (taller - 1)


def test_a_page_down_from_new_lines_below_shows_them_a_page_at_a_time():
    """Scrolled back a page, 30 lines came ("↓ 30 new below (PgDn)"): one PgDn jumped to the
    bottom, and 24 of the new lines were never shown (found by review)."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import log_page, render_log

    lines = [LogLine(LogKind.EVENT, f"line {i}") for i in range(40)]
    width, height = 30, 6
    scroll, anchor = log_page(lines, width, height, 0, None, height - 1)  # PgUp
    lines += [LogLine(LogKind.EVENT, f"line {i}") for i in range(40, 70)]
    seen: set[str] = set()
    while True:
        seen.update(text.strip() for _, text in render_log(lines, scroll, width, height, anchor))
        if not scroll:
            break
        scroll, anchor = log_page(lines, width, height, scroll, anchor, -(height - 1))  # PgDn
    assert all(f"line {i}" in seen for i in range(35, 70)), sorted(seen)
