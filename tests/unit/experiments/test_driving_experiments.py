"""Driving experiments (acol-driving, acol-robustness): specs, solver runs, claims, report, render CLI."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from safebandits.cli import cli
from safebandits.experiments.claims_driving import (
    check_acol_driving,
    check_acol_robustness,
    correct_threshold,
)
from safebandits.experiments.driving import GUARANTEE_LABELS, MULTIPLIERS, tuned_label
from safebandits.experiments.runner import execute_task
from safebandits.experiments.spec import expand, get_experiment
from safebandits.problems.zoo.driving import candidate_features, candidate_policies


def test_specs_expand():
    drv = get_experiment("acol-driving")
    tasks = expand(drv, "quick", replicates=1)
    assert len(tasks) == 3 * (8 + 5 * len(MULTIPLIERS))
    assert {t.instance_params["candidates"] for t in tasks} == {"generated"}
    assert {t.instance_params["candidates"] for t in expand(drv, "paper", replicates=1)} == {"released"}
    rob = expand(get_experiment("acol-robustness"), "paper")
    assert len(rob) == 3 * 21 + 3
    assert {t.algorithm for t in rob} == {"driving-cem"}


def test_driving_needs_data_at_paper_scale_only(monkeypatch, tmp_path):
    from safebandits.experiments.spec import missing_data, required_data

    monkeypatch.setenv("SAFEBANDITS_DATA", str(tmp_path))  # no acol_driver/ there
    drv = get_experiment("acol-driving")
    assert required_data(drv, "quick") == () and required_data(drv, "paper") == ("acol_driver",)
    assert required_data(drv) == ("acol_driver",)
    assert missing_data(drv, "quick") is None
    assert "acol_driver" in missing_data(drv, "paper") and "acol_driver" in missing_data(drv)


def test_quick_scale_runs_without_data(monkeypatch, tmp_path):
    # the data-free quick arm set: 100 generated policies (code constants), cached in $SAFEBANDITS_CACHE
    monkeypatch.delenv("SAFEBANDITS_DATA", raising=False)
    monkeypatch.setenv("SAFEBANDITS_CACHE", str(tmp_path / "cache"))
    candidate_policies.cache_clear()  # the in-process cache would skip the disk cache
    candidate_features.cache_clear()
    out = tmp_path / "res"
    args = ["run", "acol-driving", "--scale", "quick", "--panel", "different-reward", "--algorithm", "ACOL"]
    res = CliRunner().invoke(cli, [*args, "--replicates", "1", "--workers", "1", "-q", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert [p.name.split("-")[2] for p in (tmp_path / "cache").iterdir()] == ["n100"]
    from safebandits.experiments.store import ResultsStore

    with ResultsStore(out, mode="r") as store:
        df = store.to_frame()
    assert len(df) == 1 and df["status"].iloc[0] == "ok" and bool(df["correct"].iloc[0])
    assert df["instance.candidates"].iloc[0] == "generated" and df["samples"].iloc[0] > 100


def test_solver_run_record():
    spec = get_experiment("acol-robustness")
    task = next(t for t in expand(spec, "quick") if t.panel == "penalised-base" and t.sweep_value == 2.0)
    task = type(task)(**{**{f: getattr(task, f) for f in task.__slots__}, "algorithm_params": {
        **task.algorithm_params, "n_restarts": 1, "n_iterations": 10}})  # fmt: skip
    rec = execute_task(task)
    assert rec["status"] == "ok", rec.get("traceback")
    assert rec["feasible"] == (rec["cost"] <= 1.0)
    assert rec["reward"] <= 0.0 and np.asarray(rec["_traces"]["policy"]).shape == (20, 2)
    assert execute_task(task)["reward"] == rec["reward"]  # a pure function of the run key


def _driving_frame(samples_tuned=10.0, acol=5000.0, wrong_at=(0.5,)):
    rows = []
    for panel in ("base", "different-environment"):
        for label in GUARANTEE_LABELS:
            s = acol if label == "ACOL" else 2 * acol
            rows.append({"panel": panel, "label": label, "samples": s, "correct": True, "stopped": True})
        for base in ("G-ACOL", "Max Rew-U"):
            for m in MULTIPLIERS:
                rows.append({"panel": panel, "label": tuned_label(base, m), "samples": samples_tuned * m,
                             "correct": m not in wrong_at, "stopped": True})  # fmt: skip
    df = pd.DataFrame(rows)
    df["status"] = "ok"
    return df


def test_driving_claims_pass_and_fail():
    claims = {c["id"]: c for c in check_acol_driving(_driving_frame())}
    assert all(c["passed"] for c in claims.values()), claims
    assert claims["8c-tuned-correct-above"]["evidence"]["m_star_per_scenario"]["base"] == 1.0
    bad = {c["id"]: c for c in check_acol_driving(_driving_frame(samples_tuned=1000.0, wrong_at=(10.0,)))}
    assert not bad["8c-tuned-correct-above"]["passed"] and not bad["8d-tuned-saves"]["passed"]
    t = pd.DataFrame({"multiplier": [0.5, 1.0, 1.5, 2.0], "frac_correct": [1.0, 0.5, 1.0, 1.0]})
    assert correct_threshold(t) == 1.5


def _robust_frame(rewards, costs, constrained):
    rows = []
    for sc, (rs, cs) in zip(("base", "different-reward"), zip(rewards, costs)):
        for lam, r, c in zip((0.0, 1.0, 2.0), rs, cs):
            rows.append({"instance.objective": "penalised", "instance.scenario": sc, "instance.penalty": lam,
                         "reward": r, "cost": c})  # fmt: skip
        rows.append({"instance.objective": "constrained", "instance.scenario": sc, "instance.penalty": 0.0,
                     "reward": constrained[sc], "cost": 1.0})  # fmt: skip
    df = pd.DataFrame(rows)
    df["status"] = "ok"
    return df


def test_robustness_claims():
    df = _robust_frame([(0.0, -0.5, -0.7), (0.0, -0.4, -0.6)], [(3.0, 0.5, 0.2), (3.0, 2.0, 0.4)],
                       {"base": -0.3, "different-reward": -0.3})  # fmt: skip
    claims = {c["id"]: c for c in check_acol_robustness(df)}
    assert claims["9a-constrained-beats-penalised"]["passed"] and claims["9b-lambda-differs"]["passed"]
    assert claims["9c-smallest-feasible-lambda-worse"]["passed"]
    df = _robust_frame([(0.0, -0.5, -0.7), (0.0, -0.4, -0.6)], [(3.0, 0.5, 0.2), (3.0, 0.5, 0.4)],
                       {"base": -0.6, "different-reward": -0.3})  # fmt: skip
    claims = {c["id"]: c for c in check_acol_robustness(df)}
    assert (
        not claims["9a-constrained-beats-penalised"]["passed"] and not claims["9b-lambda-differs"]["passed"]
    )


def test_render_cli(tmp_path):
    pol = tmp_path / "set.npy"
    np.save(pol, np.zeros((3, 20, 2)))
    out = tmp_path / "cars.png"
    res = CliRunner().invoke(
        cli,
        [
            "driving",
            "render",
            "--scenario",
            "different-environment",
            "--policy",
            str(pol),
            "--index",
            "2",
            "--policy",
            "penalised:1",
            "--policy",
            "constrained:wen-topcu",
            "--restarts",
            "1",
            "--out",
            str(out),
        ],
    )
    assert res.exit_code == 0, res.output
    assert out.stat().st_size > 1000 and "3 policies" in res.output
    bad = CliRunner().invoke(cli, ["driving", "render", "--policy", "nonsense", "--out", str(out)])
    assert bad.exit_code == 2 and "neither a file" in bad.output
    bad = CliRunner().invoke(cli, ["driving", "render", "--policy", "constrained:exact", "--out", str(out)])
    assert bad.exit_code == 2 and "wen-topcu" in bad.output


def test_robustness_quick_report(tmp_path):
    res = CliRunner().invoke(
        cli,
        [
            "run",
            "acol-robustness",
            "--out",
            str(tmp_path),
            "--workers",
            "1",
            "-q",
            "--panel",
            "penalised-base",
            "--panel",
            "constrained",
            "--set",
            "n_restarts=1",
            "--set",
            "n_iterations=10",
        ],
    )
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, ["report", str(tmp_path)])
    assert res.exit_code == 0, res.output
    files = {p.name for p in (tmp_path / "report").iterdir()}
    assert {"acol-robustness-quick-robustness.png", "acol-robustness-quick-solutions.png"} <= files
    claims = json.loads((tmp_path / "report" / "claims.json").read_text())
    assert {c["id"] for c in claims} == {
        "9a-constrained-beats-penalised",
        "9b-lambda-differs",
        "9c-smallest-feasible-lambda-worse",
    }


@pytest.mark.parametrize("name", ["acol-driving", "acol-robustness"])
def test_listed(name):
    res = CliRunner().invoke(cli, ["list", "experiments"])
    assert name in res.output
