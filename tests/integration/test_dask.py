"""The Dask executor end to end, on ``LocalCluster``s of two worker processes on loopback.

One cluster, started by this module, serves the tests that pass a scheduler address; the client-kill
test lets the ``safebandits run`` command start its own ``LocalCluster`` (``--executor dask`` alone).
Runs use the fake learner of ``tests/unit/experiments/fakes.py``. Faults are injected while the sweep is
*held*: a fake "RR long" run pauses after 20 samples for as long as a hold file exists, so the sweep
cannot finish before the fault, and runs are in flight when it strikes. Every wait is for an event
(rows in the store, tasks on a worker, processes gone) bounded by a deadline; each test has a timeout.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from safebandits.cli import main
from safebandits.experiments.runner import iter_serial, run_tasks
from safebandits.experiments.spec import apply_overrides, expand
from safebandits.experiments.store import ResultsStore
from tests.integration.test_cli import FAKE, PLUGIN, ROOT, _group_members, frame

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.timeout(240)

N_RUNS = 24  # the fake experiment at the quick scale: 2 panels x 2 values x 3 methods x 2 replicates
OUTCOME = ["run_key", "status", "samples", "correct", "feasible", "recommended", "stopped", "error"]


@pytest.fixture(scope="module")
def cluster():
    """A LocalCluster of two single-threaded worker processes, and a client to inspect it."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as lc,
        Client(lc, set_as_default=False) as client,
    ):
        client.wait_for_workers(2, timeout=120)
        yield lc, client


@pytest.fixture
def fakes():
    """The fake learners and experiment, registered in this process for one test."""
    from tests.unit.experiments import fakes as module

    module.register()
    yield module
    module.unregister()


@pytest.fixture(scope="module")
def expected(tmp_path_factory) -> list[tuple]:
    """Outcomes of the fake sweep run serially in this process (``hold`` does not change them)."""
    from tests.unit.experiments import fakes

    fakes.register()
    try:
        directory = tmp_path_factory.mktemp("serial")
        with ResultsStore(directory, mode="w") as store:
            run_tasks(expand(fakes.SPEC, "quick"), store, workers=1, quiet=True)
    finally:
        fakes.unregister()
    return _outcomes(frame(directory))


def _outcomes(df: pd.DataFrame) -> list[tuple]:
    return sorted(map(tuple, df[OUTCOME].astype(str).to_numpy().tolist()))


