"""A card keeps its slot in the hand strip while the card drawn after a play is still on its
way (at a table, its face comes with the other seats' shares, after the move): the slot
the played card left waits for it.  Before, the strip closed the gap and the drawn card
came in at the end, so every card after the played one lost a number for good."""
from __future__ import annotations

from test_client_controller import find, holding, is_path, seated

from saboteur_p2p.rules import PlacePath


def test_the_cards_keep_their_slots_while_the_drawn_card_is_unseen() -> None:
    state = find(lambda s: holding(s, is_path) and len(s.draw_pile) > 0)
    agent, _node, ctl = seated(state)
    seat = state.current
    before = [item.handle for item in ctl.items(ctl.snapshot())]
    played = next(a for a in state.legal_actions() if isinstance(a, PlacePath))
    slot = before.index(played.card)
    state.push(played)
    (drawn,) = [h for h in state.hands[seat] if h not in before]
    face = state.faces.pop(drawn)  # not shown to this seat yet
    agent.heard(state)
    waiting = [item.handle for item in ctl.items(ctl.snapshot())]
    assert drawn not in waiting and len(waiting) == len(before) - 1
    kept = [h for h in before if h != played.card]
    assert waiting == kept
    # the strip shows the cards held (the ones after the gap move up for the moment the
    # shares take to come, milliseconds at a table) ...
    state.faces[drawn] = face  # the shares came: the card is shown to us
    agent.heard(state)
    after = [item.handle for item in ctl.items(ctl.snapshot())]
    assert after[slot] == drawn  # ... and the drawn card fills the slot the played one left
    assert [h for i, h in enumerate(after) if i != slot] == [h for i, h in enumerate(before) if i != slot]
