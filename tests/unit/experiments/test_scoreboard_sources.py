"""Issue 31: the scoreboard shows all the evidence (lists included), reads archived stores, and names no
local path."""

from __future__ import annotations

import lzma
import shutil

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from safebandits.cli import cli
from safebandits.experiments.claims_scoreboard import (
    is_archive,
    key_numbers,
    scoreboard_markdown,
    source_label,
)
from safebandits.experiments.store import DB_NAME, ResultsStore
from tests.unit.experiments.test_claims_meta import ball_table


def _store(path):
    df = ball_table(labels=("LC-LUCB",))
    with ResultsStore(path, mode="w") as store:
        for i, row in enumerate(df.to_dict(orient="records")):
            key = f"0/{row['sweep.value']}/{row['label']}/{row['replicate']}"
            store.write({"pk": f"{key}#h", "run_key": key, "config_hash": "h", "wall_s": 0.5,
                         "timestamp": f"2026-11-24T07:00:{i:02d}+00:00", **row})  # fmt: skip
    return path


def _archive(directory, target):
    with open(directory / DB_NAME, "rb") as src, lzma.open(target, "wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


def test_key_numbers_show_lists_and_nested_records():
    claim = {"evidence": {"ticks_present": [500, 750], "points": [{"labels": 500, "ok": True}],
                          "deep": {"a": {"b": {"c": 0.123456}}}, "flag": False, "none": None,
                          "runs_not_counted": {"failed": {}}}}  # fmt: skip
    text = key_numbers(claim)
    assert "ticks_present=[500, 750]" in text and "points=[{labels=500, ok=true}]" in text
    assert "deep.a.b.c=0.1235" in text and "flag=false" in text and "none=none" in text
    assert "runs_not_counted" not in text


@settings(max_examples=50, deadline=None)
@given(st.dictionaries(st.text("abcxyz", min_size=1, max_size=4), st.lists(st.integers(), max_size=5)))
def test_every_list_value_appears_on_the_page(evidence):
    text = key_numbers({"evidence": evidence})
    for k, v in evidence.items():
        assert f"{k}=[{', '.join(map(str, v))}]" in text


def test_page_from_an_archive_names_no_local_path(tmp_path):
    d = _store(tmp_path / "somewhere" / "results")
    arc = _archive(d, tmp_path / "paper-results.sqlite.xz")
    assert is_archive(arc) and not is_archive(d)
    from_dir = scoreboard_markdown(d, commit="abc1234")
    from_archive = scoreboard_markdown(arc, commit="abc1234")
    assert str(tmp_path) not in from_dir and str(tmp_path) not in from_archive
    assert "a results directory that is not archived" in from_dir
    assert "the archive `paper-results.sqlite.xz`" in from_archive
    # the same verdicts and numbers whether read from the directory or its archive
    body = lambda page: page.split("\n", 3)[3]  # noqa: E731 (drop the header line with its date)
    assert body(from_dir).replace("a results directory that is not archived", "X") == body(
        from_archive
    ).replace("the archive `paper-results.sqlite.xz`", "X")


def test_archive_inside_the_repository_is_named_by_its_repository_path():
    from pathlib import Path

    import safebandits

    repo = Path(safebandits.__file__).resolve().parents[1]
    archive = repo / "docs" / "data" / "paper-results.sqlite.xz"
    if archive.exists():
        assert source_label(archive) == "`docs/data/paper-results.sqlite.xz`"
    assert source_label(repo) == "a results directory that is not archived"


def test_cli_scoreboard_reads_an_archive(tmp_path):
    arc = _archive(_store(tmp_path / "r"), tmp_path / "quick-results.sqlite.xz")
    out = tmp_path / "page.md"
    result = CliRunner().invoke(cli, ["scoreboard", str(arc), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "stagewise-ball" in out.read_text() and str(tmp_path) not in out.read_text()


@pytest.mark.slow
def test_published_page_regenerates_from_the_archives():
    """docs/scoreboard.md's claim rows (verdict, reason, evidence) are those that its archived stores (seed 0
    at both scales, the second seed sets, the declared ranges, the conservative experiments') give with
    today's code (`make scoreboard`)."""
    import re
    from pathlib import Path

    import safebandits

    repo = Path(safebandits.__file__).resolve().parents[1]
    data, page = repo / "docs" / "data", repo / "docs" / "scoreboard.md"
    names = (
        "paper-results",
        "quick-results",
        "quick-conservative-results",
        "paper-confirm-results",
        "quick-seed1-results",
        "paper-seed1b-results",
        "paper-seed1c-results",
        "paper-acol-seed1-results",
        "paper-clucb-seed1-results",
        "paper-ranges-results",
        "paper-clucb-ranges-results",
        "paper-acol-ranges-results",
        "paper-conservative-results",
        "quick-clucb-results",
        "quick-clucb2-results",
        "paper-clucb-results",
        "paper-clucb2-results",
        "dose-anchors-results",
    )  # (the Makefile's order)
    archives = [data / f"{name}.sqlite.xz" for name in names]
    if not page.exists() or not all(a.exists() for a in archives):
        pytest.skip("the published page or its archives are not in this checkout")
    row = re.compile(r"^\| *[\w-]+ *\| *(?:paper|quick) *\| *`[^`]+` *\| *\*\*\w[\w ]*\*\*.*$", re.M)
    published = row.findall(page.read_text())
    regenerated = row.findall(scoreboard_markdown(archives))
    assert len(published) > 200
    assert published == regenerated
    # issue 42: every paper-scale pass or fail carries its robustness marker, every row its reading status
    markers = ("robust: ", "depends on: ", "fragile: ", "untested: ")
    for line in published:
        cells = [c.strip() for c in line.split(" | ")]
        if cells[1] == "paper" and cells[3].split("**")[1] in ("PASS", "FAIL"):
            assert cells[4].startswith(markers), line[:200]
        assert cells[5].startswith(("before (", "post-hoc (", "confirmatory (")), line[:200]


@pytest.mark.slow
def test_every_archived_seed_set_holds_the_keys_todays_code_asks_for(tmp_path):
    """A learner's new config field left keyed changes every archived run's key, and the scoreboard then
    reads those runs as missing (CLUCB's `baseline_reward` made the CLUCB paper's quick claims
    INCONCLUSIVE). Every (experiment, scale, seed) archived with today's defaults is whole under today's
    keys; the declared-range archive (runs with `--set`) is left out."""
    import sqlite3
    from pathlib import Path

    import safebandits
    from safebandits.experiments.papers import load_papers
    from safebandits.experiments.spec import expand, get_experiment, list_experiments

    load_papers()
    data = Path(safebandits.__file__).resolve().parents[1] / "docs" / "data"
    archives = sorted(p for p in data.glob("*.sqlite.xz") if "ranges" not in p.name)
    if not archives:
        pytest.skip("the archives are not in this checkout")
    missing = {}
    for archive in archives:
        db = tmp_path / archive.name.removesuffix(".xz")
        with lzma.open(archive) as src, open(db, "wb") as dst:
            shutil.copyfileobj(src, dst)
        con = sqlite3.connect(db)
        stored: dict[str, set[str]] = {}
        groups = set()
        for exp, scale, seed, pk in con.execute("select experiment, scale, seed, pk from runs"):
            stored.setdefault(exp, set()).add(pk)
            groups.add((exp, scale, int(seed)))
        con.close()
        db.unlink()
        for exp, scale, seed in sorted(groups):
            if exp not in list_experiments():
                continue
            keys = {t.pk for t in expand(get_experiment(exp), scale, seed=seed)}
            if keys - stored[exp]:
                missing[f"{archive.name}: {exp} {scale} seed {seed}"] = (
                    f"{len(keys - stored[exp])} of {len(keys)}"
                )
    assert not missing, missing
