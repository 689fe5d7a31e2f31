"""Defects a play-test found (Saboteur 2 at 80x24 and the base game, against bot peers), each
pinned by a test that failed before its fix: the round's end explaining a team's win by "a
way without doors", thefts dropped from the final ranking or read as gold won, a seat's
rounds cut at the ranking box's edge, and no ◀ on our own row when a card targets us."""
from __future__ import annotations

from typing import Any

from saboteur_p2p.client.tracker import _doors
from saboteur_p2p.rules import Role
from saboteur_p2p.rules.board import Ways


class _Maze:
    """A maze reduced to what the doors leave open towards the treasure."""

    def __init__(self, blue: bool, green: bool, doorless: bool) -> None:
        self.ways = Ways(blue, green, doorless)

    def open_ways(self, target: Any) -> Ways:
        return self.ways


def test_a_team_digger_s_own_way_comes_first() -> None:
    """For a blue or green digger who reached the treasure, whether its own team's way was
    open (its team wins then, and only then): "the green team won · … a way without doors"
    read as if both teams should have."""
    treasure = (8, 0)
    open_to_all = _Maze(True, True, True)
    assert _doors(open_to_all, treasure, Role.GREEN_DIGGER) == "no blue door bars the green team's way"  # type: ignore[arg-type]
    assert _doors(open_to_all, treasure, Role.BOSS) == "a way without doors lets both teams win"  # type: ignore[arg-type]
    blue_only = _Maze(True, False, False)
    assert _doors(blue_only, treasure, Role.GREEN_DIGGER) == "blue doors bar the green team; the blue team's way is open"  # type: ignore[arg-type]
    assert _doors(blue_only, treasure, Role.BLUE_DIGGER) == "no green door bars the blue team's way"  # type: ignore[arg-type]
    assert _doors(blue_only, treasure, Role.PROFITEER) == "only the blue team gets past the doors"  # type: ignore[arg-type]
    shut = _Maze(False, False, False)
    for finder in (Role.BLUE_DIGGER, Role.SABOTEUR, None):
        assert _doors(shut, treasure, finder) == "the doors stop both teams"  # type: ignore[arg-type]
    assert _doors(open_to_all, None, Role.BLUE_DIGGER) == ""  # type: ignore[arg-type]  # nobody reached it


def test_the_final_ranking_shows_each_round_s_thefts() -> None:
    """A theft by a seat that won nothing (or an amount not shown to us) was dropped from the
    ranking's rounds ("r1 -"), and a robbed seat's round read as gold won ("-1")."""
    from saboteur_p2p.client.screens import _short

    assert _short("-", 1) == "stole 1"  # was "-"
    assert _short("gold", 1) == "gold stole 1" and _short("has gold", 0, 1) == "gold robbed 1"
    assert _short("0 gold pieces", 0, 1) == "robbed 1"  # was "-1", as if won
    assert _short("0 nuggets") == "-"  # as another seat's round with nothing won (was "+0")
    assert _short("4 gold pieces", 0) == "+4" and _short("-", 0) == "-"
    assert _short("2 nuggets", 0) == "+2" and _short("2 gold cards", 0) == "2 cards"


def test_a_seat_s_rounds_that_do_not_fit_go_on_under_them() -> None:
    from saboteur_p2p.client.screens import _packed

    rounds = [f"r{n} gold robbed 1" for n in range(1, 6)]
    lines = _packed("★ 1. heuristic-2  6 gold pieces", rounds, 60)
    assert len(lines) > 1 and all(len(line) <= 60 for line in lines)
    assert lines[0].startswith("★ 1. heuristic-2  6 gold pieces   (r1 gold robbed 1")
    indent = len("★ 1. heuristic-2  6 gold pieces   (")
    assert all(line.startswith(" " * indent + "r") for line in lines[1:])
    parts = "  ".join([lines[0].split("(", 1)[1], *(line.strip() for line in lines[1:])]).rstrip(")")
    assert parts.split("  ") == rounds  # every round, in order, none split
    assert _packed("★ 1. ann  3 gold pieces", ["r1 +3"], 60) == ["★ 1. ann  3 gold pieces   (r1 +3)"]


