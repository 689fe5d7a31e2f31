"""What a play-test of the base game found (2026-12-06): a table's variants were said nowhere,
not in the log, the help page, the plain prompt nor a joiner's lobby line, so the rules
changed in silence (stones in the gold pile, a selfish dwarf among the roles)."""
from __future__ import annotations

import threading

from test_lobby import HostedTable
from test_lobby import context as context  # the fixture: a test below takes it by name

from saboteur_p2p.client.guide import help_text
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net.agents import LineAgent
from saboteur_p2p.net.lobby import join_lobby
from saboteur_p2p.net.transport import Transport
from saboteur_p2p.rules import VARIANTS, Game, GameConfig, TrustedDealer

PLAYED = frozenset(("stone-nuggets", "selfish-dwarf"))


def test_the_help_page_names_the_table_s_variants_and_what_each_changes():
    page = help_text("base", PLAYED)
    first = page.split("\n\n")[0].replace("\n", " ")
    assert first.startswith("This table plays the variants: selfish-dwarf (")
    for variant in PLAYED:
        assert f"{variant} ({VARIANTS[variant]})" in first
    assert "variants" not in help_text("base").split("\n\n")[0]  # the plain game says nothing of them


def test_the_log_says_the_table_s_variants_when_the_player_sits_down():
    from test_client_controller import seated

    state = Game(GameConfig(5, variants=PLAYED), TrustedDealer(3)).new_state()
    agent, _node, _ctl = seated(state, 0)
    said = [line.text for line in agent.log_lines()]
    assert any(text.startswith("this table plays variants: selfish-dwarf (") and "stone-nuggets (" in text for text in said), said
    plain_state = Game(GameConfig(5), TrustedDealer(3)).new_state()
    plain, _node, _ctl = seated(plain_state, 0)
    assert not any("variants" in line.text for line in plain.log_lines())


def test_the_plain_prompt_says_the_table_s_variants():
    from saboteur_p2p.client.local import LocalNode, LocalSetup

    said: list[str] = []
    agent = LineAgent(said.append)
    agent._reading = True  # no reader of this process's stdin
    state = Game(GameConfig(4, variants=PLAYED), TrustedDealer(1)).new_state()
    agent.start(0, LocalNode(LocalSetup(state.config, ("a", "b", "c", "d")), state))
    assert said == [f"this table plays variants: selfish-dwarf ({VARIANTS['selfish-dwarf']}); "
                    f"stone-nuggets ({VARIANTS['stone-nuggets']})"]


def test_a_joiner_is_told_the_table_s_variants_as_it_is_seated(context):
    table = HostedTable(4, config=GameConfig(4, variants=PLAYED))
    said: list[str] = []
    identity = Identity.generate()
    transport = Transport("127.0.0.1:0", context, link_keys=identity.link_keys())
    leaving = threading.Event()
    joiner = threading.Thread(target=lambda: _join(identity, transport, table, said, leaving), daemon=True)
    joiner.start()
    try:
        for _ in range(100):
            if any(line.startswith("seated at") for line in said):
                break
            joiner.join(0.1)
        seated = [line for line in said if line.startswith("seated at")]
        assert seated and "(base edition; variants selfish-dwarf, stone-nuggets)" in seated[0], said
    finally:
        leaving.set()
        joiner.join(10)
        table.close()


def _join(identity: Identity, transport: Transport, table: HostedTable, said: list[str], leaving: threading.Event) -> None:
    try:
        join_lobby(identity, "ann", transport, table.transport.endpoint, None, said.append, timeout=15, leaving=leaving.is_set)
    except BaseException:  # the lobby is left on purpose: what it said is the test's
        pass
    finally:
        transport.close()


def test_when_the_hand_counts_leave_the_players_lines_the_title_says_the_count_once():
    """At 80 columns the hand counts left every line while a tool was broken (all hands alike,
    the last moves wanted the room), and a player missed them: the title now says it."""
    from dataclasses import replace

    from test_client_playtest3 import BOTS, _table
    from test_client_render import text

    from saboteur_p2p.client.app import SIDE_MIN
    from saboteur_p2p.client.render import render_players
    from saboteur_p2p.client.tracker import LastMove

    busy, ctl = _table(("tester", *BOTS))
    assert busy.view is not None and len(set(busy.view.hand_sizes)) == 1
    moves = {s: LastMove(s, "", None, s + 1, "fix lamp→1", "fix→1") for s in range(len(busy.names))}
    lines = text(render_players(replace(busy, last_moves=moves), ctl.focus(), SIDE_MIN)).splitlines()
    count = busy.view.hand_sizes[0]
    assert not any(f" {count}c " in line for line in lines[1:]), lines  # the column went ...
    assert lines[0].startswith(f" players · {count} cards each") and len(lines[0]) == SIDE_MIN, lines  # ... said once
    wide = text(render_players(replace(busy, last_moves={}), ctl.focus(), SIDE_MIN + 30)).splitlines()
    assert wide[0].strip() == "players" and all(f" {count}c " in line for line in wide[1:]), wide
    players = len(busy.names)
    one = replace(busy, last_moves=moves, view=busy.view._replace(hand_sizes=(1,) * players))
    assert text(render_players(one, ctl.focus(), SIDE_MIN)).splitlines()[0].startswith(" players · 1 card each ")
    for view in (busy.view._replace(hand_sizes=(0,) * players), busy.view._replace(phase="keep-gold")):
        # a round's end (a review: "0 cards each") says nothing of the hands
        title = text(render_players(replace(busy, last_moves=moves, view=view), ctl.focus(), SIDE_MIN)).splitlines()[0]
        assert title.strip() == "players", title


