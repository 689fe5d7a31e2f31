"""Found by a play-test of both editions at the table (2026-12-07): five to eight seats, the
full screen at 120x40, 80x24 and 60x20, and the plain prompt."""
from __future__ import annotations

import dataclasses

from test_client_controller import find
from test_client_render import text

from saboteur_p2p.client.model import Snapshot


def test_once_every_seat_is_taken_the_screen_says_the_cards_are_being_shuffled_and_dealt():
    """All seats filled, the log's last line `you are tester, at a table of 8`, and for 5-10 s
    the screen still said "waiting for the table" with the lobby's help: nothing said what was
    being waited for.  Once the game began (our seat given) it says the seats shuffle and deal."""
    from saboteur_p2p.client.render import render_status
    from saboteur_p2p.client.screens import render_lobby

    lobby = dataclasses.replace(Snapshot(), names=("tester", "heuristic-1"), table_size=8)
    assert "waiting for the table" in text(render_status(lobby, 100))
    assert any("Waiting for the table" in line for line in render_lobby(lobby, 80))
    begun = dataclasses.replace(lobby, seat=0, names=tuple(f"p{i}" for i in range(8)))
    assert "shuffling and dealing" in text(render_status(begun, 100))
    panel = "\n".join(render_lobby(begun, 80))
    assert "shuffle and deal" in panel and "Waiting for the table" not in panel and ":start" not in panel
    assert max(len(line) for line in render_lobby(begun, 60)) <= 60


def test_the_plain_prompt_says_the_draw_pile_our_gold_and_the_others_cards_and_gold():
    """`--plain` never showed the draw pile, our gold, or the others' cards in hand and gold
    cards, and no command did: a saboteur counts the pile."""
    from saboteur_p2p.client.plain import plain_view

    state = find(lambda s: s.phase.value == "play" and s.round >= 2 and any(s.gold_of[p] for p in range(s.players)))
    seat = state.current
    names = [f"p{i}" for i in range(state.players)]
    view = state.view_for(seat)
    line = next(line for line in plain_view(view, names) if line.startswith("draw pile: "))
    assert line.startswith(f"draw pile: {len(state.draw_pile)} card")
    assert f"your gold: {sum(card.nuggets for _, card in view.gold)} nuggets" in line
    held = line.split("cards in hand: ", 1)[1].split(", ")
    others = [s for s in range(state.players) if s != seat]
    assert [entry.split(" ")[:2] for entry in held] == [[f"p{s}", str(len(state.hands[s]))] for s in others]
    for s, entry in zip(others, held, strict=True):
        assert (f"({len(state.gold_of[s])} gold)" in entry) == bool(state.gold_of[s]), entry


def test_while_another_seat_chooses_gold_the_round_end_says_who_and_what_it_does():
    """"gold is being handed out" alone: with a bot delay of 3 s a player waited 25 s at the
    end of a round not knowing whose choice the table waited for."""
    from test_client_playtest9 import _screen_of_another_seat

    for phase, edition, doing in (("keep-gold", "base", "chooses a gold card to keep"),
                                  ("take-gold", "base", "takes gold from the pile"),
                                  ("steal", "saboteur2", "steals with a Theft")):
        state = find(lambda s, phase=phase: s.phase.value == phase, edition=edition)
        screen, app = _screen_of_another_seat(state)
        said = " ".join(" ".join(line.split("│")[-1].split()) for line in screen.splitlines()[1:])  # the side panel
        name = app.agent.snapshot().name(state.current)  # type: ignore[attr-defined]
        assert f"gold is being handed out: {name} {doing}" in said, (phase, screen)


def test_a_typed_map_on_a_goal_already_known_asks_once_as_the_keys_do():
    """`:map 0` on a goal this player had mapped was sent at once: the inline check's "you
    know goal 0 already" went under the bots' moves within a second, and the card was spent on
    nothing new.  The keys ask once; so does the typed line, and the same line again plays it."""
    from test_client_controller import holding, seated
    from test_client_controller2 import action_of

    from saboteur_p2p.rules import ActionKind, MapPeek

    def knows_one(s):
        known = s.view_for(s.current).known_goals
        return holding(s, action_of(ActionKind.MAP)) and any(
            isinstance(a, MapPeek) and a.goal in known for a in s.legal_actions())

    state = find(knows_one, seeds=range(400))
    agent, node, ctl = seated(state)
    known = state.view_for(agent.seat).known_goals
    goal = next(a.goal for a in state.legal_actions() if isinstance(a, MapPeek) and a.goal in known)
    assert not ctl.command(f"map {goal}") and agent.poll_move(node) is None
    assert ctl.ui.message.startswith(f"you know goal {goal} already (") and "Enter again" in ctl.ui.message
    assert ctl.command(f"map {goal}")
    played = state.check(agent.poll_move(node))
    assert isinstance(played, MapPeek) and played.goal == goal


def test_tab_with_no_card_picked_says_to_pick_one_first():
    """Tab with no card picked did nothing and said nothing, while Enter, x and r each say
    "pick a card first"."""
    from test_client_controller import seated

    state = find(lambda s: s.phase.value == "play")
    _agent, _node, ctl = seated(state)
    assert ctl.selected_item(ctl.snapshot()) is None
    ctl.next_cell()
    assert ctl.ui.message.startswith("pick a card first") and "Tab" in ctl.ui.message, ctl.ui.message


def test_the_last_round_end_says_the_totals_are_nuggets_beside_the_cards_won():
    """At the game's end the others' totals are nuggets ("3c" won, "8" in all), while the
    legend still said only "others: c gold cards"."""
    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board, Role

    roles = (Role.GOLD_DIGGER,) * 8 + (Role.SABOTEUR,) * 4
    snap = dataclasses.replace(Snapshot(), seat=0, names=tuple(f"player-{i}" for i in range(12)))
    for totals, told in ((("3",) + ("2c",) * 11, False), (("3",) + ("8",) * 11, True)):
        summary = RoundSummary(3, 3, "gold-diggers won", roles, Board.new_round(), {}, ("3c",) * 12, totals, settled=True)
        lines = "".join(text for _, text in render_round_end(summary, snap, 27, 30)).splitlines()
        assert any(line.strip() == ("yours, totals: nuggets" if told else "yours: nuggets") for line in lines), lines
        assert any("others: c gold cards" in line for line in lines), lines


def test_the_leave_question_says_what_leaving_does_at_this_table():
    """`q` asked "Leave the table? ... yes, tell the table and leave", and only after `y` came
    "you left the table; the game ends": at a table of bots it cannot be taken back.  The
    session tells the client what leaving does there (the game ends, or a bot plays on), and
    the question says it."""
    from saboteur_p2p.client.agent import ClientAgent
    from saboteur_p2p.client.screens import LEAVE_QUESTION, leave_question

    agent = ClientAgent()
    assert leave_question(agent.snapshot()) == LEAVE_QUESTION  # not told: as before
    for on_leave, says in (("end", "the game ends for everyone"), ("bot", "a bot plays your seat to the end")):
        agent.leaving_means(on_leave)
        question = leave_question(agent.snapshot())
        assert question.startswith("Leave the table?") and f"y or Ctrl-C  yes, leave: {says}" in question
