"""What has just happened at the table: each seat's last move and each round's summary.

The engine's state holds only the present: once a round ends, the same commit may deal the
next one, so the finished maze is gone from every later view.  ``Tracker`` follows the
events one commit at a time and keeps what the screen shows afterwards: the final maze of
each round (rebuilt from the last maze it saw and the moves that ended the round), the
roles, the winners, the gold each seat won that round as far as this seat may know it, and
every seat's last move.  Pure data, no threads: ``ClientAgent`` calls it under its lock.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ..match import blind_end, card_words, move_words, winners_words
from ..rules import (
    GOAL_CELLS,
    ActionKind,
    Board,
    BreakTool,
    CardPlayed,
    Clear,
    Event,
    GameEnded,
    GoalRevealed,
    GoldReceived,
    MapPeek,
    Pass,
    PathCard,
    PathKind,
    PiecesWon,
    PlacePath,
    PlayerView,
    PlayOn,
    RepairTool,
    Rockfall,
    Role,
    RoundEnded,
    RoundStarted,
    Stolen,
    Winners,
)
from .model import TOOL_SHORT, Cell, faces_known

#: a Saboteur 2 card played on a player, as the player list names the move ("trp→4"): never
#: "trap" or "thief", the marks of what lies before a player now
PLAYED_ON_SHORT = {
    ActionKind.THEFT: "theft", ActionKind.HANDS_OFF: "h.off", ActionKind.SWAP_HAND: "swap",
    ActionKind.INSPECTION: "look", ActionKind.SWAP_HATS: "hats", ActionKind.TRAPPED: "trp", ActionKind.FREE: "free",
}


@dataclass(frozen=True)
class LastMove:
    """A seat's latest turn: the words the log used, and the maze cell it changed (if any)."""

    seat: int
    words: str
    cell: Cell | None
    #: counts every move at the table, so the newest one can be told from the others
    order: int
    #: a few characters for the player list: "┼ 1,0", "dead ┤ 2,1", "brk lamp→2", "map g1", "pass"
    short: str = ""
    #: fewer still, for a line ``short`` does not fit: the cell, the tool or the goal left
    #: out ("┼", "dead", "brk→2", "map")
    tiny: str = ""


@dataclass(frozen=True)
class RoundSummary:
    """The end of one round, as this seat saw it."""

    round: int
    rounds: int
    winners: str
    roles: tuple[Role, ...]
    board: Board
    #: the goal faces this seat knew as the round ended (worked out ones too), as its maze showed them
    known_goals: dict[int, PathCard]
    #: per seat, what they won this round ("3 nuggets", "2 gold cards", "gold", "-")
    won: tuple[str, ...]
    #: per seat, their gold so far as this seat knows it
    totals: tuple[str, ...]
    #: the final scores, once the game is over
    scores: tuple[int, ...] | None = None
    #: False for a round that ended before this seat was following (a seat resumed from its
    #: log): its final maze was never seen, so no round-end screen is shown for it
    live: bool = True
    #: False while the round's gold is still being handed out (the gold columns may grow)
    settled: bool = False
    #: Saboteur 2: per seat, the gold pieces its Theft took this round (not a win)
    stole: tuple[int, ...] = ()
    #: Saboteur 2: per seat, the gold pieces thieves took from it this round (apart from what
    #: it stole: a seat robbed that robbed another read as neither, netted to nothing)
    robbed: tuple[int, ...] = ()
    #: the seat that reached the treasure, if it was reached
    reached: int | None = None
    #: Saboteur 2, the treasure reached: which teams' ways to it the doors left open, in words
    doors: str = ""
    #: Saboteur 2: the seats trapped as the round ended (they win nothing)
    trapped: frozenset[int] = frozenset()


