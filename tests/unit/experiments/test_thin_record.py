"""The thin record of regret runs (issue 44): the curves at log-spaced checkpoints of the full record, the
columns the claims read unchanged, full-record keys unchanged, and old (full-record) stores still read."""

from __future__ import annotations

import dataclasses
import json
import lzma
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import safebandits
from safebandits.exceptions import ConfigError
from safebandits.experiments.execute import execute_task
from safebandits.experiments.results import load_curves, load_results
from safebandits.experiments.runner import run_tasks
from safebandits.experiments.spec import ExperimentSpec, expand, get_experiment
from safebandits.experiments.store import ResultsStore
from safebandits.experiments.thin_record import THIN_POINTS, thin_curves, thin_traces

ARCHIVE = (
    Path(safebandits.__file__).resolve().parents[1] / "docs" / "data" / "quick-conservative-results.sqlite.xz"
)
COLUMNS = ("regret", "samples", "conservative_violations", "conservative_first_violation",
           "conservative_min_margin", "conservative_margin")  # fmt: skip


def _grid(n):
    return np.unique(np.geomspace(1, 10 * n, n).astype(int))


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 300),
    st.lists(st.floats(-1e6, 1e6, allow_nan=False, allow_subnormal=False), min_size=300, max_size=300),
    st.booleans(),
)
def test_thin_curves_are_the_full_values_at_log_spaced_checkpoints(n, values, expectation):
    t = _grid(n)
    y = np.asarray(values[: t.size])
    curves = {"t": t, "regret": y, "policy_regret": y + 1.0 if expectation else y.copy(),
              "conservative_margin": -y, "cost": np.c_[y, y], "reward": y}  # fmt: skip
    thin = thin_curves(curves)
    assert set(thin) == {"t", "regret", "conservative_margin"} | ({"policy_regret"} if expectation else set())
    tt = np.asarray(thin["t"])
    assert tt.size == min(t.size, THIN_POINTS) and tt[0] == t[0] and tt[-1] == t[-1]
    assert np.all(np.diff(tt) > 0) and np.isin(tt, t).all()
    idx = np.searchsorted(t, tt)
    for name in set(thin) - {"t"}:
        np.testing.assert_allclose(thin[name], np.asarray(curves[name])[idx], rtol=1e-5, atol=1e-300)
    assert json.loads(json.dumps(thin)) == thin  # (plain JSON: the store keeps it as is)


def test_thin_traces_drop_the_duplicate_margin_curve_only():
    traces = {
        "curve": {"t": [1, 2], "regret": [0.0, 0.5], "reward": [1, 1]},
        "conservative": {"violations": 0, "curve": [0.1, 0.2], "min_margin": 0.1},
        "totals": {"a": 1},
    }
    out = thin_traces(traces)
    assert out["conservative"] == {"violations": 0, "min_margin": 0.1} and out["totals"] == {"a": 1}
    assert out["curve"] == {"t": [1, 2], "regret": [0.0, 0.5]}
    assert "curve" in traces["conservative"]  # (the argument is not changed)


def test_full_record_keys_unchanged_and_thin_keys_new():
    spec = get_experiment("cucb-horizon")
    quick, paper = expand(spec, "quick"), expand(spec, "paper", replicates=1)
    assert all(t.record == "full" and "record" not in t.config() for t in quick)
    assert all(t.record == "thin" and t.config()["record"] == "thin" for t in paper)
    full = dataclasses.replace(paper[0], record="full")
    assert full.config_hash != paper[0].config_hash
    if ARCHIVE.exists():  # the archived quick store holds exactly today's quick keys
        import sqlite3
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            db = Path(d) / "results.sqlite"
            db.write_bytes(lzma.decompress(ARCHIVE.read_bytes()))
            with sqlite3.connect(db) as conn:
                stored = {r[0] for r in conn.execute("SELECT pk FROM runs WHERE experiment = 'cucb-horizon'")}
        assert stored == {t.pk for t in quick}


