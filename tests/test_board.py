"""Path card placement (rules.md 2.1 and 3, "Path card") and the maze's tunnel network."""
from __future__ import annotations

import pytest
from conftest import build, path, place_text, random_game, segments_of, snapshot

from saboteur_p2p.rules import GOAL_CELLS, START_CELL, Board, Game, GameConfig, IllegalActionError, Tool
from saboteur_p2p.rules.actions import PlacePath
from saboteur_p2p.rules.cards import ALL_EDGES, EDGE_DELTA, EDGE_ORDER, OPPOSITE, PathCard, PathKind
from saboteur_p2p.rules.state import Phase

# -- the set-up -------------------------------------------------------------------------


def test_new_round_board_start_and_three_face_down_goals():
    board = Board.new_round()
    assert START_CELL == (0, 0)
    assert GOAL_CELLS == ((8, -2), (8, 0), (8, 2))
    assert board.tiles[START_CELL].card.kind is PathKind.START
    assert board.connected == {START_CELL: ALL_EDGES}
    assert sorted(board.face_down_goals().values()) == [0, 1, 2]
    for cell in GOAL_CELLS:
        assert board.tiles[cell].face_down and cell not in board.openings
    # only the four cells around the start take a card
    assert set(board.frontier) == {(1, 0), (-1, 0), (0, 1), (0, -1)}


# -- fit on every side ------------------------------------------------------------------

# (cell beside the start, a card with an opening towards the start, one with a wall there)
BESIDE_START = [
    ((1, 0), "WE", "NS"),    # the new card's W side meets the start
    ((-1, 0), "WE", "NS"),   # its E side
    ((0, 1), "NS", "WE"),    # its N side
    ((0, -1), "NS", "WE"),   # its S side
]


@pytest.mark.parametrize(("cell", "side"), [((1, 0), "west"), ((-1, 0), "east"), ((0, 1), "north"), ((0, -1), "south")])
def test_a_card_that_does_not_fit_is_told_which_neighbour_and_what_faces_it(cell, side):
    board = Board.new_round()
    wall = {"west": "NS", "east": "NS", "north": "WE", "south": "WE"}[side]  # a wall towards the start
    assert board.placement_problem(cell, segments_of(wall)) == (
        f"the card does not fit the card to its {side} at (0, 0), which has a tunnel facing it"
    )


@pytest.mark.parametrize("cell, good, bad", BESIDE_START)
def test_opening_must_meet_opening_on_every_side(cell, good, bad):
    board = Board.new_round()
    assert board.placement_problem(cell, segments_of(good)) is None
    assert "does not fit" in board.placement_problem(cell, segments_of(bad))
    state = build(3, hands={0: [good, bad]})
    before = snapshot(state)
    with pytest.raises(IllegalActionError, match="does not fit"):
        state.play(place_text(state, 0, bad, cell))
    assert snapshot(state) == before
    state.play(place_text(state, 0, good, cell))
    assert state.board.tiles[cell].card == path(good)[0]


# (maze, cell, good, bad): the bad card opens towards a neighbour's wall on the named side
WALL_SIDES = {
    "W": ({(1, 0): "WS", (0, 1): "NS"}, (1, 1), "NS", "NSW"),
    "E": ({(-1, 0): "ES", (0, 1): "NS"}, (-1, 1), "NS", "NES"),
    "N": ({(0, 1): "NE", (1, 0): "WE"}, (1, 1), "WE", "NEW"),
    "S": ({(0, -1): "SE", (1, 0): "WE"}, (1, -1), "WE", "WES"),
}


@pytest.mark.parametrize("side", sorted(WALL_SIDES))
def test_wall_must_meet_wall_on_every_side(side):
    maze, cell, good, bad = WALL_SIDES[side]
    state = build(3, maze=maze, hands={0: [good, bad]})
    with pytest.raises(IllegalActionError, match="does not fit"):
        state.play(place_text(state, 0, bad, cell))
    state.play(place_text(state, 0, good, cell))
    assert cell in state.placed


def test_a_card_may_be_turned_to_fit():
    # north of the start the {N,W} curve fits only turned, as {S,E}
    state = build(3, hands={0: ["NW"]})
    card = state.hands[0][0]
    with pytest.raises(IllegalActionError, match="does not fit"):
        state.play(f"path {card} at 0,-1")  # upright: N,W open, S is a wall facing the start
    state.play(f"path {card} at 0,-1 turned")  # turned: S,E
    tile = state.board.tiles[(0, -1)]
    assert tile.turned and tile.openings == segments_of("SE")[0]
    assert state.board.connected[(0, -1)] == segments_of("SE")[0]


# -- where a card may go -----------------------------------------------------------------


def test_start_goal_and_occupied_cells_are_refused():
    state = build(3, maze={(1, 0): "WE"}, hands={0: ["NESW"]})
    card = state.hands[0][0]
    for cell, words in (((0, 0), "start cell"), ((8, 0), "goal cell"), ((1, 0), "already holds")):
        with pytest.raises(IllegalActionError, match=words):
            state.play(f"path {card} at {cell[0]},{cell[1]}")


