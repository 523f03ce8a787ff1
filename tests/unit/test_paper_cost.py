"""benchmarks/paper_cost.py: the paper scale's CPU cost from result stores (issue 43, item 3)."""

from __future__ import annotations

import importlib.util
import lzma
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "paper_cost.py"
_spec = importlib.util.spec_from_file_location("paper_cost", _PATH)
paper_cost = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(paper_cost)


def _write_store(path: Path, rows: list[dict], *, with_cpu: bool = True) -> Path:
    cols = [c for c in paper_cost.COLUMNS if with_cpu or c != "cpu_s"]
    conn = sqlite3.connect(path)
    conn.execute(f"CREATE TABLE runs ({', '.join(repr(c) for c in cols)})")
    for row in rows:
        conn.execute(f"INSERT INTO runs VALUES ({', '.join('?' for _ in cols)})", [row.get(c) for c in cols])
    conn.commit()
    conn.close()
    return path


def _run(pk, *, seed=0, value=1, label="A", alg="a", samples=100, wall=1.0, cpu=None, stamp="2026-11-29T10"):
    return {
        "pk": pk, "run_key": pk.split("#")[0], "config_hash": "h", "experiment": "e", "scale": "paper",
        "status": "ok", "seed": seed, "panel": "p", "sweep.value": value, "label": label, "algorithm": alg,
        "replicate": 0, "samples": samples, "wall_s": wall, "cpu_s": cpu, "safebandits_version": "0.1.0",
        "timestamp": stamp,
    }  # fmt: skip


def _frame(rows: list[dict], store: str) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(paper_cost.COLUMNS))
    for c in ("samples", "wall_s", "cpu_s", "seed", "replicate"):
        df[c] = pd.to_numeric(df[c], errors="coerce")
    df["sweep.value"] = df["sweep.value"].map(paper_cost.point_value)
    df["store"] = store
    return df


def _expected(pks: list[str], seed: int, *, value=1, label="A", alg="a") -> pd.DataFrame:
    return pd.DataFrame(
        {
            "experiment": "e",
            "seed": seed,
            "pk": pks,
            "panel": "p",
            "sweep.value": paper_cost.point_value(value),
            "label": label,
            "algorithm": alg,
        }
    )


def test_read_runs_without_cpu_column_and_only_ok_paper_runs(tmp_path):
    rows = [_run("0/1/A/0#h", value=50), _run("0/1/A/1#h", value="50.0")]
    rows.append({**_run("0/1/A/2#h"), "scale": "quick"})
    rows.append({**_run("0/1/A/3#h"), "status": "failed"})
    store = _write_store(tmp_path / "old.sqlite", rows, with_cpu=False)
    df = paper_cost.read_runs(store, "old")
    assert sorted(df["pk"]) == ["0/1/A/0#h", "0/1/A/1#h"]
    assert df["cpu_s"].isna().all()
    assert set(df["sweep.value"]) == {"50.0"}  # an integer and a real of the same value: one point
    assert set(df["store"]) == {"old"}


def test_open_copy_decompresses_an_archive(tmp_path):
    store = _write_store(tmp_path / "a.sqlite", [_run("0/1/A/0#h", cpu=2.5)])
    archive = tmp_path / "a.sqlite.xz"
    archive.write_bytes(lzma.compress(store.read_bytes()))
    out = tmp_path / "out"
    out.mkdir()
    copy = paper_cost.open_copy(archive, out)
    assert copy.parent == out
    assert paper_cost.read_runs(copy, "a")["cpu_s"].tolist() == [2.5]


def test_gap_free_caps_a_paused_run_at_five_times_its_points_median_per_sample():
    rows = [_run(f"0/1/A/{i}#h", samples=100, wall=1.0) for i in range(4)]
    rows.append(_run("0/1/A/4#h", samples=100, wall=500.0))  # paused: 500x the others
    cost = paper_cost.gap_free(_frame(rows, "s"))
    assert cost.tolist() == [1.0, 1.0, 1.0, 1.0, 5.0]


