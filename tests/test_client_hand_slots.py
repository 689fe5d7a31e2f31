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


def test_the_plain_prompt_numbers_the_hand_as_the_full_screen_client_does() -> None:
    """At --plain the cards after a played one moved up and the drawn card came last, while
    the full-screen client keeps each card's slot (found by a play-test): a player typing
    slots they remembered misplayed.  The prompt now keeps them too."""
    from saboteur_p2p.client.cardinfo import card_words
    from saboteur_p2p.client.plain import PlainAgent

    state = find(lambda s: holding(s, is_path) and len(s.draw_pile) > 0)
    seat = state.current
    said: list[str] = []
    agent = PlainAgent(said.append)
    agent.seat_no, agent.names = seat, [f"p{i}" for i in range(state.players)]

    def hand_shown(order: list[int]) -> str:
        return "hand: " + ", ".join(f"{n} {card_words(state.faces[h])}" for n, h in enumerate(order, 1)) + ";"

    agent._show(state)
    before = list(state.hands[seat])
    assert hand_shown(before) in said[0], said[0]
    played = next(a for a in state.legal_actions() if isinstance(a, PlacePath) and a.card != before[-1])
    state.push(played)
    (drawn,) = [h for h in state.hands[seat] if h not in before]
    said.clear()
    agent._show(state)
    assert hand_shown([drawn if h == played.card else h for h in before]) in said[0], said[0]
