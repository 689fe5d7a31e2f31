"""What the client keeps between the moves (issue 12): each round's end screen, each seat's
last move on the maze and in the player list, the bot seats' pace, and bots refused at once."""
from __future__ import annotations

import subprocess
import sys
import time
from types import SimpleNamespace

from test_client_controller import seated
from test_client_render import screen_of

from saboteur_p2p.botapi import load_bot
from saboteur_p2p.client.agent import ClientAgent
from saboteur_p2p.client.local import LocalNode, LocalSetup
from saboteur_p2p.match import bot_seed
from saboteur_p2p.net.agents import BotAgent
from saboteur_p2p.rules import (
    GOAL_CELLS,
    CardPlayed,
    Game,
    GameConfig,
    GoalRevealed,
    PlacePath,
    RoundEnded,
    State,
    TrustedDealer,
)


def followed_game(
    seed: int, players: int = 5, edition: str = "base",
) -> tuple[State, ClientAgent, list[dict[tuple[int, int], str]]]:
    """A whole bot game, seat 0's client agent told after every move as the session tells it.

    Also returns, for each round, the maze as it stood when the round ended (the engine's
    own, read from the state after the round's last move and before the next deal)."""
    state = Game(GameConfig(players, edition), TrustedDealer(seed)).new_state()
    bots = [load_bot("heuristic") for _ in range(players)]
    for seat, bot in enumerate(bots):
        bot.start(seat, state.config, bot_seed(seed, seat))
    agent = ClientAgent()
    node = LocalNode(LocalSetup(state.config, tuple(f"p{i}" for i in range(players))), state)
    agent.start(0, node)
    finals: list[dict[tuple[int, int], str]] = []
    told = 0
    while not state.is_terminal():
        seat = state.current
        before = {cell: tile.card.code for cell, tile in state.board.tiles.items() if tile.card is not None}
        action = bots[seat].act(state.view_for(seat), state.legal_actions())
        state.push(action)
        new = state.events[told:]
        ended = [i for i, e in enumerate(new) if isinstance(e, RoundEnded)]
        if ended:
            # the maze the round ended with: the one before the move, the move's card, the goals it turned up
            final = dict(before)
            for event in new[: ended[0]]:
                if isinstance(event, CardPlayed) and isinstance(event.action, PlacePath) and event.card is not None:
                    final[event.action.cell] = event.card.code
                if isinstance(event, GoalRevealed):
                    final[GOAL_CELLS[event.slot]] = event.card.code
            finals.append(final)
        for event in new:
            for bot in bots:
                bot.on_event(event)
        told = len(state.events)
        agent.heard(state)
    return state, agent, finals


def test_each_round_end_keeps_the_final_maze_roles_winners_and_gold():
    state, agent, finals = followed_game(seed=3)
    rounds = agent.snapshot().rounds
    assert [r.round for r in rounds] == [1, 2, 3] and len(finals) == 3
    start = 0
    for summary, result, final in zip(rounds, state.results, finals, strict=True):
        shown = {cell: tile.card.code for cell, tile in summary.board.tiles.items() if tile.card is not None}
        assert shown == final  # the maze as the round ended, not the next round's empty one
        assert summary.roles == result.roles and summary.live
        assert result.winners.value.replace("-", " ") in summary.winners.replace("-", " ")
        # the cards each seat was given this round; our own as nuggets
        for seat in range(1, 5):
            cards = result.gold_cards[seat]
            assert summary.won[seat] == ("-" if not cards else f"{cards} gold card" + ("" if cards == 1 else "s"))
        # ours in nuggets, the cards of that round only (they come in the order received)
        cards = result.gold_cards[0]
        nuggets = sum(state.gold_faces[g].nuggets for g in state.gold_of[0][start:start + cards])
        start += cards
        assert summary.won[0] == f"{nuggets} nugget" + ("" if nuggets == 1 else "s")
    assert rounds[-1].scores == state.scores
    assert rounds[-1].totals == tuple(f"{s} nugget" + ("" if s == 1 else "s") for s in state.scores)  # type: ignore[union-attr]


