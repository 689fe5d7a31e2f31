"""A seat checks, while it waits, the shares published for the cards of the seat before it
(``ShareBook.precheck``, run by ``Node.prepare``): when that seat plays one, its turn comes
next and would wait for the check.  A share that fails such an early check is blamed when
its card is shown, as it was without it (protocol.md §6.8)."""
from __future__ import annotations

from typing import Any

import pytest
from protocol_helpers import bend_first_played_share, game_at, hear, path_first

from saboteur_p2p.protocol.errors import ProtocolViolation


def _held_by(node: Any, holder: int) -> list[tuple[Any, int]]:
    """The unchecked public shares ``node`` holds of cards first shown to ``holder``."""
    return [key for key, (need, _, _) in node.share_book.unchecked.items() if need.audience == frozenset({holder})]


def test_the_seat_after_a_holder_checks_the_shares_of_its_cards_while_it_waits() -> None:
    """The local game lets every seat that does not speak next work while it waits
    (``Node.prepare``), as a session does: by the first move, the seat after the mover has
    checked the shares of the mover's cards, the other seats have not; and the move that
    shows one of the cards leaves that seat nothing to check on its turn's path."""
    game = game_at("move")
    players = len(game.nodes)
    mover = game.spectator.next_expected.speaker
    after = game.nodes[(mover + 1) % players]
    others = [game.nodes[s] for s in range(players) if s not in (mover, (mover + 1) % players)]
    assert others and all(_held_by(other, mover) for other in others)
    assert _held_by(after, mover) == []
    assert not after.prepare() or _held_by(after, mover) == []
    checks: list[tuple[Any, int]] = []
    book = after.share_book
    honest_check = book._held_check

    def counted(sender: int, card: Any, waiting: Any) -> Any:
        checks.append((card, sender))
        return honest_check(sender, card, waiting)

    book._held_check = counted  # type: ignore[method-assign]
    move = game.nodes[mover].move(path_first(mover, game.nodes[mover]))
    verdicts = hear(game, move, mover)
    assert all(v is None for v in verdicts.values()), verdicts
    assert checks == []  # the card's showing left nothing to check on this seat's path
    assert after.aborted is None


def test_a_share_that_fails_its_early_check_is_blamed_when_its_card_is_shown() -> None:
    """Seat 2 publishes a false share of the card seat 0 plays first; seat 0 colludes.  Seat 1,
    which moves after seat 0, finds it false while it waits, says nothing yet (the card may
    never be shown), and names seat 2 when seat 0 shows the card, as the spectator named
    it at once."""
    game = game_at("dealt-shares")
    seats = game.nodes
    card = bend_first_played_share(game, 0, 2)
    while (head := seats[1].next_expected) is not None and head.kind != "action":
        made = seats[head.speaker].produce()
        assert made is not None
        hear(game, made, head.speaker)
    assert game.spectator.aborted is not None and (game.spectator.aborted.peer, game.spectator.aborted.reason) == (2, "bad-share")
    assert (card, 2) in seats[1].share_book.unchecked
    while seats[1].share_book.precheck(0):
        pass
    assert seats[1].aborted is None  # nothing said yet
    assert (card, 2) in seats[1].share_book.failed_early and (card, 2) in seats[1].share_book.unchecked
    move = seats[0].move(path_first(0, seats[0]))
    with pytest.raises(ProtocolViolation) as named:
        seats[1].receive(move)
    assert (named.value.peer, named.value.reason) == (2, "bad-share")
    assert seats[1].aborted is named.value
