"""The heuristic bot's measure of the tunnel network (bots/tunnels.py), against walks of the maze.

``Network`` takes its shortcuts (open ends from the board's frontier, one ``Spot`` per cell,
a bound that spares a walk for most rockfalls); here every shortcut is checked against the
plain answer on the boards of random games of both editions.
"""
from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from saboteur_bots.tunnels import Network, joined_edges, network_cost, network_of

from saboteur_p2p.rules import Board, Game, GameConfig, PathCard, PathKind, PlacePath, State, TrustedDealer
from saboteur_p2p.rules.cards import EDGE_DELTA
from saboteur_p2p.rules.state import Phase


def random_boards(edition: str, seeds: range) -> Iterator[State]:
    """The states of random games, after every move of the play phase."""
    for seed in seeds:
        rng = random.Random(seed)
        state = Game(GameConfig(5, edition), TrustedDealer(seed)).new_state()
        while not state.is_terminal():
            state.push(rng.choice(state.legal_actions()))
            if state.phase is Phase.PLAY:
                yield state


def walked_cost(board: Board, goal_mask: int, without: tuple[int, int] | None = None) -> float:
    """The network's cost from a walk of the whole maze (``without``: that tunnel taken out)."""
    net = Network(board, goal_mask)
    counts = [0] * 32
    for cell in board.open_ends(without=without):
        counts[net.distance(cell)] += 1
    return network_cost(counts)


def face_up_around(board: Board, cell: tuple[int, int]) -> int:
    """The edges of ``cell`` beyond which lies a face-up card."""
    x, y = cell
    edges = 0
    for edge, (dx, dy) in EDGE_DELTA.items():
        tile = board.tiles.get((x + dx, y + dy))
        if tile is not None and tile.card is not None:
            edges |= edge
    return edges


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_the_open_ends_are_the_walked_ones(edition):
    for state in random_boards(edition, range(6)):
        board = state.board
        assert set(Network(board, 7).ends) == board.open_ends()


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_a_placement_costs_what_the_maze_costs_after_it(edition):
    checked = 0
    for state in random_boards(edition, range(4)):
        board = state.board
        goal_mask = random.Random(len(state.events)).randrange(1, 8)
        net = Network(board, goal_mask)
        for action in state.legal_actions():
            if not isinstance(action, PlacePath):
                continue
            face = state.faces[action.card]
            assert isinstance(face, PathCard)
            incoming = net.incoming(action.cell)
            joined = joined_edges(face.turned_segments(action.turned), incoming)
            if face.ladder or joined & ~incoming & face_up_around(board, action.cell):
                continue  # the network may grow beyond the card's own openings: not measured
            after = board.clone()
            after.place(action.cell, PathCard(PathKind.TUNNEL, (joined,)), False)
            placed = net.place(action.cell, joined, incoming)
            assert placed[0] == walked_cost(after, goal_mask)
            if net.spot(action.cell).still:
                assert placed == net.unchanged == (net.cost, ())
            checked += 1
    assert checked > 100


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_a_rockfall_said_not_to_help_does_not_help(edition):
    spared = 0
    for state in random_boards(edition, range(6)):
        board = state.board
        net = Network(board, 7)
        for cell in board.tunnels:
            cost = net.cost_without(cell)
            assert cost == walked_cost(board, 7, without=cell)
            if not net.may_improve_without(cell):
                assert cost >= net.cost
                spared += 1
    assert spared > 50


@pytest.mark.parametrize("edition", ["base", "saboteur2"])
def test_a_shared_network_is_measured_again_whenever_its_maze_changes(edition):
    """network_of shares one network while the maze stays as it was, and never serves one
    measured before a card was placed, a goal turned or a tunnel removed."""
    shared = 0
    for state in random_boards(edition, range(5)):
        board = state.board
        net = network_of(board, 7)
        fresh = Network(board, 7)
        assert (net.ends, net.counts, net.cost, net.best) == (fresh.ends, fresh.counts, fresh.cost, fresh.best)
        again = network_of(board, 7)
        assert again is net
        shared += 1
    assert shared > 100
    board = Board.new_round()
    before = network_of(board, 7)
    board.place((1, 0), PathCard(PathKind.TUNNEL, (2 | 8,)), False)
    after = network_of(board, 7)
    assert after is not before and (1, 0) not in after.ends and (2, 0) in after.ends
    assert network_of(board.clone(), 7) is not after  # a copy is another maze