class Tracker:
    """Follows a seat's commits; ``summaries`` and ``last_moves`` are what the screen reads."""

    def __init__(self, seat: int, players: int) -> None:
        self.seat = seat
        self.players = players
        self.summaries: list[RoundSummary] = []
        self.last_moves: dict[int, LastMove] = {}
        self._moves = 0
        self._board: Board | None = None
        self._goals: dict[int, PathCard] = {}
        self._round = 0
        #: this round's gold so far: cards (base) or pieces (Saboteur 2) each seat received
        self._cards = [0] * players
        self._pieces = [0] * players
        self._won_gold = [False] * players
        self._stole = [0] * players
        self._robbed = [0] * players
        #: Saboteur 2: the seats a Trapped! card lies in front of
        self._trapped: set[int] = set()
        #: Saboteur 2: the seats paid as winners of the round that ended (its side, untrapped)
        self._paid: frozenset[int] = frozenset()
        #: how many gold cards this seat received in each round, in order (base game)
        self._my_cards: dict[int, int] = {}

    def take(self, events: Sequence[Event], view: PlayerView, names: Sequence[str]) -> None:
        """The events of one commit and the view after it."""
        board = self._board.clone() if self._board is not None else None
        goals = dict(self._goals)
        for event in events:
            if isinstance(event, RoundStarted):
                if self.summaries and self.summaries[-1].round == self._round:
                    self._refresh(view)  # the last gold of the round that ended
                    self.summaries[-1] = replace(self.summaries[-1], settled=True)
                self._start_round(event.round, view)
                board = None
            elif isinstance(event, CardPlayed):
                self._moves += 1
                self.last_moves[event.player] = last_move(event, move_words(event, names, self.seat), self._moves)
                if board is not None:
                    _apply(board, event)
                self._follow_traps(event)
            elif isinstance(event, GoalRevealed):
                goals[event.slot] = event.card
                if board is not None:
                    board.reveal_goal(GOAL_CELLS[event.slot], event.card, event.turned)
            elif isinstance(event, RoundEnded):
                live = board is not None or view.round == event.round
                final = board if board is not None else view.board
                treasure = _treasure_cell(final)
                winners = f"{winners_words(event.winners, event.roles)} won"
                side = view.config.edition_rules.winning_side
                if side is not None:
                    self._paid = frozenset(side(Winners(event.winners), event.roles)) - self._trapped
                self.summaries.append(RoundSummary(
                    event.round, view.config.rounds, winners, event.roles, final, faces_known(goals), (), (), live=live,
                    reached=event.last_player if treasure is not None else None,
                    doors=_doors(final, treasure, _role_of(event.roles, event.last_player))
                    if view.config.edition == "saboteur2" else "",
                    trapped=frozenset(self._trapped),
                ))
                self._refresh(view)
            elif isinstance(event, GoldReceived):
                self._cards[event.player] += event.cards
                if event.player == self.seat:
                    self._my_cards[self._round] = self._my_cards.get(self._round, 0) + event.cards
            elif isinstance(event, PiecesWon):
                self._pieces[event.player] += event.pieces
                self._won_gold[event.player] = True
            elif isinstance(event, Stolen) and event.victim is not None:
                # a theft, not a win: the round-end marks it apart ("won 4" and "robbed" of one,
                # beside a total of 3, where "won 3" read as a miscount of "you won 4 pieces")
                self._stole[event.thief] += 1
                self._robbed[event.victim] += 1
            elif isinstance(event, GameEnded) and self.summaries:
                self.summaries[-1] = replace(self.summaries[-1], scores=event.scores, settled=True)
        if self.summaries and self.summaries[-1].round == self._round:
            self._refresh(view)
        self._my_nuggets(view)
        if view.round == self._round or self._round == 0:
            self._board, self._goals = view.board, dict(view.known_goals)
            self._round = view.round

    def _follow_traps(self, event: CardPlayed) -> None:
        """Who is trapped: a Trapped! card lies in front of its target until Free at last! or
        the trapped player's two cards clear it (a round's end says why they won nothing:
        found by a play-test)."""
        action = event.action
        if isinstance(action, PlayOn) and action.kind is ActionKind.TRAPPED:
            self._trapped.add(action.target)
        elif isinstance(action, PlayOn) and action.kind is ActionKind.FREE:
            self._trapped.discard(action.target)
        elif isinstance(action, Clear) and action.what == "trapped":
            self._trapped.discard(event.player)

    def _start_round(self, number: int, view: PlayerView) -> None:
        self._round = number
        self._trapped = set()
        self._cards = [0] * self.players
        self._pieces = [0] * self.players
        self._won_gold = [False] * self.players
        self._paid = frozenset()
        self._stole = [0] * self.players
        self._robbed = [0] * self.players
        self.last_moves = {}

    def _refresh(self, view: PlayerView) -> None:
        """Bring the open round's gold columns up to date with the view."""
        last = self.summaries[-1]
        second = view.config.edition == "saboteur2"
        won, totals = [], []
        for seat in range(self.players):
            if second:
                if seat == self.seat:
                    pieces = self._pieces[seat]
                    won.append("won 0" if not pieces and seat in self._paid else _count(pieces, "piece"))
                    totals.append(_count(view.gold_pieces, "piece"))
                else:
                    # how much another seat won is secret until the game ends (rules 8); a
                    # winner paid nothing (a boss or profiteer of five winners) won all the same
                    # ("-" read as a loser: a play-test)
                    won.append("gold" if self._won_gold[seat] else "won 0" if seat in self._paid else "-")
                    totals.append("has gold" if view.has_gold and view.has_gold[seat] else "-")
            elif seat == self.seat:
                mine = sum(card.nuggets for _, card in view.gold)
                won.append(self._mine_in(last.round, view, last.settled))
                totals.append(_count(mine, "nugget"))
            else:
                won.append(_count(self._cards[seat], "gold card") if self._cards[seat] else "-")
                totals.append(_count(view.gold_counts[seat], "gold card"))
        if last.scores is not None:
            unit = view.config.edition_rules.gold_unit
            totals = [_count(score, unit) for score in last.scores]
        self.summaries[-1] = replace(last, won=tuple(won), totals=tuple(totals), stole=tuple(self._stole),
                                    robbed=tuple(self._robbed))


    def _mine_in(self, number: int, view: PlayerView, settled: bool = True) -> str:
        """What this seat won in round ``number``: nuggets once the faces of its gold cards are
        all known (they come in the order received; a face may arrive a little later), else
        cards; nothing yet while the round's gold is handed out is "-", as for another seat
        (it said "won 0 nuggets" before a card came: a play-test)."""
        cards = self._my_cards.get(number, 0)
        if not cards:
            return "0 nuggets" if settled else "-"
        if len(view.gold) < sum(self._my_cards.values()):
            return _count(cards, "gold card")
        start = sum(n for r, n in self._my_cards.items() if r < number)
        return _count(sum(card.nuggets for _, card in view.gold[start:start + cards]), "nugget")

    def _my_nuggets(self, view: PlayerView) -> None:
        """Put this seat's own winnings into every round's summary, as the faces come in."""
        if view.config.edition == "saboteur2":
            return
        for index, summary in enumerate(self.summaries):
            if self.seat < len(summary.won):
                won, totals = list(summary.won), list(summary.totals)
                won[self.seat] = self._mine_in(summary.round, view, summary.settled)
                # the total too: in nuggets once the faces of every card received by that round
                # are known (as the won column), in cards until then
                received = sum(n for r, n in self._my_cards.items() if r <= summary.round)
                if summary.scores is None and self.seat < len(totals):
                    totals[self.seat] = (_count(sum(card.nuggets for _, card in view.gold[:received]), "nugget")
                                         if len(view.gold) >= received else _count(received, "gold card"))
                self.summaries[index] = replace(summary, won=tuple(won), totals=tuple(totals))


