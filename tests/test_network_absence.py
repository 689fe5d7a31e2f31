"""A seat that withholds a record it owes, and a seat that falsely says another does: real
peer processes and the hostile double of net_doubles.py (the tables of test_network.py)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_network import SMALL_GAME, Processes, only_log, start_table_with_double, verify
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
                  rf"|\w+ \(seat \d\) was gone, but \w+ \(seat \d\) (owes nothing here|is still heard here))")
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
