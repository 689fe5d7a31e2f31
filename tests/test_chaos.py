"""A randomized chaos test: one cheat from a catalogue, at a random point of a random game.

Each trial is fixed by its seed: the edition, the record of an honest game at which the cheat
is made, which seat cheats (one that owes a record there), the cheat, the moves the honest
seats choose, and the order in which messages reach each seat.  Every honest seat is a real
``Session`` with no sockets (``session_doubles``): records and ``abort`` messages go between
the sessions through an in-memory switchboard, taken one at a time from a link chosen at
random (each link keeps its order, as a ZeroMQ connection does), while honest seats speak when
the scheduler lets them.  The cheater is scripted: it sends its bad record (or two versions of
its record, one to each honest seat, which they then relay to each other), and goes on sending
the shares it owes when a cheat only comes to light once a card is shown.

When no seat has anything left to do, the seats still waiting end as the session does after
``--wait``, naming the seat they wait for as gone.

Every trial asserts that (a) every honest seat ends the game naming the cheater, all for the
same reason (the cheat's own: a record with an invalid point is bad-message for every seat,
never bad-share for one), including the
seats that do not check what was bad themselves (a sealed share meant for another seat, a
public share of a card's first reveal to another seat, a shuffle proof checked later), which
judge the evidence an ``abort`` offers them; (b) no honest seat crashes: anything but a
returned result out of the session fails the trial; and
(c) every honest seat's log, ended with the verdict trailer its session writes, verifies as
"stopped: seat S (name) cheated (reason), evidence checks" naming the cheater, for the reason
the seat gave.  A seat whose game finished hears what comes while it lingers, as a session
does (an abort, a record out of turn just before the end).  One outcome
is allowed besides: a refused genesis leaves an empty log, which verify cannot judge (the
agreed setup is not in it).  An out-of-turn record that reaches a seat after it has moved
past the point it follows is named all the same (protocol/stale.py).

A cheat that does not apply where the trial lands (no sealed share in the record, one legal
move to equivocate with) draws another point: every trial applies exactly one cheat.  Trials
that fail say what each seat said.
"""
from __future__ import annotations

import functools
import os
import random
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from chaos_cheats import ANY_KIND, ANYWHERE, CATALOGUE, KINDS, OUT_OF_TURN, PLAYERS, Plan, Point
from protocol_helpers import body_for, copy_game, path_first, seeded_game
from session_doubles import seated_session

from saboteur_p2p.crypto.log import make_entry
from saboteur_p2p.net.intake import Intake
from saboteur_p2p.net.session import Outcome, Session, SessionResult
from saboteur_p2p.net.wire import open_envelope, seal
from saboteur_p2p.protocol.local import LocalGame, step
from saboteur_p2p.protocol.node import Expect, Node
from saboteur_p2p.protocol.verify import verify_records
from saboteur_p2p.rules import GameConfig

# the honest games every trial starts from are played once per worker: keep them on one
pytestmark = [pytest.mark.xdist_group("chaos"), pytest.mark.slow]  # about 45 s together: started first

EDITIONS = ("base", "saboteur2")
#: a snapshot of each honest game every this many records (a trial starts at the one before its point)
STRIDE = 12
#: random trials (12, then 10, then 6 until 2026-12-06: the suite runs near its 5 minutes; CHAOS_TRIALS runs
#: more; with fewer than 5 the trials and kept seeds no longer cover the catalogue)
TRIALS = 5


# -- the honest games ------------------------------------------------------------------------


@dataclass(frozen=True)
class HonestGame:
    """One honest game of an edition, played to its end once per test run."""

    #: the game every STRIDE records (a trial starts from a copy of the one before its point)
    snapshots: tuple[LocalGame, ...]
    #: kind of record -> how many records the log held whenever a seat owed one of that kind
    owed_at: dict[str, list[int]]


@functools.cache
def honest_game(edition: str, rounds: int = 1) -> HonestGame:
    game = seeded_game(GameConfig(PLAYERS, edition, rounds=rounds), 7)
    snapshots = []
    owed_at: dict[str, list[int]] = {}
    while True:
        count = len(game.records)
        if count % STRIDE == 0:
            snapshots.append(copy_game(game, 0))
        for kind in {e.kind for e in game.spectator.outstanding}:
            owed_at.setdefault(kind, []).append(count)
        if not step(game, path_first):
            return HonestGame(tuple(snapshots), owed_at)


