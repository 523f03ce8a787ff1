"""Issue 18: every command and storage refuses bad input with one clear line, never harms a file.

One test (or more) per numbered case of the issue's "Why" (the PostgreSQL halves of cases 2, 3, 6 and 7
are in ``test_hardening_postgres.py``; the fuzz and fault suites in ``test_fuzz_cli.py`` and
``test_faults.py``).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import safebandits as sb
from safebandits.cli import cli
from safebandits.exceptions import ConfigError
from safebandits.experiments.runner import REGRET_METRICS, failed_record
from safebandits.experiments.spec import expand, get_experiment
from safebandits.experiments.store import ResultsStore
from safebandits.study.storage import SCHEMA_VERSION

SECRET = "hunter2-NOT-SHOWN"


def invoke(*args: str, env: dict[str, str] | None = None):
    result = CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def one_line_error(code: int, out: str, err: str, codes=(2,)) -> str:
    assert code in codes, (code, out, err)
    assert "Traceback" not in out + err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines and lines[-1].startswith("Error: "), err
    return lines[-1]


def snapshot(folder: Path) -> dict[str, str]:
    return {
        str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def small_store(directory: Path, *, failed: bool = False) -> Path:
    """A real results store with a few opb-four-arm records (failed ones if asked)."""
    tasks = expand(get_experiment("opb-four-arm"), "quick", replicates=1)
    with ResultsStore(directory, mode="w") as store:
        for task in tasks:
            record = failed_record(task, "ValueError: boom", None)
            record.pop("_traces")
            if not failed:
                record.update(status="ok", samples=10, stopped=True, **dict.fromkeys(REGRET_METRICS, 0.5))
            store.write(record)
    return directory


# -- case 1: a read-only command never destroys a file -----------------------------------------------


@pytest.mark.parametrize("content", [b"x", b"", b"SQLite format 3\x00" + b"\x00" * 84, b"\x89PNG\r\n"])
def test_study_read_commands_leave_foreign_files_byte_identical(tmp_path, content):
    f = tmp_path / "f"
    f.write_bytes(content)
    for cmd in (
        ["list"],
        ["status", "s"],
        ["recommend", "s"],
        ["export", "s"],
        ["ask", "s"],
        ["tell", "s", "0", "1"],
    ):
        line = one_line_error(*invoke("study", *cmd, "--storage", f"sqlite:///{f}"))
        assert str(f) in line
        assert f.read_bytes() == content and sorted(os.listdir(tmp_path)) == ["f"]


def test_study_create_refuses_a_foreign_sqlite_database(tmp_path):
    f = tmp_path / "other.db"
    with sqlite3.connect(f) as conn:
        conn.execute("CREATE TABLE mine (x)")
    before = f.read_bytes()
    line = one_line_error(
        *invoke("study", "create", "s", "--algorithm", "g-acol", "--instance", "acol/one-dimensional",
                "--storage", f"sqlite:///{f}")
    )  # fmt: skip
    assert "another application" in line and f.read_bytes() == before


def test_study_read_commands_do_not_create_a_missing_database(tmp_path):
    line = one_line_error(*invoke("study", "list", "--storage", f"sqlite:///{tmp_path / 'new.db'}"))
    assert "No study database" in line and os.listdir(tmp_path) == []


@pytest.mark.parametrize(
    "content", [b"", b"hello", b"SQLite format 3\x00garbage" * 10, "foreign", "truncated", "wrong-columns"]
)
def test_results_store_commands_refuse_bad_stores_untouched(tmp_path, content):
    """Case 1 and 6: empty, text, corrupt, truncated and foreign results.sqlite: one line, file unchanged."""
    d = tmp_path / "res"
    d.mkdir()
    db = d / "results.sqlite"
    if content == "foreign":
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE other (x)")
    elif content == "truncated":
        small_store(tmp_path / "good")
        src = tmp_path / "good" / "results.sqlite"
        with sqlite3.connect(src) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.write_bytes(src.read_bytes()[:3000])
    elif content == "wrong-columns":
        with sqlite3.connect(db) as conn:
            conn.execute("CREATE TABLE runs (id)")
            conn.execute("CREATE TABLE meta (key, value)")
            conn.execute("INSERT INTO meta VALUES ('schema_version', '1')")
    else:
        db.write_bytes(content)
    before = snapshot(d)
    for args in (
        ["results", str(d)],
        ["report", str(d), "--out", str(tmp_path / "rep")],
        ["run", "opb-four-arm", "--replicates", "1", "--out", str(d), "-q"],
    ):
        line = one_line_error(*invoke(*args))
        assert "results" in line or "database" in line, line
        assert snapshot(d) == before, args


def _mount_read_only(src: Path, dst: Path) -> bool:
    dst.mkdir()
    try:
        ok = subprocess.run(["mount", "--bind", str(src), str(dst)], capture_output=True).returncode == 0
        if (
            ok
            and subprocess.run(["mount", "-o", "remount,ro,bind", str(dst)], capture_output=True).returncode
        ):
            subprocess.run(["umount", str(dst)], capture_output=True)
            ok = False
    except OSError:
        ok = False
    return ok


def test_stores_on_read_only_media_can_be_read_and_reported(tmp_path):
    """Case 1: results, report --out elsewhere and study status on a read-only mount; run refused."""
    src = tmp_path / "src"
    small_store(src / "res")
    sb.create_study("s", "g-acol", sb.make_instance("acol/one-dimensional").public_info(),
                    storage=f"sqlite:///{src / 'study.db'}", seed=0).ask()  # fmt: skip
    ro = tmp_path / "ro"
    if not _mount_read_only(src, ro):
        pytest.skip("cannot bind-mount read-only here (needs root and mount)")
    try:
        assert invoke("results", str(ro / "res"))[0] == 0
        code, _out, err = invoke("report", str(ro / "res"), "--out", str(tmp_path / "rep"))
        assert code == 0 and (tmp_path / "rep" / "index.html").exists(), err
        assert invoke("study", "status", "s", "--storage", f"sqlite:///{ro / 'study.db'}")[0] == 0
        line = one_line_error(*invoke("run", "opb-four-arm", "--replicates", "1", "--out", str(ro / "res")))
        assert "read-only" in line
        line = one_line_error(*invoke("report", str(ro / "res")))
        assert "--out" in line
    finally:
        subprocess.run(["umount", str(ro)], capture_output=True)


# -- case 2: secrets -------------------------------------------------------------------------------


def test_storage_password_is_redacted_when_the_server_is_unreachable():
    env = {"SAFEBANDITS_STORAGE": f"postgresql+psycopg://user:{SECRET}@127.0.0.1:1/db"}
    for cmd in (["status", "x"], ["ask", "nonexist"], ["list"]):
        code, out, err = invoke("study", *cmd, env=env)
        one_line_error(code, out, err, codes=(1, 2))
        assert SECRET not in out + err and "***" in err


# -- case 4: failed runs exit 1; bad --set values are usage errors before the sweep ----------------


@pytest.mark.parametrize("value", ["T=NaN", "T=-1", "T=1e30", "T=1.5", "T=[1,2]", 'T="x"', "delta=2"])
def test_bad_set_values_are_refused_before_anything_is_written(tmp_path, value):
    line = one_line_error(*invoke("run", "opb-four-arm", "--set", value, "--out", str(tmp_path / "o"), "-q"))
    assert value.split("=")[0] in line
    assert not (tmp_path / "o").exists()


def test_integral_floats_are_integers():
    from safebandits.experiments.spec import apply_overrides, parse_assignments
    from safebandits.experiments.validate import check_tasks

    spec, unmatched = apply_overrides(get_experiment("opb-four-arm"), parse_assignments(["T=1e6"]))
    assert not unmatched
    check_tasks(expand(spec, "quick", replicates=1))  # no error: 1e6 is the integer 1000000
    assert sb.make_instance("stagewise/four-arm", T=1e6).horizon == 1_000_000


def test_failed_runs_exit_1_and_say_where_to_read_why(tmp_path, monkeypatch):
    import safebandits.experiments.regret_loop as loop

    def broken(*args, **kwargs):
        raise RuntimeError("injected failure")

    monkeypatch.setattr(loop, "run_regret", broken)
    code, out, err = invoke("run", "opb-four-arm", "--replicates", "1", "--workers", "1", "--out",
                            str(tmp_path / "o"), "-q")  # fmt: skip
    assert code == 1, (out, err)
    assert "runs failed" in err and "safebandits results" in err and "Traceback" not in err
    assert len(ResultsStore(tmp_path / "o").failed_keys()) == 2


def test_seeds_and_budgets_beyond_int64_leave_no_store(tmp_path):
    for args in (["--seed", str(2**64)], ["--budget", str(2**64)]):
        one_line_error(*invoke("run", "opb-four-arm", *args, "--out", str(tmp_path / "o"), "-q"))
        assert not (tmp_path / "o").exists()


# -- case 5: bounds for every instance -------------------------------------------------------------

_NEEDS_DATA = {"ckb/finance", "ckb/light", "fdr/adult", "fdr/german", "acol/driving"}
# Instances built from an experiment file's tables (no defaults of their own).
_NEEDS_TABLES = {"user/declared"}


@pytest.mark.parametrize("name", sorted(_NEEDS_TABLES))
def test_bounds_of_a_file_instance_needs_its_tables(name):
    line = one_line_error(*invoke("bounds", name))
    assert "needs the problem table" in line


@pytest.mark.parametrize(
    "name", [n for n in sb.list_instances() if n not in _NEEDS_DATA and n not in _NEEDS_TABLES]
)
def test_bounds_for_every_instance(name):
    code, out, err = invoke("bounds", name)
    if code == 0:
        import json

        result = json.loads(out)
        assert len(result) > 2
    else:
        line = one_line_error(code, out, err)
        if name != "user/declared":  # (a declared problem needs its table: one line saying so)
            assert "has no bounds" in line and "bounds exist for" in line


# -- case 6: tracebacks instead of messages ----------------------------------------------------------


def test_report_on_a_store_whose_runs_all_failed(tmp_path):
    small_store(tmp_path / "res", failed=True)
    code, _out, err = invoke("report", str(tmp_path / "res"))
    assert code == 0 and "Traceback" not in err, err


def test_output_paths_that_cannot_be_written_are_one_line(tmp_path):
    small_store(tmp_path / "res")
    (tmp_path / "FILE").write_text("x")
    db = f"sqlite:///{tmp_path / 's.db'}"
    sb.create_study(
        "s1", "g-acol", sb.make_instance("acol/one-dimensional").public_info(), storage=db, seed=0
    ).close()
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    cases = [
        ["run", "opb-four-arm", "--out", str(tmp_path / "FILE" / "sub"), "-q"],
        ["results", str(tmp_path / "res"), "--csv", "/nonexistent/x.csv"],
        ["study", "export", "s1", "--out", "/nonexistent/x.json", "--storage", db],
        ["study", "tell", "s1", "0", "@/nonexistent", "--storage", db],
        ["study", "tell", "s1", "0", f"@{tmp_path}", "--storage", db],
        ["study", "tell", "s1", "0", f"@{deep}", "--storage", db],
        ["study", "list", "--storage", f"sqlite:///{tmp_path}"],
        ["study", "tell", "s1", str(2**70), "1", "--storage", db],
    ]
    before = snapshot(tmp_path)
    for args in cases:
        one_line_error(*invoke(*args))
        assert snapshot(tmp_path) == before, args


def test_tell_beyond_int64_on_sqlite(tmp_path):
    s = sb.create_study("s", "g-acol", sb.make_instance("acol/one-dimensional").public_info(),
                        storage=f"sqlite:///{tmp_path / 's.db'}", seed=0)  # fmt: skip
    with pytest.raises(ConfigError, match="non-negative integer"):
        s.tell(2**70, 1)


def test_disk_full_error_is_named_not_hidden(tmp_path):
    """Case 6: 'database or disk is full' is named (not 'cannot rollback - no transaction is active')."""
    store = ResultsStore(tmp_path, mode="w")
    store._conn.execute("PRAGMA max_page_count = 1")  # (the database cannot grow: SQLITE_FULL)
    task = expand(get_experiment("opb-four-arm"), "quick", replicates=1)[0]
    record = failed_record(task, "x" * 100_000, None)
    record.pop("_traces")
    from safebandits._sqlite import StorageError

    with pytest.raises(StorageError, match="full"):
        store.write(record)
    store.close()


# -- case 7: backends agree (SQLite half; PostgreSQL in test_hardening_postgres.py) ----------------------


@pytest.mark.parametrize(
    "answer", [{"constraints": ["0.1"]}, {"constraints": [True]}, "-1", {"constraints": "1"}]
)
def test_strings_and_booleans_are_never_numbers(tmp_path, answer):
    info = sb.make_instance("acol/one-dimensional", noise="binary").public_info()
    s = sb.create_study("s", "g-acol", info, storage=f"sqlite:///{tmp_path / 's.db'}", seed=0)
    q = s.ask()
    with pytest.raises(ConfigError):
        s.tell(q.id, answer)
    assert s.n_answered == 0


# -- case 8: obscure API errors ------------------------------------------------------------------------


def test_api_errors_are_clear():
    from safebandits.experiments.regret_loop import log_grid

    assert sb.make_instance("stagewise/random-mab", rng=42) is not None  # an integer seed is accepted
    with pytest.raises(TypeError, match=r"numpy\.random\.Generator"):
        sb.make_instance("stagewise/random-mab", rng="x")
    info = sb.make_instance("acol/one-dimensional").public_info()
    with pytest.raises(TypeError, match="dict of config fields"):
        sb.make_learner("g-acol", info, np.random.default_rng(0), [("delta", 0.1)])
    with pytest.raises(ConfigError, match="n_points"):
        log_grid(100, 0)
    with pytest.raises(ConfigError, match="at most 4,096"):
        sb.make_instance("acol/irrelevant-dimensions", d=10**6)
    with pytest.raises(ConfigError, match="elements"):
        sb.make_instance("acol/unit-sphere", rng=0, n_arms=10**6, d=1000)


def test_run_regret_refuses_zero_points():
    from safebandits.experiments.regret_loop import run_regret

    inst = sb.make_instance("stagewise/four-arm", T=10)
    learner = sb.make_learner("opb", inst.public_info(), np.random.default_rng(0))
    with pytest.raises(ConfigError, match="n_points"):
        run_regret(learner, inst.environment(np.random.default_rng(0)), inst, n_points=0)


# -- case 9: portability ---------------------------------------------------------------------------------


def test_nothing_posix_only_at_import():
    code = (
        "import sys; sys.modules['fcntl'] = None\n"
        "import safebandits, safebandits.cli, safebandits.experiments.store, safebandits.study\n"
        "import tempfile\n"
        "from safebandits.experiments.store import ResultsStore\n"
        "ResultsStore(tempfile.mkdtemp(), mode='w').close()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


# -- exit codes and --debug ------------------------------------------------------------------------------


def test_exit_codes_documented_and_debug_shows_the_traceback(tmp_path):
    code, out, _ = invoke("--help")
    assert code == 0 and "Exit status" in out and "--debug" in out
    with pytest.raises(ConfigError):
        CliRunner().invoke(cli, ["--debug", "results", str(tmp_path)], catch_exceptions=False)


# -- schema versions, progress lines, SQLite creation races -------------------------------------------


def test_newer_schema_versions_are_refused_untouched(tmp_path):
    small_store(tmp_path / "res")
    db = tmp_path / "res" / "results.sqlite"
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    conn.close()
    before = db.read_bytes()
    line = one_line_error(*invoke("results", str(tmp_path / "res")))
    assert "schema version 99" in line and db.read_bytes() == before
    url = f"sqlite:///{tmp_path / 's.db'}"
    sb.create_study(
        "s", "g-acol", sb.make_instance("acol/one-dimensional").public_info(), storage=url
    ).close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("PRAGMA user_version = 7")
    conn.close()
    before = (tmp_path / "s.db").read_bytes()
    for cmd in (["status", "s"], ["ask", "s"]):
        line = one_line_error(*invoke("study", *cmd, "--storage", url))
        assert "newer" in line and (tmp_path / "s.db").read_bytes() == before


def test_an_unversioned_study_database_is_stamped_by_a_writer(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    sb.create_study(
        "s", "g-acol", sb.make_instance("acol/one-dimensional").public_info(), storage=url
    ).close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        conn.execute("PRAGMA user_version = 0")  # as written before versions were recorded
    conn.close()
    assert invoke("study", "status", "s", "--storage", url)[0] == 0  # readers accept it as it is
    sb.load_study("s", url).close()
    with sqlite3.connect(tmp_path / "s.db") as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    conn.close()


def _create_sqlite(url, seed, barrier, queue):
    try:
        info = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5).public_info()
        barrier.wait(timeout=60)
        s = sb.create_study("race", "g-acol", info, storage=url, seed=seed, load_if_exists=True)
        queue.put(("ok", s.seed))
        s.close()
    except Exception as exc:
        queue.put((type(exc).__name__, str(exc)))


def test_concurrent_create_on_sqlite_is_atomic(tmp_path):
    import multiprocessing as mp

    ctx = mp.get_context("fork")
    barrier, queue = ctx.Barrier(4), ctx.Queue()
    url = f"sqlite:///{tmp_path / 's.db'}"
    procs = [ctx.Process(target=_create_sqlite, args=(url, i, barrier, queue)) for i in range(4)]
    for p in procs:
        p.start()
    out = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    assert all(kind == "ok" for kind, _ in out) and len({seed for _, seed in out}) == 1, out


def test_data_fetch_failure_says_where_to_get_the_data(monkeypatch):
    import safebandits.datasets as datasets
    from safebandits.exceptions import SafeBanditsError

    def offline(name, **kwargs):
        raise SafeBanditsError("no network")

    monkeypatch.setattr(datasets, "fetch_dataset", offline)
    code, out, err = invoke("data", "fetch", "finance")
    line = one_line_error(code, out, err, codes=(2,))
    assert "finance from http" in line and "SAFEBANDITS_DATA" in line


@pytest.mark.parametrize(
    "url",
    [
        f"postgresql://user:{SECRET}@host/db",
        f"postgresql+psycopg://user:{SECRET}@host:5432/db?sslmode=require",
        f"postgresql://user@host/db?password={SECRET}",
        f"mysql://u:{SECRET}@h/d",
    ],
)
def test_redact_url(url):
    from safebandits.study.storage import redact_url

    shown = redact_url(url)
    assert SECRET not in shown and "***" in shown and shown.split("://")[0] == url.split("://")[0]
