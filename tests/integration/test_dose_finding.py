"""The dose-finding example (examples/dose_finding.toml): per-round-safe learners give no dose above the
limit; the report shows violating rounds, regret and final feasibility per learner (issue 29)."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import safebandits as sb
from safebandits.experiments.user import load_experiment_file, problem_of_file

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

FILE = Path(__file__).resolve().parents[2] / "examples" / "dose_finding.toml"
REPLICATES = 20


def _simulated():
    raw = tomllib.loads(FILE.read_text())
    problem = problem_of_file(FILE)
    return problem.simulate(**raw["truth"]), raw["quick"]["horizon"]


def test_the_example_is_a_covariate_problem_routed_to_per_round_safe_learners():
    spec = load_experiment_file(FILE)
    names = {a.name for a in spec.algorithms}
    fit = sb.learner_fit(problem_of_file(FILE), task="regret")
    fits = {c.name: c.guarantee for c in fit.fitting}
    # Issue 40: SGP-UCB starts but can never certify another dose at these bounds (its GP's upper bound
    # at every other dose stays above the limit while it plays the seed), so it is listed apart.
    stuck = {c.name: est for c, est in fit.cannot_learn}
    assert names <= set(fits) | set(stuck)
    assert {n for n in names if fits.get(n) == sb.GUARANTEES["round"]} == {"stageopt", "dose-escalation"}
    assert names & set(stuck) == {"sgp-ucb"} and math.isinf(stuck["sgp-ucb"].rounds)
    assert {n for n in names if fits.get(n) == sb.GUARANTEES["expectation"]} == {"opb", "oplb"}


@pytest.mark.parametrize("name", ["stageopt", "sgp-ucb", "dose-escalation"])
def test_per_round_safe_learners_never_give_a_dose_above_the_limit(name):
    """Faithful defaults, fixed seeds, 20 replicates at the example's quick horizon: 0 violating rounds."""
    sim, horizon = _simulated()
    total = 0
    for seed in range(REPLICATES):
        inst = sb.instance_for(sim, name, horizon=horizon)
        learner = sb.make_learner(name, sim, np.random.default_rng(seed))
        out = sb.run_regret(learner, inst.environment(np.random.default_rng(1000 + seed)), inst)
        assert out.rounds == horizon
        total += out.violations
    assert total == 0


@pytest.mark.slow
def test_run_and_report_show_violations_regret_and_final_feasibility(tmp_path):
    out = tmp_path / "dose"
    cli = [sys.executable, "-m", "safebandits.cli"]
    subprocess.run([*cli, "run", str(FILE), "--scale", "quick", "--out", str(out), "--quiet"], check=True)
    subprocess.run([*cli, "report", str(out)], check=True, capture_output=True)
    runs = sb.load_results(out)
    assert len(runs) == 6 * 4 and (runs["status"] == "ok").all()
    per = runs.groupby("algorithm")["violations"].sum()
    assert per["stageopt"] == 0 and per["sgp-ucb"] == 0 and per["dose-escalation"] == 0
    assert runs["final_feasible"].notna().all()
    page = (out / "report" / "index.html").read_text()
    for text in ("violating rounds, all runs", "final plays feasible", "regret vs per-round-safe optimum",
                 "sub-Gaussian with proxy R = (b - a) / 2 = 0.5"):  # fmt: skip
        assert text in page


def test_the_dose_escalation_design_escalates_within_200_patients():
    """Issue 45's acceptance: beyond the lowest dose within 200 patients in every replicate, no patient
    above the limit (the file's own beliefs: max_increase 0.2 per step and the known safe cost 0.05
    certify 20 mg at once)."""
    sim, _ = _simulated()
    for seed in range(REPLICATES):
        inst = sb.instance_for(sim, "dose-escalation", horizon=200)
        learner = sb.make_learner("dose-escalation", sim, np.random.default_rng(seed))
        out = sb.run_regret(learner, inst.environment(np.random.default_rng(1000 + seed)), inst)
        assert out.violations == 0 and learner.highest_given >= 1
