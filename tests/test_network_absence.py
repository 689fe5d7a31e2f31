"""A seat that withholds a record it owes, and a seat that falsely says another does: real
peer processes and the hostile double of net_doubles.py (the tables of test_network.py)."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path

import pytest
from net_doubles import Stage, Trick, _gone, gone_in_a_pause, start_double, to_everyone
from test_network import (
    SMALL_GAME,
    Peer,
    Processes,
    free_port,
    host_args,
    join_args,
    only_log,
    start_table_with_double,
    verify,
)
from test_network import processes as processes  # the fixture: the tests below take it by name


@pytest.mark.slow
def test_a_present_seat_that_withholds_its_share_is_named_after_the_wait(processes: Processes, tmp_path: Path) -> None:
    """A seat that keeps answering pings but never makes the protocol record it owes (a share,
    say) is not away, yet the game cannot go on: after --wait the honest peers end it (exit 4)
    naming that seat and the record it withheld, and their logs verify as sound so far."""
    host, joiner, double = start_table_with_double(processes, tmp_path, "withhold", wait=4)
    for peer in (host, joiner):
        assert peer.wait(SMALL_GAME) == 4, peer.text()
    double.finish(30)
    assert double.error is None, double.error
    for peer in (host, joiner):
        text = peer.text()
        assert re.search(rf"double \(seat {double.seat}\) sent no \w+ record within 4 s; the game ends", text), text
        assert "is away" not in text, text  # it was present all along
        (verdict,) = verify(only_log(tmp_path / peer.name))
        assert verdict.startswith(f"stopped: the log says seat {double.seat} (double) went silent"), verdict


@pytest.mark.slow
@pytest.mark.parametrize("trick, joiner_wait", [("busy-to-one-then-late", 8.0), ("late-after-gone", 10.0)])
def test_a_record_withheld_until_an_honest_seat_names_its_maker_gets_no_honest_seat_blamed(
    processes: Processes, tmp_path: Path, trick: str, joiner_wait: float,
) -> None:
    """A seat withholds a protocol record until the host's wait runs out and the host names
    it (``gone``), then sends it to the joiner, still waiting.  Told it was busy alone (the
    host never was), the joiner passes the notice on, so both waits run out together and
    both name the withholder; or, with a longer wait of its own, the joiner sees the record
    come only at the end of its wait, and blames nobody: the host may have been right, or too
    quick (found by attacks: the joiner named the host, which "ended the game, but the record
    came"; then, naming the withholder, it named an honest seat a liar said withheld)."""
    host, joiner, double = start_table_with_double(processes, tmp_path, trick, wait=8, joiner_wait=joiner_wait)
    assert host.wait(SMALL_GAME) == 4, host.text()
    assert joiner.wait(SMALL_GAME) == (4 if joiner_wait == 8.0 else 5), joiner.text()
    double.stop.set()
    double.finish(30)
    named = rf"double \(seat {double.seat}\) sent no \w+ record within 8 s; the game ends"
    assert re.search(named, host.text()), host.text()
    text = joiner.text()
    assert "nobody is blamed but" not in text, text
    (verdict,) = verify(only_log(tmp_path / joiner.name))
    if joiner_wait == 8.0:  # its own wait ran out with the host's
        assert re.search(named, text), text
        assert verdict.startswith(f"stopped: the log says seat {double.seat} (double) went silent"), verdict
    else:
        late = (rf"host \(seat 0\) ended the game saying double \(seat {double.seat}\) withheld its \w+ record; it "
                r"came here [\d.]+ s before our own wait for it ran out: late, but not so late that host \(seat 0\) "
                r"cannot have been too quick; nobody is blamed")
        assert re.search(late, text), text
        assert verdict.startswith("stopped: the log says seat 0 (host) left the table or stopped the game"), verdict
        assert "the log's seat blames nobody" in verdict, verdict


@pytest.mark.slow
def test_a_liar_who_says_a_slow_seat_withholds_its_record_gets_no_honest_seat_named(
    processes: Processes, tmp_path: Path,
) -> None:
    """An honest seat whose machine stalls makes a shares record that comes 1.5 s before the
    others' wait for it runs out; a liar says, meanwhile, that it withholds it.  No honest seat
    names the slow one (found by an attack on the first fix above, which did: "late here too"):
    those that waited blame nobody, or the liar, and the slow seat names the liar."""
    wait, margin = 6.0, 1.5
    shared: dict[str, float | int] = {}

    def stall_due(session) -> bool:  # type: ignore[no-untyped-def]
        head = session.node.my_expect()
        return "stalled" not in shared and len(session.move_heads) >= 2 and head is not None and head.kind == "shares"

    def stall(session) -> None:  # type: ignore[no-untyped-def]
        shared.update(stalled=time.monotonic(), seat=session.seat)
        time.sleep(0.2)  # the observer has seen the record come due
        assert observer.session is not None
        _, until = observer.session._due_until.get(session.seat, (0, time.monotonic() + wait))
        # a machine that stalls: the record is made after it, ``margin`` inside the observer's
        # wait (a busy notice moves that on; silent longer than the wait, it would be gone)
        time.sleep(max(0.0, min(until, shared["stalled"] + wait) - margin - time.monotonic()))

    def liar_ready(session) -> bool:  # type: ignore[no-untyped-def]
        return "stalled" in shared and time.monotonic() - shared["stalled"] > 1.0

    def lie(session) -> None:  # type: ignore[no-untyped-def]
        seat = int(shared["seat"])
        to_everyone(session, _gone(session, seat, f"sent no shares record within {wait:.0f} s"))

    port = free_port()
    host = processes.start("host", host_args(port, 4, wait=wait, rounds=3), verbose=True)
    observer = start_double(f"127.0.0.1:{port}", "obs", Trick(()), tmp_path / "obs", wait=wait)
    time.sleep(0.3)
    slow = start_double(f"127.0.0.1:{port}", "slow", Trick((Stage(stall_due, stall),)), tmp_path / "slow", wait=wait)
    time.sleep(0.3)
    liar = start_double(f"127.0.0.1:{port}", "liar", Trick((Stage(liar_ready, lie),), cheats=True), tmp_path / "liar",
                        wait=wait)
    host.wait(SMALL_GAME)
    for run in (observer, slow):
        run.finish(30)
    liar.stop.set()
    liar.finish(10)
    assert "stalled" in shared, "the slow seat never owed a shares record"
    slow_seat = int(shared["seat"])
    assert slow.result is not None and slow.result.culprit == liar.seat, slow.result
    assert observer.result is not None and observer.result.culprit in (None, liar.seat), observer.result.message
    for name in ("host", "obs"):
        (verdict,) = verify(only_log(tmp_path / name))
        assert f"seat {slow_seat} (slow) went silent" not in verdict, verdict
        assert verdict.startswith(f"stopped: the log says seat {liar.seat} (liar) left the table"), verdict


@pytest.mark.slow
def test_a_seat_that_falsely_says_another_withholds_its_record_is_the_one_named(processes: Processes, tmp_path: Path) -> None:
    """A seat that ends the game the moment another seat's protocol record is due, saying that
    seat withholds it, is not believed: each honest peer waits for the record itself, and when
    it comes (or the accused is itself the receiver) names only the seat that stopped."""
    host, joiner, double = start_table_with_double(processes, tmp_path, "false-gone", wait=12)
    for peer in (host, joiner):
        assert peer.wait(SMALL_GAME) == 5, peer.text()
    double.stop.set()  # what the double makes of it is not the point here: stop it now
    double.finish(10)
    for peer in (host, joiner):
        text = peer.text()
        blamed = (rf"double \(seat {double.seat}\) ended the game saying "
                  rf"(this seat was gone, but we hear each other|\w+ \(seat \d\) withheld its \w+ record, but the record came"
                  rf"|\w+ \(seat \d\) was gone, but \w+ \(seat \d\) (owes nothing here|is still heard here"
                  rf"|itself passed that on to us))")  # the accused's own copy may come first
        assert re.search(blamed, text), text
        assert "the game ends (" not in text, text  # nobody agreed that the accused was gone


@pytest.mark.parametrize("trick", ["two-versions", "two-commitments", "two-shuffles"])
@pytest.mark.slow
def test_a_seat_that_sends_each_peer_its_own_version_of_a_record_is_named_for_equivocation(
    processes: Processes, tmp_path: Path, trick: str,
) -> None:
    """Two signed versions of one record, one to each honest peer:

    * a move: each takes its own; the next record, made on one side, brings the other version
      to the other side with it.

    For a protocol record the chain stalls in two ways (before, each honest peer waited for
    the other, and named an honest seat as silent):

    * a commitment of a group: both honest peers complete the group, each with another version
      of the double's record; the next record, from an honest seat, cannot be taken by the
      other.  A peer that is behind is sent the step before the one it lacks as well.
    * a shuffle: both honest peers reveal for it at once, each on its own version, and each
      parks the other's reveal: they hold as many records, but their pings' tips (head and
      current step) differ, so each sends the other its last two steps.

    Either way both see the two versions and name the double, with that proof."""
    host, joiner, double = start_table_with_double(processes, tmp_path, trick, wait=30)
    for peer in (host, joiner):
        assert peer.wait(SMALL_GAME) == 3, peer.text()
    double.finish(30)
    for peer in (host, joiner):
        text = peer.text()
        assert re.search(rf"double \(seat {double.seat}\) broke the protocol: equivocation", text), text
        (verdict,) = verify(only_log(tmp_path / peer.name))
        assert verdict.startswith(f"stopped: seat {double.seat} (double) cheated (equivocation), evidence checks"), verdict


def ended_by_the_double(processes: Processes, tmp_path: Path, trick: str, wait: float) -> tuple[Peer, Peer, str]:
    """A table of the host, a person who never types and the double playing ``trick`` on the
    person, once both honest peers have ended the game naming the double (exit 5, quit): the
    host, the person, and the double's name and seat as a pattern."""
    host, person, double = start_table_with_double(processes, tmp_path, trick, human=True, wait=wait)
    for peer in (host, person):
        assert peer.wait(SMALL_GAME) == 5, peer.text()
    double.stop.set()  # what the double makes of it is not the point: stop it now
    double.finish(10)
    return host, person, rf"double \(seat {double.seat}\)"


@pytest.mark.slow
def test_a_seat_told_alone_that_it_is_gone_stops_and_is_not_then_named_for_its_silence(
    processes: Processes, tmp_path: Path,
) -> None:
    """The double tells a person thinking over a move, and nobody else, that it is gone. The
    person's peer stops, naming the double, and passes the word on to the host over its own
    link; that proves it present, so the host too names the double at once, rather than wait
    for the stopped seat and then name it for its silence (found by an attack)."""
    host, person, seat = ended_by_the_double(processes, tmp_path, "gone-to-the-accused", wait=8)
    assert re.search(rf"{seat} ended the game saying this seat was gone, but we hear each other", person.text()), person.text()
    text = host.text()
    assert re.search(rf"{seat} ended the game saying human \(seat \d\) was gone, but human \(seat \d\) itself passed "
                     rf"that on to us; nobody is blamed but {seat}", text), text
    assert "did not come back" not in text, text
    for peer in (host, person):
        (verdict,) = verify(only_log(tmp_path / peer.name))
        assert "went silent" not in verdict and "lost the table" not in verdict, verdict


@pytest.mark.slow
def test_a_seat_that_stops_talking_to_one_seat_cannot_make_it_say_it_lost_the_table(
    processes: Processes, tmp_path: Path,
) -> None:
    """The double stops talking to a person thinking over a move, then tells the host alone
    that the person is gone. The host hears the person and names the double; the word it
    passes on reaches the person from a signer it no longer hears, but through a seat that
    hears it: the person names the double too, not its own link (found by an attack)."""
    host, person, seat = ended_by_the_double(processes, tmp_path, "mute-then-gone", wait=30)
    assert re.search(rf"{seat} ended the game saying human \(seat \d\) was gone, but human \(seat \d\) (is still heard "
                     rf"here|itself passed that on to us)", host.text()), host.text()
    text = person.text()
    assert re.search(rf"{seat} ended the game saying this seat was gone; {seat} is not heard here, but \w+ \(seat 0\), "
                     rf"which hears this seat, passed that on; nobody is blamed but it", text), text
    (verdict,) = verify(only_log(tmp_path / person.name))
    assert "lost the table" not in verdict, verdict


@pytest.mark.slow
def test_a_gone_on_a_connection_that_proves_no_key_cannot_make_a_heard_seat_name_itself(
    processes: Processes, tmp_path: Path,
) -> None:
    """The double stops talking to a person thinking over a move, then says to the person
    itself, at its table endpoint (a connection anyone may open), that it is gone. The person
    still hears the host, so it is not its machine that lost the table: it names the double,
    and so does the host once the person passes the word on (found by an attack)."""
    host, person, seat = ended_by_the_double(processes, tmp_path, "mute-then-gone-unproven", wait=30)
    assert re.search(rf"{seat} ended the game saying this seat was gone; {seat} is not heard here, but other seats "
                     rf"are: it is not this machine that lost the table; nobody is blamed but it", person.text()), person.text()
    assert re.search(rf"{seat} ended the game saying human \(seat \d\) was gone, but human \(seat \d\) itself passed "
                     rf"that on to us", host.text()), host.text()
    for peer in (host, person):
        (verdict,) = verify(only_log(tmp_path / peer.name))
        assert "lost the table" not in verdict and "went silent" not in verdict, verdict


@pytest.mark.slow
def test_a_gone_said_during_a_short_stall_does_not_cut_the_receivers_own_wait(processes: Processes, tmp_path: Path) -> None:
    """A person's machine stalls for 5 s while the table waits for their move (a wait of 30 s);
    meanwhile the double tells the host alone that the person is gone. The host, for which
    the person has been silent only a few seconds, waits as its own wait says; the person comes
    back, and the host names the double, not the person (found by an attack)."""
    port = free_port()
    host = processes.start("host", host_args(port, 3, wait=30), verbose=True)
    person = processes.start("human", join_args(port, "human", wait=30, bot=None), verbose=True, stdin=subprocess.PIPE)
    trick = gone_in_a_pause("human", lambda: os.killpg(person.proc.pid, signal.SIGSTOP),
                            lambda: os.killpg(person.proc.pid, signal.SIGCONT))
    double = start_double(f"127.0.0.1:{port}", "double", trick, tmp_path / "double")
    assert host.wait(SMALL_GAME) == 5, host.text()
    double.stop.set()  # what the double makes of it is not the point: stop it now
    double.finish(10)
    seat = rf"double \(seat {double.seat}\)"
    text = host.text()
    assert re.search(rf"{seat} ended the game saying human \(seat \d\) was gone, but human \(seat \d\) (is still heard "
                     rf"here|itself passed that on to us)", text), text
    (verdict,) = verify(only_log(tmp_path / "host"))
    assert "went silent" not in verdict, verdict
    assert person.wait(SMALL_GAME) == 5, person.text()  # it names the double too, not itself


@pytest.mark.slow
def test_a_seat_that_talks_to_all_but_one_seat_is_not_named_there_while_the_others_hear_it(
    processes: Processes, tmp_path: Path,
) -> None:
    """The double stops talking to one seat alone (it still hears it) and thinks over a move
    for longer than the wait. The muted seat is told by the host's pings that the host hears
    the double, so it does not name it (before, it did, and the host, which heard the double,
    then named the muted seat, honest, for ending the game), and the game is played to its
    end (found by an attack)."""
    host, muted, double = start_table_with_double(processes, tmp_path, "muted-and-thinking", wait=4, rounds=1)
    for peer in (host, muted):
        assert peer.wait(SMALL_GAME) == 0, peer.text()
    double.finish(30)
    assert double.error is None and double.stages_done == 2, (double.error, double.said)
    assert re.search(r"double is not heard here \(no word for \d+ s\), but host says it hears double", muted.text()), muted.text()
    for peer in (host, muted):
        assert "the game ends" not in peer.text(), peer.text()
        (verdict,) = verify(only_log(tmp_path / peer.name))
        assert verdict.startswith("OK"), verdict


@pytest.mark.slow
@pytest.mark.parametrize("key", ["SIGINT", "SIGHUP"])
def test_ctrl_c_at_a_hosts_terminal_names_the_host_not_its_bot_peers(processes: Processes, tmp_path: Path, key: str) -> None:
    """Ctrl-C at the terminal of a host that runs bot peers reaches its whole process group.
    The bot peers were in it, and each said bye for its own seat as the host did: the people
    at the table read that a bot seat had left (found by a play-test).  The bot peers have a
    process group of their own: the host says bye for its seat, and they end naming the host.
    A closed terminal (SIGHUP) does the same: it killed the host, and its peers waited for it
    (found by review)."""
    port = free_port()
    # the bot peers take a tenth of a second a move, so the game is still on when Ctrl-C comes
    # (without it a quiet machine played the whole game in the second below)
    host = processes.start("host", [*host_args(port, 3, bots=2, rounds=3), "--bot-delay", "0.1"], verbose=True)
    deadline = time.monotonic() + SMALL_GAME
    while not list((tmp_path / "host").glob("game-*.log")) and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)  # into the game
    os.killpg(host.proc.pid, getattr(signal, key))  # what the terminal does on Ctrl-C, or as it closes
    # 60 s: once, with the whole suite and other work on the 2 cores, 30 s passed before the host
    # was done (its bye, then its bot peers' ends); a lost signal would end the game instead, 0
    assert host.wait(60) == 130, host.text()
    assert "you stopped this seat (Ctrl-C); the others were told you left" in host.text(), host.text()
    for bot in ("random-1", "random-2"):
        text = (tmp_path / "host" / bot / "output.txt").read_text()
        assert re.search(r"\w+ \(seat 0\) left the table; the game ends", text), text
