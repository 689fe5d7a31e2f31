"""Found by the Saboteur 2 play-test of 2026-12-07: the round's end at the table."""
from __future__ import annotations

from saboteur_p2p.client.tracker import Tracker
from saboteur_p2p.rules import Game, GameConfig, PiecesWon, Role, RoundEnded, RoundStarted, Winners
from saboteur_p2p.rules.scoring2 import score_round, side_of

B, G, BOSS, PROF, GEO, SAB = Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.PROFITEER, Role.GEOLOGIST, Role.SABOTEUR


def test_a_boss_and_a_profiteer_paid_nothing_as_winners_read_as_winners_not_as_losers():
    """Both teams won with five winners: each paid 1, the boss 1 - 1 and the profiteer 1 - 2,
    both 0 (right by the rules).  Their rows said "-", as the losers' do (a play-test): they
    read "won 0", and so does our own row when we are one of them."""
    roles = (B, G, BOSS, PROF, GEO, SAB, B)
    assert side_of(Winners.BOTH_TEAMS, roles) == (0, 1, 2, 3, 6)
    names = [f"p{seat}" for seat in range(len(roles))]
    for seat in (0, 2):  # a blue digger's view, and the boss's
        state = Game(GameConfig(len(roles), "saboteur2")).new_state()
        tracker = Tracker(seat, len(roles))
        events = [RoundStarted(1, 0), RoundEnded(1, "both-teams", roles, 0),
                  *(PiecesWon(s, 1) for s in (0, 1, 6))]
        tracker.take(events, state.view_for(seat), names)
        won = tracker.summaries[-1].won
        assert won[2] == "won 0" and won[3] == "won 0", won  # the boss and the profiteer
        assert won[4] == "-" and won[5] == "-", won  # the geologist and the saboteur won nothing
        assert won[1] == "gold" and won[6] == "gold", won  # others' amounts stay secret
        assert won[0] == ("1 piece" if seat == 0 else "gold"), won


def test_the_sides_are_those_the_rules_pay():
    """side_of, read by the table, is the side score_round pays (trapped seats apart)."""
    roles = (B, G, BOSS, PROF, GEO, SAB, SAB)
    outcome = score_round(roles, None, None, [False] * 7, 0)  # nobody reached the treasure: the saboteurs win
    assert side_of(outcome.winners, roles) == outcome.paid == (3, 5, 6)



def test_twelve_seats_at_80x24_leave_the_newest_log_line_in_sight():
    """With twelve seats' lines the side panel had no row left for the log at 80x24, only its
    title: what the bots did, chat and an inspection's result were out of reach (a play-test).
    The title's row shows the newest log line then; with room, the title and the log as ever."""
    from prompt_toolkit.input import create_pipe_input
    from prompt_toolkit.output import DummyOutput
    from test_client_controller import drive, seated

    from saboteur_p2p.client.app import ClientApp

    state = drive(1, lambda s: s.phase.value == "play" and len(s.events) > 40, players=12, edition="saboteur2",
                  spec="random")
    assert state is not None
    agent, _node, _ctl = seated(state)
    for number in range(8):
        agent.say(f"log line number {number}")
    agent.say("the newest line of the log")
    with create_pipe_input() as pipe:
        app = ClientApp(agent, input=pipe, output=DummyOutput())
        app.ui.round_seen = state.round
        small = app.render_text(80, 24)
        small = app.render_text(80, 24)  # the second frame knows the log had no row in the first
        # PgUp goes back a row at a time there (a page of the panel's size skipped four in five: a review)
        app._scroll(1)
        app.render_text(80, 24)
        assert "log line number 7" in app.render_text(80, 24)
        app._scroll(1)
        app.render_text(80, 24)
        assert "log line number 6" in app.render_text(80, 24)
        app._scroll(-2)
        app.render_text(120, 40)
        big = app.render_text(120, 40)
    assert app.ui.log_rows > 0
    assert "the newest line of the log" in small and "log & chat" not in small, small
    assert "log & chat" in big and "the newest line of the log" in big