def test_a_card_played_on_ourselves_marks_our_own_row_as_its_target() -> None:
    """The ◀ that shows a card's target left out our own row in our turn (the ▶ kept it)."""
    from test_client_controller import picked_own_repair
    from test_client_render import text

    from saboteur_p2p.client.players import render_players

    agent, ctl = picked_own_repair()
    focus = ctl.focus()
    assert focus.target_player == agent.seat
    lines = text(render_players(agent.snapshot(), focus, 40)).splitlines()[1:]
    assert lines[agent.seat].startswith("◀"), lines
    assert not any(line.startswith("◀") for seat, line in enumerate(lines) if seat != agent.seat)


def test_the_round_end_screen_says_when_the_table_waits_for_our_choice() -> None:
    """Only "any key: to the table" hinted that the round's gold waited for us to keep or
    take it (or to steal, in Saboteur 2); another seat's choice still reads as gold handed out."""
    from test_client_controller import find
    from test_client_render import screen_of

    for phase, edition, words, keys in (("keep-gold", "base", "keep a gold card", "←→"),
                                        ("take-gold", "base", "take your gold", "↑↓"),
                                        ("steal", "saboteur2", "steal a gold piece", "↑↓")):
        state = find(lambda s, phase=phase: s.phase.value == phase, edition=edition)
        screen, _app = screen_of(state, 80, 24, round_end=True)
        lines = screen.splitlines()
        # the keys of the choice act at once (Enter makes it): "any key: to the table" was untrue
        assert f"OVER · your move: {words}: {keys} Enter · Esc: to the table" in lines[0], (phase, lines[0])
        panel = " ".join(line.split("│")[-1].strip() for line in lines[1:])
        assert f"your move: {' '.join(words.split())}" in panel, phase  # the side panel, in place of the note
        assert not any("gold is being handed out" in line for line in lines)
        others, _app = _screen_of_another_seat(state)
        assert "your move" not in others and "gold is being handed out" in others


def _screen_of_another_seat(state: object) -> tuple[str, object]:
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from test_client_controller import seated

    from saboteur_p2p.client.app import ClientApp

    seat = (state.current + 1) % state.players  # type: ignore[attr-defined]
    agent, _node, _ctl = seated(state, seat)  # type: ignore[arg-type]
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
        return app.render_text(80, 24), app


def _press(app: object, *keys: object) -> None:
    """Keys through the application's own key processor, as the terminal sends them."""
    import asyncio

    from prompt_toolkit.application.current import set_app
    from prompt_toolkit.key_binding.key_processor import KeyPress

    async def press() -> None:
        with set_app(app.application):  # type: ignore[attr-defined]
            processor = app.application.key_processor  # type: ignore[attr-defined]
            for key in keys:
                processor.feed(KeyPress(key))  # type: ignore[arg-type]
            processor.process_keys()

    asyncio.run(press())


def test_the_keys_of_our_gold_choice_act_under_the_round_end_screen() -> None:
    """Under the round's end, Enter and Down chose at once but Right (the next gold card to
    keep) and the digits only closed the screen.  They act on the hand strip's gold now, and
    the screen stays open: it closed as the choice was made, and the round's winners, roles
    and gold went unseen (a play-test)."""
    from prompt_toolkit.keys import Keys
    from test_client_controller import find
    from test_client_render import screen_of

    state = find(lambda s: s.phase.value == "keep-gold" and len(s.offered) >= 3)
    for keys, selected in (((Keys.Right,), 1), (("3",), 2), ((Keys.Right, Keys.Left), 0)):
        _screen, app = screen_of(state, 80, 24, round_end=True)
        assert app._round_end() is not None and app.controller.focus().selected == 0
        _press(app, *keys)
        assert app._round_end() is not None and app.controller.focus().selected == selected, keys
    _screen, app = screen_of(state, 80, 24, round_end=True)
    _press(app, Keys.ControlM)  # Enter keeps the card: the round's end is still there
    assert app._round_end() is not None and "OVER" in app.render_text(80, 24).splitlines()[0]


