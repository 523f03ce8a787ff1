"""Merging results stores (``ResultsStore.merge``, ``safebandits merge``)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.cli import cli
from safebandits.exceptions import ConfigError
from safebandits.experiments.store import ResultsStore


def record(pk: str, status: str = "ok", **kw):
    return {"pk": pk, "run_key": pk, "config_hash": "h", "status": status, "samples": 10, **kw}


def fill(directory: Path, runs: dict[str, str], tag: str = "") -> None:
    with ResultsStore(directory, mode="w") as store:
        for pk, status in runs.items():
            store.write(record(pk, status, note=f"{tag}{pk}"), {"curve": [1, 2, pk]})


def test_merge_copies_new_runs_keeps_ok_and_replaces_failed(tmp_path):
    fill(tmp_path / "a", {"r1": "ok", "r2": "failed"}, "a")
    fill(tmp_path / "b", {"r1": "ok", "r2": "ok", "r3": "ok"}, "b")
    with ResultsStore(tmp_path / "a", mode="w") as store:
        assert store.merge(tmp_path / "b") == (2, 1)
        assert store.merge(tmp_path / "b") == (0, 3)  # idempotent
    with ResultsStore(tmp_path / "a", mode="r") as store:
        df = store.to_frame().set_index("pk")
        traces = store.traces("curve")
    assert df.loc["r1", "note"] == "ar1"  # an ok run already there is kept
    assert df.loc["r2", "note"] == "br2" and df.loc["r2", "status"] == "ok"  # the failed one replaced
    assert df.loc["r3", "note"] == "br3" and traces[("r3", "curve")] == [1, 2, "r3"]


def test_merge_refuses_itself_and_read_only(tmp_path):
    fill(tmp_path / "a", {"r1": "ok"})
    with ResultsStore(tmp_path / "a", mode="w") as store, pytest.raises(ConfigError, match="itself"):
        store.merge(tmp_path / "a")
    with ResultsStore(tmp_path / "a", mode="r") as store, pytest.raises(ConfigError, match="read-only"):
        store.merge(tmp_path / "a")


def test_cli_merge_into_a_new_directory(tmp_path):
    fill(tmp_path / "a", {"r1": "ok"})
    fill(tmp_path / "b", {"r2": "failed"})
    result = CliRunner().invoke(
        cli, ["merge", str(tmp_path / "all"), str(tmp_path / "a"), str(tmp_path / "b")]
    )
    assert result.exit_code == 0, result.output
    assert "1 runs copied" in result.output
    with ResultsStore(tmp_path / "all", mode="r") as store:
        assert dict(zip(store.to_frame()["pk"], store.to_frame()["status"])) == {"r1": "ok", "r2": "failed"}
    missing = CliRunner().invoke(cli, ["merge", str(tmp_path / "x"), str(tmp_path / "nope")])
    assert missing.exit_code == 2


statuses = st.dictionaries(st.sampled_from([f"r{i}" for i in range(6)]), st.sampled_from(["ok", "failed"]))


@settings(max_examples=25, deadline=None)
@given(mine=statuses, theirs=statuses)
def test_merge_property(mine, theirs):
    """Every run of either store ends up stored; a run is "ok" iff it was "ok" in either store."""
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp) / "a", Path(tmp) / "b"
        fill(a, mine)
        fill(b, theirs)
        with ResultsStore(a, mode="w") as store:
            copied, kept = store.merge(b)
            assert copied + kept == len(theirs)
            status = dict(zip(store.to_frame()["pk"], store.to_frame()["status"]))
    assert set(status) == set(mine) | set(theirs)
    for pk, s in status.items():
        assert (s == "ok") == ("ok" in (mine.get(pk), theirs.get(pk)))
