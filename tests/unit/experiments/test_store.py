"""Results store: schema, atomic writes, resume, failed runs, the writer lock, tabular views."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest

from safebandits.exceptions import ConfigError
from safebandits.experiments.runner import run_tasks
from safebandits.experiments.spec import apply_overrides, expand
from safebandits.experiments.store import ResultsStore, StoreLockedError, latest_runs, summary_table


def record(pk="0/1/A/0", h="abc", **kw):
    return {"pk": f"{pk}#{h}", "run_key": pk, "config_hash": h, "status": "ok", **kw}


def test_round_trip_and_config_columns(tmp_path):
    with ResultsStore(tmp_path, mode="w") as store:
        store.write(record(samples=12, correct=True, stopped=False, wall_s=0.5, **{"instance.d": 3}))
        assert "instance.d" in store.columns and "algorithm.width" not in store.columns
        store.write(
            record(pk="0/1/A/1", samples=7, **{"algorithm.width": "tuned", "sweep.value": np.float64(0.5)})
        )
        assert "algorithm.width" in store.columns
        store.write(record(pk="0/1/A/2", status="failed", error="E", **{"algorithm.grid": [1, 2]}))
    with ResultsStore(tmp_path) as store:
        df = store.to_frame()
        assert len(store) == 3
    assert list(df["pk"]) == sorted(df["pk"])
    row = df.set_index("run_key").loc["0/1/A/0"]
    assert (
        row["samples"] == 12 and bool(row["correct"]) and not bool(row["stopped"]) and row["instance.d"] == 3
    )
    assert df.set_index("run_key").loc["0/1/A/1", "sweep.value"] == 0.5
    assert df.set_index("run_key").loc["0/1/A/2", "algorithm.grid"] == "[1, 2]"
    assert str(df["correct"].dtype) == "boolean" and pd.isna(
        df.set_index("run_key").loc["0/1/A/2", "correct"]
    )


def test_write_is_atomic(tmp_path):
    """A write that fails half-way leaves neither the row nor its new columns nor its traces."""

    class FailingConnection:
        def __init__(self, conn):
            self.conn = conn

        def execute(self, sql, *args):
            if sql.startswith("INSERT INTO traces"):
                raise RuntimeError("disk on fire")
            return self.conn.execute(sql, *args)

    with ResultsStore(tmp_path, mode="w") as store:
        store.write(record(samples=1), traces={"x": [1]})
        before = store.columns
        real = store._conn
        store._conn = FailingConnection(real)
        with pytest.raises(RuntimeError, match="disk on fire"):
            store.write(record(pk="0/1/A/1", samples=2, **{"instance.new": 1}), traces={"x": [2]})
        store._conn = real
        assert store.columns == before
        assert store.keys() == {"0/1/A/0#abc"}
        assert store.traces() == {("0/1/A/0#abc", "x"): [1]}
        store.write(record(pk="0/1/A/1", samples=2, **{"instance.new": 1}))
        assert "instance.new" in store.columns and len(store) == 2


def test_read_only_mode(tmp_path):
    with pytest.raises(ConfigError, match="No results store"):
        ResultsStore(tmp_path / "nothing")
    ResultsStore(tmp_path, mode="w").close()
    with ResultsStore(tmp_path) as store, pytest.raises(ConfigError, match="read-only"):
        store.write(record())
    with pytest.raises(ConfigError, match="mode"):
        ResultsStore(tmp_path, mode="a")
    with ResultsStore(tmp_path, mode="w") as store, pytest.raises(ConfigError, match="needs the keys"):
        store.write({"pk": "x"})


def test_second_writer_is_refused_with_the_holder(tmp_path):
    with ResultsStore(tmp_path, mode="w"):
        with pytest.raises(StoreLockedError, match=r"being written by pid \d+"):
            ResultsStore(tmp_path, mode="w")
        code = textwrap.dedent(
            f"""
            from safebandits.experiments.store import ResultsStore, StoreLockedError
            try:
                ResultsStore({str(tmp_path)!r}, mode="w")
            except StoreLockedError as exc:
                print("LOCKED", exc)
            """
        )
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        assert out.startswith("LOCKED") and "pid" in out
        ResultsStore(tmp_path).close()  # readers need no lock
    ResultsStore(tmp_path, mode="w").close()  # released on close


def test_resume_skips_done_runs(tmp_path, fakes):
    tasks = expand(fakes.SPEC, "quick")
    with ResultsStore(tmp_path, mode="w") as store:
        first = run_tasks(tasks[:10], store, workers=1, quiet=True)
        assert first.n_ok + first.n_failed == 10
        second = run_tasks(tasks, store, workers=1, quiet=True)
        assert second.n_skipped == first.n_ok and second.n_skipped_failed == first.n_failed
        assert second.n_ok + second.n_failed == len(tasks) - 10
        third = run_tasks(tasks, store, workers=1, quiet=True)
        assert third.n_ok == third.n_failed == 0
        assert len(store) == len(tasks) and store.keys() == {t.pk for t in tasks}


def test_failed_run_recorded_with_traceback_and_retried_on_request(tmp_path, fakes):
    tasks = [t for t in expand(fakes.SPEC, "quick") if t.label == "Boom"]
    with ResultsStore(tmp_path, mode="w") as store:
        summary = run_tasks(tasks, store, workers=1, quiet=True)
        assert summary.n_failed == len(tasks) and "boom" in summary.errors[0]
        df = store.to_frame()
        assert (df["status"] == "failed").all() and df["samples"].isna().all()
        assert df["error"].str.startswith("RuntimeError: boom").all()
        assert df["traceback"].str.contains("Traceback").all() and df["traceback"].str.contains("_ask").all()
        stamps = set(df["timestamp"])
        assert run_tasks(tasks, store, workers=1, quiet=True).n_skipped_failed == len(tasks)
        again = run_tasks(tasks, store, workers=1, retry_failed=True, quiet=True)
        assert again.n_failed == len(tasks) and len(store) == len(tasks)
        assert not stamps & set(store.to_frame()["timestamp"])


def test_changed_config_is_a_new_row_and_analyses_use_the_latest(tmp_path, fakes):
    tasks = expand(fakes.SPEC, "quick")[:2]
    changed = expand(apply_overrides(fakes.SPEC, {"n_stop": 6})[0], "quick")[:2]
    with ResultsStore(tmp_path, mode="w") as store:
        run_tasks(tasks, store, workers=1, quiet=True)
        summary = run_tasks(changed, store, workers=1, quiet=True)
        assert summary.n_skipped == 0 and summary.n_ok == 2
        df = store.to_frame()
    assert len(df) == 4 and df["run_key"].nunique() == 2
    latest = latest_runs(df)
    assert len(latest) == 2 and (latest["algorithm.n_stop"] == 6).all() and (latest["samples"] == 6).all()


def test_stored_record_has_key_config_metrics_and_versions(tmp_path, fakes):
    task = expand(fakes.SPEC, "quick")[0]
    with ResultsStore(tmp_path, mode="w") as store:
        run_tasks([task], store, workers=1, quiet=True)
        row = store.to_frame().iloc[0]
        traces = store.traces()
    assert row["pk"] == task.pk and row["run_key"] == str(task.key) and row["config_hash"] == task.config_hash
    for col in ("experiment", "panel", "label", "seed", "sweep_point", "replicate", "budget", "sweep.param",
                "sweep.value", "instance", "algorithm", "instance.d", "algorithm.n_stop"):  # fmt: skip
        assert row[col] == task.config()[col]
    assert row["scale"] == "quick" and row["status"] == "ok" and row["samples"] == 12 and bool(row["stopped"])
    assert row["numpy_version"] == np.__version__ and row["python_version"] and row["safebandits_version"]
    assert row["timestamp"].endswith("+00:00") and row["config_json"] == task.config_json()
    assert traces[(task.pk, "recommendation")]["counts"] == [3.0, 3.0, 3.0, 3.0]
    assert traces[(task.pk, "instance")]["optimal_arm"] == 2


def test_summary_table():
    df = pd.DataFrame(
        {
            "experiment": "e",
            "scale": "quick",
            "panel": "p",
            "sweep.param": "d",
            "sweep.value": [1, 1, 1, 1, 2],
            "label": ["A", "A", "A", "A", "A"],
            "status": ["ok", "ok", "ok", "failed", "ok"],
            "samples": pd.array([10, 20, 30, None, 5], dtype="Int64"),
            "correct": pd.array([True, True, False, None, True], dtype="boolean"),
            "stopped": pd.array([True, False, True, None, True], dtype="boolean"),
        }
    )
    s = summary_table(df).set_index("sweep.value")
    assert s.loc[1, "n"] == 3 and s.loc[1, "n_failed"] == 1 and s.loc[1, "median"] == 20
    assert s.loc[1, "q25"] == 15 and s.loc[1, "q75"] == 25 and s.loc[1, "mean"] == 20
    assert s.loc[1, "se"] == pytest.approx(10 / np.sqrt(3))
    assert s.loc[1, "frac_correct"] == pytest.approx(2 / 3) and s.loc[1, "n_not_stopped"] == 1
    assert s.loc[2, "n"] == 1 and s.loc[2, "n_failed"] == 0
    assert summary_table(df.iloc[:0]).empty
