"""The one simulate loop (BaseLearner.simulate) over every learner with compiled rounds: a run played in
many short calls is the run played in one call, row for row, including calls that start exactly when a
buffer of learner random numbers has run out (the driver then stops at once, and the loop must refill
and resume rather than stop or spin: Safe-LUCB's exploration buffer of 1,024 actions)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from safebandits.problems import make_instance
from tests.contract.test_learners import ENTRIES, NAMES, build

COMPILED = [n for n in NAMES if ENTRIES[n].task == "regret" and build(n)[1]._sim_plays()]
ROUNDS = 2_600  # (past two refills of a 1,024-row buffer)


@pytest.mark.parametrize("name", COMPILED)
def test_many_short_simulate_calls_play_the_one_call_run(name):
    _, whole, env = build(name, env_seed=5, learner_seed=6)
    _, parts, env2 = build(name, env_seed=5, learner_seed=6)
    _same_in_pieces(whole, env, parts, env2)


def test_safe_lucb_exploring_across_buffer_ends_in_pieces():
    """Safe-LUCB explores for ``t_prime`` rounds from a buffer of 1,024 drawn actions: with a long
    exploration, calls of one round start exactly when the buffer is spent (its driver stops at once;
    a loop that did not refill then would stop at that row for ever)."""
    entry = ENTRIES["safe-lucb"]
    inst = make_instance("safelucb/karm", np.random.default_rng(11), T=ROUNDS)
    pair = []
    for _ in range(2):
        learner = entry.cls(entry.config(t_prime=ROUNDS), inst.public_info(), np.random.default_rng(6))
        pair += [learner, inst.environment(np.random.default_rng(5))]
    _same_in_pieces(*pair, sizes=(1,))  # (calls of one round: one starts where the buffer ends)
    assert int(pair[0].live["drawn"]) == 1024  # (the buffer was refilled: its ends were met)


def _same_in_pieces(whole, env, parts, env2, sizes=(1, 1, 2, 3, 1, 5, 8, 1, 13)):
    one = whole.simulate(env, ROUNDS)
    points, sizes = [], itertools.cycle(sizes)
    played = 0
    while played < ROUNDS:
        k = min(next(sizes), ROUNDS - played)
        points.append(parts.simulate(env2, k).points)
        played += k
    np.testing.assert_array_equal(np.vstack(points), one.points)
    assert parts.n_samples == whole.n_samples == ROUNDS == env2.n_samples


def test_a_pure_exploration_budget_in_steps_is_the_budget_at_once():
    _, whole, env = build("g-acol-uniform", env_seed=5, learner_seed=6)
    whole.simulate(env, 30_000)
    _, parts, env2 = build("g-acol-uniform", env_seed=5, learner_seed=6)
    for budget in range(1_000, 30_001, 1_000):
        parts.simulate(env2, budget)
    assert parts.n_samples == whole.n_samples == env2.n_samples
    assert parts.done == whole.done
    assert parts.recommend(anytime=True).arm == whole.recommend(anytime=True).arm
