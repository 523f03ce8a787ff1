"""The dose anchors (issue 45, items 3-4): the published scenarios, the ``dose-trials`` solver run, the
registered experiment ``dose-anchors`` at a tiny scale, and each of its claims on tables made to pass and
to fail."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import safebandits.papers.dose_anchors  # noqa: F401  (registers the instance, solver and experiment)
from safebandits.exceptions import ConfigError
from safebandits.experiments.claims import check_claims
from safebandits.papers.dose_anchors import claims as C
from safebandits.papers.dose_anchors.experiments import BOIN, CERTIFIED, CRM, ORACLE
from safebandits.papers.dose_anchors.instances import FAMILIES, dose_scenario
from safebandits.papers.dose_anchors.trials import DoseTrialsConfig, run_dose_trials
from safebandits.problems.registry import make_instance


# -- the scenarios ---------------------------------------------------------------------------------------
def test_the_scenarios_are_the_published_curves() -> None:
    mtds = {"lin-yuan-2020": [2, 3, 1, 4, 5, 6], "zhao-2024": [1, 2, 3, 4, 5]}
    for family, expected in mtds.items():
        _source, target, cohorts, size, curves = FAMILIES[family]
        got = [dose_scenario(family=family, scenario=n).mtd + 1 for n in sorted(curves)]
        assert got == expected
        for n in curves:
            s = dose_scenario(family=family, scenario=n)
            assert s.patients == cohorts * size and s.target == target
            assert all(0 < step <= 0.2 for step in s.steps)  # (the declared step 0.2 is true of every curve)
    assert FAMILIES["lin-yuan-2020"][1:4] == (0.30, 12, 3) and FAMILIES["zhao-2024"][1:4] == (0.25, 10, 3)


def test_the_instance_draws_the_patients_seed_and_names_bad_fields() -> None:
    a = make_instance("anchors/dose", np.random.default_rng(1), family="zhao-2024", scenario=3)
    b = make_instance("anchors/dose", np.random.default_rng(1), family="zhao-2024", scenario=3)
    c = make_instance("anchors/dose", np.random.default_rng(2), family="zhao-2024", scenario=3)
    assert a == b and a.seed != c.seed and a.describe()["true_mtd"] == 3
    with pytest.raises(ConfigError, match="'family'"):
        dose_scenario(family="nope")
    with pytest.raises(ConfigError, match=r"'scenario'.*must be one of"):
        dose_scenario(family="zhao-2024", scenario=6)


@settings(max_examples=40, deadline=None)
@given(family=st.one_of(st.sampled_from(sorted(FAMILIES)), st.text(max_size=8)), scenario=st.integers(-2, 9))
def test_the_instance_builds_exactly_the_listed_scenarios(family, scenario) -> None:
    if family in FAMILIES and scenario in FAMILIES[family][4]:
        s = dose_scenario(family=family, scenario=scenario)
        assert s.name == f"{family}/{scenario}" and s.toxicity == FAMILIES[family][4][scenario]
    else:
        with pytest.raises(ConfigError, match=r"'family'|'scenario'"):
            dose_scenario(family=family, scenario=scenario)


# -- the solver run ----------------------------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    design=st.one_of(st.sampled_from(["boin", "crm", "dose-escalation"]), st.text(max_size=6)),
    trials=st.one_of(st.integers(-3, 5000), st.booleans(), st.floats(allow_nan=True)),
    step=st.one_of(st.floats(-1, 2), st.just(float("nan")), st.sampled_from(["truth", "true"]), st.none()),
)
def test_config_accepts_exactly_the_documented_values(design, trials, step) -> None:
    valid = (
        design in ("boin", "crm", "dose-escalation")
        and isinstance(trials, int)
        and not isinstance(trials, bool)
        and trials >= 1
        and (step == "truth" or (isinstance(step, float) and 0.0 < step <= 1.0))
    )
    if valid:
        assert DoseTrialsConfig(design=design, trials=trials, max_increase=step).design == design
    else:
        with pytest.raises(ConfigError, match="DoseTrialsConfig"):
            DoseTrialsConfig(design=design, trials=trials, max_increase=step)


@pytest.mark.parametrize(
    ("design", "step"), [("boin", 0.2), ("crm", 0.2), ("dose-escalation", 0.2), ("dose-escalation", "truth")]
)
def test_a_run_stores_consistent_operating_characteristics(design, step) -> None:
    scen = dose_scenario(rng=np.random.default_rng(0), family="lin-yuan-2020", scenario=2)
    m, traces = run_dose_trials(scen, DoseTrialsConfig(design=design, trials=20, max_increase=step), None)
    sel = [m[f"selected_d{j}"] for j in range(1, 7)]
    assert sum(sel) + m["none_selected"] == pytest.approx(100.0)
    assert m["pcs"] == sel[2] and m["mtd"] == 3 and m["n_correct"] == round(m["pcs"] * 20 / 100)
    assert sum(m[f"patients_d{j}"] for j in range(1, 7)) == pytest.approx(m["length"])
    assert m["length"] <= 36
    assert m["above_limit"] == pytest.approx(sum(m[f"patients_d{j}"] for j in (4, 5, 6)))
    assert traces["instance"]["toxicity"] == list(scen.toxicity)
    if design == "dose-escalation":
        assert m["guarantee"] == "round" and m["trials_above_limit"] == 0.0


def test_a_run_is_a_function_of_its_scenario() -> None:
    """The patients come from the scenario's seed (the engine draws it without the design: every design
    of a replicate meets the same patients), not from the solver's generator."""
    scen = dose_scenario(rng=np.random.default_rng(5), family="zhao-2024", scenario=1)
    a, _ = run_dose_trials(scen, DoseTrialsConfig(design="boin", trials=30), np.random.default_rng(1))
    b, _ = run_dose_trials(scen, DoseTrialsConfig(design="boin", trials=30), np.random.default_rng(2))
    other = dataclasses.replace(scen, seed=scen.seed + 1)
    c, _ = run_dose_trials(other, DoseTrialsConfig(design="boin", trials=30), np.random.default_rng(1))
    assert a == b and a != c


