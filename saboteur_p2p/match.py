"""Playing one game in-process between bots, as tournaments and tests do."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .botapi import Bot, GuardedSeat, Incident, bot_watchdog, load_bot
from .rules import (
    ActionKind,
    AnyAction,
    CardPlayed,
    Clear,
    Event,
    Game,
    GameConfig,
    GameEnded,
    GoalRevealed,
    GoldReceived,
    Pass,
    PiecesWon,
    PlayOn,
    Role,
    RoundEnded,
    RoundStarted,
    State,
    Stolen,
    TrustedDealer,
    Winners,
)


@dataclass
class GameRecord:
    """What happened in one game: enough to replay it and to score the bots."""

    seed: int
    config: GameConfig
    bots: tuple[str, ...]
    actions: list[str] = field(default_factory=list)
    scores: tuple[int, ...] = ()
    winners: tuple[int, ...] = ()
    roles: list[tuple[Role, ...]] = field(default_factory=list)
    round_winners: list[Winners] = field(default_factory=list)
    #: Saboteur 2: the seats trapped at the end of each round (they win nothing)
    round_trapped: list[tuple[int, ...]] = field(default_factory=list)
    incidents: list[Incident] = field(default_factory=list)


def bot_seed(game_seed: int, seat: int) -> int:
    return (game_seed * 1_000_003 + seat * 7_919) % (1 << 62)


def play_game(
    config: GameConfig,
    bots: Sequence[Bot | str],
    seed: int,
    names: Sequence[str] | None = None,
    time_limit: float | None = 5.0,
    record_actions: bool = True,
) -> GameRecord:
    """Play a whole game between ``bots`` (one per seat) with a trusted dealer seeded by ``seed``."""
    if len(bots) != config.players:
        raise ValueError(f"{config.players} players need {config.players} bots, not {len(bots)}")
    loaded = [load_bot(b) if isinstance(b, str) else b for b in bots]
    labels = tuple(names) if names is not None else tuple(b if isinstance(b, str) else type(b).__name__ for b in bots)
    seats = [GuardedSeat(bot, labels[i], i, time_limit) for i, bot in enumerate(loaded)]
    for i, seat in enumerate(seats):
        seat.start(config, bot_seed(seed, i))
    state = Game(config, TrustedDealer(seed)).new_state()
    record = GameRecord(seed, config, labels)
    listeners = [seat for seat in seats if seat.listens]
    delivered = _deliver(state, listeners, 0)
    with bot_watchdog():
        while not state.is_terminal():
            action = seats[state.current].act_in(state)
            state.push(action)
            if record_actions:
                record.actions.append(str(action))
            if listeners:
                delivered = _deliver(state, listeners, delivered)
    record.scores = state.scores or ()
    best = max(record.scores)
    record.winners = tuple(i for i, s in enumerate(record.scores) if s == best)
    record.roles = [r.roles for r in state.results]
    record.round_winners = [r.winners for r in state.results]
    record.round_trapped = [r.trapped for r in state.results]
    for seat in seats:
        record.incidents += seat.incidents
    return record


def _deliver(state: State, seats: Sequence[GuardedSeat], delivered: int) -> int:
    events = state.events
    for event in events[delivered:]:
        for seat in seats:
            seat.notify(event)
    return len(events)


def replay(config: GameConfig, seed: int, actions: Sequence[str]) -> State:
    """Rebuild a game from its seed and action texts, checking every action."""
    state = Game(config, TrustedDealer(seed)).new_state()
    for text in actions:
        state.play(text)
    return state


#: Saboteur 2 action cards played on a player, told in words ({t}: the target's seat).
_PLAYED_ON = {
    ActionKind.THEFT: "puts a Theft in front of themself",
    ActionKind.HANDS_OFF: "takes away P{t}'s Theft",
    ActionKind.SWAP_HAND: "swaps hands with P{t}",
    ActionKind.INSPECTION: "looks at P{t}'s dwarf card",
    ActionKind.SWAP_HATS: "makes P{t} swap their dwarf card",
    ActionKind.TRAPPED: "traps P{t}",
    ActionKind.FREE: "frees P{t}",
}
#: Roles only Saboteur 2 deals: their gold is counted in pieces, not nuggets.
_SABOTEUR2_ROLES = frozenset((Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.PROFITEER, Role.GEOLOGIST))


def _in_words(action: AnyAction) -> str:
    """What a Saboteur 2 turn did, for the account of a game ('' for the base game's turns)."""
    if isinstance(action, PlayOn):
        return _PLAYED_ON[action.kind].format(t=action.target)
    if isinstance(action, Clear):
        what = action.what if action.what in ("trapped", "theft") else f"broken {action.what}"
        return f"discards two cards to remove the {what} card in front of them"
    if isinstance(action, Pass) and action.more:
        return f"discards {len(action.cards)} cards"
    return ""


def narrate(events: Sequence[Event], names: Sequence[str], viewer: int | None = None) -> Iterator[str]:
    """Public events as lines of text, for a move-by-move account of a game.

    With a ``viewer`` (a seat at the table, not an onlooker), the Saboteur 2 gold pieces won
    by others are not counted out: their totals are secret until the game ends (RULES.md 8).
    """
    unit = "nuggets"
    for event in events:
        if isinstance(event, RoundStarted):
            yield f"-- round {event.round}: player {event.first_player} starts"
        elif isinstance(event, CardPlayed):
            card = "face down" if event.card is None else event.card.code
            words = _in_words(event.action)
            yield f"P{event.player} {names[event.player]}: {event.action}  [{card}]" + (f"  ({words})" if words else "")
        elif isinstance(event, GoalRevealed):
            turn = " turned" if event.turned else ""
            yield f"   goal {event.slot} revealed: {event.card.code}{turn}"
        elif isinstance(event, RoundEnded):
            if _SABOTEUR2_ROLES.intersection(event.roles):
                unit = "gold pieces"
            roles = ", ".join(f"P{i} {r.value}" for i, r in enumerate(event.roles))
            yield f"-- round {event.round} won by {event.winners}; roles: {roles}"
        elif isinstance(event, GoldReceived):
            yield f"   P{event.player} receives {event.cards} gold card(s)"
        elif isinstance(event, PiecesWon):
            if viewer is None or event.player == viewer:
                yield f"   P{event.player} wins {event.pieces} gold piece(s)"
            else:
                yield f"   P{event.player} wins gold"
        elif isinstance(event, Stolen):
            if event.victim is None:
                yield f"   P{event.thief} steals nothing"
            else:
                yield f"   P{event.thief} steals a gold piece from P{event.victim}"
        elif isinstance(event, GameEnded):
            scores = ", ".join(f"P{i} {s}" for i, s in enumerate(event.scores))
            winners = ", ".join(f"P{w} {names[w]}" for w in event.winners)
            yield f"== game over. {unit}: {scores}. winner(s): {winners}"