def random_chooser(rng: random.Random) -> Callable[[int, Node], str]:
    """Paths first half the time, otherwise any legal move (maps, breaks, passes, …)."""
    def choose(seat: int, node: Node) -> str:
        assert node.state is not None
        if rng.random() < 0.5:
            return path_first(seat, node)
        return str(rng.choice(node.state.legal_actions()))
    return choose


# -- the table: honest sessions, a scripted cheater, a switchboard -------------------------------


class MemoryLog:
    """Stands in for the LogWriter: the blobs the log file would hold."""

    def __init__(self, records: list[bytes]) -> None:
        self.blobs = list(records)

    def append(self, blob: bytes) -> None:
        self.blobs.append(blob)

    def flush(self) -> None:
        pass

    def sync(self) -> None:
        pass

    def close(self) -> None:
        pass


class ChoosingAgent:
    """A seat's agent that moves at once, with the trial's chooser."""

    def __init__(self, choose: Callable[[int, Node], str]) -> None:
        self.choose = choose

    def start(self, seat: int, node: Node) -> None:
        pass

    def poll_move(self, node: Node) -> str | None:
        assert node.seat is not None
        return self.choose(node.seat, node)

    def heard(self, state: object) -> None:
        pass

    def chat(self, seat: int, name: str, text: str) -> None:
        pass

    def poll_chat(self) -> str | None:
        return None


class Crash(AssertionError):
    """An honest seat raised out of its session."""


@dataclass
class Table:
    point: Point
    plan: Plan
    sessions: dict[int, Session]
    logs: dict[int, MemoryLog]
    links: dict[tuple[int, int], deque[bytes]]
    results: dict[int, SessionResult] = field(default_factory=dict)
    said: list[str] = field(default_factory=list)
    #: the records the honest seats sent to the cheater's endpoint
    to_cheater: list[bytes] = field(default_factory=list)
    #: records an honest seat passes on to another, at a moment the scheduler picks (resends)
    relays: list[tuple[int, int, bytes]] = field(default_factory=list)

    def route(self, seat: int) -> None:
        """What seat's session sent goes onto its links (to the cheater: nowhere)."""
        transport = self.sessions[seat].transport
        for endpoint, data in transport.sent:  # type: ignore[attr-defined]
            to = int(endpoint.rsplit(":", 1)[1]) - 1
            if to in self.sessions:
                self.links[(seat, to)].append(data)
            elif open_envelope(data).kind == "record":
                self.to_cheater.append(open_envelope(data).body["record"])
        transport.sent.clear()  # type: ignore[attr-defined]

    def act(self, seat: int, what: str, run: Callable[[], SessionResult | None]) -> None:
        try:
            result = run()
        except Exception as exc:
            raise Crash(f"seat {seat} crashed ({what}): {exc!r}") from exc
        self.route(seat)
        if result is not None:
            self.results[seat] = result
            self.said.append(f"seat {seat}: {result.outcome.value} naming {result.culprit}: {result.message[:160]}")


def setup_table(point: Point, plan: Plan, choose: Callable[[int, Node], str], tmp_path: Path) -> Table:
    sessions, logs = {}, {}
    for seat in point.honest:
        node = point.game.nodes[seat]
        logs[seat] = MemoryLog(node.records)
        node.writer = logs[seat]  # type: ignore[assignment]
        session = seated_session(point.game, node, tmp_path / f"seat{seat}")
        session.agent = ChoosingAgent(choose)
        session.secrets_path = tmp_path / f"seat{seat}" / "secret"
        sessions[seat] = session
    links: dict[tuple[int, int], deque[bytes]] = {(a, b): deque() for a in range(PLAYERS) for b in sessions if a != b}
    cheater = point.node.identity
    assert cheater is not None
    for to, records in plan.records.items():
        for record in records:
            links[(point.cheater, to)].append(seal(cheater, "record", {"record": record}))
    return Table(point, plan, sessions, logs, links, relays=list(plan.relays))


