"""Defects a fifth play-test found (120x40 and 80x24, base game against bot peers), each
pinned by a test that failed before its fix: hand slots that shifted after every play, keys
typed on after closing a round's end played in the new round unseen, a "not your move" that
stayed into our move, a half-typed word shown as unreadable, and `path 6 1,0` refused."""
from __future__ import annotations

import time

from test_client_app import ENTER, Harness, play_out
from test_client_controller import find, holding, is_path, seated

from saboteur_p2p.client.model import steady_slots
from saboteur_p2p.client.words import Words
from saboteur_p2p.rules import PlacePath


def test_a_card_keeps_its_slot_while_held_and_a_drawn_card_takes_the_slot_left():
    assert steady_slots([], [7, 3, 9]) == [7, 3, 9]  # a new hand: as dealt
    assert steady_slots([7, 3, 9, 12], [3, 9, 12, 20]) == [20, 3, 9, 12]  # 7 played, 20 drawn
    assert steady_slots([7, 3, 9, 12], [7, 9, 12]) == [7, 9, 12]  # 3 played, nothing left to draw
    assert steady_slots([7, 3, 9], [9, 1, 2, 5]) == [1, 2, 9, 5]  # a hand swapped in part
    assert steady_slots([7, 3], [4, 6]) == [4, 6]


def test_the_hand_strip_keeps_each_card_in_its_slot_after_a_play():
    """Playing card 1 moved card 2 to slot 1: a key pressed for it picked a Break instead."""
    state = find(lambda s: holding(s, is_path) and len(s.draw_pile) > 0)
    agent, _node, ctl = seated(state)
    before = [item.handle for item in ctl.items(ctl.snapshot())]
    played = next(a for a in state.legal_actions() if isinstance(a, PlacePath))
    state.push(played)
    agent.heard(state)
    after = [item.handle for item in ctl.items(ctl.snapshot())]
    slot = before.index(played.card)
    assert [h for i, h in enumerate(after) if i != slot] == [h for i, h in enumerate(before) if i != slot]
    assert after[slot] not in before and len(after) == len(before)
    words = Words(ctl.snapshot().view, ctl.snapshot().names)  # type: ignore[arg-type]
    assert words.read(f"pass {slot + 2 if slot + 1 < len(after) else slot}").startswith("pass ")
    assert words.handles[slot + 1] == after[slot]  # what "slot N" names is what the strip shows there


def test_a_move_typed_on_right_after_closing_a_round_end_waits_for_a_look_at_the_new_hand():
    """':' closed the round's end screen, and 'pass 1' Enter typed at once discarded a card of
    a hand the player had never seen."""
    harness = Harness(seed=37)

    def script(h: Harness) -> None:
        play_out(h, lambda: h.round_end_open())
        h.wait_for(lambda: "ROUND 1/3 OVER" in h.screen(), "the round-end screen")
        h.wait_for(lambda: h.agent.snapshot().decision is not None and h.agent.snapshot().view.round == 2, "round 2")
        h.keys(":pass 1" + ENTER)  # typed ahead in one go: ':' closes the screen
        h.wait_for(lambda: "look at your new hand first" in h.app.ui.message, "the move held back")
        decision = h.agent.snapshot().decision
        assert decision is not None and h.app.ui.sent_for != decision.id
        h.wait_for(lambda: time.monotonic() >= h.app.ui.moves_after, "a look at the hand")
        h.keys(ENTER)  # the line is still there: now it plays
        h.wait_for(lambda: h.app.ui.sent_for == decision.id, "the move sent")
        h.exit()

    harness.play(script)


def test_not_your_move_goes_when_our_move_comes_and_a_half_typed_word_is_no_error():
    state = find(lambda s: holding(s, is_path))
    seat = (state.current + 1) % state.players
    agent, node, ctl = seated(state, seat)
    assert not ctl.attempt("pass 1", typed=True)
    assert ctl.ui.message.startswith("not your move") and ctl.ui.message_until_move
    ctl.focus()
    assert ctl.ui.message.startswith("not your move")  # still not
    state.push(state.legal_actions()[0])
    agent.heard(state)
    assert state.current == seat and agent.poll_move(node) is None  # our move is asked for
    ctl.focus()  # the next frame
    assert ctl.ui.message == ""
    kind, text = ctl.assess("pa")
    assert kind == "info" and text.startswith("Tab completes: ") and "path" in text and "cannot read" not in text
    assert ctl.assess("pxq 1")[1].startswith("cannot read")  # not the start of any word: said so
    words = Words(agent.snapshot().view, agent.snapshot().names)  # type: ignore[arg-type]
    assert words.read("path 1 2,0") == words.read("path 1 at 2,0")  # 'at' may be left out
