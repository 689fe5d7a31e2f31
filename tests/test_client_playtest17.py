"""Findings of a play-test of Saboteur 2 at 80x24 and 120x40 (2026-12-06, third session)."""
from __future__ import annotations


def test_a_round_end_says_who_was_trapped_and_so_won_nothing():
    """A blue digger whose team won read `you  blu  -  -` and "the blue team won": nothing
    said they had been trapped just before the end, so they won nothing."""
    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import render_round_end

    for seed in range(40):
        state, agent, _ = followed_game(seed, players=5, edition="saboteur2")
        snap = agent.snapshot()
        rounds = [(result, summary) for result, summary in zip(state.results, snap.rounds, strict=True) if result.trapped]
        if not rounds:
            continue
        result, summary = rounds[0]
        assert summary.trapped == frozenset(result.trapped)
        seat = min(result.trapped)
        name = "you" if seat == snap.seat else snap.name(seat)
        roomy = "".join(t for _, t in render_round_end(summary, snap, 60, 30)).splitlines()
        at = next(i for i, line in enumerate(roomy) if line.startswith(f" {name}:"))
        assert "· trapped ·" in roomy[at + 1], roomy
        table = "".join(t for _, t in render_round_end(summary, snap, 34, 16)).splitlines()
        row = next(line for line in table if line.startswith(f" {name[:3]}"))
        assert "trap" in row, table
        for other in range(state.config.players):
            if other not in result.trapped:
                label = "you" if other == snap.seat else snap.name(other)
                below = next(i for i, line in enumerate(roomy) if line.startswith(f" {label}:")) + 1
                assert "trapped" not in roomy[below], roomy
        return
    raise AssertionError("no game with a seat trapped at a round's end")


def test_the_plain_prompt_does_not_say_nothing_lies_in_front_of_a_player_with_a_broken_tool():
    """`--plain` read "your broken tools: lantern" and "in front of you: nothing" at once."""
    from saboteur_p2p.client.plain import plain_view
    from saboteur_p2p.rules import Game, GameConfig, Tool, TrustedDealer

    state = Game(GameConfig(4, "saboteur2"), TrustedDealer(3)).new_state()
    view = state.view_for(0)
    broken = (frozenset({Tool.LANTERN}), *view.broken[1:])
    lines = plain_view(view._replace(broken=broken), ["you", "b", "c", "d"])
    text = "\n".join(lines)
    assert "your broken tools: lantern" in text
    assert "nothing" not in text, text
    assert "Trapped! or Theft in front of you: neither" in text


def test_a_goal_out_of_sight_above_or_below_the_maze_is_named_by_its_arrow():
    """At 80x24 the maze shows five rows: a view that followed the cursor north showed rows
    -4 to 0, and goal 2 (at row 2) was out of sight with nothing but a ▼ to say so."""
    from saboteur_p2p.client.maze import MazeMarks, render_maze, visible_cells
    from saboteur_p2p.rules import Board
    from saboteur_p2p.rules.cards import face_from_code

    board = Board.new_round()
    for y in range(-1, -5, -1):
        board.place((0, y), face_from_code("path:NS"), False)
    assert visible_cells(55, 16)[1] == 5
    fragments, (ox, oy) = render_maze(board, {}, MazeMarks(cursor=(0, -5)), 55, 16, None)
    lines = "".join(text for _, text in fragments).splitlines()
    assert oy == -5
    assert lines[-1].startswith("▼g*"), lines[-1]  # goals 1 (row 0) and 2 (row 2) below
    fragments, (_, oy) = render_maze(board, {}, MazeMarks(cursor=(0, -3)), 55, 16, (ox, -3))  # scrolled down to -3
    lines = "".join(text for _, text in fragments).splitlines()
    assert oy == -3 and lines[-1].startswith("▼g2"), lines[-1]  # rows -3 to 1: goal 2 below
    assert lines[1].startswith("▲  ") or lines[1].startswith(" ▲ "), lines[1]  # nothing but maze above


def test_the_move_beside_the_hand_is_not_cut_before_its_target():
    """At 80 columns the move beside the hand read "break lantern @heuristic-": whose lantern
    was cut off.  A move too long for its row goes on two, then whether it is legal."""
    import dataclasses

    from test_client_controller import find, seated
    from test_client_render import text

    from saboteur_p2p.client.render import render_hand

    state = find(lambda s: s.phase.value == "play")
    agent, _node, ctl = seated(state)
    snap = agent.snapshot()
    focus = dataclasses.replace(ctl.focus(), said="break lantern @heuristic-12", option="break lantern @1 #3",
                                option_legal=True, problem=None)
    for width in (70, 80, 120):
        shown = text(render_hand(snap, focus, width))
        assert "heuristic-12" in shown and "✓ legal" in shown, (width, shown)
