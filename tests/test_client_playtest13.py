"""Defects a play-test of the terminal table found (base game at 3, 5 and 10 players, Saboteur 2,
windows from 60x20 to 120x60), each pinned by a test that failed before its fix."""
from __future__ import annotations

import pytest
from test_client_controller import drive
from test_client_render import screen_of

from saboteur_p2p.client.model import ROLE_SHORT
from saboteur_p2p.client.render import ROLE_NAME


@pytest.mark.parametrize(("players", "width", "height"), [(10, 60, 20), (10, 80, 24), (5, 60, 20), (12, 80, 24)])
def test_a_squeezed_side_panel_keeps_your_role_and_the_draw_pile(players: int, width: int, height: int) -> None:
    """At 60x20 with 10 players the side panel went from the players straight to the log: your
    role, your gold and the draw pile were cut off; at 80x24 with 10, the draw pile."""
    edition = "saboteur2" if players > 10 else "base"
    state = drive(3, lambda s: s.phase.value == "play" and s.round == 1 and len(s.events) > 30, players, edition)
    assert state is not None
    screen, app = screen_of(state, width, height)
    side = "\n".join(line.split("│", 1)[-1] for line in screen.splitlines())
    role = state.view_for(app.snap.seat).role.value  # type: ignore[union-attr]
    assert f"you: {ROLE_NAME.get(role, role)}" in side or f"you: {ROLE_SHORT[role]} · pile" in side, screen
    pile = state.view_for(app.snap.seat).draw_pile_size
    assert f"draw pile {pile}" in side or f"· pile {pile}" in side, screen


def test_the_roles_at_a_rounds_end_pair_each_name_with_its_role_so_a_wrapped_line_cannot_mislead() -> None:
    """"roles: you gold-digger, heuristic-2 saboteur, heuristic-3 gold-digger" wrapped in the
    log as "saboteur, heuristic-3" on a line of its own, read as heuristic-3's role."""
    from saboteur_p2p.match import narrate
    from saboteur_p2p.rules import Role, RoundEnded

    event = RoundEnded(1, "gold-diggers", (Role.GOLD_DIGGER, Role.SABOTEUR, Role.GOLD_DIGGER), 0)
    (line,) = narrate([event], ["a", "b", "c"], viewer=0)
    assert line == (
        "-- round 1 won by the gold-diggers (you reached the treasure); roles: you: gold-digger; b: saboteur; c: gold-digger"
    )


def test_a_round_the_cards_ran_out_in_says_so_at_its_end() -> None:
    """"the saboteurs won" alone gave no reason when the draw pile and the hands ran out."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.screens import render_round_end

    state = find(lambda s: bool(s.results) and s.results[0].winners.value == "saboteurs")
    agent, _node, _ctl = seated(state)
    snap = agent.snapshot()
    summary = snap.rounds[0]
    assert summary.reached is None
    panel = "".join(text for _, text in render_round_end(summary, snap, 30, 30))
    assert "saboteurs won" in panel and "the cards ran out" in panel


def test_a_colon_typed_again_at_the_prompt_is_not_part_of_the_move() -> None:
    """The prompt shows ": " already; a person who typed ":break cart @me" there (after Ctrl-U,
    as on the board) was told "cannot read ':break cart @me'"."""
    from test_client_controller import find, said, seated

    state = find(lambda s: s.phase.value == "play")
    _agent, _node, ctl = seated(state)
    legal = said(state, state.legal_actions()[0])
    assert ctl.assess(f":{legal}") == ("ok", f"✓ legal: {legal}")
    assert legal in ctl.completions(f":{legal[:3]}")
    assert ctl.command(f" :{legal}")
