"""The results store: one SQLite database per results directory (``DIR/results.sqlite``, WAL mode).

Table ``runs`` holds one row per run. Its primary key ``pk`` is the run key string plus a short hash
of the run's full config (``"0/123456/ACOL/4#1a2b3c4d5e6f"``), so a changed config never reuses a
stale result. Every config value has its own column with a dotted name (``instance.d``,
``algorithm.width``, ``sweep.value``, ...); columns are added with ``ALTER TABLE`` when new keys
appear. Metrics (``samples``, ``correct``, ``feasible``, ``recommended``, ``stopped``, ``wall_s``),
``status`` (``"ok"`` or ``"failed"``), ``error``, ``traceback``, versions and a UTC timestamp complete
the row. Table ``traces`` holds optional JSON extras per run (``pk``, ``name``, ``json``).

Each run is written in one transaction, by the parent process only. Opening a store for writing
takes an exclusive, non-blocking ``flock`` on ``DIR/.lock``: a second writer is refused with a
message naming the process that holds it. Readers need no lock.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sqlite3
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from safebandits.exceptions import ConfigError, SafeBanditsError

__all__ = [
    "DB_NAME",
    "METRICS",
    "ResultsStore",
    "StoreLockedError",
    "latest_runs",
    "summary_table",
]

DB_NAME = "results.sqlite"
LOCK_NAME = ".lock"
SCHEMA_VERSION = 1

#: Metric columns of every run.
METRICS = ("samples", "correct", "feasible", "recommended", "stopped", "wall_s")
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


def _sql_value(value: Any) -> Any:
    if value is None or isinstance(value, (str, int, float, bytes)):
        return int(value) if isinstance(value, bool) else value
    if isinstance(value, np.generic):
        return _sql_value(value.item())
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
        self._lock_file = None
        if mode == "w":
            self.directory.mkdir(parents=True, exist_ok=True)
            self._acquire_lock()
            self._conn = sqlite3.connect(self.path, isolation_level=None)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")
            self._create_schema()
        else:
            if not self.path.exists():
                raise ConfigError(
                    f"No results store in {str(self.directory)!r} (expected {str(self.path)!r}); "
                    f"run `safebandits run ... --out {self.directory}` first."
                )
            self._conn = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, isolation_level=None)
        self._columns = self._table_columns()

    # -- lifecycle ---------------------------------------------------------------------------
    def _acquire_lock(self) -> None:
        lock_path = self.directory / LOCK_NAME
        fh = open(lock_path, "a+")  # (held open for the store's lifetime)
        try:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.seek(0)
            holder = fh.read().strip() or "an unknown process"
            fh.close()
            raise StoreLockedError(
                f"The results directory {str(self.directory)!r} is being written by {holder}. "
                "Wait for that run to finish, stop it, or choose another --out directory."
            ) from None
        fh.seek(0)
        fh.truncate()
        command = " ".join(os.path.basename(a) if i == 0 else a for i, a in enumerate(sys.argv))
        fh.write(f"pid {os.getpid()} on {socket.gethostname()} ({command})\n")
        fh.flush()
        self._lock_file = fh

    def close(self) -> None:
        """Close the database and release the writer lock."""
        if getattr(self, "_conn", None) is not None:
            self._conn.close()
            self._conn = None
        if self._lock_file is not None:
            self._lock_file.seek(0)
            self._lock_file.truncate()
            fcntl.flock(self._lock_file.fileno(), fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

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
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def _table_columns(self) -> list[str]:
        rows = self._conn.execute("PRAGMA table_info(runs)").fetchall()
        return [r[1] for r in rows]

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
        values = [_sql_value(record[n]) for n in names]
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
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        self._columns.extend(new_columns)

    # -- reading -------------------------------------------------------------------------------
    def keys(self, status: str | None = None) -> set[str]:
        """Primary keys of stored runs, optionally only those with ``status``."""
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
        return int(self._conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0])

    def to_frame(self) -> pd.DataFrame:
        """All runs as a DataFrame (one row per run, ordered by ``pk``).

        ``correct``, ``feasible`` and ``stopped`` are nullable booleans (missing for failed runs).
        """
        df = pd.read_sql_query("SELECT * FROM runs ORDER BY pk", self._conn)
        for col in _BOOL_COLUMNS:
            if col in df:
                df[col] = df[col].astype("boolean")
        for col in ("samples", "recommended"):
            if col in df:
                df[col] = df[col].astype("Int64")
        return df

    def traces(self, name: str | None = None) -> dict[tuple[str, str], Any]:
        """Stored traces as ``{(pk, name): value}``, optionally only those called ``name``."""
        if name is None:
            rows = self._conn.execute("SELECT pk, name, json FROM traces").fetchall()
        else:
            rows = self._conn.execute("SELECT pk, name, json FROM traces WHERE name = ?", (name,)).fetchall()
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
