"""Tidy loaders of a results directory: runs (one row each) and curves (long format)."""

from __future__ import annotations

import json
import tempfile

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.experiments.results import load_curves, load_results, run_kind, summary_by_kind
from safebandits.experiments.store import ResultsStore

_finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@st.composite
def _run(draw, i: int):
    kind = draw(st.sampled_from(["identification", "regret", "classification", "failed"]))
    n = draw(st.integers(0, 6))
    m = draw(st.integers(1, 3))
    record = {
        "pk": f"0/1/{kind}/{i}#abc",
        "run_key": f"0/1/{kind}/{i}",
        "config_hash": "abc",
        "experiment": f"exp-{kind}",
        "scale": "quick",
        "label": draw(st.sampled_from(["A", "B"])),
        "algorithm": "alg",
        "replicate": i,
        "instance.d": draw(st.integers(1, 5)),
        "status": "failed" if kind == "failed" else "ok",
        "timestamp": f"2026-01-01T00:00:{i:02d}",
    }
    traces = {}
    if kind == "identification":
        record.update(samples=draw(st.integers(1, 100)), correct=draw(st.booleans()), stopped=True)
    elif kind == "regret":
        record.update(samples=n, stopped=True, regret=draw(_finite), violations=draw(st.integers(0, 9)))
        traces["curve"] = {
            "t": list(range(1, n + 1)),
            "regret": draw(st.lists(_finite, min_size=n, max_size=n)),
            "cost": [draw(st.lists(_finite, min_size=m, max_size=m)) for _ in range(n)],
        }
    elif kind == "classification":
        record.update(samples=n, stopped=True, accuracy=draw(st.floats(0, 1)))
        traces["curve"] = {
            "labels": [10.0 * (k + 1) for k in range(n)],
            "fdr": draw(st.lists(_finite, min_size=n, max_size=n)),
        }
    else:
        record.update(error="RuntimeError: boom")
    return record, traces


@st.composite
def _runs(draw):
    n = draw(st.integers(1, 6))
    return [draw(_run(i)) for i in range(n)]


def _write(directory, runs):
    with ResultsStore(directory, mode="w") as store:
        for record, traces in runs:
            store.write(record, traces)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_runs())
def test_loaders_on_random_store_contents(runs):
    with tempfile.TemporaryDirectory() as tmp:
        _write(tmp, runs)
        df = load_results(tmp)
        curves = load_curves(tmp)
        regret_only = load_curves(tmp, curve="regret")
    assert len(df) == len(runs) and set(df["pk"]) == {r["pk"] for r, _ in runs}
    assert "config_json" not in df and "instance.d" in df
    expected_rows = 0
    for record, traces in runs:
        curve = traces.get("curve")
        if curve is None:
            continue
        x_name = "t" if "t" in curve else "labels"
        mine = curves[curves["pk"] == record["pk"]]
        if not curve[x_name]:
            assert mine.empty
            continue
        for name, values in curve.items():
            if name == x_name:
                continue
            arr = np.asarray(values, dtype=float).reshape(len(curve[x_name]), -1)
            expected_rows += arr.size
            rows = mine[mine["curve"] == name]
            assert len(rows) == arr.size
            assert (rows["x_name"] == x_name).all()
            if np.ndim(values[0] if values else 0) == 0:
                assert rows["component"].isna().all()
                np.testing.assert_array_equal(rows["y"].to_numpy(), arr[:, 0])
                np.testing.assert_array_equal(rows["x"].to_numpy(), np.asarray(curve[x_name], dtype=float))
            else:
                for j in range(arr.shape[1]):
                    comp = rows[rows["component"] == j]
                    np.testing.assert_array_equal(comp["y"].to_numpy(), arr[:, j])
    assert len(curves) == expected_rows
    assert set(regret_only["curve"]) <= {"regret"}
    assert list(curves.columns[-5:]) == ["curve", "component", "x_name", "x", "y"]
    assert curves["x"].dtype == float and curves["y"].dtype == float


def _rec(pk, experiment, label, status="ok", **metrics):
    return {"pk": pk, "run_key": pk, "config_hash": "1", "experiment": experiment, "scale": "quick",
            "label": label, "status": status, "timestamp": pk, **metrics}  # fmt: skip


def test_kinds_and_summary_tables(tmp_path):
    runs = [
        (_rec("a#1", "id", "A", samples=10, correct=True, stopped=True), {}),
        (_rec("b#1", "id", "Boom", status="failed", error="boom"), {}),
        (_rec("c#1", "reg", "OPB", samples=100, stopped=True, regret=5.0, policy_regret=4.0, violations=3,
              positive_cost=0.5), {"curve": {"t": [1, 2], "regret": [0.5, 1.0]}}),
    ]  # fmt: skip
    _write(tmp_path, runs)
    df = load_results(tmp_path)
    assert dict(zip(df["pk"], df["kind"])) == {
        "a#1": "identification",
        "b#1": "identification",
        "c#1": "regret",
    }
    tables = summary_by_kind(df)
    assert list(tables) == ["identification", "regret"]
    reg = tables["regret"].loc[("reg", "quick", "OPB")]
    # (issue 40: the regret columns name their comparator; the record's own-benchmark "regret" is not shown)
    assert "regret" not in reg.index
    assert (reg["rounds"], reg["regret_vs_best_feasible_policy"], reg["violations_per_round"],
            reg["positive_cost"]) == (100, 4.0, 3, 0.5)  # fmt: skip
    assert tables["identification"].loc[("id", "quick", "Boom"), "failed"] == 1
    assert load_results(tmp_path, experiment="reg").columns.str.startswith("correct").sum() == 0
    assert len(load_results(tmp_path, status="failed")) == 1
    assert sb.load_curves is load_curves and len(load_curves(tmp_path, experiment="id")) == 0
    assert run_kind(pd.DataFrame()).empty


def test_results_command_prints_regret_columns(tmp_path, capsys):
    from safebandits.cli import main

    _write(tmp_path, [
        (_rec("c#1", "reg", "OPB", samples=100, stopped=True, regret=5.0, policy_regret=4.0, violations=3,
              positive_cost=0.5), {}),
    ])  # fmt: skip
    assert main(["results", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "regret runs:" in out and "violations" in out and "positive_cost" in out and "NaN" not in out


def test_loaders_refuse_a_folder_without_a_store(tmp_path):
    with pytest.raises(sb.ConfigError):
        load_results(tmp_path / "nothing")
    with pytest.raises(sb.ConfigError):
        load_curves(tmp_path / "nothing")


def test_curves_json_roundtrip_is_the_stored_one(tmp_path):
    curve = {"t": [1, 3, 9], "regret": [0.1, 0.2, 0.4], "cost": [[0.1, 0.2], [0.3, 0.4], [0.5, 0.6]]}
    _write(tmp_path, [({"pk": "p", "run_key": "k", "config_hash": "h", "status": "ok", "experiment": "e",
                        "regret": 0.4}, {"curve": curve})])  # fmt: skip
    long = load_curves(tmp_path)
    wide = long[long["curve"] == "cost"].pivot(index="x", columns="component", values="y")
    assert json.loads(json.dumps(wide.to_numpy().tolist())) == curve["cost"]
