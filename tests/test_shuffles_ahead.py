"""The next round's decks are shuffled between the moves of this one (protocol.md §5.6.2:
batches opened ahead), so that the pause between rounds holds no shuffle of them."""
from __future__ import annotations

import threading

import pytest
from protocol_helpers import hear, honest_body, judges, path_first, play_until, seeded_game, signed_record

from saboteur_p2p.crypto.log import decode_record
from saboteur_p2p.net.seatstate import export_secrets, import_secrets
from saboteur_p2p.protocol import node as node_module
from saboteur_p2p.protocol.ahead import AheadBatches
from saboteur_p2p.protocol.local import LocalGame, play_local_game, step
from saboteur_p2p.protocol.messages import ActionMsg, Shuffle
from saboteur_p2p.protocol.node import Expect, Node, ProtocolViolation
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import Deck, GameConfig, State, TrustedDealer


def played(config: GameConfig, seed: int) -> LocalGame:
    game = seeded_game(config, seed)
    while step(game, path_first):
        pass
    return game


def kinds_and_senders(game: LocalGame) -> list[tuple[str, int, list[str]]]:
    """Each record's kind, sender and (for a shuffle) the decks it shuffles."""
    out = []
    for entry in map(decode_record, game.records):
        decks = [d[0] for d in entry.body["decks"]] if entry.kind == "shuffle" else []
        out.append((entry.kind, entry.sender, decks))
    return out


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
@pytest.mark.slow
def test_each_seat_shuffles_the_next_rounds_decks_right_after_one_of_its_moves(edition: str) -> None:
    config = GameConfig(players=3, edition=edition, rounds=3)
    game = played(config, 11)
    assert game.spectator.finished
    records = kinds_and_senders(game)
    first_action = next(i for i, (kind, _, _) in enumerate(records) if kind == "action")
    fresh = [i for i, (kind, _, decks) in enumerate(records) if kind == "shuffle" and "draw" in decks and i > first_action]
    # rounds 2 and 3: every seat once each, each shuffle right after its shuffler's move
    assert len(fresh) == 2 * config.players
    for i in fresh:
        assert records[i - 1][:2] == ("action", records[i][1]), records[i - 3:i + 1]
    for first, last in ((0, 3), (3, 6)):
        assert sorted(records[i][1] for i in fresh[first:last]) == [0, 1, 2]


@pytest.mark.slow
def test_the_pause_between_rounds_holds_no_shuffle_of_the_fresh_decks() -> None:
    """From a round's last move in play to the next round's first move: shares, gold choices
    and, when a taker saw the gold pile, a shuffle of the gold alone."""
    game = played(GameConfig(players=4, rounds=3), 5)
    state = game.spectator.state
    assert state is not None and state.round == 3
    records = kinds_and_senders(game)
    first_action = next(i for i, (kind, _, _) in enumerate(records) if kind == "action")
    for i, (kind, _, decks) in enumerate(records[first_action:], first_action):
        if kind == "shuffle" and decks != ["gold"]:
            assert records[i - 1][0] == "action"


def test_the_engine_opens_the_next_rounds_decks_ahead_but_not_after_the_last_round() -> None:
    """``shuffle_ahead`` names the next round's fresh decks (no gold), and a trusted dealer
    shuffles the same as before: the gold shuffled again is a call of its own."""

    class Recording(TrustedDealer):
        def __init__(self) -> None:
            super().__init__(3)
            self.calls: list[tuple[str, list[Deck]]] = []

        def shuffle(self, fresh, again):  # type: ignore[no-untyped-def]
            self.calls.append(("shuffle", [*fresh, *again]))
            return super().shuffle(fresh, again)

        def shuffle_ahead(self, fresh):  # type: ignore[no-untyped-def]
            self.calls.append(("ahead", list(fresh)))

    dealer = Recording()
    state = State.new(GameConfig(players=4, rounds=2), dealer)
    assert dealer.calls == [("shuffle", [Deck.ROLES, Deck.GOALS, Deck.DRAW, Deck.GOLD]),
                            ("ahead", [Deck.ROLES, Deck.GOALS, Deck.DRAW])]
    while state.round == 1:
        state.play(state.legal_actions()[0])
    assert dealer.calls[2] == ("shuffle", [Deck.ROLES, Deck.GOALS, Deck.DRAW])
    assert all(kind == "shuffle" for kind, _ in dealer.calls[2:])  # round 2 of 2: nothing ahead


