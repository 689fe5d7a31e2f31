"""Defects a fourth play-test found at 100x30 in the base game against bots, each pinned by a
test that failed before its fix: command words that begin with a board key, a refused line
that ':' added to, dead ends drawn as open crossings outside the maze, the Broken-tool text,
the round-end maze forgetting a goal the player knew, and smaller ones."""
from __future__ import annotations

from test_client_app import ENTER, Harness, can_place, seed_where, strip_index

from saboteur_p2p.client.boardkeys import continuations
from saboteur_p2p.client.model import CURSOR_HOME
from saboteur_p2p.rules import PathCard

UP = "\x1b[A"


def test_command_words_that_begin_with_a_board_key_are_typed_whole():
    """`repair pickaxe @me` became 'epair pickaxe @me' (r turned the card), `map 1` 'ap 1',
    and `quit` opened the leave box at its q."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        snap = h.decision()
        index = strip_index(snap, lambda c: isinstance(c, PathCard))
        h.keys(str(index + 1))
        h.wait_for(lambda: h.app.focus.selected == index, "the path card")
        turned = h.app.ui.turned  # a card that fits only turned comes turned
        for line in ("repair pickaxe @me", "rockfall 0,1", "rules", "map 1", "moves"):
            h.keys(line)
            h.wait_for(lambda line=line: h.app.input_area.text == line, f"{line!r} on the command line")
            assert h.app.ui.turned == turned and not h.app.ui.rules_open, line  # r neither turned nor opened
            h.keys("\x1b")
            h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        h.keys("quit")
        h.wait_for(lambda: h.app.input_area.text == "quit", "quit on the command line")
        assert not h.app.ui.confirm_quit
        h.keys(ENTER)
        h.wait_for(lambda: h.app.ui.confirm_quit, "the leave box, asked by the command")
        h.keys("n")
        h.wait_for(lambda: not h.app.ui.confirm_quit, "the box to close")
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        # alone, each key still does its own work: r turns the card, q asks to leave
        h.keys("r")
        h.wait_for(lambda: h.app.ui.turned != turned, "r alone to turn the card")
        h.keys("r1")  # a key that goes on with no word: r acts at once, then 1
        first = h.app.controller.items(h.app.snap)[0].handle
        h.wait_for(lambda: h.app.ui.selected == first, "r then 1")
        h.keys("q")
        h.wait_for(lambda: h.app.ui.confirm_quit, "q alone to ask")
        h.keys("n")
        h.wait_for(lambda: not h.app.ui.confirm_quit, "the box to close")
        assert h.played_by_me() == []

    harness.play(script)


def test_the_words_each_key_waits_for_follow_the_edition():
    """c opens the chat line at once in the base game; in Saboteur 2 it waits for `clear`."""
    assert continuations("r", "base") == {"e", "o", "u"}  # repair, rockfall/rock, rules
    assert continuations("m", "base") == {"a", "o"}  # map, moves
    assert continuations("q", "base") == {"u"}
    assert continuations("c", "base") == frozenset() and continuations("c", "saboteur2") == {"l"}
    assert continuations("x", "saboteur2") == frozenset()
    assert continuations("R", "base") == continuations("r", "base")


def test_in_saboteur2_c_waits_for_clear_and_alone_still_opens_the_chat_line():
    harness = Harness(seed_where(can_place), edition="saboteur2")

    def script(h: Harness) -> None:
        h.wait_for(lambda: h.agent.snapshot().view is not None, "the deal")
        h.keys("clear cart with 1,2")
        h.wait_for(lambda: h.app.input_area.text == "clear cart with 1,2", "the clear command")
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        h.keys("c")
        h.wait_for(lambda: h.app.input_area.text == "say ", "the chat line")

    harness.play(script)


def test_colon_after_a_refused_line_starts_a_new_one():
    """':' after a refusal was typed into the refused line: "cannot read 'path 6 at 5,5:path 9...'"."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":path 9 at 5,5" + ENTER)
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        assert h.app.input_area.text == "path 9 at 5,5"  # kept, to correct it
        h.keys(":")
        h.wait_for(lambda: h.app.input_area.text == "", "a fresh line")
        assert h.app.application.layout.has_focus(h.app.input_area) and h.app.ui.message == ""
        h.keys("pass 1:")  # a ':' in a line being typed is only text
        h.wait_for(lambda: h.app.input_area.text == "pass 1:", "the typed line")
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        h.keys(":path 9 at 5,5" + ENTER)
        h.wait_for(lambda: h.app.input_area.text == "path 9 at 5,5" and h.app.ui.message_kind == "error", "a refusal")
        h.keys("/")
        h.wait_for(lambda: h.app.input_area.text == "", "a fresh line after /")
        # prompt_toolkit reloads a reset line's history in a task of the next repaint: a key
        # sent within the millisecond before (as no person types) found none (a flaky failure)
        h.wait_for(lambda: len(h.app.input_area.buffer._working_lines) > 1, "the line's history")
        h.keys(UP)  # the refused line is still in the history
        h.wait_for(lambda: h.app.input_area.text == "path 9 at 5,5", "the refused line from the history")

    harness.play(script)


