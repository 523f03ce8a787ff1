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
ARGS = ["run", FAKE, "--workers", "2", "--quiet", "--set", "sleep_s=0.02"]
EXECUTION = ["wall_s", "cpu_s", "timestamp"]


def cli(*args: str) -> tuple[int, str]:
    """``safebandits ARGS`` in this process (the fake learners registered only meanwhile): (exit, stderr).

    Exit 0 or 1 is expected: the fake experiment has a method that always fails.
    """
    from click.testing import CliRunner

    from safebandits.cli import cli as command
    from tests.unit.experiments import fakes

    fakes.register()
    try:
        # (serial in this process: no pool to start; records do not depend on the number of workers)
        result = CliRunner().invoke(command, [*args, "--workers", "1"], catch_exceptions=False)
    finally:
        fakes.unregister()
    assert "Traceback" not in result.stderr, result.stderr
    return result.exit_code, result.stderr


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
    assert cli(*ARGS, "--out", str(tmp / "clean"))[0] == 1
    return csv_of(tmp / "clean", tmp)


def test_sigkill_mid_sweep_then_resume_gives_the_uninterrupted_csv(tmp_path, clean_csv):
    out = tmp_path / "killed"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "safebandits.cli", "--plugin", PLUGIN, *ARGS, "--out", str(out)],
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
    assert cli(*ARGS, "--out", str(out))[0] in (0, 1)
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
        code, err = cli(*ARGS, "--out", str(out))
        assert code == 1 and "full" in err.splitlines()[-1].lower(), err
        kept = rows(out)
        assert kept < N_RUNS
        subprocess.run(["mount", "-o", "remount,size=64m", str(disk)], check=True)
        assert cli(*ARGS, "--out", str(out))[0] in (0, 1)
        resumed = csv_of(out, tmp_path)
        pd.testing.assert_frame_equal(resumed, clean_csv, check_dtype=False)
    finally:
        subprocess.run(["umount", "-l", str(disk)], capture_output=True)