def _n_rows(directory: Path) -> int:
    try:
        with sqlite3.connect(f"file:{directory / 'results.sqlite'}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


def _wait_for(predicate, what: str, timeout: float = 120.0, alive=lambda: True) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert alive(), f"the sweep ended before {what}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _runs_in_flight(client) -> dict[str, int]:
    """Worker address -> number of sweep tasks it is processing."""
    return {
        address: sum(str(k).startswith("safebandits-run-") for k in keys)
        for address, keys in client.processing().items()
    }


def _run_cli(capsys, *args: str) -> tuple[int, str, str]:
    """``safebandits ARGS`` in this process: (exit status, stdout, stderr)."""
    capsys.readouterr()
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_csv_identical_from_local_pool_and_dask(tmp_path, cluster, capsys):
    """A small real experiment through the local pool (2 workers) and a 2-worker LocalCluster."""
    from safebandits.algorithms.registry import list_algorithms

    if not {"g-acol", "oracle"} <= set(list_algorithms()):
        pytest.skip("the ACOL learners are not registered")
    args = ["run", "acol-regret-comparison", "--algorithm", "G-ACOL (tuned)", "--algorithm", "oracle",
            "--replicates", "2", "--budget", "20000", "--quiet"]  # fmt: skip
    local, dask = tmp_path / "local", tmp_path / "dask"
    assert _run_cli(capsys, *args, "--out", str(local), "--workers", "2")[0] == 0
    code, out, err = _run_cli(
        capsys, *args, "--out", str(dask), "--executor", "dask", "--scheduler", cluster[0].scheduler_address
    )
    assert code == 0 and "4 runs, 0 already done, 4 ok" in out, err
    tables = []
    for directory in (local, dask):
        assert _run_cli(capsys, "results", str(directory), "--csv", str(directory / "runs.csv"))[0] == 0
        tables.append(pd.read_csv(directory / "runs.csv").drop(columns=["wall_s", "cpu_s", "timestamp"]))
    assert len(tables[0]) == 4 and tables[0].equals(tables[1])


def test_records_do_not_depend_on_the_executor(cluster, fakes):
    """In this process: the same records from the cluster as from serial execution, in any order."""
    from safebandits.experiments.dask_executor import iter_dask

    tasks = expand(fakes.SPEC, "quick")
    via_dask = list(iter_dask(tasks[::-1], scheduler=cluster[0].scheduler_address))
    key = ("pk", "status", "samples", "correct", "feasible", "recommended", "stopped", "error", "_traces")
    serial = sorted(str([r.get(k) for k in key]) for r in iter_serial(tasks))
    assert len(via_dask) == len(tasks) and sorted(str([r.get(k) for k in key]) for r in via_dask) == serial


def test_worker_killed_mid_sweep_loses_and_doubles_nothing(tmp_path, cluster, fakes, expected):
    lc, client = cluster
    hold = tmp_path / "hold"
    hold.touch()
    tasks = expand(apply_overrides(fakes.SPEC, {"hold": str(hold)})[0], "quick")
    out, result = tmp_path / "res", {}

    def sweep() -> None:
        with ResultsStore(out, mode="w") as store:
            result["summary"] = run_tasks(tasks, store, executor="dask", scheduler=lc.scheduler_address)

    thread = threading.Thread(target=sweep, daemon=True)
    thread.start()
    try:
        _wait_for(
            lambda: _n_rows(out) >= 2 and all(_runs_in_flight(client).values()),
            "runs in flight on both workers",
            alive=thread.is_alive,
        )
        address = max(_runs_in_flight(client).items(), key=lambda kv: kv[1])[0]
        pid = client.run(os.getpid, workers=[address])[address]
        os.kill(pid, signal.SIGKILL)  # a worker process, in the middle of a run
        assert _n_rows(out) < N_RUNS
    finally:
        hold.unlink()
        thread.join(timeout=180)
    assert not thread.is_alive() and result["summary"].n_ok + result["summary"].n_failed == N_RUNS
    df = frame(out)
    assert len(df) == N_RUNS and df["pk"].is_unique and set(df["pk"]) == {t.pk for t in tasks}
    assert _outcomes(df) == expected
    client.wait_for_workers(2, timeout=120)  # the nanny restarted the killed worker


@pytest.mark.slow  # (about 15 s; the local pool's SIGKILL-and-resume test stays in the default run)
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_client_killed_mid_sweep_resumes_and_a_second_writer_is_refused(
    tmp_path, cluster, fakes, expected, capsys
):
    lc, _ = cluster
    out, hold = tmp_path / "res", tmp_path / "hold"
    hold.touch()
    args = ["--plugin", PLUGIN, "run", FAKE, "--set", f"hold={hold}", "--out", str(out), "--quiet"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "safebandits.cli", *args, "--executor", "dask", "--workers", "2"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, with its LocalCluster's workers
    )
    try:
        _wait_for(lambda: _n_rows(out) >= 2, "stored runs", alive=lambda: proc.poll() is None)
        # A second command on the same results directory while the first is writing: refused.
        code, _, err = _run_cli(capsys, *args, "--executor", "dask", "--scheduler", lc.scheduler_address)
        assert code == 2 and "Traceback" not in err
        holder = f"Error: The results directory {str(out)!r} is being written by pid {proc.pid} "
        assert err.startswith(holder)
        os.kill(proc.pid, signal.SIGKILL)  # the client only: its LocalCluster's workers must follow
        proc.wait()
        _wait_for(lambda: not _group_members(proc.pid), "the killed client's workers to exit", timeout=60)
    finally:
        hold.unlink()
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
    assert proc.returncode == -signal.SIGKILL

    partial = frame(out)  # whole runs only: every row has its metrics, every ok run its traces
    assert 2 <= len(partial) < N_RUNS and partial["pk"].is_unique
    ok = partial[partial["status"] == "ok"]
    assert ok["samples"].notna().all() and ok["stopped"].notna().all()
    with ResultsStore(out) as store:
        assert {pk for pk, _ in store.traces("recommendation")} == set(ok["pk"])

    code, stdout, err = _run_cli(capsys, *args, "--executor", "dask", "--scheduler", lc.scheduler_address)
    assert code == (0 if " 0 failed" in stdout else 1), err  # exit 1 when runs failed (the Boom method)
    assert f"{N_RUNS} runs, {len(ok)} already done" in stdout, err
    final = frame(out)
    assert len(final) == N_RUNS and final["pk"].is_unique
    kept = final.set_index("pk").loc[partial["pk"], "timestamp"]
    assert list(kept[ok["pk"]]) == list(ok["timestamp"])  # finished runs were not redone
    assert _outcomes(final) == expected


def test_failed_runs_are_recorded_shown_and_retried_only_on_request(tmp_path, cluster, fakes, capsys):
    out = tmp_path / "res"
    address = cluster[0].scheduler_address
    args = ["--plugin", PLUGIN, "run", FAKE, "--executor", "dask", "--scheduler", address, "--out", str(out),
            "--quiet"]  # fmt: skip
    code, stdout, err = _run_cli(capsys, *args)
    assert code == 1 and f"{N_RUNS} runs, 0 already done, 16 ok, 8 failed" in stdout
    assert "failed: " in err and "RuntimeError: boom" in err
    df = frame(out)
    boom = df[df["label"] == "Boom"]
    assert len(df) == N_RUNS and (df["status"] == "failed").sum() == len(boom) == 8
    assert boom["error"].str.startswith("RuntimeError: boom").all()
    assert boom["traceback"].str.contains("Traceback").all() and boom["traceback"].str.contains("_ask").all()

    shown = _run_cli(capsys, "results", str(out))[1].splitlines()
    assert shown[0] == "identification runs:" and shown[1].split()[-1] == "failed"
    assert next(line.split() for line in shown if "Boom" in line)[-1] == "8"

    stdout = _run_cli(capsys, *args)[1]
    assert "16 already done, 8 failed before (not retried; --retry-failed), 0 ok, 0 failed" in stdout
    stdout = _run_cli(capsys, *args, "--retry-failed")[1]
    assert "16 already done, 0 ok, 8 failed" in stdout
    before, after = df.set_index("pk"), frame(out).set_index("pk")
    ok = before.index[before["status"] == "ok"]
    assert len(after) == N_RUNS
    assert (after.loc[ok, "timestamp"] == before.loc[ok, "timestamp"]).all()  # not rerun
    assert (after.loc[boom["pk"], "timestamp"] != before.loc[boom["pk"], "timestamp"]).all()  # rerun


def test_a_held_store_refuses_a_dask_run(tmp_path, fakes, capsys):
    with ResultsStore(tmp_path, mode="w"):
        code, _, err = _run_cli(capsys, "--plugin", PLUGIN, "run", FAKE, "--executor", "dask",
                                "--out", str(tmp_path))  # fmt: skip
    assert code == 2 and "being written by pid" in err and "Traceback" not in err
