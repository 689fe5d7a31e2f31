"""Found by a play-test of Saboteur 2 at the table (2026-12-07): two people and bots, the
full screen at 80x24 and 100x30, and the plain prompt."""
from __future__ import annotations

from test_client_controller import find2


def test_the_plain_prompt_says_what_lies_in_front_of_each_other_player():
    """`others:` listed broken tools only: a plain player could not tell whom to free, whose
    Theft to take away or whom to rob; `legal` offered `free @heuristic-3` for a seat the
    screen showed as only having a broken pickaxe."""
    from saboteur_p2p.client.plain import plain_view

    state = find2(lambda s: s.phase.value == "play" and any(s.trapped) and any(s.thefts)
                  and any(p > 0 for p in s.pieces) and bool(s.known_roles(s.current)))
    seat = state.current
    names = [f"p{i}" for i in range(state.players)]
    view = state.view_for(seat)
    others = next(line for line in plain_view(view, names) if line.startswith("others: "))
    for other in range(state.players):
        if other == seat:
            continue
        entry = next((part for part in others[len("others: "):].split("; ") if part.startswith(f"p{other} (")), "")
        assert ("trapped" in entry) == view.trapped[other], (other, others)
        assert ("theft" in entry) == view.thefts[other], (other, others)
        assert ("has gold" in entry) == view.has_gold[other], (other, others)
        if other in view.known_roles:
            assert f"inspected: {view.known_roles[other].value}" in entry, (other, others)
        for tool in view.broken[other]:
            assert tool.value in entry, (other, others)


def test_the_side_panel_says_what_lies_in_front_of_you_even_when_the_log_scrolled_it_away():
    """At 80x24 a Trapped! played on a person scrolled out of the log's rows before their
    turn; the panel (role, goals, gold) had no line for it."""
    from test_client_render import screen_of, text

    from saboteur_p2p.client.model import TOOL_SHORT
    from saboteur_p2p.client.render import render_info

    state = find2(lambda s: s.phase.value == "play" and s.trapped[s.current] is not None
                  and s.thefts[s.current] is not None and bool(s.broken[s.current]))
    _, app = screen_of(state, 80, 24)
    snap = app.agent.snapshot()
    tools = sorted(t.value for t in snap.view.broken[snap.seat])
    wide = text(render_info(snap, 80)).splitlines()
    assert f" in front of you: broken {', '.join(tools)} · Trapped! · a Theft" in [row.rstrip() for row in wide], wide
    # a panel too narrow for it has it short, on one row, not wrapped onto two
    narrow = text(render_info(snap, 30)).splitlines()
    assert narrow[1].rstrip() == " on you: " + " ".join([f"✗{TOOL_SHORT[t]}" for t in tools] + ["trapped", "theft"]), narrow
    # the panel at 80x24, 26 wide (review): shorter still, on one row (the state found has one tool broken)
    (tool,) = tools
    narrow = text(render_info(snap, 26)).splitlines()
    assert narrow[1].rstrip() == f" on you: ✗{TOOL_SHORT[tool]} trap theft", narrow
    # kept when the panel is short: after your role and the draw pile, before the goals
    short = text(render_info(snap, 40, height=3)).splitlines()
    assert short[0].startswith(" you: ") and short[1].startswith(" on you: ") and short[2].startswith(" draw pile"), short
    # nothing in front of you: no line
    calm = find2(lambda s: s.phase.value == "play" and s.trapped[s.current] is None
                 and s.thefts[s.current] is None and not s.broken[s.current])
    _, app = screen_of(calm, 80, 24)
    calm_info = text(render_info(app.agent.snapshot(), 40)) + text(render_info(app.agent.snapshot(), 26))
    assert "in front of you" not in calm_info and " on you:" not in calm_info


def test_clear_takes_the_hand_strips_short_tool_names_and_says_what_it_clears():
    """`break lamp @x` worked but `clear lamp with 2,5` was refused, with a usage line that
    named none of the words clear takes."""
    from saboteur_p2p.client.words import Words, WordsError

    state = find2(lambda s: s.phase.value == "play" and len(s.hands[s.current]) >= 2)
    view = state.view_for(state.current)
    words = Words(view, [f"p{i}" for i in range(state.players)])
    first, second = (handle for handle, _ in view.hand[:2])
    assert words.read("clear lamp with 1,2") == f"clear lantern with {first},{second}"
    assert words.read("clear pick with 1,2") == f"clear pickaxe with {first},{second}"
    try:
        words.read("clear lmap with 1,2")
    except WordsError as refused:
        assert "pick, lamp, cart, trapped or theft" in str(refused)
    else:
        raise AssertionError("a clear of nothing known was read")


