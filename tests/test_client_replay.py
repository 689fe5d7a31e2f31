"""`saboteur-p2p replay LOG` in the full-screen viewer: a real signed log (a mental-poker game
between bots in one process), stepped through with keys."""
from __future__ import annotations

import io
from pathlib import Path

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from protocol_helpers import seeded_bytes

from saboteur_p2p.cli import main
from saboteur_p2p.client.replay import ReplayViewer, TableViews, steps_of
from saboteur_p2p.protocol.local import play_local_game
from saboteur_p2p.protocol.verify import replay_file
from saboteur_p2p.rules import BreakTool, CardPlayed, GameConfig, PlacePath, RepairTool, RoundEnded

# the module's finished game (a module fixture) is played once, on one worker
pytestmark = pytest.mark.xdist_group("replay-game")


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("replay")
    play_local_game(GameConfig(3, rounds=1), ["heuristic"] * 3, seed=7, rand=seeded_bytes(7),
                    log_dir=str(folder))
    return folder / "seat0.log"


def test_each_step_shows_the_maze_after_that_event(log: Path):
    verdict, observer = replay_file(str(log))
    assert verdict.ok and observer is not None and observer.state is not None
    events = observer.state.events
    steps, lines = steps_of(events, list(observer.setup.names))
    assert len(steps) == len(events) and len(lines) == len(events)
    final = observer.state.board  # one round: the engine's own maze at the end
    shown = {cell: (tile.card.code if tile.card else None) for cell, tile in steps[-1].board.tiles.items()}
    assert shown == {cell: (tile.card.code if tile.card else None) for cell, tile in final.tiles.items()}
    placed = next(i for i, e in enumerate(events) if isinstance(e, CardPlayed) and isinstance(e.action, PlacePath))
    action = events[placed].action
    assert action.cell not in steps[placed - 1].board.tiles and action.cell in steps[placed].board.tiles  # type: ignore[union-attr]
    assert steps[placed].cell == action.cell  # type: ignore[union-attr]


def _viewer(log: Path, pipe: object) -> tuple[ReplayViewer, list]:  # type: ignore[type-arg]
    """The full-screen viewer of the module's log on an 80x24 terminal, read from ``pipe``,
    and the log's events."""
    verdict, observer = replay_file(str(log))
    assert observer is not None and observer.state is not None
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm-256color")
    events = list(observer.state.events)
    viewer = ReplayViewer("seat0.log", events, list(observer.setup.names), verdict.message,
                          input=pipe, output=output)  # type: ignore[arg-type]
    return viewer, events


def test_the_viewer_steps_with_keys_and_jumps_to_the_round_end(log: Path):
    with create_pipe_input() as pipe:
        viewer, events = _viewer(log, pipe)
        assert "event 1/" in viewer.render_text().splitlines()[0]
        pipe.send_text("nnnb")  # three on, one back
        pipe.send_text("e")  # to the end of the round
        seen: dict[str, object] = {}
        pipe.send_text("q")
        viewer.run()
        seen["index"] = viewer.index
        seen["screen"] = viewer.render_text(80, 24)
    ended = next(i for i, e in enumerate(events) if isinstance(e, RoundEnded))
    assert seen["index"] == ended
    screen = str(seen["screen"])
    lines = screen.splitlines()
    assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
    assert f"event {ended + 1}/{len(events)}" in lines[0] and "round 1" in lines[0]
    assert "won by" in screen and "→ n next · ← b back · e round's end" in lines[-1]


