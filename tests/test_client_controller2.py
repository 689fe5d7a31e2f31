"""The client's controller and agent without a terminal, Saboteur 2's cards and phases: keys and
commands become checked moves."""
from __future__ import annotations

from collections.abc import Callable

import pytest
from test_client_controller import action_of, find, find2, holding, index_of, said, seated

from saboteur_p2p.client.model import LogKind
from saboteur_p2p.rules import (
    ActionKind,
    Clear,
    MapPeek,
    Pass,
    PathCard,
    PiecesWon,
    PlacePath,
    PlayOn,
    State,
    Steal,
)


def can_play_on(kind: ActionKind) -> Callable[[State], bool]:
    return lambda s: s.phase.value == "play" and any(isinstance(a, PlayOn) and a.kind is kind for a in s.legal_actions())


@pytest.mark.parametrize("kind", [ActionKind.TRAPPED, ActionKind.INSPECTION, ActionKind.SWAP_HAND, ActionKind.SWAP_HATS])
def test_saboteur2_cards_aimed_at_others_start_on_another_player(kind: ActionKind):
    state = find2(can_play_on(kind))
    agent, node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(kind)))
    focus = ctl.focus()
    assert focus.target_player is not None and focus.target_player != agent.seat and focus.option_legal
    assert focus.option.startswith(f"{kind.value} @{focus.target_player} #")
    assert len(focus.options) == state.players  # ↑↓ go round every seat
    assert ctl.enter()
    action = state.check(agent.poll_move(node))
    assert isinstance(action, PlayOn) and action.kind is kind and action.target == focus.target_player


def test_a_theft_is_played_in_front_of_yourself():
    state = find2(can_play_on(ActionKind.THEFT))
    agent, node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(ActionKind.THEFT)))
    focus = ctl.focus()
    assert len(focus.options) == 1 and focus.option.startswith(f"theft @{agent.seat} #") and focus.option_legal
    assert focus.hint.startswith("laid before you: steal a piece after the round") and len(focus.hint) <= 79
    assert ctl.enter() and agent.poll_move(node) == focus.option


@pytest.mark.parametrize("kind", [ActionKind.FREE, ActionKind.HANDS_OFF])
def test_free_and_hands_off_choose_a_player_the_card_helps(kind: ActionKind):
    state = find2(can_play_on(kind))
    _agent, _node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(kind)))
    focus = ctl.focus()
    legal = {str(a) for a in state.legal_actions() if isinstance(a, PlayOn) and a.kind is kind}
    assert focus.option in legal and focus.option_legal
    lying = state.trapped if kind is ActionKind.FREE else state.thefts
    assert lying[focus.target_player] is not None


def test_marked_cards_are_passed_together():
    state = find2(lambda s: s.phase.value == "play" and len(s.hands[s.current]) >= 4)
    agent, node, ctl = seated(state)
    handles = [item.handle for item in ctl.items(ctl.snapshot())]
    for i in (0, 2, 3):
        ctl.pick(i)
        ctl.mark()
    assert ctl.focus().marked == (handles[0], handles[2], handles[3])
    ctl.pick(1)
    ctl.mark()
    assert "at most 3 cards" in ctl.ui.message and len(ctl.focus().marked) == 3
    ctl.pick(2)
    ctl.mark()  # unmarks
    assert ctl.focus().marked == (handles[0], handles[3])
    assert ctl.discard()
    assert agent.poll_move(node) == f"pass {handles[0]},{handles[3]}"


def test_two_marked_cards_clear_what_lies_in_front_of_you():
    state = find2(lambda s: s.phase.value == "play" and s.trapped[s.current] is not None and len(s.hands[s.current]) >= 2)
    agent, node, ctl = seated(state)
    ctl.pick(0)
    ctl.mark()
    ctl.pick(1)
    ctl.mark()
    focus = ctl.focus()
    handles = [item.handle for item in focus.items[:2]]
    clear_text = f"clear trapped with {handles[0]},{handles[1]}"
    assert clear_text in focus.options and focus.options[-1] == f"pass {handles[0]},{handles[1]}"
    while ctl.focus().option != clear_text:
        ctl.arrow(0, 1)
    assert ctl.focus().option_legal and "clear what" in ctl.focus().hint
    assert ctl.enter()
    assert isinstance(state.check(agent.poll_move(node)), Clear)


def test_a_ladder_goes_where_the_engine_says_off_the_frontier():
    def ladder_off_frontier(s: State) -> bool:
        return s.phase.value == "play" and any(
            isinstance(a, PlacePath) and s.faces[a.card].ladder and a.cell not in s.board.frontier for a in s.legal_actions())

    state = find2(ladder_off_frontier)
    agent, node, ctl = seated(state)
    i = index_of(ctl, lambda c: isinstance(c, PathCard) and c.ladder)
    card = ctl.items(ctl.snapshot())[i].card
    ctl.pick(i)
    focus = ctl.focus()
    expected = {
        a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card and not a.turned
    }
    assert focus.marks.legal == expected and expected - set(state.board.frontier)
    assert focus.marks.preview_card == card
    off = sorted(expected - set(state.board.frontier))[0]
    while ctl.ui.cursor != off:
        ctl.next_cell()
    assert ctl.focus().option_legal and ctl.enter()
    move = agent.poll_move(node)
    assert move.startswith(f"path {focus.items[i].handle} at {off[0]},{off[1]}")
    state.play(move, player=agent.seat)


