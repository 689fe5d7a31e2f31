"""The client's controller and agent without a terminal: keys and commands become checked moves."""
from __future__ import annotations

from collections.abc import Callable

import pytest

from saboteur_p2p.botapi import load_bot
from saboteur_p2p.client.agent import ClientAgent
from saboteur_p2p.client.commands import legal_lines
from saboteur_p2p.client.controller import Controller
from saboteur_p2p.client.local import LocalNode, LocalSetup
from saboteur_p2p.client.model import ItemKind, LogKind
from saboteur_p2p.client.words import Words
from saboteur_p2p.match import bot_seed
from saboteur_p2p.rules import (
    GOAL_CELLS,
    ActionCard,
    ActionKind,
    BreakTool,
    Game,
    GameConfig,
    PathCard,
    PathKind,
    PlacePath,
    RepairTool,
    State,
    TrustedDealer,
)


def drive(
    seed: int, until: Callable[[State], bool], players: int = 5, edition: str = "base", spec: str = "heuristic",
) -> State | None:
    """Play the bot ``spec`` at every seat until ``until(state)``; None if the game ends first."""
    state = Game(GameConfig(players, edition), TrustedDealer(seed)).new_state()
    bots = [load_bot(spec) for _ in range(players)]
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


def find(until: Callable[[State], bool], seeds: range = range(200), edition: str = "base", spec: str = "heuristic") -> State:
    for seed in seeds:
        state = drive(seed, until, edition=edition, spec=spec)
        if state is not None:
            return state
    raise AssertionError("no seed reaches the wanted position")


def find2(until: Callable[[State], bool], seeds: range = range(300)) -> State:
    """A Saboteur 2 position, reached by random bots (they play every new card)."""
    return find(until, seeds, "saboteur2", "random")


def said(state: State, action: object) -> str:
    """A legal action as the player to move types it (hand slots, player names)."""
    names = [f"p{i}" for i in range(state.players)]
    return Words(state.view_for(state.current), names).say(action)  # type: ignore[arg-type]


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


def slot_of(controller: Controller, handle: int) -> int:
    """The index in the hand strip of the card with this handle."""
    return next(i for i, item in enumerate(controller.items(controller.snapshot())) if item.handle == handle)


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
    expected = {
        a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card
        and (a.turned == focus.turned or card.symmetric)
    }
    assert focus.marks.legal == expected and expected
    assert ctl.ui.cursor in expected  # the cursor jumped to a legal cell (the card turned if it fits only so)
    assert focus.option_legal is True and focus.marks.preview_legal
    assert ctl.enter()
    move = agent.poll_move(node)
    x, y = ctl.ui.cursor
    assert move == f"path {focus.items[i].handle} at {x},{y}" + (" turned" if focus.turned else "")
    state.play(move, player=agent.seat)  # the engine takes what the client sent


def test_r_turns_the_card_and_the_legal_cells_follow_the_turn():
    state = find(lambda s: holding(s, is_asymmetric_path) and any(
        isinstance(a, PlacePath) and a.turned and not s.faces[a.card].symmetric for a in s.legal_actions()))
    turnable = {s_.card for s_ in state.legal_actions() if isinstance(s_, PlacePath) and s_.turned}
    agent, node, ctl = seated(state)
    i = next(i for i, item in enumerate(ctl.items(ctl.snapshot()))
             if is_asymmetric_path(item.card) and any(state.faces[h] == item.card for h in turnable))
    ctl.pick(i)
    if ctl.ui.turned:
        ctl.turn()  # picked turned (it fits nearest a goal only so): upright first
    ctl.turn()
    focus = ctl.focus()
    card = focus.items[i].card
    turned = {a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card and a.turned}
    assert turned and focus.turned and focus.marks.legal == turned
    assert focus.option is not None and focus.option.endswith(" turned")
    ctl.next_cell()
    assert ctl.ui.cursor in turned
    assert ctl.enter() and agent.poll_move(node).endswith(" turned")


def test_tab_and_shift_tab_step_through_the_legal_cells_in_reading_order_both_ways():
    state = find(lambda s: holding(s, is_path) and len({a.cell for a in s.legal_actions() if isinstance(a, PlacePath)}) >= 3)
    _, _, ctl = seated(state)
    ctl.pick(index_of(ctl, is_path))
    legal = sorted(ctl.focus().marks.legal, key=lambda c: (c[1], c[0]))  # row by row
    n = len(legal)
    assert n >= 2
    ctl.next_cell()
    assert ctl.ui.cursor in legal
    for step in [1] * n + [-1] * (n + 1) + [1]:
        before = legal.index(ctl.ui.cursor)
        ctl.next_cell(step)
        assert ctl.ui.cursor == legal[(before + step) % n]  # the neighbour that way, wrapping round


