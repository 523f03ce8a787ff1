"""One meaning per column and per sentence (issue 40, part 4): regret columns name their comparator,
per-round violations and violations of the in-expectation promise are separate, the largest policy cost
has one unit, guarantee texts state the problem's own numbers, and the API's create and status replies
carry every default the learner applied."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import safebandits as sb
from safebandits.algorithms.compatibility import guarantee_statement
from safebandits.problems.declare import KernelProblem

pytest.importorskip("fastapi")
pytest.importorskip("httpx")
with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app

LINEAR = {
    "setting": "linear",
    "arms": [[1, 0, 0], [0, 1, 0], [0, 0, 1]],
    "threshold": 0.5,
    "safe_arm": 0,
    "feedback": {"kind": "gaussian", "sigma": 0.5},
}
KERNEL = {
    "setting": "kernel",
    "points": [[0.0], [0.25], [0.5], [0.75], [1.0]],
    "kernel": {"name": "se", "lengthscale": 0.3},
    "reward_bound": 1.0,
    "constraint_bound": 1.0,
    "slater": 0.2,
    "safe_seed": [0],
    "horizon": 50,
}


# -- guarantee texts -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["stageopt", "sgp-ucb", "safeopt"])
def test_kernel_guarantees_state_the_problems_limit_not_a_placeholder(name):
    pts = np.linspace(0, 1, 6)[:, None]
    p = KernelProblem(points=pts, kernel={"name": "se", "lengthscale": 0.3}, reward_bound=1,
                      constraint_bound=1, slater=0.2, safe_seed=[0])  # fmt: skip
    text = guarantee_statement(p, name)
    assert "your threshold" not in text, text
    assert "g at most 0" in text and "delta = 0.05" in text, text
    bounded = KernelProblem(points=pts, kernel={"name": "se", "lengthscale": 0.3}, reward_bound=1,
                            constraint_bound=1, slater=0.2, safe_seed=[0], feedback="bernoulli",
                            constraint_shift=-0.05)  # fmt: skip
    assert "the mean outcome at most 0.05" in guarantee_statement(bounded, name)


def test_fdr_guarantee_states_q():
    p = sb.problems.declare.PoolProblem(features=np.eye(3), q=0.1) if hasattr(sb, "problems") else None
    if p is None:  # pragma: no cover
        pytest.skip("no pool declaration")
    assert "at most q = 0.1" in guarantee_statement(p, "fdr-active")


# -- the API's create and status replies -----------------------------------------------------------


def _client(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    sb.create_study("seq", "g-acol", inst.public_info(), storage=url, seed=1).close()  # (the database)
    return TestClient(create_app(url), base_url="http://127.0.0.1"), url


def test_api_create_and_status_carry_the_defaults_the_learner_applied(tmp_path):
    c, _ = _client(tmp_path)
    made = c.post("/api/v1/studies", json={
        "name": "eps", "algorithm": "beside", "experiment": {"problem": dict(LINEAR, epsilon=0.02)},
        "seed": 1,
    })  # fmt: skip
    assert made.status_code == 201, made.text
    assert made.json()["config"]["epsilon"] == pytest.approx(0.02)  # the problem's, not null
    status = c.get("/api/v1/studies/eps").json()
    assert status["config"]["epsilon"] == pytest.approx(0.02)
    made = c.post("/api/v1/studies", json={
        "name": "gp", "algorithm": "safeopt", "experiment": {"problem": KERNEL}, "seed": 1,
    })  # fmt: skip
    assert made.status_code == 201, made.text
    config = made.json()["config"]
    assert config["gp_noise"] == pytest.approx(1.0 + 2.0 / 50)  # "theory" resolved: lambda = 1 + 2/T
    assert config["horizon"] == 50
    status = c.get("/api/v1/studies/gp").json()
    assert status["config"]["gp_noise"] == pytest.approx(1.0 + 2.0 / 50)


# -- result columns --------------------------------------------------------------------------------


def _store(tmp_path, records):
    from safebandits.experiments.store import ResultsStore

    with ResultsStore(tmp_path, mode="w") as store:
        for r in records:
            store.write(r, {})


def _run(pk, algorithm, label, **metrics):
    return {"pk": pk, "run_key": pk, "config_hash": "1", "experiment": "ads", "scale": "paper",
            "label": label, "algorithm": algorithm, "status": "ok", "timestamp": pk, "samples": 4000,
            "stopped": True, **metrics}  # fmt: skip


#: Two learners that played only the safe ad for 4000 rounds (identical behaviour): 80 against the best
#: feasible arm, 142.9 against the best feasible policy; each stores its own benchmark as ``regret``.
SAME = {"action_regret": 80.0, "policy_regret": 142.9, "violations": 0, "policy_violations": 0}


def test_regret_columns_name_their_comparator_and_violations_are_split(tmp_path):
    from safebandits.experiments.results import load_results, named_columns, summary_by_kind

    _store(tmp_path, [
        _run("a#1", "opb", "OPB", regret=142.9, **SAME),
        _run("b#1", "lc-lucb", "LC-LUCB", regret=80.0, **dict(SAME, violations=2, policy_violations=1)),
    ])  # fmt: skip
    table = summary_by_kind(load_results(tmp_path))["regret"]
    assert "regret" not in table.columns and "violations" not in table.columns
    assert table["regret_vs_best_feasible_arm"].tolist() == [80.0, 80.0]  # identical behaviour, one number
    assert table["regret_vs_best_feasible_policy"].tolist() == [142.9, 142.9]
    lc = table.loc[("ads", "paper", "LC-LUCB")]
    assert (lc["violations_per_round"], lc["violations_of_expected_cost"]) == (2, 1)
    csv = named_columns(load_results(tmp_path)).set_index("label")
    assert csv.loc["OPB", "regret_benchmark"] == "best feasible policy"
    assert csv.loc["LC-LUCB", "regret_benchmark"] == "best feasible arm"
    assert {"regret", "violations", "policy_regret"}.isdisjoint(csv.columns)


def test_results_command_csv_names_the_comparators(tmp_path):
    from click.testing import CliRunner

    from safebandits.cli import cli

    _store(tmp_path / "store", [_run("a#1", "opb", "OPB", regret=142.9, **SAME)])
    res = CliRunner().invoke(cli, ["results", str(tmp_path / "store"), "--csv", str(tmp_path / "r.csv")])
    assert res.exit_code == 0, res.output
    assert "regret_vs_best_feasible_policy" in res.output and "violations_of_expected_cost" in res.output
    header = (tmp_path / "r.csv").read_text().splitlines()[0].split(",")
    assert {"regret_vs_best_feasible_arm", "regret_vs_best_feasible_policy", "regret_benchmark"} <= set(
        header
    )


class _SafeArmOnly:
    """Plays arm 0 (the known safe arm) in every round."""

    setting = "round"

    def ask(self, context=None):
        return sb.Decision(arm=0)

    def tell(self, decision, observation):
        pass


def test_max_policy_cost_has_one_unit_for_kernel_and_linear_instances():
    """The same plays (the safe arm only) on the linear and the kernel view of one declared problem give
    the same largest policy cost, stated minus the threshold: c0 - tau."""
    from types import SimpleNamespace

    from safebandits.experiments.execute import _run_regret_task

    problem = sb.problems.declare.LinearProblem(
        arms=[[1.0, 0.0], [0.0, 1.0]], threshold=0.5, safe_arm=0, slater=0.3, horizon=20,
        feedback={"kind": "gaussian", "sigma": 0.1},
    )  # fmt: skip
    sim = problem.simulate(reward_param=[0.1, 0.9], cost_params=[[0.2, 0.9]])
    got = {}
    for kind in ("stagewise", "kernel"):
        inst = sim.instance(kind, horizon=20)
        record, traces = {}, {}
        env = inst.environment(np.random.default_rng(0))
        task = SimpleNamespace(budget=None, record="full")
        _run_regret_task(_SafeArmOnly(), env, inst, task, record, traces)
        got[kind] = record["max_policy_cost_over_threshold"]
        assert "max_policy_cost" not in record
    assert got["stagewise"] == pytest.approx(0.2 - 0.5)
    assert got["kernel"] == pytest.approx(got["stagewise"])


def test_applied_config_resolves_each_default_in_force():
    from safebandits.algorithms.compatibility import view_for

    p = sb.problems.declare.LinearProblem(arms=[[1, 0], [0, 1], [0.5, 0.5]], threshold=0.5, safe_arm=0,
                                          slater=0.3, horizon=100)  # fmt: skip
    opb = sb.make_learner("opb", view_for(p, "opb"), np.random.default_rng(0)).applied_config()
    assert (opb["warm_start_delta"], opb["warm_start_cap"]) == (opb["delta"], 100)
    lc = sb.make_learner("lc-lucb", view_for(p, "lc-lucb"), np.random.default_rng(0)).applied_config()
    assert isinstance(lc["alpha_r"], float) and isinstance(lc["alpha_c"], float)
    gp = sb.make_learner("sgp-ucb", view_for(p, "sgp-ucb"), np.random.default_rng(0)).applied_config()
    assert gp["posterior"] in ("dense", "lowrank") and gp["updates"] in ("eager", "lazy")
    assert gp["horizon"] == 100 and isinstance(gp["gp_noise"], float)
