"""The end of a base game: each seat shows its own gold (protocol.md §5.5, holders), so a seat
that withholds its shares there holds up only its own gold, forfeits it, and the game still
has a score that every peer and ``verify`` compute alike."""
from __future__ import annotations

import itertools
from pathlib import Path

from protocol_helpers import seeded_bytes, signed_record, true_face
from test_session_speak import seated_session

from saboteur_p2p.net.session import Outcome
from saboteur_p2p.protocol.dealer import RevealNeed
from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.errors import ProtocolViolation
from saboteur_p2p.protocol.forfeit import forfeit_scores, state_at_block
from saboteur_p2p.protocol.local import LocalGame, deliver, play_local_game
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import Deck, GameConfig, Phase, Role
from saboteur_p2p.rules.events import GoldReceived, RoundEnded
from saboteur_p2p.rules.gold import gold_choices


def _final_reveal_due(game: LocalGame) -> bool:
    head = game.spectator.next_expected
    return head is not None and head.kind == "shares" and all(n.audience is None and n.card[1] is Deck.GOLD for n in head.topic)


def _at_final_reveal(seed: int) -> LocalGame | None:
    """A one-round game of three heuristic bots, played to the share round that shows every
    gold card (None: the game ended without one, nobody having won gold)."""
    game = play_local_game(GameConfig(3, rounds=1), ["heuristic"] * 3, seed, rand=seeded_bytes(seed),
                           until=_final_reveal_due)
    return game if _final_reveal_due(game) else None


def _gold_cards(game: LocalGame, seat: int) -> list[tuple[int, Deck, int]]:
    """The gold cards ``seat`` holds at the end (the last hand-out is in the engine's attempt
    that blocked on the reveal, not yet in its committed state)."""
    state = state_at_block(game.spectator)
    assert state is not None
    return [game.spectator.dealer.gold_cards[g] for g in state.gold_of[seat]]


def test_each_holder_alone_shows_its_own_gold_and_a_staller_forfeits_only_its_own() -> None:
    for seed in range(30):
        game = _at_final_reveal(seed)
        if game is None:
            continue
        staller = game.spectator.outstanding[0].speaker
        if any(_gold_cards(game, s) for s in range(3) if s != staller):
            break
    else:
        raise AssertionError("no game of 30 ended with two seats holding gold")
    for e in game.spectator.outstanding:
        assert e.topic and {n.card for n in e.topic} <= set(_gold_cards(game, e.speaker))  # its own gold only
    others = [e.speaker for e in game.spectator.outstanding if e.speaker != staller]
    for seat in others:
        deliver(game, game.nodes[seat].produce(), seat)  # type: ignore[arg-type]
    spectator = game.spectator
    for seat in (s for s in range(3) if s != staller):
        for card in _gold_cards(game, seat):
            assert spectator.dealer.public_face(RevealNeed(card, None)) == true_face(game, card)
    for card in _gold_cards(game, staller):
        assert spectator.dealer.public_face(RevealNeed(card, None)) is None
    forfeit = forfeit_scores(spectator, staller)
    assert forfeit is not None and forfeit.forfeits == (staller,) and forfeit.overtakers == ()
    expected = [0 if s == staller else sum(true_face(game, c).nuggets for c in _gold_cards(game, s)) for s in range(3)]
    assert list(forfeit.scores) == expected and sum(expected) > 0
    bystander = next(s for s in range(3) if s != staller)
    assert forfeit_scores(spectator, bystander) is None  # it owes nothing more: it withholds nothing
    # the staller's record, late, ends the game as usual, with the same scores for the others
    deliver(game, game.nodes[staller].produce(), staller)  # type: ignore[arg-type]
    assert spectator.finished and spectator.state is not None and spectator.state.scores is not None
    assert [spectator.state.scores[s] for s in range(3) if s != staller] == [expected[s] for s in range(3) if s != staller]


def test_a_session_and_verify_give_the_forfeit_score_of_a_seat_gone_at_the_final_reveal(tmp_path: Path) -> None:
    for seed in range(30):
        game = _at_final_reveal(seed)
        holders = [e.speaker for e in game.spectator.outstanding] if game is not None else []
        if game is not None and holders and len(holders) < 3:
            break
    else:
        raise AssertionError("no game of 30 left a seat without gold")
    staller = holders[0]
    witness = next(s for s in range(3) if s != staller and s not in holders[1:]) if len(holders) < 3 else holders[1]
    for seat in holders[1:]:
        deliver(game, game.nodes[seat].produce(), seat)  # type: ignore[arg-type]
    session = seated_session(game, game.nodes[witness], tmp_path)
    result = session._end_gone(staller, f"{session.names[staller]} (seat {staller}) sent no shares record within 3 s")
    forfeit = forfeit_scores(game.spectator, staller)
    assert forfeit is not None
    assert (result.outcome, result.culprit, result.scores) == (Outcome.PEER_GONE, staller, forfeit.scores)
    assert "at the final reveal of the gold: " in result.message and f"{session.names[staller]} 0 (forfeit)" in result.message
    ending = Ending("peer-gone", staller, "", result.message, None, witness)
    verdict = verify_records([*game.spectator.records, ending.to_bytes()])
    assert verdict.ok and verdict.silent == staller and verdict.culprit is None and verdict.scores == forfeit.scores
    assert verdict.message.startswith(f"stopped: the log says seat {staller} ({session.names[staller]}) went silent")
    assert "forfeit" in verdict.message and "a log cut short there" in verdict.message  # the holder's word only


