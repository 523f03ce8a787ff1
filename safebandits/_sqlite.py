"""SQLite files opened safely: refuse what is not ours, open read-only for reading, name errors plainly.

Shared by the results store (:mod:`safebandits.experiments.store`) and the study storage
(:mod:`safebandits.study.storage`). Nothing here writes to a file it has not first recognised as a
SQLite database: an empty file, a text file or another format is refused by name and left byte for byte
as it was. Reading uses ``file:...?mode=ro`` URIs (and ``immutable=1`` on read-only media, where SQLite
cannot create the WAL index), so a read never creates or alters anything.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sqlite3
from collections.abc import Iterator
from pathlib import Path

from safebandits.exceptions import ConfigError, SafeBanditsError, StorageError

__all__ = [
    "StorageError",
    "check_sqlite_file",
    "connect_read_only",
    "discard_side_files",
    "is_sqlite_database",
    "rollback",
    "side_files",
    "translate",
]


def is_sqlite_database(path: Path) -> bool:
    """Whether the file ``path`` holds a SQLite database (or something SQLite cannot tell from one),
    asked of SQLite itself.

    Never a plain ``open()`` of the file: closing any descriptor of a file drops every POSIX lock this
    process holds on it, so a plain open and close while this process has a SQLite connection to the
    same file (a long-lived reader such as the dashboard, loading a study again) silently releases that
    connection's locks; another process may then checkpoint and reset the WAL under it ("disk I/O
    error", "database disk image is malformed"; SQLite's "How to corrupt" notes, section 2.2). SQLite's
    own VFS knows the locks of the process per file and defers the close of a descriptor while other
    connections of the process hold locks, so the header is read through a SQLite connection opened
    ``mode=ro&immutable=1`` (``nolock`` is never used: its close is not deferred): it takes no lock,
    creates no ``-wal``/``-shm`` file and checks page 1's header. Only SQLite's "not a database" answer
    means no; it comes from header bytes that never change once a database exists (magic string, page
    size, payload fractions), so a concurrent writer cannot cause it. Any other answer (a page read
    while another process checkpoints may look corrupt to a lock-free reader) counts as a database, and
    its users' own connections report the real problem. A file of 1 to 511 bytes is no database (the
    smallest page is 512 bytes) although SQLite would take it for an empty one; an empty file counts as
    one only when a ``-wal`` file holds its content.
    """
    try:
        size = os.stat(path).st_size
    except OSError:
        return False
    if size == 0:
        return Path(f"{path}-wal").exists()
    if size < 512:
        return False
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return True
    try:
        conn.execute("PRAGMA schema_version").fetchone()
    except sqlite3.Error as exc:
        return not (getattr(exc, "sqlite_errorname", "") == "SQLITE_NOTADB" or "not a database" in str(exc))
    finally:
        conn.close()
    return True


def check_sqlite_file(path: Path, what: str) -> bool:
    """Whether ``path`` exists as a SQLite database; raise :class:`ConfigError` if it is something else.

    A folder, an empty file and a file without the SQLite header are refused (and never touched). The
    file is never opened with a plain descriptor (see :func:`is_sqlite_database`).
    """
    if path.is_dir():
        raise ConfigError(f"The {what} {str(path)!r} is a folder; give the path of a database file.")
    if not path.exists():
        if not path.parent.is_dir():
            raise ConfigError(f"The folder of the {what} {str(path)!r} does not exist; create it first.")
        return False
    try:
        size = os.stat(path).st_size
    except OSError as exc:
        raise ConfigError(f"The {what} {str(path)!r} cannot be read: {exc.strerror or exc}.") from None
    if not os.access(path, os.R_OK):
        raise ConfigError(f"The {what} {str(path)!r} cannot be read: permission denied.")
    if size == 0 and not Path(f"{path}-wal").exists():
        raise ConfigError(
            f"{str(path)!r} is an empty file, not a {what}; it was left unchanged. Delete it or choose "
            "another path."
        )
    if not is_sqlite_database(path):
        raise ConfigError(
            f"{str(path)!r} is not a SQLite database, so not a {what}; it was left unchanged. "
            "Choose another path."
        )
    return True


def side_files(path: Path) -> set[Path]:
    """The ``-wal`` and ``-shm`` files of ``path`` that exist now."""
    return {p for p in (Path(f"{path}-wal"), Path(f"{path}-shm")) if p.exists()}


def discard_side_files(path: Path, existed: set[Path]) -> None:
    """Remove the empty ``-wal`` / ``-shm`` files a refused read-only open created (and nothing else)."""
    wal = Path(f"{path}-wal")
    if wal in existed or (wal.exists() and wal.stat().st_size > 0):
        return
    for p in (wal, Path(f"{path}-shm")):
        if p not in existed:
            try:
                p.unlink(missing_ok=True)
            except OSError:
                pass


def connect_read_only(path: Path, what: str, timeout: float = 5.0) -> sqlite3.Connection:
    """Open an existing SQLite file read-only (``mode=ro``; ``immutable=1`` on read-only media).

    Like any SQLite reader of a WAL database, the connection may create the ``-wal`` and ``-shm`` side
    files; when the file is refused they are removed again (see :func:`discard_side_files`).
    """
    existed = side_files(path)
    try:
        return _connect_read_only(path, what, timeout)
    except BaseException:
        discard_side_files(path, existed)
        raise


def _connect_read_only(path: Path, what: str, timeout: float) -> sqlite3.Connection:
    base = path.resolve().as_uri()
    last: sqlite3.Error | None = None
    for query in ("?mode=ro", "?mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(base + query, uri=True, timeout=timeout, isolation_level=None)
        except sqlite3.Error as exc:
            last = exc
            continue
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            conn.close()
            last = exc
            if "unable to open" in str(exc) or "readonly" in str(exc):
                continue  # (a WAL database on read-only media: retry as immutable)
            raise translate(exc, path, what) from None
        return conn
    assert last is not None
    raise translate(last, path, what) from None


def translate(exc: BaseException, path: Path | str, what: str) -> SafeBanditsError:
    """A plain one-line error for a :mod:`sqlite3` error on the database ``path``."""
    msg = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    low = msg.lower()
    where = f"The {what} {str(path)!r}"
    code = getattr(exc, "sqlite_errorname", None)
    if "disk is full" in low or code == "SQLITE_FULL" or (("disk i/o" in low) and _file_system_full(path)):
        return StorageError(
            f"{where} cannot be written: the file system is full ({msg}). Free space and run the command "
            "again; the transaction in progress was not stored."
        )
    if "disk i/o" in low or (code or "").startswith("SQLITE_IOERR"):
        return StorageError(
            f"{where}: the file system reported an I/O error ({code or msg}; the disk is not full). The "
            "database, its -wal or -shm file may have been moved, deleted or changed underneath this "
            "process, or the storage failed; run the command again, and check the file system if it "
            "persists. The transaction in progress was not stored."
        )
    if "not a database" in low or "malformed" in low or "file is encrypted" in low:
        return ConfigError(f"{where} is corrupt or not a database ({msg}); it was left unchanged.")
    if "no such table" in low or "no such column" in low:
        return ConfigError(f"{where} has a foreign or incomplete schema ({msg}); it was left unchanged.")
    if "readonly" in low or "read-only" in low:
        return ConfigError(f"{where} is read-only ({msg}); write elsewhere.")
    if "unable to open" in low:
        return ConfigError(f"{where} cannot be opened ({msg}): check the path and its permissions.")
    if "locked" in low or "busy" in low:
        return StorageError(f"{where} stayed busy (another process holds it: {msg}); try again.")
    if isinstance(exc, OverflowError) or "too large" in low:
        return ConfigError(f"{where} cannot hold a value given: {msg} (integers are limited to 64 bits).")
    return StorageError(f"{where}: {msg}.")


def _file_system_full(path: Path | str) -> bool:
    """Whether the file system of ``path`` has (almost) no space left (an I/O error may be ENOSPC)."""
    try:
        return shutil.disk_usage(Path(path).parent).free < 64 * 1024
    except OSError:
        return False


def rollback(conn: sqlite3.Connection) -> None:
    """Roll back if a transaction is open (after disk full SQLite may already have rolled back)."""
    try:
        if getattr(conn, "in_transaction", True):
            conn.execute("ROLLBACK")
    except sqlite3.Error:
        pass


@contextlib.contextmanager
def inspecting(conn: sqlite3.Connection, path: Path, existed: set[Path], what: str) -> Iterator[None]:
    """Around the first look at a file opened read-only: on any error close ``conn``, remove the side
    files the look created (``existed``: those there before) and name a SQLite error plainly."""
    try:
        yield
    except sqlite3.Error as exc:
        conn.close()
        discard_side_files(path, existed)
        raise translate(exc, path, what) from None
    except BaseException:
        conn.close()
        discard_side_files(path, existed)
        raise