def test_saboteur2_rounds_count_our_gold_pieces_with_what_was_stolen_and_add_up_to_the_score():
    from saboteur_p2p.client.screens import _short
    from saboteur_p2p.rules import Stolen

    checked = stolen = 0
    for seed in range(12):
        state, agent, _ = followed_game(seed, players=5, edition="saboteur2")
        rounds = agent.snapshot().rounds
        won = [int(r.won[0].split()[0]) for r in rounds]  # pieces won, a theft apart
        assert all(r.won[0] == f"{n} piece" + ("" if n == 1 else "s") and n >= 0 for r, n in zip(rounds, won, strict=True))
        net = [n + r.stole[0] - r.robbed[0] for r, n in zip(rounds, won, strict=True)]
        assert sum(net) == state.scores[0]  # type: ignore[index]
        thefts = [(f" stole {r.stole[0]}" if r.stole[0] else "") + (f" robbed {r.robbed[0]}" if r.robbed[0] else "")
                  for r in rounds]
        assert [_short(r.won[0], r.stole[0], r.robbed[0]) for r in rounds] == [
            f"{n:+d}{t}" if n else t.strip() or "-" for n, t in zip(won, thefts, strict=True)]
        checked += 1
        stolen += any(isinstance(e, Stolen) and 0 in (e.thief, e.victim) and e.victim is not None for e in state.events)
    assert checked == 12 and stolen  # some of these games had a theft from or by seat 0
    assert (_short("0 pieces", 0, 1), _short("0 pieces"), _short("3 nuggets"), _short("2 pieces", 1)) == (
        "robbed 1", "-", "+3", "+2 stole 1")  # a theft apart from the gold won: the net read as won


def test_the_round_end_screen_fits_80x24_and_a_key_closes_it():
    from test_client_controller import find

    state = find(lambda s: s.phase.value == "take-gold" and s.round == 1)
    screen, app = screen_of(state, 80, 24, round_end=True)
    lines = screen.splitlines()
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    assert lines[0].startswith(" ROUND 1/3 OVER · your move: take your gold: ↑↓ Enter · Esc: to the table")  # saboteurs first
    assert any("round 1/3 is over" in line for line in lines)
    assert any("the saboteurs won" in line or "nobody won" in line for line in lines)
    assert any("you " in line.split("│")[-1] for line in lines)
    roles = {"dig", "SAB"}
    assert sum(any(f" {role} " in line for role in roles) for line in lines) >= 5  # a role on each seat's line
    assert any("H" in line for line in lines)  # the final maze with the start
    app.ui.round_seen = 1  # what the key binding does
    assert "OVER" not in app.render_text(80, 24).splitlines()[0]


def test_while_the_gold_is_handed_out_a_key_leads_back_to_the_table_not_to_the_final_ranking():
    """The last round's end, with a gold card to keep: the key closes the screen to keep it."""
    from test_client_controller import find

    state = find(lambda s: s.phase.value == "keep-gold" and s.round == s.config.rounds)
    from saboteur_p2p.client.app import SIDE_MIN
    from saboteur_p2p.client.screens import render_round_end

    screen, app = screen_of(state, 80, 24, round_end=True)
    lines = screen.splitlines()
    assert lines[0].startswith(" ROUND 3/3 OVER · your move: keep a gold card: ←→ Enter · Esc: to the table"), lines[0]
    assert "final ranking" not in screen and "your move: keep a gold" in screen  # our choice, not only gold handed out
    panel = "".join(t for _, t in render_round_end(app.snap.rounds[-1], app.snap, SIDE_MIN, 24)).splitlines()
    assert panel[-1].strip() == "Esc: to the table"  # whole in the narrowest panel (Enter keeps the card)