def test_a_card_must_touch_a_card():
    state = build(3, hands={0: ["NESW"]})
    with pytest.raises(IllegalActionError, match="touches no card"):
        state.play(f"path {state.hands[0][0]} at 3,3")


def test_a_card_that_does_not_join_the_start_network_is_refused():
    # the dead end {W},{E} at (1,0): its E opening is not joined to the start
    state = build(3, maze={(1, 0): "W+E"}, hands={0: ["WE"]})
    assert state.board.connected[(1, 0)] == segments_of("W")[0]
    assert state.board.fits((2, 0), segments_of("WE")[0])
    with pytest.raises(IllegalActionError, match="would not join the start's tunnel network"):
        state.play(place_text(state, 0, "WE", (2, 0)))
    assert not any(isinstance(a, PlacePath) and a.cell == (2, 0) for a in state.legal_actions())


def test_a_card_joined_only_to_a_cut_off_fragment_is_refused():
    # (2,0) and (3,0) lie beyond a dead end, so they are not connected to the start
    state = build(3, maze={(1, 0): "W+E", (2, 0): "WE", (3, 0): "WE"}, hands={0: ["WE", "WS"]})
    assert (2, 0) not in state.board.connected and (3, 0) not in state.board.connected
    with pytest.raises(IllegalActionError, match="would not join"):
        state.play(place_text(state, 0, "WE", (4, 0)))


def test_a_card_joined_through_one_segment_only_is_legal():
    # the dead end {W},{E},{S} east of the start: only its W segment joins the network
    state = build(3, hands={0: ["W+E+S"]})
    state.play(place_text(state, 0, "W+E+S", (1, 0)))
    assert state.board.connected[(1, 0)] == segments_of("W")[0]


def test_face_down_goal_imposes_nothing():
    maze = {(x, 0): "WE" for x in range(1, 7)}
    maze[(7, 0)] = "WS"  # its E wall faces the middle goal
    maze[(7, 1)] = "NE"
    state = build(3, maze=maze, hands={0: ["WE", "WN", "NS", "NS"]})
    # (8,1) lies between two goals: any card opening W fits there, whatever it shows the goals
    west = segments_of("W")[0]
    allowed = {o for o in range(16) if state.board.can_place((8, 1), o)}
    assert allowed == {o for o in range(16) if o & west}
    all_down = {cell: slot for slot, cell in enumerate(GOAL_CELLS)}
    state.play(place_text(state, 0, "WE", (8, 1)))  # walls towards both goals: nothing revealed
    state.play(place_text(state, 0, "WN", (9, 1)))
    # (9,0) east of the middle goal with a wall towards it; (9,-1) between goal rows
    state.play(place_text(state, 0, "NS", (9, 0)))
    state.play(place_text(state, 0, "NS", (9, -1)))
    assert state.board.face_down_goals() == all_down


def test_the_board_is_unbounded():
    state = build(3, maze={(0, -1): "NS", (0, -2): "NS", (0, -3): "NS"}, hands={0: ["NS"], 1: ["NS"]})
    state.play(place_text(state, 0, "NS", (0, -4)))  # beyond the 5 x 9 frame
    assert (0, -4) in state.board.connected


def test_a_player_with_a_broken_tool_cannot_place_paths():
    for tool in Tool:
        state = build(3, hands={0: ["NESW"], 1: ["NS"]}, broken={0: [tool]})
        before = snapshot(state)
        with pytest.raises(IllegalActionError, match=f"broken tool \\({tool.value}\\)"):
            state.play(place_text(state, 0, "NESW", (1, 0)))
        assert snapshot(state) == before
        assert not any(isinstance(a, PlacePath) for a in state.legal_actions())


def test_removing_a_card_cuts_the_network():
    board = Board.new_round()
    for cell, spec in (((1, 0), "WE"), ((2, 0), "WE"), ((3, 0), "WE")):
        card, turned = path(spec)
        board.place(cell, card, turned)
    assert (3, 0) in board.connected and board.can_place((4, 0), segments_of("WE")[0])
    board.remove((2, 0))
    assert (2, 0) not in board.tiles and (3, 0) not in board.connected
    assert not board.can_place((4, 0), segments_of("WE")[0])
    assert board.can_place((2, 0), segments_of("WE")[0])  # the hole may be refilled
    card, turned = path("WE")
    board.place((2, 0), card, turned)
    assert (3, 0) in board.connected and board.can_place((4, 0), segments_of("WE")[0])


# -- the incremental network against a plain reference ---------------------------------------


def reference_connected(board: Board) -> dict[tuple[int, int], int]:
    """Edges joined to the start, by a breadth-first search over segments."""
    connected = {START_CELL: ALL_EDGES}
    queue = [START_CELL]
    while queue:
        cell = queue.pop()
        for edge in EDGE_ORDER:
            if not connected[cell] & edge:
                continue
            dx, dy = EDGE_DELTA[edge]
            other = (cell[0] + dx, cell[1] + dy)
            tile = board.tiles.get(other)
            if tile is None or tile.card is None:
                continue
            for segment in tile.segments:
                if segment & OPPOSITE[edge] and not connected.get(other, 0) & segment:
                    connected[other] = connected.get(other, 0) | segment
                    queue.append(other)
    return connected


