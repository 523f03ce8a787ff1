"""Driving experiments (acol-driving, acol-robustness): specs, solver runs, claims, report, render CLI."""

import json

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from safebandits.cli import cli
from safebandits.experiments.runner import execute_task
from safebandits.experiments.spec import expand, get_experiment
from safebandits.experiments.store import ResultsStore
from safebandits.papers.acol.claims_driving import (
    check_acol_driving,
    check_acol_robustness,
    correct_threshold,
)
from safebandits.papers.acol.driving import (
    GUARANTEE_LABELS,
    MULTIPLIERS,
    PAPER_REFERENCE_LABEL,
    POLISHED_LABEL,
    tuned_label,
)
from safebandits.papers.acol.instances_driving import candidate_features, candidate_policies


def test_specs_expand():
    drv = get_experiment("acol-driving")
    tasks = expand(drv, "quick", replicates=1)
    assert len(tasks) == 3 * (8 + 5 * len(MULTIPLIERS))
    assert {t.instance_params["candidates"] for t in tasks} == {"generated"}
    assert {t.instance_params["candidates"] for t in expand(drv, "paper", replicates=1)} == {"released"}
    rob = expand(get_experiment("acol-robustness"), "paper")
    assert len(rob) == 3 * 21 + 3 + 3  # penalised CEM, the authors' constrained CEM, the library's solver
    assert {t.algorithm for t in rob} == {"driving-cem"}
    solvers = {(t.panel, t.label): t.algorithm_params["constrained_solver"] for t in rob}
    assert {s for (p, lbl), s in solvers.items() if p == "constrained"} == {"wen-topcu", "warm-polish"}
    assert solvers[("constrained", PAPER_REFERENCE_LABEL)] == "wen-topcu"  # the paper's reference row
    assert solvers[("constrained", POLISHED_LABEL)] == "warm-polish"  # the extra, labelled row
    assert {p for (p, lbl) in solvers if lbl == POLISHED_LABEL} == {"constrained"}


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


def _robust_frame(rewards, costs, constrained, polished=None):
    """Penalised runs (lambda 0, 1, 2) of base and different-reward, and constrained references: the
    authors' (``constrained``) and, if given, the library's (``polished``), by scenario."""
    rows = []
    for sc, (rs, cs) in zip(("base", "different-reward"), zip(rewards, costs)):
        for lam, r, c in zip((0.0, 1.0, 2.0), rs, cs):
            rows.append({"instance.objective": "penalised", "instance.scenario": sc, "instance.penalty": lam,
                         "reward": r, "cost": c, "label": "CEM",
                         "algorithm.constrained_solver": "wen-topcu"})  # fmt: skip
        for solver, label, refs in (
            ("wen-topcu", "CEM", constrained),
            ("warm-polish", POLISHED_LABEL, polished or {}),
        ):
            if sc in refs:
                rows.append({"instance.objective": "constrained", "instance.scenario": sc,
                             "instance.penalty": 0.0, "reward": refs[sc], "cost": 1.0, "label": label,
                             "algorithm.constrained_solver": solver})  # fmt: skip
    df = pd.DataFrame(rows)
    df["status"] = "ok"
    return df


_REWARDS = [(0.0, -0.5, -0.7), (0.0, -0.4, -0.6)]
_COSTS = [(3.0, 0.5, 0.2), (3.0, 2.0, 0.4)]  # smallest feasible lambda: 1 (base), 2 (different reward)


def test_robustness_claims():
    df = _robust_frame(_REWARDS, _COSTS, {"base": -0.3, "different-reward": -0.3},
                       {"base": -0.2, "different-reward": -0.1})  # fmt: skip
    claims = {c["id"]: c for c in check_acol_robustness(df)}
    assert list(claims) == [
        "9a-constrained-beats-penalised",
        "9b-lambda-differs",
        "9c-smallest-feasible-lambda-worse",
        "9a-polished",
        "9c-polished",
    ]
    assert all(c["passed"] and c["verdict"] == "pass" for c in claims.values()), claims
    assert claims["9a-constrained-beats-penalised"]["evidence"]["base"]["constrained_reward"] == -0.3
    assert claims["9a-polished"]["evidence"]["base"]["constrained_reward"] == -0.2
    df = _robust_frame(_REWARDS, [(3.0, 0.5, 0.2), (3.0, 0.5, 0.4)], {"base": -0.6, "different-reward": -0.3})
    claims = {c["id"]: c for c in check_acol_robustness(df)}
    assert (
        not claims["9a-constrained-beats-penalised"]["passed"] and not claims["9b-lambda-differs"]["passed"]
    )


