"""The registry of editions: what a game of each edition is built from.

An edition is one module that defines its ``State`` subclass and registers an ``Edition``
naming it (as OpenSpiel registers a game by name).  Code that needs an edition's parts asks
this registry by the name in ``GameConfig.edition``; nothing outside an edition's own module
imports it.  The package ``saboteur_p2p.rules`` imports every bundled edition module, so the
registry is complete once the package is imported.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .cards import Card, Role
    from .config import GameConfig
    from .phases import Winners
    from .state import State


@dataclass(frozen=True)
class Edition:
    """One edition of the game: its rules engine, decks, table sizes and words."""

    #: the name in ``GameConfig.edition``, on the wire and on the command line
    name: str
    #: how a player names it ("the base game", "Saboteur 2")
    title: str
    #: the fewest and the most players at a table
    players: tuple[int, int]
    #: the named variants (of ``config.VARIANTS``) that apply to it
    variants: frozenset[str]
    #: the engine of a game of this edition; ``State.new`` builds one
    state_class: type[State]
    #: the role (dwarf) cards shuffled for a round of this config
    role_cards: Callable[[GameConfig], list[Card]]
    #: the draw deck shuffled for every round
    draw_cards: Callable[[], list[Card]]
    #: what a score counts, singular: "nugget" (gold cards' values) or "gold piece"
    gold_unit: str
    #: whether a player's gold is a public count of pieces (no hidden gold cards to reveal)
    public_gold: bool
    #: the most gold all seats of a game of this config can end with together (a bound a
    #: results file's scores are checked against)
    most_gold: Callable[[GameConfig], int]
    #: the seats on the side that won a round of a kind, from the round's roles, where the kind
    #: tells them (Saboteur 2's); None where it does not (a base game's selfish dwarf)
    winning_side: Callable[[Winners, Sequence[Role]], tuple[int, ...]] | None = None


_REGISTRY: dict[str, Edition] = {}


def register(edition: Edition) -> Edition:
    """Add an edition; a name may be registered once."""
    if edition.name in _REGISTRY:
        raise ValueError(f"an edition named {edition.name!r} is registered already")
    _REGISTRY[edition.name] = edition
    return edition


def edition_named(name: str) -> Edition:
    """The registered edition called ``name``; ValueError names the known ones."""
    try:
        return _REGISTRY[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown edition {name!r}; known: {', '.join(edition_names())}") from None


def edition_names() -> tuple[str, ...]:
    """The registered editions' names, in the order they were registered (the base game first)."""
    return tuple(_REGISTRY)


def players_help() -> str:
    """The table sizes of every edition, for command-line help: "3-10 (base), 2-12 (saboteur2)"."""
    return ", ".join(f"{e.players[0]}-{e.players[1]} ({e.name})" for e in _REGISTRY.values())
