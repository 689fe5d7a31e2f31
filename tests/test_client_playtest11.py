"""Findings of a play-test of ``saboteur-p2p play`` (the base game and Saboteur 2 against bot
peers, full-screen and --plain, 2026-12-05), one test each, each failing before its fix."""
from __future__ import annotations

from test_client_app import ENTER, Harness, can_place, seed_where

LEFT = "\x1b[D"
UP = "\x1b[A"


def test_a_key_typed_after_a_refused_move_starts_a_fresh_line_and_arrows_go_into_the_refused_one():
    """A refused "orient 1" stayed on the line and the next command typed was added to it
    ("orient 1pass 2").  A refused move now shows selected: typing replaces it, ← goes into
    it to correct it, and ↑ brings it back.  A line refused unread ("pass") is only unfinished:
    what is typed next finishes it."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":rockfall 0,0" + ENTER)  # read, and refused by the rules: the start never moves
        h.wait_for(lambda: h.app.input_area.buffer.selection_state is not None, "the refused move, selected")
        assert h.app.input_area.text == "rockfall 0,0" and h.app.ui.message_kind == "error"
        h.keys("rockfall 9,9")
        h.wait_for(lambda: h.app.input_area.text == "rockfall 9,9", "a fresh line, not 'rockfall 0,0rockfall 9,9'")
        h.keys(ENTER)
        h.wait_for(lambda: h.app.input_area.buffer.selection_state is not None, "a second refusal")
        h.keys(LEFT + "1")  # into the line: correct it where the cursor is
        h.wait_for(lambda: h.app.input_area.text == "rockfall 9,19", "the corrected line")
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        assert h.app.input_area.text == ""
        h.keys(":pass" + ENTER)  # unfinished: left as it is, not selected
        h.wait_for(lambda: h.app.ui.message_kind == "error" and h.app.input_area.text == "pass", "the refusal")
        assert h.app.input_area.buffer.selection_state is None
        h.keys(" 1")
        h.wait_for(lambda: h.app.input_area.text == "pass 1", "the line finished")
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        h.keys(":rockfall 0,0" + ENTER)
        h.wait_for(lambda: h.app.input_area.buffer.selection_state is not None, "the refused move, selected")
        # prompt_toolkit reads the history again in a task of the next repaint
        h.wait_for(lambda: len(h.app.input_area.buffer._working_lines) > 1, "the line's history")
        h.keys("say hi")
        h.wait_for(lambda: h.app.input_area.text == "say hi", "a fresh line")
        h.keys(UP)  # the refused move, to correct it after all
        h.wait_for(lambda: h.app.input_area.text == "rockfall 0,0", "the refused move from the history")

    harness.play(script)


def _plain_answers(lines: list[str]) -> list[str]:
    """What the --plain prompt says to each line typed on a base-game move (nothing is played)."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.plain import PlainAgent

    state = find(lambda s: s.phase.value == "play")
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = state.current, [f"p{i}" for i in range(state.players)]
    node = seated(state, state.current)[1]
    assert agent.poll_move(node) is None  # shows the move's view (with the moves' help line) once
    answers = []
    for line in lines:
        said.clear()
        agent.lines.put(line)
        assert agent.poll_move(node) is None, line
        answers.append("\n".join(said))
    return answers


def test_the_plain_prompt_answers_help_and_what_and_tells_an_unreadable_line_from_a_refused_move():
    """At --plain, `help` listed the legal moves, `what 2` was refused as "not allowed: ...
    did you mean swap-hats?", and a base-game `orient 1 turned` in a turn said "not
    OrientStone": help lists the commands, what says what a card does, a line that is no move
    says how moves are typed, and a refusal names the move in the words it was typed in."""
    help_, what, unreadable, orient, legal = _plain_answers(["help", "what 2", "swap-hat @p1", "orient 1 turned", "legal"])
    assert "what 3: what card 3 does" in help_ and "quit" in help_ and not help_.startswith("legal:")
    assert what.startswith("2: ") and "not allowed" not in what
    assert unreadable.startswith("cannot read 'swap-hat @p1'") and "not allowed" not in unreadable
    assert orient == "not allowed: you must play a card or pass now: 'orient' turns a goal stone, when a path has just reached it"
    assert legal.startswith("legal (") and "\n  pass: " in legal  # a line for each card and kind


