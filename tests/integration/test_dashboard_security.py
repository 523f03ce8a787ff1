"""Issue 30, cases 4 and 6: a dashboard safe to leave running, names it can open, bad storage refused at
start, and ``list | head`` ending cleanly.

Cross-site POSTs (another Origin or Referer, no CSRF token) are refused and store nothing; a foreign Host
header (DNS rebinding) is refused; every response carries the security headers; a non-local bind needs a
token; a study whose name holds '/' (stored before such names were refused) opens through its encoded link.
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner

import safebandits as sb
from safebandits.cli import cli
from safebandits.exceptions import ConfigError

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app
from safebandits.dashboard.app import SECURITY_HEADERS, check_bind

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def storage(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    sb.create_study("batch", "acol", inst.public_info(), storage=url, seed=0, max_open=2).close()
    return url


def _client(app, base="http://127.0.0.1"):
    return TestClient(app, base_url=base)


def _n_queries(url: str) -> int:
    """Queries handed out (a batch's pulls are stored together, handed out one by one)."""
    with sb.load_study("batch", url) as s:
        return len([q for q in s.queries() if q["asked_at"]])


def test_cross_site_posts_are_refused_and_store_nothing(storage):
    app = create_app(storage)
    client = _client(app)
    csrf = app.state.csrf_token
    refused = [
        ({"Origin": "http://evil.example"}, {"csrf": csrf}),  # another site, even with the token
        ({"Origin": "null"}, {"csrf": csrf}),  # a sandboxed frame or a file
        ({"Referer": "http://evil.example/page"}, {"csrf": csrf}),  # no Origin: the Referer decides
        ({"Origin": "http://127.0.0.1.evil.example"}, {"csrf": csrf}),
        ({}, {}),  # no CSRF token (a form posted from anywhere else)
        ({}, {"csrf": "guess"}),
    ]
    for headers, data in refused:
        r = client.post("/study/batch/ask", headers=headers, data=data, follow_redirects=False)
        assert r.status_code == 403, (headers, data, r.status_code)
        assert "refused" in r.text
    assert _n_queries(storage) == 0
    # the dashboard's own form: same origin, with the token
    ok = client.post("/study/batch/ask", headers={"Origin": "http://127.0.0.1"}, data={"csrf": csrf},
                     follow_redirects=False)  # fmt: skip
    assert ok.status_code == 303 and _n_queries(storage) == 1
    page = client.get("/study/batch/query/0").text
    assert f'name="csrf" value="{csrf}"' in page
    for headers, data in refused:
        r = client.post("/study/batch/query/0", headers=headers, data={**data, "constraint_0": "-1"})
        assert r.status_code == 403
    with sb.load_study("batch", storage) as s:
        assert s.n_answered == 0
    r = client.post("/study/batch/query/0", data={"csrf": csrf, "constraint_0": "-1"}, follow_redirects=False)
    assert r.status_code == 303
    with sb.load_study("batch", storage) as s:
        assert s.n_answered == 1


def test_token_and_csrf_both_needed(storage):
    app = create_app(storage, token="s3cret")
    client = _client(app)
    assert client.post("/study/batch/ask", data={"token": "s3cret"}).status_code == 403  # no CSRF token
    assert client.post("/study/batch/ask", data={"csrf": app.state.csrf_token}).status_code == 403  # no token
    r = client.post(
        "/study/batch/ask", data={"csrf": app.state.csrf_token, "token": "s3cret"}, follow_redirects=False
    )
    assert r.status_code == 303


def test_foreign_host_header_is_refused(storage):
    """DNS rebinding: a page of evil.example resolving to 127.0.0.1 sends Host: evil.example."""
    app = create_app(storage)
    for base in ("http://evil.example", "http://evil.example:8080"):
        r = _client(app, base).get("/")
        assert r.status_code == 400 and "batch" not in r.text
        assert _client(app, base).get("/study/batch/summary.json").status_code == 400
    for base in ("http://127.0.0.1:8080", "http://localhost:8080"):
        assert _client(app, base).get("/").status_code == 200


def test_security_headers_on_every_response(storage, tmp_path):
    (tmp_path / "res" / "report").mkdir(parents=True)
    (tmp_path / "res" / "report" / "a.txt").write_text("x")
    client = _client(create_app(storage, results=tmp_path / "res"))
    for path in ("/", "/study/batch", "/study/batch/summary.json", "/study/nope", "/results/report/a.txt",
                 "/no/such/page"):  # fmt: skip
        r = client.get(path)
        for key, value in SECURITY_HEADERS.items():
            assert r.headers.get(key) == value, (path, key)
    csp = SECURITY_HEADERS["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "script-src" not in csp and "default-src 'none'" in csp


def test_non_local_bind_needs_a_token():
    assert "localhost" in check_bind("127.0.0.1", None)
    with pytest.raises(ConfigError, match="without a token"):
        check_bind("0.0.0.0", None)
    with pytest.raises(ConfigError, match="without a token"):
        check_bind("192.168.1.5", None)
    assert check_bind("192.168.1.5", "t") == ["192.168.1.5"]
    assert check_bind("0.0.0.0", "t", ["lab.example"]) == ["lab.example"]
    result = CliRunner().invoke(
        cli, ["dashboard", "--host", "0.0.0.0"], env={"SAFEBANDITS_DASHBOARD_TOKEN": ""}
    )
    assert result.exit_code == 2 and "without a token" in result.stderr


def test_dashboard_refuses_bad_storage_at_start(tmp_path):
    (tmp_path / "notes.txt").write_text("not a database")
    with sqlite3.connect(tmp_path / "other.sqlite") as conn:
        conn.execute("CREATE TABLE other (x)")
    conn.close()
    cases = {
        f"sqlite:///{tmp_path / 'notes.txt'}": "not a SQLite database",
        f"sqlite:///{tmp_path / 'no-such-folder' / 'missing.db'}": "does not exist; create it first",
        f"sqlite:///{tmp_path / 'other.sqlite'}": "another application",
        str(tmp_path / "study.db"): "not a storage URL",
        "study.db": "not a storage URL",
    }
    before = sorted(os.listdir(tmp_path))
    for url, message in cases.items():
        result = CliRunner().invoke(cli, ["dashboard", "--storage", url, "--port", "1"])
        assert result.exit_code == 2, (url, result.output)
        assert message in result.stderr and "safebandits dashboard on" not in result.stdout, (
            url,
            result.output,
        )
    assert sorted(os.listdir(tmp_path)) == before


def test_names_with_a_slash(tmp_path):
    url = f"sqlite:///{tmp_path / 'n.db'}"
    info = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5).public_info()
    for bad in ("a/b", "a\\b", "..", "."):
        with pytest.raises(ConfigError, match="must not hold"):
            sb.create_study(bad, "acol", info, storage=url, seed=0)
    result = CliRunner().invoke(
        cli, ["study", "create", "x/y", "--algorithm", "acol", "--instance", "acol/one-dimensional",
              "--storage", url],
    )  # fmt: skip
    assert result.exit_code == 2 and "must not hold" in result.stderr
    # A study stored under such a name before (renamed in the database) still opens in the dashboard.
    sb.create_study("legacy", "acol", info, storage=url, seed=0, max_open=2).close()
    with sqlite3.connect(tmp_path / "n.db") as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("UPDATE sb_studies SET name = 'lab/run 1?#' WHERE name = 'legacy'")
    conn.close()
    app = create_app(url)
    client = _client(app)
    index = client.get("/").text
    assert 'href="/study/lab%2Frun%201%3F%23"' in index
    page = client.get("/study/lab%2Frun%201%3F%23")
    assert page.status_code == 200 and "lab/run 1?#" in page.text
    assert client.get("/study/lab%2Frun%201%3F%23/summary.json").json()["name"] == "lab/run 1?#"
    r = client.post(
        "/study/lab%2Frun%201%3F%23/ask", data={"csrf": app.state.csrf_token}, follow_redirects=False
    )
    assert r.status_code == 303 and r.headers["location"] == "/study/lab%2Frun%201%3F%23/query/0"
    assert client.get(r.headers["location"]).status_code == 200


@pytest.mark.parametrize("what", ["instances", "all"])
def test_list_into_head_ends_cleanly(what):
    exe = f"{sys.executable} -c 'import sys; from safebandits.cli import main; sys.exit(main(sys.argv[1:]))'"
    proc = subprocess.run(
        ["bash", "-c", f"{exe} list {what} | head -1; exit ${{PIPESTATUS[0]}}"],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert proc.stdout.count("\n") == 1