def test_replay_plain_prints_the_game_the_verdict_and_who_the_seats_are(log: Path, capsys: pytest.CaptureFixture[str]):
    """A log made up by one person, every seat's key theirs, replayed "OK" with nothing to tell
    it apart (found by an attack): the seats' fingerprints follow the verdict, as ``verify``
    prints them, and ``--expect`` checks them."""
    from saboteur_p2p.protocol.verify import describe_setup

    assert main(["replay", str(log), "--plain"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("-- round 1: ")
    _, observer = replay_file(str(log))
    assert observer is not None
    fingerprints = [key.fingerprint() for key in observer.setup.seats]
    assert out[-3].startswith("OK: ") and out[-2:] == describe_setup(observer.setup)
    assert all(fingerprint in out[-2] for fingerprint in fingerprints)
    assert not any("#" in line for line in out)
    assert main(["replay", str(log), "--plain", "--expect", ",".join(reversed(fingerprints))]) == 0
    capsys.readouterr()
    assert main(["replay", str(log), "--plain", "--expect", ",".join(fingerprints[:-1])]) == 1
    assert capsys.readouterr().out.splitlines()[-1].startswith("the log's seats are not the expected ones: ")


def test_watching_a_live_table_the_viewer_follows_the_newest_event_unless_one_looks_back(log: Path):
    """``saboteur-p2p watch`` feeds the viewer the events as they come (``update``)."""
    _, observer = replay_file(str(log))
    assert observer is not None and observer.state is not None
    events, names = observer.state.events, list(observer.setup.names)
    output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm-256color")
    with create_pipe_input() as pipe:
        viewer = ReplayViewer("127.0.0.1:7777", [], [], "waiting", input=pipe, output=output, mode="WATCH")
        assert viewer.render_text().splitlines()[0].startswith(" WATCH 127.0.0.1:7777")
        viewer.update(events[:10], names)
        assert viewer.index == 9  # it follows the table
        viewer.update(events[:20], names)
        assert viewer.index == 19 and "event 20/20" in viewer.render_text().splitlines()[0]
        viewer.go(5)  # looking back: new events do not pull it forward
        viewer.update(events, names, "the game is over")
        assert viewer.index == 5 and viewer.verdict == "the game is over"
        viewer.go(10**9)
        assert viewer.index == len(events) - 1 and "the game is over" in viewer.render_text(80, 24)


def test_at_80_columns_every_path_laid_is_in_sight_when_its_step_is_shown(log: Path):
    """The viewer showed the goals' end of the maze only: at 80 columns a path laid left of
    x = 1, the start among them, was never drawn, and no key scrolled to it (a play-test)."""
    import re

    with create_pipe_input() as pipe:
        viewer, events = _viewer(log, pipe)
        laid = [(i, e.action.cell) for i, e in enumerate(events) if isinstance(e, CardPlayed) and isinstance(e.action, PlacePath)]
        assert any(x <= 1 for _, (x, _) in laid) and any(x >= 6 for _, (x, _) in laid)  # both ends of the maze
        for index, (x, _y) in laid:
            viewer.go(index)
            header = viewer.render_text(80, 24).splitlines()[1]
            assert re.search(rf"(?<![\d-]){x}(?!\d)", header), (index, x, header)


def test_the_players_panel_shows_each_seats_broken_tools_turn_and_last_move_as_they_stood_at_that_step(log: Path):
    """The viewer showed the maze and the log alone: who had a broken tool, whose turn it
    was and who had done what could only be read back out of the log (a play-test).  The
    panel reads the spectator's table after each record: every seat's public state then,
    no seat's own knowledge."""
    table = TableViews()
    verdict, observer = replay_file(str(log), None, table)
    assert verdict.ok and observer is not None and observer.state is not None
    events, names = list(observer.state.events), list(observer.setup.names)
    assert len(table.views) == len(events)
    assert all(view.seat == -1 and view.hand == () and view.role is None and view.gold == () for view in table.views)
    with create_pipe_input() as pipe:
        output = Vt100_Output(io.StringIO(), lambda: Size(rows=24, columns=80), term="xterm-256color")
        viewer = ReplayViewer("seat0.log", events, names, verdict.message, input=pipe, output=output,  # type: ignore[arg-type]
                              views=table.views)
        broken: list[set[str]] = [set() for _ in names]  # the tools broken, worked out from the events alone
        changed = goes_on = 0
        for index, event in enumerate(events):
            if isinstance(event, CardPlayed) and isinstance(event.action, (BreakTool, RepairTool)):
                action = event.action
                (broken[action.target].add if isinstance(action, BreakTool) else broken[action.target].discard)(
                    action.tool.value[0].upper())
                changed += 1
            if isinstance(event, RoundEnded):
                break
            viewer.go(index)
            screen = viewer.render_text(80, 24).splitlines()
            assert screen[1].rstrip().endswith("players"), screen[1]
            rows = screen[2:2 + len(names)]
            for seat, name in enumerate(names):
                row = rows[seat].split("│", 1)[1]
                assert f"{seat} {name}" in row, (index, row)
                assert ("✗" + "".join(sorted(broken[seat])) in row) if broken[seat] else "✗" not in row, (index, seat, row)
            if isinstance(event, CardPlayed):
                mover = rows[event.player].split("│", 1)[1]
                assert viewer.steps[index].last_moves[event.player].short in mover, (index, mover)
                # one seat marked ▶: the next to move, when the next event is its move; a move
                # followed in its record by a goal or the round's end marks nobody (the mover's
                # ▶ stayed on it, before the move: a play-test)
                marked = [seat for seat, row in enumerate(rows) if row.split("│", 1)[1].startswith("▶")]
                following = events[index + 1] if index + 1 < len(events) else None
                if isinstance(following, CardPlayed):
                    assert marked == [following.player], (index, rows)
                else:
                    assert marked == [], (index, rows)
                    goes_on += 1
        assert changed >= 2  # the game broke and repaired tools: the panel was put to the test
        assert goes_on >= 1  # and a move's record went on (the round's last move, at least)
        viewer.go(next(i for i, e in enumerate(events) if isinstance(e, RoundEnded)))
        rows = viewer.render_text(80, 24).splitlines()[2:2 + len(names)]
        roles = observer.state.events[viewer.index].roles  # type: ignore[union-attr]
        for seat, role in enumerate(roles):  # the round's end shows every role
            assert ("SAB" if role.value == "saboteur" else "dig") in rows[seat], (rows[seat], role)


def test_a_table_the_panel_cannot_read_never_stops_the_check_of_the_log():
    """``TableViews`` runs inside ``replay_file``'s check of every record (and a watch's): a
    state it cannot make a view of leaves those steps showing the table as last seen."""
    from types import SimpleNamespace

    class Unreadable:
        events = ("an event", "another")

        def view_for(self, seat: int) -> None:
            raise KeyError(seat)

    table = TableViews()
    table(SimpleNamespace(state=Unreadable()))
    table(SimpleNamespace(state=None))
    assert table.views == []


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_each_step_of_a_round_s_end_shows_the_roles_and_gold_its_events_have_told_so_far(tmp_path: Path, edition: str):
    """One record may make a round's last move, the goal it reached, the round's end, its gold
    seat by seat and the next round's deal; each of those steps showed the table after all of
    them (the next round's deal at a seat's gold, the roles at the last move: a play-test).
    Worked out from the events alone, step by step: the roles show from the round's end to the
    next deal, and the gold (base: cards, Saboteur 2: whether a seat holds pieces) as told."""
    from saboteur_p2p.rules import GameEnded, GoalRevealed, GoldReceived, PiecesWon, RoundStarted, Stolen

    players = 3 if edition == "base" else 4
    play_local_game(GameConfig(players, edition, rounds=2), ["heuristic"] * players, seed=11, rand=seeded_bytes(11),
                    log_dir=str(tmp_path))
    table = TableViews()
    verdict, observer = replay_file(str(tmp_path / "seat0.log"), None, table)
    assert verdict.ok and observer is not None and observer.state is not None
    events = observer.state.events
    assert len(table.views) == len(events)
    roles_shown, cards, pieces = False, [0] * players, [0] * players
    moves_told = 0
    for index, event in enumerate(events):
        if isinstance(event, RoundEnded):
            roles_shown = True
        elif isinstance(event, RoundStarted):
            roles_shown = False
        elif isinstance(event, GoldReceived):
            cards[event.player] += event.cards
        elif isinstance(event, PiecesWon):
            pieces[event.player] += event.pieces
        elif isinstance(event, Stolen) and event.victim is not None:
            pieces[event.thief] += 1
            pieces[event.victim] -= 1
        view = table.views[index]
        assert (view.revealed_roles is not None) == roles_shown or isinstance(event, GameEnded), (index, event)
        if isinstance(event, CardPlayed) and isinstance(events[index + 1], (GoalRevealed, RoundEnded)):
            # a move its record goes on from: its card is gone from the hand, nobody is to move
            # (the table before the move showed both: a play-test)
            before = table.views[index - 1]
            assert view.current_player == -1, (index, event)
            assert view.hand_sizes[event.player] == before.hand_sizes[event.player] - 1, (index, event)
            moves_told += 1
        if edition == "base":
            assert list(view.gold_counts) == cards, (index, event)
        else:
            assert list(view.has_gold) == [n > 0 for n in pieces], (index, event)
    assert sum(cards) + sum(pieces) > 0 and sum(isinstance(e, RoundEnded) for e in events) == 2
    assert moves_told == 2  # each round's last move


def test_a_theft_inside_a_record_shows_its_victim_without_gold_once_the_last_piece_is_taken():
    """Saboteur 2's thefts are made at a round's end, and the last of them shares its record
    with the next round's deal: that step showed the victim's gold pieces as before the theft
    (a review).  The pieces each seat holds are public (pieces won, pieces stolen), so the
    panel counts them."""
    from types import SimpleNamespace

    from saboteur_p2p.rules import PiecesWon, RoundStarted, State, Stolen, TrustedDealer

    real = State.new(GameConfig(4, "saboteur2"), TrustedDealer(3))

    class Spectator:  # a spectator's state whose view has the gold the table holds
        def __init__(self, events: list, has_gold: tuple[bool, ...]) -> None:
            self.events, self.has_gold = events, has_gold

        def view_for(self, seat: int):
            return real.view_for(seat)._replace(has_gold=self.has_gold)

    won = [RoundStarted(1, 0), PiecesWon(1, 1), PiecesWon(2, 2)]
    thefts = [Stolen(0, 1), Stolen(3, 2), Stolen(1, None), RoundStarted(2, 1)]
    table = TableViews()
    table(SimpleNamespace(state=Spectator(won, (False, True, True, False))))
    table(SimpleNamespace(state=Spectator(won + thefts, (True, False, True, True))))
    first, second, third = table.views[len(won):len(won) + 3]
    assert first.has_gold == (True, False, True, False)  # seat 1's only piece went to seat 0
    assert second.has_gold == (True, False, True, True)  # seat 2 kept one of its two
    assert third.has_gold == (True, False, True, True)  # seat 1's Theft stole nothing (it showed "$": a review)



def test_question_mark_shows_the_legend_of_the_panel_s_marks_and_again_hides_it(log: Path):
    """A spectator had nowhere to look up ✗CLP, g4, $ or look→1 (a play-test): ``?`` shows the
    legend over the screen, ``?`` or Esc goes back to the game."""
    with create_pipe_input() as pipe:
        viewer, _ = _viewer(log, pipe)
        assert "? legend" in viewer.render_text(80, 24).splitlines()[-1]
        pipe.send_text("?")
        pipe.send_text("q")
        viewer.run()
        shown = viewer.render_text(80, 24)
        assert viewer.legend_open and "✗CLP broken Cart, Lantern, Pickaxe" in shown and "g0 gold cards" in shown
        assert "trp→4" not in shown  # the base game's legend: no Saboteur 2 marks
        # nothing only a seated player sees: no "you", hand, cursor, dots of a card that
        # fits, or connection (the legend listed them: a review); the step's own mark is there
        for seated in ("* you", "◀ the player the card picked", "hand ", "cursor", "dots", "away", "bot (bt)"):
            assert seated not in shown, seated
        assert "▸ in a cell's corner" in shown
        viewer.toggle_legend()
        assert "✗CLP broken" not in viewer.render_text(80, 24)
