"""What a card does, in a line or two, for the ``what N`` command (both editions).

The card's name comes from ``match.card_words`` ("break lantern", "path ┼ (ladder)"); what
follows it is the rule in brief, as docs/rules.md has it in full (``R`` shows the rules).
"""
from __future__ import annotations

from ..match import blind_end, card_words
from ..rules import ActionCard, ActionKind, Card, GoldCard, PathCard, PlayerView

#: what each action card does, played (Saboteur 2's seven kinds are in rules.md 8)
ACTION_DOES = {
    ActionKind.BREAK: "lay it before any player, you too: they may not lay path cards until a repair mends it",
    ActionKind.REPAIR: "mends that broken tool of any player, yourself too (one of the two tools it shows)",
    ActionKind.MAP: "look at a face-down goal card in secret: map 1 (goal 1), or map SLOT GOAL",
    ActionKind.ROCKFALL: "removes a path card from the maze (not the start or a goal): rockfall X,Y",
    ActionKind.THEFT: (
        "lay it before you, if you are not trapped: after the round's pay-out, if it still lies there, you may steal "
        "a gold piece from a player who has gold (a thief trapped then steals nothing)"
    ),
    ActionKind.HANDS_OFF: "removes a Theft lying before any player, you too (hands-off @name)",
    ActionKind.SWAP_HAND: (
        "swap your hand with another player's (swap-hand @name), even an empty one: you do not draw after it, "
        "they draw a card"
    ),
    ActionKind.INSPECTION: "look at another player's dwarf card in secret (inspection @name)",
    ActionKind.SWAP_HATS: "the player (you too) takes a new dwarf card in secret (swap-hats @name)",
    ActionKind.TRAPPED: (
        "lay it before another player who is not trapped: they may not lay path cards nor a Theft, and trapped at "
        "the round's end they are paid no gold and steal nothing; a Free at last! frees them, or they throw away "
        "two cards to clear it (clear trapped with 3,5)"
    ),
    ActionKind.FREE: "frees any player, you too, from a Trapped! (free @name)",
}


def card_does(card: Card, edition: str) -> str:
    """``break lantern: lay it before another player: ...``: the card's name and its rule."""
    name = card_words(card)
    if isinstance(card, ActionCard):
        if card.kind is ActionKind.REPAIR and len(card.tools) == 1:
            return f"{name}: mends that broken tool of any player, yourself too"
        return f"{name}: {ACTION_DOES[card.kind]}"
    if isinstance(card, GoldCard):
        return f"{name}: gold worth {card.nuggets} at the end of the game"
    if not isinstance(card, PathCard):
        return name
    where = "lay it beside a card so every side matches its neighbours (path SLOT at X,Y [turned])"
    extras = []
    if card.ladder:
        extras.append("a ladder joins the start wherever it lies")
    if card.door is not None:
        extras.append(f"a {card.door.value} door: a route through it keeps the other team out")
    if card.crystals:
        extras.append("a crystal pays the geologists")
    if blind_end(card):
        extras.append("a dead end: no tunnel goes through it (■ in the maze)")
    elif card.is_dead_end:
        extras.append("its one opening leads up the ladder: not a dead end")
    elif any(bin(segment).count("1") == 1 for segment in card.segments):
        extras.append("some of its openings are dead ends (╵ ╷ ╴ ╶ in the maze)")
    tail = "; ".join(extras)
    return f"{name}: {where}" + (f"; {tail}" if tail else "")


def slot_does(view: PlayerView, slot: str) -> tuple[bool, str]:
    """``what 3``: (True, what the card in hand slot 3 does), or (False, how to ask)."""
    hand = view.hand
    if not slot.strip().isdigit() or not 1 <= int(slot) <= len(hand):
        return False, f"what N: what the card in slot N of your hand does ({f'1-{len(hand)}' if hand else 'you hold no cards'})"
    return True, f"{int(slot)}: {card_does(hand[int(slot) - 1][1], view.config.edition)}"
