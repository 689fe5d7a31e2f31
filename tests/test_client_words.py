"""Moves in a person's words (issue 12, defect 5): hand slots and player names, never deck
handles, both in the client and at the plain prompt; and leaving the plain prompt."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
from test_client_controller import drive, find, find2, seated

from saboteur_p2p.client.words import Words
from saboteur_p2p.rules import (
    BreakTool,
    IllegalActionError,
    InvalidActionError,
    MapPeek,
    PlayOn,
    RepairTool,
    Rockfall,
    State,
)

NAMES = ["ann", "bob", "cy", "dee", "eve"]


def positions(edition: str) -> list[State]:
    """Decisions of every phase, reached by bots."""
    spec = "random" if edition == "saboteur2" else "heuristic"
    found = []
    for seed in range(6):
        for phase in ("play", "keep-gold", "take-gold", "orient", "steal"):
            state = drive(seed, lambda s, p=phase: s.phase.value == p, edition=edition, spec=spec)  # type: ignore[misc]
            if state is not None:
                found.append(state)
    return found


def same_move(first: object, second: object) -> bool:
    """Equal, except that an action card named by its effect may be any card of the hand that has it."""
    if isinstance(first, (BreakTool, RepairTool, Rockfall, MapPeek, PlayOn)):
        return type(first) is type(second) and str(first).split(" #")[0] == str(second).split(" #")[0]
    return first == second


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_every_legal_move_said_and_read_back_is_the_same_move(edition: str):
    checked = 0
    for state in positions(edition):
        seat = state.current
        words = Words(state.view_for(seat), NAMES)
        for action in state.legal_actions():
            text = words.say(action)
            assert "#" not in text and not re.search(r"@\d", text), text  # no handles, no seat numbers
            assert same_move(state.check(words.read(text), player=seat), action), (text, str(action))
            checked += 1
    assert checked > 100


def test_a_typed_move_names_slots_and_players():
    state = find(lambda s: s.phase.value == "play" and any(isinstance(a, BreakTool) for a in s.legal_actions()))
    seat = state.current
    words = Words(state.view_for(seat), NAMES)
    first = state.hands[seat][0]
    assert words.read("path 1 at 1,0 turned") == f"path {first} at 1,0 turned"
    other = (seat + 1) % 5
    assert words.read(f"break lamp @{NAMES[other][:2]}") == f"break lantern @{other}"  # a name begun, a tool's short name
    assert words.read("repair cart @me") == f"repair cart @{seat}"
    with pytest.raises(InvalidActionError, match="there is no card 7 in your hand"):
        words.read("pass 7")
    for slot in (7, 9, 40):
        # said as read: "card 9" there is the hand's slot, not the deck handle 9 ("that card")
        try:
            words.read(f"path {slot} at 1,0")
        except InvalidActionError as exc:
            assert words.explain(exc) == f"there is no card {slot} in your hand (1-{len(state.hands[seat])})"
    with pytest.raises(InvalidActionError, match="no player called 'zed'"):
        words.read("break cart @zed")


def test_a_name_with_spaces_may_be_typed_whole():
    """``--name`` allows spaces, but only a name's first word could be typed after @ (found by
    a play-test): the rest of the line is the name, spaced as typed, any case."""
    state = find(lambda s: s.phase.value == "play" and any(isinstance(a, BreakTool) for a in s.legal_actions()))
    seat = state.current
    other = (seat + 1) % 5
    names = list(NAMES)
    names[other] = "Bartholomew the  Magnificent Miner 日本語"
    words = Words(state.view_for(seat), names)
    expected = f"break lantern @{other}"
    for typed in ("@Bartholomew the Magnificent Miner 日本語", "@bartholomew   the magnificent miner 日本語", "@Bartholomew the",
                  "@Bart"):
        assert words.read(f"break lamp {typed}") == expected, typed
    said = words.say(next(a for a in state.legal_actions() if isinstance(a, BreakTool) and a.target == other))
    assert said.endswith("@Bartholomew the  Magnificent Miner 日本語") and words.read(said).endswith(f" @{other}")
    with pytest.raises(InvalidActionError, match="no player called 'bartholomew the great'"):
        words.read("break lamp @Bartholomew the Great")
    # a comma in a name is the name's, and another player called "me" is typed by seat (it read
    # back as ourselves), each as the game itself says the move (found by review)
    names[other] = "Smith, John"
    third = (seat + 2) % 5
    names[third] = "Me"
    names[(seat + 3) % 5] = f"{third}{third} club"  # a name a bare seat number is the start of (review)
    words = Words(state.view_for(seat), names)
    assert words.read("break lamp @smith, john") == f"break lantern @{other}"
    for target in (other, third):
        move = next(a for a in state.legal_actions() if isinstance(a, BreakTool) and a.target == target)
        text = words.say(move)
        assert words.read(text).endswith(f" @{target}"), text
    assert words.say(next(a for a in state.legal_actions() if isinstance(a, BreakTool) and a.target == third)).endswith(
        f"@#{third}")


def test_a_refusal_says_you_and_names_not_player_numbers():
    state = find(lambda s: s.phase.value == "play" and any(s.broken) and not s.broken[s.current])
    seat = state.current
    words = Words(state.view_for(seat), NAMES)
    broken = next(p for p in range(5) if state.broken[p])
    tool = next(iter(state.broken[broken])).value
    try:
        state.check(f"break {tool} @{broken}", player=seat)
    except IllegalActionError as exc:
        said = words.explain(exc)
        assert "player" not in said and (NAMES[broken] in said or "you hold no break" in said), said
    waiting = (seat + 1) % 5
    try:
        state.check(str(state.legal_actions()[0]), player=waiting)
    except IllegalActionError as exc:
        assert Words(state.view_for(waiting), NAMES).explain(exc) == f"it is {NAMES[seat]}'s turn, not yours"


@pytest.mark.parametrize(("rule", "said"), [
    ("player {me} already has a Theft card in front of them", "you already have a Theft card in front of you"),
    ("player {me} is trapped and may not play a Theft card", "you are trapped and may not play a Theft card"),
    ("player {me} has no broken lantern in front of them", "you have no broken lantern in front of you"),
    ("player {other} has no Theft card in front of them", "{name} has no Theft card in front of them"),
    ("player {me} must keep one of the gold cards passed to them", "you must keep one of the gold cards passed to you"),
])
def test_a_rule_about_the_player_reads_in_the_second_person(rule, said):
    state = find(lambda s: s.phase.value == "play")
    me, other = state.current, (state.current + 1) % 5
    words = Words(state.view_for(me), NAMES)
    assert words.words_of(rule.format(me=me, other=other)) == said.format(name=NAMES[other])


def test_the_hand_strip_s_labels_read_as_the_verbs_they_stand_for():
    state = find2(lambda s: s.phase.value == "play")
    words = Words(state.view_for(state.current), NAMES)
    other = NAMES[(state.current + 1) % 5]
    assert words.read("discard 1") == words.read("pass 1")
    assert words.read(f"trap @{other}") == words.read(f"trapped @{other}")
    assert words.read(f"hats @{other}") == words.read(f"swap-hats @{other}")
    assert words.read(f"look @{other}") == words.read(f"inspection @{other}")
    assert words.read("fix cart @me") == words.read("repair cart @me")
    assert words.read("rock 1,0") == "rockfall 1,0"


def test_a_tool_card_may_be_named_by_its_slot():
    from saboteur_p2p.rules import ActionCard, ActionKind

    state = find(lambda s: s.phase.value == "play" and any(
        isinstance(s.faces[h], ActionCard) and s.faces[h].kind is ActionKind.BREAK for h in s.hands[s.current]))
    me = state.current
    words = Words(state.view_for(me), NAMES)
    slot, face = next((i, c) for i, (_, c) in enumerate(state.view_for(me).hand, 1)
                      if isinstance(c, ActionCard) and c.kind is ActionKind.BREAK)
    other = (me + 1) % 5
    assert words.read(f"break {slot} @{NAMES[other]}").startswith(f"break {face.tools[0].value} @{other} #")
    not_break = next((i for i, (_, c) in enumerate(state.view_for(me).hand, 1)
                      if not (isinstance(c, ActionCard) and c.kind is ActionKind.BREAK)), None)
    if not_break is not None:
        with pytest.raises(InvalidActionError, match=f"card {not_break} is not a break card"):
            words.read(f"break {not_break} @{NAMES[other]}")


def test_a_two_tool_repair_card_named_by_its_slot_repairs_the_one_tool_broken():
    from saboteur_p2p.rules import ActionCard, ActionKind, Tool

    state = find(lambda s: s.phase.value == "play")
    me, other = state.current, (state.current + 1) % 5
    card = ActionCard(ActionKind.REPAIR, (Tool.PICKAXE, Tool.LANTERN))
    broken = [frozenset()] * 5
    broken[other] = frozenset({Tool.LANTERN})
    view = state.view_for(me)._replace(hand=((99, card),), broken=tuple(broken))
    words = Words(view, NAMES)
    assert words.read(f"repair 1 @{NAMES[other]}") == f"repair lantern @{other} #99"
    with pytest.raises(InvalidActionError, match="card 1 repairs a pickaxe or lantern, and you have neither broken"):
        words.read("repair 1 @me")
    broken[me] = frozenset({Tool.PICKAXE, Tool.LANTERN})
    words = Words(view._replace(broken=tuple(broken)), NAMES)
    with pytest.raises(InvalidActionError, match="card 1 repairs a pickaxe or lantern: say which"):
        words.read("repair 1 @me")


def test_the_legal_moves_tell_saboteur2_s_passes_of_several_cards_as_one():
    from saboteur_p2p.client.commands import legal_lines
    from saboteur_p2p.client.words import fewer_passes

    state = find2(lambda s: s.phase.value == "play" and len(s.hands[s.current]) >= 4)
    words = Words(state.view_for(state.current), NAMES)
    texts = list(dict.fromkeys(words.say(a) for a in state.legal_actions()))
    assert sum("," in t for t in texts if t.startswith("pass ")) > 10  # 1,2 · 1,3 · ... · 4,5,6
    (line,) = [line for line in legal_lines(fewer_passes(texts)) if line.startswith("pass")]
    singles = [t.removeprefix("pass ") for t in texts if t.startswith("pass ") and "," not in t]
    assert line == "pass: " + " · ".join(singles) + " · 1,2 (or any two or three cards)"


def test_an_unread_move_is_answered_with_examples_of_the_edition_s_moves():
    for state, shown, absent in ((find2(lambda s: s.phase.value == "play"), "trapped @name", "map 2"),
                                 (find(lambda s: s.phase.value == "play"), "map 2", "trapped")):
        with pytest.raises(InvalidActionError) as refused:
            Words(state.view_for(state.current), NAMES).read("dig a tunnel")
        assert shown in str(refused.value) and absent not in str(refused.value)


def test_the_log_and_the_hand_strip_show_no_deck_handles():
    state = find2(lambda s: s.phase.value == "play" and s.round == 2)
    agent, _node, ctl = seated(state)
    log = " ".join(line.text for line in agent.log_lines())
    assert not re.search(r"#\d|\[\w+:\w+\]|\bP\d\b", log), log
    ctl.pick(0)
    said = ctl.focus().said or ""
    assert "#" not in said


def plain(*lines: str, players: int = 3) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "saboteur_p2p", "play", "--offline", "--plain", "--players", str(players),
               "--seed", "1", "--bot-delay", "0", "--name", "ann"]
    return subprocess.run(command, input="".join(f"{line}\n" for line in lines), capture_output=True, text=True, timeout=60)


def test_the_plain_prompt_speaks_in_slots_and_names_and_quit_leaves_with_status_0():
    done = plain("legal", "break lantern @nobody", "pass 1", "quit")
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert re.search(r"hand: 1 \w+", out) and re.search(r"legal \(\d+ lines, a card and kind each\):", out)
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("legal ("))
    legal = lines[start + 1:start + 1 + int(lines[start].split("(")[1].split()[0])]  # every move: none cut off with "..."
    assert all(line.startswith("  ") for line in legal) and "  pass: 1 · 2 · 3 · 4 · 5 · 6" in legal
    assert not any("#" in line or re.search(r"@\d", line) or "..." in line for line in legal)
    assert "\nno player called 'nobody'" in out  # read as the full-screen client reads it: no "not allowed"
    assert "you discard a card" in out and "you left the table" in out


def test_the_plain_prompt_draws_the_maze_on_board():
    done = plain("board", "quit")
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()
    start = next(i for i, row in enumerate(rows) if "──H──" in row)  # the start card, as the client draws it
    assert rows[start].lstrip().startswith("0 ") and sum("╔═" in row for row in rows) == 3  # the three goals
    assert "board: the maze" in done.stdout  # the help names it


def test_the_end_of_the_input_leaves_the_plain_prompt():
    done = plain()  # Ctrl-D at once
    assert done.returncode == 0 and "leaving the table" in done.stdout and "Traceback" not in done.stderr


def test_the_saboteur2_help_adds_its_commands_and_symbols_and_the_rules_cover_both_editions():
    from saboteur_p2p.client.guide import help_text, rules_text

    second = help_text("saboteur2")
    assert "trapped @bob" in second and "╫ ladder" in second and "$3 your gold pieces" in second
    assert "trapped @bob" not in help_text("base")
    rules = rules_text()
    for heading in ("## 7. Named variants", "## 8. Saboteur 2 (edition saboteur2)", "## 9. Decisions"):
        assert heading in rules
    assert "**" not in rules and "`" not in rules
    # a player's summary first: the page read as a reference for developers (found by a play-test)
    short = rules[rules.index("## In short"):rules.index("## 1. Overview")]
    assert all(word in short for word in ("gold-diggers", "saboteurs", "path card", "broken tool", "map", "rockfall"))


def test_the_end_of_the_input_closes_a_plain_host_table_still_filling(tmp_path):
    command = [sys.executable, "-m", "saboteur_p2p", "host", "--plain", "--bind", "127.0.0.1:0", "--log-dir",
               str(tmp_path), "--identity", str(tmp_path / "host.identity")]
    done = subprocess.run(command, input="", capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and "leaving the table" in done.stdout and "Traceback" not in done.stderr


def test_a_player_called_me_is_listed_once_among_the_names():
    """"no player called 'nobody' here: me, me, heuristic-1, ..." (found by a play-test)."""
    state = find(lambda s: s.phase.value == "play" and any(isinstance(a, BreakTool) for a in s.legal_actions()))
    names = list(NAMES)
    names[state.current] = "me"
    with pytest.raises(InvalidActionError) as refused:
        Words(state.view_for(state.current), names).read("break lamp @nobody")
    assert str(refused.value) == "no player called 'nobody' here: " + ", ".join(dict.fromkeys(["me", *names]))
    assert str(refused.value).count("me, ") == 1


def test_q_at_the_plain_prompt_says_how_to_leave():
    """``q``, the full-screen client's key, was read as a move and refused ("cannot read 'q'"),
    a round later when typed in the lobby (found by a play-test)."""
    done = plain("q", "pass 1", "quit")
    assert done.returncode == 0, done.stderr
    assert "to leave the table, type quit (or press Ctrl-D)" in done.stdout
    assert "cannot read 'q'" not in done.stdout and "you discard a card" in done.stdout