class Cheater:
    """The cheater after its cheat: silent, or (``continues``) sending the shares it owes, made
    by its own node, which never took its bad record in; it follows the log through a watcher
    that checks no share of a card shown to another seat."""

    def __init__(self, table: Table) -> None:
        self.table = table
        point = table.point
        watcher = copy_game(point.game, 0).spectator
        watcher.verify_all = False
        self.intake = Intake(watcher)
        for index in range(len(watcher.log.entries)):
            self.intake.remember(index)
        for record in table.plan.records[point.honest[0]]:
            self.intake.take(record)
        self.sent = 0

    def owes(self) -> Expect | None:
        if not self.table.plan.continues or self.sent > 4:
            return None
        watcher = self.intake.node
        mine = next((e for e in watcher.outstanding if e.speaker == self.table.point.cheater), None)
        return mine if mine is not None and mine.kind == "shares" else None

    def hear(self, record: bytes) -> None:
        self.intake.take(record)

    def speak(self, head: Expect) -> None:
        point = self.table.point
        watcher = self.intake.node
        body = body_for(point.node, head)
        identity = point.node.identity
        assert identity is not None
        record = make_entry(identity, point.game.setup.game_id, point.cheater, watcher.log.next_seq(point.cheater),
                            watcher.log.head, head.kind, body).record
        self.intake.take(record)
        self.sent += 1
        for to in self.table.sessions:
            self.table.links[(point.cheater, to)].append(seal(identity, "record", {"record": record}))


def _deliver(table: Table, a: int, b: int, lingering: set[int]) -> None:
    """Seat b takes the next message seat a sent it: in play, or lingering after the game."""
    data, session = table.links[(a, b)].popleft(), table.sessions[b]
    connection = f"seat{a}".encode()
    if b in lingering:
        table.act(b, f"hearing seat {a} while it lingers", lambda: session._heard_lingering(connection, data))
    else:
        table.act(b, f"taking a message from seat {a}", lambda: session._handle(connection, data))


def run_table(table: Table, rng: random.Random, limit: int = 400) -> None:
    """Deliver messages and let seats speak, in an order drawn from ``rng``, until every honest
    seat has ended.  A seat whose game is over ends as the session loop ends it; when nothing is
    left to do, the seats still waiting end as the loop does after ``--wait``: naming the seat
    they wait for as gone."""
    cheater = Cheater(table)
    #: seats whose game is over, still hearing what comes (an abort, a record out of turn)
    #: as a session does while it lingers after the last record
    lingering: set[int] = set()
    for _ in range(limit):
        lingering |= {seat for seat, session in table.sessions.items() if seat not in table.results and session.node.finished}
        live = {s: session for s, session in table.sessions.items() if s not in table.results and s not in lingering}
        hearing = live.keys() | (lingering - table.results.keys())
        if not live:
            for relayer, to, record in table.relays:  # a lingering seat resends to a peer on another tip
                if relayer not in table.results:
                    table.links[(relayer, to)].append(seal(table.sessions[relayer].identity, "record", {"record": record}))
            table.relays.clear()
            for (a, b), queue in table.links.items():
                while queue and b not in table.results:
                    _deliver(table, a, b, lingering)
            for seat in sorted(lingering - table.results.keys()):
                table.results[seat] = SessionResult(Outcome.FINISHED, "game over", table.sessions[seat].node.state.scores)  # type: ignore[union-attr]
                table.said.append(f"seat {seat}: finished")
            return
        options: list[tuple[str, int, int]] = []
        options += [("deliver", a, b) for (a, b), q in table.links.items() if q and b in hearing]
        options += [("speak", s, s) for s, session in live.items()
                    if session.node.my_turn_to_speak() and session.node.aborted is None]
        while table.to_cheater:
            cheater.hear(table.to_cheater.pop(0))
        owed = cheater.owes()
        if owed is not None:
            options.append(("cheat", table.point.cheater, -1))
        options += [("relay", i, -1) for i, (relayer, _, _) in enumerate(table.relays) if relayer in hearing]
        if not options:
            for seat, session in live.items():
                waiting = [e.speaker for e in session.node.outstanding]
                absent = waiting[0] if waiting and table.point.cheater not in waiting else table.point.cheater
                table.act(seat, "timing out", lambda session=session, absent=absent: session._end_gone(
                    absent, f"{session.names[absent]} sent nothing for --wait"))
            return
        what, a, b = rng.choice(options)
        if what == "deliver":
            _deliver(table, a, b, lingering)
        elif what == "speak":
            table.act(a, "speaking", table.sessions[a]._speak)
        elif what == "relay":
            relayer, to, record = table.relays.pop(a)
            table.links[(relayer, to)].append(seal(table.sessions[relayer].identity, "record", {"record": record}))
        else:
            assert owed is not None
            cheater.speak(owed)
    raise AssertionError(f"still running after {limit} steps")