def test_robustness_claims_each_reference_can_fail_alone():
    # the authors' reference below a feasible penalised solution, the library's above: 9a/9c fail, the
    # polished ones pass -- and the other way round
    worse_authors = _robust_frame(_REWARDS, _COSTS, {"base": -0.6, "different-reward": -0.3},
                                  {"base": -0.2, "different-reward": -0.1})  # fmt: skip
    c = {r["id"]: r for r in check_acol_robustness(worse_authors)}
    assert c["9a-constrained-beats-penalised"]["verdict"] == "fail"
    assert c["9c-smallest-feasible-lambda-worse"]["verdict"] == "fail"  # -0.5 at lambda 1 >= -0.6
    assert c["9a-polished"]["verdict"] == "pass" and c["9c-polished"]["verdict"] == "pass"
    worse_library = _robust_frame(_REWARDS, _COSTS, {"base": -0.3, "different-reward": -0.3},
                                  {"base": -0.2, "different-reward": -0.7})  # fmt: skip
    c = {r["id"]: r for r in check_acol_robustness(worse_library)}
    assert c["9a-constrained-beats-penalised"]["verdict"] == "pass"
    assert c["9a-polished"]["verdict"] == "fail" and c["9c-polished"]["verdict"] == "fail"
    assert c["9a-polished"]["evidence"]["constrained_solver"] == "warm-polish"


def test_robustness_claims_never_pass_vacuously():
    # base has no feasible penalised solution: 9a/9c are inconclusive against both references, not passed
    df = _robust_frame(_REWARDS, [(3.0, 2.0, 1.5), (3.0, 2.0, 0.4)], {"base": -0.3, "different-reward": -0.3},
                       {"base": -0.2, "different-reward": -0.1})  # fmt: skip
    c = {r["id"]: r for r in check_acol_robustness(df)}
    for cid in ("9a-constrained-beats-penalised", "9c-smallest-feasible-lambda-worse", "9a-polished",
                "9c-polished"):  # fmt: skip
        assert c[cid]["verdict"] == "inconclusive" and not c[cid]["passed"], cid
        assert "base" in c[cid]["reason"]
    # no run of the library's solver: its claims are "not run", the paper's still decided
    no_lib = _robust_frame(_REWARDS, _COSTS, {"base": -0.3, "different-reward": -0.3})
    c = {r["id"]: r for r in check_acol_robustness(no_lib)}
    assert c["9a-polished"]["verdict"] == "not run" and c["9c-polished"]["verdict"] == "not run"
    assert c["9a-constrained-beats-penalised"]["verdict"] == "pass"
    # the paper's reference missing in one scenario: not evaluated there, inconclusive
    c = {r["id"]: r for r in check_acol_robustness(_robust_frame(_REWARDS, _COSTS, {"base": -0.3}))}
    assert c["9a-constrained-beats-penalised"]["verdict"] == "inconclusive"
    assert "different-reward" in c["9a-constrained-beats-penalised"]["reason"]


def test_robustness_verdicts_and_figure(tmp_path):
    from safebandits.experiments.claims_meta import claim_metadata, finalise_claims
    from safebandits.experiments.spec import get_experiment
    from safebandits.papers.acol.figures import robustness_figure, solutions_figure

    df = _robust_frame(_REWARDS, _COSTS, {"base": -0.3, "different-reward": -0.3},
                       {"base": -0.2, "different-reward": -0.1})  # fmt: skip
    df["scale"] = "paper"
    out = {c["id"]: c for c in finalise_claims(check_acol_robustness(df), df, "acol-robustness")}
    assert set(out) == set(claim_metadata()["acol-robustness"])
    assert all(c["verdict"] == "pass" for c in out.values()), out
    assert "library" in out["9a-polished"]["wording"] and "Wen & Topcu" in out["9a-polished"]["wording"]
    # without the library's row its claims are not run (a compared method is absent)
    only_cem = df[df["label"] == "CEM"]
    out = {c["id"]: c for c in finalise_claims(check_acol_robustness(only_cem), only_cem, "acol-robustness")}
    assert (
        out["9a-polished"]["verdict"] == "not run"
        and out["9a-constrained-beats-penalised"]["verdict"] == "pass"
    )
    spec = get_experiment("acol-robustness")
    assert robustness_figure(spec, df, {}, tmp_path, "x") == ["x-robustness.png"]
    assert (tmp_path / "x-robustness.png").stat().st_size > 10_000
    df["pk"] = [f"k{i}" for i in range(len(df))]
    df["instance.features"] = "paper"
    traces = {(pk, "policy"): np.zeros((20, 2)).tolist() for pk in df["pk"]}
    assert solutions_figure(spec, df, traces, tmp_path, "x") == ["x-solutions.png"]


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
    bad = CliRunner().invoke(cli, ["driving", "render", "--policy", "nonsense", "--out", str(out), "--force"])
    assert bad.exit_code == 2 and "neither a file" in bad.output
    bad = CliRunner().invoke(
        cli, ["driving", "render", "--policy", "constrained:exact", "--out", str(out), "--force"]
    )
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
            "--set",
            "polish_iterations=5",
            "--set",
            "warm_restarts=1",
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
        "9a-polished",
        "9c-polished",
    }
    with ResultsStore(tmp_path, mode="r") as store:
        runs = store.to_frame()
    con = runs[runs["panel"] == "constrained"]
    assert sorted(zip(con["label"], con["algorithm.constrained_solver"])) == sorted(
        [(PAPER_REFERENCE_LABEL, "wen-topcu")] * 3 + [(POLISHED_LABEL, "warm-polish")] * 3
    )


@pytest.mark.parametrize("name", ["acol-driving", "acol-robustness"])
def test_listed(name):
    res = CliRunner().invoke(cli, ["list", "experiments"])
    assert name in res.output
