"""``benchmarks/ckb_violations.py --keys`` replays the stored runs of a paper experiment (issue 31): the
per-round audit of the CKB decisions page is about the very runs the claims read."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from safebandits.experiments.results import load_results

ROOT = Path(__file__).resolve().parents[3]


def _script():
    spec = importlib.util.spec_from_file_location("ckb_violations", ROOT / "benchmarks" / "ckb_violations.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_keys_replay_the_stored_runs(tmp_path):
    horizon = 300
    cmd = [sys.executable, "-m", "safebandits.cli", "run", "ckb-synthetic", "--algorithm", "CKB-UCB",
           "--algorithm", "CKB-Rand", "--replicates", "3", "--set", f"T={horizon}", "--workers", "1",
           "--out", str(tmp_path), "-q"]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True, timeout=600)
    df = load_results(tmp_path, experiment="ckb-synthetic", status="ok")
    df = df[df["label"].isin(["CKB-UCB", "CKB-Rand"])]  # (--algorithm CKB-UCB also selects the slack runs)
    assert len(df) == 6 and df["violations"].astype(float).sum() > 0  # runs with violating rounds
    script = _script()
    for _, row in df.iterrows():
        variant = {"CKB-UCB": "ucb", "CKB-Rand": "rand"}[row["label"]]
        keys = (int(row["seed"]), int(row["sweep_point"]))
        rec = script.one_run("synthetic", int(row["replicate"]), horizon, variant, {}, 0, keys)
        assert rec["N"] == int(row["violations"])
        assert rec["sum_g"] == pytest.approx(float(row["cost"]) * horizon, abs=1e-9)
        assert rec["R_plus"] == pytest.approx(float(row["policy_regret"]), abs=1e-9)
        assert rec["phi_T"] == pytest.approx(float(row["diag.phi"]), abs=1e-12)
