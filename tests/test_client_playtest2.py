"""Defects a second play-test found in the client, each pinned by a test that failed before
its fix: keys taken for typing, the log's scroll, words in the panels, typed moves, Tab."""
from __future__ import annotations

import time

from test_client_app import ENTER, Harness


def test_a_page_opened_from_the_command_line_closes_onto_the_board_and_typed_words_never_act_as_keys():
    """`:help`, Esc, then `pass 2` played a path card; `what 3` then `x` discarded card 3.
    The page closes onto the board (a digit then picks a card), where a word typed goes to
    the command line whole."""
    harness = Harness(seed=1)
    seen: dict[str, str] = {}

    def script(h: Harness) -> None:
        h.decision()
        board = h.screen().splitlines()[-1]
        seen["board"] = board
        h.keys(":help" + ENTER)
        h.wait_for(lambda: h.app.ui.help_open, "the help")
        h.keys("\x1b")
        h.wait_for(lambda: not h.app.ui.help_open, "the help to close")
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board again")
        h.keys("pass 2")
        h.wait_for(lambda: h.app.input_area.text == "pass 2", "the typed line")
        assert h.app.ui.sent_for is None and h.played_by_me() == []
        h.keys("\x1b")  # back to the board; the half-typed line goes
        h.wait_for(lambda: h.app.application.layout.has_focus(h.app.maze_window), "the board")
        assert h.app.input_area.text == ""
        h.keys("what 3x")  # a word typed on the board goes to the command line whole
        h.wait_for(lambda: h.app.input_area.text == "what 3x", "the word on the command line")
        time.sleep(0.05)
        assert h.app.ui.sent_for is None and h.played_by_me() == []

    harness.play(script)
    from saboteur_p2p.client.app import KEYS_PROMPT

    # on the board the bottom line says that keys act, not a bare ": " prompt
    assert seen["board"].strip() != ":" and seen["board"].startswith(KEYS_PROMPT[:20])


def _view_with(kind: str):
    """A base-game seat to move holding a card of this action kind, and its controller."""
    from test_client_controller import action_of, find, holding, seated

    from saboteur_p2p.rules import ActionKind

    state = find(lambda s: holding(s, action_of(ActionKind(kind))))
    return state, seated(state)


def test_a_map_is_typed_by_goal_alone_or_by_its_hand_slot_and_goal_as_the_help_shows():
    """`map 5 1`, `map 5 goal 1` and the help's own `map 5 (goal 1)` were "cannot read"."""
    from test_client_controller import action_of, index_of

    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import ActionKind, InvalidActionError

    state, (agent, _node, ctl) = _view_with("map")
    snap = agent.snapshot()
    words = Words(snap.view, snap.names)
    slot = index_of(ctl, action_of(ActionKind.MAP)) + 1
    handle = snap.view.hand[slot - 1][0]
    for typed in (f"map {slot} 1", f"map {slot} goal 1", f"map {slot} (goal 1)"):
        assert words.read(typed) == f"map 1 #{handle}", typed
        state.clone().play(words.read(typed), player=state.current)  # the engine takes it
    assert words.read("map 1") == words.read("map goal 1") == "map 1"
    other = next(i + 1 for i, (_, card) in enumerate(snap.view.hand) if i + 1 != slot)
    for typed, why in ((f"map {other} 1", f"card {other} is not a Map"), ("map 7", "there is no goal 7")):
        try:
            words.read(typed)
        except InvalidActionError as exc:
            assert why in str(exc) and "cannot read" not in str(exc), exc
        else:
            raise AssertionError(typed)


def test_every_move_the_help_shows_is_read_by_the_parser():
    """The help and the parser agree: no example on the help page is "cannot read"."""
    import re

    from test_client_controller import find, find2

    from saboteur_p2p.client.commands import COMMAND_WORDS
    from saboteur_p2p.client.guide import help_text
    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import InvalidActionError

    for edition, state in (("base", find(lambda s: s.phase.value == "play")),
                           ("saboteur2", find2(lambda s: s.phase.value == "play"))):
        view = state.view_for(state.current)
        words = Words(view, ["bob", "ann", "cy", "dan", "eve"][: state.players])
        page = help_text(edition)
        section = page[page.index("Typed commands"):].split("\n\n")[0].splitlines()[1:]
        examples = [part for line in section for part in re.split(r"\s{2,}", line.strip()) if part]
        assert any(example.startswith("map 5") for example in examples)
        for example in examples:
            typed = re.sub(r"\s*\((?!goal)[^)]*\)", "", example).strip()
            if not typed or typed.split()[0] in (*COMMAND_WORDS, "say", "what", "info"):
                continue
            try:
                words.read(typed)
            except InvalidActionError as exc:
                assert "cannot read" not in str(exc), (edition, example, str(exc))