def _goal_distance(state: State, cell: tuple[int, int]) -> int:
    """How far a cell is from the nearest face-down goal the player to move does not know is a stone."""
    view = state.view_for(state.current)
    hoped = [c for slot, c in enumerate(GOAL_CELLS) if view.board.tiles[c].card is None and (
        slot not in view.known_goals or view.known_goals[slot].kind is not PathKind.STONE)]
    return min(abs(cell[0] - x) + abs(cell[1] - y) for x, y in hoped)


def is_through_path(card: object) -> bool:
    """A path card that leads on (a dead end starts elsewhere for a digger)."""
    return isinstance(card, PathCard) and not card.is_dead_end


def _first_path_cells(state: State) -> set[tuple[int, int]]:
    """Where the first path card leading on in the hand of the player to move is legal upright."""
    card = next((state.faces[h] for h in state.hands[state.current] if is_through_path(state.faces.get(h))), None)
    return {a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and not a.turned
            and state.faces[a.card] == card}


def test_a_picked_path_card_starts_on_the_legal_cell_nearest_a_goal_not_beside_the_last_card():
    """The cursor stays where our last card went; picking a card must not suggest the legal
    cell nearest that (behind the start, say) but the one nearest a goal worth reaching."""
    state = find(lambda s: holding(s, is_through_path) and min(_first_path_cells(s)) < (0, 0)
                 and max(_first_path_cells(s)) >= (3, 0))
    _, _, ctl = seated(state)
    i = index_of(ctl, is_through_path)
    card = ctl.items(ctl.snapshot())[i].card
    cells = {a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card
             and (not a.turned or card.symmetric)}
    west = min(cells)
    ctl.ui.cursor = (west[0] - 1, west[1])  # beside the westmost cell, as after a card played there
    ctl.pick(i)
    assert ctl.ui.cursor in cells
    assert _goal_distance(state, ctl.ui.cursor) == min(_goal_distance(state, c) for c in cells)


def _best_cell_only_turned(state: State) -> bool:
    """The first path card in hand is legal nearer a goal turned than upright."""
    if not holding(state, is_path):
        return False
    card = next(state.faces[h] for h in state.hands[state.current] if isinstance(state.faces.get(h), PathCard))
    if card.symmetric:
        return False
    placed = [a for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card]
    upright = {a.cell for a in placed if not a.turned}
    turned = {a.cell for a in placed if a.turned} - upright
    return bool(upright and turned) and min(_goal_distance(state, c) for c in turned) < min(
        _goal_distance(state, c) for c in upright)


def test_a_picked_path_card_that_fits_nearest_a_goal_only_turned_starts_there_turned():
    state = find(_best_cell_only_turned)
    _, _, ctl = seated(state)
    ctl.ui.cursor = (0, 0)
    ctl.pick(index_of(ctl, is_path))
    focus = ctl.focus()
    card = focus.items[focus.selected].card
    turned = {a.cell for a in state.legal_actions() if isinstance(a, PlacePath) and state.faces[a.card] == card and a.turned}
    assert ctl.ui.turned and ctl.ui.cursor in turned and focus.option_legal, focus.option
    assert focus.option.endswith(" turned")
    assert _goal_distance(state, ctl.ui.cursor) == min(_goal_distance(state, c) for c in turned)


def _repair_looked_at_then_needed(seen: dict[str, object]) -> Callable[[State], bool]:
    """A ``drive`` stop: seat 0 looks at a repair card nobody needs (picks it, then Esc), and
    the game stops at seat 0's move when another player has that tool broken."""

    def until(state: State) -> bool:
        if state.phase.value != "play":
            return False
        if "handle" not in seen:
            for h in state.hands[0]:
                card = state.faces.get(h)
                if state.current != 0 and isinstance(card, ActionCard) and card.kind is ActionKind.REPAIR and not any(
                        t in state.broken[p] for t in card.tools for p in range(state.players)):
                    agent, node, ctl = seated(state, 0)
                    ctl.pick(slot_of(ctl, h))
                    assert ctl.focus().option is not None
                    ctl.cancel()
                    seen.update(handle=h, round=state.round, agent=agent, node=node, ctl=ctl)
                    break
            return False
        if state.round != seen["round"] or seen["handle"] not in state.hands[0]:
            seen.clear()
            return False
        card = state.faces[seen["handle"]]
        return state.current == 0 and not state.broken[0] and any(
            t in state.broken[p] for t in card.tools for p in range(1, state.players))

    return until


