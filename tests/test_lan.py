"""Play across machines: each peer on a host of its own (a network namespace with its own
address), joined through the user-space switch of netlab.py with LAN and Wi-Fi faults.

Skipped, with the reason, where network namespaces cannot be made (not root, no ``ip``).
Tables have 3 seats and random bots, to keep each game short;
benchmarks/lan_game.py plays the 4-peer heuristic games and measures them.
"""
from __future__ import annotations

import re
import time

import pytest
from lan_table import LanPeer, finish, start_table, time_to_progress, verify, wait_for_progress, wait_for_stall
from netlab import NetLab, netlab_available

from saboteur_p2p.crypto.log import read_log

AVAILABLE, WHY_NOT = netlab_available()
pytestmark = [
    pytest.mark.skipif(not AVAILABLE, reason=f"no network lab here: {WHY_NOT}"),
    pytest.mark.slow,  # whole games, one with injected faults, one with a 15 s cut: about 60 s together
]

#: bound on a 3-seat game of random bots across the lab, faults included
GAME = 150.0
FINAL = re.compile(r"game over\. nuggets: (.+)$", re.MULTILINE)


def final_scores(peer: LanPeer) -> str:
    found = FINAL.findall(peer.text())
    assert found, f"{peer.name} did not finish:\n{peer.text()[-2000:]}"
    return str(found[-1])


def assert_finished_alike(peers: list[LanPeer]) -> None:
    codes = finish(peers, GAME)
    said = "\n\n".join(f"{p.name} exit {c}:\n{p.text()[-1500:]}" for p, c in zip(peers, codes, strict=True))
    assert codes == [0] * len(peers), said
    assert len({final_scores(p) for p in peers}) == 1
    # every peer holds the same records (each file in the order its peer took them in), and
    # verify accepts them: checking one copy is enough (each copy once cost the suite a game's replay)
    logs = [peer.log() for peer in peers]
    assert None not in logs, logs
    assert all(sorted(read_log(log)) == sorted(read_log(logs[0])) for log in logs[1:]), logs  # type: ignore[arg-type]
    said = verify(peers[0])
    assert said.startswith("OK:"), said


def test_a_table_bound_to_every_interface_starts_and_finishes_across_machines(tmp_path):
    with NetLab(hosts=3) as lab:
        peers = start_table(lab, tmp_path, seats=3, rounds=1)  # the change of rounds is played on loopback
        assert f"friends join with: saboteur-p2p join {lab.address(1)}:7777" in peers[0].text()
        assert_finished_alike(peers)
        for peer in peers:
            assert "0.0.0.0" not in peer.text().replace("table open at tcp://0.0.0.0:7777", "")
            assert "cannot reach it from here" not in peer.text()


def test_a_game_finishes_on_a_faulty_network(tmp_path):
    """Delay with jitter, 5% of frames lost and 10% held back (so reordered), all at once: one
    game crosses every fault (a game per fault cost the suite three games)."""
    with NetLab(hosts=3) as lab:
        lab.set_profile(delay_ms=20, jitter_ms=10, loss=0.05, reorder=0.1, reorder_ms=15)
        peers = start_table(lab, tmp_path, seats=3, rounds=1)  # a round's worth of records crosses the faults
        assert_finished_alike(peers)
        stats = lab.stats()
        assert stats["forwarded"] > 0 and stats["dropped_loss"] > 0, stats


#: Play resumes within 2 s of a heal on a quiet machine (benchmarks/lan_game.py measures it); the
#: suite's workers starve the peers of CPU, so the test allows more, and still far less than any
#: of the long timers (a seat's wait, a silent connection's 15 s) play would stall on.
RESUMED_UNDER_LOAD_S = 5.0


def test_a_peer_cut_off_for_15_s_is_waited_for_and_play_resumes_soon_after_the_heal(tmp_path):
    with NetLab(hosts=3) as lab:
        peers = start_table(lab, tmp_path, seats=3, wait=60, rounds=1)
        wait_for_progress(peers, 20_000, timeout=60)  # the game is under way
        lab.cut(3)
        cut_at = time.monotonic()
        wait_for_stall(peers[:2], quiet=1.5, timeout=20)  # the others wait for the cut-off seat
        time.sleep(max(0.0, 15 - (time.monotonic() - cut_at)))
        lab.heal()
        resumed = time_to_progress(peers[:2], timeout=20)
        assert resumed <= RESUMED_UNDER_LOAD_S, f"play resumed {resumed:.2f} s after the heal"
        assert_finished_alike(peers)
        assert "is away" in peers[0].text() and "p3 is back" in peers[0].text()


def test_a_cut_longer_than_wait_ends_the_game_and_every_connected_peer_names_the_absent_seat(tmp_path):
    with NetLab(hosts=3) as lab:
        peers = start_table(lab, tmp_path, seats=3, wait=5)
        wait_for_progress(peers, 20_000, timeout=60)
        lab.cut(3)
        codes = finish(peers, 60)
        assert codes == [4, 4, 4], "\n\n".join(p.text()[-1500:] for p in peers)
        for peer in peers[:2]:
            named = r"p3 \(seat \d\) (did not come back|sent no \S+ record) within 5 s; the game ends"
            assert re.search(named, peer.text()), peer.text()
            assert re.match(r"stopped: the log says seat \d \(p3\) went silent", verify(peer)), verify(peer)
        # the cut-off peer heard nobody: it blames its own link, not the seat whose turn it was
        assert "this machine lost the table" in peers[2].text()
