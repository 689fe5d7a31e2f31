"""Playing one game in-process between bots, as tournaments and tests do."""
from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from .botapi import Bot, GuardedSeat, Incident, lent, load_bot
from .botclock import bot_watchdog
from .rules import (
    ActionCard,
    ActionKind,
    BreakTool,
    Card,
    CardPlayed,
    Clear,
    Event,
    Game,
    GameConfig,
    GameEnded,
    GoalRevealed,
    GoldCard,
    GoldReceived,
    KeepGold,
    MapPeek,
    OrientStone,
    Pass,
    PathCard,
    PathKind,
    PiecesWon,
    PlacePath,
    PlayOn,
    RepairTool,
    Rockfall,
    Role,
    RoundEnded,
    RoundStarted,
    State,
    Steal,
    Stolen,
    TakeGold,
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
    # a bot that draws from the random module's own generator, unseeded, played another game
    # at every run and with every --jobs (found by a bot author): each game seeds it
    random.seed(bot_seed(seed, config.players))
    loaded = [load_bot(b) if isinstance(b, str) else b for b in bots]
    labels = tuple(names) if names is not None else tuple(b if isinstance(b, str) else type(b).__name__ for b in bots)
    seats = [GuardedSeat(bot, labels[i], i, time_limit) for i, bot in enumerate(loaded)]
    record = GameRecord(seed, config, labels)
    # one ticking timer for the whole game, starts included (each start armed and disarmed a
    # timer of its own: 2% of a tournament of random bots)
    with bot_watchdog() as watchdog:
        for i, seat in enumerate(seats):
            seat.start(config, bot_seed(seed, i))
            # as each start's own timer left it: what a start did to SIGALRM is undone before
            # the next seat's start (a timer switched off let a later start hang: review)
            watchdog.rearm()
        state = Game(config, TrustedDealer(seed)).new_state()
        listeners = [seat for seat in seats if seat.listens]
        dicts = not all(seat.bundled for seat in listeners)  # the maze's dicts lent read-only too
        delivered = _deliver(state, listeners, 0, dicts)
        while not state.is_terminal():
            action = seats[state.current].act_in(state)
            state.push(action)
            if record_actions:
                record.actions.append(str(action))
            if listeners:
                delivered = _deliver(state, listeners, delivered, dicts)
    record.scores = state.scores or ()
    best = max(record.scores)
    record.winners = tuple(i for i, s in enumerate(record.scores) if s == best)
    record.roles = [r.roles for r in state.results]
    record.round_winners = [r.winners for r in state.results]
    record.round_trapped = [r.trapped for r in state.results]
    for seat in seats:
        record.incidents += seat.incidents
    return record


def _deliver(state: State, seats: Sequence[GuardedSeat], delivered: int, dicts: bool) -> int:
    events = state.events[delivered:]
    with lent(state.board, dicts):
        GuardedSeat.hear_all(seats, events)
    return delivered + len(events)


def replay(config: GameConfig, seed: int, actions: Sequence[str]) -> State:
    """Rebuild a game from its seed and action texts, checking every action."""
    state = Game(config, TrustedDealer(seed)).new_state()
    for text in actions:
        state.play(text)
    return state


#: Saboteur 2 action cards played on a player, told in words ({t}: the target, {ts}: whose,
#: {self}: the player themself or yourself, {their}: their or your).
_PLAYED_ON = {
    ActionKind.THEFT: "puts a Theft in front of {self}",
    ActionKind.HANDS_OFF: "takes away {ts} Theft",
    ActionKind.SWAP_HAND: "swaps hands with {t}",
    ActionKind.INSPECTION: "looks at {ts} dwarf card",
    ActionKind.SWAP_HATS: "makes {t} swap {their} dwarf card",
    ActionKind.TRAPPED: "traps {t}",
    ActionKind.FREE: "frees {t}",
}
#: a card a player plays on themself that _PLAYED_ON would tell wrongly ("makes yourself swap")
_PLAYED_ON_SELF = {ActionKind.SWAP_HATS: "swaps {ts} dwarf card"}
#: Roles only Saboteur 2 deals: their gold is counted in pieces, not nuggets.
_SABOTEUR2_ROLES = frozenset((Role.BLUE_DIGGER, Role.GREEN_DIGGER, Role.BOSS, Role.PROFITEER, Role.GEOLOGIST))
#: the junction a path card's openings make, drawn as the client's maze draws it (N=1 E=2 S=4 W=8)
_SHAPES = {
    1: "╵", 2: "╶", 4: "╷", 8: "╴", 5: "│", 10: "─", 3: "└", 9: "┘", 6: "┌", 12: "┐",
    7: "├", 13: "┤", 11: "┴", 14: "┬", 15: "┼",
}
#: the centre of two curves that do not meet, by either curve (N=1 E=2 S=4 W=8): the diagonal
#: that keeps them apart, as the narration and the client's maze draw a double curve
CURVES_APART = {9: "╱", 6: "╱", 3: "╲", 12: "╲"}  # noqa: RUF001 (box drawing, not a slash)
_TOOL_WORDS = {"pickaxe": "pickaxe", "lantern": "lantern", "cart": "cart"}


def blind_end(card: object) -> bool:
    """Whether ``card`` is a path card whose every tunnel ends in it with no ladder: a dead end
    to people (a one-sided ladder's tunnel leads up to the start: found by a play-tester)."""
    return isinstance(card, PathCard) and card.is_dead_end and not card.ladder


def card_words(card: Card | None, turned: bool = False) -> str:
    """A card's name for people: "path ┼", "dead end ┤", "path ─+╵" (a tunnel and a dead end
    apart), "break lantern", "map", "gold 2"; a path card ``turned`` is drawn as it lies, turned."""
    if card is None:
        return "a card face down"
    if isinstance(card, PathCard):
        shape = _SHAPES.get(card.turned_openings if turned else card.openings, "?")
        if card.kind is PathKind.START:
            return "the start"
        if card.kind is PathKind.TREASURE:
            return "the treasure"
        if card.kind is PathKind.STONE:
            return f"a stone {shape}"  # its curve, as it lies, matters to the maze
        through = [s for s in card.segments if bin(s).count("1") > 1]
        # a ladder's one-sided tunnel leads up to the start: not a dead end (found by a player)
        name = "dead end" if not through and not card.ladder else "ladder" if not through else "path"
        if len(through) > 1:
            name = "bridge" if 5 in through or 10 in through else "double curve"
            # its two tunnels do not meet: drawn as the maze draws them, not as a crossing
            lying = [s for s in card.turned_segments(turned) if bin(s).count("1") > 1]
            shape = "─│─" if 5 in lying else CURVES_APART[lying[0]]
        elif through and len(card.segments) > 1:
            # a tunnel and dead ends apart from it, as the rules write them ("─+╵" for EW+N):
            # its openings' shape alone ("┴") reads as one tunnel with a branch
            shape = "+".join(_SHAPES[s] for s in sorted(card.turned_segments(turned), key=lambda s: (s.bit_count() < 2, s)))
        extras = [word for word, on in (("ladder", card.ladder and through), ("crystal", card.crystals)) if on]
        if card.door is not None:
            extras.append(f"{card.door.value} door")
        return f"{name} {shape}" + (f" ({', '.join(extras)})" if extras else "")
    if isinstance(card, ActionCard):
        tools = "/".join(_TOOL_WORDS[t.value] for t in card.tools)
        return f"{card.kind.value} {tools}" if tools else card.kind.value
    if isinstance(card, GoldCard):
        return "a stone (gold card)" if card.nuggets == 0 else f"gold {card.nuggets}"
    return "a card"


def _labels(names: Sequence[str], viewer: int | None) -> list[str]:
    """Each seat's name in the account (``you`` for the viewer); a name two seats share gets its seat."""
    labels = [name if names.count(name) == 1 else f"{name} (P{seat})" for seat, name in enumerate(names)]
    if viewer is not None and 0 <= viewer < len(labels):
        labels[viewer] = "you"
    return labels


def move_words(event: CardPlayed, names: Sequence[str], viewer: int | None = None) -> str:
    """One turn told in words, without the deck's card handles: "bob: path ┬ at 1,0" (a path
    card drawn as it lies, turned or not, as the maze shows it)."""
    who = _labels(names, viewer)
    action, card = event.action, event.card
    if isinstance(action, PlacePath):
        what = f"{card_words(card, action.turned)} at {action.x},{action.y}"
    elif isinstance(action, BreakTool):
        what = f"breaks {_whose(who, action.target, event.player)} {action.tool.value}"
    elif isinstance(action, RepairTool):
        what = f"repairs {_whose(who, action.target, event.player)} {action.tool.value}"
    elif isinstance(action, Rockfall):
        what = f"rockfall at {action.x},{action.y}"
    elif isinstance(action, MapPeek):
        what = f"looks at goal {action.goal} with a map"
    elif isinstance(action, PlayOn):
        you = who[action.target] == "you"
        self_word = "yourself" if you else "themself"
        own = _PLAYED_ON_SELF.get(action.kind) if action.target == event.player else None
        what = (own or _PLAYED_ON[action.kind]).format(
            t=self_word if action.target == event.player else who[action.target],
            ts=_whose(who, action.target, event.player),
            self=self_word, their="your" if you else "their",
        )
    elif isinstance(action, Clear):
        removed = action.what if action.what in ("trapped", "theft") else f"broken {action.what}"
        them = "you" if who[event.player] == "you" else "them"
        what = f"discards two cards to remove the {removed} card in front of {them}"
    elif isinstance(action, Pass):
        count = 1 + len(action.more)
        what = "discards a card" if count == 1 else f"discards {count} cards"
    elif isinstance(action, KeepGold):
        what = "keeps a gold card"
    elif isinstance(action, TakeGold):
        what = f"takes {_amount(len(action.golds), 'gold card')}" if action.golds else "takes no gold"
    elif isinstance(action, OrientStone):
        what = f"turns the stone at goal {action.goal}" + (" over" if action.turned else " upright")
    elif isinstance(action, Steal):
        what = "steals nothing" if action.target is None else f"steals from {who[action.target]}"
    else:
        what = str(action)
    verb, _, rest = what.partition(" ")
    if who[event.player] == "you" and verb in _YOU_DO:
        return f"you {_YOU_DO[verb]} {rest}"  # "you: discards a card" read wrong (a play-test)
    if who[event.player] == "you" and isinstance(action, (PlacePath, Rockfall)):
        return f"you lay {what}" if isinstance(action, PlacePath) else f"you play a {what}"  # as the other moves read
    return f"{who[event.player]}: {what}"


#: the verbs ``move_words`` begins a move with, as said of the viewer ("you break", not "you: breaks")
_YOU_DO = {verb: verb[:-1] for verb in (
    "breaks", "repairs", "looks", "puts", "takes", "swaps", "makes", "traps", "frees", "discards", "keeps", "turns",
    "steals",
)}


def _whose(who: Sequence[str], seat: int, actor: int) -> str:
    """Whose card a move names: "your", "your own" / "their own" (the player's own), or "bob's"."""
    own = seat == actor  # "you: takes away your Theft" read as someone else's doing (a play-test)
    if who[seat] == "you":
        return "your own" if own else "your"
    return "their own" if own else f"{who[seat]}'s"


def _amount(number: int, unit: str) -> str:
    return f"{number} {unit}" + ("" if number == 1 else "s")


#: the winners of a round that only reaching the treasure gives
_FOUND_BY = {"gold-diggers", "selfish-dwarf", "blue-team", "green-team", "both-teams"}


#: the winners of a round (``RoundEnded.winners``), as people say them
_WON_BY = {
    "gold-diggers": "the gold-diggers", "saboteurs": "the saboteurs", "selfish-dwarf": "the selfish dwarf",
    "blue-team": "the blue team", "green-team": "the green team", "both-teams": "both teams",
    "boss": "the boss alone", "profiteer": "the profiteer alone", "nobody": "nobody",
}


def winners_words(winners: str, roles: Sequence[Role]) -> str:
    """Who won a round, as people say it ("the blue team", "nobody").  A Saboteur 2 round
    that the saboteurs' side won with no saboteur dealt is the profiteer's: the program
    said "the saboteurs won" at a table that had none (found by a play-test)."""
    if winners == "saboteurs" and Role.SABOTEUR not in roles and Role.PROFITEER in roles:
        return "the profiteer"
    return _WON_BY.get(winners, winners)


def _why_the_round_ended(event: RoundEnded, who: Sequence[str], treasure_shown: bool) -> str:
    """How a round ended, as far as its events tell: the move that ends it by reaching the
    treasure turns the treasure up in the same events (and only such a move lets those
    winners win); saboteurs or nobody without it: the cards ran out.  A play-test read
    "won by saboteurs" alone and asked why."""
    if treasure_shown or event.winners in _FOUND_BY:
        return f"{who[event.last_player]} reached the treasure"
    if event.winners in ("saboteurs", "nobody") and Role.SABOTEUR not in event.roles:
        return "the cards ran out, and no saboteur was dealt"
    if event.winners in ("saboteurs", "nobody"):
        return "the cards ran out"
    return ""


def narrate(
    events: Sequence[Event], names: Sequence[str], viewer: int | None = None, edition: str | None = None,
) -> Iterator[str]:
    """Public events as lines of text, for a move-by-move account of a game, in players' names.

    With a ``viewer`` (a seat at the table, not an onlooker), that seat is "you" and the
    Saboteur 2 gold pieces won by others are not counted out: their totals are secret until
    the game ends (rules.md 8).  The scores' unit is the ``edition``'s; without it, the unit
    of the roles of a round's end among ``events`` (a caller that tells a game in pieces, as
    its events come, names the edition: the game's end may come without a round's end).
    """
    who = _labels(names, viewer)
    unit = "gold piece" if edition == "saboteur2" else "nugget"
    treasure_shown = False  # this round's treasure turned up (by the move that ends the round)
    for event in events:
        if isinstance(event, RoundStarted):
            yield f"-- round {event.round}: {who[event.first_player]} start" + ("" if who[event.first_player] == "you" else "s")
        elif isinstance(event, CardPlayed):
            yield move_words(event, names, viewer)
        elif isinstance(event, GoalRevealed):
            treasure_shown = treasure_shown or event.card.kind is PathKind.TREASURE
            yield f"   goal {event.slot} turned up: {card_words(event.card, event.turned)}"
        elif isinstance(event, RoundEnded):
            if _SABOTEUR2_ROLES.intersection(event.roles):
                unit = "gold piece"
            # "name: role" apart by ";": wrapped, "heuristic-2 gold-digger, heuristic-3 saboteur"
            # broke as "saboteur, heuristic-3" and read as heuristic-3's role (a play-test)
            roles = "; ".join(f"{who[i]}: {r.value}" for i, r in enumerate(event.roles))
            why = _why_the_round_ended(event, who, treasure_shown)
            treasure_shown = False
            won = winners_words(event.winners, event.roles)
            yield f"-- round {event.round} won by {won}{f' ({why})' if why else ''}; roles: {roles}"
        elif isinstance(event, GoldReceived):
            yield f"   {who[event.player]} receive{'' if who[event.player] == 'you' else 's'} {_amount(event.cards, 'gold card')}"
        elif isinstance(event, PiecesWon):
            wins = "win" if who[event.player] == "you" else "wins"
            if viewer is None or event.player == viewer:
                yield f"   {who[event.player]} {wins} {_amount(event.pieces, 'gold piece')}"
            else:
                yield f"   {who[event.player]} {wins} gold"
        elif isinstance(event, Stolen):
            steals = "steal" if who[event.thief] == "you" else "steals"
            if event.victim is None:
                yield f"   {who[event.thief]} {steals} nothing"
            else:
                yield f"   {who[event.thief]} {steals} a gold piece from {who[event.victim]}"
        elif isinstance(event, GameEnded):
            scores = ", ".join(f"{who[i]} {s}" for i, s in enumerate(event.scores))
            winners = ", ".join(who[w] for w in event.winners)
            yield f"== game over. {unit}s: {scores}. {'winner' if len(event.winners) == 1 else 'winners'}: {winners}"
