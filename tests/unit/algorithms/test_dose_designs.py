"""CRM and BOIN, the dose-finding baselines (issue 45, item 3): their rules, step by step, against the
papers' formulas; the CRM posterior against numerical integration; seeded selection on easy curves."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import integrate
from scipy.stats import beta as beta_dist

from safebandits.algorithms import list_algorithms, make_learner
from safebandits.algorithms.regret.boin import boin_boundaries, isotonic_rates, select_closest
from safebandits.algorithms.regret.crm import crm_posterior, lee_cheung_skeleton
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.experiments.dose_trials import simulate_trials, true_mtd
from safebandits.problems.declare_covariate import CovariateProblem
from safebandits.types import Observation

PHI = 0.3


def _design(name: str, k: int = 6, **config):
    problem = CovariateProblem(covariates=list(range(1, k + 1)), threshold=PHI, safe_action=0)
    return make_learner(name, problem, np.random.default_rng(0), config or None)


def _cohort(learner, toxicities: int) -> int:
    """Treat one cohort of 3 with ``toxicities`` toxic outcomes; return its dose."""
    doses = set()
    for i in range(3):
        d = learner.ask()
        doses.add(d.arm)
        learner.tell(d, Observation(reward=0.0, constraints=np.array([float(i < toxicities)])))
    assert len(doses) == 1  # (one decision per cohort)
    return doses.pop()


# -- registration: no promise, hence no certificate -----------------------------------------------------
@pytest.mark.parametrize("name", ["crm", "boin"])
def test_registered_without_a_safety_promise(name: str) -> None:
    entry = list_algorithms()[name]
    assert entry.guarantee == "none" and entry.info == ("dose", "k-armed") and entry.task == "regret"
    learner = _design(name)
    learner.ask()
    assert learner.certificate() is None


# -- BOIN ---------------------------------------------------------------------------------------------
def test_boin_boundaries_match_the_published_values() -> None:
    # Liu & Yuan (2015) / the BOIN package: phi = 0.3 -> (0.236, 0.358); phi = 0.25 -> (0.197, 0.298)
    assert boin_boundaries(0.3, 0.18, 0.42) == pytest.approx((0.2364907, 0.3585195), abs=1e-6)
    assert boin_boundaries(0.25, 0.15, 0.35) == pytest.approx((0.1968, 0.2984), abs=1e-4)


@given(
    phi=st.floats(0.1, 0.5),
    n=st.integers(1, 30),
    y=st.integers(0, 30),
)
@settings(max_examples=60, deadline=None)
def test_boin_decision_follows_the_boundaries(phi: float, n: int, y: int) -> None:
    """One cohort's decision from a history at dose 2 of 6: escalate iff ``y/n <= lambda_e`` (and not
    eliminated), de-escalate iff ``>= lambda_d`` or eliminated, stay otherwise."""
    y = min(y, n)
    problem = CovariateProblem(covariates=[1, 2, 3, 4, 5, 6], threshold=phi, safe_action=0)
    learner = make_learner("boin", problem, np.random.default_rng(0))
    learner.dose, learner.n_treated[2], learner.n_toxic[2] = 2, n, y
    lam_e, lam_d = boin_boundaries(phi, 0.6 * phi, 1.4 * phi)
    eliminated = n >= 3 and beta_dist.sf(phi, 1 + y, 1 + n - y) > 0.95
    got = learner._next_dose(False)
    if eliminated:
        assert got == 1 and learner.eliminated_from == 2
    elif y / n <= lam_e:
        assert got == 3
    elif y / n >= lam_d:
        assert got == 1
    else:
        assert got == 2


def test_boin_trial_escalates_stays_deescalates_and_stops() -> None:
    boin = _design("boin")
    assert [_cohort(boin, t) for t in (0, 0, 1)] == [0, 1, 2]  # 0/3 -> up, 0/3 -> up, 1/3 = 0.33: stay
    assert boin.dose == 2
    assert _cohort(boin, 2) == 2  # 3/6 = 0.5 >= 0.358: down; P(p > 0.3 | 3/6) = 0.77: not eliminated
    assert boin.dose == 1 and boin.eliminated_from == 6
    boin = _design("boin")
    assert _cohort(boin, 3) == 0  # 3/3 at the lowest dose: P(p > 0.3) = 0.97 > 0.95: eliminated, stop
    assert boin.stopped and boin.trial_over
    rec = boin.recommend()
    assert rec.arm is None and rec.final and rec.info["stopped"]
    assert boin.ask().arm == 0  # (after the trial: the start dose)


def test_boin_follows_a_published_dose_path() -> None:
    """The worked example of Han, Pan, Zhang, Liu & Yuan (2019, p. 25; as the ``escalation`` package's
    tests quote it): five doses, target 0.3, ten cohorts of three, the dose of each next cohort."""
    boin = _design("boin", k=5)
    cohorts = [(0, 0), (1, 0), (2, 2), (1, 1), (2, 0), (2, 0), (3, 3), (2, 1), (2, 1), (2, 1)]
    expected_next = [1, 2, 1, 2, 2, 3, 2, 2, 2, 2]
    for (dose, toxicities), nxt in zip(cohorts, expected_next, strict=True):
        assert _cohort(boin, toxicities) == dose
        assert boin.dose == nxt
    assert boin.eliminated_from == 3  # (3/3 at dose 4: P(p > 0.3) > 0.95, dose 4 and above eliminated)


def test_simulated_trials_count_patients_above_the_limit() -> None:
    tox = (0.05, 0.12, 0.30, 0.45, 0.60, 0.75)
    at_target = simulate_trials("boin", tox, PHI, n_trials=30, seed=3)
    assert at_target.limit == PHI and 1.0 <= at_target.highest <= 6.0
    # the limit is the target by default: above the limit = above the MTD on a curve whose MTD is the target
    assert at_target.above_limit == pytest.approx(at_target.above_mtd)
    assert at_target.trials_above_limit == pytest.approx(at_target.trials_above)
    strict = simulate_trials("boin", tox, PHI, n_trials=30, seed=3, limit=0.01)
    assert strict.above_limit == pytest.approx(strict.length) and strict.trials_above_limit == 100.0
    with pytest.raises(ConfigError, match="limit"):
        simulate_trials("boin", tox, PHI, n_trials=1, limit=1.5)


def test_boin_selection_is_isotonic_and_closest() -> None:
    fitted = isotonic_rates(np.array([0.1, 0.4, 0.2, 0.5]), np.array([3.0, 3.0, 3.0, 3.0]))
    assert fitted == pytest.approx([0.1, 0.3, 0.3, 0.5])
    assert select_closest(np.array([0.1, 0.2, 0.2, 0.5]), 0.3) == 2  # tie below phi: the higher
    assert select_closest(np.array([0.1, 0.4, 0.4, 0.5]), 0.3) == 1  # tie above phi: the lower


def test_recommend_before_the_end_needs_anytime() -> None:
    boin = _design("boin")
    _cohort(boin, 0)
    with pytest.raises(ProtocolError, match="anytime=True"):
        boin.recommend()
    assert boin.recommend(anytime=True).final is False


# -- CRM ----------------------------------------------------------------------------------------------
def test_lee_cheung_skeleton_spacing() -> None:
    s = lee_cheung_skeleton(0.3, 6, 2, 0.05)
    assert s[2] == 0.3 and np.all(np.diff(s) > 0)
    # adjacent doses' indifference intervals meet: p_k(b) = 0.25 exactly where p_{k+1}(b) = 0.35
    for k in range(5):
        b = math.log(math.log(0.25) / math.log(s[k]))
        assert s[k + 1] ** math.exp(b) == pytest.approx(0.35)


@pytest.mark.parametrize(
    ("n", "y"), [([3, 3, 0, 0, 0, 0], [0, 1, 0, 0, 0, 0]), ([3, 6, 9, 3, 0, 0], [0, 1, 3, 2, 0, 0])]
)
def test_crm_posterior_matches_quadrature(n: list[int], y: list[int]) -> None:
    s = lee_cheung_skeleton(0.3, 6, 2, 0.05)
    nn, yy = np.array(n), np.array(y)

    def dens(a: float) -> float:
        p = s ** math.exp(a)
        return math.exp(-0.5 * a * a / 1.34) * float(np.prod(p**yy * (1 - p) ** (nn - yy)))

    z = integrate.quad(dens, -20, 20, limit=200)[0]
    mean = integrate.quad(lambda a: a * dens(a), -20, 20, limit=200)[0] / z
    cut = math.log(math.log(0.3) / math.log(s[0]))
    over = integrate.quad(dens, -20, cut, limit=200)[0] / z
    post = crm_posterior(s, nn, yy, 0.3, 1.34)
    assert post.mean == pytest.approx(mean, abs=1e-4)
    assert post.overdose[0] == pytest.approx(over, abs=1e-3)
    assert post.toxicity == pytest.approx(s ** math.exp(mean), rel=1e-3)


def test_crm_never_skips_and_is_coherent() -> None:
    crm = _design("crm")
    doses = [_cohort(crm, 0) for _ in range(4)]
    assert all(b - a <= 1 for a, b in itertools.pairwise(doses))  # no skipping
    before = crm.dose
    _cohort(crm, 1)
    assert crm.dose <= before  # coherence: no escalation right after a toxicity


def test_crm_stops_when_the_lowest_dose_is_too_toxic() -> None:
    crm = _design("crm")
    _cohort(crm, 3)
    assert crm.stopped and crm.recommend().arm is None


def test_configs_refuse_bad_values() -> None:
    with pytest.raises(ConfigError, match="skeleton"):
        _design("crm", skeleton=(0.3, 0.2, 0.4, 0.5, 0.6, 0.7))
    with pytest.raises(ConfigError, match="one value per dose"):
        _design("crm", skeleton=(0.1, 0.2))
    with pytest.raises(ConfigError, match="cohort_size"):
        _design("boin", cohort_size=0)


# -- seeded operating characteristics on an easy curve ---------------------------------------------------
@pytest.mark.parametrize("name", ["crm", "boin"])
def test_selects_a_clear_mtd_most_of_the_time(name: str) -> None:
    """MTD at dose 3 with neighbours far from 0.3 (0.05 and 0.65): both designs select it in well over
    half of 200 seeded trials (a design that ignored the data would select it in about 1 in 6)."""
    tox = (0.01, 0.05, 0.30, 0.65, 0.8, 0.9)
    assert true_mtd(np.array(tox), PHI) == 2
    oc = simulate_trials(name, tox, PHI, n_trials=200, seed=3)
    assert oc.pcs >= 70.0
    assert oc.length == 36.0 and oc.none_selected == 0.0
    assert oc.patients.sum() == pytest.approx(36.0)


def test_simulated_trials_are_a_function_of_the_seed() -> None:
    tox = (0.05, 0.12, 0.30, 0.45, 0.60, 0.75)
    one = simulate_trials("boin", tox, PHI, n_trials=40, seed=7)
    two = simulate_trials("boin", tox, PHI, n_trials=40, seed=7)
    assert one.row() == two.row()
    assert one.selection.sum() + one.none_selected == pytest.approx(100.0)
    assert 0.0 <= one.trials_above <= 100.0 and one.above_mtd <= one.length
    with pytest.raises(ConfigError, match="toxicity"):
        simulate_trials("boin", (0.1, 1.2), PHI, n_trials=1)


def test_simulated_trials_run_any_dose_learner_on_a_declaration() -> None:
    """The certified design of issue 45 reads the "dose" view: the trial runner declares the structure,
    runs the given number of patients and reads ``recommend(anytime=True)``."""
    tox = (0.05, 0.12, 0.30, 0.45, 0.60, 0.75)
    oc = simulate_trials(
        "dose-escalation",
        tox,
        PHI,
        n_trials=10,
        seed=1,
        patients=12,
        declared={"max_increase": 0.2, "monotone_cost": True},
    )
    assert oc.length == 12.0 and oc.guarantee == "round"
    with pytest.raises(ConfigError, match="patients"):
        simulate_trials("dose-escalation", tox, PHI, n_trials=1)


@pytest.mark.parametrize("name", ["crm", "boin"])
def test_designs_read_the_dose_view_and_run_on_a_dose_instance(name: str) -> None:
    """On a declaration with the dose structure (the "dose" view) the designs start at the safe dose, and
    a simulated dose instance plays them through its environment."""
    from safebandits.problems import make_instance

    problem = CovariateProblem(
        covariates=[1, 2, 3, 4, 5, 6], threshold=PHI, safe_action=0, monotone_cost=True, max_increase=0.2
    )
    assert "dose" in problem.kinds
    learner = make_learner(name, problem, np.random.default_rng(0))
    assert learner.n_doses == 6 and learner.ask().arm == 0
    inst = make_instance("dose/six-doses", scenario=1, T=36)
    info = inst.public_info()
    assert type(info).__name__ == "DoseInfo"
    learner = make_learner(name, info, np.random.default_rng(0))
    env = inst.environment(np.random.default_rng(1))
    learner.simulate(env, 36)
    assert learner.trial_over and learner.n_treated.sum() == 36
    assert learner.recommend().final


@pytest.mark.parametrize("name", ["crm", "boin"])
def test_designs_refuse_feedback_that_is_not_toxicity(name: str) -> None:
    from safebandits.exceptions import CannotStartError

    problem = CovariateProblem(covariates=[1, 2, 3], threshold=PHI, safe_action=0, feedback="gaussian")
    with pytest.raises(CannotStartError, match="Bernoulli"):
        make_learner(name, problem, np.random.default_rng(0))


# -- BOIN's package options (off by default) --------------------------------------------------------------
def _boin(target: float, k: int = 5, **config):
    problem = CovariateProblem(covariates=list(range(1, k + 1)), threshold=target, safe_action=0)
    return make_learner("boin", problem, np.random.default_rng(0), config or None)


def test_boin_early_stop_ends_the_trial_with_a_selection_when_the_rule_stays() -> None:
    """The BOIN package's ``n.earlystop``: the trial ends (a dose selected) once the current dose has that
    many patients and the rule says stay; an escalation or a de-escalation goes on."""
    boin = _boin(0.3, early_stop_patients=6)
    assert [_cohort(boin, t) for t in (0, 0)] == [0, 1]
    assert not boin.trial_over and boin.dose == 2
    _cohort(boin, 1)  # dose 3: 1/3 = 0.33, stay (3 < 6 patients)
    assert boin.dose == 2 and not boin.trial_over
    _cohort(boin, 1)  # dose 3: 2/6 = 0.33, stay with 6 patients: the trial ends
    assert boin.finished_early and boin.trial_over and not boin.stopped
    rec = boin.recommend()
    assert rec.final and rec.arm == 2 and rec.info["patients"] == [3, 3, 6, 0, 0]
    other = _boin(0.3, early_stop_patients=3)
    _cohort(other, 0)  # 0/3 with 3 patients: escalate, the trial goes on
    assert other.dose == 1 and not other.trial_over
    _cohort(other, 1)  # 1/3 at dose 2: stay with 3 patients -> end
    assert other.trial_over and other.recommend().arm == 1


def test_boin_extra_safe_stops_earlier_at_the_lowest_dose() -> None:
    # 2/3 at the lowest dose, target 0.25: P(p_1 > 0.25 | 2/3) = 0.949 (Beta(3, 2)), just below the
    # elimination cutoff 0.95 but above the extra-safe cut 0.95 - 0.05: only the extra-safe rule stops
    assert 1 - beta_dist.cdf(0.25, 3, 2) == pytest.approx(0.94922, abs=1e-5)
    for config, stops in (
        ({}, False),
        ({"extra_safe": True}, True),
        ({"extra_safe": True, "extra_safe_offset": 0.0}, False),
    ):
        boin = _boin(0.25, **config)
        _cohort(boin, 2)
        assert boin.stopped is stops and boin.trial_over is stops
        if stops:
            assert boin.recommend().arm is None
    higher = _boin(0.25, extra_safe=True)
    _cohort(higher, 0)
    _cohort(higher, 2)  # 2/3 at dose 2: the extra-safe rule reads the lowest dose only
    assert not higher.stopped and higher.dose == 0


def test_boin_one_in_three_stays_where_the_boundaries_deescalate() -> None:
    # target 0.25: lambda_d = 0.298 < 1/3, so 1 toxicity in 3 de-escalates unless the 1-in-3 rule holds
    plain, stay = _boin(0.25), _boin(0.25, stay_after_one_in_three=True)
    for boin in (plain, stay):
        _cohort(boin, 0)
        _cohort(boin, 1)
    assert plain.dose == 0 and stay.dose == 1
    _cohort(stay, 1)  # 2/6 = 0.33 >= 0.298 with 6 patients: the rule acts at 3 patients only
    assert stay.dose == 0


def test_boin_variance_weights_are_the_package_selection() -> None:
    """3, 3, 3 patients with 0, 2, 0 toxicities (target 0.3): pooled by patients the three doses' rate is
    (0.016 + 0.661 + 0.016) / 3 -> doses 2 and 3 pool at 0.339, the closest is dose 2; weighted by the
    inverse Beta(0.05, 0.05) posterior variances (the BOIN package's ``select.mtd``) the 0/3 doses dominate
    the pool (0.059), and the highest of the tie below the target, dose 3, is selected."""
    for weights, expected in (("patients", 1), ("variance", 2)):
        boin = _boin(0.3, k=3, selection_weights=weights)
        boin.n_treated[:] = 3
        boin.n_toxic[:] = (0, 2, 0)
        assert boin.recommend(anytime=True).arm == expected


def test_boin_package_options_refuse_bad_values() -> None:
    for bad in (
        {"early_stop_patients": 0},
        {"extra_safe": "yes"},
        {"extra_safe_offset": 0.6},
        {"selection_weights": "equal"},
        {"stay_after_one_in_three": 1.5},
    ):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            _boin(0.3, **bad)


def test_simulated_trials_keep_each_trial_on_request() -> None:
    tox = (0.05, 0.12, 0.30, 0.45, 0.60)
    kept = simulate_trials("boin", tox, PHI, n_trials=40, seed=5, keep_trials=True)
    plain = simulate_trials("boin", tox, PHI, n_trials=40, seed=5)
    assert plain.trial_patients is None and kept.trial_patients.shape == (40, 5)
    assert kept.trial_patients.mean(axis=0) == pytest.approx(plain.patients)
    assert kept.trial_toxicities.sum(axis=1).mean() == pytest.approx(plain.toxicities)


# -- CRM's named variants (precautionary's rules), off by default ------------------------------------------
def test_crm_trial_ending_rules_end_with_the_rules_dose_selected() -> None:
    """``stop_patients_lowest``: the trial ends once the lowest dose has that many patients, the dose the
    rule gives next selected (not a safety stop); ``stop_patients_any`` likewise on any dose."""
    crm = _design("crm", stop_cutoff=1.0, stop_patients_lowest=6)
    _cohort(crm, 1)
    assert not crm.trial_over
    _cohort(crm, 1)  # 6 patients on the lowest dose: the trial ends
    assert crm.finished_early and crm.trial_over and not crm.stopped
    rec = crm.recommend()
    assert rec.final and rec.arm == crm.dose == 0 and rec.info["patients"][0] == 6
    other = _design("crm", stop_patients_any=3)
    _cohort(other, 0)
    assert other.trial_over and other.recommend().arm == 1  # (the rule's escalation is the selection)


def test_crm_escalation_cap_counts_from_the_highest_dose_given() -> None:
    """After a de-escalation, ``"current"`` allows one dose above the current one, ``"highest_tried"`` one
    above the highest dose given so far: on the same data the latter may recommend two doses up."""
    caps = {}
    for cap in ("current", "highest_tried"):
        crm = _design("crm", escalation_cap=cap, coherence="none", stop_cutoff=1.0)
        crm.n_treated[:] = (3, 3, 3, 0, 0, 0)
        crm.n_toxic[:] = (0, 0, 0, 0, 0, 0)
        crm.dose = 0  # (the current dose is below the highest given, dose 3)
        caps[cap] = crm._rule_dose(crm.posterior(), had_toxicity=False)
    assert caps == {"current": 1, "highest_tried": 3}


def test_crm_coherence_variants() -> None:
    """``"cohort"``: no escalation right after a cohort with a toxicity; ``"dose_rate"``: none while the
    current dose's observed rate exceeds the target (1/6 < 0.3 does not bind); ``"none"``: the rule's dose."""
    rules = {}
    for coherence in ("cohort", "dose_rate", "none"):
        crm = _design("crm", coherence=coherence, stop_cutoff=1.0)
        crm.n_treated[:] = (3, 6, 0, 0, 0, 0)
        crm.n_toxic[:] = (0, 1, 0, 0, 0, 0)
        crm.dose = 1
        rules[coherence] = crm._rule_dose(crm.posterior(), had_toxicity=True)
    assert rules == {"cohort": 1, "dose_rate": 2, "none": 2}
    crm = _design("crm", coherence="dose_rate")
    crm.n_treated[:] = (3, 3, 0, 0, 0, 0)
    crm.n_toxic[:] = (0, 1, 0, 0, 0, 0)  # 1/3 > 0.3: no escalation
    crm.dose = 1
    assert crm._rule_dose(crm.posterior(), had_toxicity=False) <= 1


@settings(max_examples=25, deadline=None)
@given(
    cap=st.sampled_from(["current", "highest_tried"]),
    coherence=st.sampled_from(["cohort", "dose_rate", "none"]),
    outcomes=st.lists(st.integers(0, 3), min_size=1, max_size=10),
)
def test_crm_never_escalates_past_its_cap(cap: str, coherence: str, outcomes: list[int]) -> None:
    """Whatever the toxicities, each cohort's dose is at most one above the cap's reference dose (the
    previous one, or the highest given before it)."""
    crm = _design("crm", escalation_cap=cap, coherence=coherence, max_patients=60)
    highest = -1
    previous = None
    for t in outcomes:
        if crm.trial_over:
            break
        dose = _cohort(crm, t)
        if previous is not None:
            assert dose <= (previous if cap == "current" else highest) + 1
        highest, previous = max(highest, dose), dose


def test_crm_variant_options_refuse_bad_values() -> None:
    for bad in (
        {"escalation_cap": "global"},
        {"coherence": "strict"},
        {"stop_patients_any": 0},
        {"stop_patients_lowest": -1},
    ):
        with pytest.raises(ConfigError, match=next(iter(bad))):
            _design("crm", **bad)
