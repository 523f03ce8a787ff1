"""``benchmarks/bench_botorch.py`` (issue 33) cannot rot: its problem builders and our-learner runner
work on a tiny size without BoTorch; the BoTorch runner itself only where BoTorch is importable (its own
venv, ``benchmarks/setup_botorch_venv.sh``; not the test venv)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from safebandits.problems.kernel import DataNotFoundError

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_botorch", ROOT / "benchmarks" / "bench_botorch.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (its dataclasses look their module up)
    try:
        spec.loader.exec_module(mod)
        yield mod
    finally:
        sys.modules.pop(spec.name, None)


SIZES = {"n_synthetic": 30, "gardner_side": 6}


def test_gardner_problem_is_the_2014_toy_problem(bench):
    x, f, g = bench.gardner_functions(7)  # (a grid through the corners: 0, 1, ..., 6)
    assert x.shape == (49, 2) and x.min() == 0.0 and x.max() == 6.0
    raw_f = -(np.cos(2 * x[:, 0]) * np.cos(x[:, 1]) + np.sin(x[:, 0]))
    raw_g = np.cos(x[:, 0] + x[:, 1]) - 0.5  # cos x1 cos x2 - sin x1 sin x2 = cos(x1 + x2)
    np.testing.assert_allclose(f * np.max(np.abs(raw_f)), raw_f)
    np.testing.assert_allclose(g * np.max(np.abs(raw_g)), raw_g)
    assert np.max(np.abs(f)) == pytest.approx(1.0) and np.max(np.abs(g)) == pytest.approx(1.0)


@pytest.mark.parametrize("name", ["synthetic", "gardner", "light"])
def test_problems_build_with_unit_coordinates_and_a_feasible_optimum(bench, name):
    try:
        prob = bench.build_problem(name, 3, 12, **SIZES)
    except DataNotFoundError:
        pytest.skip("light-sensor data not found ($SAFEBANDITS_DATA or `safebandits data fetch`)")
    inst = prob.instance
    n = inst.n_points
    assert prob.coords.shape[0] == n and prob.coords.min() == 0.0 and prob.coords.max() == 1.0
    assert inst.horizon == 12 and inst.constraint[inst.optimal_arm] <= 0.0
    assert inst.constraint[inst.safe_seed[0]] < 0.0
    info = prob.ml_info()
    assert info.kernel.lengthscale == bench.ML_START_LENGTHSCALE and info.kernel.shape == (n, n)


def test_synthetic_draws_differ_by_seed_and_repeat_for_a_seed(bench):
    a, b, a2 = (bench.build_problem("synthetic", s, 10, **SIZES).instance for s in (0, 1, 0))
    assert not np.array_equal(a.reward, b.reward)
    np.testing.assert_array_equal(a.reward, a2.reward)


def test_score_matches_the_regret_tracker(bench):
    prob = bench.build_problem("gardner", 0, 40, **SIZES)
    inst = prob.instance
    played = np.random.default_rng(0).integers(0, inst.n_points, size=40)
    run = bench.score(inst, played, cpu=2.0)
    g = inst.constraint[played]
    assert run.regret == pytest.approx(40 * inst.optimal_value - inst.reward[played].sum())
    assert run.positive_g == pytest.approx(g[g > 0].sum()) and run.violations == int((g > 0).sum())
    assert run.cpu_per_round == pytest.approx(0.05)


CELLS = [
    *[("known", m) for m in ("CKB-UCB", "CKB-TS", "SafeOpt", "StageOpt", "CKB-UCB lam=s^2")],
    *[("ml", m) for m in ("CKB-UCB", "CKB-TS")],
]


@pytest.mark.parametrize(("setting", "label"), CELLS)
def test_our_runner_on_a_tiny_size(bench, setting, label):
    prob = bench.build_problem("gardner", 0, 30, **SIZES)
    run = bench.run_ours(prob, setting, label, 0)
    again = bench.run_ours(prob, setting, label, 0)
    assert (again.regret, again.positive_g, again.violations) == (run.regret, run.positive_g, run.violations)
    assert 0.0 <= run.regret <= 30 * np.ptp(prob.instance.reward)
    assert 0 <= run.violations <= 30 and run.positive_g >= 0.0 and run.cpu_per_round > 0.0


def test_run_all_and_the_table_without_botorch(bench):
    lines: list[str] = []
    results, notes = bench.run_all(["gardner"], 2, 20, with_botorch=False, settings=("known", "ml"),
                                   log=lines.append, **SIZES)  # fmt: skip
    assert set(results) == {("gardner", "known", m) for m in bench.OURS["known"]} | {
        ("gardner", "ml", m) for m in bench.OURS["ml"]
    }
    assert all(len(runs) == 2 for runs in results.values()) and not notes and len(lines) == 8
    md = bench.markdown(bench.table_rows(results))
    assert md.count("\n") == 2 + 8 and md.startswith("| problem | setting | method |")


def test_botorch_runner_on_a_tiny_size(bench):
    pytest.importorskip(
        "botorch", reason="BoTorch is not in the test venv (benchmarks/setup_botorch_venv.sh)"
    )
    prob = bench.build_problem("gardner", 0, 8, **SIZES)
    for setting in ("known", "ml"):
        run = bench.run_botorch(prob, setting, 0)
        assert 0 <= run.violations <= 8 and run.regret >= 0.0 and run.cpu_per_round > 0.0
