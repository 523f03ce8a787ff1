"""End-to-end tests of the ``safebandits`` command, run as a subprocess.

Where the real learners are registered, the tiny runs use ``acol-regret-comparison --scale quick``
restricted to a few methods and replicates; the kill-and-resume test uses the fake learner of
``tests/unit/experiments/fakes.py`` (loaded with ``--plugin``), whose runs can be slowed down.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from safebandits.experiments.store import ResultsStore

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.unit.experiments.fakes"
FAKE = "_fake-experiment"
METRICS = ["pk", "status", "samples", "correct", "feasible", "recommended", "stopped"]


def _registered() -> set[str]:
    try:
        from safebandits.algorithms.registry import list_algorithms

        return set(list_algorithms())
    except Exception:  # a learner module being edited may fail to import
        return set()


REGISTERED = _registered()
REAL = {"g-acol", "maxrew-u", "maxrew-f"} <= REGISTERED
# A small real run where the learners exist (sequential methods, plus the round-based ACOL and
# Oracle when registered), else the fake experiment.
EXTRA = [a for a in ("acol", "oracle") if a in REGISTERED]
TINY = (
    ["run", "acol-regret-comparison", "--algorithm", "g-acol", "--algorithm", "maxrew-u",
     "--algorithm", "Max Rew-F (theory)", *[x for a in EXTRA for x in ("--algorithm", a)],
     "--replicates", "3"]
    if REAL
    else ["--plugin", PLUGIN, "run", FAKE]
)  # fmt: skip
TINY_RUNS = 3 * (5 + len(EXTRA)) if REAL else 24


def cli(*args: str, check: bool = True, unset: tuple[str, ...] = (), **kw) -> subprocess.CompletedProcess:
    env = {
        **{k: v for k, v in os.environ.items() if k not in unset},
        "PYTHONPATH": str(ROOT),
        "MPLBACKEND": "Agg",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "safebandits.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        **kw,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    return proc


def frame(directory: Path) -> pd.DataFrame:
    with ResultsStore(directory) as store:
        return store.to_frame()


def metrics(df: pd.DataFrame) -> list[tuple]:
    return sorted(map(tuple, df[METRICS].astype(str).to_numpy().tolist()))


def test_list():
    out = cli("list").stdout
    assert "acol-synthetic" in out and "acol-regret-comparison" in out and "acol/unit-sphere" in out


def test_run_report_and_results(tmp_path):
    out = tmp_path / "res"
    proc = cli(*TINY, "--out", str(out), "--quiet")
    assert f"{TINY_RUNS} runs, 0 already done" in proc.stdout
    df = frame(out)
    assert len(df) == TINY_RUNS and df["pk"].is_unique
    assert {"instance.n_arms", "sweep.value", "algorithm.delta"} <= set(df.columns)

    report = cli(*(["--plugin", PLUGIN] if not REAL else []), "report", str(out)).stdout
    index = out / "report" / "index.html"
    assert str(index) in report
    html = index.read_text()
    pngs = sorted(p.name for p in (out / "report").glob("*.png"))
    assert pngs and all(name in html for name in pngs)
    claims = json.loads((out / "report" / "claims.json").read_text())
    assert isinstance(claims, list)
    if REAL:
        ids = {c["id"] for c in claims}
        assert ids == {"1-correct", "7-regret-ordering"} and ("PASS" in html or "FAIL" in html)
        assert all(c["experiment"] == "acol-regret-comparison" and c["scale"] == "quick" for c in claims)

    csv = tmp_path / "runs.csv"
    proc = cli("results", str(out), "--csv", str(csv))
    assert f"{TINY_RUNS} runs -> {csv}" in proc.stdout and "median_samples" in proc.stdout
    assert len(pd.read_csv(csv)) == TINY_RUNS

    again = cli(*TINY, "--out", str(out), "--quiet")
    assert f"{TINY_RUNS} runs, {TINY_RUNS if REAL else 16} already done" in again.stdout
    assert len(frame(out)) == TINY_RUNS


def test_results_identical_with_one_and_two_workers(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    cli(*TINY, "--out", str(one), "--workers", "1", "--quiet")
    cli(*TINY, "--out", str(two), "--workers", "2", "--quiet")
    assert metrics(frame(one)) == metrics(frame(two))


@pytest.mark.slow
def test_killed_run_resumes_without_losing_or_duplicating_runs(tmp_path):
    args = ["--plugin", PLUGIN, "run", FAKE, "--set", "sleep_s=0.01", "--workers", "2", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = tmp_path / "killed"
    proc = subprocess.Popen(
        [sys.executable, "-m", "safebandits.cli", *args, "--out", str(out)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the kill takes the workers too
    )
    n_rows, deadline = 0, time.monotonic() + 60
    try:
        while n_rows < 5 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
            try:
                with sqlite3.connect(f"file:{out / 'results.sqlite'}?mode=ro", uri=True) as conn:
                    n_rows = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
            except sqlite3.Error:
                pass
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    partial = frame(out)
    assert 5 <= len(partial) < 24

    resumed = cli(*args, "--out", str(out), check=False)
    assert resumed.returncode == 1 and "runs failed" in resumed.stderr  # (the Boom method always fails)
    assert "already done" in resumed.stdout
    final = frame(out)
    assert len(final) == 24 and final["pk"].is_unique
    # Runs finished before the kill are kept as they were.
    kept = final.set_index("pk").loc[partial["pk"], "timestamp"]
    assert list(kept) == list(partial["timestamp"])

    clean = tmp_path / "clean"
    cli(*args, "--out", str(clean), check=False)
    assert metrics(final) == metrics(frame(clean))


def test_concurrent_run_into_the_same_directory_is_refused(tmp_path):
    with ResultsStore(tmp_path, mode="w"):
        proc = cli(*TINY, "--out", str(tmp_path), check=False)
    assert proc.returncode == 2
    assert proc.stderr.startswith("Error: The results directory") and "being written by pid" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "nope"], "Unknown experiment 'nope'"),
        (
            ["run", "acol-synthetic", "--algorithm", "g-acol", "--set", "colour=1"],
            "match no instance parameter",
        ),
        (
            ["run", "acol-synthetic", "--algorithm", "g-acol", "--set", "d=3"],
            "swept parameter of panel 'irrelevant-d'",
        ),
        (["run", "acol-synthetic", "--algorithm", "nope"], "--algorithm 'nope' matches nothing"),
        (["run", "acol-synthetic", "--panel", "nope"], "--panel 'nope' matches nothing"),
        (["run", "acol-synthetic", "--set", "noequals"], "key=value"),
        (["report", "/nonexistent/dir"], "No results store"),
        (["bounds", "acol/nope"], "Unknown instance"),
        (["bounds", "acol/unit-sphere", "--set", "colour=2"], "neither a parameter"),
    ],
)
def test_errors_are_one_line_with_exit_status_2(args, message):
    proc = cli(*args, check=False)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_bounds_prints_json():
    out = json.loads(
        cli("bounds", "acol/irrelevant-dimensions", "--set", "d=5", "--set", "epsilon=0.1").stdout
    )
    assert out["instance"] == "acol/irrelevant-dimensions" and out["instance_params"] == {
        "d": 5,
        "epsilon": 0.1,
    }
    assert out["dim"] == 5 and out["h_clb"] == pytest.approx(100, rel=1e-2)
    sphere = json.loads(
        cli("bounds", "acol/unit-sphere", "--set", "n_arms=8", "--delta", "0.1", "--seed", "3").stdout
    )
    assert sphere["n_arms"] == 8 and sphere["delta"] == 0.1 and sphere["seed"] == 3


def _group_members(pgid: int) -> list[int]:
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(stat.parent.name))
    return members


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs Linux /proc")
def test_workers_exit_when_the_client_is_killed(tmp_path):
    args = ["--plugin", PLUGIN, "run", FAKE, "--set", "sleep_s=30", "--workers", "2", "--quiet"]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "safebandits.cli", *args, "--out", str(tmp_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while len(_group_members(proc.pid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert len(_group_members(proc.pid)) >= 3, "workers did not start"
        time.sleep(1.0)  # the workers are now inside 30-second runs
        os.kill(proc.pid, signal.SIGKILL)  # the client only, not its process group
        proc.wait()
        deadline = time.monotonic() + 15
        while _group_members(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _group_members(proc.pid) == [], "worker processes outlived the killed client"
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_run_all_skips_experiments_whose_data_is_missing(tmp_path):
    out = tmp_path / "res"
    proc = cli(
        "run", "all", "--algorithm", "ckb-ucb", "--replicates", "1", "--set", "T=200", "--workers", "1",
        "-q", "--out", str(out), unset=("SAFEBANDITS_DATA",),
    )  # fmt: skip
    skips = [line for line in proc.stderr.splitlines() if line.startswith("skipping")]
    assert sorted(line.split(":")[0] for line in skips) == ["skipping ckb-finance", "skipping ckb-light"]
    assert all("SAFEBANDITS_DATA" in line and "data_dir" in line for line in skips)
    df = frame(out)
    assert set(df["experiment"]) == {"ckb-synthetic", "ckb-sgp-start", "ckb-slack-horizons"}
    assert (df["status"] == "ok").all()


def test_run_of_a_data_experiment_without_data_fails_early(tmp_path):
    out = tmp_path / "res"
    proc = cli(
        "run", "ckb-light", "--out", str(out), check=False, unset=("SAFEBANDITS_DATA",),
    )  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "SAFEBANDITS_DATA" in proc.stderr and "data_dir" in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    assert not out.exists()
