"""Notices about a lying peer's messages come at a bounded rate and length, whatever the flood."""
from __future__ import annotations

from saboteur_p2p.net.notices import Notices


def test_a_flood_is_said_in_a_burst_then_one_a_second_with_the_count_kept_back():
    said: list[str] = []
    now = [0.0]
    notice = Notices(said.append, every=1.0, burst=3, width=40, clock=lambda: now[0])
    for i in range(1000):
        notice(f"bad message {i}")
    assert said == ["bad message 0", "bad message 1", "bad message 2"]
    now[0] = 1.0
    notice("bad message 1000")
    assert said[-1] == "bad message 1000 (997 more such notices kept back)"
    now[0] = 1.5
    notice("quiet")
    assert len(said) == 4  # half a second: no token yet
    now[0] = 100.0
    for i in range(5):
        notice(f"later {i}")
    assert said[4] == "later 0 (1 more such notices kept back)" and len(said) == 7  # the burst again, not more


def test_a_notice_quoting_a_long_message_is_cut():
    said: list[str] = []
    Notices(said.append, width=50)("unknown kind " + repr("A" * 60_000))
    assert len(said[0]) == 50 and said[0].endswith("…")


def test_what_was_kept_back_is_counted_when_the_flood_ends():
    said: list[str] = []
    notice = Notices(said.append, burst=2, clock=lambda: 0.0)
    for i in range(7):
        notice(f"bad {i}")
    notice.flush()
    assert said == ["bad 0", "bad 1", "5 more such notices were kept back"]
    notice.flush()
    assert len(said) == 3