# -- the experiment, tiny -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> pd.DataFrame:
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import expand, get_experiment
    from safebandits.experiments.store import ResultsStore

    tasks = [
        dataclasses.replace(t, algorithm_params={**t.algorithm_params, "trials": 12})
        for t in expand(get_experiment("dose-anchors"), "quick")
    ]
    out = tmp_path_factory.mktemp("dose-anchors")
    with ResultsStore(out, mode="w") as store:
        summary = run_tasks(tasks, store, workers=1, quiet=True)
    with ResultsStore(out, mode="r") as store:
        df = store.to_frame()
    assert summary.n_failed == 0, df.get("error")
    return df


def test_the_experiment_runs_every_design_on_every_scenario(tiny) -> None:
    tab = C.scenario_table(tiny)
    assert len(tab) == 11 * 4 and set(tab["label"]) == {BOIN, CRM, CERTIFIED, ORACLE}
    claims = {c["id"]: c for c in check_claims(tiny, "dose-anchors")}
    assert set(claims) == {
        "anchors-comparable", "boin-overdoses-less", "anchors-no-promise", "certified-keeps-promise",
        "item4-target",
    }  # fmt: skip
    assert all(c["verdict"] == "inconclusive" for c in claims.values())  # (only the paper scale decides)
    assert claims["certified-keeps-promise"]["raw_verdict"] == "pass"
    assert claims["item4-target"]["raw_verdict"] == "fail"


# -- each claim, made to pass and to fail --------------------------------------------------------------------
def _rows(**by_label) -> pd.DataFrame:
    """A runs table: one run of 1,000 trials per design and scenario (two scenarios of six doses, MTD 3)."""
    rows = []
    for scen in (1, 2):
        for label, values in by_label.items():
            row = {"status": "ok", "panel": "p", "sweep.value": scen, "label": label, "replicate": 0}
            row.update(trials=1000, mtd=3, highest=3.0, toxicities=5.0, length=36.0)
            row.update(pcs=60.0, above_mtd=5.0, trials_above=50.0, above_limit=5.0, trials_above_limit=50.0)
            row.update({f"selected_d{j}": 10.0 for j in range(1, 7)})
            row.update(values)
            rows.append(row)
    return pd.DataFrame(rows)


_SAFE = {"above_mtd": 0.0, "trials_above": 0.0, "above_limit": 0.0, "trials_above_limit": 0.0}


def _verdicts(df: pd.DataFrame) -> dict[str, bool]:
    return {c["id"]: c["passed"] for c in C.check_dose_anchors(df)}


def test_comparable_fails_when_boin_selects_far_less_often() -> None:
    good = _rows(**{BOIN: {"pcs": 55.0}, CRM: {"pcs": 62.0}, CERTIFIED: _SAFE})
    bad = _rows(**{BOIN: {"pcs": 40.0}, CRM: {"pcs": 62.0}, CERTIFIED: _SAFE})
    assert _verdicts(good)["anchors-comparable"] and not _verdicts(bad)["anchors-comparable"]


def test_overdose_order_fails_when_boin_overdoses_more() -> None:
    good = _rows(**{BOIN: {"above_mtd": 4.0}, CRM: {"above_mtd": 6.0}, CERTIFIED: _SAFE})
    bad = _rows(**{BOIN: {"above_mtd": 7.0}, CRM: {"above_mtd": 6.0}, CERTIFIED: _SAFE})
    assert _verdicts(good)["boin-overdoses-less"] and not _verdicts(bad)["boin-overdoses-less"]


def test_no_promise_fails_when_an_anchor_rarely_overdoses() -> None:
    good = _rows(**{BOIN: {}, CRM: {}, CERTIFIED: _SAFE})
    bad = _rows(**{BOIN: {"trials_above": 2.0}, CRM: {}, CERTIFIED: _SAFE})
    assert _verdicts(good)["anchors-no-promise"] and not _verdicts(bad)["anchors-no-promise"]


def test_certified_promise_fails_above_delta_plus_three_se() -> None:
    # 1,000 trials: allowance 5% + 3 x 0.69% = 7.07%
    assert _verdicts(_rows(**{BOIN: {}, CRM: {}, CERTIFIED: {**_SAFE, "trials_above_limit": 7.0}}))[
        "certified-keeps-promise"
    ]
    bad = _rows(**{BOIN: {}, CRM: {}, CERTIFIED: {**_SAFE, "trials_above_limit": 7.2}})
    assert not _verdicts(bad)["certified-keeps-promise"]


def test_item4_target_needs_selection_close_to_boin_and_fewer_overdoses() -> None:
    close = {**_SAFE, "pcs": 52.0}
    assert _verdicts(_rows(**{BOIN: {}, CRM: {}, CERTIFIED: close}))["item4-target"]
    assert not _verdicts(_rows(**{BOIN: {}, CRM: {}, CERTIFIED: {**_SAFE, "pcs": 49.0}}))["item4-target"]
    overdosing = {**close, "above_mtd": 5.0}  # (as many above the MTD as BOIN: not fewer)
    assert not _verdicts(_rows(**{BOIN: {}, CRM: {}, CERTIFIED: overdosing}))["item4-target"]
