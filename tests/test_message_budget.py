"""A seat's flood of well-formed, signed messages costs us little (found by an attack: 800,000
chat lines on one seat's link made every turn of a 3-seat game take up to 3 s, and nobody
was named).  Each seat's link, and each machine's connections that proved no key, spend a
budget of messages; the rest are dropped unread, and the seat is named in the log."""
from __future__ import annotations

import time
from pathlib import Path

import pytest
from net_doubles import session_for_tests
from test_link_vouches import ping

from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.net import inflow as session_module
from saboteur_p2p.net import wire
from saboteur_p2p.net.pace import Budget
from saboteur_p2p.net.wire import seal


def test_a_budget_gives_a_burst_then_its_rate_and_keeps_few_keys() -> None:
    budget = Budget(rate=8.0, burst=5.0, keys=2)
    assert [budget.take("a", 100.0) for _ in range(6)] == [True] * 5 + [False]
    assert not budget.take("a", 100.0625)  # half a token
    assert budget.take("a", 100.125) and not budget.take("a", 100.125)
    assert budget.take("b", 100.125)  # a key of its own
    # a third key while both others are still spending: it shares one bucket with later ones
    assert [budget.take("c", 100.125) for _ in range(5)] == [True] * 5
    assert not budget.take("d", 100.125)
    assert len(budget.left) == 3
    # once a key's bucket is full again it is forgotten, and a newcomer has its own
    assert budget.take("e", 200.0) and "e" in budget.left and len(budget.left) <= 3


