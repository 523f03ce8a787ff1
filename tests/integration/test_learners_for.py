"""``learners --for`` tells the truth, ``run FILE.toml`` refuses a learner that cannot start, and an
answer above the user's limit is never shown as correct without ``feasible`` beside it (issue 29)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import safebandits as sb
from safebandits.algorithms.compatibility import instance_for
from safebandits.cli import cli
from safebandits.experiments.user import file_settings, load_experiment_file
from safebandits.problems.zoo.declared import declared

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))


def _listed(output: str) -> list[str]:
    block = output.split("\n\n")[0]
    return [
        m.group(1)
        for m in re.finditer(r"^  (\S+)\s+(?:pure_exploration|regret|classification)\s", block, re.M)
    ]


@pytest.mark.filterwarnings("ignore::safebandits.exceptions.DefaultToleranceWarning")
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_learners_for_each_example_lists_only_learners_that_start(path):
    res = CliRunner().invoke(cli, ["learners", "--for", str(path)])
    assert res.exit_code == 0, res.output
    listed = _listed(res.output)
    assert listed, res.output
    spec = load_experiment_file(path)
    fixed = spec.panels[0].fixed
    sim = declared(problem=fixed["problem"], truth=fixed.get("truth"), T=50)
    _, _, options = file_settings(path)
    for name in listed:
        entry = sb.get_algorithm(name)
        if entry.task == "classification":
            continue  # (pool learners: built by the classification runner, checked by start_check)
        inst = instance_for(sim, name, horizon=50)
        info = inst.privileged_info() if entry.privileged else inst.public_info()
        learner = sb.make_learner(name, info, np.random.default_rng(0), options.get(name))
        env = inst.environment(np.random.default_rng(1))
        context = getattr(env, "context", None)  # (contextual problems: the round's context)
        decision = learner.ask(context() if context is not None else None)  # it starts and plays
        learner.tell(decision, env.play(decision))
    # every family it does not fit is named, with its reason
    assert "Families it does not fit:" in res.output
    families = res.output.split("Families it does not fit:")[1]
    for line in filter(None, families.strip("\n").splitlines()):
        assert re.match(r"^  [a-z-]+ \(.+\): .+\.$", line), line


DOSE = """
name = "dose-tol"
title = "Five doses, toxicity at most 0.3"
replicates = 4
budget = 100000

[problem]
setting = "linear"
arms = [[1,0,0,0,0],[0,1,0,0,0],[0,0,1,0,0],[0,0,0,1,0],[0,0,0,0,1]]
threshold = 0.3
safe_arm = 0
{epsilon}
feedback = {{ kind = "gaussian", sigma = 0.5 }}
param_norm_bound = 1.5   # ||theta|| = 1.41: a truth above the bound is refused (issue 40)

[truth]
reward_param = [0.1, 0.25, 0.45, 0.9, 0.95]
cost_params = [[0.05, 0.1, 0.22, 0.32, 0.6]]

