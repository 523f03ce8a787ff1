"""Issue 44, across settings: a LinearProblem whose constraint is the reward's own (cost_matrix = -I, a
baseline arm with its reward known, threshold -(1 - alpha) r_b) offers the conservative-linear view too,
and every run on it records both promises under the truth: the stage-wise runs the cumulative margin, the
conservative runs the rounds below the per-round floor."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.registry import make_learner
from safebandits.experiments.conservative_linear import contextual_regret
from safebandits.experiments.regret_loop import run_regret
from safebandits.plotting.comparison import comparison_tables
from safebandits.problems.conservative import conservative_margins
from safebandits.problems.declare import LinearProblem

ARMS = [[0.3, 0.3], [0.9, 0.1], [0.1, 0.9], [0.6, 0.6], [0.9, -0.5], [-0.3, 0.6], [0.05, 0.05]]
THETA = np.array([0.6, 0.8])
EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "conservative_across.toml"


def _problem(alpha=0.2, **kw):
    r_b = float(np.asarray(ARMS[0]) @ THETA)
    fields = dict(arms=ARMS, safe_arm=0, safe_reward=r_b, safe_cost=-r_b, cost_matrix=-np.eye(2),
                  threshold=-(1 - alpha) * r_b, feedback={"kind": "gaussian", "sigma": 0.1},
                  horizon=500)  # fmt: skip
    return LinearProblem(**{**fields, **kw})


@settings(max_examples=40, deadline=None)
@given(st.floats(0.01, 1.0), st.floats(0.05, 1.0))  # (alpha = 0: the safe arm on its threshold, refused)
def test_the_view_reads_alpha_off_the_threshold(alpha, r_b):
    p = LinearProblem(arms=[[1.0, 0.0], [0.0, 1.0]], safe_arm=0, safe_reward=r_b, safe_cost=-r_b,
                      cost_matrix=[[-1.0, 0.0], [0.0, -1.0]], threshold=-(1 - alpha) * r_b)  # fmt: skip
    assert "conservative-linear" in p.kinds and "stagewise" in p.kinds
    view = p.view("conservative-linear", horizon=100)
    assert view.alpha == pytest.approx(alpha, abs=1e-9) and view.known_baseline and view.n_actions == 2


@pytest.mark.parametrize(
    "change",
    [{"cost_matrix": [[0.2, 0.0], [0.0, 1.0]]}, {"threshold": 0.1}, {"safe_reward": None, "safe_cost": None}],
)
def test_a_constraint_not_the_rewards_own_offers_no_conservative_view(change):
    p = _problem(**change)
    assert "conservative-linear" not in p.kinds
    assert "cost_matrix = -I" in p.why_not("conservative-linear")


def test_conservative_runs_count_the_rounds_below_the_floor_and_stagewise_runs_record_the_margin():
    sim = _problem().simulate(reward_param=THETA)
    r_b, floor = 0.42, 0.8 * 0.42
    means = np.asarray(ARMS) @ THETA
    # LinUCB (no guarantee): its rounds below the floor, and the cumulative record, as computed directly
    inst = sim.instance("conservative-linear", horizon=500)
    learner = make_learner("linucb", inst.public_info(), np.random.default_rng(0))
    out = contextual_regret(learner, inst.environment(np.random.default_rng(1)), inst)
    assert out.violations == int(out.curves["violations"][-1]) > 0  # it tries the far arms below the floor
    assert out.positive_cost[0] > 0 and out.conservative["alpha"] == pytest.approx(0.2)
    # OPB (safe in expectation, the K-armed view): the cumulative margin of its played arms
    karm = sim.instance("k-armed", horizon=500)
    assert karm.constraint.alpha == pytest.approx(0.2) and karm.constraint.baseline_mean == pytest.approx(r_b)

    class Recorder:
        def __init__(self, inner):
            self.inner, self.arms, self.setting = inner, [], inner.setting

        def ask(self, context=None):
            d = self.inner.ask(context)
            self.arms.append(int(np.argmax(d.action)) if d.arm is None else d.arm)
            return d

        def tell(self, decision, observation):
            self.inner.tell(decision, observation)

    rec = Recorder(make_learner("opb", sim.problem.view("k-armed", horizon=500), np.random.default_rng(0)))
    res = run_regret(rec, karm.environment(np.random.default_rng(2)), karm, compiled=False)
    margins = conservative_margins(means[rec.arms], karm.constraint)
    assert res.conservative["min_margin"] == pytest.approx(margins.min())
    assert res.conservative["violations"] == int(np.sum(margins < -1e-9))
    assert res.violations == int(np.sum(means[rec.arms] < floor - 1e-9))  # the stage-wise count, same floor


def test_the_comparison_table_shows_both_promises_for_every_learner(tmp_path):
    from safebandits.experiments.results import load_results
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import expand
    from safebandits.experiments.store import ResultsStore
    from safebandits.experiments.user import load_experiment_file

    spec = load_experiment_file(EXAMPLE)
    keep = ("CLUCB", "LinUCB (unconstrained)", "OPB (arms as K unstructured arms)")
    tasks = [t for t in expand(spec, "quick") if t.label in keep]
    with ResultsStore(tmp_path / "r", mode="w") as store:
        run_tasks(tasks, store, workers=1, quiet=True)
    (_caption, table), *_ = comparison_tables(load_results(tmp_path / "r"))
    table = table.set_index("label")
    assert set(table.index) == {"CLUCB", "LinUCB (unconstrained)", "OPB (arms as K unstructured arms)"}
    assert table.loc["CLUCB", "rounds below (1 - alpha) x baseline, all runs"] == 0
    assert table.loc["LinUCB (unconstrained)", "violating rounds"] > 0
    assert "baseline policy" in table.loc["CLUCB", "guarantee"]
    assert table.loc["OPB (arms as K unstructured arms)", "guarantee"].startswith("safe in expectation")
