"""benchmarks/compare_stores.py: the cell-by-cell comparison of two results stores (issue 32)."""

from __future__ import annotations

import importlib.util
import json
import math
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "compare_stores.py"
_spec = importlib.util.spec_from_file_location("compare_stores", _PATH)
compare_stores = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare_stores)

COLUMNS = ("pk", "run_key", "experiment", "scale", "regret", "wall_s", "timestamp", "numpy_version")


def _store(directory: Path, rows: list[dict], traces: dict[tuple[str, str], object]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(directory / "results.sqlite")
    conn.execute(f"CREATE TABLE runs ({', '.join(f'{c!r}' for c in COLUMNS)})")
    conn.execute("CREATE TABLE traces (pk TEXT, name TEXT, json TEXT)")
    for row in rows:
        conn.execute(
            f"INSERT INTO runs VALUES ({', '.join('?' for _ in COLUMNS)})", [row.get(c) for c in COLUMNS]
        )
    for (pk, name), value in traces.items():
        conn.execute("INSERT INTO traces VALUES (?, ?, ?)", (pk, name, json.dumps(value)))
    conn.commit()
    conn.close()
    return directory


def _rows(values, pk_prefix="a", stamp="t0"):
    return [
        {"pk": f"{pk_prefix}{i}", "run_key": f"k{i}", "experiment": "e", "scale": "quick", "regret": v,
         "wall_s": 1.0 + i, "timestamp": stamp, "numpy_version": stamp}
        for i, v in enumerate(values)
    ]  # fmt: skip


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(values=st.lists(finite, min_size=1, max_size=6), data=st.data())
def test_identical_results_compare_equal_and_one_ulp_does_not(tmp_path_factory, values, data):
    root = tmp_path_factory.mktemp("stores")
    curves = {(f"a{i}", "curve"): {"t": [1, 2], "regret": [v, v]} for i, v in enumerate(values)}
    before = _store(root / "before", _rows(values), curves)
    # other primary keys, wall times, versions and timestamps: ignored; traces matched by run key
    curves_b = {(f"b{i}", "curve"): {"regret": [v, v], "t": [1, 2]} for i, v in enumerate(values)}
    after = _store(root / "after", _rows(values, "b", "t1"), curves_b)
    assert compare_stores.main([str(before), str(after)]) == 0
    i = data.draw(st.integers(0, len(values) - 1))
    changed = list(values)
    changed[i] = math.nextafter(values[i], math.inf)
    curves_c = {(f"c{pk[1:]}", name): v for (pk, name), v in curves.items()}
    moved = _store(root / "moved", _rows(changed, "c"), curves_c)
    assert compare_stores.main([str(before), str(moved)]) == 1


def test_trace_and_missing_runs_are_differences(tmp_path, capsys):
    before = _store(tmp_path / "a", _rows([1.0, 2.0]), {("a0", "curve"): {"y": [1.0]}})
    after = _store(tmp_path / "b", _rows([1.0, 2.0]), {("a0", "curve"): {"y": [1.5]}})
    assert compare_stores.main([str(before), str(after)]) == 1
    assert "trace curve: 1 difference(s)" in capsys.readouterr().out
    fewer = _store(tmp_path / "c", _rows([1.0]), {("a0", "curve"): {"y": [1.0]}})
    assert compare_stores.main([str(before), str(fewer)]) == 1
    assert compare_stores.main([str(fewer), str(before), "--subset"]) == 0


def test_nan_equals_nan_and_no_common_run_is_not_a_pass(tmp_path):
    a = _store(tmp_path / "a", _rows([math.nan]), {})
    b = _store(tmp_path / "b", _rows([math.nan]), {})
    assert compare_stores.main([str(a), str(b)]) == 0
    empty = _store(tmp_path / "e", [], {})
    assert compare_stores.main([str(empty), str(empty)]) == 1
    with pytest.raises(SystemExit):
        compare_stores.main([str(a), str(tmp_path / "nowhere")])


def test_runs_are_matched_by_experiment_scale_and_run_key(tmp_path):
    """Two experiments may hold the same run key (seed / point / label / replicate): not one run."""
    rows = _rows([1.0, 2.0])
    other = [{**r, "experiment": "f", "pk": "f" + r["pk"], "regret": -r["regret"]} for r in rows]
    a = _store(tmp_path / "a", rows + other, {})
    b = _store(tmp_path / "b", other + rows, {})
    assert compare_stores.main([str(a), str(b)]) == 0
    swapped = [{**r, "regret": -r["regret"]} for r in rows]
    c = _store(tmp_path / "c", swapped + other, {})
    assert compare_stores.main([str(a), str(c)]) == 1


def test_tolerance_accepts_rounding_and_nothing_else(tmp_path, capsys):
    """--rtol: floats within the tolerance pass, in columns and in traces; integers, lengths and
    larger float changes remain differences."""
    base = {("a0", "curve"): {"y": [1.0, 2.0], "arm": [3, 4]}}
    before = _store(tmp_path / "a", _rows([1.0, 2.0]), base)
    ulp = math.nextafter(1.0, 2.0)
    nudged = {("a0", "curve"): {"y": [ulp, 2.0], "arm": [3, 4]}}
    after = _store(tmp_path / "b", _rows([ulp, 2.0]), nudged)
    assert compare_stores.main([str(before), str(after)]) == 1
    assert compare_stores.main([str(before), str(after), "--rtol", "1e-12"]) == 0
    assert "largest relative difference seen: 2.22e-16" in capsys.readouterr().out
    for changed in (
        {"y": [1.0, 2.0], "arm": [3, 5]},
        {"y": [1.0], "arm": [3, 4]},
        {"y": [1.1, 2.0], "arm": [3, 4]},
    ):
        other = _store(
            tmp_path / f"c{len(str(changed))}{changed['arm'][1]}",
            _rows([1.0, 2.0]),
            {("a0", "curve"): changed},
        )
        assert compare_stores.main([str(before), str(other), "--rtol", "1e-6"]) == 1
    far = _store(tmp_path / "far", _rows([1.5, 2.0]), base)
    assert compare_stores.main([str(before), str(far), "--rtol", "1e-6"]) == 1