[[learners]]
name = "xy-safe-only"
"""


def test_an_answer_above_the_limit_is_shown_with_feasible_false(tmp_path):
    # dose 3 (toxicity 0.32, limit 0.3) is within epsilon = 0.1 of the limit and far better than any
    # safe dose: an epsilon-relaxed learner returns it and is scored correct; it is infeasible
    f = tmp_path / "dose.toml"
    f.write_text(DOSE.format(epsilon="epsilon = 0.1"))
    runner = CliRunner()
    out = tmp_path / "out"
    res = runner.invoke(cli, ["run", str(f), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "may exceed your threshold by up to epsilon = 0.1 (your value)" in res.output
    assert "guarantee of xy-safe-only: with probability at least 1 - delta" in res.output
    df = sb.load_results(out)
    unsafe = df[df["correct"].astype(bool) & ~df["feasible"].astype(bool)]
    assert len(unsafe) >= 1  # the situation the issue reports
    res = runner.invoke(cli, ["results", str(out)])
    assert res.exit_code == 0
    header = next(line for line in res.output.splitlines() if "correct" in line and "runs" in line)
    assert "feasible" in header and "correct_infeasible" in header
    assert re.search(
        rf"warning: {len(unsafe)} runs? scored correct returned an answer that violates", res.output
    )
    res = runner.invoke(cli, ["report", str(out)])
    assert res.exit_code == 0, res.output
    page = (out / "report" / "index.html").read_text()
    assert "fraction feasible" in page and "correct but infeasible" in page
    assert "scored correct returned an answer that violates a constraint under the truth" in page
    assert "may return an action whose cost is up to epsilon = 0.1 (your value) above your threshold" in page
    # the dashboard's results page shows both too
    from starlette.testclient import TestClient

    from safebandits.dashboard.app import create_app

    client = TestClient(
        create_app(f"sqlite:///{tmp_path / 's.db'}", results=out), base_url="http://127.0.0.1"
    )
    html = client.get("/results").text
    assert "correct but infeasible" in html and 'class="unsafe"' in html


def test_a_default_tolerance_is_printed_at_the_start_and_in_the_report(tmp_path):
    f = tmp_path / "dose.toml"
    f.write_text(DOSE.format(epsilon="").replace("replicates = 4", "replicates = 1"))
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["run", str(f), "--out", str(out), "-q"])
    assert res.exit_code == 0, res.output
    assert "up to epsilon = 0.01 (default: 1% of mean_bound = 1" in res.output
    CliRunner().invoke(cli, ["report", str(out)])
    assert "epsilon = 0.01 (default: 1% of mean_bound" in (out / "report" / "index.html").read_text()


def test_run_refuses_every_learner_that_cannot_start_once(tmp_path):
    f = tmp_path / "lin.toml"
    f.write_text(
        """
name = "lin"
horizon = 200
replicates = 2
[problem]
setting = "linear"
arms = [[0.1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0.6, 0.6, 0.5]]
threshold = 0.3
safe_arm = 0
safe_reward = 0.05
safe_cost = 0.05
cost_matrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
[truth]
reward_param = [0.5, 0.3, 0.2]
[[learners]]
name = "safe-lucb"
options = { t_prime = "t0" }
[[learners]]
name = "lc-lucb"
[[learners]]
name = "opb"
"""
    )
    out = tmp_path / "out"
    res = CliRunner().invoke(cli, ["run", str(f), "--out", str(out)])
    assert res.exit_code == 2, res.output
    assert "2 learner(s) cannot start on this problem (nothing was run)" in res.output
    assert "safe-lucb" in res.output and "lc-lucb" in res.output and "add these rows to arms" in res.output
    assert not (out / "results.sqlite").exists()


ADS = """
name = "ads"
title = "Six ads, complaint rate at most 0.05"
horizon = 4000

[problem]
setting = "linear"
arms = [[1,0,0,0,0,0],[0,1,0,0,0,0],[0,0,1,0,0,0],[0,0,0,1,0,0],[0,0,0,0,1,0],[0,0,0,0,0,1]]
threshold = 0.05
safe_arm = 0
feedback = "bernoulli"
{known}

[truth]
reward_param = [0.02, 0.03, 0.04, 0.05, 0.06, 0.08]
cost_params = [[0.01, 0.02, 0.03, 0.04, 0.08, 0.1]]

