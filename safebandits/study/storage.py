"""Study storage: two tables in a database named by a URL.

``sqlite:///path/to/study.db`` (the default; also ``sqlite+DRIVER:///...``) uses the standard library's
:mod:`sqlite3`; any other
URL (``postgresql://user@host/db``, ``mysql://...``) goes through SQLAlchemy, an optional extra
(``pip install safebandits[postgres]``).

Tables: ``sb_studies`` (one row per study: name, algorithm, task, config, problem view, seed, versions),
``sb_queries`` (one row per query: study, sequence number = query id, decision, the answer once
told, UTC times) and ``sb_snapshots`` (at most one row per study: its learner's state after the first
``seq`` queries, a cache that spares loading a study the replay of every answer). Every change
happens in one write transaction that first locks the study (SQLite: ``BEGIN IMMEDIATE`` with a busy
timeout; other databases: ``SELECT ... FOR UPDATE`` on the study's row), so concurrent askers and
tellers are serialised and no answer is ever lost.

Opening never harms what it opens: a file that is not a SQLite database (empty, text, another format)
or a SQLite database of another application is refused by name and left byte for byte as it was;
``read_only=True`` (the read-only commands ``study list | status | recommend | export``) opens SQLite
with a ``mode=ro`` URI and PostgreSQL in ``READ ONLY`` transactions and creates nothing. Credentials in
a URL are never shown: :attr:`Storage.url` is the URL with its password replaced by ``***``.

Schema versions (see docs/storage.md): SQLite records the version in ``PRAGMA user_version``, other
databases in the table ``sb_meta`` (key ``schema_version``). Opening checks it: a newer version is
refused (upgrade safebandits), an older one is upgraded by the in-library migrations of
:data:`MIGRATIONS` when opened for writing (:func:`upgrade_storage` does it explicitly). Schema
creation on PostgreSQL holds a transaction-level advisory lock, so concurrent first use of a fresh
database is safe.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from safebandits._sqlite import (
    StorageError,
    check_sqlite_file,
    connect_read_only,
    inspecting,
    rollback,
    side_files,
    translate,
)
from safebandits.exceptions import ConfigError
from safebandits.study.redact import redact_text, redact_url

__all__ = [
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "ConflictError",
    "SQLAlchemyStorage",
    "SQLiteStorage",
    "Storage",
    "StorageError",
    "Transaction",
    "open_storage",
    "redact_url",
    "upgrade_storage",
]

BUSY_TIMEOUT_S = 60.0

#: Version of the tables below; stored in the database (SQLite: ``PRAGMA user_version``; else ``sb_meta``).
SCHEMA_VERSION = 2

_SNAPSHOTS = """CREATE TABLE IF NOT EXISTS sb_snapshots (
        study VARCHAR(255) PRIMARY KEY REFERENCES sb_studies(name),
        seq INTEGER NOT NULL,
        library VARCHAR(64) NOT NULL,
        check_json TEXT,
        state TEXT NOT NULL,
        created_at VARCHAR(64) NOT NULL
    )"""

#: In-library migrations: ``MIGRATIONS[v]`` are the statements that take a version-``v`` database to
#: version ``v + 1`` (run in one transaction when a store is opened for writing). Version 0 is a
#: database written before versions were recorded: the tables are those of version 1. Version 2 adds
#: ``sb_snapshots`` (the learner's state every few answers; :mod:`safebandits.study.snapshot`).
MIGRATIONS: dict[int, tuple[str, ...]] = {0: (), 1: (_SNAPSHOTS,)}

_PG_SCHEMA_LOCK = 0x5AFEBAD1  # (advisory lock key held while the schema is created or migrated)

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
    _SNAPSHOTS,
)
_META = "CREATE TABLE IF NOT EXISTS sb_meta (key VARCHAR(64) PRIMARY KEY, value TEXT NOT NULL)"
_TABLES = {"sb_studies", "sb_queries"}


class ConflictError(ConfigError):
    """A write collided with a row another process stored first (e.g. two creators of one study)."""


def _clean(message: object, url: str) -> str:
    """The first line of a driver's message, with every secret of ``url`` removed."""
    lines = [line.strip() for line in str(message).splitlines() if line.strip()]
    return redact_text(lines[0] if lines else "", url)