def test_the_steal_phase_chooses_a_victim_or_nobody():
    state = find2(lambda s: s.phase.value == "steal")
    agent, node, ctl = seated(state)
    focus = ctl.focus()
    legal = [str(a) for a in state.legal_actions()]
    assert list(focus.options) == legal and legal[-1] == "steal none"
    assert focus.target_player == int(legal[0].split("@")[1]) and "steal a gold piece" in focus.hint
    ctl.arrow(0, -1)  # round to "steal none"
    assert ctl.focus().option == "steal none" and ctl.focus().target_player is None
    assert ctl.enter()
    assert isinstance(state.check(agent.poll_move(node)), Steal)


def test_saboteur2_typed_commands_complete_and_are_checked():
    state = find2(lambda s: can_play_on(ActionKind.TRAPPED)(s) and s.trapped[s.current] is None)
    agent, node, ctl = seated(state)
    trapped = {str(a) for a in state.legal_actions() if isinstance(a, PlayOn) and a.kind is ActionKind.TRAPPED}
    targets = {f"trapped @p{int(text.split('@')[1].split()[0])}" for text in trapped}
    assert set(ctl.completions("trapped")) == targets  # players by name
    assert ctl.assess("trapped @me") == ("error", "✗ a Trapped! card is played on another player")
    other = (state.current + 1) % state.players
    assert ctl.assess(f"steal @p{other}") == ("error", "✗ gold is stolen only at the end of a round")
    assert ctl.assess("clear trapped with 1,2")[0] == "error"
    passes = [said(state, a) for a in state.legal_actions() if isinstance(a, Pass) and len(a.cards) == 3]
    assert ctl.assess(passes[0])[0] == "ok" and passes[0] in ctl.completions("pass ")
    waiting = seated(state, (state.current + 1) % state.players)[2]
    assert {"steal @", "clear ", "trapped @", "swap-hats @"} <= set(waiting.completions(""))
    assert ctl.command(sorted(targets)[0])
    assert isinstance(state.check(agent.poll_move(node)), PlayOn)


def test_marking_is_for_saboteur2_only():
    state = find(lambda s: s.phase.value == "play")
    _agent, _node, ctl = seated(state)
    ctl.pick(0)
    ctl.mark()
    assert "only in Saboteur 2" in ctl.ui.message and ctl.focus().marked == ()


def test_an_inspection_and_the_gold_of_a_round_reach_the_log():
    state = find2(lambda s: s.phase.value == "play" and bool(s.known_roles(s.current)) and s.round == 2)
    seat = state.current
    agent, _node, _ctl = seated(state)
    private = [line.text for line in agent.log_lines() if line.kind is LogKind.PRIVATE]
    for other, role in state.known_roles(seat).items():
        assert f"your inspection: p{other} is a {role.value}" in private
    events = [line.text for line in agent.log_lines() if line.kind is LogKind.EVENT]
    result = agent.snapshot().last_round
    assert result.startswith("round 1: ") and "(you were " in result
    for event in (e for e in state.events if isinstance(e, PiecesWon)):
        if event.player == seat:
            line = f"   you win {event.pieces} gold piece" + ("" if event.pieces == 1 else "s")
            assert f"you won {event.pieces} gold piece" in result
        else:  # how much the others won is secret until the end (rules.md 8)
            line = f"   p{event.player} wins gold"
            assert f"p{event.player} won gold" in result
            assert f"p{event.player} wins {event.pieces}" not in " ".join(events)
        assert events.count(line) == 1  # once, by the narration


def test_a_map_on_a_goal_already_known_asks_once_before_it_is_sent():
    """A Map starts on a goal this player has not seen; played with the keys on one they have
    (a Map before, or turned up) it is asked about once, naming what the goal is, and Enter
    again plays it (found by play-tests: a player looked at a goal twice without noticing)."""
    def looked(s: State) -> bool:  # the first goal a Map may look at is one this player knows
        goals = sorted(a.goal for a in s.legal_actions() if isinstance(a, MapPeek))
        return holding(s, action_of(ActionKind.MAP)) and len(goals) > 1 and goals[0] in s.view_for(s.current).known_goals
    state = find(looked, seeds=range(400))
    agent, node, ctl = seated(state)
    known = state.view_for(agent.seat).known_goals
    ctl.pick(index_of(ctl, action_of(ActionKind.MAP)))
    assert int(ctl.focus().option.split()[1]) not in known  # it starts on a goal not seen yet
    while int(ctl.focus().option.split()[1]) not in known:
        ctl.arrow(0, 1)
    goal = int(ctl.focus().option.split()[1])
    assert not ctl.enter() and agent.poll_move(node) is None
    assert ctl.ui.message.startswith(f"you know goal {goal} already (") and "Enter again" in ctl.ui.message
    assert ctl.enter()
    played = state.check(agent.poll_move(node))
    assert isinstance(played, MapPeek) and played.goal == goal
    ctl.cancel()
