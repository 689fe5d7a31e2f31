"""The client's controller and agent without a terminal: keys and commands become checked moves."""
from __future__ import annotations

from typing import Callable

import pytest

from saboteur_p2p.botapi import load_bot
from saboteur_p2p.client.agent import ClientAgent
from saboteur_p2p.client.controller import Controller
from saboteur_p2p.client.local import LocalNode, LocalSetup
from saboteur_p2p.client.model import ItemKind, LogKind
from saboteur_p2p.match import bot_seed
from saboteur_p2p.rules import (
    GOAL_CELLS,
    ActionCard,
    ActionKind,
    BreakTool,
    Game,
    GameConfig,
    PathCard,
    PlacePath,
    State,
    TrustedDealer,
)


def drive(seed: int, until: Callable[[State], bool], players: int = 5) -> State | None:
    """Play heuristic bots at every seat until ``until(state)``; None if the game ends first."""
    state = Game(GameConfig(players), TrustedDealer(seed)).new_state()
    bots = [load_bot("heuristic") for _ in range(players)]
    for seat, bot in enumerate(bots):
        bot.start(seat, state.config, bot_seed(seed, seat))
    told = 0
    while not state.is_terminal():
        if until(state):
            return state
        seat = state.current
        state.push(bots[seat].act(state.view_for(seat), state.legal_actions()))
        for event in state.events[told:]:
            for bot in bots:
                bot.on_event(event)
        told = len(state.events)
    return None


def find(until: Callable[[State], bool], seeds: range = range(200)) -> State:
    for seed in seeds:
        state = drive(seed, until)
        if state is not None:
            return state
    raise AssertionError("no seed reaches the wanted position")


def seated(state: State, seat: int | None = None) -> tuple[ClientAgent, LocalNode, Controller]:
    """A client agent for ``seat`` (the player to move by default) fed as the session feeds it."""
    seat = state.current if seat is None else seat
    agent = ClientAgent()
    node = LocalNode(LocalSetup(state.config, tuple(f"p{i}" for i in range(state.players))), state)
    agent.start(seat, node)
    agent.heard(state)
    if state.current == seat:
        assert agent.poll_move(node) is None  # publishes the decision; nothing chosen yet
    return agent, node, Controller(agent)


def holding(state: State, test: Callable[[object], bool]) -> bool:
    seat = state.current
    return state.phase.value == "play" and not state.broken[seat] and any(test(state.faces.get(h)) for h in state.hands[seat])


def index_of(controller: Controller, test: Callable[[object], bool]) -> int:
    items = controller.items(controller.snapshot())
    return next(i for i, item in enumerate(items) if test(item.card))


def is_path(card: object) -> bool:
    return isinstance(card, PathCard)


def is_asymmetric_path(card: object) -> bool:
    return isinstance(card, PathCard) and not card.symmetric


def action_of(kind: ActionKind) -> Callable[[object], bool]:
    return lambda card: isinstance(card, ActionCard) and card.kind is kind


def test_picking_a_path_card_highlights_the_engines_legal_cells_and_enter_places_it():
    state = find(lambda s: holding(s, is_path))
    agent, node, ctl = seated(state)
    i = index_of(ctl, is_path)
    ctl.pick(i)
    focus = ctl.focus()
    card = focus.items[i].card
    expected = {a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card and not a.turned}
    assert focus.marks.legal == expected and expected
    assert ctl.ui.cursor in expected  # the cursor jumped to a legal cell
    assert focus.option_legal is True and focus.marks.preview_legal
    assert ctl.enter()
    move = agent.poll_move(node)
    x, y = ctl.ui.cursor
    assert move == f"path {focus.items[i].handle} at {x},{y}"
    state.play(move, player=agent.seat)  # the engine takes what the client sent