def test_a_false_proof_in_a_shuffle_made_ahead_is_blamed_on_its_shuffler() -> None:
    """The seats take the record in and check it in the background; the check names the
    shuffler with its record as evidence, before any share of the batch goes out.  The
    spectator, and verify, refuse it at once."""
    game = seeded_game(GameConfig(players=3), 4)
    head = play_until(game, lambda e: e.kind == "shuffle" and e.topic == (1,))
    cheater = head.speaker
    body = honest_body(game.nodes[cheater])
    draw = next(deck for deck in body["decks"] if deck[0] == "draw")
    draw[1][0], draw[1][1] = draw[1][1], draw[1][0]  # two output cards swapped: the proof no longer holds
    record = signed_record(game, cheater, "shuffle", body)
    verdicts = hear(game, record, cheater)
    assert verdicts[None] is not None and (verdicts[None].peer, verdicts[None].reason) == (cheater, "bad-shuffle-proof")
    for seat in judges(game, cheater):
        if seat is None:
            continue
        node = game.nodes[seat]
        assert verdicts[seat] is None  # taken in: checked between the turns
        with pytest.raises(ProtocolViolation) as found:
            node.finish_checks()
        assert (found.value.peer, found.value.reason, found.value.evidence) == (cheater, "bad-shuffle-proof", record)
        assert node.aborted is found.value
        assert node.make_ahead() == {}  # nothing more goes out
    verdict = verify_records([*game.records, record])
    assert not verdict.ok and verdict.culprit == cheater and "bad-shuffle-proof" in verdict.message


def test_no_share_of_a_batch_goes_out_before_its_shuffles_are_checked() -> None:
    """A seat that owes shares while a background check is under way waits for it: no
    shares sent ahead, and its shares record only once every check is done."""
    game = seeded_game(GameConfig(players=3), 6)
    head = play_until(game, lambda e: e.kind == "shuffle" and e.topic == (1,))
    node = game.nodes[next(s for s in range(3) if s != head.speaker)]
    gate = threading.Event()
    node.ahead.check_later(gate.wait, b"", batch=1)  # a check that takes as long as the test says
    assert not node.ahead.settled() and not node.ahead.settled(1)
    assert node.ahead.settled(0)  # the cards of this round's batch do not wait for it
    gate.set()
    node.ahead.finish()
    assert node.ahead.settled()


def test_a_move_does_not_wait_for_the_check_of_the_next_rounds_shuffles() -> None:
    """The shares a move carries are of this round's cards: a check of the next round's
    batch still under way holds up that batch's shares, not the move."""
    game = seeded_game(GameConfig(players=3), 6)
    play_until(game, lambda e: e.kind == "shuffle" and e.topic == (1,))
    head = play_until(game, lambda e: e.kind == "action")
    node = game.nodes[head.speaker]
    gate = threading.Event()
    node.ahead.check_later(gate.wait, b"", batch=1)
    watchdog = threading.Timer(30, gate.set)  # a move that waits fails the test, not hangs it
    watchdog.start()
    try:
        record = node.move(path_first(head.speaker, node))
        made_while_checking = not gate.is_set()
    finally:
        gate.set()
        watchdog.cancel()
    assert made_while_checking
    shares = ActionMsg.decode(decode_record(record).body).shares
    assert shares is not None and shares.public  # it owed shares, and they went out with it


def test_a_share_waits_for_the_checks_of_shares_shown_before_it() -> None:
    """Shares published for a card shown to all are checked before the seat sends any share
    (protocol.md §8.3), whatever batch the card is of."""
    ahead = AheadBatches(3)
    gate = threading.Event()
    ahead.check_later(gate.wait, b"")  # shares of a card shown to all
    assert not ahead.settled(0) and not ahead.settled(-1)
    gate.set()
    ahead.finish(0)
    assert ahead.settled()


