"""Findings of a play-test of the full-screen client (Saboteur 2 and the base game, 80x24 and
120x40), one test each, each failing before its fix."""
from __future__ import annotations

import time

import pytest
from test_client_app import ENTER, TAB, Harness, seed_where
from test_client_app_typed import fits_only_turned, only_turned_line

from saboteur_p2p.rules import InvalidActionError


def test_a_move_refused_as_it_is_typed_is_not_covered_by_a_late_completion_menu():
    """`path 2 at 6,-1` typed and Enter pressed at once: a completion still running for the
    line reopened its menu over the refusal ("not allowed: th path 2 at 6,-1 turned  card to
    its west") and it stayed.  The refusal shows whole, names what the menu offered, and Tab
    still offers it."""
    harness = Harness(seed_where(fits_only_turned))

    def script(h: Harness) -> None:
        typed = only_turned_line(h.decision())
        h.keys(":" + typed + ENTER)  # as a quick typist does
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        time.sleep(0.5)  # a late completion has had time to come back
        assert h.app.input_area.buffer.complete_state is None
        rows = h.screen().splitlines()[-3:-1]
        said = " ".join(" ".join(row.split()) for row in rows)
        assert said.startswith("not allowed: the card does not fit"), rows
        assert f"Tab: {typed} turned" in said, rows
        h.keys(TAB)  # asked for, the menu still comes
        h.wait_for(lambda: h.app.input_area.text == f"{typed} turned", "the turned move on the line")

    harness.play(script)


def test_a_card_digit_pressed_after_a_refused_move_picks_the_card():
    """After a refused typed move the command line kept the keys: `6`, pressed to pick a card,
    replaced the line and read "cannot read '6'"; Esc (slow, as Esc waits for a key after it)
    had to come first.  A digit over the refused move leaves the line and picks the card."""
    harness = Harness(seed_where(fits_only_turned))

    def script(h: Harness) -> None:
        h.keys(":" + only_turned_line(h.decision()) + ENTER)
        h.wait_for(lambda: h.app.ui.message_kind == "error", "the refusal")
        h.keys("3")
        h.wait_for(lambda: h.app.focus.selected == 2, "card 3 picked")
        assert h.app.application.layout.has_focus(h.app.maze_window)
        assert "cannot read" not in h.app.ui.message
        h.keys(":path ")  # a line still takes digits as it is typed
        h.wait_for(lambda: h.app.input_area.text == "path ", "a new line")
        h.keys("2")
        h.wait_for(lambda: h.app.input_area.text == "path 2", "the digit typed on the line")

    harness.play(script)


def test_a_word_begun_with_a_board_key_reads_as_that_word_however_slowly_it_goes_on():
    """With a path card picked, `r`, a pause of 0.3 s or more, then `epair cart @me` read
    "cannot read 'epair cart @me'": the r turned the card and was lost.  In Saboteur 2 `c`, a
    pause, then `lear cart with 1,2` was "say lear cart with 1,2", one Enter from the table."""
    from test_client_controller import drive

    from saboteur_p2p.client.boardkeys import word_begun_with
    from saboteur_p2p.rules import PathCard

    assert word_begun_with("r", "e", "base") is None  # "exit", or "repair"
    assert word_begun_with("r", "ep", "base") is True
    assert word_begun_with("r", "exit ", "base") is False
    assert word_begun_with("m", "a", "saboteur2") is True  # map
    assert word_begun_with("c", "lea", "saboteur2", chat=True) is None  # "leave now" said, or "clear"
    assert word_begun_with("c", "lear ", "saboteur2", chat=True) is True
    assert word_begun_with("c", "lear ", "base", chat=True) is False  # no Clear in the base game
    assert word_begun_with("c", "lo", "saboteur2", chat=True) is False

    def has_path(state) -> bool:
        return any(isinstance(state.faces[h], PathCard) for h in state.hands[0])

    seed = next(s for s in range(200) if has_path(drive(s, lambda st: st.current == 0, 5, "saboteur2")))
    harness = Harness(seed, edition="saboteur2")

    def script(h: Harness) -> None:
        turned = h.turn_a_path_card()
        time.sleep(0.5)  # a hesitant typist
        h.keys("e")
        h.wait_for(lambda: h.app.input_area.text == "e", "the line opened")
        assert h.app.ui.turned != turned  # "e" may begin "exit": the turn stands yet
        h.keys("pair cart @me")
        h.wait_for(lambda: h.app.input_area.text == "repair cart @me", "the word whole on the line")
        assert h.app.ui.turned == turned  # the r's turn taken back
        h.keys("\x1b")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        time.sleep(0.5)  # past the key's wait for an "l" after it
        h.keys("c")
        h.wait_for(lambda: h.app.input_area.text == "say ", "the chat line")
        time.sleep(0.5)
        h.keys("lear")
        h.wait_for(lambda: h.app.input_area.text == "say lear", "what may yet be said")
        h.keys(" cart with 1,2")
        h.wait_for(lambda: h.app.input_area.text == "clear cart with 1,2", "the Clear move on the line")

    harness.play(script)