def test_a_ladder_beside_a_goal_is_refused_for_the_ladders_own_rule_first():
    """`path 5 at 7,0` (a ladder) was refused as "would not join the start's tunnel
    network, and a ladder may not lie ...": ladders need not join the network."""
    from saboteur_p2p.rules import IllegalActionError, PlacePath

    state = find2(lambda s: s.phase.value == "play" and not s.broken[s.current] and s.trapped[s.current] is None
                  and any(getattr(s.faces.get(h), "ladder", False) for h in s.hands[s.current])
                  and (7, 0) not in s.board.frontier and (7, 0) not in s.board.tiles)
    ladder = next(h for h in state.hands[state.current] if getattr(state.faces.get(h), "ladder", False))
    try:
        state.check(PlacePath(ladder, 7, 0, False))
    except IllegalActionError as refused:
        assert "a ladder may not lie next to a goal card ((8, 0))" in str(refused)
        assert str(refused).index("ladder") < str(refused).index("network"), str(refused)
    else:
        raise AssertionError("a ladder beside a goal was let through")


def test_two_marked_cards_say_which_thing_enter_clears_and_how_to_choose_another():
    """With a broken cart and Trapped! in front of a person, two marked cards said "Enter
    clears cart/trapped"; Enter cleared the cart, and nothing said how to clear Trapped!."""
    from test_client_controller import seated

    state = find2(lambda s: s.phase.value == "play" and s.trapped[s.current] is not None
                  and bool(s.broken[s.current]) and len(s.hands[s.current]) >= 2)
    agent, _node, ctl = seated(state)
    ctl.pick(0)
    ctl.mark()
    ctl.pick(1)
    ctl.mark()
    message = ctl.ui.message
    lying = ctl.lying(agent.snapshot())
    assert f"Enter clears {lying[0]} (↑↓: {', '.join(lying[1:])})" in message, message


def test_the_round_end_legend_calls_the_others_gold_secret_only_while_it_is():
    """After the last round every total is shown, and the legend still said "others: gold
    (secret)"."""
    import dataclasses

    from test_client_render import text

    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board, Role

    roles = (Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.GREEN_DIGGER, Role.SABOTEUR)
    snap = dataclasses.replace(Snapshot(), seat=0, names=("you", "heuristic-1", "heuristic-2", "heuristic-3"))
    secret = RoundSummary(1, 3, "the green team won", roles, Board.new_round(), {},
                          ("0 pieces", "gold", "-", "-"), ("0 pieces", "has gold", "has gold", "-"), settled=True)
    # after the last round the tracker shows every total; another seat's winnings of that
    # round stay "gold" (review): the legend stays while the column says "gold"
    final = dataclasses.replace(secret, round=3, won=("1 piece", "gold", "-", "-"),
                                totals=("4 pieces", "5 pieces", "3 pieces", "0 pieces"))
    shown = dataclasses.replace(final, won=("1 piece", "-", "-", "-"))
    for summary, said in ((secret, True), (final, True), (shown, False)):
        tables = [text(render_round_end(summary, snap, 60, height)) for height in range(8, 14)]
        table = next(t for t in tables if " who" in t and "yours:" in t)
        assert ("gold (secret)" in table) == said, table


def test_a_two_tool_repair_on_a_player_with_neither_broken_says_so():
    """`fix 2 @me` with nothing broken asked to "say which (repair pickaxe @name)", as if
    choosing a tool would help."""
    from saboteur_p2p.client.words import Words, WordsError
    from saboteur_p2p.rules.cards import ActionCard, ActionKind

    def double_repair(s):
        return s.phase.value == "play" and not s.broken[s.current] and any(
            isinstance(f, ActionCard) and f.kind is ActionKind.REPAIR and len(f.tools) == 2
            for f in (s.faces.get(h) for h in s.hands[s.current]))

    state = find2(double_repair)
    view = state.view_for(state.current)
    slot = next(i for i, (_, f) in enumerate(view.hand, 1)
                if isinstance(f, ActionCard) and f.kind is ActionKind.REPAIR and len(f.tools) == 2)
    words = Words(view, [f"p{i}" for i in range(state.players)])
    try:
        words.read(f"repair {slot} @me")
    except WordsError as refused:
        assert "you have neither broken" in str(refused) and "say which" not in str(refused), str(refused)
    else:
        raise AssertionError("a repair of nothing broken was read")