def test_no_completion_menu_is_left_over_the_quit_question_or_the_table_after_it():
    """`quit` Enter typed quickly left the menu of every command drawn over the maze (the line
    emptied by the command opened it), under the question and after "n", until Esc."""
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        h.decision()
        h.keys(":quit" + ENTER)
        h.wait_for(lambda: h.app.ui.confirm_quit, "the question")
        h.wait_for(lambda: "Leave the table?" in h.screen(), "the question drawn")
        assert h.app.input_area.buffer.complete_state is None
        assert not any(line.strip() == "legal" for line in h.screen().splitlines())  # a menu line
        h.keys("n")
        h.wait_for(lambda: not h.app.ui.confirm_quit and "Leave the table?" not in h.screen(), "the table")
        assert h.app.input_area.buffer.complete_state is None
        assert not any(line.strip() == "legal" for line in h.screen().splitlines())
        h.keys(":\t")  # asked for (the question closed onto the board): the menu of everything that may be typed
        h.wait_for(lambda: h.app.input_area.buffer.complete_state is not None, "the menu on Tab")

    harness.play(script)


def test_start_with_too_few_seated_says_it_waits_as_the_lobby_does():
    """`:start` with two seated at a base-game table said "starting with the players seated
    now" while the log said "it starts as soon as 3 are"."""
    from saboteur_p2p.client.agent import ClientAgent
    from saboteur_p2p.client.controller import Controller

    agent = ClientAgent(hosting=True)
    ctl = Controller(agent)
    agent.lobby("base", ("ann", "bob"), ())
    assert ctl.command("start") and agent.start_requested()
    assert ctl.ui.message == "a game needs at least 3 players and 2 are seated: it starts as soon as 3 are"
    agent.lobby("saboteur2", ("ann", "bob"), ())  # Saboteur 2 is played by two
    assert ctl.command("start") and ctl.ui.message == "starting with the players seated now"


def test_rules_with_a_section_the_rules_do_not_have_says_so():
    """`rules 12` opened the page at the top, as if it had found section 12 (found by review)."""
    from saboteur_p2p.client.agent import ClientAgent
    from saboteur_p2p.client.controller import Controller

    ctl = Controller(ClientAgent())
    for typed in ("rules 12", "rules 0", "rules x"):
        assert not ctl.command(typed) and not ctl.ui.rules_open, typed
        assert ctl.ui.message.startswith("no section ") and "rules 1 to rules 9" in ctl.ui.message
    assert ctl.command("rules 8") and ctl.ui.rules_open and ctl.ui.rules_section == 8


def test_the_lobby_lists_the_empty_seats_the_table_still_waits_for():
    """The players list showed only the seats taken: how many more were awaited was in the log alone."""
    from saboteur_p2p.client.agent import ClientAgent
    from saboteur_p2p.client.controller import Controller
    from saboteur_p2p.client.players import render_players

    agent = ClientAgent()
    ctl = Controller(agent)
    agent.lobby("base", ("ann", "bob"), (), 4)
    lines = "".join(text for _, text in render_players(agent.snapshot(), ctl.focus(), 26)).splitlines()
    assert [line.strip() for line in lines[1:]] == ["0 ann", "1 bob", "2 (empty seat)", "3 (empty seat)"]
    agent.lobby("base", ("ann", "bob", "cid", "dee"), (), 4)
    lines = "".join(text for _, text in render_players(agent.snapshot(), ctl.focus(), 26)).splitlines()
    assert not any("empty" in line for line in lines)


def test_every_card_s_hint_says_what_esc_does_and_fits_an_80_column_line():
    """Hints ended in a bare "Esc" (does what?), and the Theft's was cut short at 80 columns."""
    from test_client_controller import find, find2, seated

    from saboteur_p2p.client.controller import PLAY_ON_HINT

    states = [find(lambda s: s.phase.value == "play", seeds=range(seed, seed + 1)) for seed in range(3)]
    states += [find2(lambda s, kind=kind: any(
        getattr(s.faces.get(h), "kind", None) is kind for h in s.hands[s.current]) and s.phase.value == "play")
        for kind in PLAY_ON_HINT]
    hints = set()
    for state in states:
        _agent, _node, ctl = seated(state)
        for slot in range(len(state.hands[state.current])):
            ctl.pick(slot)
            hints.add(ctl.focus().hint)
        ctl.mark()
        hints.add(ctl.focus().hint)
    assert len(hints) >= 8, hints  # paths, actions, each Saboteur 2 card, a mark
    for hint in hints:
        assert not hint.endswith("Esc") and len(hint) <= 79, hint


def test_turn_and_other_words_for_turned_are_read_as_turned():
    """`path 1 at 3,1 turnd` (and `turn`) were refused with the general syntax only."""
    from test_client_controller import find

    from saboteur_p2p.client.words import Words

    state = find(lambda s: s.phase.value == "play")
    words = Words(state.view_for(state.current), [f"p{i}" for i in range(state.players)])
    turned = words.read("path 1 at 3,1 turned")
    assert turned.endswith(" turned")
    for typed in ("path 1 at 3,1 turn", "path 1 at 3,1 turnd", "path 1 at 3,1 rotated", "Path 1 at 3,1 FLIPPED"):
        assert words.read(typed) == turned, typed
    assert words.read("orient 1 turn") == "orient 1 turned"