[[learners]]
name = "opb"
"""


def test_learners_for_lists_apart_the_learners_that_cannot_leave_the_safe_action(tmp_path):
    """Issue 40 part 3: on a Bernoulli problem whose limit is small against the noise, the learners that
    would play the safe ad for the whole horizon are listed apart, with the rounds they would need."""
    path = tmp_path / "ads.toml"
    path.write_text(ADS.format(known=""))
    res = CliRunner().invoke(cli, ["learners", "--for", str(path), "--task", "regret"])
    assert res.exit_code == 0, res.output
    listed = _listed(res.output)
    for name in ("lc-lucb", "safe-lts", "opb", "oplb"):
        assert name not in listed
    block = res.output.split("cannot learn within the horizon")[1].split("\n\n")[0]
    assert re.search(r"^  opb: needs >= [\d,]+ rounds \(horizon 4,000\)", block, re.M), block
    assert re.search(r"^  oplb: needs >= 2\d,\d{3} rounds \(horizon 4,000\)", block, re.M), block
    assert re.search(r"^  lc-lucb: never leaves the safe action \(horizon 4,000\)", block, re.M), block
    assert "a longer horizon (>= " in block and "a known safe cost and reward" in block
    # with the safe ad's cost and reward known, OPB and OPLB need no warm start: they learn
    path.write_text(ADS.format(known="safe_cost = 0.01\nsafe_reward = 0.02"))
    res = CliRunner().invoke(cli, ["learners", "--for", str(path), "--task", "regret"])
    assert res.exit_code == 0, res.output
    assert {"opb", "oplb"} <= set(_listed(res.output))


def test_report_rows_carry_the_rounds_before_leaving_the_safe_action(tmp_path):
    from safebandits.plotting.report import guarantee_rows

    path = tmp_path / "ads.toml"
    path.write_text(ADS.format(known=""))
    rows = guarantee_rows(load_experiment_file(path), "paper")
    (opb,) = [r for r in rows if r["name"] == "opb"]
    assert opb["learning"].startswith("cannot learn within the horizon: needs >= ")
    assert "(horizon 4,000)" in opb["learning"] and "a longer horizon" in opb["learning"]


DOSE_STEP = """
name = "dose-step"
horizon = {horizon}
[problem]
setting = "covariate"
covariates = [10, 20, 30, 40, 50]
threshold = 0.30
safe_action = 0
monotone_cost = true
max_increase = {step}
[truth]
efficacy = [0.15, 0.30, 0.45, 0.55, 0.60]
toxicity = [0.05, 0.10, 0.20, 0.35, 0.55]
[[learners]]
name = "dose-escalation"
"""


def test_learners_for_a_dose_problem_states_the_patients_before_the_first_escalation(tmp_path):
    """Issue 45, item 5: per learner, the patients before its first escalation under its bounds."""
    from safebandits.estimators.bounded import samples_until_below

    path = tmp_path / "dose.toml"
    path.write_text(DOSE_STEP.format(horizon=2000, step=0.2))
    out = CliRunner().invoke(cli, ["learners", "--for", str(path)]).output
    need = samples_until_below("beta-mixture", 0.0, 0.10, 0.05, n_actions=5)
    line = next(x for x in out.splitlines() if "first escalation" in x and "beta-mixture" in x)
    assert f"after >= {-(-need // 3) * 3:,} patients" in line and "lower bound" in line
    # A horizon below it: the design is listed as unable to learn, with the step that would let it.
    path.write_text(DOSE_STEP.format(horizon=40, step=0.2))
    out = CliRunner().invoke(cli, ["learners", "--for", str(path)]).output
    stuck = out.split("cannot learn within the horizon")[1]
    assert (
        "dose-escalation: needs >= 72 patients" in stuck and "max_increase for the step from dose 0" in stuck
    )


def test_learners_for_a_conservative_problem_states_the_promise_in_its_numbers():
    res = CliRunner().invoke(cli, ["learners", "--for", str(ROOT / "examples" / "conservative.toml")])
    assert res.exit_code == 0, res.output
    assert set(_listed(res.output)) == {
        "conservative-ucb",
        "conservative-ucb-unknown-mean",
        "ucb",
        "budget-first",
    }
    assert "stays at least 0.9 (1 - alpha, alpha = 0.1) times what the default arm 0 (mean 0.5)" in res.output
    assert "arm 0, mean 0.5" in res.output  # (the assumption, with the declared default arm)
    assert "No learner can promise safety in every round" not in res.output


def test_learners_for_a_conservative_linear_problem_states_the_promise_in_its_numbers():
    path = ROOT / "examples" / "conservative_linear.toml"
    res = CliRunner().invoke(cli, ["learners", "--for", str(path)])
    assert res.exit_code == 0, res.output
    assert set(_listed(res.output)) == {"clucb", "clucb-unknown-baseline", "clucb2", "linucb"}
    assert (
        "stays at least 0.95 (1 - alpha, alpha = 0.05) times what the baseline policy (the greedy action of "
        "the declared production scorer baseline_param)" in res.output
    )
    assert "No learner can promise safety in every round" not in res.output
    assert "clucb2-checkpoint: this problem verifies the constraint in every round" in res.output  # (tau = 1)


def test_learners_for_a_checkpoint_problem_lists_the_checkpoint_learner_with_its_promise(tmp_path):
    text = (ROOT / "examples" / "conservative_linear.toml").read_text()
    text = text.replace("param_bound = 1.5", "param_bound = 1.5\ncheckpoint = 50\nbaseline_floor = 0.2")
    text = text.replace("theta = [0.5, 0.8, 0.2, 0.9]", "theta = [0.5, 0.8, 0.2, 0.9]\nfeature_low = 0.4")
    path = tmp_path / "checkpoint.toml"
    path.write_text(text)
    res = CliRunner().invoke(cli, ["learners", "--for", str(path)])
    assert res.exit_code == 0, res.output
    assert {"clucb2", "clucb2-checkpoint"} <= set(_listed(res.output))
    out = " ".join(res.output.split())
    assert (
        "at every checkpoint (rounds 50, 100, ...; it may fall below between them, the baseline's reward "
        "taken at least baseline_floor = 0.2)" in out
    )
    assert "at every round (so at every checkpoint, every 50 rounds)" in out  # (the every-round learners)
    assert "declared baseline_floor = 0.2" in out  # (the assumption it rests on, in the user's number)


def test_learners_for_a_linear_problem_with_a_baseline_arm_states_each_promise_in_its_numbers():
    """Issue 44: on a LinearProblem offering the conservative view (examples/conservative_across.toml:
    baseline arm 0 of reward 0.42, alpha = 0.2, T = 4,000), CLUCB's promise is the baseline arm's (not a
    multi-armed default arm's), with delta = 1/T; the stage-wise, in-expectation and unconstrained
    learners' promises are said in the same numbers."""
    from safebandits.algorithms.compatibility import guarantee_statement
    from safebandits.experiments.user import file_settings

    path = ROOT / "examples" / "conservative_across.toml"
    res = CliRunner().invoke(cli, ["learners", "--for", str(path)])
    assert res.exit_code == 0, res.output
    out = " ".join(res.output.split())
    assert "in your numbers: cumulative reward >= (1-alpha) x the default arm's" not in out  # (before)
    cumulative = (
        "stays at least 0.8 (1 - alpha, alpha = 1 + threshold / safe_reward = 0.2) times what the baseline "
        "arm 0 (reward safe_reward = 0.42) would have earned"
    )
    problem, horizon, _ = file_settings(path)
    clucb = guarantee_statement(problem, "clucb", horizon=horizon)
    assert cumulative in clucb and "at least 0.336 t after t rounds" in clucb
    assert "delta = 1/T = 0.00025" in clucb and clucb in out
    safe = guarantee_statement(problem, "safe-lucb", {"t_prime": "t0"}, horizon=horizon)
    assert "every action it plays has reward at least 0.336" in safe and cumulative in safe
    opb = guarantee_statement(problem, "opb", horizon=horizon)
    assert "expected reward of the policy it plays is at least 0.336" in opb and "in expectation only" in opb
    assert "may fall below 0.8" in guarantee_statement(problem, "linucb", horizon=horizon)
    for text in (safe, opb):
        assert text in out
