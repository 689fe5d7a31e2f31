"""Whole games at the full-screen client, every move from the keyboard: the base game to
the final ranking, and a Saboteur 2 game to the ranking by gold pieces (the harness is
test_client_app.py's)."""
from __future__ import annotations

import re

import pytest
from test_client_app import ENTER, Harness, play_out

from saboteur_p2p.client.model import Snapshot
from saboteur_p2p.client.words import Words
from saboteur_p2p.rules import (
    ActionCard,
    ActionKind,
    CardPlayed,
    Clear,
    GoldReceived,
    Pass,
    PathCard,
    PlacePath,
    PlayOn,
    Stolen,
)


def test_a_whole_game_against_bots_to_the_end_with_scripted_input():
    """Every move from the keyboard: discards with keys, moves typed, gold and stones with Enter."""
    harness = Harness(seed=47)  # a deal where gold is passed to us once and we take gold once
    seen: dict[str, int] = {}

    def script(h: Harness) -> None:
        seen.update(play_out(h, lambda: h.table.result is not None or h.table.state.phase.value == "game-over"))
        h.finish()
        h.wait_for(lambda: h.app.snap.view is not None and h.app.snap.view.phase == "game-over", "the end")
        screen = h.screen()
        assert "Game over" in screen and "★ 1." in screen and " you " in screen and "(you)" not in screen
        # a line for each seat, with what it won in each round
        assert sum("(r1 " in line and " r2 " in line and " r3 " in line for line in screen.splitlines()) == 5, screen
        h.keys("q")  # a finished game closes without asking
        h.wait_for(h.closed, "the application to close")

    assert harness.play(script) == "done"
    result = harness.table.result
    assert result is not None and result.outcome == "finished"
    assert harness.table.state.scores == result.scores
    assert harness.agent.snapshot().view.scores == result.scores  # type: ignore[union-attr]
    assert seen.get("play", 0) >= 10 and len(harness.played_by_me()) >= 10
    assert seen.get("keep-gold") and seen.get("take-gold"), seen
    received = [e for e in harness.table.state.events if isinstance(e, GoldReceived) and e.player == 0]
    assert len(received) >= 2  # what we kept and what we took
    # each round's end was shown, until a key: its winners, the roles, our own line; one closed
    # while its gold was handed out opened again once the gold was out (play-test 22)
    shown = [[screen for screen in harness.round_ends if f"ROUND {number}/3 OVER" in screen] for number in (1, 2, 3)]
    assert all(shown) and sum(map(len, shown)) == len(harness.round_ends), harness.round_ends
    assert all(re.search(r"any key: (next round|final ranking)", screens[-1]) for screens in shown), shown
    for number, (screens, result) in enumerate(zip(shown, harness.table.state.results, strict=True), 1):
        screen = screens[-1]
        assert f"ROUND {number}/3 OVER" in screen and f"round {number}/3 is over" in screen
        assert f"the {result.winners.value.replace('-', ' ')}".replace("gold diggers", "gold-diggers") in screen or (
            "nobody won" in screen)
        assert "│ you " in screen


def saboteur2_keys(snap: Snapshot, turn: int) -> str:
    """The keys a Saboteur 2 player presses for this decision: every kind of turn by keys.

    A Theft first (to steal later), then clearing what lies in front of us with two marked
    cards, the other cards played on players, a ladder, and else three marked cards passed
    or a typed move.  Steals and every other phase take the highlighted choice (Enter).
    """
    view, legal = snap.view, snap.decision.legal  # type: ignore[union-attr]
    assert view is not None
    if view.phase != "play":
        return ENTER
    index = {h: i for i, (h, _) in enumerate(view.hand)}
    faces = dict(view.hand)
    kinds = {a.kind for a in legal if isinstance(a, PlayOn)}

    def key_of(kind: ActionKind) -> str:
        return str(next(index[h] for h, c in view.hand if isinstance(c, ActionCard) and c.kind is kind) + 1)

    if ActionKind.THEFT in kinds:
        return key_of(ActionKind.THEFT) + ENTER
    if any(isinstance(a, Clear) and a.what != "theft" for a in legal):
        return "1m2m" + ENTER  # the first two cards clear what lies in front of us
    for kind in (ActionKind.TRAPPED, ActionKind.INSPECTION, ActionKind.FREE, ActionKind.HANDS_OFF, ActionKind.SWAP_HATS,
                 ActionKind.SWAP_HAND):
        if kind in kinds:
            return key_of(kind) + ENTER  # the first sensible player
    ladders = [a for a in legal if isinstance(a, PlacePath) and faces[a.card].ladder and not a.turned]  # type: ignore[union-attr]
    if ladders:
        return str(index[ladders[0].card] + 1) + ENTER  # the cursor jumps to a legal cell
    if turn % 3 == 0 and len(view.hand) >= 3:
        return "1m2m3mx"  # discard three cards at once
    return ":" + Words(view, snap.names).say(legal[0]) + ENTER