def test_a_rounds_thefts_show_who_stole_and_who_was_robbed_as_it_happened():
    """A seat that robbed one player and was robbed by another read as neither (the two were
    netted), and the final ranking said "r1 +4 robbed 1" of a seat robbed twice that stole
    once.  Each seat's thefts, by it and from it, show apart."""
    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import render_ranking, render_round_end
    from saboteur_p2p.rules import RoundStarted, Stolen

    state, agent, _ = followed_game(1, players=5, edition="saboteur2")  # round 3: 1 robs 2, 2 robs 1, 0 robs 1
    snap = agent.snapshot()
    thefts: dict[int, list[tuple[int, int]]] = {}
    number = 0
    for event in state.events:
        if isinstance(event, RoundStarted):
            number = event.round
        elif isinstance(event, Stolen) and event.victim is not None:
            thefts.setdefault(number, []).append((event.thief, event.victim))
    assert thefts[3] == [(1, 2), (2, 1), (0, 1)]
    for summary in snap.rounds:
        done = thefts.get(summary.round, [])
        assert summary.stole == tuple(sum(t == seat for t, _ in done) for seat in range(5))
        assert summary.robbed == tuple(sum(v == seat for _, v in done) for seat in range(5))
    third = snap.rounds[2]
    roomy = "".join(t for _, t in render_round_end(third, snap, 90, 30))
    p1 = roomy.split(" p1: ")[1].split("\n")[1]
    p2 = roomy.split(" p2: ")[1].split("\n")[1]
    assert "· stole a piece · robbed of 2 pieces ·" in p1, roomy
    assert "· stole a piece · robbed of a piece ·" in p2, roomy
    compact = "".join(t for _, t in render_round_end(third, snap, 30, 20)).splitlines()
    row = next(line for line in compact if line.startswith(" p2 "))
    assert row.split()[-2].endswith("+st-st"), compact
    ranking = render_ranking(snap, 200)
    line = next(line for line in ranking.splitlines() if " p1 " in line)
    assert "r3 gold stole 1 robbed 2" in line, line


def test_the_help_says_which_sides_each_double_curve_joins():
    """The legend said "╱ ╲ two curves that do not meet": not which sides each joins, where
    the glyph is the wall between the two curves, not a tunnel."""
    from saboteur_p2p.client.guide import help_text
    from saboteur_p2p.client.maze import cell_rows
    from saboteur_p2p.rules.cards import E, N, S, W

    side = {N: "north", E: "east", S: "south", W: "west"}
    lines = help_text("saboteur2").splitlines()
    for one, other in (((N, E), (S, W)), ((N, W), (S, E))):
        glyph = cell_rows((one[0] | one[1], other[0] | other[1]))[1][2]  # as the maze draws the card
        line = next(line for line in lines if f"{glyph} two curves" in line)
        for a, b in (one, other):
            assert f"{side[a]} to {side[b]}" in line, line