def test_the_plain_prompt_offers_the_takes_of_gold_that_are_legal():
    """It said "take 3+2" whatever was owed, and the move was refused where 3 was."""
    from saboteur_p2p.client.plain import plain_view
    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import Phase

    offered = 0
    for seed in range(60):
        state = Game(GameConfig(4, rounds=3), TrustedDealer(seed)).new_state()
        while not state.is_terminal() and state.phase is not Phase.TAKE_GOLD:
            state.push(state.legal_actions()[-1])  # passes: the cards run out, the saboteurs win
        if state.phase is not Phase.TAKE_GOLD:
            continue
        view = state.view_for(state.current)
        names = ["a", "b", "c", "d"]
        line = next(line for line in plain_view(view, names) if line.startswith("take gold worth"))
        offers = {text.strip() for text in line.split(":", 1)[1].split(";")}
        legal = {Words(view, names).say(action) for action in state.legal_actions()}
        assert offers == legal, (offers, legal)
        offered += 1
        if offered == 3:
            return
    raise AssertionError("no game of 60 came to a take of gold")


def test_a_rockfall_is_typed_with_at_and_a_slot_as_path_and_map_are():
    """Only "rockfall 0,1" was read; "rockfall at 0,1" and "rockfall 4 at 0,1" were refused."""
    import pytest
    from test_client_controller import find

    from saboteur_p2p.client.words import Words
    from saboteur_p2p.rules import InvalidActionError, Rockfall
    from saboteur_p2p.rules.cards import ActionCard, ActionKind

    state = find(lambda s: s.phase.value == "play" and any(isinstance(a, Rockfall) for a in s.legal_actions()))
    seat = state.current
    view = state.view_for(seat)
    words = Words(view, ["a", "b", "c", "d", "e"])
    target = next(a for a in state.legal_actions() if isinstance(a, Rockfall))
    slot, handle = next((i, h) for i, (h, card) in enumerate(view.hand, 1)
                        if isinstance(card, ActionCard) and card.kind is ActionKind.ROCKFALL)
    x, y = target.x, target.y
    assert words.read(f"rockfall {x},{y}") == words.read(f"rockfall at {x},{y}") == f"rockfall {x},{y}"
    for typed in (f"rockfall {slot} at {x},{y}", f"rockfall {slot} {x},{y}"):
        read = words.read(typed)
        assert read == f"rockfall {x},{y} #{handle}" and state.check(read, player=seat) == Rockfall(x, y, handle)
    other = next(i for i, (_, card) in enumerate(view.hand, 1)
                 if not (isinstance(card, ActionCard) and card.kind is ActionKind.ROCKFALL))
    with pytest.raises(InvalidActionError, match=f"card {other} is not a rockfall card"):
        words.read(f"rockfall {other} at {x},{y}")


def test_the_players_title_says_the_hands_while_a_stone_is_turned_too():
    """A second review: in the orient phase (mid-round, hands held) the counts showed nowhere."""
    from dataclasses import replace

    from test_client_playtest3 import BOTS, _table
    from test_client_render import text

    from saboteur_p2p.client.app import SIDE_MIN
    from saboteur_p2p.client.render import render_players
    from saboteur_p2p.client.tracker import LastMove

    busy, ctl = _table(("tester", *BOTS))
    assert busy.view is not None
    moves = {s: LastMove(s, "", None, s + 1, "fix lamp→1", "fix→1") for s in range(len(busy.names))}
    orienting = replace(busy, last_moves=moves, view=busy.view._replace(phase="orient"))
    title = text(render_players(orienting, ctl.focus(), SIDE_MIN)).splitlines()[0]
    assert title.startswith(f" players · {busy.view.hand_sizes[0]} cards each"), title
