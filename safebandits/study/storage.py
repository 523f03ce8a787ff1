"""Study storage: two tables in a database named by a URL.

``sqlite:///path/to/study.db`` (the default; also ``sqlite+DRIVER:///...``) uses the standard library's
:mod:`sqlite3`; any other
URL (``postgresql://user@host/db``, ``mysql://...``) goes through SQLAlchemy, an optional extra
(``pip install safebandits[postgres]``).

Tables: ``sb_studies`` (one row per study: name, algorithm, task, config, problem view, seed, versions)
and ``sb_queries`` (one row per query: study, sequence number = query id, decision, the answer once
told, UTC times). Every change happens in one write transaction that first locks the study
(SQLite: ``BEGIN IMMEDIATE`` with a busy timeout; other databases: ``SELECT ... FOR UPDATE`` on the
study's row), so concurrent askers and tellers are serialised and no answer is ever lost.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from safebandits.exceptions import ConfigError

__all__ = ["SQLAlchemyStorage", "SQLiteStorage", "Storage", "Transaction", "open_storage"]

BUSY_TIMEOUT_S = 60.0

SCHEMA = (
    """CREATE TABLE IF NOT EXISTS sb_studies (
        name VARCHAR(255) PRIMARY KEY,
        algorithm VARCHAR(255) NOT NULL,
        task VARCHAR(64) NOT NULL,
        config_json TEXT NOT NULL,
        info_json TEXT NOT NULL,
        seed VARCHAR(64) NOT NULL,
        created_at VARCHAR(64) NOT NULL,
        versions_json TEXT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS sb_queries (
        study VARCHAR(255) NOT NULL REFERENCES sb_studies(name),
        seq INTEGER NOT NULL,
        decision_json TEXT NOT NULL,
        observation_json TEXT,
        asked_at VARCHAR(64) NOT NULL,
        told_at VARCHAR(64),
        PRIMARY KEY (study, seq)
    )""",
)


class Transaction(Protocol):
    """A transaction: ``execute(sql, params)`` with ``:name`` parameters returns the rows as tuples."""

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]: ...


class Storage(Protocol):
    url: str

    def transaction(
        self, study: str | None = None, write: bool = False
    ) -> contextlib.AbstractContextManager[Transaction]: ...

    def close(self) -> None: ...


class _SQLiteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params or {}).fetchall()


class SQLiteStorage:
    """SQLite storage through :mod:`sqlite3` (WAL journal, ``BEGIN IMMEDIATE`` write transactions).

    ``synchronous=NORMAL`` in WAL mode: a committed answer survives the process being killed at any
    moment (it may be lost only on power failure of the machine).
    """

    def __init__(self, url: str, create: bool = True) -> None:
        self.url = url
        path = url.partition(":///")[2]
        if path in ("", ":memory:"):
            raise ConfigError(
                "A study needs a database file that other processes can open: use 'sqlite:///study.db'."
            )
        self.path = Path(path)
        if not self.path.parent.exists():
            raise ConfigError(f"The directory of the study database {str(self.path)!r} does not exist.")
        if not create and not self.path.exists():
            raise ConfigError(f"No study database at {str(self.path)!r} (from storage {url!r}).")
        self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        self.conn.execute("PRAGMA journal_mode = WAL")
        self.conn.execute("PRAGMA synchronous = NORMAL")
        self.conn.execute("PRAGMA foreign_keys = ON")
        with self.transaction(write=True) as tx:
            for stmt in SCHEMA:
                tx.execute(stmt)

    @contextlib.contextmanager
    def transaction(self, study: str | None = None, write: bool = False) -> Iterator[_SQLiteTx]:
        self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        try:
            yield _SQLiteTx(self.conn)
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def close(self) -> None:
        self.conn.close()


class _SATx:
    def __init__(self, conn: Any, text: Any) -> None:
        self.conn, self.text = conn, text

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        result = self.conn.execute(self.text(sql), params or {})
        return [tuple(r) for r in result.fetchall()] if result.returns_rows else []


class SQLAlchemyStorage:
    """Storage on any database SQLAlchemy reaches (PostgreSQL for shared use).

    A write transaction locks the study's row with ``SELECT ... FOR UPDATE`` first (databases without
    row locks, such as SQLite, serialise writers themselves).
    """

    def __init__(self, url: str) -> None:
        try:
            import sqlalchemy
        except ImportError:
            raise ConfigError(
                f"Storage {url!r} needs SQLAlchemy and a driver: pip install 'safebandits[postgres]'."
            ) from None
        self.url = url
        self._text = sqlalchemy.text
        try:
            self.engine = sqlalchemy.create_engine(url, pool_pre_ping=True)
        except (sqlalchemy.exc.ArgumentError, ImportError) as exc:
            raise ConfigError(f"Cannot open study storage {url!r}: {exc}") from None
        self._row_locks = self.engine.dialect.name != "sqlite"
        with self.transaction(write=True) as tx:
            for stmt in SCHEMA:
                tx.execute(stmt)

    @contextlib.contextmanager
    def transaction(self, study: str | None = None, write: bool = False) -> Iterator[_SATx]:
        with self.engine.begin() as conn:
            tx = _SATx(conn, self._text)
            if write and study is not None and self._row_locks:
                tx.execute("SELECT name FROM sb_studies WHERE name = :name FOR UPDATE", {"name": study})
            yield tx

    def close(self) -> None:
        self.engine.dispose()


def open_storage(url: str | Storage, create: bool = True) -> Storage:
    """Storage of a URL: ``sqlite:///file.db`` (standard library) or any SQLAlchemy URL.

    ``create=False`` refuses to create a missing SQLite file (loading a study from a mistyped path).
    """
    if not isinstance(url, str):
        return url
    if url.partition("://")[0].partition("+")[0] == "sqlite":  # sqlite:/// and sqlite+pysqlite:///
        if ":///" not in url:
            raise ConfigError(
                f"A SQLite study URL looks like 'sqlite:///path/study.db'. Got {url!r} instead."
            )
        return SQLiteStorage(url, create=create)
    if "://" not in url:
        raise ConfigError(
            f"The storage must be a database URL such as 'sqlite:///study.db' or "
            f"'postgresql://user@host/db'. Got {url!r} instead."
        )
    return SQLAlchemyStorage(url)