def test_measured_sweep_is_counted_and_missing_runs_are_projected():
    # seed 0: archived, wall only (two points); seed 1: measured, one point complete, one missing
    old = [_run(f"0/1/A/{i}#h", wall=10.0, samples=100) for i in range(2)]
    old += [_run(f"0/2/A/{i}#h", value=2, wall=30.0, samples=100) for i in range(2)]
    new = [_run(f"1/1/A/{i}#h", seed=1, wall=9.0, cpu=4.0, samples=100) for i in range(2)]
    runs = pd.concat([_frame(old, "archive"), _frame(new, "new")], ignore_index=True)
    expected = pd.concat(
        [
            _expected([r["pk"] for r in old[:2]], 0),
            _expected([r["pk"] for r in old[2:]], 0, value=2),
            _expected([r["pk"] for r in new], 1),
            _expected(["1/2/A/0#h", "1/2/A/1#h"], 1, value=2),
        ]
    )
    costed = paper_cost.cost_runs(runs, expected, documented={})
    assert set(costed["store"]) == {"new"} and set(costed["seed"]) == {1}
    measured = costed[costed["basis"] == "M"]
    assert measured["cost"].tolist() == [4.0, 4.0]
    projected = costed[costed["basis"] != "M"]
    # the method's speed-up on the shared point: 4 s / 10 s per equal samples = 0.4; point 2: 30 s x 0.4
    assert projected["basis"].tolist() == ["P+R", "P+R"]
    assert projected["cost"].tolist() == pytest.approx([12.0, 12.0])
    table = paper_cost.experiment_table(costed)
    assert table.loc[0, "measured_s"] == pytest.approx(8.0)
    assert table.loc[0, "projected_s"] == pytest.approx(24.0)
    extras = paper_cost.extras_table(runs, costed, expected)
    assert extras["runs"].tolist() == [4] and extras["kind"].tolist() == ["other seed"]


def test_wall_only_sweep_uses_the_documented_speedup_else_none():
    old = [_run(f"0/1/A/{i}#h", wall=10.0) for i in range(2)]
    old += [_run(f"0/1/B/{i}#h", label="B", alg="b", wall=10.0) for i in range(2)]
    runs = _frame(old, "archive")
    expected = pd.concat(
        [
            _expected([r["pk"] for r in old[:2]], 0),
            _expected([r["pk"] for r in old[2:]], 0, label="B", alg="b"),
        ]
    )
    costed = paper_cost.cost_runs(runs, expected, documented={("e", "a"): 0.1})
    by = costed.groupby("basis")["cost"].sum()
    assert by.to_dict() == pytest.approx({"W+D": 2.0, "W+1": 20.0})


def test_a_missing_run_of_a_measured_point_gets_its_points_mean_and_the_longest_once():
    new = [_run(f"1/1/A/{i}#h", seed=1, cpu=c) for i, c in enumerate((1.0, 3.0))]
    runs = _frame(new, "new")
    expected = _expected([*(r["pk"] for r in new), "1/1/A/2#h", "1/1/A/3#h"], 1)
    costed = paper_cost.cost_runs(runs, expected, documented={})
    missing = costed[costed["basis"] == "G"]
    assert missing["cost"].tolist() == [2.0, 2.0]
    assert sorted(missing["peak"].tolist()) == [2.0, 3.0]
    assert paper_cost.experiment_table(costed).loc[0, "longest_s"] == 3.0
    # runs measured at or after --today: the first two are stamped 10:00
    assert paper_cost.experiment_table(costed, "2026-11-29T10").loc[0, "today_s"] == 4.0
    assert paper_cost.experiment_table(costed, "2026-11-29T11").loc[0, "today_s"] == 0.0


@st.composite
def _stores(draw):
    n_points = draw(st.integers(1, 3))
    rows_old, rows_new, pks_old, pks_new = [], [], [], []
    for point in range(1, n_points + 1):
        for rep in range(draw(st.integers(1, 3))):
            wall = draw(st.floats(0.01, 100.0))
            samples = draw(st.integers(1, 10**6))
            pk0, pk1 = f"0/{point}/A/{rep}#h", f"1/{point}/A/{rep}#h"
            rows_old.append(_run(pk0, value=point, wall=wall, samples=samples))
            pks_old.append((pk0, point))
            pks_new.append((pk1, point))
            if draw(st.booleans()):  # stored (measured or not) in the new sweep, or missing
                cpu = draw(st.one_of(st.none(), st.floats(0.01, 100.0)))
                rows_new.append(_run(pk1, seed=1, value=point, wall=wall, cpu=cpu, samples=samples))
    return rows_old, rows_new, pks_old, pks_new


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_stores())
def test_totals_are_the_sum_of_their_parts_and_bases_follow_the_data(data):
    rows_old, rows_new, pks_old, pks_new = data
    frames = [_frame(rows_old, "archive")] + ([_frame(rows_new, "new")] if rows_new else [])
    runs = pd.concat(frames, ignore_index=True)
    expected = pd.concat(
        [_expected([pk], 0, value=v) for pk, v in pks_old]
        + [_expected([pk], 1, value=v) for pk, v in pks_new]
    )
    costed = paper_cost.cost_runs(runs, expected, documented={})
    # one sweep counted, every one of its runs once
    assert costed["pk"].is_unique
    assert len(set(zip(costed["store"], costed["seed"], strict=True))) == 1
    assert len(costed) == len(pks_old)
    # measured exactly where the counted run carries cpu_s, and then its cpu_s
    is_m = costed["basis"] == "M"
    assert (is_m == costed["cpu_s"].notna()).all()
    assert np.allclose(costed.loc[is_m, "cost"], costed.loc[is_m, "cpu_s"])
    assert costed["cost"].notna().all() and (costed["cost"] >= 0).all()
    assert (costed["peak"] >= costed["cost"] - 1e-9).all()
    table = paper_cost.experiment_table(costed)
    tot = paper_cost.totals(table)
    assert table["total_s"].to_numpy() == pytest.approx(
        (table["measured_s"] + table["projected_s"]).to_numpy()
    )
    assert tot["total_s"] == pytest.approx(costed["cost"].sum())
    assert tot["measured_s"] == pytest.approx(costed.loc[is_m, "cost"].sum())
    assert tot["runs"] == len(costed) and tot["longest_s"] == pytest.approx(costed["peak"].max())
    assert tot["today_s"] == 0.0
    assert paper_cost.totals(paper_cost.experiment_table(costed, "2000"))["today_s"] == pytest.approx(
        tot["measured_s"]
    )
    # a sweep with measured runs is counted before one without
    if any(r["cpu_s"] is not None for r in rows_new):
        assert set(costed["store"]) == {"new"}