def test_the_last_move_of_each_seat_shows_on_the_maze_and_in_the_player_list():
    from test_client_controller import find

    state = find(lambda s: s.phase.value == "play" and s.round == 1 and sum(
        isinstance(e, CardPlayed) and isinstance(e.action, PlacePath) for e in s.events) >= 3)
    played = [e for e in state.events if isinstance(e, CardPlayed)]
    agent, _node, _ctl = seated(state)
    moves = agent.snapshot().last_moves
    for event in played[-state.players:]:
        assert moves[event.player].order > 0
        if isinstance(event.action, PlacePath):
            assert moves[event.player].cell == event.action.cell
    screen, _app = screen_of(state, 80, 24)
    newest = played[-1]
    players = [line.split("│", 1)[1] for line in screen.splitlines()[2:2 + state.players]]
    assert moves[newest.player].short in players[newest.player]
    placed = [e for e in played[-state.players:] if isinstance(e.action, PlacePath)]
    assert placed
    # the seat's number in the bottom right corner of the cell its last path card went to
    from saboteur_p2p.client.maze import MazeMarks, render_maze
    from saboteur_p2p.client.render import last_move_marks

    last, latest = last_move_marks(agent.snapshot())
    marks = MazeMarks(last=last, latest=latest)
    fragments, _ = render_maze(state.board, {}, marks, 200, 60)
    assert any(style.endswith("class:maze.who") and text == str(placed[-1].player) for style, text in fragments)


def test_a_bot_seat_waits_its_delay_before_moving():
    from test_client_controller import find

    state = find(lambda s: s.phase.value == "play")
    node = SimpleNamespace(state=state, setup=SimpleNamespace(config=state.config))
    agent = BotAgent("random", delay=0.3)
    agent.start(state.current, node)  # type: ignore[arg-type]
    started = time.monotonic()
    assert agent.poll_move(node) is None  # type: ignore[arg-type]
    move = None
    while move is None:
        move = agent.poll_move(node)  # type: ignore[arg-type]
        time.sleep(0.01)
    assert 0.3 <= time.monotonic() - started < 2
    assert BotAgent("random").delay == 0  # a bot alone at a table does not wait


def test_an_unknown_bot_is_refused_at_once():
    for argv in (["play", "--bots", "nosuchbot", "--plain"], ["host", "--bots", "1", "--bots-kind", "nosuchbot", "--plain"]):
        started = time.monotonic()
        done = subprocess.run([sys.executable, "-m", "saboteur_p2p", *argv], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
        assert done.returncode == 2 and time.monotonic() - started < 10
        assert "unknown bot 'nosuchbot'" in done.stderr and "Traceback" not in done.stderr


def test_leaving_is_a_normal_exit_and_one_nugget_is_singular():
    from dataclasses import replace

    from test_client_controller import find

    from saboteur_p2p.cli_table import _client_status
    from saboteur_p2p.client.render import render_info
    from saboteur_p2p.client.runner import ClientRun
    from saboteur_p2p.client.screens import render_ranking

    assert _client_status(ClientRun(None, None, True, True)) == 0  # the person chose to leave
    state = find(lambda s: s.phase.value == "play" and sum(s.gold_faces[g].nuggets for g in s.gold_of[s.current]) == 1)
    agent, _node, _ctl = seated(state)
    info = "".join(text for _, text in render_info(agent.snapshot(), 40))
    assert "your gold: 1 nugget " in info
    snap = agent.snapshot()
    snap = replace(snap, view=snap.view._replace(scores=(1, 0, 2, 1, 1), phase="game-over"), rounds=())  # type: ignore[union-attr]
    assert "1 nugget\n" in render_ranking(snap) + "\n" and "1 nuggets" not in render_ranking(snap)


def test_every_round_end_key_line_fits_the_narrowest_side_panel():
    """The line that says how to go on is the panel's last: at 80x24 (a 26-column panel)
    'any key: the final ranking' lost its last letter."""
    import dataclasses

    from saboteur_p2p.client.app import SIDE_MIN
    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.client.tracker import RoundSummary
    from saboteur_p2p.rules import Board, Role

    roles = (Role.GOLD_DIGGER,) * 3 + (Role.SABOTEUR,)
    snap = dataclasses.replace(Snapshot(), seat=0, names=("Ann", "heuristic-1", "heuristic-2", "Bob"))
    for number, settled in ((1, True), (3, True), (3, False)):
        summary = RoundSummary(number, 3, "the gold-diggers won", roles, Board.new_round(), {}, ("-",) * 4, ("0",) * 4,
                               settled=settled)
        last = "".join(t for _, t in render_round_end(summary, snap, SIDE_MIN, 24)).splitlines()[-1]
        assert last.startswith(" any key: ")
        assert len(last.rstrip()) < SIDE_MIN, last  # whole, with room to spare
