"""Safe-LUCB claims (issue 17): Figure 1a read over random draws, the Theorem 2 / 3 slope readings, and the
experiments that feed them at a tiny scale."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.exceptions import ConfigError
from safebandits.experiments.claims import check_claims
from safebandits.experiments.claims_coverage import unevaluated_items
from safebandits.experiments.claims_meta import claim_metadata
from safebandits.papers.safe_lucb.claims import (
    ALL_DRAWS_KEY,
    CONDITIONED_KEY,
    CONDITIONED_PANEL,
    MAIN_PANEL,
    horizon_slope,
    wilson_interval,
)
from safebandits.problems.registry import make_instance

CLAIM_META = claim_metadata()  # (loads the paper packages' claims modules)

TD, T0, GS = "Safe-LUCB (T'=T_Delta)", "Safe-LUCB (T'=T_0)", "GSLUCB"


def by_id(claims):
    return {c["id"]: c for c in claims}


def karm_table(n=200, per_step=None, stop=None, ratio=None, panel=MAIN_PANEL, scale="paper"):
    """safelucb-karm runs, ``n`` draws; ``per_step[label](rep)``, GSLUCB's ``t_prime`` via ``stop(rep)``
    (True: stops at 1000 < T_0 = 3000), ``T_Delta / T_0`` via ``ratio(rep)``."""
    per_step = per_step or {TD: lambda r: 0.005, GS: lambda r: 0.01, T0: lambda r: 0.03}
    stop = stop or (lambda r: True)
    ratio = ratio or (lambda r: 0.25)
    rows = []
    for label, f in per_step.items():
        for rep in range(n):
            tp = {TD: 3000 * ratio(rep), T0: 3000, GS: 1000 if stop(rep) else 3000}[label]
            rows.append(
                {
                    "experiment": "safelucb-karm",
                    "scale": scale,
                    "status": "ok",
                    "stopped": True,
                    "panel": panel,
                    "replicate": rep,
                    "label": label,
                    "regret": f(rep) * 100_000,
                    "regret_tenth": f(rep) * 10_000 * 2,
                    "samples": 100_000,
                    "violations": 0,
                    "algorithm.delta": 0.01,
                    "diag.t_prime": tp,
                    "diag.T_Delta": 3000 * ratio(rep),
                    "diag.T0": 3000,
                    "diag.lemma1_applicable": True,
                    "diag.lemma1_holds": True,
                    "diag.lambda_min_gram": 20.0,
                    "diag.lemma1_bound": 10.0,
                    "diag.estimate_tprime": None,
                }
            )
    return pd.DataFrame(rows)


def both_panels(**kwargs):
    """The unconditioned and the margin panel with the same draws (``karm_table`` keywords)."""
    return pd.concat([karm_table(**kwargs), karm_table(panel=CONDITIONED_PANEL, **kwargs)])


def test_karm_claims_pass_on_paper_like_draws():
    c = by_id(check_claims(both_panels(), "safelucb-karm"))
    for cid in ("karm-safety", "karm-order", "karm-gslucb-close", "karm-tdelta-below-t0",
                "karm-gslucb-stops-early", "karm-lemma1", "karm-per-step-decreasing"):  # fmt: skip
        assert c[cid]["verdict"] == "pass", (cid, c[cid])
    assert c["karm-order"]["evidence"]["fraction_of_draws_ordered"] == 1.0
    assert c["karm-gslucb-stops-early"]["evidence"]["fraction"] == 1.0


def test_karm_claims_fail_when_gslucb_behaves_like_t0():
    per = {TD: lambda r: 0.005, GS: lambda r: 0.029, T0: lambda r: 0.03}
    c = by_id(check_claims(both_panels(per_step=per, stop=lambda r: r % 10 == 0), "safelucb-karm"))
    assert c["karm-gslucb-close"]["verdict"] == "fail"
    assert c["karm-gslucb-stops-early"]["verdict"] == "fail"
    assert c["karm-gslucb-stops-early"]["evidence"]["draws_satisfying"] == 20
    assert c["karm-order"]["verdict"] == "pass"


def test_karm_order_is_read_on_the_mean_and_reports_the_fraction():
    # T_Delta is best in 90% of draws but very bad in 10% (a tiny gap): the mean decides, as in the paper
    per = {TD: lambda r: 0.3 if r % 10 == 0 else 0.001, GS: lambda r: 0.01, T0: lambda r: 0.03}
    c = by_id(check_claims(both_panels(per_step=per), "safelucb-karm"))
    assert c["karm-order"]["verdict"] == "fail"
    assert c["karm-order"]["evidence"]["fraction_of_draws_ordered"] == pytest.approx(0.9)


def test_no_draw_is_dropped_and_the_margin_panel_decides():
    # issue 42: draws with T_Delta > T_0 (tiny gap) are read like every other draw (issue 31 dropped them);
    # the margin panel decides Figure 1a, the unconditioned panel's reading is shown beside it
    per = {TD: lambda r: 0.3 if r % 10 == 0 else 0.001, GS: lambda r: 0.01, T0: lambda r: 0.03}
    ratio = lambda r: 2.0 if r % 10 == 0 else 0.25  # noqa: E731
    df = pd.concat([karm_table(per_step=per, ratio=ratio), karm_table(panel=CONDITIONED_PANEL)])
    c = by_id(check_claims(df, "safelucb-karm"))
    for cid in ("karm-order", "karm-gslucb-close"):
        assert c[cid]["verdict"] == "pass" and c[cid]["kind"] == "paper", (cid, c[cid])
        assert c[cid]["evidence"]["panel"] == CONDITIONED_PANEL
        beside = c[cid]["evidence"][ALL_DRAWS_KEY]
        assert beside["draws"] == 200 and beside["draws_T_Delta_above_T0"] == 20
        assert beside["mean_final_per_step_regret"][TD] == pytest.approx(0.0309)
        other = c[f"{cid}-all-draws"]
        assert (
            other["verdict"] == "fail" and other["kind"] == "diagnostic" and other["evidence"]["draws"] == 200
        )
    # a bad margin panel decides against the claim, whatever the unconditioned panel reads
    bad = {TD: lambda r: 0.005, GS: lambda r: 0.5, T0: lambda r: 0.03}
    df = pd.concat([karm_table(), karm_table(per_step=bad, stop=lambda r: False, panel=CONDITIONED_PANEL)])
    c = by_id(check_claims(df, "safelucb-karm"))
    assert (
        c["karm-gslucb-close"]["verdict"] == "fail" and c["karm-gslucb-close-all-draws"]["verdict"] == "pass"
    )
    assert c["karm-gslucb-stops-early"]["verdict"] == "pass"  # read on the unconditioned panel
    cond = c["karm-gslucb-stops-early"]["evidence"][CONDITIONED_KEY]
    assert cond["gslucb_stopped_before_T0"] == 0


def test_figure1a_is_not_run_without_the_margin_panel():
    c = by_id(check_claims(karm_table(), "safelucb-karm"))
    assert c["karm-order"]["verdict"] == "not run" and c["karm-order-all-draws"]["verdict"] == "pass"


def test_draws_whose_t0_reaches_the_horizon_are_counted_not_dropped():
    df = karm_table(n=10)
    df.loc[df["replicate"] < 3, "diag.T0"] = 100_000
    df.loc[df["replicate"] < 3, "diag.T_Delta"] = 500
    ev = by_id(check_claims(df, "safelucb-karm"))["karm-order-all-draws"]["evidence"]
    assert ev["draws"] == 10 and ev["draws_T0_at_or_above_T"] == 3 and ev["draws_T_Delta_above_T0"] == 0


def test_most_draws_is_inconclusive_when_the_interval_straddles_one_half():
    c = by_id(check_claims(karm_table(n=20, ratio=lambda r: 0.25 if r < 11 else 2.0), "safelucb-karm"))
    assert c["karm-tdelta-below-t0"]["verdict"] == "inconclusive"
    assert "more draws decide it" in c["karm-tdelta-below-t0"]["reason"]
    c = by_id(check_claims(karm_table(n=200, ratio=lambda r: 0.25 if r < 60 else 2.0), "safelucb-karm"))
    assert c["karm-tdelta-below-t0"]["verdict"] == "fail"


def test_karm_quick_scale_never_fails_a_fraction_claim():
    per = {TD: lambda r: 0.005, GS: lambda r: 0.029, T0: lambda r: 0.03}
    c = by_id(
        check_claims(both_panels(n=3, per_step=per, stop=lambda r: False, scale="quick"), "safelucb-karm")
    )
    assert c["karm-gslucb-stops-early"]["verdict"] == "inconclusive"
    assert c["karm-gslucb-close"]["verdict"] == "inconclusive"


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 500), st.integers(1, 500))
def test_wilson_interval_contains_the_fraction(k, n):
    k = min(k, n)
    lo, hi = wilson_interval(k, n)
    assert 0.0 <= lo <= k / n <= hi <= 1.0


def rate_table(experiment, label, regret_of_t, horizons=(1000, 3162, 10000, 31623, 100000), scale="paper"):
    rows = []
    for t in horizons:
        for rep in range(3):
            rows.append(
                {
                    "experiment": experiment,
                    "scale": scale,
                    "status": "ok",
                    "stopped": True,
                    "panel": "p",
                    "replicate": rep,
                    "label": label,
                    "regret": regret_of_t(t),
                    "regret_tenth": regret_of_t(t) / 3,
                    "samples": t,
                    "violations": 0,
                    "diag.t_prime": 100,
                }
            )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("power", "verdict"), [(0.5, "pass"), (0.59, "pass"), (0.62, "fail"), (1.0, "fail")])
def test_theorem2_slope(power, verdict):
    df = rate_table("safelucb-rate-gap", TD, lambda t: 3.0 * t**power)
    c = by_id(check_claims(df, "safelucb-rate-gap"))
    assert c["rate-gap-slope"]["verdict"] == verdict
    assert c["rate-gap-slope"]["evidence"]["slope"] == pytest.approx(power)
    assert c["rate-gap-slope"]["evidence"]["points_in_fit"] == 3
    assert c["rate-gap-safety"]["verdict"] == "pass"


@pytest.mark.parametrize(
    ("power", "verdict"), [(2 / 3, "pass"), (0.75, "pass"), (0.8, "fail"), (1.0, "fail")]
)
def test_theorem3_slope(power, verdict):
    df = rate_table("safelucb-rate-zero", T0, lambda t: 0.5 * t**power)
    c = by_id(check_claims(df, "safelucb-rate-zero"))
    assert c["rate-zero-slope"]["verdict"] == verdict
    assert c["rate-zero-slope"]["evidence"]["slope_max"] == pytest.approx(2 / 3 + 0.0969, abs=1e-3)


def test_horizon_slope_reads_only_the_last_decade():
    df = rate_table("safelucb-rate-zero", T0, lambda t: 1000.0 if t < 10000 else t**0.5)
    from safebandits.papers.safe_lucb.claims import _ok

    fit = horizon_slope(_ok(df), T0)
    assert fit["points_in_fit"] == 3 and fit["slope"] == pytest.approx(0.5)


def test_rate_claims_quick_scale_is_inconclusive():
    df = rate_table("safelucb-rate-zero", T0, lambda t: float(t), horizons=(1000, 10000), scale="quick")
    assert by_id(check_claims(df, "safelucb-rate-zero"))["rate-zero-slope"]["verdict"] == "inconclusive"


def test_meta_and_unevaluated_list():
    for key in ("safelucb-rate-gap", "safelucb-rate-zero", "safelucb-karm"):
        assert key in CLAIM_META
    items = {row.item for row in unevaluated_items() if row.paper.startswith("Amani")}
    assert "safe_lucb §5.6" not in items and "safe_lucb §5.7" not in items
    assert "safe_lucb §5.4" not in items  # Theorem 1: the safelucb-confidence audit reads it


# -- instances ------------------------------------------------------------------------------------
def test_unconditioned_karm_draw_is_random_with_a_positive_gap():
    gaps = []
    for seed in range(30):
        inst = make_instance("safelucb/karm", np.random.default_rng(seed), condition="none")
        again = make_instance("safelucb/karm", np.random.default_rng(seed), condition="none")
        assert np.array_equal(inst.arms, again.arms)
        assert inst.arms.shape == (20, 2) and inst.safety_gap > 0
        gaps.append(inst.safety_gap)
    assert min(gaps) < 0.5  # the margin condition would keep every gap in [0.5, 1.2]
    default = make_instance("safelucb/karm", np.random.default_rng(3))
    plain = make_instance("safelucb/karm", np.random.default_rng(3), condition="none")
    assert np.array_equal(default.arms, plain.arms)  # the default draws without conditioning
    margin = make_instance("safelucb/karm", np.random.default_rng(3), condition="margin")
    same = make_instance("safelucb/karm", np.random.default_rng(3), condition="margin")
    assert np.array_equal(margin.arms, same.arms) and 0.5 <= margin.safety_gap <= 1.2
    with pytest.raises(ConfigError, match="condition"):
        make_instance("safelucb/karm", np.random.default_rng(0), condition="other")


def test_boundary_instance_has_zero_gap_and_x_star_on_both_boundaries():
    inst = make_instance("safelucb/2d-boundary")
    x = inst.optimal_action
    assert inst.safety_gap == 0.0
    assert float(inst.mu @ inst.b_mat @ x) == pytest.approx(inst.threshold)
    assert float(np.linalg.norm(x)) == pytest.approx(1.0)
    assert inst.optimal_loss == pytest.approx(-0.969230769, abs=1e-6)
    with pytest.raises(ConfigError, match="zero safety gap"):
        make_instance("safelucb/2d-boundary", c=0.9)


# -- experiments at a tiny scale ----------------------------------------------------------------------
def _tiny(name, horizons, tmp_path, replicates=1):
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import expand, get_experiment
    from safebandits.experiments.store import ResultsStore

    tasks = []
    quick = iter(horizons)
    shrink: dict[int, int] = {}  # quick horizon -> tiny horizon (the run keys stay distinct)
    for task in expand(get_experiment(name), "quick", replicates=replicates):
        if task.sweep_param == "T":
            t = shrink.setdefault(task.sweep_value, next(quick))
            params = {**task.instance_params, "T": t}
            tasks.append(dataclasses.replace(task, instance_params=params, sweep_value=t))
        else:
            params = {**task.instance_params, "T": horizons[-1]}
            tasks.append(dataclasses.replace(task, instance_params=params))
    with ResultsStore(tmp_path, mode="w") as store:
        summary = run_tasks(tasks, store, workers=1, quiet=True)
    with ResultsStore(tmp_path, mode="r") as store:
        df = store.to_frame()
    assert summary.n_failed == 0, df.get("error")
    return df


@pytest.mark.parametrize(
    ("name", "cid"), [("safelucb-rate-gap", "rate-gap-slope"), ("safelucb-rate-zero", "rate-zero-slope")]
)
def test_rate_experiments_run_at_a_tiny_scale(name, cid, tmp_path):
    df = _tiny(name, (300, 3000), tmp_path)
    c = by_id(check_claims(df, name))
    assert c[cid]["verdict"] == "inconclusive" and np.isfinite(c[cid]["evidence"]["slope"])
    assert c[f"{cid.rsplit('-', 1)[0]}-safety"]["verdict"] == "pass"
    assert sorted(df["samples"].astype(int)) == [300, 3000]
    # the bound's beta_T, rebuilt from the run's instance, is the learner's (stored) beta_T
    from safebandits.estimators.confidence import adaptive_width_scalar
    from safebandits.papers.safe_lucb.claims_bounds import bound_constants

    for _, row in df.iterrows():
        k = bound_constants(row)
        beta = adaptive_width_scalar(float(row["samples"]) - 1, k["d"], 0.01, 1.0, k["R"], k["L"], k["S"])
        assert beta == pytest.approx(float(row["diag.beta_T"]), rel=1e-12)
    bound = c[cid.replace("slope", "bound")]
    assert bound["verdict"] == "inconclusive" and bound["evidence"]["points"]


def test_karm_experiment_runs_both_panels_at_a_tiny_scale(tmp_path):
    df = _tiny("safelucb-karm", (3000,), tmp_path, replicates=2)
    assert set(df["panel"]) == {MAIN_PANEL, CONDITIONED_PANEL} and len(df) == 12
    c = by_id(check_claims(df, "safelucb-karm"))
    assert c["karm-safety"]["verdict"] == "pass"
    assert c["karm-order"]["evidence"]["draws"] == 2
    assert ALL_DRAWS_KEY in c["karm-order"]["evidence"]


# -- Theorem 1: the confidence audit ------------------------------------------------------------------
AUDITED = "Safe-LUCB (T'=T_Delta), audited"


def confidence_table(failures, scale="paper", failed_runs=0):
    """safelucb-confidence runs: one per entry of ``failures`` (rounds with mu outside C_t)."""
    rows = [
        {"experiment": "safelucb-confidence", "scale": scale, "status": "ok", "stopped": True,
         "panel": "karm-random" if i % 2 else "2d-convex", "replicate": i, "label": AUDITED,
         "algorithm.delta": 0.01, "confidence_failures": f, "confidence_rounds": 1000,
         "confidence_min_slack": -0.1 if f else 0.2, "samples": 1000}
        for i, f in enumerate(failures)
    ]  # fmt: skip
    rows += [{**rows[0], "status": "failed", "replicate": 10_000 + i} for i in range(failed_runs)]
    return pd.DataFrame(rows)


@pytest.mark.parametrize(
    ("failures", "failed_runs", "verdict"),
    [
        ([0] * 200, 0, "pass"),
        ([0] * 198 + [3, 1], 0, "pass"),  # 2 of 200 = delta: still >= 1 - delta
        ([0] * 197 + [3, 1, 7], 0, "fail"),  # 3 of 200 > delta
        ([0] * 198, 2, "inconclusive"),  # the engine never lets failed runs pass silently
        ([0] * 198, 3, "inconclusive"),
    ],
)
def test_theorem1_reading(failures, failed_runs, verdict):
    c = by_id(check_claims(confidence_table(failures, failed_runs=failed_runs), "safelucb-confidence"))
    assert c["confidence-theorem1"]["verdict"] == verdict
    assert c["confidence-theorem1"]["evidence"]["runs"] == len(failures) + failed_runs


def test_theorem1_quick_scale_is_inconclusive():
    df = confidence_table([0] * 6, scale="quick")
    assert by_id(check_claims(df, "safelucb-confidence"))["confidence-theorem1"]["verdict"] == "inconclusive"


def _audit_instance():
    return make_instance("safelucb/karm", np.random.default_rng(5), d=2, K=20, T=400, condition="none")


def test_audit_counts_no_failure_on_a_faithful_learner_and_is_a_pure_function_of_its_rng():
    from safebandits.papers.safe_lucb.audit import ConfidenceAuditConfig, audit_confidence

    inst = _audit_instance()
    m1, _ = audit_confidence(inst, ConfidenceAuditConfig(), np.random.default_rng(11))
    m2, _ = audit_confidence(inst, ConfidenceAuditConfig(), np.random.default_rng(11))
    assert m1 == m2
    assert m1["confidence_rounds"] == 400 and m1["confidence_failures"] == 0
    assert m1["confidence_first_failure"] is None and 0.0 < m1["confidence_min_slack"] < 1.0
    assert m1["violations"] == 0 and np.isfinite(m1["regret"])


def test_audit_catches_a_radius_that_is_too_small(monkeypatch):
    """The check can fail: a learner whose beta_t is 100 times too small leaves mu outside C_t."""
    from safebandits.algorithms.regret.safe_lucb import SafeLUCB
    from safebandits.papers.safe_lucb.audit import ConfidenceAuditConfig, audit_confidence

    true_beta = SafeLUCB.beta
    monkeypatch.setattr(SafeLUCB, "beta", property(lambda self: true_beta.fget(self) / 100.0))
    m, _ = audit_confidence(_audit_instance(), ConfidenceAuditConfig(), np.random.default_rng(11))
    assert m["confidence_failures"] > 0 and m["confidence_first_failure"] >= 1
    assert m["confidence_min_slack"] < 0.0


def test_confidence_experiment_runs_at_a_tiny_scale(tmp_path):
    df = _tiny("safelucb-confidence", (300,), tmp_path, replicates=2)
    assert set(df["panel"]) == {"karm-random", "2d-convex"} and len(df) == 4
    assert (df["confidence_rounds"].astype(int) == 300).all()
    c = by_id(check_claims(df, "safelucb-confidence"))["confidence-theorem1"]
    assert c["evidence"]["runs_holding"] == 4


# -- Theorems 2 and 3 read as their bounds (issue 42) -------------------------------------------------
def bound_table(label, instance, t_prime, regrets, horizon=10_000, t_delta_gap=1000.0, scale="paper"):
    """Runs of one horizon with the stored quantities the bound reads (the instance from ``config_json``)."""
    cfg = {"instance": instance, "instance.T": horizon, "seed": 0, "sweep_point": 0, "label": label,
           "replicate": 0}  # fmt: skip
    return pd.DataFrame(
        [
            {"experiment": "e", "scale": scale, "status": "ok", "stopped": True, "panel": "p", "replicate": i,
             "label": label, "regret": r, "regret_tenth": r / 10, "samples": horizon, "violations": 0,
             "algorithm.delta": 0.01, "algorithm.reg": 1.0, "algorithm.t0_coefficient": 2.0,
             "diag.t_prime": t_prime, "diag.T_Delta": t_delta_gap, "diag.lemma1_t_delta": 440.0,
             "diag.lambda_minus": 0.01, "config_json": json.dumps(cfg)}
            for i, r in enumerate(regrets)
        ]
    )  # fmt: skip


def _hand_bound(t, t_prime, kappa, d=2, big_l=1.0, s=1.0, r=0.1, lam=1.0, lam_minus=0.01, delta=0.01, nb=1.0):
    beta = r * np.sqrt(d * np.log((1 + (t - 1) * big_l**2 / lam) / delta)) + np.sqrt(lam) * s
    den = lam_minus * t_prime + 2 * lam
    second = 2 * beta * np.sqrt(2 * d * (t - t_prime) * np.log(2 * t * big_l**2 / (d * den)))
    return 2 * t_prime + second + kappa * nb * big_l * beta * (t - t_prime) / np.sqrt(den)


def test_bounds_14_and_15_with_their_constants():
    from safebandits.papers.safe_lucb.claims_bounds import THM3, bound_constants, safe_lucb_bound

    row = bound_table(T0, "safelucb/2d-convex", 2000, [1.0]).iloc[0]
    consts = bound_constants(row)
    assert consts == {"d": 2.0, "L": 1.0, "S": pytest.approx(1.0), "R": 0.1, "norm_b": 1.0, "c": 0.2}
    for kappa in (0.0, 2.0):  # (14), then (15) with the printed coefficient
        assert safe_lucb_bound(row, consts, 10_000.0, kappa) == pytest.approx(
            _hand_bound(10_000, 2000, kappa)
        )
    assert THM3 == "Theorem 3"


def test_theorem2_bound_at_the_stated_probability():
    want = _hand_bound(10_000, 500, 0.0)
    # 20 runs, delta = 0.01: at least 1 - 2 delta = 98% within, so one run above the bound fails
    for above, verdict in ((0, "pass"), (1, "fail")):
        regret = [0.5 * want] * (20 - above) + [1.01 * want] * above
        df = bound_table(TD, "safelucb/2d-convex", 500, regret, t_delta_gap=400.0)
        c = by_id(check_claims(df, "safelucb-rate-gap"))["rate-gap-bound"]
        assert c["verdict"] == verdict and c["kind"] == "paper"
        point = c["evidence"]["points"]["T=10000"]
        assert point["fraction_within_bound"] == pytest.approx(1 - above / 20)
        assert point["horizons"]["10000"]["bound"] == pytest.approx(want)
        # T/10 = 1000 >= T' = 500: read too, with beta_t and the log at t = 1000
        assert point["horizons"]["1000"]["bound"] == pytest.approx(_hand_bound(1000, 500, 0.0))
    # a run above the bound at T/10 only fails too
    df = bound_table(TD, "safelucb/2d-convex", 500, [0.5 * want] * 20, t_delta_gap=400.0)
    df.loc[0, "regret_tenth"] = 1.01 * _hand_bound(1000, 500, 0.0)
    assert by_id(check_claims(df, "safelucb-rate-gap"))["rate-gap-bound"]["verdict"] == "fail"
    assert by_id(check_claims(df, "safelucb-rate-gap"))["rate-gap-slope"]["kind"] == "diagnostic"


def test_a_horizon_outside_the_premises_is_listed_not_read():
    # T' capped at the horizon below T_Delta: Theorem 2 says nothing there
    df = bound_table(TD, "safelucb/2d-convex", 10_000, [20_000.0] * 3, t_delta_gap=12_000.0)
    c = by_id(check_claims(df, "safelucb-rate-gap"))["rate-gap-bound"]
    assert (
        c["verdict"] == "inconclusive" and "premises of Theorem 2 hold at no measured horizon" in c["reason"]
    )
    assert "T_Delta" in c["evidence"]["points"]["T=10000"]["premise_not_met"]["10000"]
    # Theorem 3 at a horizon still exploring (T/10 < T') is skipped, T is read
    df = bound_table(T0, "safelucb/2d-boundary", 2000, [3000.0] * 20)
    c = by_id(check_claims(df, "safelucb-rate-zero"))["rate-zero-bound"]
    point = c["evidence"]["points"]["T=10000"]
    assert c["verdict"] == "pass" and list(point["horizons"]) == ["10000"]
    assert "still exploring" in point["premise_not_met"]["1000"]
    assert point["max_regret_over_bound_kappa_2sqrt2_over_c"] < point["max_regret_over_bound"]
    # runs without a config cannot be read (their instance's constants are unknown)
    c = by_id(check_claims(df.drop(columns="config_json"), "safelucb-rate-zero"))["rate-zero-bound"]
    assert c["verdict"] == "inconclusive" and "config" in c["reason"]