def reference_legal(board: Board, cell: tuple[int, int], openings: int) -> bool:
    """rules.md 3: empty cell, touches a card, fits face-up neighbours, joins the network."""
    if cell in board.tiles:
        return False
    connected = reference_connected(board)
    touches = joins = False
    for edge in EDGE_ORDER:
        dx, dy = EDGE_DELTA[edge]
        other = (cell[0] + dx, cell[1] + dy)
        tile = board.tiles.get(other)
        if tile is None:
            continue
        touches = True
        if tile.card is None:
            continue
        if bool(tile.openings & OPPOSITE[edge]) != bool(openings & edge):
            return False
        if openings & edge and connected.get(other, 0) & OPPOSITE[edge]:
            joins = True
    return touches and joins


def reference_placements(state, cells) -> set[PlacePath]:
    """The current player's distinct legal placements: lowest handle per face, symmetric cards upright."""
    p = state.current
    if state.broken[p]:
        return set()
    found: set[PlacePath] = set()
    seen: set[PathCard] = set()
    for handle in sorted(state.hands[p]):
        card = state.faces[handle]
        if not isinstance(card, PathCard) or card in seen:
            continue
        seen.add(card)
        for turned in (False, True) if not card.symmetric else (False,):
            openings = card.turned_openings if turned else card.openings
            found |= {PlacePath(handle, x, y, turned) for x, y in cells if reference_legal(state.board, (x, y), openings)}
    return found


@pytest.mark.parametrize("seed", range(6))
def test_frontier_agrees_with_reference_through_random_games(seed):
    config = GameConfig(players=3 + seed, rounds=1)
    _, played = random_game(config, seed)
    # replay the game, comparing before every action
    state = Game(config, seed=seed).new_state()
    for action in played:
        board = state.board
        if state.phase is Phase.PLAY:
            assert {c: m for c, m in board.connected.items() if board.tiles[c].card is not None} == reference_connected(board)
            cells = {(x + dx, y + dy) for (x, y) in board.tiles for dx, dy in EDGE_DELTA.values()}
            cells -= set(board.tiles)
            for cell in cells:
                for openings in range(1, 16):
                    assert board.can_place(cell, openings) == reference_legal(board, cell, openings), (cell, openings)
            for cell in board.frontier:
                assert cell in cells
            assert {a for a in state.legal_actions() if isinstance(a, PlacePath)} == reference_placements(state, cells)
        state.push(action)


def _maze_as_kept(board: Board) -> tuple[object, ...]:
    """Everything a maze keeps up to date, in its dicts' order (the order of the legal
    placements comes from it)."""
    return (
        list(board.openings.items()), list(board.tunnels), list(board.connected.items()),
        list(board.frontier.items()), [list(cells) for cells in board.cells_for_openings],
    )


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_a_rockfall_leaves_the_maze_as_a_rebuild_from_its_cards_would(edition):
    """A rockfall recomputes only the frontier cells it can change (Board.remove); what it
    leaves, dict order included, is what a rebuild from the cards alone makes."""
    import random

    from saboteur_p2p.match import bot_seed
    from saboteur_p2p.rules import Rockfall
    from saboteur_p2p.rules.dealer import TrustedDealer

    rockfalls = 0
    for seed in range(40):
        rng = random.Random(bot_seed(seed, 0))
        state = Game(GameConfig(5, edition), TrustedDealer(seed)).new_state()
        while not state.is_terminal():
            legal = state.legal_actions()
            falls = [a for a in legal if type(a) is Rockfall]
            action = rng.choice(falls) if falls and rng.random() < 0.5 else rng.choice(legal)
            state.push(action)
            if type(action) is Rockfall and state.board.tiles.get((action.x, action.y)) is None:
                rockfalls += 1
                rebuilt = state.board.clone()
                rebuilt.rebuild()
                assert _maze_as_kept(state.board) == _maze_as_kept(rebuilt), (seed, action)
    assert rockfalls > 100  # the test saw rockfalls that cut the network and ones that did not


def test_a_placed_card_lies_in_the_maze_as_itself_even_when_an_equal_one_lay_before():
    """Tiles are kept by card and turn (board._tile): a card made elsewhere (a bot's, a
    test's) is another object equal to the deck's; each maze holds the very card placed in it."""
    import dataclasses

    deck_card, _ = path("NS")
    twin = dataclasses.replace(deck_card)
    assert twin == deck_card and twin is not deck_card
    first, second = Board.new_round(), Board.new_round()
    first.place((0, 1), deck_card, False)
    second.place((0, 1), twin, False)
    assert first.tiles[(0, 1)].card is deck_card and second.tiles[(0, 1)].card is twin
    assert second.tiles[(0, 1)].segments == deck_card.segments
