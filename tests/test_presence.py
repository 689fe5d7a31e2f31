"""Who is away: judged per seat against what its link has shown, not by a fixed timer."""
from __future__ import annotations

from saboteur_p2p.net.presence import AWAY_MAX, AWAY_MIN, BUSY_MAX, Presence


def test_a_seat_is_away_after_the_minimum_on_a_steady_link_and_back_when_heard():
    presence = Presence([1, 2], now=0.0)
    for t in range(1, 21):
        presence.heard(1, t * 0.5)
        presence.heard(2, t * 0.5)
    assert presence.away_after(1) == AWAY_MIN
    assert presence.newly_away(10.0 + AWAY_MIN - 0.1) == []
    assert presence.newly_away(10.0 + AWAY_MIN + 0.1) == [1, 2]
    assert presence.heard(1, 14.0) is True and presence.away == {2}
    assert presence.notice_away(2, 14.0) and not presence.notice_away(2, 15.0)  # once per 10 s
    assert presence.notice_back(2) and not presence.notice_back(1)  # back only after an away notice


def test_a_link_that_has_stalled_before_is_given_longer_and_an_outage_is_not_a_gap():
    presence = Presence([1], now=0.0)
    presence.heard(1, 0.5)
    presence.heard(1, 3.0)  # a 2.5 s stall (TCP retransmitting, say)
    assert presence.away_after(1) == 1.5 * 2.5
    presence.newly_away(20.0)  # away: a 17 s outage
    presence.heard(1, 20.5)
    assert presence.away_after(1) == 1.5 * 2.5  # the outage is not how the link behaves
    presence.round_trip(1, 10.0)
    assert presence.away_after(1) == AWAY_MAX  # capped however slow the link


def test_a_seat_that_says_it_is_busy_is_not_away_until_its_time_is_up():
    presence = Presence([1], now=0.0)
    assert presence.busy_until(1) == float("-inf")
    presence.busy(1, now=1.0, seconds=8.0)
    assert presence.busy_until(1) == 9.0  # a stalled record is timed from here, not earlier
    assert presence.newly_away(1.0 + 8.0 + AWAY_MIN - 0.1) == []
    assert presence.newly_away(1.0 + 8.0 + AWAY_MIN + 0.1) == [1]
    presence.busy(1, now=20.0, seconds=1e9)  # never longer than BUSY_MAX
    assert presence.silent_for(1, 20.0) == -BUSY_MAX
    presence.busy(1, now=30.0, seconds=float("nan"))  # nonsense changes nothing
    assert presence.silent_for(1, 30.0) == -BUSY_MAX + 10.0


def test_time_this_peer_spent_computing_is_nobodys_silence():
    presence = Presence([1], now=0.0)
    presence.not_listening(5.0)
    assert presence.newly_away(5.0 + AWAY_MIN - 0.1) == []


def test_a_seat_is_heard_lately_only_within_half_the_away_minimum():
    presence = Presence([1], now=0.0)
    assert presence.heard_lately(1, AWAY_MIN / 2 - 0.1)
    assert not presence.heard_lately(1, AWAY_MIN / 2 + 0.1)  # the stall rule leaves it to the away rule
    presence.busy(1, now=5.0, seconds=4.0)
    assert presence.heard_lately(1, 8.0)  # busy: present, and its records are timed from busy_until


def test_a_seat_back_from_an_absence_says_how_long_it_was_silent():
    """"heuristic-2 is back" came with no "away" before it on the screen (the line is updated
    in place): the back line now says how long the seat was silent."""
    presence = Presence([1, 2], now=0.0)
    t = AWAY_MAX + 1
    presence.heard(1, t - 0.1)
    assert presence.newly_away(t) == [2]
    assert presence.heard(2, t + 5) and presence.silence[2] == t + 5  # silent since the start
    assert not presence.heard(1, t + 6) and 1 not in presence.silence  # heard all along: no absence


def test_a_seat_another_seat_hears_is_timed_from_that_word_but_stays_away_here():
    """Seat 2 says (in its ping) when it last heard seat 1, which we do not hear: the absence
    rules time seat 1 from then, while seat 1 is still away here (its own messages are what
    bring it back), and time we spent computing counts for neither."""
    presence = Presence([1, 2], now=0.0)
    presence.heard(2, 9.0)
    presence.heard_through(1, by=2, when=9.0)
    presence.heard_through(1, by=2, when=8.0)  # an older word changes nothing
    presence.heard_through(1, by=1, when=9.5)  # a seat cannot speak for itself
    presence.heard_through(7, by=2, when=9.5)  # nor for a seat that is not at the table
    assert presence.newly_away(9.0) == [1]
    assert presence.silent_for(1, 10.0) == 10.0 and presence.unheard_for(1, 10.0) == 1.0
    assert presence.heard_lately(1, 10.0) and presence.heard_elsewhere(1, 10.0) == 2
    presence.not_listening(4.0)
    assert presence.unheard_for(1, 14.0) == 1.0
    assert not presence.heard_lately(1, 15.0) and presence.heard_elsewhere(1, 15.0) == 2
    assert presence.heard_elsewhere(1, 16.5) is None
    assert presence.heard_ms(15.0, seats=3) == [0, 11000, 2000]
    presence.heard(1, 20.0)
    assert presence.away == set() and presence.heard_elsewhere(1, 20.0) is None  # heard here again
