"""The conservative constraint recorded under the truth (issue 44): run_regret's margin, violating rounds
(at the checkpoints only) and curve agree with a direct computation from the played arms."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.algorithms.registry import make_learner
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems.conservative import ConservativeInstance, conservative_margins


class Recorder:
    """A learner wrapper that keeps the arms played (through ask / tell)."""

    def __init__(self, learner):
        self.learner, self.arms = learner, []
        self.setting = "round"

    def ask(self, context=None):
        d = self.learner.ask(context)
        self.arms.append(d.arm)
        return d

    def tell(self, decision, observation):
        self.learner.tell(decision, observation)


@pytest.mark.parametrize("checkpoint", [1, 7])
def test_margins_and_violations_as_computed_directly(checkpoint):
    inst = ConservativeInstance(means=[0.9, 0.1, 0.4], alpha=0.1, checkpoint=checkpoint, horizon=600)
    rec = Recorder(make_learner("ucb", inst.public_info(), np.random.default_rng(0)))
    out = run_regret(rec, inst.environment(np.random.default_rng(1)), inst, compiled=False, n_points=20)
    margins = conservative_margins(inst.means[rec.arms], inst.constraint)
    t = np.arange(1, 601)
    verified = margins[t % checkpoint == 0]
    cons = out.conservative
    assert cons["violations"] == int(np.sum(verified < -1e-9)) > 0
    assert cons["min_margin"] == pytest.approx(verified.min())
    assert cons["margin"] == pytest.approx(margins[-1])
    first = t[(t % checkpoint == 0) & (margins < -1e-9)][0]
    assert cons["first_violation"] == first
    grid = out.curves["t"]
    np.testing.assert_allclose(cons["curve"], margins[grid - 1])


def test_compiled_run_records_the_same():
    inst = ConservativeInstance(means=[0.5, 0.6, 0.4], alpha=0.05, horizon=5000)
    outs = []
    for compiled in (True, False):
        learner = make_learner("conservative-ucb", inst.public_info(), np.random.default_rng(0))
        outs.append(run_regret(learner, inst.environment(np.random.default_rng(3)), inst, compiled=compiled))
    a, b = (o.conservative for o in outs)
    assert a["violations"] == b["violations"] == 0
    assert a["min_margin"] == b["min_margin"] and a["min_margin"] >= 0.0


def test_other_problems_record_nothing():
    from safebandits.problems import make_instance

    inst = make_instance("stagewise/four-arm", tau=0.3, T=50)
    learner = make_learner("opb", inst.public_info(), np.random.default_rng(0))
    out = run_regret(learner, inst.environment(np.random.default_rng(0)), inst)
    assert out.conservative == {}


@pytest.mark.parametrize("checkpoint", [1, 5])
def test_contextual_record_as_computed_directly(checkpoint):
    """The runner's contextual scoring (contextual_regret): regret against each context's best action and
    the margin against the baseline policy's mean of each round, from the rounds replayed directly."""
    from safebandits.experiments.conservative_linear import contextual_regret
    from safebandits.problems.conservative_linear import ConservativeLinearInstance

    inst = ConservativeLinearInstance(
        theta=np.array([0.2, 0.9, 0.5]), n_actions=5, alpha=0.01, baseline_param=np.array([0.2, 0.9, 0.5]),
        checkpoint=checkpoint, horizon=400,
    )  # fmt: skip
    out = contextual_regret(
        make_learner("linucb", inst.public_info(), np.random.default_rng(0)),
        inst.environment(np.random.default_rng(1)), inst, n_points=20,
    )  # fmt: skip
    env, learner = (
        inst.environment(np.random.default_rng(1)),
        make_learner("linucb", inst.public_info(), np.random.default_rng(0)),
    )
    played, base, best = [], [], []
    for _ in range(400):
        ctx = env.context()
        d = learner.ask(ctx)
        learner.tell(d, env.play(d))
        means = ctx.arms @ inst.theta
        played.append(means[d.arm]), base.append(means[ctx.baseline]), best.append(means.max())
    assert out.regret == pytest.approx(float(np.sum(np.array(best) - np.array(played))), rel=1e-12)
    margins = np.cumsum(np.array(played) - 0.99 * np.array(base))
    verified = margins[np.arange(1, 401) % checkpoint == 0]
    assert out.conservative["violations"] == int(np.sum(verified < -1e-9)) > 0  # (an optimal baseline)
    assert out.conservative["min_margin"] == pytest.approx(verified.min())
    assert out.curves["t"][-1] == 400 and out.curves["conservative_margin"][-1] == pytest.approx(margins[-1])


@settings(max_examples=60, deadline=None)
@given(
    blocks=st.lists(st.integers(1, 40), min_size=1, max_size=8),
    checkpoint=st.integers(1, 9),
    seed=st.integers(0, 2**31),
)
def test_tracker_in_any_blocks_is_the_direct_record(blocks, checkpoint, seed):
    """:class:`ConservativeTracker` fed rounds in any blocks records what the rounds' margins give
    directly: the verified rounds (every ``checkpoint``-th) below ``-TOL``, the first, the smallest verified
    margin, and the margins at the grid's rounds (bit for bit: the same additions)."""
    from safebandits.problems.conservative import TOL, ConservativeConstraint, ConservativeTracker
    from safebandits.records import log_grid

    rng = np.random.default_rng(seed)
    n = sum(blocks)
    played, base = rng.random(n), rng.random(n)
    constraint = ConservativeConstraint(0.1, checkpoint)
    grid = log_grid(n, 15)
    tracker, t0, margins = ConservativeTracker(constraint, grid), 0, []
    for k in blocks:
        tracker.update(played[t0 : t0 + k], t0, baseline=base[t0 : t0 + k])
        carried = margins[-1][-1] if margins else 0.0
        margins.append(conservative_margins(played[t0 : t0 + k], constraint, carried=carried,
                                            baseline=base[t0 : t0 + k]))  # fmt: skip
        t0 += k
    m = np.concatenate(margins)
    t = np.arange(1, n + 1)
    verified = t % checkpoint == 0
    bad = verified & (m < -TOL)
    rec = tracker.summary()
    assert rec["violations"] == int(bad.sum())
    assert rec["first_violation"] == (int(t[bad][0]) if bad.any() else 0)
    if verified.any():
        assert rec["min_margin"] == m[verified].min()
    assert rec["margin"] == m[-1]
    assert rec["curve"].tolist() == m[np.isin(t, grid)].tolist()
