"""``r`` (turn the picked card) and ``m`` (mark it) act the moment they are pressed; a next
key that goes on with a command word (``repair``, ``map``) takes their work back and opens
the command line with both.  Before, they waited 0.3 s to tell (a play-test: "r waits")."""
from __future__ import annotations

from test_client_app import Harness, can_place, seed_where

from saboteur_p2p.client.boardkeys import TakeBack
from saboteur_p2p.client.model import UIState


def test_a_taken_back_key_puts_back_what_it_changed_and_only_when_a_word_goes_on() -> None:
    ui = UIState()
    back = TakeBack(ui, 60.0)

    def turn() -> None:
        ui.turned = not ui.turned
        ui.say("turned 180°")

    back.act("r", turn)
    assert ui.turned and ui.message == "turned 180°"  # at once
    assert back.goes_on("r", "e", continues=True) == "re"
    assert not ui.turned and ui.message == ""  # as before the key
    back.act("r", turn)
    assert back.goes_on("r", "x", continues=False) is None and ui.turned  # no word: the turn stays
    assert back.goes_on("r", "e", continues=True) is None and ui.turned  # only the very next key
    back.act("m", lambda: ui.marked.append(7))
    assert back.goes_on("r", "a", continues=True) is None and ui.marked == [7]  # another key's word
    late = TakeBack(ui, 0.0)
    late.act("r", turn)
    assert late.goes_on("r", "e", continues=True) is None  # after the wait, a key of its own


def test_r_and_m_start_no_two_key_binding_the_keys_that_open_something_still_wait() -> None:
    harness = Harness(seed_where(can_place))

    def script(h: Harness) -> None:
        firsts = {b.keys[0] for b in h.app.application.key_bindings.bindings if len(b.keys) == 2}
        assert "r" not in firsts and "m" not in firsts  # nothing to wait for: they act at once
        assert {"q", "R"} <= firsts  # quit and the rules page open a box: they wait for the word
        turned = h.turn_a_path_card()
        h.keys("re")  # turned back, and the word begun
        h.wait_for(lambda: h.app.input_area.text == "re", "'re' on the command line")
        assert h.app.ui.turned != turned  # as the first r left it: the second r's turn taken back
        h.exit()

    harness.play(script)