def test_a_fault_found_by_a_check_a_share_waits_for_is_judged_after_every_earlier_check() -> None:
    """The earliest record at fault decides: when a check a share waits for fails, the
    checks of earlier records are waited for too, the next round's shuffles included."""
    ahead = AheadBatches(3)
    gate = threading.Event()

    def false_shuffle() -> None:
        gate.wait()
        raise ProtocolViolation(1, "bad-shuffle-proof", "the shuffle")

    def false_share() -> None:
        raise ProtocolViolation(2, "bad-share", "the share")

    ahead.check_later(false_shuffle, b"shuffle", batch=1)
    ahead.check_later(false_share, b"shares")
    threading.Timer(0.05, gate.set).start()
    with pytest.raises(ProtocolViolation) as found:
        ahead.finish(0)
    assert (found.value.peer, found.value.evidence) == (1, b"shuffle")


def test_seats_that_did_not_shuffle_during_the_round_shuffle_in_the_next_set_up(monkeypatch: pytest.MonkeyPatch) -> None:
    """A round that ends before every seat has moved leaves the rest of the batch to the
    next set-up: the seats that have not shuffled it, in seat order.  (Here no move is taken
    for one made in play, so every seat's shuffle of the batch is left to the set-up.)"""
    monkeypatch.setattr(node_module, "mover_in_play", lambda before, after: None)
    game = played(GameConfig(players=3, rounds=2), 9)
    assert game.spectator.finished
    records = kinds_and_senders(game)
    fresh = [i for i, (kind, _, decks) in enumerate(records) if kind == "shuffle" and "draw" in decks]
    assert [records[i][1] for i in fresh] == [0, 1, 2, 0, 1, 2]
    assert fresh[3:] == [fresh[3], fresh[3] + 1, fresh[3] + 2]  # one after another, in the pause


@pytest.mark.slow
def test_a_seat_makes_its_shuffle_of_the_next_rounds_decks_before_its_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """With fresh randomness a seat that moves next makes its shuffle of the batch while its
    move is chosen, on the input it has then, and sends that one right after its move; the
    game is the same to the others (``verify`` checks it)."""
    used: list[bool] = []
    made = AheadBatches.made

    def spy(self: AheadBatches, batch: int) -> Shuffle | None:
        shuffle = made(self, batch)
        used.append(shuffle is not None)
        return shuffle

    monkeypatch.setattr(AheadBatches, "made", spy)
    game = play_local_game(GameConfig(players=3, rounds=2), ["random"] * 3, seed=3)  # secrets.token_bytes
    assert game.spectator.finished
    assert len(used) == 3 and any(used), used  # each seat's shuffle of round 2's decks
    assert verify_records(game.records).ok


def test_an_invalid_point_in_a_shuffle_made_ahead_names_its_shuffler_before_the_next_shuffles_on_it() -> None:
    """The next shuffler meets the point when it makes its own shuffle (or its shares) on that
    output: it names the seat before it, as the spectator did at once, and raises nothing else."""
    game = seeded_game(GameConfig(players=3), 4)
    head = play_until(game, lambda e: e.kind == "shuffle" and e.topic == (1,))
    cheater = head.speaker
    body = honest_body(game.nodes[cheater])
    draw = next(deck for deck in body["decks"] if deck[0] == "draw")
    draw[1][0] = [bytes([2]) + bytes(31), draw[1][0][1]]  # not a point of the curve
    record = signed_record(game, cheater, "shuffle", body)
    verdicts = hear(game, record, cheater)
    assert verdicts[None] is not None and (verdicts[None].peer, verdicts[None].reason) == (cheater, "bad-message")
    nxt = game.spectator.state.current
    node = game.nodes[nxt]
    with pytest.raises(ProtocolViolation) as found:
        node._make_shuffle(Expect(nxt, "shuffle", (1,)))  # as after a move that carried no shares
    assert (found.value.peer, found.value.reason) == (cheater, "bad-message")
    assert node.aborted is found.value


@pytest.mark.slow
def test_a_seat_replaying_its_log_keeps_no_shuffle_made_for_a_batch_it_has_shuffled() -> None:
    """A rejoining seat takes its log in again: the shuffles it would have made before its
    turns are dropped as soon as its own shuffle of that batch, or the batch's last, is in."""
    game = play_local_game(GameConfig(players=3, rounds=2), ["random"] * 3, seed=5)  # secrets.token_bytes
    seat = 1
    again = Node(game.setup, seat, game.nodes[seat].identity)
    import_secrets(again, export_secrets(game.nodes[seat]))  # as a seat that rejoins does (net/seatstate.py)
    for record in game.records:
        again.receive(record)
    assert again.finished and not again.ahead._made
