"""Opening the files a person names on the command line without waiting on them.

``open()`` of a FIFO waits for its other end: an identity, a secrets file or a tournament's
results named by a pipe made the command hang for ever (found by an attack).  Files read
here are opened without waiting and must be regular files; files written are opened without
waiting, so a pipe that somebody reads (``--json /dev/stdout | jq``) is written, and one
that nobody reads is refused.
"""
from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
from typing import IO, Any, BinaryIO


class NotAFile(ValueError):
    """A path that names a folder, a pipe or a device where a regular file was asked for."""


def open_regular(path: str | os.PathLike[str], what: str) -> BinaryIO:
    """``path`` opened to read, in binary; NotAFile unless it is a regular file (``what``
    names it in the message: "identity file")."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotAFile(f"{what} {os.fspath(path)} is not a regular file (a folder, pipe or device)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_to_write(path: str | os.PathLike[str], append: bool = False) -> IO[str]:
    """``path`` opened to write text (created, and emptied unless ``append``); NotAFile for a
    pipe that nobody reads."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | (os.O_APPEND if append else os.O_TRUNC)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise NotAFile(f"{os.fspath(path)} is a pipe that nobody reads") from None
        raise
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a" if append else "w", encoding="utf-8")


def open_lock(path: str | os.PathLike[str]) -> IO[str]:
    """``path`` opened to append, as a lock file (created if need be); NotAFile unless it is a
    regular file: a pipe in its place made ``join``, ``host`` and ``play`` hang (an attack)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o666)
    except OSError as exc:
        if exc.errno not in (errno.ENXIO, errno.EISDIR):
            raise
        fd = -1
    if fd < 0 or not stat.S_ISREG(os.fstat(fd).st_mode):
        if fd >= 0:
            os.close(fd)
        raise NotAFile(f"the lock file {os.fspath(path)} is not a regular file (a folder, pipe or device): remove it")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "a", encoding="ascii")


def read_note(path: str | os.PathLike[str], what: str, limit: int = 1 << 20) -> Any:
    """A small JSON file this program wrote beside a game (a note, a hand's slots), parsed;
    ValueError (NotAFile among them) when it is not a regular file, is over ``limit`` bytes
    or is not JSON, and OSError when it cannot be read.  A note nested thousands deep raised
    RecursionError, and a FIFO in its place hung the command (found by an attack)."""
    with open_regular(path, what) as file:
        data = file.read(limit + 1)
    if len(data) > limit:
        raise ValueError(f"{what} {os.fspath(path)} is over {limit} bytes")
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError(f"{what} {os.fspath(path)} nests too deep") from None


def write_note(path: str | os.PathLike[str], data: Any, sync: bool = True) -> None:
    """``data`` as JSON in ``path``, whole or not at all (``write_whole``): a crash mid-write
    lost the note.  ``sync``: on the disk before this returns (a note a game is taken back
    by), or not (one that only saves a nicety)."""
    write_whole(path, json.dumps(data).encode(), sync)


def write_whole(
    path: str | os.PathLike[str], data: bytes, sync: bool = True, mode: int = 0o666, tmp: str | os.PathLike[str] | None = None,
) -> None:
    """``data`` in ``path``, whole or not at all: written to ``tmp`` beside it (``path.tmp``
    unless given), then put in its place (a pipe there that nobody reads is NotAFile, not a
    hang; a failed write leaves nothing behind).  ``sync``: the file and its folder on the
    disk before this returns.  ``mode``: a new file's permissions (0o600: this user's only)."""
    tmp = f"{os.fspath(path)}.tmp" if tmp is None else tmp
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK, mode)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise NotAFile(f"{tmp} is a pipe that nobody reads") from None
        raise
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            if sync:
                file.flush()
                os.fsync(file.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if sync:
        sync_folder(path)


def sync_folder(path: str | os.PathLike[str]) -> None:
    """The folder of ``path`` synced to the disk: a file put in place by a rename is there only
    once its folder is (a folder cannot be opened so on Windows: nothing is done there)."""
    if os.name == "nt":
        return
    folder = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)
