"""The dose-escalation learner (issue 45, items 2, 4 and 5): no patient above the limit across seeded
replicates, the step-bound certification's coverage simulated at the boundary, the watcher's flag on a
wrong step declaration, the patients before its first escalation, and the example file escalating."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy.stats import binom

import safebandits as sb
from safebandits.algorithms.learning import leave_estimate
from safebandits.estimators.bounded import samples_until_below, upper_bound
from safebandits.experiments.regret_loop import run_regret
from safebandits.problems.declare_covariate import CovariateProblem

EFFICACY = [0.10, 0.20, 0.30, 0.40, 0.50, 0.60]


def _problem(tox, step, horizon, *, safe_cost=None, monotone=True, threshold=0.30):
    k = len(tox)
    p = CovariateProblem(
        covariates=list(range(10, 10 * k + 1, 10)), threshold=threshold, safe_action=0,
        monotone_cost=monotone, max_increase=step, safe_cost=safe_cost, horizon=horizon,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return p.simulate(efficacy=EFFICACY[:k], toxicity=list(tox))


def _play(sim, seed, horizon, options=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        inst = sb.instance_for(sim, "dose-escalation", horizon=horizon)
    learner = sb.make_learner(
        "dose-escalation", inst.public_info(), np.random.default_rng(seed), options or {}
    )
    out = run_regret(learner, inst.environment(np.random.default_rng(1000 + seed)), inst)
    return learner, out


# A curve the design climbs on (steps 0.05, 0.07, 0.10, 0.13, 0.15 <= the declared 0.15; limit 0.30).
CLIMBABLE = (0.0, 0.05, 0.12, 0.22, 0.35, 0.50)


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"bound": "clopper-pearson", "cohort_size": 1},
        {"bound": "kl", "skip_doses": True},
        {"choose": "efficacy"},
    ],
)
def test_no_patient_above_the_limit_across_seeded_replicates(options):
    sim = _problem(CLIMBABLE, 0.15, 400)
    reached, total = [], 0
    for seed in range(8):
        learner, out = _play(sim, seed, 400, options)
        assert out.rounds == 400
        total += out.violations
        reached.append(learner.highest_given)
        rec = learner.recommend(anytime=True)
        assert rec.arm is not None and CLIMBABLE[rec.arm] <= 0.30
    assert total == 0
    assert max(reached) >= 2  # (the runs escalate: the check is not vacuous)


def test_example_file_escalates_within_200_patients_with_no_patient_above_the_limit():
    """The acceptance of issue 45 on examples/dose_finding.toml's declaration (its max_increase 0.2 per
    10 mg step, the known safe cost 0.05): 20 mg is certified at once, 30 mg never (its step needs the
    20 mg bound below 0.10, the truth's rate); without the known safe cost, see the decisions page."""
    sim = _problem((0.05, 0.10, 0.20, 0.35, 0.55), 0.2, 200, safe_cost=0.05)
    for seed in range(20):
        learner, out = _play(sim, seed, 200)
        assert out.violations == 0 and learner.highest_given == 1 and learner.mtd() == 1


def test_step_bound_certification_covers_at_the_boundary():
    """Truth at the boundary of the declaration: c_1 = c_0 + m exactly, just above the limit. Dose 1 is
    certified iff some anytime upper bound of dose 0 falls to tau - m < c_0: a coverage failure of the
    bound. Over 1,000 simulated sequences of 300 patients the frequency stays within delta (binomial
    margin), for every bound, at a delta large enough that a failing bound would show (0.2)."""
    delta, m, tau, n, reps, k = 0.2, 0.2, 0.30, 300, 1000, 5
    c0 = tau + 0.01 - m
    rng = np.random.default_rng(45)
    sums = np.cumsum(rng.random((reps, n)) < c0, axis=1).astype(float)
    counts = np.arange(1, n + 1, dtype=float)[None, :]
    allowed = binom.ppf(0.999, reps, delta)
    for bound in ("beta-mixture", "clopper-pearson", "kl", "sub-gaussian"):
        side = delta if bound == "beta-mixture" else delta / 2
        kw = {"n_actions": k} if bound == "beta-mixture" else {"n_actions": k, "horizon": n}
        ucb = upper_bound(bound, sums, np.broadcast_to(counts, sums.shape), side, **kw)
        certified = (np.min(ucb, axis=1) + m <= tau + 1e-12).sum()
        assert certified <= allowed, (bound, certified, allowed)
    # Control: the exact bound at a fixed count read at every count (no union) certifies far more often.
    ucb = upper_bound(
        "clopper-pearson", sums, np.broadcast_to(counts, sums.shape), delta, n_actions=1, horizon=1
    )
    assert (np.min(ucb, axis=1) + m <= tau + 1e-12).sum() > binom.ppf(0.999, reps, delta)
    # The learner's own rule on the same kind of sequences: the same decisions.
    sim = _problem((c0, c0 + m, 0.9, 0.95, 1.0), m, n)
    for seed in range(3):
        learner, _ = _play(sim, seed, n, {"delta": delta, "cohort_size": 1})
        ucb = upper_bound("beta-mixture", learner.tox_sums[0], learner.counts[0], delta, n_actions=k)
        assert learner.safe[1] == (learner.data_upper[0] + m <= tau + 1e-12)
        assert learner.data_upper[0] <= ucb + 1e-12


def test_a_step_above_the_declared_one_raises_the_watchers_flag():
    """A wrong declaration (true step 0.55 from 10 to 20 mg, declared 0.10): 20 mg is certified from the
    known safe cost, patients get it, and the data contradict the step: the run is flagged."""
    sim = _problem((0.05, 0.60, 0.70, 0.80, 0.90), 0.10, 300, safe_cost=0.05)
    flagged = 0
    for seed in range(5):
        learner, out = _play(sim, seed, 300)
        assert out.violations > 0  # (the guarantee does not hold for this truth: the flag is the signal)
        assert out.assumption and "max_increase" in out.assumption["what"]
        flagged += 1
        assert learner.data_lower[1] > 0.30
    assert flagged == 5
    # The declaration check names it before any run.
    assert any("max_increase" in t for t in sim.problem.check_assumptions(sim.truth))


def test_a_fall_contradicts_monotone_toxicity():
    sim = _problem((0.05, 0.10, 0.20, 0.35, 0.55), 0.2, 300, safe_cost=0.05)
    learner, _ = _play(sim, 0, 3)
    learner.data_lower[2], learner.data_upper[3] = 0.5, 0.2
    assert any("a fall" in t for t in learner.assumption_contradictions())


def test_early_stop_when_the_lowest_dose_is_certified_above_the_limit():
    sim = _problem((0.05, 0.10, 0.20, 0.35, 0.55), 0.2, 300)
    inst = sb.instance_for(sim, "dose-escalation")
    learner = sb.make_learner("dose-escalation", inst.public_info(), np.random.default_rng(0))
    for _ in range(60):  # (toxicity in every patient: the data contradict the declared safe dose)
        d = learner.ask()
        learner.tell(d, sb.Observation(reward=0.0, constraints=np.array([1.0])))
    assert learner.stopped and learner.mtd() is None and learner.recommend(anytime=True).arm is None
    assert any("safe dose" in t for t in learner.assumption_contradictions())


@pytest.mark.parametrize("bound", ["beta-mixture", "clopper-pearson", "kl"])
def test_patients_before_the_first_escalation(bound):
    sim = _problem((0.05, 0.10, 0.20, 0.35, 0.55), 0.2, 2000)
    est = leave_estimate(sim.problem, "dose-escalation", {"bound": bound})
    side = 0.05 if bound == "beta-mixture" else 0.025
    kw = {"n_actions": 5} if bound == "beta-mixture" else {"n_actions": 5, "horizon": 2000}
    n = samples_until_below(bound, 0.0, 0.10, side, **kw)
    assert est.rounds == math.ceil(n / 3) * 3 and "lower bound" in est.reason
    known = _problem((0.05, 0.10, 0.20, 0.35, 0.55), 0.2, 2000, safe_cost=0.05)
    assert leave_estimate(known.problem, "dose-escalation").rounds == 0
    never = _problem((0.05, 0.30, 0.40, 0.45, 0.55), 0.26, 2000, safe_cost=0.05)
    est = leave_estimate(never.problem, "dose-escalation")
    assert math.isinf(est.rounds)


def test_patients_before_escalation_match_a_run_on_the_typical_path():
    """On a path with no toxicity at the safe dose, the learner escalates after the estimated patients."""
    sim = _problem((0.0, 0.10, 0.20, 0.35, 0.55), 0.2, 300)
    est = leave_estimate(sim.problem, "dose-escalation", horizon=300)
    learner, _ = _play(sim, 0, 300)
    first = int(learner.counts[0])
    assert learner.highest_given >= 1 and first == est.rounds


@pytest.mark.parametrize("bound", ["beta-mixture", "clopper-pearson", "kl", "sub-gaussian"])
def test_the_interval_is_the_estimators_bound(bound):
    from safebandits.estimators.bounded import lower_bound

    sim = _problem(CLIMBABLE, 0.15, 400)
    learner, _ = _play(sim, 0, 1, {"bound": bound})
    side = 0.05 if bound == "beta-mixture" else 0.025
    kw = {"n_actions": 6} if bound == "beta-mixture" else {"n_actions": 6, "horizon": learner.horizon}
    for s, n in [(0, 1), (3, 40), (40, 40), (7, 300)]:
        learner.tox_sums[0], learner.counts[0] = s, n
        lo, up = learner._interval(0)
        assert lo == pytest.approx(lower_bound(bound, s, n, side, **kw), abs=1e-12)
        assert up == pytest.approx(upper_bound(bound, s, n, side, **kw), abs=1e-12)
