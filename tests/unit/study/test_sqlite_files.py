"""SQLite files are checked through SQLite (never a plain open that drops this process's locks), and
errors name their real cause."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from safebandits._sqlite import check_sqlite_file, is_sqlite_database, translate
from safebandits.exceptions import ConfigError

EXCLUSIVE = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
try:
    conn.execute("BEGIN EXCLUSIVE")
    print("acquired")
except sqlite3.OperationalError as exc:
    print("refused", exc)
"""


def _other_process_can_lock(path: Path) -> bool:
    out = subprocess.run([sys.executable, "-c", EXCLUSIVE, str(path)], capture_output=True, text=True)
    return out.stdout.startswith("acquired")


def test_checking_a_file_keeps_this_process_locks(tmp_path):
    """A read transaction holds a SHARED lock; checking the file again (as every load of a study does)
    must not release it (a plain open/close of the file would: POSIX locks are per process and file)."""
    db = tmp_path / "s.db"
    with sqlite3.connect(db) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT count(*) FROM t").fetchone()  # SHARED lock held until COMMIT
    assert not _other_process_can_lock(db)
    assert check_sqlite_file(db, "study database") is True
    assert is_sqlite_database(db)
    assert not _other_process_can_lock(db), "the check dropped this process's lock on the database"
    reader.execute("COMMIT")
    reader.close()
    assert _other_process_can_lock(db)


@pytest.mark.parametrize(
    "content", [b"x", b"hello" * 200, b"SQLite format 3\x00" + b"\x00" * 600, b"\x00" * 4096]
)
def test_non_databases_are_refused_untouched(tmp_path, content):
    f = tmp_path / "f.db"
    f.write_bytes(content)
    assert not is_sqlite_database(f)
    with pytest.raises(ConfigError, match="not a SQLite database"):
        check_sqlite_file(f, "study database")
    assert f.read_bytes() == content and sorted(p.name for p in tmp_path.iterdir()) == ["f.db"]


def test_empty_file_is_refused_by_name(tmp_path):
    f = tmp_path / "e.db"
    f.write_bytes(b"")
    with pytest.raises(ConfigError, match="empty file"):
        check_sqlite_file(f, "study database")


def test_io_error_is_not_called_a_full_disk(tmp_path):
    err = translate(sqlite3.OperationalError("disk I/O error"), tmp_path / "s.db", "study database")
    text = str(err)
    assert "I/O error" in text and "free space" not in text.lower() and "not full" in text
    full = translate(
        sqlite3.OperationalError("database or disk is full"), tmp_path / "s.db", "study database"
    )
    assert "Free space" in str(full) and "full" in str(full)
    busy = translate(sqlite3.OperationalError("database is locked"), tmp_path / "s.db", "study database")
    assert "busy" in str(busy) and "free space" not in str(busy).lower()