def test_a_target_chosen_at_an_earlier_move_gives_way_when_it_is_no_longer_the_legal_one():
    """A repair card looked at while nobody had that tool broken starts on a target where it is
    not legal; at our next move, with another player's tool broken, it starts on that player."""
    for seed in range(200):
        seen: dict[str, object] = {}
        state = drive(seed, _repair_looked_at_then_needed(seen))
        if state is None or "handle" not in seen:
            continue
        agent, node, ctl = seen["agent"], seen["node"], seen["ctl"]
        agent.heard(state)
        assert agent.poll_move(node) is None
        ctl.pick(slot_of(ctl, seen["handle"]))
        focus = ctl.focus()
        assert focus.option_legal, focus.option
        return
    raise AssertionError("no seed reaches the wanted position")


def test_an_illegal_cell_shows_the_rule_it_breaks_and_sends_nothing():
    state = find(lambda s: holding(s, is_path))
    agent, node, ctl = seated(state)
    ctl.pick(index_of(ctl, is_path))
    ctl.ui.cursor = (0, 0)
    assert ctl.focus().problem == "0,0 is the start cell"  # beside the card, before Enter
    assert not ctl.enter()
    assert ctl.ui.message_kind == "error"
    assert ctl.ui.message == "not allowed: 0,0 is the start cell"  # a cell as it is typed
    ctl.ui.cursor = (3, 4)
    assert not ctl.enter() and "touches no card" in ctl.ui.message
    assert agent.poll_move(node) is None


def test_typed_moves_are_checked_with_the_engine_before_they_are_sent():
    state = find(lambda s: holding(s, is_path))
    agent, node, ctl = seated(state)
    # a card is its hand slot (1-6): a deck handle is no card of the hand
    assert not ctl.command("path 9 at 1,0") and ctl.ui.message == "there is no card 9 in your hand (1-6)"
    assert not ctl.command("dig a tunnel") and ctl.ui.message.startswith("cannot read 'dig a tunnel': try path 2 at 1,0")
    assert ctl.assess("path 9 at 1,0")[0] == "info"
    action = state.legal_actions()[0]
    legal = said(state, action)
    assert "#" not in legal and str(action) != legal
    assert ctl.assess(legal) == ("ok", f"✓ legal: {legal}")
    assert ctl.command(legal.upper())  # case-insensitive
    assert not ctl.command(legal) and "already on its way" in ctl.ui.message
    assert agent.poll_move(node) == str(state.check(str(action)))
    assert agent.snapshot().decision is None  # the session has it: no longer ours to make
    # polled again for the same state, the session refused it: a fresh decision to retry
    assert agent.poll_move(node) is None and agent.snapshot().decision is not None
    assert ctl.command(legal)


def test_completion_offers_the_legal_moves_and_the_commands():
    state = find(lambda s: holding(s, is_path))
    _agent, _node, ctl = seated(state)
    paths = ctl.completions("path ")
    assert paths and set(paths) == {said(state, a) for a in state.legal_actions() if isinstance(a, PlacePath)}
    assert all(1 <= int(line.split()[1]) <= 6 for line in paths)  # hand slots, not deck handles
    assert not any(line.split()[1] in ("33", "40") for line in ctl.completions("pass "))
    assert set(ctl.completions("pass ")) == {f"pass {i}" for i in range(1, 7)}
    assert "say " in ctl.completions("s") and "pass" in " ".join(ctl.completions("pa"))
    _other, _, waiting = seated(state, (state.current + 1) % state.players)
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


def _repairs_another_before_yourself(state: State) -> bool:
    """The player to move holds a repair card that mends their own tool, and the same card is
    legal on another player's tool listed first (a lantern before our cart, a lower seat)."""
    if state.phase.value != "play" or not state.broken[state.current]:
        return False
    for h in state.hands[state.current]:
        card = state.faces.get(h)
        if not (isinstance(card, ActionCard) and card.kind is ActionKind.REPAIR):
            continue
        order = [(t, p) for t in card.tools for p in range(state.players)]
        legal = [(a.tool, a.target) for a in state.legal_actions() if isinstance(a, RepairTool) and a.card == h]
        firsts = sorted(legal, key=order.index)
        if firsts and firsts[0][1] != state.current and any(p == state.current for _, p in legal):
            return True
    return False