def test_gold_passed_to_us_is_shown_and_numbered_the_most_nuggets_first() -> None:
    """The offered gold came in the order drawn: the best card was anywhere in the strip and
    in `keep N` (a play-test)."""
    from test_client_controller import find

    from saboteur_p2p.client.model import SteadyHand, strip_items
    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import parse_action

    state = find(lambda s: s.phase.value == "keep-gold" and len({c.nuggets for _, c in s.view_for(s.current).offered}) >= 2)
    view = SteadyHand().view(state, state.current)
    worths = [card.nuggets for _, card in view.offered]
    assert worths == sorted(worths, reverse=True) and worths != sorted(worths)
    assert [item.handle for item in strip_items(view, True)] == [g for g, _ in view.offered]
    best = view.offered[0][0]
    typed = Words(view, [f"p{seat}" for seat in range(view.players)]).read("keep 1")
    assert parse_action(typed) == parse_action(f"keep {best}")
    state.play(typed)  # the engine takes it: the card kept is the best one offered


def test_what_names_a_one_tool_repair_without_two_tools_and_the_inspection_card_reads_as_such() -> None:
    from saboteur_p2p.client.cardinfo import card_does
    from saboteur_p2p.client.maze import ACTION_FACES
    from saboteur_p2p.rules import ActionCard, ActionKind, Tool

    one = card_does(ActionCard(ActionKind.REPAIR, (Tool.CART,)), "base")
    two = card_does(ActionCard(ActionKind.REPAIR, (Tool.CART, Tool.LANTERN)), "base")
    assert "two tools" not in one and "mends that broken tool" in one  # was "(one of the two tools it shows)"
    assert "one of the two tools it shows" in two
    assert " ".join(row.strip() for row in ACTION_FACES[ActionKind.INSPECTION][1:]) == "inspect a dwarf"  # not "a hat"


def test_the_info_panel_cuts_the_last_round_s_result_with_an_ellipsis() -> None:
    """The round's result in the side panel was cut at the panel's last row with no sign, so
    a theft from us at its end was lost unseen."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.render import render_info

    state = find(lambda s: s.round == 2 and s.phase.value == "play", edition="saboteur2")
    agent, _node, _ctl = seated(state)
    snap = agent.snapshot()
    assert snap.last_round.startswith("round 1: ")
    whole = "".join(t for _, t in render_info(snap, 26)).splitlines()
    base = next(i for i, line in enumerate(whole) if line.startswith(" round 1: "))
    assert len(whole) > base + 2 and "…" not in "".join(whole)  # room for all of it: all of it
    cut = "".join(t for _, t in render_info(snap, 26, base + 2)).splitlines()
    assert len(cut) == base + 2 and cut[:base + 1] == whole[:base + 1]
    assert cut[-1].rstrip().endswith("…") and len(cut[-1]) == 26


def test_the_steal_prompt_cuts_a_long_list_of_names_with_an_ellipsis() -> None:
    from test_client_controller import find
    from test_client_render import screen_of

    state = find(lambda s: s.phase.value == "steal", edition="saboteur2")
    screen, _app = screen_of(state, 60, 24)
    line = next(line for line in screen.splitlines() if "Your Theft" in line)
    assert len(line) <= 60 and line.rstrip().endswith("…"), line  # the names run on: said so


def test_our_own_total_on_the_round_end_table_follows_the_faces_of_our_gold_as_they_come() -> None:
    """At a table a gold card's face comes a little after the round ends: our row then said
    "won 1 nugget · total 0" while the side panel already counted the nugget."""
    from test_client_controller import find

    from saboteur_p2p.client.agent import ClientAgent
    from saboteur_p2p.client.local import LocalNode, LocalSetup

    state = find(lambda s: s.phase.value == "play" and s.round == 2 and any(s.gold_of))
    seat = next(s for s in range(state.players) if state.gold_of[s])
    hidden = {g: state.gold_faces.pop(g) for g in state.gold_of[seat]}  # not shown to us yet
    agent = ClientAgent()
    agent.start(seat, LocalNode(LocalSetup(state.config, tuple(f"p{i}" for i in range(state.players))), state))
    agent.heard(state)
    cards = len(hidden)
    assert agent.snapshot().rounds[0].totals[seat] == f"{cards} gold card" + ("" if cards == 1 else "s")  # not "0 nuggets"
    state.gold_faces.update(hidden)  # the faces come
    agent.heard(state)
    nuggets = sum(card.nuggets for card in hidden.values())
    first = agent.snapshot().rounds[0]
    assert first.won[seat] == first.totals[seat] == f"{nuggets} nugget" + ("" if nuggets == 1 else "s")
