"""`saboteur-p2p verify`: a whole log checked from outside, and a tampered one blamed."""
from __future__ import annotations

import dataclasses

import msgpack
import pytest
from protocol_helpers import seeded_bytes

from saboteur_p2p.cli import main
from saboteur_p2p.crypto.identity import Identity
from saboteur_p2p.crypto.log import LogWriter, decode_record, make_entry, read_log
from saboteur_p2p.protocol.ending import Ending
from saboteur_p2p.protocol.local import play_local_game
from saboteur_p2p.protocol.verify import replay_records, verify_records
from saboteur_p2p.rules import GameConfig

# the module's finished game (a module fixture) is played once, on one worker
pytestmark = pytest.mark.xdist_group("verify-game")


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """One finished 3-seat game shared by the module (no test changes it) and its seats' log directory."""
    log_dir = tmp_path_factory.mktemp("verify-game")
    game = play_local_game(GameConfig(3, rounds=1), ["random"] * 3, seed=5, rand=seeded_bytes(5), log_dir=str(log_dir))
    return game, log_dir


@pytest.fixture
def game(played):
    return played[0]


def test_every_seat_writes_the_same_log_and_verify_accepts_it(played, capsys):
    game, log_dir = played
    logs = [read_log(log_dir / f"seat{s}.log") for s in range(3)]
    assert logs[0] == logs[1] == logs[2] == game.records
    assert main(["verify", str(log_dir / "seat1.log")]) == 0
    out = capsys.readouterr().out
    scores = game.spectator.state.scores
    assert out.startswith("OK:") and all(f"seat{i} {s}" in out for i, s in enumerate(scores))


def test_a_tampered_action_is_blamed_on_its_signer(game, tmp_path, capsys):
    records = list(game.records)
    index = next(i for i, r in enumerate(records) if decode_record(r).kind == "action")
    entry = decode_record(records[index])
    # the bytes of an action changed after signing: the signature no longer matches
    raw = bytearray(entry.raw)
    raw[-2] ^= 1
    records[index] = msgpack.packb([bytes(raw), entry.signature])
    verdict = verify_records(records)
    assert not verdict.ok and verdict.records == index
    path = tmp_path / "bad.log"
    with LogWriter(path) as writer:
        for record in records:
            writer.append(record)
    assert main(["verify", str(path)]) == 1
    assert f"record {index}:" in capsys.readouterr().out


def test_a_log_cut_short_is_valid_so_far_and_says_where_it_stops(game):
    verdict = verify_records(game.records[:40])
    assert verdict.ok and not verdict.finished and "stops" in verdict.message


def test_an_illegal_move_signed_by_its_player_is_blamed_on_that_player(game):
    records = list(game.records)
    index = next(i for i, r in enumerate(records) if decode_record(r).kind == "action")
    entry = decode_record(records[index])
    mover = entry.sender
    forged = make_entry(game.nodes[mover].identity, entry.game_id, mover, entry.seq, entry.prev, "action",
                        {"action": "path 0 at 40,40"})
    records[index] = forged.record
    verdict = verify_records(records[: index + 1])
    assert not verdict.ok and verdict.culprit == mover and "illegal" in verdict.message


