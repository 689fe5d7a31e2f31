"""Where a picked card starts (its cell or its target) when the player has not chosen one."""
from __future__ import annotations

from test_client_controller import action_of, find, holding, index_of, picked_own_repair, seated

from saboteur_p2p.client.controller import hoped_goals, suggested_cell
from saboteur_p2p.rules import GOAL_CELLS, ActionKind, PathCard, PathKind, RepairTool, Rockfall, Role
from saboteur_p2p.rules.cards import STONE_NW, TREASURE


def _rockfall_cells(state) -> list[tuple[int, int]]:
    return [a.cell for a in state.legal_actions() if isinstance(a, Rockfall)]


def test_a_rockfall_starts_on_the_suggested_tunnel_unless_the_player_moved_there():
    """The cursor is left on the card we laid last, a tunnel a rockfall may take: the rockfall
    started there.  It keeps only a cell the player moved to with the keys."""
    state = find(lambda s: s.phase.value == "play" and len(set(_rockfall_cells(s))) >= 2)
    _agent, _node, ctl = seated(state)
    snap = ctl.snapshot()
    cells = frozenset(_rockfall_cells(state))
    best = suggested_cell(snap.view, cells, (0, 0))
    other = next(cell for cell in sorted(cells) if cell != best)
    ctl.ui.cursor = other  # where our last card went, say
    ctl.pick(index_of(ctl, action_of(ActionKind.ROCKFALL)))
    assert ctl.ui.cursor == suggested_cell(snap.view, cells, other) != other or len(cells) == 1
    ctl.cancel()
    ctl.ui.cursor = (other[0] - 1, other[1])
    ctl.arrow(1, 0)  # the player moves onto it
    assert ctl.ui.cursor == other
    ctl.pick(index_of(ctl, action_of(ActionKind.ROCKFALL)))
    assert ctl.ui.cursor == other


def test_a_target_the_client_chose_at_an_earlier_decision_is_chosen_afresh_one_the_player_chose_is_kept():
    agent, ctl = picked_own_repair()
    snap = ctl.snapshot()
    item = ctl.selected_item(snap)
    options = ctl.options(snap, item)
    elsewhere = next(i for i, text in enumerate(options) if f"@{agent.seat} " not in text + " " and ctl._plausible(snap, text))
    for by_hand, kept in ((None, False), (ctl._card_key(snap, item, options), True)):
        # as if the card was looked at during an earlier decision, its target then on another seat
        ctl.ui.choice_for = (ctl._card_key(snap, item, options), "an earlier decision")
        ctl.ui.choice, ctl.ui.choice_by_hand = elsewhere, by_hand
        focus = ctl.focus()
        assert (focus.target_player != agent.seat) is kept, (by_hand, focus.option)


def test_a_goal_known_to_hold_the_treasure_is_the_only_one_aimed_at():
    state = find(lambda s: s.phase.value == "play")
    _agent, _node, ctl = seated(state)
    view = ctl.snapshot().view
    assert hoped_goals(view._replace(known_goals={2: TREASURE})) == [GOAL_CELLS[2]]
    assert hoped_goals(view._replace(known_goals={0: STONE_NW})) == [GOAL_CELLS[1], GOAL_CELLS[2]]
    assert hoped_goals(view._replace(known_goals={})) == list(GOAL_CELLS)


def test_a_dead_end_goes_to_the_front_only_for_a_saboteur():
    """A digger who pressed Enter at once on a dead end aimed at the goals closed its own way."""
    state = find(lambda s: s.phase.value == "play")
    _agent, _node, ctl = seated(state)
    view = ctl.snapshot().view
    cells = frozenset({(1, 0), (5, 0)})
    dead_end = PathCard(PathKind.TUNNEL, (1, 4))
    for role, start in ((Role.GOLD_DIGGER, (1, 0)), (Role.SABOTEUR, (5, 0))):
        assert suggested_cell(view._replace(role=role), cells, (0, 0), dead_end) == start
    through = PathCard(PathKind.TUNNEL, (5,))
    assert suggested_cell(view._replace(role=Role.GOLD_DIGGER), cells, (0, 0), through) == (5, 0)


def test_tab_with_no_legal_target_says_so_whatever_the_card_aims_at():
    """Tab with no legal target said "legal on nobody", which read oddly for a Map card (it aims at
    goals): the words now fit any card; the target stays where it was."""
    state = find(lambda s: holding(s, action_of(ActionKind.REPAIR)) and not any(
        isinstance(a, RepairTool) for a in s.legal_actions()))
    _agent, _node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(ActionKind.REPAIR)))
    before = ctl.focus().option
    ctl.next_cell()
    assert ctl.ui.message == "no target of this card is legal now" and ctl.focus().option == before
