"""Issue 30, case 1: commands that write a file never destroy one.

An existing file is replaced only with ``--force``; a database (the study's own storage, a results
store, any SQLite file), a SQLite side file and a results store's own files never, not even with
``--force``; the content is written to a temporary file and renamed (a failed write leaves the old file).
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits._output import check_output_file, write_output
from safebandits.exceptions import ConfigError
from tests.integration.test_hardening import invoke, one_line_error, small_store, snapshot


@pytest.fixture
def study_db(tmp_path):
    db = tmp_path / "s.db"
    url = f"sqlite:///{db}"
    s = sb.create_study(
        "s1", "g-acol", sb.make_instance("acol/one-dimensional").public_info(), storage=url, seed=0
    )
    s.tell(s.ask().id, -1)
    s.close()
    return db, url


def test_export_never_overwrites_the_study_database(study_db, tmp_path):
    db, url = study_db
    before = snapshot(tmp_path)
    for extra in ([], ["--force"]):
        line = one_line_error(*invoke("study", "export", "s1", "--out", str(db), "--storage", url, *extra))
        assert "never overwritten" in line and "own storage" in line, line
        assert snapshot(tmp_path) == before
    # the side files of the database too
    for side in ("-wal", "-shm"):
        one_line_error(*invoke("study", "export", "s1", "--out", f"{db}{side}", "--storage", url, "--force"))
    code, out, _ = invoke("study", "status", "s1", "--storage", url)
    assert code == 0 and json.loads(out)["n_answered"] == 1


def test_export_never_overwrites_another_database(study_db, tmp_path):
    _, url = study_db
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE keep (x)")
    conn.close()
    data = other.read_bytes()
    line = one_line_error(*invoke("study", "export", "s1", "--out", str(other), "--storage", url, "--force"))
    assert "SQLite database" in line and other.read_bytes() == data


def test_export_replaces_a_file_only_with_force(study_db, tmp_path):
    _, url = study_db
    target = tmp_path / "e.json"
    target.write_text("precious")
    line = one_line_error(*invoke("study", "export", "s1", "--out", str(target), "--storage", url))
    assert "--force" in line and target.read_text() == "precious"
    code, _, err = invoke("study", "export", "s1", "--out", str(target), "--storage", url, "--force")
    assert code == 0, err
    assert json.loads(target.read_text())["name"] == "s1"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_results_csv_never_overwrites_a_store_or_a_database(tmp_path, study_db):
    db, _ = study_db
    res = tmp_path / "res"
    small_store(res)
    before = snapshot(tmp_path)
    for target in (res / "results.sqlite", res / ".lock", res / "results.sqlite-wal", db):
        if target.name == ".lock":
            target.write_text("")
            before = snapshot(tmp_path)
        line = one_line_error(*invoke("results", str(res), "--csv", str(target), "--force"))
        assert "never overwritten" in line, line
        assert snapshot(tmp_path) == before, target
    code, _, _ = invoke("results", str(res))
    assert code == 0
    csv = tmp_path / "runs.csv"
    csv.write_text("old")
    one_line_error(*invoke("results", str(res), "--csv", str(csv)))
    assert csv.read_text() == "old"
    code, _, err = invoke("results", str(res), "--csv", str(csv), "--force")
    assert code == 0, err
    assert csv.read_text().startswith("pk,") or "run_key" in csv.read_text().splitlines()[0]


def test_other_writers_refuse_too(tmp_path, study_db):
    db, _ = study_db
    before = db.read_bytes()
    # checked before anything is computed: the bad policy is never reached
    one_line_error(*invoke("driving", "render", "--policy", "nonsense", "--out", str(db), "--force"))
    res = tmp_path / "res"
    small_store(res)
    one_line_error(*invoke("scoreboard", str(res), "--out", str(db), "--force"))
    assert db.read_bytes() == before
    page = tmp_path / "board.md"
    page.write_text("old")
    one_line_error(*invoke("scoreboard", str(res), "--out", str(page)))
    assert page.read_text() == "old"


def test_a_failed_write_leaves_the_old_file(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")

    def boom(tmp: Path) -> None:
        tmp.write_text("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_output(target, boom, force=True)
    assert target.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_a_file_that_appears_meanwhile_is_not_replaced(tmp_path):
    target = tmp_path / "new.json"
    path = check_output_file(target, "--out")
    target.write_text("another process")
    with pytest.raises(ConfigError, match="appeared"):
        write_output(path, "mine")
    assert target.read_text() == "another process"


def _sqlite_bytes(tmp_path: Path) -> bytes:
    src = tmp_path / "src.sqlite"
    if not src.exists():
        with sqlite3.connect(src) as conn:
            conn.execute("CREATE TABLE t (x)")
        conn.close()
    return src.read_bytes()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    content=st.one_of(st.none(), st.binary(max_size=2000), st.just("sqlite")),
    force=st.booleans(),
    new=st.text(max_size=50),
)
def test_property_output_rules(tmp_path, content, force, new):
    """Whatever is at the path: a database is never touched, a file only with force, else written whole."""
    target = tmp_path / "target.out"
    target.unlink(missing_ok=True)
    old = None if content is None else (_sqlite_bytes(tmp_path) if content == "sqlite" else content)
    if old is not None:
        target.write_bytes(old)
    is_db = content == "sqlite"
    try:
        path = check_output_file(target, "--out", force=force)
        write_output(path, new, force=force)
        written = True
    except ConfigError:
        written = False
    if is_db or (old is not None and not force):
        assert not written and target.read_bytes() == old
    else:
        assert written and target.read_bytes().decode("utf-8") == new
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