def test_a_flood_on_a_seats_link_is_opened_only_up_to_its_budget_and_named(tmp_path: Path, monkeypatch) -> None:
    session, identities, said = session_for_tests(tmp_path)
    clock = [1000.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    link_key = identities[2].public.dh_key
    before = session.presence.count[2]
    flood = [ping(identities[2], 2, 0) for _ in range(3)]
    for n in range(2000):
        session._handle(b"link-of-2", flood[n % 3], link_key)
    assert session.presence.count[2] - before == session_module.SEAT_BURST
    assert any("s2 (seat 2)" in line and "more than 400 a second" in line for line in said), said
    clock[0] += 1.0  # a second later, a second's worth more
    for _ in range(1000):
        session._handle(b"link-of-2", flood[0], link_key)
    assert session.presence.count[2] - before == session_module.SEAT_BURST + session_module.SEAT_MESSAGES_PER_S
    # the other seat's link has a budget of its own
    other = session.presence.count[0]
    session._handle(b"link-of-0", ping(identities[0], 0, 0), identities[0].public.dh_key)
    assert session.presence.count[0] == other + 1


def test_a_seats_envelope_off_its_link_costs_no_signature_check_unless_an_ending(tmp_path: Path, monkeypatch) -> None:
    """While the seats speak on their links, an envelope in a seat's name on a connection that
    proved no key is dropped before its signature is checked: only an ending is heard there."""
    session, identities, said = session_for_tests(tmp_path)
    session.links.proven_only = True
    checked: list[bytes] = []
    real = wire.verify_signature
    monkeypatch.setattr(wire, "verify_signature", lambda key, data, sig: checked.append(key) or real(key, data, sig))
    chat = seal(identities[2], "chat", {"game_id": session.setup.game_id, "seat": 2, "text": "hi"})
    for _ in range(50):
        assert session._handle(b"unproven", chat) is None
    assert checked == []
    assert said and "chat in the name of s2 (seat 2)" in said[0] and "proved no key" in said[0], said
    ending = seal(identities[2], "abort", {"game_id": b"another game" + bytes(20), "seat": 2})
    assert session._handle(b"unproven", ending) is None
    assert checked == [identities[2].public.sign_key]


@pytest.mark.parametrize("proven_only", [False, True])
def test_connections_that_proved_no_key_share_a_budget(tmp_path: Path, monkeypatch, proven_only: bool) -> None:
    session, identities, said = session_for_tests(tmp_path)
    session.links.proven_only = proven_only
    monkeypatch.setattr(time, "monotonic", lambda: 50.0)
    checked: list[bytes] = []
    real = wire.verify_signature
    monkeypatch.setattr(wire, "verify_signature", lambda key, data, sig: checked.append(key) or real(key, data, sig))
    abort = seal(identities[2], "abort", {"game_id": b"another game" + bytes(20), "seat": 2})
    for _ in range(1000):
        session._handle(b"unproven", abort)
    assert len(checked) == session_module.UNPROVEN_BURST + session_module.FIRST_WORDS  # its first words, then the budget
    assert any("proved no key: more than 128 a second" in line for line in said), said


def test_past_its_budget_a_seats_records_still_come_in_and_copies_are_not_decoded(tmp_path: Path, monkeypatch) -> None:
    """A flooder's own records are not dropped with its flood (its game would stall, and the
    others with it); a copy of a record the log holds is known before it is decoded."""
    from saboteur_p2p.net import intake as intake_module

    session, identities, _ = session_for_tests(tmp_path)
    monkeypatch.setattr(time, "monotonic", lambda: 10.0)
    link_key = identities[2].public.dh_key
    flood = ping(identities[2], 2, 0)
    for _ in range(int(session_module.SEAT_BURST)):
        session._handle(b"link-of-2", flood, link_key)
    seen: list[bytes] = []
    monkeypatch.setattr(session, "_take_record", lambda record, by: seen.append(record))
    record = seal(identities[2], "record", {"record": b"a record"})
    session._handle(b"link-of-2", flood, link_key)  # over budget: dropped unread
    session._handle(b"link-of-2", record, link_key)  # over budget, but a record
    assert seen == [b"a record"]
    monkeypatch.undo()

    decoded: list[bytes] = []
    real = intake_module.decode_record
    monkeypatch.setattr(intake_module, "decode_record", lambda data, **kw: decoded.append(data) or real(data, **kw))
    session.node.records.append(b"a record the log holds")
    assert session._take_record(b"a record the log holds", 2) is None
    assert decoded == []
    session._take_record(b"not one", 2)
    assert decoded == [b"not one"]


def test_a_chat_line_past_the_allowance_is_not_cleaned_for_nothing(tmp_path: Path, monkeypatch) -> None:
    """The line's characters were each looked up before the allowance dropped it (30 us a
    line: most of what an attack's chat flood cost); and plain text is shown as it is."""
    from saboteur_p2p.protocol import messages

    calls: list[str] = []
    real = messages._shown
    monkeypatch.setattr(messages, "_shown", lambda char: calls.append(char) or real(char))
    session, identities, _ = session_for_tests(tmp_path)
    heard: list[str] = []
    session.agent = type("Agent", (), {"chat": lambda self, seat, name, text: heard.append(text)})()
    line = seal(identities[2], "chat", {"game_id": session.setup.game_id, "seat": 2, "text": "é" * 100})
    for _ in range(50):
        session._handle(b"link-of-2", line, identities[2].public.dh_key)
    assert heard == ["é" * 100] * 5 and len(calls) == 500  # the allowance's 5 lines, and only they
    calls.clear()
    assert messages.printable("plain ASCII, as most chat is ~") == "plain ASCII, as most chat is ~"
    assert calls == []
    assert messages.printable("tab\there \x1b[2Jbidi\u202e é") == "tabhere [2Jbidi é"
    assert calls


def test_while_lingering_a_seats_link_spends_its_budget_and_vouches_for_it(tmp_path: Path, monkeypatch) -> None:
    """After the game's last record a flood went on being read, each message's signature
    checked (30% of a lingering host's time under an attack's chat flood)."""
    session, identities, said = session_for_tests(tmp_path)
    monkeypatch.setattr(time, "monotonic", lambda: 20.0)
    checked: list[bytes] = []
    real = wire.verify_signature
    monkeypatch.setattr(wire, "verify_signature", lambda key, data, sig: checked.append(key) or real(key, data, sig))
    link_key = identities[2].public.dh_key
    flood = seal(identities[2], "ping", {"game_id": session.setup.game_id, "seat": 2, "to": 1, "records": 0,
                                         "away": [], "got": [], "t": 0, "done": True})
    before = session.presence.count[2]
    for _ in range(2000):
        session._heard_lingering(b"link-of-2", flood, link_key)
    assert session.presence.count[2] - before == session_module.SEAT_BURST
    assert checked == []
    assert any("s2 (seat 2)" in line and "more than 400 a second" in line for line in said), said


def test_a_seat_coming_back_is_still_heard_off_its_link(tmp_path: Path, monkeypatch) -> None:
    """A seat that restarts says ``hello`` at a table endpoint before it has a link: that is
    still opened (the first version of the rule above dropped it, and a killed seat could
    not come back)."""
    session, identities, said = session_for_tests(tmp_path)
    session.links.proven_only = True
    answered: list[int | None] = []
    monkeypatch.setattr(session, "_answer_hello", lambda connection, env, seat: answered.append(seat))
    hello = seal(identities[2], "hello", {"version": 14})
    session._handle(b"unproven", hello)
    assert answered == [2] and said == []


def test_a_flood_from_a_seats_machine_cannot_keep_its_hello_out(tmp_path: Path, monkeypatch) -> None:
    """Connections that proved no key share their machine's budget: a stranger flooding from
    the seat's own address (a NAT, the same host) kept out the hello of a seat coming back
    (found by review).  A connection's first messages are opened whatever the budget."""
    from saboteur_p2p.net.pace import FirstWords

    session, identities, _ = session_for_tests(tmp_path)
    session.links.proven_only = True
    session.transport.address_of = lambda connection: "10.0.0.7"  # every connection from one machine
    monkeypatch.setattr(time, "monotonic", lambda: 70.0)
    answered: list[int | None] = []
    monkeypatch.setattr(session, "_answer_hello", lambda connection, env, seat: answered.append(seat))
    watch = seal(Identity.generate(), "watch", {"game_id": session.setup.game_id})
    for _ in range(2000):
        session._handle(b"flooder", watch)
    hello = seal(identities[2], "hello", {"version": 14})
    session._handle(b"seat 2 coming back", hello)
    assert answered == [2]
    # a connection's first words are few, and the newest connections are the ones remembered
    words = FirstWords(2, keys=3)
    assert [words.take("a") for _ in range(3)] == [True, True, False]
    for key in "bcd":
        assert words.take(key)
    assert words.take("a")  # forgotten, as the oldest: a key of its own again


def test_past_its_budget_a_seats_records_have_a_budget_of_their_own(tmp_path: Path, monkeypatch) -> None:
    """Records were opened whatever the budget, and a record with a junk signature, cheap to
    make, costs its receiver a signature check: a flood of them was unbounded (found by
    review).  Past the seat's budget its records and endings spend one of their own."""
    session, identities, said = session_for_tests(tmp_path)
    monkeypatch.setattr(time, "monotonic", lambda: 30.0)
    opened: list[bytes] = []
    monkeypatch.setattr(session, "_take_record", lambda record, by: opened.append(record))
    link_key = identities[2].public.dh_key
    junk = [seal(identities[2], "record", {"record": bytes([n % 256, n // 256]) * 8}) for n in range(4000)]
    for envelope in junk:
        session._handle(b"link-of-2", envelope, link_key)
    assert len(opened) == session_module.SEAT_BURST + session_module.SEAT_RECORDS_BURST
    assert any("s2 (seat 2)" in line and "more than 400 a second" in line for line in said), said


def test_past_its_budget_copies_of_records_the_log_holds_spend_nothing(tmp_path: Path, monkeypatch) -> None:
    """A flood of copies of a record the log holds spent the records' budget, and the
    flooder's own new records then waited (a game of 15 s took 44): a copy is known by its
    bytes and dropped before it spends anything; one in another key's name costs no
    signature check there."""
    session, identities, _ = session_for_tests(tmp_path)
    monkeypatch.setattr(time, "monotonic", lambda: 40.0)
    checked: list[bytes] = []
    real = wire.verify_signature
    monkeypatch.setattr(wire, "verify_signature", lambda key, data, sig: checked.append(key) or real(key, data, sig))
    opened: list[bytes] = []
    monkeypatch.setattr(session, "_take_record", lambda record, by: opened.append(record))
    session.node.records.append(b"held")
    link_key = identities[2].public.dh_key
    copy = seal(identities[2], "record", {"record": b"held"})
    relayed = seal(identities[0], "record", {"record": b"of seat 0"})
    for _ in range(5000):
        session._handle(b"link-of-2", copy, link_key)
    for _ in range(10):
        session._handle(b"link-of-2", relayed, link_key)
    new = seal(identities[2], "record", {"record": b"new"})
    session._handle(b"link-of-2", new, link_key)
    assert opened.count(b"new") == 1  # the records' budget was left whole by the copies
    assert opened.count(b"held") == session_module.SEAT_BURST  # those within the seat's budget reach _take_record
    assert len(checked) == 10  # the relays, opened within the records' budget, each checked once, there only


def test_a_seats_budget_is_spent_by_size_and_a_records_by_each_4_kib(tmp_path: Path, monkeypatch) -> None:
    """A message's decoding costs by its size (an attack's 100 KB bodies of empty arrays took
    20 ms each within the 400 a second): past the first kilobyte each one costs a token more.
    A record's bytes are one bin in its envelope, but the record is then decoded and its items
    checked: a liar's 4 MiB records of small integers, a token each, stalled a seat's loop for
    seconds (an attack).  A record costs a token more for each whole 4 KiB, within the seat's
    budget and past it within the records' own; an honest record, at most 28 KB, a few."""
    session, identities, _ = session_for_tests(tmp_path)
    monkeypatch.setattr(time, "monotonic", lambda: 80.0)
    link_key = identities[2].public.dh_key
    big = seal(identities[2], "ping", {"game_id": session.setup.game_id, "seat": 2, "to": 1, "records": 0,
                                       "away": [], "got": [], "t": 0, "done": False, "padding": bytes(100 * 1024)})
    before = session.presence.count[2]
    for _ in range(100):
        session._handle(b"link-of-2", big, link_key)
    pings = session.presence.count[2] - before
    assert pings == int(session_module.SEAT_BURST // (1 + len(big) // 1024))
    opened: list[bytes] = []
    monkeypatch.setattr(session, "_take_record", lambda record, by: opened.append(record))
    large = [seal(identities[2], "record", {"record": bytes([n]) * (200 * 1024)}) for n in range(100)]
    for envelope in large:
        session._handle(b"link-of-2", envelope, link_key)
    each = 1 + len(large[0]) // session_module.RECORD_BYTES_A_TOKEN
    left = session_module.SEAT_BURST - pings * (1 + len(big) // 1024)  # what the pings left of the seat's budget
    assert each == 51 and len(opened) == int(left // each + session_module.SEAT_RECORDS_BURST // each) == 40
    monkeypatch.setattr(time, "monotonic", lambda: 200.0)  # both budgets full again
    shuffles = [seal(identities[2], "record", {"record": bytes([n]) * (28 * 1024)}) for n in range(100)]
    for envelope in shuffles:
        session._handle(b"link-of-2", envelope, link_key)
    assert len(opened) == 40 + 100  # a catch-up of 100 of the largest honest records passes at once


def test_a_record_slow_to_decode_costs_its_sender_the_work_it_took(tmp_path: Path, monkeypatch) -> None:
    """A liar's well-formed, signed 4 KiB records of 3,800 empty arrays each took 2 ms to
    decode for one token, and a flood of them kept a seat's loop busy 80% of the time, passes
    of a second (an attack).  Once decoded a record costs its sender a token more for each
    1,024 of its weight (an item, four for an array), from both its budgets: such a flood is
    opened less than a nineteenth as often, while an honest record (about 1,000 items in 160 arrays and maps) costs one more."""
    import msgpack

    from saboteur_p2p.crypto import log as record_log
    from saboteur_p2p.crypto.log import PROTOCOL_VERSION

    session, identities, _ = session_for_tests(tmp_path)
    monkeypatch.setattr(time, "monotonic", lambda: 300.0)
    decoded: list[int] = []
    real = record_log.decode_record
    monkeypatch.setattr("saboteur_p2p.net.intake.decode_record",
                        lambda *a, **k: decoded.append(1) or real(*a, **k))
    link_key = identities[2].public.dh_key
    game = session.setup.game_id

    def heavy(n: int) -> bytes:
        raw = msgpack.packb([PROTOCOL_VERSION, game, 2, 50 + n, bytes([1 + n % 255]) * 32, "action", [[]] * 3_800],
                            use_bin_type=True)  # after a record we never saw: parked, or dropped once its share is full
        return seal(identities[2], "record", {"record": msgpack.packb([raw, identities[2].sign(raw)], use_bin_type=True)})

    flood = [heavy(n) for n in range(3_000)]
    assert len(flood[0]) < session_module.RECORD_BYTES_A_TOKEN  # a token each, before they are decoded
    for envelope in flood:
        session._handle(b"link-of-2", envelope, link_key)
    weight = 3_800 + 7 + 2 + 4 * (3_800 + 2)  # the record's array, the entry's, the body's and its arrays
    each = 1 + weight // session_module.DECODING_A_TOKEN
    budgets = session_module.SEAT_BURST + session_module.SEAT_RECORDS_BURST
    # each one decoded is paid for from both budgets: fewer than the budgets' tokens at 19 each
    assert each == 19 and budgets / each / 2 <= len(decoded) <= budgets / each, len(decoded)


def test_a_seat_that_relays_malformed_or_unsigned_records_has_its_records_dropped_unread_a_while(
    tmp_path: Path, monkeypatch,
) -> None:
    """A record of 100 KB of empty arrays costs 20 ms to decode, and records spend a token each
    (an attack): an honest seat relays only records it took in, so past a few malformed or
    unsigned ones a relayer's records are dropped unread for a while, and it is named."""
    import msgpack

    session, identities, said = session_for_tests(tmp_path)
    clock = [100.0]
    monkeypatch.setattr(time, "monotonic", lambda: clock[0])
    link_key = identities[2].public.dh_key
    bomb = msgpack.packb([[[]] * 1000, b"x" * 64], use_bin_type=True)
    decoded: list[int] = []
    real = session.intake.take
    monkeypatch.setattr(session.intake, "take", lambda record, on: decoded.append(1) or real(record, on))
    for n in range(50):
        session._handle(b"link-of-2", seal(identities[2], "record", {"record": bomb + bytes([n])}), link_key)
    assert len(decoded) == session_module.BAD_RECORDS_BURST + 1  # its allowance, and the one past it
    assert any("s2 (seat 2) sent more records that are malformed or not signed" in line for line in said), said
    clock[0] += session_module.BAD_RECORDS_SHUN + 1  # a while later, its records are read again
    session._handle(b"link-of-2", seal(identities[2], "record", {"record": bomb + b"later"}), link_key)
    assert len(decoded) == session_module.BAD_RECORDS_BURST + 2


def test_past_its_budget_a_seat_still_passes_on_a_busy_notice_and_a_padded_one_is_dropped(
    tmp_path: Path, monkeypatch,
) -> None:
    """A liar sent one seat alone a busy notice padded to cost the whole budget and, at once, a
    real one: the seat passed both on, the first spent its budget at the accuser, which
    dropped the second unread and named the liar by its wait, while the seat that heard it
    judged the record fresh and named the accuser (an attack).  A busy notice is its three
    fields in at most 512 bytes, else dropped as bad and not passed on; and one passed on past
    the passer's budget is opened within the records' own, as the passer's own wait moved."""
    session, identities, said = session_for_tests(tmp_path)
    monkeypatch.setattr(time, "monotonic", lambda: 90.0)
    sent = session.transport.sent  # type: ignore[attr-defined]
    game = session.setup.game_id
    padded = seal(identities[2], "busy", {"game_id": game, "seat": 2, "seconds": 0.5, "padding": bytes(800 * 1024)})
    session._handle(b"link-of-2", padded, identities[2].public.dh_key)
    assert not sent and any("dropped a bad busy from s2" in line and "512 bytes" in line for line in said), said
    assert session.presence.records_wait_until(2) == float("-inf")  # nor taken
    small = seal(identities[2], "busy", {"game_id": game, "seat": 2, "seconds": 1, "x": 0})
    session._handle(b"link-of-2", small, identities[2].public.dh_key)
    assert not sent and session.presence.records_wait_until(2) == float("-inf")  # a field of its own: dropped too
    flood = seal(identities[0], "ping", {"game_id": game, "seat": 0, "to": 1, "records": 0, "away": [], "got": [],
                                         "t": 0, "done": False})
    for _ in range(int(session_module.SEAT_BURST) + 10):  # seat 0's budget here, spent
        session._handle(b"link-of-0", flood, identities[0].public.dh_key)
    busy = seal(identities[2], "busy", {"game_id": game, "seat": 2, "seconds": 60})
    session._handle(b"link-of-0", busy, identities[0].public.dh_key)  # seat 0 passes seat 2's notice on
    assert session.presence.records_wait_until(2) == 90.0 + 60


def test_a_record_envelope_is_its_record_alone_and_no_message_holds_extension_types() -> None:
    """A record envelope is its body map alone (its record one bin), and a liar's held 17 lists
    of a million extension-type items besides its record: each took 1.5 s to decode, and three
    stalled a seat's loop long enough to skew its clock against an accuser's (an attack)."""
    import msgpack

    me = Identity.generate()
    record = seal(me, "record", {"record": b"r" * 1000})
    assert wire.open_envelope(record).body == {"record": b"r" * 1000}
    lists = seal(me, "record", {"record": b"r", **{f"x{n}": [0] * 10 for n in range(4)}})
    with pytest.raises(wire.BadEnvelope, match="more than 4 arrays and maps"):
        wire.open_envelope(lists)
    for kind, body in (("record", {"record": b"r", "x": msgpack.ExtType(5, b"a")}),
                       ("ping", {"game_id": bytes(32), "seat": 0, "t": msgpack.ExtType(5, b"a")})):
        with pytest.raises(wire.BadEnvelope, match="extension type"):
            wire.open_envelope(seal(me, kind, body))