def picked_own_repair() -> tuple[ClientAgent, Controller]:
    """Seated at a move where a repair in hand can mend our own broken tool or another's (the
    other seat coming first in the card's order), with that repair picked."""
    state = find(_repairs_another_before_yourself, seeds=range(400))
    agent, _node, ctl = seated(state)
    items = ctl.items(ctl.snapshot())
    index = next(i for i, item in enumerate(items) if isinstance(item.card, ActionCard)
                 and item.card.kind is ActionKind.REPAIR and any(t in state.broken[agent.seat] for t in item.card.tools))
    ctl.pick(index)
    return agent, ctl


def test_a_repair_card_that_can_mend_your_own_tool_starts_on_you():
    agent, ctl = picked_own_repair()
    focus = ctl.focus()
    assert focus.target_player == agent.seat and focus.option_legal, focus.option


def test_tab_jumps_to_the_players_a_break_card_is_legal_on():
    """↑↓ stop on every player, legal or not; Tab (Shift-Tab) skips to the next legal one
    (it did nothing for a card played on a player)."""
    state = find(lambda s: holding(s, action_of(ActionKind.BREAK)) and sum(
        isinstance(a, BreakTool) for a in s.legal_actions()) < s.players)
    _agent, _node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(ActionKind.BREAK)))
    focus = ctl.focus()
    legal = [i for i, option in enumerate(focus.options) if ctl._refusal(ctl.snapshot(), option) is None]
    assert focus.option_legal and 0 < len(legal) < len(focus.options)
    seen = []
    for _ in range(len(legal)):
        ctl.next_cell()
        seen.append(ctl.focus().options.index(ctl.focus().option))
        assert ctl.focus().option_legal
    assert sorted(seen) == legal
    ctl.next_cell(-1)
    assert ctl.focus().options.index(ctl.focus().option) == seen[-2 % len(seen)]


def test_breaking_your_own_tool_with_the_keys_asks_once_before_it_is_sent():
    state = find(lambda s: holding(s, action_of(ActionKind.BREAK)) and any(
        isinstance(a, BreakTool) and a.target == s.current for a in s.legal_actions()))
    agent, node, ctl = seated(state)
    ctl.pick(index_of(ctl, action_of(ActionKind.BREAK)))
    while ctl.focus().target_player != agent.seat:
        ctl.arrow(0, -1)  # up from the first target wraps round to ourselves
    assert not ctl.enter() and agent.poll_move(node) is None
    assert "your own" in ctl.ui.message and "Enter again" in ctl.ui.message
    ctl.cancel()  # Esc: choose again; the question is asked afresh
    ctl.pick(index_of(ctl, action_of(ActionKind.BREAK)))
    while ctl.focus().target_player != agent.seat:
        ctl.arrow(0, -1)
    assert not ctl.enter()
    assert ctl.enter()
    sent = agent.poll_move(node)
    played = state.check(sent)
    assert isinstance(played, BreakTool) and played.target == agent.seat


def test_a_map_card_targets_a_goal_and_the_cursor_shows_it():
    state = find(lambda s: holding(s, action_of(ActionKind.MAP)))
    _agent, _node, ctl = seated(state)
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
    _agent, _node, ctl = seated(state, waiting)
    assert not ctl.command(said(state, state.legal_actions()[0]))
    assert ctl.ui.message == f"not your move: waiting for p{state.current}"


def test_a_late_move_is_never_played_at_a_later_decision():
    state = find(lambda s: s.phase.value == "play")
    agent, node, _ctl = seated(state)
    old = agent.snapshot().decision
    agent.heard(state)  # a new commit: the next poll makes a new decision
    assert agent.poll_move(node) is None
    assert agent.snapshot().decision.id != old.id
    agent.submit_move(old.id, str(state.legal_actions()[0]))
    assert agent.poll_move(node) is None