def test_r_turns_the_card_and_the_legal_cells_follow_the_turn():
    state = find(lambda s: holding(s, is_asymmetric_path) and any(
        isinstance(a, PlacePath) and a.turned and not s.faces[a.card].symmetric for a in s.legal_actions()))
    turnable = {s_.card for s_ in state.legal_actions() if isinstance(s_, PlacePath) and s_.turned}
    agent, node, ctl = seated(state)
    i = next(i for i, item in enumerate(ctl.items(ctl.snapshot()))
             if is_asymmetric_path(item.card) and any(state.faces[h] == item.card for h in turnable))
    ctl.pick(i)
    ctl.turn()
    focus = ctl.focus()
    card = focus.items[i].card
    turned = {a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card and a.turned}
    assert turned and focus.turned and focus.marks.legal == turned
    assert focus.option is not None and focus.option.endswith(" turned")
    ctl.next_cell()
    assert ctl.ui.cursor in turned
    assert ctl.enter() and agent.poll_move(node).endswith(" turned")


def test_an_illegal_cell_shows_the_rule_it_breaks_and_sends_nothing():
    state = find(lambda s: holding(s, is_path))
    agent, node, ctl = seated(state)
    ctl.pick(index_of(ctl, is_path))
    ctl.ui.cursor = (0, 0)
    assert not ctl.enter()
    assert ctl.ui.message_kind == "error"
    assert "(0, 0) is the start cell" in ctl.ui.message and "illegal action 'path" in ctl.ui.message
    ctl.ui.cursor = (3, 4)
    assert not ctl.enter() and "touches no card" in ctl.ui.message
    assert agent.poll_move(node) is None


def test_typed_moves_are_checked_with_the_engine_before_they_are_sent():
    state = find(lambda s: holding(s, is_path))
    agent, node, ctl = seated(state)
    assert not ctl.command("path 99 at 1,0") and "card 99 is not in player" in ctl.ui.message
    assert not ctl.command("dig a tunnel") and "cannot read action 'dig a tunnel'" in ctl.ui.message
    assert ctl.assess("path 99 at 1,0")[0] == "error"
    legal = str(state.legal_actions()[0])
    assert ctl.assess(legal) == ("ok", f"✓ legal: {state.check(legal)}")
    assert ctl.command(legal.upper())  # action text is case-insensitive
    assert not ctl.command(legal) and "already on its way" in ctl.ui.message
    assert agent.poll_move(node) == str(state.check(legal))
    assert agent.snapshot().decision is None  # the session has it: no longer ours to make
    # polled again for the same state, the session refused it: a fresh decision to retry
    assert agent.poll_move(node) is None and agent.snapshot().decision is not None
    assert ctl.command(legal)


def test_completion_offers_the_legal_moves_and_the_commands():
    state = find(lambda s: holding(s, is_path))
    agent, node, ctl = seated(state)
    paths = ctl.completions("path ")
    assert paths and set(paths) == {str(a) for a in state.legal_actions() if isinstance(a, PlacePath)}
    assert "say " in ctl.completions("s") and "pass" in " ".join(ctl.completions("pa"))
    other, _, waiting = seated(state, (state.current + 1) % state.players)
    assert "path " in waiting.completions("pa")  # not our move: the verbs only


def test_a_break_card_chooses_a_player_with_the_arrows():
    state = find(lambda s: holding(s, action_of(ActionKind.BREAK)))
    agent, node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(ActionKind.BREAK)))
    first = ctl.focus()
    assert first.target_player is not None and first.target_player != agent.seat  # others first
    assert first.option_legal
    ctl.arrow(0, 1)
    second = ctl.focus()
    assert second.target_player == (first.target_player + 1) % state.players
    assert ctl.enter()
    sent = agent.poll_move(node)
    assert isinstance(state.check(sent), BreakTool) and f"@{second.target_player}" in sent


def test_a_map_card_targets_a_goal_and_the_cursor_shows_it():
    state = find(lambda s: holding(s, action_of(ActionKind.MAP)))
    agent, node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(ActionKind.MAP)))
    focus = ctl.focus()
    slot = int(focus.option.split()[1])
    assert focus.marks.cursor == GOAL_CELLS[slot] and GOAL_CELLS[slot] in focus.marks.targets
    ctl.arrow(0, 1)
    assert ctl.focus().marks.cursor == GOAL_CELLS[(slot + 1) % 3]


