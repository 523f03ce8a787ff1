"""Issue 43, item 1: every run records its CPU time beside its wall time; stores written before the
``cpu_s`` column (the archived stores) still read, with the CPU unknown; the results do not change."""

from __future__ import annotations

import json
import lzma
import math
import shutil
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from safebandits.experiments.runner import run_tasks
from safebandits.experiments.spec import expand, get_experiment
from safebandits.experiments.store import DB_NAME, SCHEMA_VERSION, ResultsStore

#: A store written before the ``cpu_s`` column: three quick experiments of the archive of 2026-11-27
#: (tests/data/store_before_cpu/README.md says how it was extracted).
ARCHIVE = (
    Path(__file__).resolve().parents[2] / "data" / "store_before_cpu" / "quick-2026-11-27-extract.sqlite.xz"
)
#: Columns that describe the execution, not the result.
TIMING = {"wall_s", "cpu_s", "timestamp", "python_version", "numpy_version", "safebandits_version"}
#: Result columns that issue 40 added beside the archive's (one meaning per column): compared through
#: their definitions, not by name.
RENAMED_OR_ADDED = ("max_policy_cost_over_threshold", "action_regret", "policy_regret_tenth")


def archived_max_policy_cost(task, over_threshold: float) -> float:
    """The raw ``max_policy_cost`` the archive stored for ``task``'s run, from the
    ``max_policy_cost_over_threshold`` runs store now: plus the instance's (first) threshold."""
    from safebandits.problems.registry import list_instances, make_instance
    from safebandits.rng import instance_rng

    entry = list_instances()[task.instance]
    rng = instance_rng(task.key) if entry.random else None
    instance = make_instance(task.instance, rng, **task.instance_params)
    tau = np.atleast_1d(np.asarray(instance.public_info().threshold, dtype=np.float64))
    return over_threshold + float(tau[0])


#: One cheap run each of a regret and a pure-exploration experiment of the archive (quick scale).
CASES = (("opb-random", "opb"), ("beside-example1", "xy-diff-only"))


def store_before_cpu(directory: Path) -> Path:
    """The store written before ``cpu_s`` existed, decompressed into ``directory`` (returned)."""
    if not ARCHIVE.is_file():  # pragma: no cover - the archive is committed
        pytest.skip("tests/data/store_before_cpu is not in this checkout")
    directory.mkdir(parents=True, exist_ok=True)
    with lzma.open(ARCHIVE, "rb") as src, open(directory / DB_NAME, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return directory


@pytest.fixture(scope="module")
def archive_dir(tmp_path_factory):
    """The store written before ``cpu_s`` existed, decompressed."""
    return store_before_cpu(tmp_path_factory.mktemp("archive"))


def _columns(path: Path) -> set[str]:
    with sqlite3.connect(path) as conn:
        return {r[1] for r in conn.execute("PRAGMA table_info(runs)")}


def _same(new, old) -> bool:
    """Equal; floats to 1e-12 relative (the archive's machine may round the last bits of a sum otherwise:
    another CPU's BLAS kernel)."""
    if isinstance(old, float) and isinstance(new, float):
        return (math.isnan(old) and math.isnan(new)) or math.isclose(new, old, rel_tol=1e-12, abs_tol=1e-300)
    return new == old


def test_runs_record_cpu_time_and_results_match_the_archive(tmp_path, archive_dir):
    """Runs executed today carry ``cpu_s`` (finite, >= 0) and every other column equals the archived
    run's (a store written before the column: its runs' results are today's results)."""
    tasks = [next(t for t in expand(get_experiment(e), "quick") if t.algorithm == a) for e, a in CASES]
    with ResultsStore(tmp_path, mode="w") as store:
        summary = run_tasks(tasks, store, workers=1, quiet=True)
        assert summary.n_ok == len(tasks)
        new = store.to_frame().set_index("pk")
    with ResultsStore(archive_dir) as store:
        old = store.to_frame().set_index("pk").loc[[t.pk for t in tasks]]
    assert old["cpu_s"].isna().all()  # the archive has no CPU times
    cpu = new["cpu_s"].astype(float)
    assert np.isfinite(cpu).all() and (cpu >= 0).all()
    assert (cpu <= new["wall_s"].astype(float) * 4 + 1.0).all()  # (process CPU: a few threads at most)
    compared = 0
    for task in tasks:  # (the archive's raw max_policy_cost; runs now store it minus the threshold)
        if "max_policy_cost" in old and pd.notna(old.at[task.pk, "max_policy_cost"]):
            got = archived_max_policy_cost(task, float(new.at[task.pk, "max_policy_cost_over_threshold"]))
            assert got == float(old.at[task.pk, "max_policy_cost"]), task.pk
    added = set(RENAMED_OR_ADDED) - set(old.columns)
    for pk in new.index:
        for col in (set(new.columns) | set(old.columns)) - added - {"max_policy_cost"}:
            if col in TIMING or col == "traceback":
                continue
            a, b = new.at[pk, col] if col in new else None, old.at[pk, col] if col in old else None
            a = None if a is None or (not isinstance(a, str) and pd.isna(a)) else a
            b = None if b is None or (not isinstance(b, str) and pd.isna(b)) else b
            assert _same(a, b), (pk, col, a, b)
            compared += a is not None
    assert compared > 30


def test_old_store_reads_read_only_and_gets_the_column_when_written(tmp_path, archive_dir):
    """Read-only: the archive is left as it was and ``cpu_s`` reads as missing. Opened for writing: the
    column is added (the stored runs keep it empty), the schema version stays compatible."""
    before = (archive_dir / DB_NAME).read_bytes()
    assert "cpu_s" not in _columns(archive_dir / DB_NAME)
    with ResultsStore(archive_dir) as store:
        df = store.to_frame()
        assert len(df) == 53 and "cpu_s" in df and df["cpu_s"].isna().all()
    assert (archive_dir / DB_NAME).read_bytes() == before  # reading never alters a store
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copy(archive_dir / DB_NAME, copy / DB_NAME)
    with ResultsStore(copy, mode="w") as store:
        assert "cpu_s" in store.columns
        store.write({"pk": "x#h", "run_key": "x", "config_hash": "h", "status": "ok", "cpu_s": 0.25})
        df = store.to_frame().set_index("pk")
    assert df.loc["x#h", "cpu_s"] == 0.25 and df.drop(index="x#h")["cpu_s"].isna().all()
    assert "cpu_s" in _columns(copy / DB_NAME)
    with sqlite3.connect(copy / DB_NAME) as conn:
        version = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0]
    assert int(version) == SCHEMA_VERSION == 1  # an added nullable column: older readers still read it
    # a new store has the column from the start
    with ResultsStore(tmp_path / "new", mode="w") as store:
        assert "cpu_s" in store.columns


def test_scoreboard_of_the_archive_says_wall_only(archive_dir):
    from safebandits.experiments.claims_scoreboard import wall_times

    with ResultsStore(archive_dir) as store:
        times = wall_times(store.to_frame())
    assert (times["cpu_runs"] == 0).all() and (times["sum_run_wall_s"] > 0).any()
    assert json.dumps(times.to_dict(orient="records"), default=str)  # (plain values)
