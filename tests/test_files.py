"""Files named on the command line are opened without waiting on them (saboteur_p2p/files.py):
an identity, a secrets file, a results file or a --json named by a FIFO made the command hang
for ever (found by an attack)."""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from saboteur_p2p.crypto.identity import Identity, IdentityError
from saboteur_p2p.files import NotAFile, open_regular, open_to_write


def test_a_pipe_is_refused_where_a_file_is_read_and_written_only_while_somebody_reads_it(tmp_path: Path) -> None:
    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    with pytest.raises(NotAFile, match="pipe is not a regular file"):
        open_regular(pipe, "results file")
    with pytest.raises(NotAFile, match="is a pipe that nobody reads"):
        open_to_write(pipe)
    with pytest.raises(NotAFile, match="not a regular file"):
        open_regular(tmp_path, "results file")
    with pytest.raises(IdentityError, match=r"identity file .* is not a regular file"):
        Identity.load(pipe)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(pipe.read_bytes()))
    reader.start()  # `--json /dev/stdout | jq`: a pipe that is read is written
    while True:
        try:
            out = open_to_write(pipe)
            break
        except NotAFile:
            continue  # the reader has not opened its end yet
    with out:
        out.write("{}\n")
    reader.join(10)
    assert got == [b"{}\n"]
    (tmp_path / "file").write_text("x")
    with open_regular(tmp_path / "file", "results file") as f:
        assert f.read() == b"x"


@pytest.mark.parametrize("command", [
    ["id", "--identity", "{pipe}"],
    ["report", "{pipe}"],
    ["tournament", "--players", "3", "--games", "2", "--bots", "random", "--out", "{pipe}"],
])
def test_a_command_given_a_pipe_for_a_file_says_so_and_stops(tmp_path: Path, command: list[str]) -> None:
    named = tmp_path / "named"
    os.mkfifo(named, 0o600)
    done = subprocess.run([sys.executable, "-m", "saboteur_p2p", *(part.format(pipe=named) for part in command)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert f"{named} is not a regular file" in done.stderr or f"{named} is a pipe that nobody reads" in done.stderr, done.stderr


def test_a_device_named_for_the_results_is_refused_by_name(tmp_path: Path) -> None:
    """`--out /dev/null` said "error: Invalid argument", naming nothing (found by an attack)."""
    done = subprocess.run([sys.executable, "-m", "saboteur_p2p", "tournament", "--players", "3", "--games", "2",
                           "--bots", "random", "--out", os.devnull], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and f"{os.devnull} is not a regular file" in done.stderr, done.stderr

