"""The heuristic bot's measure of the tunnel network (bots/tunnels.py), against walks of the maze.

``Network`` takes its shortcuts (open ends from the board's frontier, one ``Spot`` per cell,
a bound that spares a walk for most rockfalls); here every shortcut is checked against the
plain answer on the boards of random games of both editions.
"""
from __future__ import annotations

import copy
import random
import sys
from collections.abc import Iterator

import pytest
from saboteur_bots import tunnels
from saboteur_bots.tunnels import Network, joined_edges, network_cost

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
def test_a_maze_is_measured_once_per_state_and_afresh_after_every_change(edition):
    """Networks of one maze in one state share what they work out (``Board.version``); a
    placed card, a turned goal or a removed tunnel gives the maze a new version, so nothing
    measured before it is used after it."""
    shared = 0
    for state in random_boards(edition, range(5)):
        board = state.board
        net = Network(board, 7)
        assert Network(board, 7).spots is net.spots
        tunnels._MEASURED.clear()
        fresh = Network(board, 7)
        assert (net.ends, net.counts, net.cost, net.best) == (fresh.ends, fresh.counts, fresh.cost, fresh.best)
        shared += 1
    assert shared > 100
    board = Board.new_round()
    before = Network(board, 7)
    board.place((1, 0), PathCard(PathKind.TUNNEL, (2 | 8,)), False)
    after = Network(board, 7)
    assert after.spots is not before.spots and (1, 0) not in after.ends and (2, 0) in after.ends
    assert Network(board.clone(), 7).spots is not after.spots  # a copy is another maze
    assert Network(copy.deepcopy(board), 7).spots is not after.spots


def test_what_is_shared_holds_no_maze():
    """The game's maze is copied before a change while anything else holds it
    (``held_elsewhere``): a measurement kept for the next turn must not be one of those."""
    board = Board.new_round()
    alone = sys.getrefcount(board)
    Network(board, 7).spot((1, 0))
    assert sys.getrefcount(board) == alone