def test_command_on_a_tiny_store_of_a_registered_experiment(tmp_path, capsys):
    from safebandits.experiments.spec import expand, get_experiment

    tasks = expand(get_experiment("beside-vacuous"), "paper", seed=1)
    rows = []
    for i, t in enumerate(tasks):
        row = _run(
            t.pk, seed=1, value=t.sweep_value, label=t.label, alg=t.algorithm, cpu=0.5 + (i == 3) * 700
        )
        rows.append({**row, "experiment": t.experiment, "run_key": t.run_key, "panel": t.panel})
    store = _write_store(tmp_path / "results.sqlite", rows[:-1])  # one run not stored yet
    assert paper_cost.main(["--no-archives", str(store)]) == 0
    out = capsys.readouterr().out
    last = tasks[-1]
    same = [
        r["cpu_s"]
        for r, t in zip(rows[:-1], tasks[:-1], strict=True)
        if (t.panel, t.sweep_value, t.label) == (last.panel, last.sweep_value, last.label)
    ]
    total = 0.5 * (len(tasks) - 1) + 700 + np.mean(same)
    assert f"{len(tasks):,} runs, {total:,.0f} core-s" in out
    assert "longest run 700 s against 600" in out
    assert "beside-vacuous" in out.split("Runs over 600 s:")[1]


def test_projection_reads_another_seeds_default_sweep_not_a_set_variant_and_its_cpu_when_stored():
    # the counted sweep (seed 1, three runs measured) misses point 2; seed 0 has point 1 archived (wall
    # only) and point 2 measured (cpu 3 s beside 9 s of wall); a --set variant of seed 0 (another
    # configuration hash: not a key today's code asks for) cost 1,000 s at point 2
    new = [_run(f"1/1/A/{i}#h", seed=1, cpu=2.0) for i in range(3)]
    old = [_run(f"0/1/A/{i}#h", wall=6.0) for i in range(2)]
    old += [_run(f"0/2/A/{i}#h", value=2, cpu=3.0, wall=9.0) for i in range(2)]
    variant = [_run(f"0/2/A/{i}#v", value=2, cpu=1000.0, wall=1000.0) for i in range(5)]
    runs = pd.concat(
        [_frame(old, "archive"), _frame(variant, "ranges"), _frame(new, "new")], ignore_index=True
    )
    expected = pd.concat(
        [
            _expected([r["pk"] for r in new], 1),
            _expected(["1/2/A/0#h"], 1, value=2),
            _expected([r["pk"] for r in old[:2]], 0),
            _expected([r["pk"] for r in old[2:]], 0, value=2),
        ]
    )
    costed = paper_cost.cost_runs(runs, expected, documented={})
    assert set(costed["store"]) == {"new"}
    projected = costed[costed["basis"] != "M"]
    # the method's speed-up measured at point 1: 2 s now / 6 s archived = 1/3; point 2: seed 0's 3 s x 1/3
    assert projected["basis"].tolist() == ["P+R"]
    assert projected["cost"].tolist() == pytest.approx([1.0])
    extras = paper_cost.extras_table(runs, costed, expected).set_index("store")
    assert extras.loc["ranges", "kind"] == "variant or older config" and extras.loc["ranges", "runs"] == 5