class Transaction(Protocol):
    """A transaction: ``execute(sql, params)`` with ``:name`` parameters returns the rows as tuples."""

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]: ...


class Storage(Protocol):
    url: str
    #: Whether the tables hold learner snapshots (``sb_snapshots``).
    snapshots: bool

    def transaction(
        self, study: str | None = None, write: bool = False
    ) -> contextlib.AbstractContextManager[Transaction]: ...

    def close(self) -> None: ...


def _check_version(version: int, where: str, read_only: bool) -> bool:
    """Whether the stored schema ``version`` needs migrating; refuse versions this library cannot use."""
    if version > SCHEMA_VERSION:
        raise ConfigError(
            f"The study storage {where} has schema version {version}, newer than this safebandits "
            f"understands ({SCHEMA_VERSION}); upgrade safebandits. It was left unchanged."
        )
    return version < SCHEMA_VERSION


class _SQLiteTx:
    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn

    def execute(self, sql: str, params: dict[str, Any] | None = None) -> list[tuple[Any, ...]]:
        return self.conn.execute(sql, params or {}).fetchall()


class SQLiteStorage:
    """SQLite storage through :mod:`sqlite3` (WAL journal, ``BEGIN IMMEDIATE`` write transactions).

    ``synchronous=NORMAL`` in WAL mode: a committed answer survives the process being killed at any
    moment (it may be lost only on power failure of the machine). ``read_only=True`` opens the file
    with a ``mode=ro`` URI (``immutable=1`` on read-only media) and never creates or alters anything.
    """

    def __init__(self, url: str, create: bool = True, read_only: bool = False) -> None:
        self.url = redact_url(url)
        path = url.partition(":///")[2].partition("?")[0]
        if path in ("", ":memory:"):
            raise ConfigError(
                "A study needs a database file that other processes can open: use 'sqlite:///study.db'."
            )
        self.path = Path(path)
        self.read_only = read_only
        what = "study database"
        exists = check_sqlite_file(self.path, what)
        if not exists and (read_only or not create):
            raise ConfigError(f"No study database at {str(self.path)!r} (from storage {self.url!r}).")
        if not exists:  # created whole, then linked into place: no process ever sees a half-made file
            self._create_file()
            exists = check_sqlite_file(self.path, what)
        if exists:  # look before writing anything: is this one of ours, and which version?
            existed = side_files(self.path)
            conn = connect_read_only(self.path, what)
            with inspecting(conn, self.path, existed, what):
                tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                version = int(conn.execute("PRAGMA user_version").fetchone()[0])
                ours = _TABLES <= tables
                if not ours and (tables or read_only):
                    raise ConfigError(
                        f"{str(self.path)!r} is a SQLite database of another application (no safebandits "
                        "study tables); it was left unchanged. Choose another path."
                    )
                migrate = ours and _check_version(version, repr(str(self.path)), read_only)
            conn.close()
        else:
            migrate = False
        #: Whether the tables hold learner snapshots (a read-only open of an older file has none).
        self.snapshots = not read_only or (exists and version >= 2)
        if read_only:
            self.conn = connect_read_only(self.path, what, timeout=BUSY_TIMEOUT_S)
            return
        try:
            self.conn = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None)
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
            self.conn.execute("PRAGMA journal_mode = WAL")
            self.conn.execute("PRAGMA synchronous = NORMAL")
            self.conn.execute("PRAGMA foreign_keys = ON")
        except sqlite3.Error as exc:
            raise translate(exc, self.path, what) from None
        if not exists or migrate:
            with self.transaction(write=True) as tx:
                version = int(tx.execute("PRAGMA user_version")[0][0])
                tables = {r[0] for r in tx.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                if not tables:
                    for stmt in SCHEMA:
                        tx.execute(stmt)
                else:
                    for v in range(version, SCHEMA_VERSION):
                        for stmt in MIGRATIONS[v]:
                            tx.execute(stmt)
                tx.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _create_file(self) -> None:
        """Write a new database with the schema in a temporary file, then link it to the path atomically
        (a concurrent creator that links first wins; its database is used)."""
        tmp = self.path.parent / f".{self.path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
        try:
            conn = sqlite3.connect(tmp, isolation_level=None)
            try:
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("BEGIN IMMEDIATE")
                for stmt in SCHEMA:
                    conn.execute(stmt)
                conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
                conn.execute("COMMIT")
            finally:
                conn.close()
            try:
                os.link(tmp, self.path)
            except FileExistsError:
                pass
            except OSError:  # (no hard links on this file system)
                if not self.path.exists():
                    os.rename(tmp, self.path)
        except sqlite3.Error as exc:
            raise translate(exc, self.path, "study database") from None
        except OSError as exc:
            raise ConfigError(
                f"Cannot create the study database {str(self.path)!r}: {exc.strerror or exc}."
            ) from None
        finally:
            for p in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
                with contextlib.suppress(OSError):
                    p.unlink()

    @contextlib.contextmanager
    def transaction(self, study: str | None = None, write: bool = False) -> Iterator[_SQLiteTx]:
        if write and self.read_only:
            raise ConfigError(f"The study storage {self.url} was opened read-only.")
        try:
            self.conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
        except sqlite3.Error as exc:
            raise translate(exc, self.path, "study database") from None
        try:
            yield _SQLiteTx(self.conn)
            self.conn.execute("COMMIT")
        except sqlite3.IntegrityError as exc:
            rollback(self.conn)
            raise ConflictError(f"A concurrent write collided in {self.url}: {exc}.") from None
        except (sqlite3.Error, OverflowError) as exc:
            rollback(self.conn)
            raise translate(exc, self.path, "study database") from None
        except BaseException:
            rollback(self.conn)
            raise

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
    row locks, such as SQLite, serialise writers themselves). Connection failures (server unreachable,
    unknown role, missing database) are reported in one line without the password.
    """

    def __init__(self, url: str, create: bool = True, read_only: bool = False) -> None:
        self.url = redact_url(url)
        try:
            import sqlalchemy
        except ImportError:
            raise ConfigError(
                f"Storage {self.url!r} needs SQLAlchemy and a driver: pip install 'safebandits[postgres]'."
            ) from None
        self._sa = sqlalchemy
        self._raw = url
        self._text = sqlalchemy.text
        self.read_only = read_only
        try:
            self.engine = sqlalchemy.create_engine(url, pool_pre_ping=True)
        except Exception as exc:  # (ArgumentError, NoSuchModuleError, a missing driver, a bad port)
            raise ConfigError(f"Cannot open study storage {self.url!r}: {_clean(exc, url)}") from None
        self.snapshots = True
        self._pg = self.engine.dialect.name == "postgresql"
        self._row_locks = self.engine.dialect.name != "sqlite"
        with self._translate():
            with self.engine.begin() as conn:
                if self._pg:
                    conn.execute(self._text("SELECT pg_advisory_xact_lock(:k)"), {"k": _PG_SCHEMA_LOCK})
                tables = set(sqlalchemy.inspect(conn).get_table_names())
                ours = _TABLES <= tables
                version = 0
                if "sb_meta" in tables:
                    row = conn.execute(
                        self._text("SELECT value FROM sb_meta WHERE key = 'schema_version'")
                    ).fetchone()
                    version = int(row[0]) if row is not None else 0
                if not ours:
                    if read_only or not create:
                        raise ConfigError(
                            f"No study tables in {self.url}; create a study there first (it was left "
                            "unchanged)."
                        )
                    for stmt in (*SCHEMA, _META):
                        conn.execute(self._text(stmt))
                    version = SCHEMA_VERSION
                    self._stamp(conn)
                elif read_only:
                    _check_version(version, self.url, read_only)  # (refuses a newer version)
                    self.snapshots = version >= 2
                elif _check_version(version, self.url, read_only):
                    conn.execute(self._text(_META))
                    for v in range(version, SCHEMA_VERSION):
                        for stmt in MIGRATIONS[v]:
                            conn.execute(self._text(stmt))
                    self._stamp(conn)
                elif version == 0 and not read_only:
                    conn.execute(self._text(_META))
                    self._stamp(conn)

    def _stamp(self, conn: Any) -> None:
        conn.execute(self._text("DELETE FROM sb_meta WHERE key = 'schema_version'"))
        conn.execute(
            self._text("INSERT INTO sb_meta (key, value) VALUES ('schema_version', :v)"),
            {"v": str(SCHEMA_VERSION)},
        )

    @contextlib.contextmanager
    def _translate(self) -> Iterator[None]:
        exc_mod = self._sa.exc
        try:
            yield
        except exc_mod.IntegrityError as exc:
            raise ConflictError(
                f"A concurrent write collided in {self.url}: {_clean(exc.orig or exc, self._raw)}."
            ) from None
        except exc_mod.OperationalError as exc:
            raise StorageError(
                f"Cannot use study storage {self.url}: {_clean(exc.orig or exc, self._raw)}"
            ) from None
        except (exc_mod.DBAPIError, exc_mod.SQLAlchemyError) as exc:
            orig = getattr(exc, "orig", None) or exc
            raise StorageError(
                f"Study storage {self.url} refused the operation: {_clean(orig, self._raw)}"
            ) from None

    @contextlib.contextmanager
    def transaction(self, study: str | None = None, write: bool = False) -> Iterator[_SATx]:
        if write and self.read_only:
            raise ConfigError(f"The study storage {self.url} was opened read-only.")
        with self._translate(), self.engine.begin() as conn:
            tx = _SATx(conn, self._text)
            if self._pg and not write:
                tx.execute("SET TRANSACTION READ ONLY")
            if write and study is not None and self._row_locks:
                tx.execute("SELECT name FROM sb_studies WHERE name = :name FOR UPDATE", {"name": study})
            yield tx

    def close(self) -> None:
        self.engine.dispose()


def open_storage(url: str | Storage, create: bool = True, read_only: bool = False) -> Storage:
    """Storage of a URL: ``sqlite:///file.db`` (standard library) or any SQLAlchemy URL.

    ``create=False`` refuses to create a missing SQLite file (loading a study from a mistyped path);
    ``read_only=True`` opens without creating or altering anything (and refuses writes).
    """
    if not isinstance(url, str):
        return url
    if url.partition("://")[0].partition("+")[0] == "sqlite":  # sqlite:/// and sqlite+pysqlite:///
        if ":///" not in url:
            raise ConfigError(
                f"A SQLite study URL looks like 'sqlite:///path/study.db'. Got {redact_url(url)!r} instead."
            )
        return SQLiteStorage(url, create=create, read_only=read_only)
    if "://" not in url:
        raise ConfigError(
            f"The storage must be a database URL such as 'sqlite:///study.db' or "
            f"'postgresql://user@host/db'. Got {redact_url(url)!r} instead."
        )
    return SQLAlchemyStorage(url, create=create, read_only=read_only)


def upgrade_storage(url: str) -> int:
    """Bring the tables of ``url`` to :data:`SCHEMA_VERSION` (the documented upgrade path); return it."""
    storage = open_storage(url, create=False)
    storage.close()
    return SCHEMA_VERSION