def test_what_says_the_saboteur_2_rules_the_engine_plays_by():
    """`what` left out that a trapped player is paid no gold and may clear the Trapped! with
    two cards, that a trapped player may not play a Theft, and that who plays Swap your hand
    does not draw.  Each text says it, and the engine is checked to do what it says."""
    from test_client_controller import find2

    from saboteur_p2p.client.cardinfo import card_does
    from saboteur_p2p.rules import ActionCard, ActionKind, Clear, PlayOn
    from saboteur_p2p.rules.scoring2 import score_round, theft_order

    def does(kind: ActionKind) -> str:
        return card_does(ActionCard(kind), "saboteur2")

    trapped = does(ActionKind.TRAPPED)
    assert "paid no gold" in trapped and "steal nothing" in trapped and "nor a Theft" in trapped
    assert "Free at last!" in trapped and "two cards to clear it" in trapped
    assert "if you are not trapped" in does(ActionKind.THEFT)
    assert "you do not draw after it, they draw a card" in does(ActionKind.SWAP_HAND)

    # a trapped seat is paid nothing, crystals and all, and steals nothing with its Theft
    from saboteur_p2p.rules import Role
    roles = [Role.SABOTEUR, Role.SABOTEUR, Role.GEOLOGIST, Role.BLUE_DIGGER]
    outcome = score_round(roles, None, None, [True, False, True, False], crystals=4)
    assert outcome.gold[0] == 0 < outcome.gold[1] and outcome.gold[2] == 0
    assert theft_order([5, None, None, 3], [True, False, False, False]) == [3]

    def trapped_with_theft(s) -> bool:
        p = s.current
        return s.phase.value == "play" and s.trapped[p] is not None and s.thefts[p] is None and any(
            isinstance(s.faces[h], ActionCard) and s.faces[h].kind is ActionKind.THEFT for h in s.hands[p])

    state = find2(trapped_with_theft)
    legal = state.legal_actions()
    assert not any(isinstance(a, PlayOn) and a.kind is ActionKind.THEFT for a in legal)
    assert any(isinstance(a, Clear) and a.what == "trapped" for a in legal)

    def may_swap(s) -> bool:
        return len(s.draw_pile) > 0 and any(isinstance(a, PlayOn) and a.kind is ActionKind.SWAP_HAND
                                            for a in s.legal_actions())

    state = find2(may_swap)
    swap = next(a for a in state.legal_actions() if isinstance(a, PlayOn) and a.kind is ActionKind.SWAP_HAND)
    player, other = state.current, swap.target
    theirs = list(state.hands[other])
    mine = [h for h in state.hands[player] if h != swap.card]
    state.play(swap)
    assert sorted(state.hands[player]) == sorted(theirs)  # no draw
    assert len(state.hands[other]) == len(mine) + 1 and set(mine) < set(state.hands[other])  # they draw one


def test_a_map_typed_for_a_goal_already_known_says_so_and_stays_legal():
    """`map 2 0` on a goal the player had looked at already was taken silently: a card
    spent on nothing new.  The inline check and the message after it say the goal is known;
    the move is still legal, and sent once the same line comes again (as the keys ask once:
    play-test 20 found the warning gone under the bots' moves within a second)."""
    from test_client_controller import find, said, seated

    from saboteur_p2p.client.model import goal_faces
    from saboteur_p2p.rules import MapPeek

    def map_known(s) -> bool:
        known = goal_faces(s.view_for(s.current))
        return s.phase.value == "play" and any(isinstance(a, MapPeek) and a.goal in known for a in s.legal_actions())

    state = find(map_known)
    _agent, _node, ctl = seated(state)
    known = goal_faces(state.view_for(state.current))
    peek = next(a for a in state.legal_actions() if isinstance(a, MapPeek) and a.goal in known)
    line = said(state, peek)
    kind, check = ctl.assess(line)
    assert kind == "ok" and check.startswith(f"✓ legal: {line}") and f"you know goal {peek.goal} already" in check
    assert not ctl.command(line) and "Enter again" in ctl.ui.message
    assert ctl.command(line)
    assert ctl.ui.message.startswith(f"played: {line}") and f"you know goal {peek.goal} already" in ctl.ui.message


def test_a_seat_stopped_while_its_table_waits_says_so_and_how_to_come_back():
    """Ctrl-C on the bot playing for a person who left a join table printed "you left the table
    before the end", yet the table waited, and the same join took the seat back (a play-test)."""
    from saboteur_p2p.client.runner import ClientRun, _closing

    stopped = ClientRun(None, None, True, True)
    said = _closing(stopped, dropped=True)
    assert said.startswith("you stopped your seat before the end: the table waits for it")
    assert "the same command takes it back" in said
    assert _closing(stopped).startswith("you left the table before the end")  # a table that ends with us


def test_the_plain_prompts_help_in_saboteur_2_leaves_out_the_base_games_gold_moves():
    """--plain in Saboteur 2 listed "keep 1 · take 3+2", the base game's gold moves (a play-test)."""
    from saboteur_p2p.client.plain import HELP, HELP_2, PlainAgent

    said: list[str] = []
    agent = PlainAgent(said.append)
    agent._tell_help("saboteur2")
    assert "keep 1" not in said[0] and "take 2+1" not in said[0] and "orient 1" in said[0] and said[1] == HELP_2
    said.clear()
    agent._tell_help("base")
    assert said == [HELP] and "take 2+1" in HELP


def test_legal_lists_the_passes_in_hand_slot_order():
    """"pass: 4 · 5 · 6 · 3 · 1 · 2" came in the engine's order of the cards (a play-test)."""
    from saboteur_p2p.client.commands import legal_lines

    lines = legal_lines(["path 2 at 1,0", "pass 4", "pass 5", "pass 6", "pass 3", "pass 1", "pass 2", "map 2 1", "map 2 0"])
    assert "pass: 1 · 2 · 3 · 4 · 5 · 6" in lines and "map: 2 0 · 2 1" in lines and lines[0] == "path 2 at 1,0"