def _count(number: int, unit: str) -> str:
    """"1 nugget", "3 nuggets"."""
    return f"{number} {unit}" + ("" if number == 1 else "s")


def last_move(event: CardPlayed, words: str, order: int) -> LastMove:
    """The move of ``event`` as a seat's line shows it: ``words`` as the log told it, and
    ``order`` counting every move at the table."""
    return LastMove(event.player, words, _cell_of(event), order, _short_move(event), _tiny_move(event))


def _short_move(event: CardPlayed) -> str:
    """A move in a few characters, for the player list (the log has it in full)."""
    action = event.action
    if isinstance(action, PlacePath):
        # the shape as it lies in the maze: "path ┬ (crystal)" -> "┬"; a dead end says so, as
        # its openings' shape alone ("┼") reads as tunnels that go through
        shape = card_words(event.card, action.turned).split(" (")[0].split()[-1]
        dead = "dead " if blind_end(event.card) else ""
        return f"{dead}{shape} {action.x},{action.y}"
    if isinstance(action, Rockfall):
        return f"fall {action.x},{action.y}"
    if isinstance(action, (BreakTool, RepairTool)):
        # words, not the ✗ that marks the player's own broken tools beside it
        verb = "brk" if isinstance(action, BreakTool) else "fix"
        return f"{verb} {TOOL_SHORT[action.tool.value]}→{action.target}"
    if isinstance(action, MapPeek):
        return f"map g{action.goal}"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, PlayOn):
        if action.target == event.player:
            return PLAYED_ON_SHORT[action.kind]  # a Theft lies before its own player
        return f"{PLAYED_ON_SHORT[action.kind]}→{action.target}"
    if isinstance(action, Clear):
        return f"clr {TOOL_SHORT.get(action.what, action.what)}"
    return action.verb


