"""Every "cannot start" hint, applied as written, lets the learner start (issue 29).

A learner that cannot start raises :class:`CannotStartError` with its fixes as records. On a declared
problem the fixes are restated in the declaration's coordinates (Safe-LUCB works centred at the safe arm);
each test applies each fix to the declaration (or the learner's options, or another learner) and builds
the learner again, through the same start-up check that ``learners --for`` and ``run FILE.toml`` use.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import safebandits as sb
from safebandits.algorithms.compatibility import kind_for, start_check
from safebandits.exceptions import CannotStartError, ConfigError, Fix
from safebandits.problems.declare import KernelProblem, LinearProblem

THETA = np.array([0.5, 0.3, -0.2, 0.4])


def _sphere_problem(**changes):
    """The d = 4 problem of the issue: unit-sphere arms, a known safe arm x0 != 0, a linear cost."""
    rng = np.random.default_rng(3)
    arms = rng.normal(size=(8, 4))
    arms /= np.linalg.norm(arms, axis=1, keepdims=True)
    x0 = np.array([0.1, 0.0, 0.0, 0.0])
    values = dict(
        arms=np.vstack([x0, arms]),
        threshold=0.3,
        safe_arm=0,
        safe_reward=float(THETA @ x0),
        safe_cost=float(THETA @ x0),
        cost_matrix=np.eye(4),
        safety_gap=0.05,
        horizon=5000,
    )
    values.update(changes)
    return LinearProblem(**values)


def _apply(problem, name, kind, fix: Fix):
    """(problem, learner, options) after applying ``fix`` as the message states it."""
    if fix.kind == "option":
        return problem, name, {fix.name: fix.value}
    if fix.kind == "learner":
        return problem, fix.value, None
    return problem.apply_fix(kind, fix), name, None


def _assert_every_fix_starts(problem, name, options=None, n_fixes=1):
    check = start_check(problem, name, options)
    assert not check.ok, f"{name} was expected to refuse this problem"
    assert "\n" not in check.message
    assert len(check.applicable) >= n_fixes and len(check.fixes) >= len(check.applicable)
    kind = kind_for(problem, name)
    for fix in check.applicable:
        p2, name2, opts2 = _apply(problem, name, kind, fix)
        merged = {**(options or {}), **(opts2 or {})}
        after = start_check(p2, name2, merged)
        assert after.ok, (
            f"{name}: fix {fix.kind} {fix.name}={fix.value!r} did not let it start: {after.message}"
        )
    return check


@pytest.mark.parametrize("name", ["safe-lucb", "gslucb"])
def test_lambda_minus_zero_fix_is_stated_in_the_arms_coordinates(name):
    problem = _sphere_problem()
    check = _assert_every_fix_starts(problem, name)
    # the rows to add are written as the user's arms: centred back at x0, inside
    # ||M (a - x0)|| <= (tau - c0) / S, and parseable as they are printed
    text = next(t for t in check.fixes if t.startswith("add these rows to arms: "))
    rows = np.array(json.loads(re.match(r"add these rows to arms: (\[\[.*?\]\])", text).group(1)))
    x0 = problem.arms[0]
    assert rows.shape[1] == 4
    assert np.all(np.linalg.norm((rows - x0) @ problem.cost_matrix.T, axis=1) <= 0.3 - problem.safe_cost[0])
    # applied literally (copied from the message), the learner starts
    assert start_check(
        LinearProblem(**{**_sphere_kwargs(), "arms": np.vstack([problem.arms, rows])}), name
    ).ok
    assert "centred at your safe arm" in check.message and "x0 = [0.1, 0.0, 0.0, 0.0]" in check.message


def _sphere_kwargs():
    p = _sphere_problem()
    return {k: getattr(p, k) for k in ("arms", "threshold", "safe_arm", "safe_reward", "safe_cost",
                                       "cost_matrix", "safety_gap", "horizon")}  # fmt: skip


@pytest.mark.parametrize("name", ["safe-lucb", "gslucb"])
def test_empty_conservative_set_fix_starts(name):
    # tau - c0 is tiny: no arm, not even the safe one shifted to 0 ... the safe arm is at distance 0
    # from itself, so drop it from D^w by a positive cost matrix and a safe arm at the origin of cost 0
    problem = _sphere_problem(threshold=0.06, safety_gap=0.01)
    _assert_every_fix_starts(problem, name)


def test_t_delta_without_gap_fixes_start():
    problem = _sphere_problem(safety_gap=None)
    problem = problem.apply_fix("safe-linear-arms", start_check(problem, "gslucb").applicable[0])
    check = _assert_every_fix_starts(problem, "safe-lucb", n_fixes=2)
    assert any("t_prime='t0'" in t for t in check.fixes) and any("GSLUCB" in t for t in check.fixes)
    assert any("safety_gap" in t for t in check.fixes)  # a note: only the user knows a valid gap


@pytest.mark.parametrize("name", ["lc-lucb", "safe-lts"])
def test_points_that_never_start_fixes(name):
    check = _assert_every_fix_starts(_sphere_problem(), name, n_fixes=2)
    assert any("action_set='star'" in t for t in check.fixes)


@pytest.mark.parametrize("name", ["stageopt", "sgp-ucb"])
def test_safe_seed_learners_without_seed_fix(name):
    info = sb.make_instance("ckb/synthetic", np.random.default_rng(0), n_points=20, n_seed=3).public_info()
    import dataclasses

    info = dataclasses.replace(info, safe_seed=())
    check = start_check(info, name)
    assert not check.ok and check.applicable[0].kind == "learner"
    assert start_check(info, check.applicable[0].value).ok


def test_beside_rips_on_bernoulli_fix():
    dose = LinearProblem(arms=np.eye(5), threshold=0.3, safe_arm=0, feedback="bernoulli", epsilon=0.02)
    check = _assert_every_fix_starts(dose, "beside")
    assert check.applicable[0] == Fix("option", "estimator", "ols", check.applicable[0].text)


def test_make_learner_on_a_declaration_restates_the_fix():
    with pytest.raises(
        CannotStartError, match=r"centred at your safe arm.*add these rows to arms: \[\["
    ) as err:
        sb.make_learner("safe-lucb", _sphere_problem(), np.random.default_rng(0))
    assert err.value.fixes and err.value.fixes[0].kind == "add_actions"
    assert isinstance(err.value, ConfigError)


@pytest.mark.parametrize("name", ["stageopt", "sgp-ucb"])
def test_declared_kernel_problem_without_seed_fix(name):
    p = KernelProblem(points=np.linspace(0, 1, 6)[:, None], kernel={"name": "se", "lengthscale": 0.3},
                      reward_bound=1.0, constraint_bound=1.0, slater=0.1, horizon=100)  # fmt: skip
    check = _assert_every_fix_starts(p, name)
    assert any("safe_seed" in t for t in check.fixes)
