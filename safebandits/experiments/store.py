"""The results store: one SQLite database per results directory (``DIR/results.sqlite``, WAL mode).

Table ``runs`` holds one row per run. Its primary key ``pk`` is the run key string plus a short hash
of the run's full config (``"0/123456/ACOL/4#1a2b3c4d5e6f"``), so a changed config never reuses a
stale result. Every config value has its own column with a dotted name (``instance.d``,
``algorithm.width``, ``sweep.value``, ...); columns are added with ``ALTER TABLE`` when new keys
appear. Metrics (``samples``, ``correct``, ``feasible``, ``recommended``, ``stopped``, ``wall_s``,
``cpu_s``), ``status`` (``"ok"`` or ``"failed"``), ``error``, ``traceback``, versions and a UTC
timestamp complete the row. Table ``traces`` holds optional JSON extras per run (``pk``, ``name``, ``json``).

Each run is written in one transaction, by the parent process only. Opening a store for writing
takes an exclusive, non-blocking cross-platform lock (:mod:`filelock`) on ``DIR/.lock``: a second
writer is refused with a message naming the process that holds it (``DIR/.lock.holder``). Readers
need no lock.

Opening never harms what it opens: a ``results.sqlite`` that is empty, not a SQLite database, or a
SQLite database without this library's tables is refused by name and left byte for byte as it was.
``mode="r"`` opens the database with a ``mode=ro`` URI (``immutable=1`` on read-only media), so it
never creates or alters anything. The schema version is kept in table ``meta`` (``schema_version``,
currently 1); a store written by a newer version is refused. Disk full, corruption, a foreign schema
and integers beyond 64 bits are reported in one plain line.

``cpu_s`` (the run's CPU seconds, beside its wall time ``wall_s``) came after stores had been written
without it. Adding a nullable column is compatible both ways, so it does not change the schema version
(an older safebandits reads a newer store, its extra column ignored): opening a store for writing adds
the column (empty for the runs already there), and :meth:`ResultsStore.to_frame` of a store without
it (read-only, e.g. the archived stores) gives ``cpu_s`` as missing -- CPU unknown, wall time only.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from safebandits._sqlite import (
    StorageError,
    check_sqlite_file,
    connect_read_only,
    inspecting,
    rollback,
    side_files,
    translate,
)
from safebandits.exceptions import ConfigError, SafeBanditsError

__all__ = [
    "DB_NAME",
    "METRICS",
    "ResultsStore",
    "StorageError",
    "StoreLockedError",
    "latest_runs",
    "summary_table",
]

DB_NAME = "results.sqlite"
LOCK_NAME = ".lock"
HOLDER_NAME = ".lock.holder"
SCHEMA_VERSION = 1
_INT64 = (-(2**63), 2**63 - 1)
_WHAT = "results store"

#: Metric columns of every run.
METRICS = ("samples", "correct", "feasible", "recommended", "stopped", "wall_s", "cpu_s")
#: Columns added to ``runs`` after stores had been written without them (added on opening for writing;
#: missing values, ``NULL``, when a read-only store lacks them).
_ADDED_COLUMNS = (("cpu_s", "REAL"),)
_BOOL_COLUMNS = ("correct", "feasible", "stopped")
_CORE_COLUMNS = (
    ("pk", "TEXT PRIMARY KEY"),
    ("run_key", "TEXT NOT NULL"),
    ("config_hash", "TEXT NOT NULL"),
    ("experiment", "TEXT"),
    ("scale", "TEXT"),
    ("status", "TEXT NOT NULL"),
    ("samples", "INTEGER"),
    ("correct", "INTEGER"),
    ("feasible", "INTEGER"),
    ("recommended", "INTEGER"),
    ("stopped", "INTEGER"),
    ("wall_s", "REAL"),
    ("cpu_s", "REAL"),
    ("error", "TEXT"),
    ("traceback", "TEXT"),
    ("config_json", "TEXT"),
    ("python_version", "TEXT"),
    ("numpy_version", "TEXT"),
    ("safebandits_version", "TEXT"),
    ("timestamp", "TEXT"),
)


class StoreLockedError(SafeBanditsError):
    """Another process is writing to the same results directory."""


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sql_value(value: Any, name: str = "") -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and not _INT64[0] <= value <= _INT64[1]:
        raise ConfigError(
            f"The value of {name!r} ({value:.6g}) does not fit a 64-bit integer column of the results store."
        )
    if value is None or isinstance(value, (str, int, float, bytes)):
        return int(value) if isinstance(value, bool) else value
    if isinstance(value, np.generic):
        return _sql_value(value.item(), name)
    if isinstance(value, (list, tuple, dict, np.ndarray)):
        return json.dumps(np.asarray(value).tolist() if isinstance(value, np.ndarray) else value, default=str)
    return str(value)


class ResultsStore:
    """SQLite results store of one results directory.

    Parameters
    ----------
    directory : str or Path
        Results directory; the database is ``directory / "results.sqlite"``.
    mode : {"r", "w"}, default="r"
        ``"w"`` creates the directory and database if needed and takes the writer lock;
        ``"r"`` opens an existing store read-only.

    Raises
    ------
    StoreLockedError
        In ``"w"`` mode, if another process holds the writer lock.
    ConfigError
        In ``"r"`` mode, if the directory holds no store.

    Examples
    --------
    >>> import tempfile
    >>> with ResultsStore(tempfile.mkdtemp(), mode="w") as store:
    ...     store.write({"pk": "0/1/A/0#abc", "run_key": "0/1/A/0", "config_hash": "abc", "status": "ok",
    ...                  "samples": 12, "instance.d": 3})
    ...     sorted(store.done_keys())
    ['0/1/A/0#abc']
    """

    def __init__(self, directory: str | os.PathLike[str], *, mode: str = "r") -> None:
        if mode not in ("r", "w"):
            raise ConfigError(
                f"The 'mode' parameter of ResultsStore must be 'r' or 'w'. Got {mode!r} instead."
            )
        self.directory = Path(directory)
        self.path = self.directory / DB_NAME
        self.mode = mode
        self._lock = None
        self._conn = None
        if mode == "w":
            self._check_directory()
            exists = check_sqlite_file(self.path, _WHAT) if self.directory.is_dir() else False
            if exists:
                self._check_ours()  # (read-only look first: a foreign file is never written)
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise ConfigError(
                    f"Cannot create the results directory {str(self.directory)!r}: {exc.strerror or exc}."
                ) from None
            self._acquire_lock()
            try:
                self._conn = sqlite3.connect(self.path, isolation_level=None)
                self._conn.execute("PRAGMA journal_mode=WAL")
                self._conn.execute("PRAGMA synchronous=NORMAL")
                self._create_schema()
            except sqlite3.Error as exc:
                self.close()
                raise translate(exc, self.path, _WHAT) from None
            except BaseException:
                self.close()
                raise
        else:
            if self.directory.is_file():
                raise ConfigError(f"{str(self.directory)!r} is a file; give the results directory.")
            if not self.path.exists():
                raise ConfigError(
                    f"No results store in {str(self.directory)!r} (expected {str(self.path)!r}); "
                    f"run `safebandits run ... --out {self.directory}` first."
                )
            check_sqlite_file(self.path, _WHAT)
            self._conn = self._check_ours(keep=True)
        self._columns = self._table_columns()

    # -- lifecycle ---------------------------------------------------------------------------
    def _check_directory(self) -> None:
        for parent in (self.directory, *self.directory.parents):
            if parent.exists():
                if not parent.is_dir():
                    raise ConfigError(
                        f"--out {str(self.directory)!r}: {str(parent)!r} is a file, not a folder; "
                        "choose another results directory."
                    )
                break

    def _check_ours(self, keep: bool = False) -> sqlite3.Connection | None:
        """Open read-only and check the tables and schema version; refuse anything else by name."""
        existed = side_files(self.path)
        conn = connect_read_only(self.path, _WHAT)
        with inspecting(conn, self.path, existed, _WHAT):
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if (tables or keep) and not {"runs", "meta"} <= tables:
                raise ConfigError(
                    f"{str(self.path)!r} is a SQLite database but not a safebandits results store (no "
                    "'runs' and 'meta' tables); it was left unchanged."
                )
            if tables:
                row = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
                version = int(row[0]) if row is not None and str(row[0]).isdigit() else None
                if version is None or version > SCHEMA_VERSION:
                    raise ConfigError(
                        f"The results store {str(self.path)!r} has schema version {version}; this "
                        f"safebandits reads version {SCHEMA_VERSION}. Upgrade safebandits (it was left "
                        "unchanged)."
                    )
                cols = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
                missing = {"pk", "run_key", "config_hash", "status"} - cols
                if missing:
                    raise ConfigError(
                        f"The results store {str(self.path)!r} has a foreign schema (table 'runs' lacks "
                        f"{sorted(missing)}); it was left unchanged."
                    )
        if keep:
            return conn
        conn.close()
        return None

    def _acquire_lock(self) -> None:
        from filelock import FileLock, Timeout

        lock = FileLock(str(self.directory / LOCK_NAME), timeout=0)
        holder_path = self.directory / HOLDER_NAME
        try:
            lock.acquire()
        except Timeout:
            try:
                holder = holder_path.read_text().strip()
            except OSError:
                holder = ""
            raise StoreLockedError(
                f"The results directory {str(self.directory)!r} is being written by "
                f"{holder or 'an unknown process'}. Wait for that run to finish, stop it, or choose "
                "another --out directory."
            ) from None
        except OSError as exc:
            raise ConfigError(
                f"Cannot write the results directory {str(self.directory)!r} "
                f"({exc.strerror or exc}); it may be on read-only media: choose another --out."
            ) from None
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
        try:
            holder_path.write_text(f"pid {os.getpid()} on {socket.gethostname()} ({command})\n")
        except OSError:
            pass
        self._lock = lock

    def close(self) -> None:
        """Close the database and release the writer lock."""
        if getattr(self, "_conn", None) is not None:
            self._conn.close()
            self._conn = None
        if getattr(self, "_lock", None) is not None:
            try:
                (self.directory / HOLDER_NAME).write_text("")
            except OSError:
                pass
            self._lock.release()
            self._lock = None

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # (never raise from a finaliser)
            pass

    # -- schema --------------------------------------------------------------------------------
    def _create_schema(self) -> None:
        cols = ", ".join(f"{_quote(n)} {t}" for n, t in _CORE_COLUMNS)
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute(f"CREATE TABLE IF NOT EXISTS runs ({cols})")
            conn.execute(
                "CREATE TABLE IF NOT EXISTS traces (pk TEXT NOT NULL, name TEXT NOT NULL, json TEXT, "
                "PRIMARY KEY (pk, name))"
            )
            conn.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            conn.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),)
            )
            conn.execute("CREATE INDEX IF NOT EXISTS runs_status ON runs (status)")
            have = {r[1] for r in conn.execute("PRAGMA table_info(runs)")}
            for name, kind in _ADDED_COLUMNS:
                if name not in have:  # a store written before the column existed
                    conn.execute(f"ALTER TABLE runs ADD COLUMN {_quote(name)} {kind}")
            conn.execute("COMMIT")
        except BaseException:
            rollback(conn)
            raise

    def _table_columns(self) -> list[str]:
        with self._errors():
            rows = self._conn.execute("PRAGMA table_info(runs)").fetchall()
        return [r[1] for r in rows]

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        """Report a database error while reading in one plain line (corruption, I/O)."""
        try:
            yield
        except (sqlite3.Error, pd.errors.DatabaseError) as exc:
            cause = exc.__cause__ if isinstance(exc.__cause__, sqlite3.Error) else exc
            raise translate(cause, self.path, _WHAT) from None

    @property
    def columns(self) -> list[str]:
        """Column names of the ``runs`` table."""
        return list(self._columns)

    # -- writing -------------------------------------------------------------------------------
    def write(self, record: Mapping[str, Any], traces: Mapping[str, Any] | None = None) -> None:
        """Insert or replace one run (and its traces) atomically, in one transaction.

        Parameters
        ----------
        record : dict
            Column name -> value; must contain ``pk``, ``run_key``, ``config_hash`` and ``status``.
            Unknown keys become new columns.
        traces : dict, optional
            Trace name -> JSON-serialisable value.
        """
        if self.mode != "w":
            raise ConfigError("This ResultsStore was opened read-only (mode='r').")
        missing = {"pk", "run_key", "config_hash", "status"} - set(record)
        if missing:
            raise ConfigError(f"A result record needs the keys {sorted(missing)}.")
        names = list(record)
        values = [_sql_value(record[n], n) for n in names]
        sql = (
            f"INSERT OR REPLACE INTO runs ({', '.join(map(_quote, names))}) "
            f"VALUES ({', '.join('?' * len(names))})"
        )
        new_columns = [n for n in names if n not in self._columns]
        conn = self._conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            for name in new_columns:
                conn.execute(f"ALTER TABLE runs ADD COLUMN {_quote(name)}")
            conn.execute(sql, values)
            conn.execute("DELETE FROM traces WHERE pk = ?", (record["pk"],))
            for tname, tvalue in (traces or {}).items():
                conn.execute(
                    "INSERT INTO traces (pk, name, json) VALUES (?, ?, ?)",
                    (record["pk"], tname, json.dumps(tvalue, default=_json_default)),
                )
            conn.execute("COMMIT")
        except (sqlite3.Error, OverflowError) as exc:
            rollback(conn)
            raise translate(exc, self.path, _WHAT) from None
        except BaseException:
            rollback(conn)
            raise
        self._columns.extend(new_columns)

    def merge(self, source: str | os.PathLike[str]) -> tuple[int, int]:
        """Copy the runs (and traces) stored in the results directory ``source`` into this store.

        Runs are matched by primary key (a pure function of the run key), so stores written on several
        machines, or by runs of different experiments, combine into one. A run already stored here with
        status ``"ok"`` is kept; any other stored run is replaced by the source's when the source's is
        ``"ok"`` or this store lacks the run. Each run is copied in one transaction (:meth:`write`), so an
        interruption loses at most the run in flight. Returns ``(copied, kept)``.
        """
        if self.mode != "w":
            raise ConfigError("This ResultsStore was opened read-only (mode='r').")
        with ResultsStore(source, mode="r") as src:
            if src.path.resolve() == self.path.resolve():
                raise ConfigError(f"Cannot merge the results store {str(self.path)!r} into itself.")
            with src._errors():
                conn = src._conn
                names = [r[1] for r in conn.execute("PRAGMA table_info(runs)").fetchall()]
                rows = conn.execute("SELECT * FROM runs ORDER BY pk").fetchall()
                trace_rows = conn.execute("SELECT pk, name, json FROM traces").fetchall()
        traces: dict[str, dict[str, Any]] = {}
        for pk, name, text in trace_rows:
            traces.setdefault(pk, {})[name] = json.loads(text)
        with self._errors():
            mine = dict(self._conn.execute("SELECT pk, status FROM runs").fetchall())
        copied = kept = 0
        for row in rows:
            record = {n: v for n, v in zip(names, row) if v is not None}
            pk = record["pk"]
            if mine.get(pk) == "ok" or (pk in mine and record.get("status") != "ok"):
                kept += 1
                continue
            self.write(record, traces.get(pk))
            copied += 1
        return copied, kept

    def set_meta(self, key: str, value: str) -> None:
        """Store ``value`` under ``key`` in the store's ``meta`` table (e.g. the fingerprints of the readings
        written with the data, :func:`safebandits.experiments.readings.note_readings`)."""
        if self.mode != "w":
            raise ConfigError("This ResultsStore was opened read-only (mode='r').")
        if key == "schema_version":
            raise ConfigError("The 'key' parameter of set_meta cannot be 'schema_version'.")
        try:
            self._conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)", (key, str(value)))
        except sqlite3.Error as exc:
            raise translate(exc, self.path, _WHAT) from None

    # -- reading -------------------------------------------------------------------------------
    def get_meta(self, key: str) -> str | None:
        """The value stored under ``key`` in the ``meta`` table (``None`` if absent)."""
        with self._errors():
            row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def meta_keys(self, prefix: str = "") -> list[str]:
        """The keys of the ``meta`` table that start with ``prefix``."""
        with self._errors():
            rows = self._conn.execute("SELECT key FROM meta").fetchall()
        return sorted(str(r[0]) for r in rows if str(r[0]).startswith(prefix))

    def keys(self, status: str | None = None) -> set[str]:
        """Primary keys of stored runs, optionally only those with ``status``."""
        with self._errors():
            if status is None:
                rows = self._conn.execute("SELECT pk FROM runs").fetchall()
            else:
                rows = self._conn.execute("SELECT pk FROM runs WHERE status = ?", (status,)).fetchall()
        return {r[0] for r in rows}

    def done_keys(self) -> set[str]:
        """Primary keys of runs stored with status ``"ok"`` (skipped when resuming)."""
        return self.keys("ok")

    def failed_keys(self) -> set[str]:
        """Primary keys of runs stored with status ``"failed"``."""
        return self.keys("failed")

    def __len__(self) -> int:
        with self._errors():
            return int(self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def to_frame(self) -> pd.DataFrame:
        """All runs as a DataFrame (one row per run, ordered by ``pk``).

        ``correct``, ``feasible`` and ``stopped`` are nullable booleans (missing for failed runs).
        ``cpu_s`` is missing (NaN) for runs stored without it, and for every run of a store written
        before the column existed.
        """
        with self._errors():
            df = pd.read_sql_query("SELECT * FROM runs ORDER BY pk", self._conn)
        for name, _ in _ADDED_COLUMNS:
            if name not in df:
                df[name] = np.nan
        for col in _BOOL_COLUMNS:
            if col in df:
                df[col] = df[col].astype("boolean")
        for col in ("samples", "recommended"):
            if col in df:
                df[col] = df[col].astype("Int64")
        return df

    def cpu_costs(self, columns: tuple[str, ...]) -> list[tuple[tuple[Any, ...], float]]:
        """``(values of columns, cpu_s)`` of every ``ok`` run that recorded its CPU time (none when a column
        is missing: e.g. a store written before ``cpu_s``). The progress estimate reads it."""
        if not {*columns, "cpu_s"} <= set(self._columns):
            return []
        cols = ", ".join(map(_quote, columns))
        sql = f"SELECT {cols}, cpu_s FROM runs WHERE status = 'ok' AND cpu_s IS NOT NULL"
        with self._errors():
            rows = self._conn.execute(sql).fetchall()
        return [(tuple(r[:-1]), float(r[-1])) for r in rows]

    def traces(self, name: str | None = None) -> dict[tuple[str, str], Any]:
        """Stored traces as ``{(pk, name): value}``, optionally only those called ``name``."""
        with self._errors():
            if name is None:
                rows = self._conn.execute("SELECT pk, name, json FROM traces").fetchall()
            else:
                rows = self._conn.execute(
                    "SELECT pk, name, json FROM traces WHERE name = ?", (name,)
                ).fetchall()
        return {(pk, n): json.loads(j) for pk, n, j in rows}


def _json_default(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    return repr(value)


# -- tabular views ----------------------------------------------------------------------------------


def latest_runs(df: pd.DataFrame) -> pd.DataFrame:
    """Keep, per (experiment, scale, run key), the most recently written row.

    Rows of the same run key with different configs (e.g. after ``--set`` or ``--budget``) all stay
    in the store; analyses use the latest one.
    """
    if df.empty:
        return df
    by = [c for c in ("experiment", "scale", "run_key") if c in df]
    return df.sort_values("timestamp", kind="stable").drop_duplicates(by, keep="last").sort_values("pk")


GROUP_COLUMNS = ("experiment", "scale", "panel", "sweep.param", "sweep.value", "label")


def summary_table(df: pd.DataFrame, by: Iterable[str] = GROUP_COLUMNS) -> pd.DataFrame:
    """Per group: run counts and the distribution of ``samples`` over runs that did not fail.

    Columns: ``n`` (ok runs), ``n_failed``, ``median``, ``q25``, ``q75``, ``mean``, ``se``,
    ``frac_correct``, ``frac_stopped``, ``n_not_stopped``. ``median`` etc. include runs that hit
    the budget, so they are lower bounds when ``n_not_stopped > 0``.
    """
    by = [c for c in by if c in df]
    cols = [*by, "n", "n_failed", "median", "q25", "q75", "mean", "se", "frac_correct", "frac_stopped"]
    if df.empty:
        return pd.DataFrame(columns=[*cols, "n_not_stopped"])
    ok = df[df["status"] == "ok"].copy()
    ok["samples"] = ok["samples"].astype(float)
    ok["correct"] = ok["correct"].astype(float)
    ok["stopped"] = ok["stopped"].astype(float)
    g = ok.groupby(by, sort=False, dropna=False)
    out = pd.DataFrame(
        {
            "n": g.size(),
            "median": g["samples"].median(),
            "q25": g["samples"].quantile(0.25),
            "q75": g["samples"].quantile(0.75),
            "mean": g["samples"].mean(),
            "se": g["samples"].std(ddof=1) / np.sqrt(g.size()),
            "frac_correct": g["correct"].mean(),
            "frac_stopped": g["stopped"].mean(),
            "n_not_stopped": g.size() - g["stopped"].sum(),
        }
    )
    failed = df[df["status"] != "ok"].groupby(by, sort=False, dropna=False).size().rename("n_failed")
    out = out.join(failed, how="outer").reset_index()
    out["n"] = out["n"].fillna(0).astype(int)
    out["n_failed"] = out["n_failed"].fillna(0).astype(int)
    out["n_not_stopped"] = out["n_not_stopped"].fillna(0).astype(int)
    return out[[*cols, "n_not_stopped"]]
