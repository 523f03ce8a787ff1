"""The shared compiled driver: its ask / tell modes (TOLD, SELECT) play the trajectory SIMULATE plays."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms._driver import SELECT, SIMULATE, TOLD, make_driver
from safebandits.problems.feedback import CompiledFeedback
from safebandits.problems.noise import observe_code


class ToyRun(NamedTuple):
    counts: np.ndarray  # pulls per arm
    sums: np.ndarray  # observed sums per arm
    arms: np.ndarray  # output: the arm of each row
    budget: np.ndarray  # one int64: selections left (0: select returns False)


@numba.njit(cache=True, inline="always")
def toy_select(run, j):
    """The arm with the highest mean-plus-bonus (the lowest index on ties); False when out of budget."""
    if run.budget[0] <= 0:
        return False
    run.budget[0] -= 1
    best, best_val = 0, -np.inf
    for a in range(run.counts.shape[0]):
        n = run.counts[a]
        val = np.inf if n == 0 else run.sums[a] / n + 1.0 / np.sqrt(n)
        if val > best_val:
            best, best_val = a, val
    run.arms[j] = best
    return True


@numba.njit(cache=True, inline="always")
def toy_update(run, j, y):
    a = run.arms[j]
    run.counts[a] += 1
    run.sums[a] += y[0]


toy_rounds = make_driver("toy_rounds", toy_select, toy_update, __name__, plays="arms")


def _run(k, rows, budget):
    return ToyRun(np.zeros(k), np.zeros(k), np.full(rows, -1, dtype=np.int64), np.array([budget]))


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(1, 6),
    n=st.integers(0, 40),
    budget=st.integers(0, 50),
    code=st.sampled_from([0, 1]),
    seed=st.integers(0, 2**32 - 1),
)
def test_told_and_select_modes_replay_simulate(k, n, budget, code, seed):
    rng = np.random.default_rng(seed)
    env = CompiledFeedback(rng.uniform(-1, 1, (k, 1)), code, 0.3)
    variates = rng.standard_normal((n, 1))
    sim = _run(k, n, budget)
    stop = toy_rounds(sim, env, variates, (0, n, SIMULATE))
    assert stop == min(n, budget)
    # ask / tell: SELECT for the first row, then TOLD with each observation (the next choice prepared)
    one = _run(k, 2, budget)
    told = np.zeros((2, 1))
    played = []
    j = toy_rounds(one, env, told, (0, 1, SELECT)) if n else 0
    while j == 1 and len(played) < n:
        arm = int(one.arms[0])
        played.append(arm)
        told[0, 0] = observe_code(code, 0.3, env.table[arm, 0], variates[len(played) - 1, 0])
        j = toy_rounds(one, env, told, (0, 2, TOLD))
        assert j in (1, 2)
        one.arms[0] = one.arms[1]  # (the prepared choice is the next round's)
        if j == 2 and len(played) == n:  # the choice prepared for a round that is not played
            one.budget[0] += 1
        j = 1 if j == 2 else 0
    assert played == sim.arms[:stop].tolist()
    np.testing.assert_array_equal(one.counts, sim.counts)
    np.testing.assert_array_equal(one.sums, sim.sums)
    assert one.budget[0] == sim.budget[0]