# -- a trial -------------------------------------------------------------------------------------


@dataclass
class Trial:
    seed: int
    edition: str
    at: int
    cheat: str
    point: Point
    plan: Plan

    def describe(self) -> str:
        p = self.point
        return (f"seed {self.seed}: {self.cheat} by seat {p.cheater} at record {self.at} of a {self.edition} game "
                f"(owed: {p.head.kind} {p.head.topic!r:.80})")


def draw_trial(seed: int, ahead: bool = False) -> tuple[Trial, int]:
    """The trial of ``seed``: a point of an honest game where a cheat from the catalogue applies.
    Returns it and how many points were drawn and passed over first.  ``ahead``: a cheat in a
    shuffle of the next round's decks, made between the moves of a 2-round game's first round."""
    rng = random.Random(seed)
    for attempt in range(50):
        edition = rng.choice(EDITIONS)
        draw = rng.random()
        anywhere = draw < OUT_OF_TURN and not ahead
        kind = "shuffle" if ahead else KINDS[seed % len(KINDS)]
        honest = honest_game(edition, 2 if ahead else 1)
        owed = honest.owed_at[kind]
        at = rng.choice(owed[PLAYERS:2 * PLAYERS] if ahead else owed)  # after the first round's set-up
        game = copy_game(honest.snapshots[at // STRIDE], seed * 100 + attempt)
        choose = random_chooser(random.Random(rng.random()))
        while len(game.records) < at and step(game, choose):
            pass
        # on to the first point from there where a seat owes a record of that kind
        while not anywhere and game.spectator.outstanding and all(e.kind != kind for e in game.spectator.outstanding):
            step(game, choose)
        outstanding = game.spectator.outstanding
        if not outstanding:
            continue  # the game ended first
        at = len(game.records)
        if anywhere:
            cheats, head = ANYWHERE, rng.choice(outstanding)
            cheater = rng.choice([s for s in range(PLAYERS) if s not in {e.speaker for e in outstanding}] or [head.speaker])
        else:
            head = rng.choice([e for e in outstanding if e.kind == kind])
            cheats, cheater = CATALOGUE[kind], head.speaker
            bound = OUT_OF_TURN
            for share, any_kind in ANY_KIND:
                if bound <= draw < bound + share and not ahead:
                    cheats = [any_kind]
                bound += share
        cheat = rng.choice(cheats)
        point = Point(game, cheater, head, random.Random(rng.random()))
        plan = cheat(point)
        if plan is None:
            continue
        return Trial(seed, edition, at, cheat.__name__, point, plan), attempt
    raise AssertionError(f"seed {seed}: no cheat applied at 50 points")


def play_trial(trial: Trial, tmp_path: Path) -> Table:
    rng = random.Random(trial.seed)
    table = setup_table(trial.point, trial.plan, random_chooser(random.Random(rng.random())), tmp_path)
    try:
        run_table(table, rng)
    except Crash as crash:
        raise Crash(f"{crash}; {trial.describe()}; the seats said before: {table.said}") from crash.__cause__
    return table


def check_trial(trial: Trial, table: Table) -> None:
    cheater = trial.point.cheater
    names = trial.point.game.setup.names
    where = f"{trial.describe()}; the seats said: {table.said}"
    ended = {seat: table.results.get(seat) for seat in table.sessions}
    for seat, result in ended.items():
        assert result is not None, f"seat {seat} never ended the game; {where}"
    reasons = {table.sessions[seat].reason for seat in ended}
    assert len(reasons) == 1, f"the honest seats give different reasons {sorted(reasons)}; {where}"
    for seat, result in ended.items():
        assert result is not None and (result.outcome, result.culprit) == (Outcome.CHEATER, cheater), f"seat {seat}; {where}"
        session = table.sessions[seat]
        assert session.reason in trial.plan.reasons, f"seat {seat} gave the reason {session.reason}; {where}"
        blobs = table.logs[seat].blobs
        verdict = verify_records(blobs)
        if trial.point.head.kind == "genesis" and not blobs[:-1]:
            # a refused genesis leaves a log of no record: the agreed setup it differs from
            # was never written down, so there is nothing to judge the verdict against
            assert verdict.message == "the log is empty" and verdict.culprit is None, verdict.message
            continue
        # a seat that took the record in before it could check all of it (a sealed share for
        # another seat, a public share of a card's first reveal to another seat, a shuffle
        # proof it checks later) holds it in its log: verify finds the cheat there, under the
        # reason the seat gave
        wanted = f"stopped: seat {cheater} ({names[cheater]}) cheated ({session.reason}), evidence checks"
        if verdict.ok and verdict.message.startswith(wanted) and verdict.culprit == cheater:
            continue
        raise AssertionError(f"verify of seat {seat}'s log says {verdict.message!r}; {where}")


#: the trials of every run, and seeds kept so that every run tries them: 15, 52 and 165 are
#: out-of-turn records that reach a seat after it has moved past the point they follow; 398
#: is a Saboteur 2 card played as what it is not, by a seat whose card another seat knows
#: privately, and 68 one with a bad share (328 was another such card until such moves kept to
#: the rules anyone can check, 2026-12-06: it draws another cheat now); 27 is a bad sealed
#: share (of a Saboteur 2 card shown to a second seat), 41 and 150 bad public shares of a
#: card's first reveal, carried by a move and in a shares record; 138 and 231 cards played as
#: what they are not by a move that carries an invalid point (138) or a false proof (231) in
#: a share another seat keeps unchecked
#: CHAOS_TRIALS=N runs N trials instead (1,500 passed on 2026-12-04 in 6 minutes on 2 cores)
SEEDS = [*range(int(os.environ.get("CHAOS_TRIALS", TRIALS))), 52, 165, 68, 398, 27, 41, 150, 138, 231]


@pytest.mark.parametrize("seed", SEEDS)
def test_a_random_cheat_at_a_random_point_is_named_by_every_honest_seat_and_its_log(seed: int, tmp_path: Path) -> None:
    trial, _passed_over = draw_trial(seed)
    check_trial(trial, play_trial(trial, tmp_path))


#: three trials (five until 2026-12-06: the suite's time is near its limit; CHAOS_TRIALS runs more)
@pytest.mark.parametrize("seed", range(int(os.environ.get("CHAOS_TRIALS", 3))))
def test_a_random_cheat_in_a_shuffle_made_between_the_moves_is_named_by_every_honest_seat(seed: int, tmp_path: Path) -> None:
    """The shuffles of the next round's decks (protocol.md §5.6.2), checked by the seats in the
    background: every honest seat still names the cheater, and its log says so."""
    trial, _passed_over = draw_trial(seed, ahead=True)
    assert trial.point.head.kind == "shuffle" and trial.point.head.topic != (0,), trial.describe()
    check_trial(trial, play_trial(trial, tmp_path))


def test_every_trial_applies_a_cheat_and_the_trials_cover_the_catalogue() -> None:
    """A trial whose cheat does not apply where it lands draws another point: every seed gives
    one applied cheat, and the seeds of a run try many of the catalogue's classes, in both editions."""
    applied = [draw_trial(seed)[0] for seed in SEEDS]
    assert len(applied) == len(SEEDS)
    assert len({t.cheat for t in applied}) >= 10, sorted({t.cheat for t in applied})
    assert {"bad_sealed_share", "bad_first_reveal_share"} <= {t.cheat for t in applied}
    assert {t.point.head.kind for t in applied} >= set(CATALOGUE) - {"genesis"}
    assert {t.edition for t in applied} == set(EDITIONS)