def test_discarding_the_selected_card():
    state = find(lambda s: s.phase.value == "play")
    agent, node, ctl = seated(state)
    assert not ctl.discard() and "pick the card" in ctl.ui.message
    ctl.pick(0)
    handle = ctl.items(ctl.snapshot())[0].handle
    assert ctl.discard()
    assert agent.poll_move(node) == f"pass {handle}"


def test_gold_passed_to_you_is_chosen_in_the_hand_strip():
    state = find(lambda s: s.phase.value == "keep-gold")
    agent, node, ctl = seated(state)
    focus = ctl.focus()
    assert focus.items and all(item.kind is ItemKind.GOLD for item in focus.items)
    assert focus.option == f"keep {focus.items[0].handle}"
    ctl.arrow(1, 0)
    choice = ctl.focus().option
    assert ctl.enter()
    assert agent.poll_move(node) == choice
    state.play(choice, player=agent.seat)


def test_a_saboteur_takes_gold_from_the_choices_the_engine_allows():
    state = find(lambda s: s.phase.value == "take-gold")
    agent, node, ctl = seated(state)
    focus = ctl.focus()
    legal = [str(a) for a in state.legal_actions()]
    assert list(focus.options) == legal and focus.option in legal
    assert ctl.enter()
    assert agent.poll_move(node) in legal


def test_the_reacher_turns_a_stone():
    state = find(lambda s: s.phase.value == "orient")
    agent, node, ctl = seated(state)
    focus = ctl.focus()
    (stone,) = focus.items
    assert stone.kind is ItemKind.STONE and focus.option == f"orient {stone.handle}"
    assert focus.marks.cursor == GOAL_CELLS[stone.handle]
    ctl.turn()
    assert ctl.enter()
    assert agent.poll_move(node) == f"orient {stone.handle} turned"


def test_a_move_out_of_turn_is_refused_with_whose_move_it_is():
    state = find(lambda s: s.phase.value == "play")
    waiting = (state.current + 1) % state.players
    agent, node, ctl = seated(state, waiting)
    assert not ctl.command(str(state.legal_actions()[0]))
    assert ctl.ui.message == f"not your move: waiting for p{state.current} (seat {state.current})"


def test_a_late_move_is_never_played_at_a_later_decision():
    state = find(lambda s: s.phase.value == "play")
    agent, node, ctl = seated(state)
    old = agent.snapshot().decision
    agent.heard(state)  # a new commit: the next poll makes a new decision
    assert agent.poll_move(node) is None
    assert agent.snapshot().decision.id != old.id
    agent.submit_move(old.id, str(state.legal_actions()[0]))
    assert agent.poll_move(node) is None


def test_chat_help_quit_and_legal_commands():
    state = find(lambda s: s.phase.value == "play")
    agent, node, ctl = seated(state)
    assert ctl.command("say the treasure is south")
    assert agent.poll_chat() == "the treasure is south"
    assert ctl.command("help") and ctl.ui.help_open
    assert ctl.command("quit") and ctl.ui.confirm_quit
    assert ctl.command("legal")
    assert agent.log_lines()[-1].text.startswith(f"legal now ({len(state.legal_actions())}): ")
    assert not ctl.command("start") and "only the host" in ctl.ui.message


@pytest.mark.parametrize("line, away, back", [
    ("p2 is away (no word for 3 s); the table waits up to 120 s", {2}, set()),
    ("p2 is back", set(), {2}),
])
def test_away_and_back_come_from_the_sessions_lines(line: str, away: set[int], back: set[int]):
    state = find(lambda s: s.phase.value == "play")
    agent, node, ctl = seated(state)
    agent.say("p2 is away (no word for 3 s); the table waits up to 120 s")
    agent.say(line)
    snap = agent.snapshot()
    assert snap.away == away and snap.back == back
    last = agent.log_lines()[-1]
    assert last.kind is LogKind.NOTICE and last.text == line