@pytest.mark.slow
def test_a_whole_saboteur2_game_to_the_ranking_by_gold_pieces():
    """Saboteur 2 from the keyboard: cards played on players, clears, a ladder, passes of
    three cards, a steal, until the final ranking by gold pieces."""
    harness = Harness(seed=97, edition="saboteur2")  # a deal where we place a ladder and steal once (with the v2 heuristic)
    seen: dict[str, str] = {}

    def script(h: Harness) -> None:
        turn = 0
        while (snap := h.next_decision(lambda: h.table.result is not None or h.table.state.phase.value == "game-over")):
            turn += 1
            if snap.view.phase == "steal" and "steal" not in seen:  # type: ignore[union-attr]
                h.wait_for(lambda: "YOUR MOVE: steal a gold piece" in h.screen(), "the steal screen")
                seen["steal"] = h.screen()
            if snap.view.trapped[0] and "trapped" not in seen:  # type: ignore[union-attr]
                seen["trapped"] = h.screen()
            h.keys(saboteur2_keys(snap, turn))
            h.sent(snap)
        h.finish()
        h.wait_for(lambda: h.app.snap.view is not None and h.app.snap.view.phase == "game-over", "the end")
        h.wait_for(lambda: "Game over" in h.screen(), "the ranking")
        seen["end"] = h.screen()
        h.keys("q")
        h.wait_for(h.closed, "the application to close")

    assert harness.play(script, timeout=90) == "done"
    state = harness.table.state
    result = harness.table.result
    assert result is not None and result.outcome == "finished" and "gold pieces" in result.message
    played = [e for e in state.events if isinstance(e, CardPlayed) and e.player == 0]
    mine = [e.action for e in played]
    kinds = {a.kind for a in mine if isinstance(a, PlayOn)}
    # a Theft (for the steal below) and at least two other kinds of card played on a player
    assert ActionKind.THEFT in kinds and len(kinds - {ActionKind.THEFT}) >= 2, kinds
    assert any(isinstance(a, Clear) for a in mine)
    assert any(isinstance(a, Pass) and len(a.cards) == 3 for a in mine)
    assert any(isinstance(e.action, PlacePath) and isinstance(e.card, PathCard) and e.card.ladder for e in played)
    stolen = [e for e in state.events if isinstance(e, Stolen) and e.thief == 0]
    assert stolen and stolen[0].victim is not None
    # the steal screen: whom to take a piece from, on the hand strip
    assert "Your Theft: steal 1 gold piece" in seen["steal"] and "choice 1/" in seen["steal"]
    # the round's result, gold won and stolen, reach the log
    log = [line.text for line in harness.agent.log_lines()]
    assert f"   you steal a gold piece from {harness.table.names[stolen[0].victim]}" in log
    assert any(line.startswith("   you win ") and "gold piece" in line for line in log)
    assert "(you were " in seen["steal"]  # the round's result, under the steal choice
    # the ranking by gold pieces, with our own line
    end = seen["end"]
    assert "Game over · gold pieces" in end
    pieces = state.scores[0]  # type: ignore[index]
    assert re.search(rf"\d\. you +{pieces} gold piece", end), end
