"""Online ridge regression: rank-one updates equal a batch solve."""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.estimators.ridge import (
    ARRAYS_OF_NUMERICS,
    NUMERICS,
    ArmRidge,
    ArmRidgeArrays,
    OnlineRidge,
    arm_state_refresh,
    arm_state_update,
    cholesky_inverse,
    choose_numerics,
    is_axis_aligned,
)
from safebandits.exceptions import ConfigError


def batch_solution(arms, idx, ys, reg):
    x = arms[idx]
    a = reg * np.eye(arms.shape[1]) + x.T @ x
    b = x.T @ ys
    theta = np.linalg.solve(a, b)
    sq = np.einsum("ij,ji->i", arms, np.linalg.solve(a, arms.T))
    return a, b, theta, sq


@pytest.mark.parametrize(("n", "d"), [(11, 10), (30, 30), (5, 8), (40, 3)])
@pytest.mark.parametrize("refresh_every", [0, 7, 1000])
@pytest.mark.parametrize("numerics", ["primal", "gram"])
def test_arm_ridge_rank_one_equals_batch_solve(n, d, refresh_every, numerics):
    rng = np.random.default_rng(n * 100 + d)
    arms = rng.standard_normal((n, d))
    ridge = ArmRidge(arms, reg=0.1, refresh_every=refresh_every, numerics=numerics)
    idx = rng.integers(0, n, 500)
    ys = rng.standard_normal(500)
    for k, y in zip(idx, ys):
        ridge.update(k, y)
    a, b, theta, sq = batch_solution(arms, idx, ys, 0.1)
    np.testing.assert_allclose(ridge.theta_hat, theta, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(ridge.a_inv, np.linalg.inv(a), rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(ridge.sq_widths, sq, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ridge.preds, arms @ theta, rtol=1e-8, atol=1e-9)
    np.testing.assert_allclose(ridge.widths, np.sqrt(sq), rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ridge.a, a, rtol=1e-12)
    np.testing.assert_allclose(ridge.b, b, rtol=1e-10, atol=1e-10)
    assert ridge.n_updates == 500
    np.testing.assert_array_equal(ridge.counts, np.bincount(idx, minlength=n))
    if numerics == "gram":
        np.testing.assert_allclose(ridge.gram, arms @ np.linalg.solve(a, arms.T), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("refresh_every", [0, 7])
def test_arm_ridge_diagonal_equals_batch_solve(refresh_every):
    # axis-aligned arms (two on the same axis, one zero arm): A is diagonal, O(n + d) per update
    rng = np.random.default_rng(4)
    arms = np.zeros((8, 5))
    arms[np.arange(5), np.arange(5)] = rng.uniform(0.5, 2.0, 5)
    arms[5, 4] = -0.7
    arms[6, 0] = 3.0
    assert is_axis_aligned(arms) and not is_axis_aligned(arms + 0.1)
    ridge = ArmRidge(arms, reg=0.1, refresh_every=refresh_every, numerics="auto")
    assert ridge.numerics == "diagonal"
    idx = rng.integers(0, 8, 500)
    ys = rng.standard_normal(500)
    for k, y in zip(idx, ys):
        ridge.update(k, y)
    a, _, theta, sq = batch_solution(arms, idx, ys, 0.1)
    np.testing.assert_allclose(ridge.theta_hat, theta, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ridge.theta_state, theta, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ridge.sq_widths, sq, rtol=1e-12)
    np.testing.assert_allclose(ridge.preds, arms @ theta, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(ridge.a_inv_state[0], np.diag(a), rtol=1e-12)
    np.testing.assert_array_equal(ridge.counts, np.bincount(idx, minlength=8))
    with pytest.raises(ConfigError, match="numerics"):
        ArmRidge(arms + 0.1, reg=0.1, numerics="diagonal")


@pytest.mark.parametrize(("n", "d"), [(11, 10), (51, 50), (6, 9)])
def test_arm_ridge_gram_equals_batch_solve_after_many_updates(n, d):
    # 20000 rank-one updates without any refresh: widths and predictions still equal a batch solve.
    rng = np.random.default_rng(n + d)
    arms = rng.standard_normal((n, d)) / np.sqrt(d)
    ridge = ArmRidge(arms, reg=0.1, refresh_every=0, numerics="gram")
    idx = rng.integers(0, n, 20_000)
    ys = rng.standard_normal(20_000)
    for k, y in zip(idx, ys):
        ridge.update(k, y)
    a, _, theta, sq = batch_solution(arms, idx, ys, 0.1)
    np.testing.assert_allclose(ridge.sq_widths, sq, rtol=1e-7, atol=1e-12)
    np.testing.assert_allclose(ridge.preds, arms @ theta, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ridge.gram, arms @ np.linalg.solve(a, arms.T), rtol=1e-7, atol=1e-12)
    np.testing.assert_array_equal(ridge.gram, ridge.gram.T)
    np.testing.assert_array_equal(ridge.sq_widths, np.diag(ridge.gram))
    assert ridge.a_inv_state.size == 0 and ridge.theta_state.size == 0


def test_arm_ridge_gram_refresh_is_exact_and_matches_primal():
    rng = np.random.default_rng(8)
    arms = rng.standard_normal((7, 4))
    counts = rng.integers(0, 30, 7).astype(float)
    sums = rng.standard_normal(7) * counts
    primal = ArmRidge(arms, reg=0.2, numerics="primal")
    gram = ArmRidge(arms, reg=0.2, numerics="gram")
    for r in (primal, gram):
        r.set_counts(counts, sums)
    np.testing.assert_allclose(gram.sq_widths, primal.sq_widths, rtol=1e-12)
    np.testing.assert_allclose(gram.preds, primal.preds, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gram.theta_hat, primal.theta_hat, rtol=1e-12)
    np.testing.assert_array_equal(gram.a_inv, primal.a_inv)  # same formula on demand


@pytest.mark.parametrize(
    ("n", "d", "expected", "expected_lookahead"),
    [
        (11, 10, "gram", "gram"),
        (51, 50, "gram", "gram"),
        (100, 30, "primal", "primal"),
        (75, 30, "primal", "gram"),
    ],
)
def test_arm_ridge_auto_numerics(n, d, expected, expected_lookahead):
    assert choose_numerics(n, d) == expected
    assert choose_numerics(n, d, lookahead=True) == expected_lookahead
    assert ArmRidge(np.ones((n, d)), reg=1.0, numerics="auto").numerics == expected


def test_arm_ridge_a_inv_stays_exactly_symmetric():
    rng = np.random.default_rng(1)
    ridge = ArmRidge(rng.standard_normal((9, 6)), reg=0.5, refresh_every=0)
    for k in rng.integers(0, 9, 200):
        ridge.update(k, 1.0)
    np.testing.assert_array_equal(ridge.a_inv, ridge.a_inv.T)


def test_arm_ridge_set_counts_equals_solve():
    rng = np.random.default_rng(2)
    arms = rng.standard_normal((12, 4))
    counts = rng.integers(0, 50, 12).astype(float)
    sums = rng.standard_normal(12) * counts
    ridge = ArmRidge(arms, reg=0.01)
    ridge.update(3, 10.0)  # discarded by set_counts
    ridge.set_counts(counts, sums)
    a = 0.01 * np.eye(4) + arms.T @ (counts[:, None] * arms)
    theta = np.linalg.solve(a, arms.T @ sums)
    np.testing.assert_allclose(ridge.theta_hat, theta, rtol=1e-10)
    np.testing.assert_allclose(
        ridge.sq_widths, np.einsum("ij,ji->i", arms, np.linalg.solve(a, arms.T)), rtol=1e-10
    )
    assert ridge.n_updates == 0


def test_arm_ridge_prior_state_and_refresh_is_idempotent():
    arms = np.array([[1.0, 0.0], [1.0, 1.0]])
    ridge = ArmRidge(arms, reg=2.0)
    np.testing.assert_allclose(ridge.sq_widths, [0.5, 1.0])
    np.testing.assert_allclose(ridge.preds, 0.0)
    ridge.update(1, 3.0)
    before = ridge.theta_hat.copy()
    ridge.refresh()
    np.testing.assert_allclose(ridge.theta_hat, before, rtol=1e-12)


def test_arm_ridge_rejects_bad_input():
    with pytest.raises(ConfigError, match="reg"):
        ArmRidge(np.eye(2), reg=0.0)
    with pytest.raises(ConfigError, match="arms"):
        ArmRidge(np.ones(3), reg=1.0)
    with pytest.raises(ConfigError, match="numerics"):
        ArmRidge(np.eye(2), reg=1.0, numerics="dual")
    ridge = ArmRidge(np.eye(2), reg=1.0)
    with pytest.raises(ConfigError, match="counts"):
        ridge.set_counts(np.ones(3), np.ones(3))
    with pytest.raises(ConfigError, match="non-negative"):
        ridge.set_counts(np.array([-1.0, 1.0]), np.ones(2))


@pytest.mark.parametrize("refresh_every", [0, 10])
def test_online_ridge_equals_batch_solve(refresh_every):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((300, 5))
    y = rng.standard_normal(300)
    ridge = OnlineRidge(5, reg=0.3, refresh_every=refresh_every)
    for xi, yi in zip(x, y):
        ridge.update(xi, yi)
    a = 0.3 * np.eye(5) + x.T @ x
    np.testing.assert_allclose(ridge.theta_hat, np.linalg.solve(a, x.T @ y), rtol=1e-9)
    np.testing.assert_allclose(ridge.a_inv, np.linalg.inv(a), rtol=1e-9, atol=1e-12)
    probe = rng.standard_normal((7, 5))
    expected = np.sqrt(np.einsum("ij,ji->i", probe, np.linalg.solve(a, probe.T)))
    np.testing.assert_allclose(ridge.widths(probe), expected, rtol=1e-9)
    np.testing.assert_allclose(ridge.widths(probe[0]), expected[0], rtol=1e-9)
    np.testing.assert_allclose(ridge.predict(probe), probe @ ridge.theta_hat)
    assert ridge.n_samples == 300


def test_online_ridge_batch_update_equals_sequential():
    rng = np.random.default_rng(4)
    x = rng.standard_normal((50, 3))
    y = rng.standard_normal(50)
    seq = OnlineRidge(3, reg=1.0)
    for xi, yi in zip(x, y):
        seq.update(xi, yi)
    bat = OnlineRidge(3, reg=1.0)
    bat.update_batch(x[:20], y[:20])
    bat.update_batch(x[20:], y[20:])
    np.testing.assert_allclose(bat.theta_hat, seq.theta_hat, rtol=1e-10)
    np.testing.assert_allclose(bat.a_inv, seq.a_inv, rtol=1e-10, atol=1e-14)
    assert bat.n_samples == 50


def test_online_ridge_rejects_bad_input():
    with pytest.raises(ConfigError, match="dim"):
        OnlineRidge(0, reg=1.0)
    ridge = OnlineRidge(3, reg=1.0)
    with pytest.raises(ConfigError, match="shape"):
        ridge.update(np.ones(2), 1.0)
    with pytest.raises(ConfigError, match="columns"):
        ridge.update_batch(np.ones((4, 2)), np.ones(4))


def test_cholesky_inverse():
    rng = np.random.default_rng(5)
    m = rng.standard_normal((6, 6))
    a = m @ m.T + 0.1 * np.eye(6)
    out = np.empty((6, 6))
    cholesky_inverse(a, out)
    np.testing.assert_allclose(out, np.linalg.inv(a), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(out, out.T)


@settings(max_examples=25, deadline=None)
@given(
    numerics=st.sampled_from(["primal", "gram", "diagonal"]),
    n=st.integers(1, 9),
    d=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
)
def test_numerics_class_dispatch_equals_runtime_dispatch(numerics, n, d, seed):
    # A record of a numerics' own class compiles that numerics alone (dispatch on its type); a plain
    # ArmRidgeArrays record dispatches on the code at run time. Both are the same arithmetic, bit for bit.
    rng = np.random.default_rng(seed)
    arms = rng.standard_normal((n, d))
    if numerics == "diagonal":
        arms = np.zeros((n, d))
        arms[np.arange(n), rng.integers(0, d, n)] = rng.uniform(0.2, 2.0, n)
    typed = ArmRidge(arms, reg=0.3, refresh_every=0, numerics=numerics)
    plain = ArmRidge(arms, reg=0.3, refresh_every=0, numerics=numerics)
    code = NUMERICS.index(numerics)
    assert type(typed.arrays) is ARRAYS_OF_NUMERICS[code]
    assert numba.typeof(typed.arrays) != numba.typeof(ArmRidgeArrays(*typed.arrays))
    untyped = ArmRidgeArrays(*plain.arrays)  # (the same arrays, the plain class)
    for k, y in zip(rng.integers(0, n, 30), rng.standard_normal(30)):
        arm_state_update(code, typed.arrays, int(k), float(y))
        arm_state_update(code, untyped, int(k), float(y))
    arm_state_refresh(code, typed.arrays, 0.3)
    arm_state_refresh(code, untyped, 0.3)
    for a, b in zip(typed.arrays, untyped):
        np.testing.assert_array_equal(a, b)


_ONLY_ITS_NUMERICS = """
import numpy as np
from safebandits.algorithms import make_learner
from safebandits.problems import make_instance
from safebandits.estimators import ridge
inst = make_instance("acol/unit-sphere", np.random.default_rng(0), n_arms=10, d=10)
lrn = make_learner("g-acol", inst.public_info(), np.random.default_rng(1), {"numerics": "gram"})
lrn.simulate(inst.environment(np.random.default_rng(2)), 300)
for _ in range(20):
    if lrn.done:
        break
    lrn.tell(d := lrn.ask(), inst.environment(np.random.default_rng(3)).play(d))
print(sorted(f.__name__ for f in (ridge.arm_ridge_refresh, ridge.arm_gram_refresh, ridge.arm_diag_refresh)
             if f.overloads))
"""


@pytest.mark.slow
def test_a_gram_run_compiles_no_other_numerics(tmp_path):
    # cold (an empty numba cache): the G-ACOL driver and its ask / tell kernel on GramArrays compile the
    # Gram refresh only (all three compiled before: ~7 s more of a G-ACOL cold start)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", _ONLY_ITS_NUMERICS], env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "['arm_gram_refresh']"