def test_a_gold_card_given_to_a_seat_it_was_offered_to_before_others_is_shown_by_that_seat() -> None:
    """gold-per-player, 3 gold-diggers and 4 cards: the cards are offered to each digger in
    turn, and the first digger then gets the last card, which it was shown first and two
    others after it.  It holds that card, so it alone shows it at the end: the digger who saw
    it last and stalls there forfeits only its own gold (found by review: the last seat shown
    a card stayed its holder)."""
    config = GameConfig(4, variants={"gold-per-player"}, rounds=1)
    game = play_local_game(config, ["heuristic"] * 4, 1, rand=seeded_bytes(1), until=_final_reveal_due)
    assert _final_reveal_due(game)
    state = state_at_block(game.spectator)
    assert state is not None and sum(map(len, state.gold_of)) == 4
    assert state.revealed_roles is not None and state.revealed_roles.count(Role.GOLD_DIGGER) == 3  # one gets two cards
    for seat in range(4):
        for card in _gold_cards(game, seat):
            for node in (*game.nodes, game.spectator):
                assert node.dealer.holding[card].audience == {seat}, (seat, card)
    for e in game.spectator.outstanding:
        assert {n.card for n in e.topic} <= set(_gold_cards(game, e.speaker))  # each shows its own gold only



def _second_take_due(game: LocalGame) -> bool:
    """The last of two takers of gold is to take: a round the saboteurs won, and a seat has
    taken before it (no gold is kept in such a round: whatever was received was taken)."""
    head, state = game.spectator.next_expected, game.spectator.state
    if head is None or head.kind != "action" or state is None or state.phase is not Phase.TAKE_GOLD:
        return False
    since_end = list(itertools.takewhile(lambda e: not isinstance(e, RoundEnded), reversed(state.events)))
    return len(state.take_queue) == 1 and any(isinstance(e, GoldReceived) for e in since_end)


def test_a_seat_shown_the_pile_gives_the_forfeit_score_of_a_second_taker_gone_at_the_final_reveal(tmp_path: Path) -> None:
    """Two saboteurs take gold in turn; the first is shown the pile, the second takes less than
    it could (legal to the others until the gold shows, §9.3), sends no shares with it and
    then withholds its gold at the final reveal.  The first taker gave no score where every
    other seat and ``verify`` gave the forfeit score (found by an attack): it ran the take
    again on what it alone knew, found it short, and took the game for one that ended on no
    move."""
    for seed in range(60):
        game = play_local_game(GameConfig(5, rounds=1), ["heuristic"] * 5, seed, rand=seeded_bytes(seed),
                               until=_second_take_due)
        if not _second_take_due(game):
            continue
        state, taker = game.spectator.state, game.spectator.next_expected.speaker  # type: ignore[union-attr]
        assert state is not None
        pile = {g: true_face(game, game.spectator.dealer.gold_cards[g]).nuggets for g in state.gold_pile}
        most = max(sum(pile[g] for g in choice) for choice in gold_choices(list(pile.items()), state.take_queue[0][1]))
        short = next((g for g, nuggets in pile.items() if 0 < nuggets < most), None)
        if short is not None:
            break
    else:
        raise AssertionError("no game of 60 had a second taker who could take short")
    first = next(s for s in range(5) if s != taker and game.nodes[s].state.gold_faces)  # type: ignore[union-attr]
    others = [node for seat, node in enumerate(game.nodes) if seat != taker]  # the taker's own node is gone
    for node in (*others, game.spectator):
        node.receive(signed_record(game, taker, "action", {"action": f"take {short}"}))
    assert _final_reveal_due(game)
    for e in game.spectator.outstanding:
        if e.speaker != taker:
            record = game.nodes[e.speaker].produce()
            assert record is not None
            for node in (*others, game.spectator):
                if node is not game.nodes[e.speaker]:
                    node.receive(record)
    forfeit = forfeit_scores(game.spectator, taker)
    assert forfeit is not None and forfeit.forfeits == (taker,)
    assert forfeit_scores(game.nodes[first], taker) == forfeit
    session = seated_session(game, game.nodes[first], tmp_path)
    result = session._end_gone(taker, f"{session.names[taker]} (seat {taker}) sent no shares record within 3 s")
    assert (result.outcome, result.culprit, result.scores) == (Outcome.PEER_GONE, taker, forfeit.scores)


def _take_due(game: LocalGame) -> bool:
    head, state = game.spectator.next_expected, game.spectator.state
    return head is not None and head.kind == "action" and state is not None and state.phase is Phase.TAKE_GOLD


def test_a_take_of_more_cards_than_nuggets_owed_is_named_at_once_by_every_seat() -> None:
    """A taker owed a few nuggets names the whole pile: every card is worth a nugget at least
    (and a stone is never taken), so the take is too much whatever the faces, and the seats
    not shown the pile can tell at once.  They took it and only named it at the game's end,
    or, with the taker silent there, not at all (found by an attack)."""
    for seed in range(2, 42):  # (from the first that comes to a take: each game is a mental-poker one)
        game = play_local_game(GameConfig(3, rounds=2), ["heuristic"] * 3, seed, rand=seeded_bytes(seed), until=_take_due)
        if _take_due(game):
            break
    else:
        raise AssertionError("no game of 40 came to a take of gold")
    state, taker = game.spectator.state, game.spectator.next_expected.speaker  # type: ignore[union-attr]
    assert state is not None and len(state.gold_pile) > state.take_queue[0][1]
    record = signed_record(game, taker, "action", {"action": "take " + ",".join(map(str, state.gold_pile))})
    verdicts = {}
    for seat, node in [*((s, n) for s, n in enumerate(game.nodes) if s != taker), (None, game.spectator)]:
        try:
            node.receive(record)
        except ProtocolViolation as violation:
            verdicts[seat] = (violation.peer, violation.reason)
    assert verdicts == dict.fromkeys((*(s for s in range(3) if s != taker), None), (taker, "illegal-action"))
