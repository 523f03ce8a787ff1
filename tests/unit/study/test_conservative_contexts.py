"""Studies of declared conservative problems (issue 44): contexts through ``ask(context)``, stored as data
and replayed; the conservative constraint's margin recorded per round (the learner's pessimistic estimate
and, with a truth attached, the margin under the truth and the rounds where it is violated)."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from safebandits.algorithms import make_learner
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.problems.conservative import ConservativeConstraint, conservative_margins
from safebandits.problems.declare import ConservativeLinearProblem, ConservativeProblem
from safebandits.study import create_study, load_study
from safebandits.study.options import create_from_options

LINEAR = ConservativeLinearProblem(
    dim=3, n_actions=4, alpha=0.1, baseline_param=[0.5, 0.5, 0.5],
    feedback={"kind": "gaussian", "sigma": 0.1}, horizon=200, param_bound=1.2,
)  # fmt: skip
THETA = [0.3, 0.8, 0.5]


def _url(tmp_path):
    return f"sqlite:///{tmp_path}/s.db"


def _context_dict(ctx):
    return {"arms": ctx.arms.tolist(), "baseline": int(ctx.baseline), "baseline_reward": ctx.baseline_reward}


def _play(study, env, twin, rounds, as_dict=False):
    """``rounds`` rounds of the study against the simulated environment, a twin learner beside it."""
    played = []
    for _ in range(rounds):
        ctx = env.context()
        q = study.ask(_context_dict(ctx) if as_dict else ctx)
        d = twin.ask(ctx)
        assert q.decision.arm == d.arm
        obs = env.play(d)
        study.tell(q.id, {"reward": obs.reward})
        twin.tell(d, obs)
        played.append((ctx, d.arm, env.last))
    return played


@pytest.mark.parametrize("algorithm", ["clucb", "clucb2", "clucb-unknown-baseline", "linucb"])
def test_a_contextual_study_asks_with_contexts_and_replays_them(tmp_path, algorithm):
    sim = LINEAR.simulate(theta=THETA)
    env = sim.instance("conservative-linear").environment(np.random.default_rng(3))
    url = _url(tmp_path)
    study = create_study("ctx", algorithm, sim, storage=url, seed=0, snapshot_every=7)
    twin = make_learner(algorithm, LINEAR, np.random.default_rng(0))
    played = _play(study, env, twin, 30, as_dict=True)
    study.close()
    # a new process: the learner is rebuilt from the snapshot and the stored contexts after it
    again = load_study("ctx", url)
    played += _play(again, env, twin, 10)
    # and from the stored contexts alone (every answer replayed)
    full = load_study("ctx", url, snapshots=False)
    ctx = env.context()
    assert full.ask(ctx).decision.arm == twin.ask(ctx).arm
    stored = full.queries()[0]["decision"]
    assert stored["context"]["arms"] == played[0][0].arms.tolist()  # stored as data (JSON), not a pickle
    rows = sqlite3.connect(f"{tmp_path}/s.db").execute("SELECT decision_json FROM sb_queries").fetchall()
    assert all(json.loads(r[0])["context"]["baseline"] in range(4) for r in rows)


def test_the_record_holds_the_pessimistic_and_the_true_margin(tmp_path):
    sim = LINEAR.simulate(theta=THETA)
    env = sim.instance("conservative-linear").environment(np.random.default_rng(5))
    study = create_study("rec", "clucb", sim, storage=_url(tmp_path), seed=0)
    twin = make_learner("clucb", LINEAR, np.random.default_rng(0))
    played = _play(study, env, twin, 60)
    q = study.ask(env.context())  # an open query is not in the record
    rec = study.conservative()
    assert rec["alpha"] == 0.1 and rec["checkpoint"] == 1 and rec["truth"] is True
    rounds = rec["rounds"]
    assert [r["id"] for r in rounds] == list(range(60)) and q.id == 60
    means = np.array([last[0] for _, _, last in played])
    base = np.array([last[1] for _, _, last in played])
    expected = conservative_margins(means, ConservativeConstraint(0.1), baseline=base)
    np.testing.assert_allclose([r["true_margin"] for r in rounds], expected, rtol=0, atol=1e-12)
    assert rec["violations"] == 0 and rec["first_violation"] is None
    assert rec["min_true_margin"] == pytest.approx(float(expected.min()))
    # the learner's pessimistic margin: xi_t of each round it explored (a lower bound of the true margin)
    explored = [r for r in rounds if r["pessimistic_margin"] is not None]
    assert explored and all(r["pessimistic_margin"] >= 0.0 for r in explored)
    assert all(r["pessimistic_margin"] <= r["true_margin"] + 1e-9 for r in explored)
    assert any(r["baseline_played"] for r in rounds)  # CLUCB's conservative phase
    assert all(r["baseline_played"] for r in rounds if r["pessimistic_margin"] is None)
    assert all(r["budget"] is None or r["budget"] < 0 for r in rounds if r["pessimistic_margin"] is None)
    assert study.summary()["conservative"]["violations"] == 0
    assert "1 - alpha" in rec["guarantee"] or "0.9" in rec["guarantee"]


def test_an_unconstrained_learner_violates_and_the_record_says_where(tmp_path):
    problem = ConservativeProblem(n_arms=3, alpha=0.0, default_mean=0.8, horizon=100,
                                  feedback={"kind": "gaussian", "sigma": 0.1})  # fmt: skip
    sim = problem.simulate(means=[0.8, 0.2, 0.5])
    study = create_study("ucb", "ucb", sim, storage=_url(tmp_path), seed=0)
    for _ in range(5):
        q = study.ask()
        study.tell(q.id, {"reward": [0.8, 0.2, 0.5][q.arm]})
    rec = study.conservative()
    arms = [r["arm"] for r in rec["rounds"]]
    expected = np.cumsum([[0.8, 0.2, 0.5][a] - 0.8 for a in arms])
    np.testing.assert_allclose([r["true_margin"] for r in rec["rounds"]], expected, atol=1e-12)
    bad = [i + 1 for i, m in enumerate(expected) if m < -1e-9]
    assert bad and rec["violations"] == len(bad) and rec["first_violation"] == bad[0]
    assert [r["violated"] for r in rec["rounds"]] == [m < -1e-9 for m in expected]


def test_a_study_without_a_truth_records_the_pessimistic_margin_only(tmp_path):
    study = create_study("w", "conservative-ucb", ConservativeProblem(n_arms=3, alpha=0.1, default_mean=0.5,
                         horizon=50), storage=_url(tmp_path), seed=0)  # fmt: skip
    for _ in range(4):
        q = study.ask()
        study.tell(q.id, 0.5)
    rec = study.conservative()
    assert rec["truth"] is False and rec["violations"] is None
    assert all(r["true_margin"] is None for r in rec["rounds"]) and len(rec["rounds"]) == 4


def test_a_non_conservative_study_has_no_record(tmp_path):
    import safebandits as sb

    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    study = create_study("plain", "g-acol", inst.public_info(), storage=_url(tmp_path), seed=0)
    assert study.conservative() is None and "conservative" not in study.summary()


def test_contexts_are_refused_with_the_field_named(tmp_path):
    study = create_study("bad", "clucb", LINEAR, storage=_url(tmp_path), seed=0)
    good = {"arms": np.full((4, 3), 0.2).tolist(), "baseline": 1, "baseline_reward": 0.3}
    cases = [
        (None, "context"),
        ({**good, "arms": np.full((3, 3), 0.2).tolist()}, "context.arms"),
        ({**good, "arms": np.full((4, 2), 0.2).tolist()}, "context.arms"),
        ({**good, "arms": [[0.2, 0.2, float("nan")]] + [[0.2] * 3] * 3}, "context.arms"),
        ({**good, "arms": [["0.2", 0.2, 0.2]] + [[0.2] * 3] * 3}, "context.arms"),
        ({**good, "arms": np.full((4, 3), 0.9).tolist()}, "context.arms"),  # ||x|| > feature_bound = 1
        ({**good, "baseline": 4}, "context.baseline"),
        ({**good, "baseline": 1.5}, "context.baseline"),
        ({**good, "baseline_reward": float("inf")}, "context.baseline_reward"),
        ({**good, "baseline_reward": -0.1}, "context.baseline_reward"),
        ({k: v for k, v in good.items() if k != "baseline_reward"}, "context.baseline_reward"),
        ({**good, "extra": 1}, "context"),
        ([1, 2], "context"),
    ]
    for context, field in cases:
        with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
            study.ask(context)
    assert study.queries() == []  # nothing stored
    study.ask(good)
    assert len(study.queries()) == 1


def test_an_open_query_keeps_its_context(tmp_path):
    study = create_study("open", "clucb", LINEAR, storage=_url(tmp_path), seed=0)
    ctx = {"arms": np.full((4, 3), 0.2).tolist(), "baseline": 1, "baseline_reward": 0.3}
    q = study.ask(ctx)
    assert study.ask(ctx) == q and study.ask() == q  # the open query again (the same context, or none)
    assert q.to_dict()["context"]["baseline"] == 1
    other = {**ctx, "baseline": 2}
    with pytest.raises(ProtocolError, match="open"):
        study.ask(other)
    study.tell(q.id, {"reward": 0.25})
    assert study.ask(other).id == 1


def test_an_expired_query_is_handed_out_again_for_its_own_context_only(tmp_path):
    study = create_study("exp", "clucb", LINEAR, storage=_url(tmp_path), seed=0, max_open=3)
    ctx = {"arms": np.full((4, 3), 0.2).tolist(), "baseline": 1, "baseline_reward": 0.3}
    q = study.ask(ctx)
    assert study.expire() == [q.id]
    with pytest.raises(ProtocolError, match="another context"):
        study.ask({**ctx, "baseline": 2})
    again = study.ask(ctx)
    assert again.id == q.id and again.context == q.context


def test_a_multi_armed_study_refuses_a_context(tmp_path):
    study = create_study("ma", "conservative-ucb", ConservativeProblem(n_arms=3, alpha=0.1, default_mean=0.5,
                         horizon=50), storage=_url(tmp_path), seed=0)  # fmt: skip
    with pytest.raises(ConfigError, match="context"):
        study.ask({"arms": [[1.0]], "baseline": 0})


def test_a_study_from_an_experiment_file_with_a_truth(tmp_path):
    from pathlib import Path

    import tomllib

    raw = tomllib.loads((Path(__file__).parents[3] / "examples/conservative_checkpoint.toml").read_text())
    url = _url(tmp_path)
    made = create_from_options("file", "clucb2-checkpoint", storage=url, experiment=raw, seed=0)
    assert made["kind"] == "conservative-linear"
    sim = ConservativeLinearProblem(**{k: v for k, v in raw["problem"].items() if k != "setting"}).simulate(
        theta=raw["truth"]["theta"], feature_low=raw["truth"]["feature_low"]
    )
    env = sim.instance("conservative-linear").environment(np.random.default_rng(1))
    with load_study("file", url) as study:
        assert study.truth == raw["truth"]
        for _ in range(40):
            ctx = env.context()
            q = study.ask(ctx)
            study.tell(q.id, {"reward": env.play(q.decision).reward})
        rec = study.conservative()
    assert rec["checkpoint"] == 100 and rec["truth"] is True and len(rec["rounds"]) == 40
    assert rec["violations"] == 0
    assert "checkpoint" in rec["guarantee"] and "100" in rec["guarantee"]
    assert not any(r["verified"] for r in rec["rounds"])  # (the first checkpoint is round 100)


def test_the_command_line_asks_with_a_context(tmp_path):
    """``study create --problem FILE.toml`` (a baseline, alpha and a [truth]), ``study ask --context``,
    ``study tell``; ``study status`` carries the conservative record; a refused context names its field."""
    from click.testing import CliRunner

    from safebandits.cli import cli

    toml = tmp_path / "shop.toml"
    toml.write_text(
        'horizon = 50\n[problem]\nsetting = "conservative-linear"\ndim = 2\nn_actions = 3\nalpha = 0.1\n'
        'baseline_action = 0\nfeedback = {kind = "gaussian", sigma = 0.1}\n[truth]\ntheta = [0.4, 0.6]\n'
    )
    url = _url(tmp_path)
    run = CliRunner().invoke
    create = ["study", "create", "cli", "--algorithm", "clucb", "--problem", str(toml), "--storage", url]
    res = run(cli, create)
    assert res.exit_code == 0, res.output
    ctx = {"arms": [[0.3, 0.4], [0.5, 0.1], [0.2, 0.2]], "baseline": 0, "baseline_reward": 0.36}
    res = run(cli, ["study", "ask", "cli", "--context", json.dumps(ctx), "--storage", url])
    assert res.exit_code == 0, res.output
    q = json.loads(res.output)
    assert q["context"] == ctx
    res = run(cli, ["study", "tell", "cli", str(q["id"]), '{"reward": 0.4}', "--storage", url])
    assert res.exit_code == 0, res.output
    res = run(cli, ["study", "status", "cli", "--storage", url])
    status = json.loads(res.output)
    assert status["conservative"]["n_rounds"] == 1 and status["conservative"]["truth"] is True
    bad = {**ctx, "arms": [[0.3, 0.4]]}
    res = run(cli, ["study", "ask", "cli", "--context", json.dumps(bad), "--storage", url])
    assert res.exit_code == 2 and "context.arms" in res.output


@pytest.mark.parametrize(
    "algorithm", ["conservative-ucb", "clucb", "clucb2", "clucb-unknown-baseline", "clucb2-checkpoint"]
)
def test_studies_under_the_truth_violate_no_round_across_seeds(tmp_path, algorithm):
    """The acceptance of issue 44 through studies: a declared multi-armed and a declared contextual
    problem with a baseline and alpha, played through ask / tell against the truth, 3 seeded replicates
    each: no verified round below the constraint, and every certified margin at most the true one."""
    if algorithm == "conservative-ucb":
        problem = ConservativeProblem(n_arms=4, alpha=0.05, default_mean=0.5, horizon=80,
                                      feedback={"kind": "gaussian", "sigma": 0.2})  # fmt: skip
        sim = problem.simulate(means=[0.5, 0.6, 0.3, 0.55])
    else:
        checkpoint = {"checkpoint": 10, "baseline_floor": 0.2} if algorithm.endswith("checkpoint") else {}
        problem = ConservativeLinearProblem(
            dim=3, n_actions=4, alpha=0.05, baseline_param=[0.5, 0.5, 0.5], horizon=80, param_bound=1.2,
            feedback={"kind": "gaussian", "sigma": 0.1}, **checkpoint,
        )  # fmt: skip
        sim = problem.simulate(theta=[0.3, 0.8, 0.5], feature_low=0.5)
    kind = problem.kinds[0]
    for seed in range(3):
        study = create_study(f"s{seed}", algorithm, sim, storage=_url(tmp_path), seed=seed, snapshot_every=25)
        env = sim.instance(kind).environment(np.random.default_rng(100 + seed))
        for _ in range(60):
            q = study.ask(env.context()) if kind == "conservative-linear" else study.ask()
            study.tell(q.id, {"reward": env.play(q.decision).reward})
        rec = study.conservative()
        assert rec["violations"] == 0 and rec["n_rounds"] == 60, (seed, rec["first_violation"])
        for r in rec["rounds"]:
            if r["pessimistic_margin"] is not None and r["verified"]:
                assert r["pessimistic_margin"] <= r["true_margin"] + 1e-9, (seed, r)
        checked = study.verify()  # (every stored context replayed from the first answer)
        assert checked["n_answered"] == 60 and checked["identical"] in (True, None)
        study.close()


def test_a_linear_problem_with_a_baseline_arm_is_a_contextual_study_of_its_arms(tmp_path):
    """examples/conservative_across.toml (a LinearProblem offering the conservative view): CLUCB's study
    is asked with the problem's arms as every round's context, the baseline arm's reward told, and the
    record reads the file's [truth] (reward_param)."""
    from pathlib import Path

    import tomllib

    raw = tomllib.loads((Path(__file__).parents[3] / "examples/conservative_across.toml").read_text())
    url = _url(tmp_path)
    create_from_options("across", "clucb", storage=url, experiment=raw, seed=0)
    arms = np.asarray(raw["problem"]["arms"], dtype=float)
    theta = np.asarray(raw["truth"]["reward_param"], dtype=float)
    rng = np.random.default_rng(0)
    with load_study("across", url) as study:
        assert study.truth == raw["truth"]
        ctx = {"arms": arms.tolist(), "baseline": 0, "baseline_reward": 0.42}
        for _ in range(30):
            q = study.ask(ctx)
            study.tell(q.id, {"reward": float(arms[q.arm] @ theta + 0.1 * rng.standard_normal())})
        rec = study.conservative()
    expected = np.cumsum([arms[r["arm"]] @ theta - 0.8 * arms[0] @ theta for r in rec["rounds"]])
    np.testing.assert_allclose([r["true_margin"] for r in rec["rounds"]], expected, atol=1e-12)
    assert rec["violations"] == 0 and "baseline arm 0 (reward safe_reward = 0.42)" in rec["guarantee"]
