"""Fault suite: SIGKILL mid-sweep then resume, and a full disk, lose, double and change no run.

The CSV that ``safebandits results --csv`` exports after the fault (and a resume) equals the CSV of an
uninterrupted run, apart from the columns that describe the execution (wall time, timestamp). The full
disk is a small tmpfs mounted for the test (root only; skipped with the reason elsewhere). A Dask worker
killed mid-sweep is covered by ``test_dask.py::test_worker_killed_mid_sweep_loses_and_doubles_nothing``.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "tests.unit.experiments.fakes"
FAKE = "_fake-experiment"
N_RUNS = 24
ARGS = ["--plugin", PLUGIN, "run", FAKE, "--workers", "2", "--quiet", "--set", "sleep_s=0.02"]
EXECUTION = ["wall_s", "timestamp"]


def cli(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run the command; with ``check``, exit 0 or 1 (the fake experiment has a method that always fails)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, "-m", "safebandits.cli", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT)  # fmt: skip
    if (check and proc.returncode not in (0, 1)) or "Traceback" in proc.stderr:
        raise AssertionError(f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}")
    return proc


def csv_of(directory: Path, tmp: Path) -> pd.DataFrame:
    """What ``safebandits results DIRECTORY --csv FILE`` writes (in this process: faster)."""
    from click.testing import CliRunner

    from safebandits.cli import cli as command

    path = tmp / f"{directory.name}.csv"
    assert CliRunner().invoke(command, ["results", str(directory), "--csv", str(path)]).exit_code == 0
    df = pd.read_csv(path)
    return df.drop(columns=[c for c in EXECUTION if c in df]).sort_values("pk").reset_index(drop=True)


def rows(directory: Path) -> int:
    try:
        with sqlite3.connect(f"file:{directory / 'results.sqlite'}?mode=ro", uri=True) as conn:
            return conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.fixture(scope="module")
def clean_csv(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("clean")
    cli(*ARGS, "--out", str(tmp / "clean"))
    return csv_of(tmp / "clean", tmp)


def test_sigkill_mid_sweep_then_resume_gives_the_uninterrupted_csv(tmp_path, clean_csv):
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "safebandits.cli", *ARGS, "--out", str(out)],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    try:
        while rows(out) < 4 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert 4 <= rows(out) < N_RUNS
    cli(*ARGS, "--out", str(out))
    resumed = csv_of(out, tmp_path)
    pd.testing.assert_frame_equal(resumed, clean_csv, check_dtype=False)


def _mount_tmpfs(folder: Path, size: str) -> bool:
    if os.geteuid() != 0:
        return False
    folder.mkdir()
    try:
        proc = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                              capture_output=True)  # fmt: skip
    except OSError:
        return False
    return proc.returncode == 0


def test_disk_full_is_named_and_loses_nothing(tmp_path, clean_csv):
    disk = tmp_path / "disk"
    if not _mount_tmpfs(disk, "96k"):
        pytest.skip("cannot mount a small tmpfs here (needs root and mount permission)")
    try:
        out = disk / "res"
        proc = cli(*ARGS, "--out", str(out), check=False)
        assert proc.returncode in (1, 2), proc.stderr
        assert "Traceback" not in proc.stderr
        assert "full" in proc.stderr.splitlines()[-1].lower(), proc.stderr
        kept = rows(out)
        assert kept < N_RUNS
        subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
        cli(*ARGS, "--out", str(out))
        resumed = csv_of(out, tmp_path)
        pd.testing.assert_frame_equal(resumed, clean_csv, check_dtype=False)
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)