def test_a_typo_is_answered_whole_with_the_verb_it_is_nearest_and_too_many_discards_say_so():
    """`paht 5 at 2,0` was cut off even at 120 columns; `pass 1,2,3,4` was "cannot read"."""
    from test_client_controller import find, find2

    from saboteur_p2p.client.render import message_rows
    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import InvalidActionError

    def refusal(words: Words, typed: str) -> str:
        try:
            words.read(typed)
        except InvalidActionError as exc:
            return str(exc)
        raise AssertionError(typed)

    two = find2(lambda s: s.phase.value == "play" and len(s.hands[s.current]) >= 4)
    words = Words(two.view_for(two.current), [f"p{i}" for i in range(two.players)])
    typo = refusal(words, "paht 5 at 2,0")
    assert "did you mean path?" in typo
    for width in (80, 120):
        shown = " ".join(message_rows("not allowed: " + typo, width)).split()
        assert shown == ("not allowed: " + typo).split(), width  # every word, none cut
    assert refusal(words, "pass 1,2,3,4") == "at most three cards are discarded at once"
    base = find(lambda s: s.phase.value == "play")
    assert "one card at a time" in refusal(Words(base.view_for(base.current), ["a"] * base.players), "pass 1,2,3,4")


def test_what_tells_what_each_card_in_hand_does_in_both_editions():
    from test_client_controller import find, find2, seated

    from saboteur_p2p.match import card_words

    for state in (find(lambda s: s.phase.value == "play"), find2(lambda s: s.phase.value == "play")):
        agent, _node, ctl = seated(state)
        hand = agent.snapshot().view.hand
        for slot, (_, card) in enumerate(hand, start=1):
            assert ctl.command(f"what {slot}"), ctl.ui.message
            assert ctl.ui.message.startswith(f"{slot}: {card_words(card)}: ") and len(ctl.ui.message) > 30
            assert ctl.command(f"info {slot}")
        assert not ctl.command(f"what {len(hand) + 1}") and ctl.ui.message_kind == "error"
        assert agent.poll_move(_node) is None  # asking sends nothing


def test_tab_does_what_the_help_says_and_turns_a_card_that_fits_only_the_other_way():
    """Tab visits the cells where the card fits as it is turned now (the existing reading-order
    test pins that); the help said "where the card is legal" and Tab said "no legal cell"
    for a card that fits only turned."""
    from test_client_controller import find, seated

    from saboteur_p2p.client.guide import help_text
    from saboteur_p2p.client.model import ItemKind
    from saboteur_p2p.rules import PlacePath

    def placements(s, handle: int, turned: bool) -> set[tuple[int, int]]:
        return {a.cell for a in s.legal_actions() if isinstance(a, PlacePath) and a.card == handle and a.turned == turned}

    def fits_only_turned(s) -> bool:
        return s.phase.value == "play" and any(
            placements(s, h, True) and not placements(s, h, False) for h in s.hands[s.current])

    state = find(fits_only_turned, range(400))
    _agent, _node, ctl = seated(state)
    items = ctl.items(ctl.snapshot())
    index = next(i for i, item in enumerate(items) if item.kind is ItemKind.PATH
                 and placements(state, item.handle, True) and not placements(state, item.handle, False))
    ctl.pick(index)
    ctl.ui.turned = False  # as after r: upright, where it fits nowhere
    ctl.next_cell()
    assert ctl.ui.turned and ctl.ui.cursor in placements(state, items[index].handle, True)
    assert ctl.focus().option_legal and ctl.ui.message_kind != "error"
    assert "legal as it is turned\n             now" in help_text("base")
