"""Found by play-test 22: the round's end while its gold is handed out."""
from __future__ import annotations

import re

from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from test_client_controller import find, seated
from test_client_playtest9 import _press

from saboteur_p2p.client.app import ClientApp
from saboteur_p2p.client.tracker import Tracker
from saboteur_p2p.rules import Game, GameConfig, PiecesWon, Role, RoundEnded, RoundStarted


def test_a_round_end_closed_while_its_gold_is_handed_out_opens_again_with_each_winners_share():
    """The screen opened as the round ended, every winner's gold "-"; a key took the player
    to the table to watch the gold handed out, and the screen never came back: who got what
    was left to the log (a play-test).  It opens again once the gold is out."""
    state = find(lambda s: s.phase.value == "keep-gold" and s.round == 1 and s.current != 0
                 and sum(1 for e in s.events if type(e).__name__ == "GoldReceived") == 0)
    agent, _node, _ctl = seated(state, 0)
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
        screen = app.render_text(100, 30)
        assert "ROUND 1/3 OVER" in screen.splitlines()[0] and "any key: to the table" in screen
        # who the table waits for, in words that read ("keeps a gold card / passed on" did not)
        assert "chooses a" in screen and "gold card to keep" in screen
        _press(app, " ")
        assert "OVER" not in app.render_text(100, 30).splitlines()[0]  # at the table, to watch
        while state.round == 1:  # the winners keep their gold cards, one after another
            state.push(state.legal_actions()[0])
            agent.heard(state)
        screen = app.render_text(100, 30)
        assert "ROUND 1/3 OVER" in screen.splitlines()[0] and "any key: next round" in screen, screen
        received = agent.snapshot().rounds[0].won
        assert any("gold card" in won or "nugget" in won for won in received), received
        panel = [line.split("│")[-1].strip() for line in screen.splitlines()]
        for seat, won in enumerate(received):  # each seat's row says its share
            name = "you" if seat == 0 else f"p{seat}"
            row = next(line for line in panel if re.fullmatch(rf"{name} +(dig|SAB) +\S+ +\S+", line))
            assert row.split()[2] == ("-" if won == "-" else won.split()[0] + ("" if seat == 0 else "c")), (won, row)
        _press(app, " ")
        assert "OVER" not in app.render_text(100, 30).splitlines()[0]  # closed for good


def test_a_winner_paid_nothing_reads_won_0_once_on_the_round_end_screen():
    """Saboteur 2's boss of five winners is paid nothing and "won 0"; the screen's two lines a
    seat said "won won 0" (a play-test)."""
    from saboteur_p2p.client.model import Snapshot
    from saboteur_p2p.client.screens import render_round_end

    roles = (Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.PROFITEER, Role.GEOLOGIST, Role.SABOTEUR,
             Role.BLUE_DIGGER)
    state = Game(GameConfig(len(roles), "saboteur2")).new_state()
    tracker = Tracker(0, len(roles))
    names = [f"p{seat}" for seat in range(len(roles))]
    tracker.take([RoundStarted(1, 0), RoundEnded(1, "both-teams", roles, 0), *(PiecesWon(s, 1) for s in (0, 1, 6))],
                 state.view_for(0), names)
    summary = tracker.summaries[-1]
    snap = Snapshot(seat=0, names=tuple(names), view=state.view_for(0), rounds=(summary,))
    text = "".join(t for _, t in render_round_end(summary, snap, 60, 40))
    assert "won won" not in text
    assert "   won 0 · total" in text  # the boss's and the profiteer's second lines


def test_the_thiefs_choice_names_its_victim_once():
    """The steal line read "choice 1/3: steal @heuristic-4  (from heuristic-4)" (a play-test)."""
    from test_client_controller import find2
    from test_client_render import screen_of

    state = find2(lambda s: s.phase.value == "steal" and any(s.view_for(s.current).has_gold))
    screen, _app = screen_of(state, 100, 30)
    line = next(line for line in screen.splitlines() if " choice " in line and "/" in line)
    name = re.search(r"steal @(\S+)", line)
    assert name is not None, line
    assert line.count(name.group(1)) == 1 and "(from" not in line, line


def test_the_chat_line_kept_on_top_of_the_log_is_marked_as_said_earlier_and_goes_at_the_games_end():
    """"<bob> (leaves the table)", kept on top of the log once the moves pushed it up, read as
    bob leaving again, long after he had come back, and it stayed after "game over" (a
    play-test: one chat line was sent, and drawn again on top)."""
    from saboteur_p2p.client.model import LogKind, LogLine
    from saboteur_p2p.client.render import render_log

    left = [LogLine(LogKind.CHAT, "<bob> (leaves the table)"), LogLine(LogKind.NOTICE, "bob runs their program again")]
    moves = [LogLine(LogKind.EVENT, f"p1: move {n}", move=True) for n in range(30)]
    rows = render_log([*left, *moves], 0, 40, 10)
    assert rows[0][1].startswith("↑ <bob> (leaves the table)") and "log.pinned" in rows[0][0]
    assert sum("leaves the table" in text for _, text in rows) == 1
    over = [*left, *moves, LogLine(LogKind.EVENT, "== game over. nuggets: bob 3, p1 2. winner: bob")]
    assert not any("leaves the table" in text for _, text in render_log(over, 0, 40, 10))