def test_a_dead_end_says_so_in_the_player_list_and_in_what():
    """The last-move column showed `┼ 5,0` for a dead end, read as an open crossing."""
    from saboteur_p2p.client.cardinfo import card_does
    from saboteur_p2p.client.guide import help_text
    from saboteur_p2p.client.tracker import _short_move
    from saboteur_p2p.rules import CardPlayed, PlacePath
    from saboteur_p2p.rules.cards import face_from_code

    dead_cross, cross = face_from_code("path:N+E+S+W"), face_from_code("path:NESW")
    assert dead_cross.is_dead_end and not cross.is_dead_end
    assert _short_move(CardPlayed(1, PlacePath(9, 5, 0, False), dead_cross)) == "dead ┼ 5,0"
    assert _short_move(CardPlayed(1, PlacePath(9, 5, 0, False), cross)) == "┼ 5,0"
    assert "dead ┤ 2,1" in help_text("base")  # the legend names the mark
    assert "no tunnel goes through it (■ in the maze)" in card_does(dead_cross, "base")
    assert "dead end" not in card_does(cross, "base")
    # a tunnel with dead ends beside it (Saboteur 2): its openings are not all through
    assert "some of its openings are dead ends" in card_does(face_from_code("path:EW+N+S"), "saboteur2")


def test_a_one_sided_ladder_is_called_a_ladder_not_a_dead_end():
    """A play-tester read "dead end ╷ (ladder)": its one tunnel leads up to the start."""
    from saboteur_p2p.client.cardinfo import card_does
    from saboteur_p2p.client.tracker import _short_move, _tiny_move
    from saboteur_p2p.match import card_words
    from saboteur_p2p.rules import CardPlayed, PlacePath
    from saboteur_p2p.rules.cards import EXPANSION_PATH_COUNTS

    ladders = [card for card, _ in EXPANSION_PATH_COUNTS if card.ladder]
    one_sided = next(card for card in ladders if card.is_dead_end)
    assert card_words(one_sided) == "ladder ╷"
    does = card_does(one_sided, "saboteur2")
    assert "dead end" not in does.replace("not a dead end", "") and "leads up the ladder" in does
    played = CardPlayed(1, PlacePath(9, 5, 0, False), one_sided)
    assert _short_move(played) == "╷ 5,0" and _tiny_move(played) == "╷"
    # the ladders that are tunnels keep their names
    assert sorted(card_words(card) for card in ladders if not card.is_dead_end) == ["path │ (ladder)", "path ┌ (ladder)"]


def test_what_says_a_broken_tool_may_be_laid_before_yourself_as_the_engine_allows():
    """`what N` said "lay it before another player"; the engine takes `break lamp @me`."""
    from test_client_controller import find

    from saboteur_p2p.client.cardinfo import card_does
    from saboteur_p2p.rules import BreakTool

    state = find(lambda s: any(isinstance(a, BreakTool) and a.target == s.current for a in s.legal_actions()))
    own = next(a for a in state.legal_actions() if isinstance(a, BreakTool) and a.target == state.current)
    does = card_does(state.faces[own.card], "base")
    assert "before any player, you too" in does and "another player" not in does


def test_the_round_end_maze_shows_a_goal_worked_out_as_the_maze_did_in_play():
    """Two goals mapped as stones: the maze showed the third as `$` in play, the round's end `?`."""
    from dataclasses import replace

    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from test_client_rounds import followed_game

    from saboteur_p2p.client.app import ClientApp
    from saboteur_p2p.rules import GOAL_CELLS, PathKind

    _state, agent, _finals = followed_game(6)
    first = agent.snapshot().rounds[0]
    assert first.board.tiles[GOAL_CELLS[2]].card is None  # face down as the round ended
    assert first.known_goals[2].kind is PathKind.TREASURE  # worked out: 0 and 1 are stones
    agent._snapshot = replace(agent.snapshot(), rounds=(first,))
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
        screen = app.render_text(100, 30)
    assert "round 1/3 is over" in screen
    assert "║ $ ║" in screen and "║ ? ║" not in screen, screen


def test_a_gold_card_shows_as_many_diamonds_as_nuggets():
    from saboteur_p2p.client.maze import gold_rows
    from saboteur_p2p.rules import GoldCard

    for nuggets in (1, 2, 3):
        assert gold_rows(GoldCard(nuggets))[0].count("◆") == nuggets


def test_a_long_path_in_the_log_is_cut_after_a_folder_not_in_a_name():
    """`log saved: /home/…/game-…-seat0.log` was split mid-word in the log panel."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import render_log

    path = "/home/tester/.local/share/saboteur-p2p/logs/game-3f9a2b7c1d4e5f60-seat0.log"
    for width in (26, 30, 40):
        rows = [text.rstrip() for _, text in render_log([LogLine(LogKind.NOTICE, f"log saved: {path}")], 0, width, 10)]
        assert all(len(row) <= width for row in rows), rows
        assert "".join(row.strip() for row in rows) == "log saved:" + path  # every character, in order
        # after a folder, or a name too long for a row after its "-"
        assert all(row.endswith(("saved:", "/", "5f60-", "seat0.log")) for row in rows), rows


def test_the_cursor_hides_after_esc_and_at_a_new_round():
    """The cursor's corner marks stayed on the maze after Esc and into the next round."""
    from dataclasses import replace

    from test_client_controller import find, index_of, is_path, seated

    state = find(lambda s: s.phase.value == "play" and any(isinstance(s.faces.get(h), PathCard) for h in s.hands[s.current]))
    agent, _node, ctl = seated(state)
    assert ctl.focus().marks.cursor is None  # nothing picked, the arrows not used
    ctl.pick(index_of(ctl, is_path))
    assert ctl.focus().marks.cursor == ctl.ui.cursor  # a path card shows where it goes
    ctl.cancel()  # Esc
    assert ctl.focus().marks.cursor is None
    ctl.arrow(1, 0)  # looking around with the arrows shows it again
    looked = ctl.ui.cursor
    assert ctl.focus().marks.cursor == looked
    snap = agent.snapshot()
    agent._snapshot = replace(snap, view=snap.view._replace(round=snap.view.round + 1))  # type: ignore[union-attr]
    focus = ctl.focus()
    assert focus.marks.cursor is None and ctl.ui.cursor == CURSOR_HOME  # beside the new round's start