def _tiny_move(event: CardPlayed) -> str:
    """``_short_move`` with its cell, tool or goal left out, for a narrow player list: what
    kind of move, and on whom (the maze shows where the latest card went)."""
    action = event.action
    if isinstance(action, PlacePath):
        if blind_end(event.card):
            return "dead"
        return _short_move(event).split()[0]
    if isinstance(action, Rockfall):
        return "fall"
    if isinstance(action, (BreakTool, RepairTool)):
        return f"{'brk' if isinstance(action, BreakTool) else 'fix'}→{action.target}"
    if isinstance(action, MapPeek):
        return "map"
    if isinstance(action, Clear):
        return "clr"
    return _short_move(event)


def _treasure_cell(board: Board) -> Cell | None:
    """Where the treasure lies face up in the maze (somebody reached it), else None."""
    for cell in GOAL_CELLS:
        tile = board.tiles.get(cell)
        if tile is not None and isinstance(tile.card, PathCard) and tile.card.kind is PathKind.TREASURE:
            return cell
    return None


#: the team of a Saboteur 2 digger
TEAMS = {Role.BLUE_DIGGER: "blue", Role.GREEN_DIGGER: "green"}


def _doors(board: Board, treasure: Cell | None, finder: Role | None) -> str:
    """What the doors on the ways to the treasure left open, which decides the winners: for
    the team of a digger who reached it, its own way first (rules: its team wins if its way
    is open, else the other team if its way is)."""
    if treasure is None:
        return ""
    ways = board.open_ways(treasure)
    team = TEAMS.get(finder) if finder is not None else None
    if team is not None:
        other = "green" if team == "blue" else "blue"
        if getattr(ways, team):
            return f"no {other} door bars the {team} team's way"
        if getattr(ways, other):
            return f"{other} doors bar the {team} team; the {other} team's way is open"
        return "the doors stop both teams"
    if ways.doorless:
        return "a way without doors lets both teams win"
    if ways.blue and ways.green:
        return "each team has a way past the doors"
    if ways.blue or ways.green:
        return f"only the {'blue' if ways.blue else 'green'} team gets past the doors"
    return "the doors stop both teams"


def _role_of(roles: Sequence[Role], seat: int | None) -> Role | None:
    return roles[seat] if seat is not None and 0 <= seat < len(roles) else None


def _cell_of(event: CardPlayed) -> Cell | None:
    action = event.action
    if isinstance(action, (PlacePath, Rockfall)):
        return action.cell
    return None


def _apply(board: Board, event: CardPlayed) -> None:
    """Replay one move on a copy of the maze (only path cards and rockfalls change it)."""
    action = event.action
    if isinstance(action, PlacePath) and isinstance(event.card, PathCard):
        board.place(action.cell, event.card, action.turned)
    elif isinstance(action, Rockfall) and action.cell in board.tiles:
        board.remove(action.cell)