def test_verify_prints_the_seats_fingerprints_and_the_proof_parameters_and_pins_them(played, capsys):
    game, log_dir = played
    log = str(log_dir / "seat1.log")
    fingerprints = [key.fingerprint() for key in game.setup.seats]
    assert main(["verify", log]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("OK:")
    assert all(fp in lines[1] for fp in fingerprints) and "seat" in lines[1]
    assert "Terelius-Wikstrom proofs of a shuffle" in lines[2]
    assert main(["verify", log, "--expect", ",".join(reversed(fingerprints))]) == 0
    capsys.readouterr()
    stranger = Identity.generate().public.fingerprint()
    assert main(["verify", log, "--expect", ",".join([*fingerprints[:2], stranger])]) == 1
    out = capsys.readouterr().out
    assert f"the log's seats are not the expected ones: seat 2 (seat2) is {fingerprints[2]}; nobody is {stranger}" in out
    # an empty --expect (a script's unset variable) pinned nothing and passed (found by review)
    for empty in ("", " , "):
        assert main(["verify", log, "--expect", empty]) == 1
        assert "--expect names no fingerprint" in capsys.readouterr().out


def test_the_seats_line_quotes_each_name_so_a_name_cannot_pass_for_a_fingerprint(game):
    """Names may hold '-', ',' and spaces: a seat named like a fingerprint printed a second,
    false fingerprint in the line a person compares (found by review)."""
    from saboteur_p2p.protocol.verify import describe_setup

    fake = f'{Identity.generate().public.fingerprint()}, 1 "x'
    setup = dataclasses.replace(game.setup, names=(fake, *game.setup.names[1:]))
    line = describe_setup(setup)[0]
    quoted = fake.replace('"', '\\"')  # the name's own quote escaped: it cannot close the quotes
    assert line.startswith(f'seats (compare these fingerprints with the players\'): 0 "{quoted}" '), line
    assert line.endswith(f'2 "seat2" {game.setup.seats[2].fingerprint()}')


def test_verify_finished_refuses_a_valid_log_that_stops_early(played, tmp_path, capsys):
    game, log_dir = played
    whole = log_dir / "seat1.log"
    assert main(["verify", str(whole), "--finished"]) == 0
    cut = tmp_path / "cut.log"
    with LogWriter(cut) as writer:
        for record in game.records[:40]:
            writer.append(record)
    assert main(["verify", str(cut)]) == 0  # valid so far
    assert main(["verify", str(cut), "--finished"]) == 1
    out = capsys.readouterr().out
    assert "OK so far" in out and "not a finished game (--finished)" in out


def _stopped_at(game, count, ending):
    """The first ``count`` records of the game, and a verdict written after them."""
    return [*game.records[:count], ending.to_bytes()]


def test_a_log_that_stops_says_who_went_silent_only_if_the_log_waited_for_it(game):
    cut = 40
    records = game.records[:cut]
    due = verify_records(records).message.split("due from seat ")[1][0]
    verdict = verify_records(_stopped_at(game, cut, Ending("peer-gone", int(due))))
    assert verdict.ok and verdict.silent == int(due) and verdict.culprit is None  # a claim, not a proof
    said = f"stopped: the log says seat {due} (seat{due}) went silent; the next record was due from it"
    assert verdict.message.startswith(said)
    owing = {e.speaker for e in replay_records(records)[1].outstanding}
    other = next(s for s in range(3) if s not in owing)
    wrong = verify_records(_stopped_at(game, cut, Ending("peer-gone", other)))
    assert wrong.culprit is None and "but it owed no record where the log ends" in wrong.message


def test_a_cheat_in_a_stopped_log_is_named_only_if_its_evidence_checks(game):
    cut = next(i for i, r in enumerate(game.records) if decode_record(r).kind == "action") + 1  # after a move
    replayed = verify_records(game.records[:cut])
    due = int(replayed.message.split("due from seat ")[1][0])
    cheater = (due + 1) % 3  # a seat that speaks out of turn, its record signed and chained
    head = decode_record(game.records[cut - 1]).hash  # a move is a step of its own
    seq = sum(decode_record(r).sender == cheater for r in game.records[:cut])
    record = make_entry(game.nodes[cheater].identity, game.setup.game_id, cheater, seq, head, "action",
                        {"action": "pass 0"}).record
    verdict = verify_records(_stopped_at(game, cut, Ending("cheater", cheater, "out-of-turn", "", record)))
    assert verdict.ok and verdict.culprit == cheater
    assert verdict.message.startswith(f"stopped: seat {cheater} (seat{cheater}) cheated (out-of-turn), evidence checks")
    # the same claim with no evidence, or against another seat, names nobody
    for claim in (Ending("cheater", cheater, "out-of-turn"), Ending("cheater", due, "out-of-turn", "", record)):
        unproven = verify_records(_stopped_at(game, cut, claim))
        assert unproven.culprit is None and "but its evidence does not show it" in unproven.message


def test_a_verdict_is_never_taken_for_a_record_nor_a_record_for_a_verdict(game):
    assert all(Ending.from_bytes(r) is None for r in game.records[:20])
    ending = Ending("quit", 1, "", "b left")
    assert Ending.from_bytes(ending.to_bytes()) == ending
    # tagged as a verdict but not one: unreadable, never a record, and it names nobody
    unreadable = Ending.from_bytes(b"\x92\xa7verdict\x80")
    assert unreadable is not None and unreadable.outcome == "unreadable"
    verdict = verify_records([*game.records[:30], b"\x92\xa7verdict\x80"])
    assert verdict.ok and verdict.culprit is None and "a verdict that cannot be read" in verdict.message
    # nor does a claim verify cannot check: who left, or a log's own seat losing the table
    for claim in (Ending("quit", 1), Ending("peer-gone", 2, seat=2)):
        said = verify_records([*game.records[:30], claim.to_bytes()])
        assert said.culprit is None and "a claim verify cannot check" in said.message
        # followed by records (its seat rejoined and played on), it no longer says why the log
        # stops: it was read as the log's ending (found by an attack)
        later = verify_records([*game.records[:30], claim.to_bytes(), *game.records[30:40]])
        assert later == verify_records(game.records[:40]) and later.message.startswith("OK so far: 40 valid records")


def test_verify_reports_its_progress_record_by_record_and_on_a_terminal_only(played, monkeypatch):
    import io

    from saboteur_p2p import cli_logs
    from saboteur_p2p.protocol.verify import replay_file

    game, log_dir = played
    calls: list[tuple[int, int]] = []
    verdict, _ = replay_file(str(log_dir / "seat0.log"), lambda done, total: calls.append((done, total)))
    total = len(game.records)
    assert verdict.ok and calls == [(i, total) for i in range(1, total + 1)]

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    shown = Terminal()
    with cli_logs._Progress(shown) as progress:
        for done in range(1, total + 1):
            progress(done, total)
    text = shown.getvalue()
    assert f"\rchecking record {total} of {total} (100%)" in text and text.endswith("\r\x1b[K")
    quiet = io.StringIO()  # not a terminal: a script sees nothing but the verdict
    with cli_logs._Progress(quiet) as progress:
        progress(1, total)
    assert quiet.getvalue() == ""


def test_a_record_of_another_protocol_version_is_called_so_not_unsigned(game):
    """Signed by its seat, but under another protocol version: proves nothing against the
    seat, and the message says what is wrong with it."""
    records = list(game.records)
    entry = decode_record(records[7])
    identity = game.nodes[entry.sender].identity
    raw = msgpack.packb([4, entry.game_id, entry.sender, entry.seq, entry.prev, entry.kind, entry.body], use_bin_type=True)
    records[7] = msgpack.packb([raw, identity.sign(raw)], use_bin_type=True)
    verdict = verify_records(records)
    assert not verdict.ok and verdict.records == 7 and verdict.culprit is None
    assert "record 7: version: the record is of another protocol version" in verdict.message


def test_a_pipe_or_fifo_is_refused_as_no_log_file_not_read_as_empty_or_waited_on(played, tmp_path, capsys):
    """A pipe read as "the log is empty" (its size is 0 to fstat), and a FIFO's path made
    verify wait for a writer for ever (found by review): only a regular file is a log."""
    import os
    import subprocess
    import sys

    _, log_dir = played
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert main(["verify", str(fifo)]) == 1  # returns: nothing opens the FIFO
    assert "is not a regular file (a folder, pipe or device)" in capsys.readouterr().out
    piped = subprocess.run(
        [sys.executable, "-m", "saboteur_p2p", "verify", "/dev/stdin"],
        input=(log_dir / "seat1.log").read_bytes(), capture_output=True, timeout=60,
    )
    assert piped.returncode == 1 and b"is not a regular file" in piped.stdout, piped.stdout


def test_a_corrupt_length_mid_file_still_checks_the_records_before_it(game, tmp_path):
    """One bad length prefix after valid records gave only "cannot read the log": the records
    before it are checked and reported, as they are for a file cut short (found by review)."""
    from saboteur_p2p.protocol.verify import replay_file

    path = tmp_path / "corrupt.log"
    with LogWriter(path) as writer:
        for record in game.records[:12]:
            writer.append(record)
    at = path.stat().st_size
    with open(path, "ab") as file:
        file.write(bytes(4) + game.records[12])  # a length of 0, then a record
    verdict = replay_file(str(path))[0]
    assert not verdict.ok and verdict.records == 12
    assert verdict.message.startswith(f"DAMAGED LOG: the file is corrupt from byte {at}: ")
    assert "the records before it: 12 valid records, but the game stops in round" in verdict.message
    assert "OK" not in verdict.message  # the command exits 1: its words must not say OK
    cut = tmp_path / "cut.log"
    cut.write_bytes(path.read_bytes()[:3])  # inside the genesis's length prefix
    assert replay_file(str(cut))[0].message == "DAMAGED LOG: the file ends inside its first record at byte 0"
    cut.write_bytes(path.read_bytes()[:at + 2])  # inside the 13th record's length prefix
    verdict = replay_file(str(cut))[0]
    assert not verdict.ok and verdict.message.startswith(f"DAMAGED LOG: the file ends inside a record at byte {at}; ")


def test_expect_counts_each_seat_once() -> None:
    """--expect compared sets: a made-up log whose one key held two of three seats passed with
    two fingerprints (found by an attack).  Each expected fingerprint is one seat's."""
    from types import SimpleNamespace

    from saboteur_p2p.crypto.identity import Identity
    from saboteur_p2p.protocol.verify import unexpected_seats

    one, other = Identity.generate().public, Identity.generate().public
    setup = SimpleNamespace(seats=(one, one, other), names=("a", "b", "c"))
    why = unexpected_seats(setup, [one.fingerprint(), other.fingerprint()])  # type: ignore[arg-type]
    assert why is not None and f"seats 0, 1 are all {one.fingerprint()}" in why, why
    assert unexpected_seats(setup, [one.fingerprint(), one.fingerprint(), other.fingerprint()]) is None  # type: ignore[arg-type]
    fair = SimpleNamespace(seats=(one, other), names=("a", "c"))
    why = unexpected_seats(fair, [one.fingerprint(), one.fingerprint(), other.fingerprint()])  # type: ignore[arg-type]
    assert why is not None and why.endswith("a fingerprint is given more times than seats hold it"), why
    third = Identity.generate().public
    why = unexpected_seats(setup, [one.fingerprint(), one.fingerprint(), third.fingerprint()])  # type: ignore[arg-type]
    assert why is not None and "seats 0, 1" not in why and f"nobody is {third.fingerprint()}" in why, why


def test_expect_takes_a_fingerprint_with_or_without_its_dashes_in_either_case() -> None:
    """A play-test typed BDCQ63K7HVWV5CT4 for bdcq-63k7-hvwv-5ct4 and was told nobody is it."""
    from types import SimpleNamespace

    from saboteur_p2p.crypto.identity import Identity
    from saboteur_p2p.protocol.verify import unexpected_seats

    one, other = Identity.generate().public, Identity.generate().public
    setup = SimpleNamespace(seats=(one, other), names=("a", "b"))
    typed = [one.fingerprint().replace("-", "").upper(), f" {other.fingerprint()} "]
    assert unexpected_seats(setup, typed) is None  # type: ignore[arg-type]
    third = Identity.generate().public
    why = unexpected_seats(setup, [one.fingerprint(), third.fingerprint().replace("-", "")])  # type: ignore[arg-type]
    assert why is not None and f"seat 1 (b) is {other.fingerprint()}" in why and "nobody is " in why, why