def test_spec_refuses_a_bad_record_or_curves_a_thin_record_lacks():
    base = get_experiment("cucb-horizon")
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    with pytest.raises(ConfigError, match=r"'record'.*'full' or 'thin'.*'slim'"):
        ExperimentSpec(**{**fields, "record": {"paper": "slim"}})
    with pytest.raises(ConfigError, match=r"'curves'.*thin record keeps"):
        ExperimentSpec(**{**fields, "curves": ("regret", "cost")})


def test_thin_and_full_runs_store_the_same_columns_and_the_thin_curve_reads_back(tmp_path):
    task = expand(get_experiment("cucb-horizon"), "quick", replicates=1)[1]  # Conservative UCB, T = 2,000
    thin = dataclasses.replace(task, record="thin")
    with ResultsStore(tmp_path, mode="w") as store:
        run_tasks([task, thin], store, workers=1, quiet=True)
    df = load_results(tmp_path, latest=False).set_index("pk")  # (one run key, two configs)
    a, b = df.loc[task.pk], df.loc[thin.pk]
    assert a["status"] == b["status"] == "ok"
    for c in COLUMNS:
        assert a[c] == b[c], c
    curves = load_curves(tmp_path, latest=False)
    full_c, thin_c = (curves[curves["pk"] == t.pk] for t in (task, thin))
    assert set(thin_c["curve"]) == {"regret", "conservative_margin"}
    assert len(thin_c) == 2 * THIN_POINTS and len(full_c) > 5 * len(thin_c)
    for name in ("regret", "conservative_margin"):
        f = full_c[full_c["curve"] == name].set_index("x")["y"]
        t = thin_c[thin_c["curve"] == name].set_index("x")["y"]
        np.testing.assert_allclose(t.to_numpy(), f.loc[t.index].to_numpy(), rtol=1e-5)
        assert t.index[-1] == 2000
    margin = thin_c[thin_c["curve"] == "conservative_margin"]["y"]
    assert (
        margin.min() >= b["conservative_min_margin"] - 1e-5
    )  # (the thin curve never goes below the minimum)
    rec = execute_task(thin)["_traces"]
    assert "curve" not in rec["conservative"]


@settings(max_examples=40, deadline=None)
@given(st.dictionaries(st.sampled_from(["quick", "paper", "huge"]), st.sampled_from(["full", "thin", "x"])))
def test_spec_accepts_a_record_exactly_when_every_scale_and_form_is_known(record):
    base = get_experiment("cucb-alpha")
    fields = {f.name: getattr(base, f.name) for f in dataclasses.fields(base)}
    valid = all(k in ("quick", "paper") and v in ("full", "thin") for k, v in record.items())
    if valid:
        assert ExperimentSpec(**{**fields, "record": record}).record == record
    else:
        with pytest.raises(ConfigError, match="'record'"):
            ExperimentSpec(**{**fields, "record": record})


def test_the_archived_full_record_store_still_reads(tmp_path):
    if not ARCHIVE.exists():
        pytest.skip("the quick conservative archive is not in this checkout")
    from safebandits.experiments.claims import check_claims

    (tmp_path / "results.sqlite").write_bytes(lzma.decompress(ARCHIVE.read_bytes()))
    runs = load_results(tmp_path)
    curves = load_curves(tmp_path, curve=("regret", "conservative_margin"))
    assert len(runs) == 32 and set(curves["curve"]) == {"regret", "conservative_margin"}
    assert curves.groupby(["pk", "curve"]).size().min() > THIN_POINTS  # (the full grid)
    verdicts = {
        c["id"]: c["verdict"]
        for e in ("cucb-horizon", "cucb-alpha")
        for c in check_claims(runs[runs["experiment"] == e], e)
    }
    assert verdicts["cucb-safe"] == verdicts["cucb-safe-alpha"] == "pass"
