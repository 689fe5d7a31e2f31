"""Defects a second play-test found in what the client draws: the log's scroll, the players
panel, the round-end table, the help page, the lobby and the glyphs."""
from __future__ import annotations

from saboteur_p2p.client.model import LogKind, LogLine
from saboteur_p2p.client.render import render_log


def text(fragments: list[tuple[str, str]]) -> str:
    return "".join(t for _, t in fragments)


def test_a_scrolled_log_stays_where_it_was_read_and_counts_the_new_moves_below():
    """Scrolled back (PgUp), the log silently stopped following: no sign of the moves after."""
    lines = [LogLine(LogKind.EVENT, f"p1: move {n}", move=True) for n in range(20)]
    before = text(render_log(lines, 5, 30, 4, anchor=20)).splitlines()
    later = lines + [LogLine(LogKind.EVENT, f"p2: move {n}", move=True) for n in (20, 21, 22)]
    after = text(render_log(later, 5, 30, 4, anchor=20)).splitlines()
    assert after[:-1] == before[:-1]  # the lines being read stay put
    assert "3 new below (PgDn)" in after[-1]
    assert "new below" not in text(render_log(later, 0, 30, 4))  # at the bottom: the newest, no mark


def test_a_card_played_on_a_player_names_its_target_in_the_player_list_not_a_state_word():
    """`trapped` in the list meant both "is trapped" and "trapped someone last move"."""
    from saboteur_p2p.client.tracker import _short_move
    from saboteur_p2p.rules import ActionCard, ActionKind, CardPlayed, PlayOn

    def played(kind: ActionKind, player: int, target: int) -> str:
        return _short_move(CardPlayed(player, PlayOn(kind, target, 9), ActionCard(kind)))

    assert played(ActionKind.TRAPPED, 1, 4) == "trp→4"
    assert played(ActionKind.FREE, 1, 0) == "free→0"
    assert played(ActionKind.INSPECTION, 2, 3) == "look→3"
    assert played(ActionKind.THEFT, 3, 3) == "theft"
    for kind in ActionKind:
        if kind.value in ("trapped", "theft", "hands-off", "swap-hand", "inspection", "swap-hats", "free"):
            short = played(kind, 1, 2 if kind is not ActionKind.THEFT else 1)
            assert "trap" not in short and "thief" not in short  # the marks of a player's state


def test_a_thief_who_lost_the_round_is_not_shown_as_a_winner_and_the_finder_is_named():
    """The round-end table showed `heuristic-2  green  gold  $` for a thief who only stole."""
    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import render_round_end
    from saboteur_p2p.rules import PiecesWon, RoundEnded, Stolen

    for seed in range(40):
        state, agent, _ = followed_game(seed, players=5, edition="saboteur2")
        snap = agent.snapshot()
        rounds, events = snap.rounds, list(state.events)
        ends = [i for i, e in enumerate(events) if isinstance(e, RoundEnded)]
        for summary, start in zip(rounds, ends, strict=True):
            after = events[start:next((i for i in ends if i > start), len(events))]
            won = {e.player for e in after if isinstance(e, PiecesWon) and e.pieces}
            thieves = {e.thief for e in after if isinstance(e, Stolen) and e.victim is not None} - won - {snap.seat}
            if not thieves:
                continue
            thief = min(thieves)
            assert summary.won[thief] == "-" and summary.stole[thief]
            compact = "".join(t for _, t in render_round_end(summary, snap, 30, 12)).splitlines()
            row = next(line for line in compact if line.startswith(" " + snap.name(thief)[:4]))
            assert row.split()[-2] == "+st", row  # won nothing, stole: not "gold", nor "-+st"
            roomy = "".join(t for _, t in render_round_end(summary, snap, 60, 30))
            assert f"{snap.name(thief)}:" in roomy and "won - · stole a piece · total" in roomy
            if summary.reached is not None:
                assert "reached the treasure" in "".join(t for _, t in render_round_end(summary, snap, 40, 30))
            return
    raise AssertionError("no game with a thief who lost the round")


def test_the_round_end_names_who_reached_the_treasure_and_what_the_doors_left_open():
    from test_client_rounds import followed_game

    from saboteur_p2p.client.screens import render_round_end

    for seed in range(10):
        _state, agent, _ = followed_game(seed, players=5, edition="saboteur2")
        snap = agent.snapshot()
        for summary in snap.rounds:
            if summary.reached is not None and summary.doors:
                shown = "".join(t for _, t in render_round_end(summary, snap, 40, 30))
                name = "you" if summary.reached == snap.seat else snap.name(summary.reached)
                assert f"{name} reached the treasure" in shown and "door" in shown
                return
    raise AssertionError("no round where the treasure was reached")


def test_the_help_page_follows_the_edition_and_each_symbol_means_one_thing():
    """Saboteur 2's help showed gold cards, keep and take; × meant two things; "( left)"."""
    import re

    from saboteur_p2p.client.guide import help_text

    second, base = help_text("saboteur2"), help_text("base")
    for absent in ("g0 gold cards", "keep 1", "take 2+1"):
        assert absent not in second and absent in base, absent
    for absent in ("trapped @bob", "pass 4,5,6", "╫ ladder", "trp→4"):
        assert absent not in base and absent in second, absent
    for page in (second, base):
        assert page.count("×") == 1  # a card a rockfall removed, nothing else
        assert not re.search(r"\( ", page)
    assert "• a card marked" in second


def test_the_log_and_the_player_list_draw_a_card_with_the_glyph_the_maze_shows():
    """The log drew a double curve as ┼ while the maze drew ╲."""
    from test_client_render import card2, tunnel

    from saboteur_p2p.client.maze import tile_rows
    from saboteur_p2p.client.tracker import _short_move
    from saboteur_p2p.match import move_words
    from saboteur_p2p.rules import CardPlayed, PlacePath

    for card in (card2("NE", "SW"), card2("NW", "ES"), card2("NS", "EW"), tunnel("NESW"), tunnel("ESW")):
        for turned in (False, True):
            event = CardPlayed(1, PlacePath(7, 2, 0, turned), card)
            logged = move_words(event, ["ann", "bob"], 0)
            glyph = logged.split(" at ")[0].split()[-1]
            assert glyph.replace("─", "") in tile_rows(card, turned)[1], (logged, tile_rows(card, turned))
            assert _short_move(event).split()[0] == glyph
            assert "┼" not in logged or card == tunnel("NESW")
