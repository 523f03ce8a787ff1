"""The regret loop and its tracker against brute-force per-round bookkeeping."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.experiments.regret_loop import PlayedBlock, RegretTracker, log_grid, run_regret
from safebandits.types import Decision


class RandomPolicyLearner:
    """Plays a random policy over the arms of a K-armed problem (test double, not registered)."""

    setting = "expectation"

    def __init__(self, k, rng):
        self.k, self.rng, self.log = k, rng, []

    def ask(self, context=None):
        p = self.rng.dirichlet(np.ones(self.k))
        arm = int(self.rng.choice(self.k, p=p))
        return Decision(arm=arm, probs=p)

    def tell(self, decision, observation):
        self.log.append((decision.arm, decision.probs, observation))


class ScaledRayLearner:
    """Plays a random point on a random ray (per-round setting)."""

    setting = "round"

    def __init__(self, arms, rng):
        self.arms, self.rng = arms, rng

    def ask(self, context=None):
        i = int(self.rng.integers(self.arms.shape[0]))
        return Decision(arm=i, point=self.rng.uniform() * self.arms[i])

    def tell(self, decision, observation):
        pass


def test_log_grid():
    g = log_grid(10**6, 50)
    assert g[0] == 1 and g[-1] == 10**6 and np.all(np.diff(g) > 0)
    assert log_grid(7, 200).tolist() == [1, 2, 3, 4, 5, 6, 7]


def test_policy_regret_and_violations_match_brute_force():
    inst = sb.make_instance("stagewise/four-arm", tau=0.3, T=5000)
    learner = RandomPolicyLearner(4, np.random.default_rng(1))
    out = run_regret(learner, inst.environment(np.random.default_rng(2)), inst)
    probs = np.array([p for _, p, _ in learner.log])
    arms = np.array([a for a, _, _ in learner.log])
    r, c = inst.arm_rewards, inst.arm_costs[:, 0]
    assert out.rounds == 5000 and out.stopped
    assert out.regret == pytest.approx(np.sum(inst.optimal_policy_value - probs @ r))
    assert out.policy_regret == out.regret
    assert out.action_regret == pytest.approx(np.sum(inst.optimal_value - r[arms]))
    assert out.policy_violations == int(np.sum(probs @ c > 0.3 + 1e-9))
    assert out.violations == int(np.sum(c[arms] > 0.3 + 1e-9))
    assert out.reward == pytest.approx(r[arms].mean())
    assert out.cost[0] == pytest.approx(c[arms].mean())
    assert out.max_policy_cost[0] == pytest.approx((probs @ c).max())
    tenth = 500
    assert out.regret_tenth == pytest.approx(np.sum(inst.optimal_policy_value - probs[:tenth] @ r))
    assert out.tail_reward == pytest.approx((probs[-500:] @ r).mean())
    # Curves: cumulative regret at the grid points; window means of the policy cost.
    t = np.array(out.curves["t"])
    cum = np.cumsum(inst.optimal_policy_value - probs @ r)
    np.testing.assert_allclose(out.curves["policy_regret"], cum[t - 1])
    pc = probs @ c
    starts = np.concatenate([[0], t[:-1]])
    want = [pc[s:e].mean() for s, e in zip(starts, t)]
    np.testing.assert_allclose(np.array(out.curves["policy_cost"])[:, 0], want)


def test_per_round_regret_on_rays_and_budget():
    inst = sb.make_instance("stagewise/cyclic", d=5, tau=0.5, T=9000)
    rng = np.random.default_rng(4)
    learner = ScaledRayLearner(inst.arms, np.random.default_rng(4))
    # Replay the learner's draws to get the points it plays.
    pts = []
    for _ in range(6000):
        i = int(rng.integers(inst.arms.shape[0]))
        pts.append(rng.uniform() * inst.arms[i])
    pts = np.array(pts)
    out = run_regret(learner, inst.environment(np.random.default_rng(0)), inst, budget=6000)
    assert out.rounds == 6000 and not out.stopped
    assert out.regret == pytest.approx(np.sum(inst.optimal_value - pts @ inst.reward_param))
    assert out.violations == int(np.sum(pts @ inst.cost_params[0] > 0.5 + 1e-9))


def test_tracker_blocks_split_anywhere():
    inst = sb.make_instance("stagewise/cyclic", d=3, tau=0.5, T=1000)
    rng = np.random.default_rng(0)
    pts = rng.uniform(size=(1000, 1)) * inst.arms[rng.integers(3, size=1000)]
    one = RegretTracker(inst, 1000)
    one.update(PlayedBlock(pts))
    many = RegretTracker(inst, 1000)
    for chunk in np.array_split(pts, [1, 7, 300, 301, 999]):
        many.update(PlayedBlock(chunk))
    for key in ("regret", "policy_regret", "violations", "regret_tenth", "tail_reward"):
        assert many.totals[key] == pytest.approx(one.totals[key])
    np.testing.assert_allclose(np.array(many.curves["cost"]), np.array(one.curves["cost"]))
    np.testing.assert_allclose(many.curves["regret"], one.curves["regret"])


def test_policy_regret_tenth_is_the_stronger_regret_at_a_tenth():
    """R+(t) - R(t) = t (V(pi*) - f(x*)) on any trajectory; here pi* mixes the two points half-half."""
    from safebandits.algorithms import make_learner
    from safebandits.experiments.runner import REGRET_METRICS
    from safebandits.problems.kernel import KernelInstance

    inst = KernelInstance(
        reward=np.array([1.0, 0.5]), constraint=np.array([0.5, -0.5]), kernel=np.eye(2), horizon=200
    )
    assert inst.optimal_policy_value == pytest.approx(0.75)
    learner = make_learner("ckb-ucb", inst.public_info(), np.random.default_rng(0))
    out = run_regret(learner, inst.environment(np.random.default_rng(1)), inst)
    assert out.policy_regret_tenth - out.regret_tenth == pytest.approx(20 * 0.25)
    assert out.policy_regret - out.regret == pytest.approx(200 * 0.25)
    assert "policy_regret_tenth" in REGRET_METRICS


@pytest.mark.parametrize("setting", ["round", "expectation"])
def test_optimism_counts_rounds_below_the_optimal_true_value(setting):
    """A round fails the optimism check when its value is below the setting's optimum; NaN rounds (warm
    start) are not counted, in blocks split anywhere."""
    inst = sb.make_instance("stagewise/four-arm", tau=0.3, T=100)
    opt = inst.optimal_policy_value if setting == "expectation" else inst.optimal_value
    pts = np.tile(inst.arms[0], (100, 1))
    values = np.full(100, opt + 0.5)
    values[:4] = np.nan  # warm start
    values[[10, 57, 58]] = opt - 1e-3
    values[20] = opt - 1e-12  # within TOL: not a failure
    one = RegretTracker(inst, 100, setting=setting)
    one.update(PlayedBlock(pts, values=values))
    many = RegretTracker(inst, 100, setting=setting)
    for p, v in zip(np.array_split(pts, [3, 11, 58]), np.array_split(values, [3, 11, 58])):
        many.update(PlayedBlock(p, values=v))
    for tr in (one, many):
        assert tr.totals["optimism_rounds"] == 96
        assert tr.totals["optimism_failures"] == 3
        assert tr.totals["optimism_last_failure"] == 59
        assert tr.totals["optimism_min_margin"] == pytest.approx(-1e-3)
    none = RegretTracker(inst, 100, setting=setting)
    none.update(PlayedBlock(pts))
    assert none.totals["optimism_rounds"] == 0


def test_learners_without_values_report_no_optimism():
    inst = sb.make_instance("stagewise/four-arm", tau=0.3, T=50)
    out = run_regret(
        RandomPolicyLearner(4, np.random.default_rng(1)), inst.environment(np.random.default_rng(2)), inst
    )
    assert out.optimism == {}


@pytest.mark.parametrize(("name", "alpha_r", "fails"), [("lc-lucb", None, False), ("lc-lucb", 1.0, True),
                                                        ("oplb", None, False)])  # fmt: skip
def test_optimism_of_stagewise_learners_compiled_equals_ask_tell(name, alpha_r, fails):
    """LC-LUCB / OPLB report V~r of their choice; the compiled loop and ask / tell give the same counts.
    On the cyclic instance (x0 = 0, tau = 0.2) the first round's best value is about tau * alpha_r, below
    the optimum 0.306 when alpha_r = 1 (the ablation) and above it with the theory alpha_r = 1 + 2 / tau."""
    from safebandits.algorithms import make_learner

    inst = sb.make_instance("stagewise/cyclic", d=10, tau=0.2, T=300, sigma=0.1)
    outs = []
    for compiled in (True, False):
        params = {} if alpha_r is None else {"alpha_r": alpha_r}
        learner = make_learner(name, inst.public_info(), np.random.default_rng(3), params)
        outs.append(run_regret(learner, inst.environment(np.random.default_rng(5)), inst, compiled=compiled))
    fast, slow = outs
    assert fast.optimism["rounds"] == 300
    assert fast.optimism == pytest.approx(slow.optimism)
    assert (fast.optimism["failures"] > 0) is fails
    if fails:
        assert fast.optimism["min_margin"] < 0


@settings(max_examples=40, deadline=None)
@given(
    margins=st.lists(
        st.one_of(st.floats(-1.0, 1.0, allow_nan=False), st.just(float("nan"))), min_size=1, max_size=60
    ),
    cuts=st.lists(st.integers(0, 60), max_size=4),
)
def test_optimism_count_is_brute_force_under_any_split(margins, cuts):
    inst = sb.make_instance("stagewise/cyclic", d=3, tau=0.5, T=60)
    values = inst.optimal_value + np.array(margins)
    n = values.size
    pts = np.zeros((n, 3))
    tr = RegretTracker(inst, n)
    for p, v in zip(
        np.array_split(pts, sorted(c % n for c in cuts)), np.array_split(values, sorted(c % n for c in cuts))
    ):
        tr.update(PlayedBlock(p, values=v))
    m = np.array(margins)
    bad = np.flatnonzero(np.nan_to_num(m, nan=1.0) < -1e-9)
    assert tr.totals["optimism_failures"] == bad.size
    assert tr.totals["optimism_rounds"] == int(np.isfinite(m).sum())
    assert tr.totals["optimism_last_failure"] == (int(bad[-1]) + 1 if bad.size else 0)


# --------------------------------------------------------------------------------------------------
# the compiled scoring (score_block) against the numpy tracker it replaced, bit for bit
# --------------------------------------------------------------------------------------------------
def _assert_same_scores(new, ref):
    from math import isnan

    tn, tr = new.totals, ref.totals
    assert tn.keys() == tr.keys()
    for key, want in tr.items():
        got = tn[key]
        if isinstance(want, np.ndarray):
            np.testing.assert_array_equal(got, want, err_msg=key)
            assert np.signbit(got).tolist() == np.signbit(want).tolist(), key
        else:
            assert type(got) is type(want), key
            assert got == want or (isnan(got) and isnan(want)), (key, got, want)
    cn, cr = new.curves, ref.curves
    assert list(cn) == list(cr)  # (the order too: it is the stored JSON's)
    for key in cr:
        assert repr(cn[key].tolist()) == repr(cr[key]), (
            key
        )  # (same numbers, signed zeros and types: ints stay ints)


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    horizon=st.integers(1, 400),
    n_points=st.integers(2, 120),
    kind=st.sampled_from(["round", "policy", "means", "values"]),
    n_cuts=st.integers(0, 6),
    zeros=st.booleans(),
)
def test_compiled_scoring_equals_the_numpy_tracker(seed, horizon, n_points, kind, n_cuts, zeros):
    """Totals and curves of :class:`RegretTracker` (compiled :func:`score_block`) equal those of the numpy
    tracker it replaced (tests/unit/experiments/reference_tracker.py), bit for bit, for blocks cut
    anywhere, per-round and policy learners, several constraints, signed zeros and warm-start NaNs."""
    from tests.unit.experiments.reference_tracker import ReferenceTracker

    rng = np.random.default_rng(seed)
    inst = sb.make_instance("stagewise/random-linear", rng, d=3, n_arms=5, n_constraints=3, T=horizon)
    arms = inst.arms
    pts = rng.uniform(size=(horizon, 1)) * arms[rng.integers(arms.shape[0], size=horizon)]
    if zeros:  # the zero action: costs of -0.0 and 0.0 (numpy.maximum's and max's signed zeros)
        pts[rng.random(horizon) < 0.3] = -0.0
    fields = {}
    if kind == "policy":
        fields["probs"] = rng.dirichlet(np.ones(arms.shape[0]), size=horizon)
    elif kind == "means":
        fields["means"] = rng.uniform(size=(horizon, 1)) * arms[rng.integers(arms.shape[0], size=horizon)]
    elif kind == "values":
        vals = inst.optimal_value + rng.normal(scale=0.01, size=horizon)
        vals[rng.random(horizon) < 0.1] = inst.optimal_value  # margins of exactly 0
        vals[rng.random(horizon) < 0.05] = np.inf  # (not finite: skipped, as NaN)
        vals[: rng.integers(0, 5)] = np.nan
        fields["values"] = vals
    setting = "expectation" if kind in ("policy", "means") else "round"
    cuts = np.sort(rng.integers(0, horizon + 1, size=n_cuts))
    new = RegretTracker(inst, horizon, n_points, setting)
    ref = ReferenceTracker(inst, horizon, n_points, setting)
    for rows in np.split(np.arange(horizon), cuts):
        block = PlayedBlock(pts[rows], **{k: v[rows] for k, v in fields.items()})
        new.update(block)
        ref.update(block)
    _assert_same_scores(new, ref)


def test_curves_are_fresh_read_only_arrays_stored_as_their_lists():
    inst = sb.make_instance("stagewise/cyclic", d=3, tau=0.5, T=500)
    rng = np.random.default_rng(1)
    pts = rng.uniform(size=(500, 1)) * inst.arms[rng.integers(3, size=500)]
    trk = RegretTracker(inst, 500, n_points=40)
    trk.update(PlayedBlock(pts[:200]))
    mid = trk.curves
    trk.update(PlayedBlock(pts[200:]))
    end = trk.curves
    m, g = inst.cost_params.shape[0], end["t"].shape[0]
    assert list(end) == ["t", "regret", "policy_regret", "reward", "cost", "policy_cost", "policy_cost_now",
                         "positive_cost", "violations"]  # fmt: skip
    assert mid["t"].shape[0] < g  # (the first call saw fewer grid points; its arrays did not grow)
    for name, a in end.items():
        assert isinstance(a, np.ndarray) and not a.flags.writeable, name
        want = (g, m) if name in ("cost", "policy_cost", "policy_cost_now", "positive_cost") else (g,)
        assert a.shape == want, name
        assert a.dtype == (np.int64 if name in ("t", "violations") else np.float64), name
        with pytest.raises(ValueError):
            a[...] = 0
    assert not np.shares_memory(trk.curves["regret"], end["regret"])  # (a fresh copy on each access)
    # The results store keeps the lists: ints stay ints.
    from safebandits.experiments.execute import _json_safe

    stored = _json_safe(end)
    assert stored == {k: v.tolist() for k, v in end.items()}
    assert all(type(t) is int for t in stored["t"]) and all(type(v) is int for v in stored["violations"])
