from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from safebandits.cli import cli
from safebandits.experiments.claims import check_claims
from safebandits.experiments.spec import ExperimentSpec, get_experiment
from safebandits.experiments.store import ResultsStore
from safebandits.papers.beside.fdr import mean_curves


def test_specs():
    adult = get_experiment("fdr-adult")
    assert adult.requires_data == ("uci_adult",) and adult.replicates["paper"] == 5
    assert adult.algorithms[0].params == {"batch_size": 25, "n_initial": 50}
    assert get_experiment("fdr-german").replicates["paper"] == 25
    assert get_experiment("fdr-halfcircle").replicates["paper"] == 25
    with pytest.raises(ValueError, match="requires_data"):
        ExperimentSpec(**{**_fields(adult), "requires_data": "uci_adult"})


def _fields(spec):
    return {f: getattr(spec, f) for f in spec.__slots__}


def test_missing_data_fails_early(monkeypatch, tmp_path):
    monkeypatch.delenv("SAFEBANDITS_DATA", raising=False)
    monkeypatch.setenv("SAFEBANDITS_CACHE", str(tmp_path / "empty-cache"))
    res = CliRunner().invoke(cli, ["run", "fdr-german", "--out", str(tmp_path / "out"), "--workers", "1"])
    assert res.exit_code == 2
    assert "safebandits data fetch uci_german" in res.output and "SAFEBANDITS_DATA" in res.output
    assert not (tmp_path / "out").exists()  # nothing recorded


def test_halfcircle_quick_end_to_end(tmp_path):
    out = tmp_path / "res"
    args = ["run", "fdr-halfcircle", "--out", str(out), "--workers", "1", "--replicates", "2", "-q"]
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 0, res.output
    with ResultsStore(out, mode="r") as store:
        df = store.to_frame()
    assert len(df) == 4 and set(df["status"]) == {"ok"}
    assert df["samples"].eq(100).all()
    curves = mean_curves(df)
    assert set(curves) == {"Active", "Passive"}
    assert curves["Active"].index[0] == 20 and curves["Active"].index[-1] == 100
    claims = check_claims(df, "fdr-halfcircle")
    assert [c["id"] for c in claims] == ["halfcircle-recall", "halfcircle-precision"]
    res = CliRunner().invoke(cli, ["report", str(out)])
    assert res.exit_code == 0, res.output
    assert (out / "report" / "fdr-halfcircle-quick-metrics.png").is_file()
    saved = json.loads((out / "report" / "claims.json").read_text())
    assert {c["experiment"] for c in saved} == {"fdr-halfcircle"}


def _runs(curves_by_label):
    import pandas as pd

    rows = []
    for label, curves in curves_by_label.items():
        for curve in curves:
            rows.append({"status": "ok", "label": label, "curve": json.dumps(curve), "sweep.value": 0.15})
    return pd.DataFrame(rows)


def _curve(labels, fdr, acc):
    n = len(labels)
    return {
        "labels": labels,
        "accuracy": acc,
        "fdr": fdr,
        "precision": [1 - f for f in fdr],
        "recall": [0.5] * n,
    }


def test_adult_claims_read_the_curves():
    labels = [500, 750, 1000, 1500, 2000]
    active = _curve(labels, [0.20, 0.18, 0.17, 0.16, 0.15], [0.83] * 5)
    passive = _curve(labels, [0.25, 0.23, 0.22, 0.21, 0.20], [0.82] * 5)
    claims = {
        c["id"]: c for c in check_claims(_runs({"Active": [active], "Passive": [passive]}), "fdr-adult")
    }
    assert claims["adult-ticks"]["passed"]
    assert claims["adult-half"]["passed"] and claims["adult-half"]["evidence"]["labels Active"] == 500
    # swap the roles: both claims fail
    claims = {
        c["id"]: c for c in check_claims(_runs({"Active": [passive], "Passive": [active]}), "fdr-adult")
    }
    assert not claims["adult-ticks"]["passed"] and not claims["adult-half"]["passed"]
    # no tick reached: inconclusive, not passed
    short = _curve([50, 75], [0.2, 0.2], [0.8, 0.8])
    claims = {c["id"]: c for c in check_claims(_runs({"Active": [short], "Passive": [short]}), "fdr-adult")}
    assert claims["adult-ticks"]["verdict"] == "inconclusive" and not claims["adult-ticks"]["passed"]