def test_chat_help_quit_and_legal_commands():
    state = find(lambda s: s.phase.value == "play")
    agent, _node, ctl = seated(state)
    assert ctl.command("say the treasure is south")
    assert agent.poll_chat() == "the treasure is south"
    assert ctl.command("help") and ctl.ui.help_open
    assert ctl.command("quit") and ctl.ui.confirm_quit
    assert ctl.command("legal")
    lines = [line.text for line in agent.log_lines()]
    start = max(i for i, text in enumerate(lines) if text.startswith("legal now ("))
    shown = lines[start + 1:]
    legal = list(dict.fromkeys(ctl.words(ctl.snapshot()).say(a) for a in state.legal_actions()))
    assert lines[start] == f"legal now ({len(legal)} moves):" and 1 <= len(shown) <= 13
    assert legal_lines(["path 2 at 1,0", "path 2 at 2,0 turned", "break lantern @bob", "break lantern @carol",
                        "pass 1", "pass 2", "theft"]) == [
        "path 2 at 1,0 · 2,0 turned", "break lantern @bob @carol", "pass: 1 · 2", "theft"]
    listed = [line for line in shown if not line.startswith("  ... and ")]
    assert listed == ["  " + line for line in legal_lines(legal)][:12]  # every move, by card and kind
    assert not ctl.command("start") and "only the host" in ctl.ui.message


@pytest.mark.parametrize("line, away, back", [
    ("p2 is away (no word for 3 s); the table waits up to 120 s", {2}, set()),
    ("p2 is back", set(), {2}),
    ("p2 is not heard here (no word for 9 s), but p1 says it hears p2: what p2 sends comes through the others, "
     "and the table waits for it as for any seat", set(), {2}),  # there, though not heard here
])
def test_away_and_back_come_from_the_sessions_lines(line: str, away: set[int], back: set[int]):
    state = find(lambda s: s.phase.value == "play")
    agent, _node, _ctl = seated(state)
    agent.say("p2 is away (no word for 3 s); the table waits up to 120 s")
    agent.say(line)
    snap = agent.snapshot()
    assert snap.away == away and snap.back == back
    last = agent.log_lines()[-1]
    assert last.kind is LogKind.NOTICE and last.text == line
    assert sum(line.presence for line in agent.log_lines()) == 1  # the second notice replaced the first


def test_a_chat_line_typed_in_the_lobby_goes_to_the_lobby():
    """A line typed before the start waited for it (a play-test); now the lobby takes it
    (test_lobby_chat.py) as it takes the game's lines."""
    agent = ClientAgent(hosting=True)
    ctl = Controller(agent)
    assert ctl.command("say hello bob")
    assert ctl.ui.message == "said it"
    assert agent.poll_chat() == "hello bob"


def test_enter_on_an_empty_chat_line_says_why_nothing_was_sent():
    """c then Enter: the line stayed, with no word of why (the hint line showed the board's keys)."""
    agent = ClientAgent()
    ctl = Controller(agent)
    assert not ctl.command("say ")
    assert ctl.ui.message_kind == "error" and "nothing to say" in ctl.ui.message
    assert agent.poll_chat() is None


def test_the_sessions_closing_message_is_logged_once():
    """The session says its result and where the log is saved; the launcher then hands the
    same result to ``session_ended``, which logged it a second time."""
    agent = ClientAgent()
    agent.say("game over. nuggets: Ann 1, Bob 6")
    agent.say("log saved: /tmp/game.log")
    agent.session_ended("game over. nuggets: Ann 1, Bob 6", said=True)
    assert [line.text for line in agent.log_lines()].count("game over. nuggets: Ann 1, Bob 6") == 1
    assert agent.snapshot().ended == "game over. nuggets: Ann 1, Bob 6"
    agent.session_ended("you closed the table before the game began")  # no session said it: logged
    assert agent.log_lines()[-1].text == "you closed the table before the game began"


def test_many_away_and_back_notices_are_one_log_line_and_the_newest_move_is_marked():
    state = find(lambda s: s.phase.value == "play" and s.round == 1 and len(s.events) > 6)
    agent, _node, _ctl = seated(state)
    agent.chat(1, "p1", "hello")
    before = len(agent.log_lines())
    for _ in range(20):
        for seat in (1, 2, 3):
            agent.say(f"p{seat} is away (no word for 3 s); the table waits up to 120 s")
        agent.say("p1 is back")
    lines = agent.log_lines()
    assert len(lines) == before + 1 and lines[-1].text == "p1 is back · away now: p2, p3"
    from saboteur_p2p.client.render import render_log

    shown = [text.strip() for _, text in render_log(lines, 0, 40, 6)]
    assert shown[0] == "<p1> hello" or "<p1> hello" in shown  # the chat stays in sight
    marked = [text for style, text in render_log(lines, 0, 60, 40) if style == "class:log.latest"]
    last_move = next(line.text for line in reversed(lines) if line.move)
    assert marked and marked[0].startswith("▸" + last_move[:20])