def test_a_player_may_be_named_by_the_seat_number_the_players_list_shows():
    """"@3" was refused, though the players list numbers the seats (a play-test); a name
    that begins with the number still goes first."""
    from test_client_controller import find

    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import BreakTool

    state = find(lambda s: s.phase.value == "play" and any(isinstance(a, BreakTool) for a in s.legal_actions()))
    seat = state.current
    other = (seat + 1) % state.players
    names = [f"p{i}" for i in range(state.players)]
    assert Words(state.view_for(seat), names).player(str(other)) == other
    with pytest.raises(InvalidActionError, match="no player called '9'"):
        Words(state.view_for(seat), names).player("9")
    numbered = [*names[:other], "3rd", *names[other + 1:]]
    assert Words(state.view_for(seat), numbered).player("3") == other  # the name begun with 3


def test_a_typo_of_an_alias_suggests_the_word_typed_not_the_engines():
    """"discrad 6" suggested "pass" (the engine's verb) rather than "discard" (a play-test)."""
    from test_client_controller import find

    from saboteur_p2p.client.words import Words

    state = find(lambda s: s.phase.value == "play")
    words = Words(state.view_for(state.current), [f"p{i}" for i in range(state.players)])
    with pytest.raises(InvalidActionError) as typo:
        words.read("discrad 6")
    assert "did you mean discard? discard SLOT, e.g. discard 4" in str(typo.value)
    with pytest.raises(InvalidActionError) as other:
        words.read("pas 6")
    assert "did you mean pass? pass SLOT" in str(other.value)


def test_the_final_ranking_names_each_rounds_winners_and_saboteurs_plainly():
    """"rounds: 1 saboteurs won · 2 saboteurs won" read as counts, and the last screen never
    said who the saboteurs had been (found by a play-test)."""
    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import render_ranking
    from saboteur_p2p.rules import Role

    state, agent, _ = followed_game(2, players=5)
    snap = agent.snapshot()
    ranking = render_ranking(snap, 200).splitlines()
    won = next(line for line in ranking if line.startswith("won: "))
    assert won == "won: " + " · ".join(f"r{r.round} {r.winners.removeprefix('the ').removesuffix(' won')}"
                                       for r in snap.rounds)
    assert [r.round for r in snap.rounds] == [1, 2, 3] and " saboteurs won" not in won
    # the rounds' columns count others' gold cards, the totals nuggets: said, so they need not add up
    assert ranking[0] == "Game over · nuggets · each round: gold cards received"
    saboteurs = next(line for line in ranking if line.startswith("saboteurs: "))
    for result in state.results:
        named = [("you" if s == 0 else f"p{s}") for s, role in enumerate(result.roles) if role is Role.SABOTEUR]
        assert f"r{result.round} {', '.join(named) or 'none'}" in saboteurs, saboteurs
    narrow = render_ranking(snap, 40).splitlines()
    assert all(len(line) <= 40 for line in narrow if line.startswith(("won", "saboteurs")))
    # one line each, whatever the rounds: ten players' ranking still fits 24 rows (found by review)
    assert sum(line.startswith(("won: ", "saboteurs: ")) for line in narrow) == 2 and not any(
        line.startswith("  r") for line in narrow)  # no line of theirs wrapped


def test_a_ranking_too_long_for_an_80x24_screen_keeps_each_seats_total_on_one_line():
    """Ten players' rounds, wrapped, overflowed the screen: the winners and the key line went
    first (found by review).  Past RANKING_ROWS the seats keep their totals alone."""
    import dataclasses

    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import RANKING_ROWS, render_ranking

    _, agent, _ = followed_game(3, players=10)
    snap = agent.snapshot()
    many = [dataclasses.replace(snap.rounds[i % len(snap.rounds)], round=i + 1) for i in range(10)]
    long = dataclasses.replace(snap, rounds=tuple(many))
    lines = render_ranking(long, 76).splitlines()
    assert len(lines) <= RANKING_ROWS and lines[-1] == "q leaves · Esc looks at the board", lines
    seats = [line for line in lines if ". " in line[:6]]
    assert len(seats) == 10 and not any("(r1" in line for line in seats), seats
    assert any(line.startswith("won: r1 ") and line.endswith("…") for line in lines), lines
    assert len({line.index(". ") for line in seats}) == 1, seats  # "10." beside " 9.": one column (review)
    short = render_ranking(snap, 76).splitlines()  # three rounds still fit, rounds and all
    assert any("(r1 " in line for line in short), short
