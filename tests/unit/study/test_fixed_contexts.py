"""A study of a declaration whose actions are fixed (issue 44): a :class:`LinearProblem` offering the
conservative view (its arms are every round's actions, its ``safe_arm`` the baseline, ``safe_reward`` the
baseline's reward). The study fills each round's context in from the declaration: ``study.ask()`` works;
a context sent anyway must be the declared one, else it is refused naming the field that differs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import tomllib

from safebandits.algorithms import make_learner
from safebandits.exceptions import ConfigError
from safebandits.problems.conservative_linear import ConservativeContext
from safebandits.problems.declare import LinearProblem
from safebandits.rng import RunKey, learner_rng
from safebandits.study import create_study, load_study
from safebandits.study.options import create_from_options

RAW = tomllib.loads((Path(__file__).parents[3] / "examples/conservative_across.toml").read_text())
ARMS = np.asarray(RAW["problem"]["arms"], dtype=float)
THETA = np.asarray(RAW["truth"]["reward_param"], dtype=float)
DECLARED = {"arms": ARMS.tolist(), "baseline": 0, "baseline_reward": 0.42}


def _url(tmp_path):
    return f"sqlite:///{tmp_path}/s.db"


def _made(tmp_path, algorithm="clucb"):
    url = _url(tmp_path)
    create_from_options("across", algorithm, storage=url, experiment=RAW, seed=0)
    return url


@pytest.mark.parametrize("algorithm", ["clucb", "clucb2", "linucb"])
def test_ask_without_a_context_uses_the_declared_actions(tmp_path, algorithm):
    url = _made(tmp_path, algorithm)
    study = load_study("across", url)
    assert study.declared_kind == "conservative-linear"
    decl = study.declaration
    ctx = ConservativeContext(arms=ARMS, baseline=0, baseline_reward=0.42)
    assert decl is not None and decl.setting == "linear"
    twin = make_learner(algorithm, study.info, learner_rng(RunKey(0, 0, algorithm, 0)))
    rng = np.random.default_rng(1)
    arms = []
    for i in range(40):
        if i == 20:  # a new process: load and replay the stored (declared) contexts
            study.close()
            study = load_study("across", url)
        q = study.ask()
        assert q.context == DECLARED and study.ask().id == q.id  # (open: the same query again)
        d = twin.ask(ctx)
        assert q.arm == d.arm
        reward = float(ARMS[q.arm] @ THETA + 0.1 * rng.standard_normal())
        study.tell(q.id, {"reward": reward})
        twin.tell(d, _obs(reward))
        arms.append(q.arm)
    rec = study.conservative()
    expected = np.cumsum([ARMS[a] @ THETA - 0.8 * ARMS[0] @ THETA for a in arms])
    np.testing.assert_allclose([r["true_margin"] for r in rec["rounds"]], expected, atol=1e-12)
    if algorithm != "linucb":
        assert rec["violations"] == 0
    assert study.verify()["identical"] in (True, None)
    study.close()


def _obs(reward):
    from safebandits.types import Observation

    return Observation(reward=reward)


def test_the_declared_context_sent_anyway_is_accepted(tmp_path):
    url = _made(tmp_path)
    with load_study("across", url) as study:
        q = study.ask(DECLARED)
        assert q.context == DECLARED
        assert study.ask(DECLARED).id == q.id and study.ask().id == q.id
        study.tell(q.id, {"reward": 0.5})
        q2 = study.ask(ConservativeContext(arms=ARMS, baseline=0, baseline_reward=0.42))
        assert q2.id == 1 and q2.context == DECLARED


def _differ(field):
    ctx = json.loads(json.dumps(DECLARED))
    if field == "arms":
        ctx["arms"][3][1] = 0.5
    elif field == "baseline":
        ctx["baseline"] = 3
    else:
        ctx["baseline_reward"] = 0.4
    return ctx


@pytest.mark.parametrize("field", ["arms", "baseline", "baseline_reward"])
def test_another_context_is_refused_naming_the_field(tmp_path, field):
    url = _made(tmp_path)
    with load_study("across", url) as study:
        with pytest.raises(ConfigError, match=f"context.{field}") as err:
            study.ask(_differ(field))
        assert "declared" in str(err.value)
        assert study.queries() == []
        q = study.ask()  # (the open query: a context that differs is still refused)
        with pytest.raises(ConfigError, match=f"context.{field}"):
            study.ask(_differ(field))
        assert study.ask().id == q.id


def test_a_linear_problem_view_passed_directly_is_not_filled_in(tmp_path):
    """A study made from the view alone (no declaration) has no fixed actions to fill in: it still asks for
    the context."""
    decl = LinearProblem(**{k: v for k, v in RAW["problem"].items() if k != "setting"}, horizon=600)
    info = decl.view("conservative-linear", horizon=600)
    study = create_study("v", "clucb", info, storage=_url(tmp_path), seed=0)
    with pytest.raises(ConfigError, match="context"):
        study.ask()


def test_the_cli_asks_without_a_context_and_refuses_another(tmp_path):
    from click.testing import CliRunner

    from safebandits.cli import cli

    url = _url(tmp_path)
    run = CliRunner().invoke
    file = Path(__file__).parents[3] / "examples/conservative_across.toml"
    res = run(
        cli, ["study", "create", "cli", "--algorithm", "clucb", "--problem", str(file), "--storage", url]
    )
    assert res.exit_code == 0, res.output
    res = run(cli, ["study", "ask", "cli", "--storage", url])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["context"] == DECLARED
    res = run(cli, ["study", "ask", "cli", "--context", json.dumps(_differ("baseline")), "--storage", url])
    assert res.exit_code == 2 and "context.baseline" in res.output
