"""Regressions found by a hostile review of protocol 5 (each test failed before its fix): a
move judged by what only some seats know, so that honest seats named different culprits."""
from __future__ import annotations

import random

import pytest
from protocol_helpers import owes_sealed, path_first, play_until, seeded_game, signed_record

from saboteur_p2p.protocol.local import LocalGame, step
from saboteur_p2p.protocol.node import Node, ProtocolViolation
from saboteur_p2p.rules import GameConfig, Phase
from saboteur_p2p.rules.actions import PlayOn
from saboteur_p2p.rules.cards import ActionCard, ActionKind
from saboteur_p2p.rules.gold import gold_choices


def verdicts_of(game: LocalGame, record: bytes, sender: int) -> dict[int | None, tuple[int, str] | None]:
    """What every other seat and the spectator (None) make of ``record``."""
    verdicts: dict[int | None, tuple[int, str] | None] = {}
    for seat, node in [*enumerate(game.nodes), (None, game.spectator)]:
        if seat == sender:
            continue
        try:
            node.receive(record)
        except ProtocolViolation as violation:
            verdicts[seat] = (violation.peer, violation.reason)
        else:
            verdicts[seat] = None
    return verdicts


def _swap_first(seat: int, node: Node) -> str:
    assert node.state is not None
    swap = next((a for a in node.state.legal_actions() if isinstance(a, PlayOn) and a.kind is ActionKind.SWAP_HAND), None)
    return str(swap) if swap is not None else path_first(seat, node)


def _handleless(face: ActionCard, players: int) -> list[str]:
    kind = face.kind.value
    if kind in ("break", "repair"):
        return [f"{kind} {tool.value} @{t}" for tool in face.tools for t in range(players)]
    if kind == "map":
        return [f"map {g}" for g in range(3)]
    if kind == "rockfall":
        return [f"rockfall {x},{y}" for x in range(-2, 10) for y in range(-4, 5)]
    return [f"{kind} @{t}" for t in range(players)]


def _a_move_only_a_swapper_can_read(seed: int) -> tuple[LocalGame, int, str] | None:
    """A 3-seat Saboteur 2 game in which a seat knows the hand of the seat to move (it gave it
    that hand with Swap your hand), and a move of that hand that names no card handle."""
    game = seeded_game(GameConfig(3, "saboteur2", rounds=1), seed)
    try:
        play_until(game, lambda e: e.kind == "shares" and owes_sealed(game.spectator, e.speaker), _swap_first)
    except AssertionError:
        return None
    for _ in range(200):
        head = game.spectator.next_expected
        if head is None:
            return None
        if head.kind == "action":
            mover = head.speaker
            for seat, node in enumerate(game.nodes):
                if seat == mover or node.state is None:
                    continue
                for handle in node.state.hands[mover]:
                    face = node.state.faces.get(handle)
                    if isinstance(face, ActionCard):
                        for text in _handleless(face, 3):
                            try:
                                node.state.clone().check(text, player=mover)
                            except Exception:  # any refusal: not a move that seat reads
                                continue
                            return game, mover, text
        step(game, path_first)
    return None


def test_a_move_that_names_no_card_handle_is_refused_by_every_seat_alike() -> None:
    """Saboteur 2: a seat that gave the mover its hand (Swap your hand) knows that hand, and its
    engine read ``break lantern @0`` (no ``#handle``) as a card it knew, where every other seat
    and the spectator refused it: the honest seats named different culprits.  A move that
    plays a card names its handle (as ``Node.move`` always sends it), or every seat refuses it."""
    found = next((f for seed in range(20) if (f := _a_move_only_a_swapper_can_read(seed)) is not None), None)
    assert found is not None, "no position found"
    game, mover, text = found
    verdicts = verdicts_of(game, signed_record(game, mover, "action", {"action": text}), mover)
    assert set(verdicts.values()) == {(mover, "illegal-action")}, verdicts


def _two_takers(seed: int) -> tuple[LocalGame, int, int] | None:
    """A 7-seat base game at the second saboteur's take of gold: the first taker saw the pile."""
    game = seeded_game(GameConfig(7, rounds=1), seed)
    rng = random.Random(seed)
    takers: list[int] = []
    while (head := game.spectator.next_expected) is not None:
        state = game.spectator.state
        if head.kind == "action" and state is not None and state.phase is Phase.TAKE_GOLD:
            if head.speaker not in takers:
                takers.append(head.speaker)
            if len(takers) >= 2:
                return game, takers[0], takers[-1]
        step(game, lambda seat, node: str(rng.choice(node.state.legal_actions())))
    return None


@pytest.mark.parametrize("cheat", ["over", "short"])
@pytest.mark.slow
def test_a_second_takers_take_is_judged_alike_by_every_seat(cheat: str) -> None:
    """The first taker was shown the gold pile and could check the second taker's take at once;
    nobody else could (§9.3).  It refused a wrong take and stopped, and the others, who could
    not see the wrong, named it for stopping.  Every seat now judges another seat's take as a
    spectator does: an over-take is named at the end of the game by all, alike."""
    for seed in range(40):
        found = _two_takers(seed)
        if found is None:
            continue
        game, first, second = found
        state = game.nodes[second].state
        assert state is not None
        amount = state.take_queue[0][1]
        faces = {g: state.gold_faces[g].nuggets for g in state.gold_pile}
        choices = gold_choices([(g, faces[g]) for g in state.gold_pile], amount)
        target = sum(faces[g] for g in choices[0]) if choices else 0
        if cheat == "short":
            pick = next(([g] for g, v in faces.items() if 0 < v < target), None)
        else:
            big = sorted(faces, key=lambda g: -faces[g])
            pick = big[:2] if sum(faces[g] for g in big[:2]) > amount else None
        if pick is not None:
            break
    else:
        pytest.fail("no game with two takers and a pile for the cheat")
    record = signed_record(game, second, "action", {"action": "take " + ",".join(map(str, pick))})
    verdicts = verdicts_of(game, record, second)
    assert first in verdicts and len(set(verdicts.values())) == 1, verdicts
    assert game.nodes[first].state is not None and game.nodes[first].state.gold_faces  # it still knows what it saw