def test_the_hint_of_a_hand_of_one_card_does_not_offer_a_range():
    """"1-1 pick a card" with one card left in the hand."""
    from test_client_controller import seated

    state = find2(lambda s: s.phase.value == "play" and len(s.hands[s.current]) == 1)
    _agent, _node, ctl = seated(state)
    hint = ctl.focus().hint
    assert hint.startswith("1 pick a card · "), hint


def test_the_passes_of_one_card_are_listed_by_slot():
    """The plain prompt's `legal` read "pass 4; pass 6; pass 5" (the engine's order of handles)."""
    from saboteur_p2p.client.words import fewer_passes

    texts = ["path 1 at 1,0", "pass 4", "pass 6", "pass 5", "pass 4,5", "pass 4,6", "pass 1"]
    assert fewer_passes(texts) == ["path 1 at 1,0", "pass 1", "pass 4", "pass 5", "pass 6",
                                   "pass 4,5 (or any two or three cards)"]
    assert fewer_passes(["map 1", "pass 3", "pass 2"]) == ["map 1", "pass 2", "pass 3"]


def test_the_chat_kept_on_top_of_the_log_is_not_cut_without_a_mark():
    """The newest chat, kept on top of the log once moves pushed it up, showed its first row
    alone: "<bob> the treasure is not" for "... is not at the middle goal" (a play-test)."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import render_log

    said = "<bob> the treasure is not at the middle goal, I looked with my map"
    lines = [LogLine(LogKind.CHAT, said)] + [LogLine(LogKind.EVENT, f"p{i % 4} plays a card", move=True) for i in range(30)]
    roomy = [text.rstrip() for _, text in render_log(lines, 0, 26, 8)]
    assert roomy[0] == "↑ <bob> the treasure is" and roomy[1].startswith("not at the middle") and roomy[1].endswith("…"), roomy
    short = [text.rstrip() for _, text in render_log(lines, 0, 26, 5)]
    assert short[0].endswith("…") and "the treasure is" in short[0], short


def test_the_plain_prompt_lists_whom_a_thief_may_rob():
    """In the steal phase the plain prompt did not say whom one could rob, and a bare `steal`
    was refused (a play-test); it lists the choices, as the take-gold line does."""
    from saboteur_p2p.client.plain import plain_view

    state = find2(lambda s: s.phase.value == "steal")
    seat = state.current
    names = [f"p{i}" for i in range(state.players)]
    view = state.view_for(seat)
    line = next(row for row in plain_view(view, names) if row.startswith("your Theft steals"))
    whom = [f"steal @p{t}" for t, has in enumerate(view.has_gold) if has and t != seat]
    assert line.endswith("; ".join([*whom, "steal nobody"])), line


def test_the_plain_prompt_offers_a_path_refused_as_it_lies_turned_when_that_fits():
    """`path 2 at 1,0` refused for a tunnel facing a wall said nothing of the turn that fits;
    the full-screen client offers it (Tab)."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.plain import PlainAgent
    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import PlacePath

    def only_turned(s):
        if s.phase.value != "play":
            return False
        legal = set(s.legal_actions())
        return any(isinstance(a, PlacePath) and a.turned and PlacePath(a.card, a.x, a.y, False) not in legal
                   for a in legal)

    state = find(only_turned)
    turned = next(a for a in state.legal_actions() if isinstance(a, PlacePath) and a.turned
                  and PlacePath(a.card, a.x, a.y, False) not in set(state.legal_actions()))
    names = [f"p{i}" for i in range(state.players)]
    words = Words(state.view_for(state.current), names)
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = state.current, names
    node = seated(state, state.current)[1]
    assert agent.poll_move(node) is None
    said.clear()
    upright = words.say(turned).removesuffix(" turned")
    agent.lines.put(upright)
    assert agent.poll_move(node) is None
    text = " ".join(said)
    assert text.startswith("not allowed:") and f"it fits turned: {words.say(turned)}" in text, text
