"""The conservative constraint recorded under the truth (issue 44): run_regret's margin, violating rounds
(at the checkpoints only) and curve agree with a direct computation from the played arms."""

from __future__ import annotations

import numpy as np
import pytest

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
