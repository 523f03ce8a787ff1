"""Issue 30, case 2: one redaction, every URL form, every output.

Every form of a storage URL that carries a password (user:password, password only, query parameter,
libpq key-value string, unencoded ``/ @ ?`` in the password, percent-encoded) is fed to every output:
the redaction itself, storage errors, the CLI (each study command, stdout and stderr), the dashboard
(every page, ``summary.json``, error pages, the start-up line and the server's log). The password -- and
every piece of it a driver might print on its own -- must appear nowhere. Against an unreachable server
(errors) and against the suite's own PostgreSQL server (working storages: real pages and JSON).
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import uuid
import warnings
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.cli import cli
from safebandits.exceptions import SafeBanditsError
from safebandits.study.redact import redact_text, redact_url, url_secrets
from safebandits.study.storage import open_storage

ROOT = Path(__file__).resolve().parents[2]
PW = "Kq7xWv8pLm"  # a plain password
ODD = "Kq7/Wv8@Mz5?Rt"  # unencoded '/', '@' and '?'

#: (form, url with {pw} and {host}) -- {host} is host:port.
FORMS = [
    ("user:password", "postgresql+psycopg://ann:{pw}@{host}/db"),
    ("password only", "postgresql+psycopg://:{pw}@{host}/db?user=ann"),
    ("query parameter", "postgresql+psycopg://ann@{host}/db?password={pw}"),
    ("query user and password", "postgresql+psycopg://{host}/db?user=ann&password={pw}&sslmode=disable"),
    ("sslpassword", "postgresql+psycopg://ann@{host}/db?sslpassword={pw}"),
    ("mysql", "mysql://ann:{pw}@{host}/db?charset=utf8"),
    ("unix socket", "postgresql+psycopg://ann:{pw}@/db?host=/nonexistent/socket"),
]

FORM_IDS = [form for form, _ in FORMS]


def pieces(secret: str) -> list[str]:
    """The secret and every piece of it (split at / @ ? : #) of 3 characters or more."""
    return [secret, *[p for p in re.split(r"[/@?:#]", secret) if len(p) >= 3]]


def assert_clean(text: str, secret: str, where: str) -> None:
    for piece in pieces(secret):
        assert piece not in text, f"{where}: {piece!r} shown in {text[:2000]!r}"
    from urllib.parse import quote

    assert quote(secret, safe="") not in text or quote(secret, safe="") == secret, where


def _invoke(args, env=None):
    result = CliRunner().invoke(cli, args, env=env, catch_exceptions=False)
    return result.exit_code, result.stdout + result.stderr


def _client(app):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    return TestClient(app, base_url="http://127.0.0.1")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# -- the redaction itself ----------------------------------------------------------------------------


@pytest.mark.parametrize("secret", [PW, ODD, "p%40ss%2Fw0rd"], ids=["plain", "odd", "encoded"])
@pytest.mark.parametrize(("form", "template"), FORMS, ids=FORM_IDS)
def test_redact_url_every_form(form, template, secret):
    url = template.format(pw=secret, host="db.example:5432")
    shown = redact_url(url)
    assert_clean(shown, secret, form)
    assert "***" in shown and shown.split("://")[0] == url.split("://")[0]
    assert url_secrets(url)
    message = f"connection to {url} failed: password {secret!r} rejected for host {secret.split('@')[-1]}"
    assert_clean(redact_text(message, url), secret, form)


@pytest.mark.parametrize(
    "dsn",
    [
        f"host=db.example password={PW} user=ann",
        f"host=db.example password='{PW} x' user=ann",
        f"Driver={{PostgreSQL}};Server=db;Uid=ann;Pwd={PW};",
    ],
    ids=["libpq", "libpq-quoted", "odbc"],  # (no password in a test id: ids are printed)
)
def test_redact_key_value_strings(dsn):
    assert_clean(redact_url(dsn), PW, dsn)
    assert_clean(redact_text(f"bad storage {dsn}", dsn), PW, dsn)


@settings(max_examples=200, deadline=None)
@given(
    user=st.text(
        alphabet=st.characters(blacklist_characters=":/@?#", blacklist_categories=("Cs",)), max_size=8
    ),
    secret=st.text(
        alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Zs")), min_size=6, max_size=20
    ).filter(lambda s: s.strip() == s and "*" not in s),
    where=st.sampled_from(["userinfo", "query"]),
)
def test_property_no_password_survives(user, secret, where):
    """Any password (any characters, unencoded) in the user-info or the query is removed."""
    assume(secret not in f"postgresql://{user}:@db.example:5432/studies?user=&password=")
    if where == "userinfo":
        url = f"postgresql://{user}:{secret}@db.example:5432/studies"
    else:
        if any(c in secret for c in "&;,# \t"):
            return  # (these end a query value for every driver: the rest is not the password)
        url = f"postgresql://db.example/studies?user={user}&password={secret}"
    assert secret not in redact_url(url)
    assert secret not in redact_text(f"error: {url} refused ({secret})", url)


# -- errors, CLI and dashboard against an unreachable server -----------------------------------------


@pytest.mark.parametrize("secret", [PW, ODD], ids=["plain", "odd"])
@pytest.mark.parametrize(("form", "template"), FORMS, ids=FORM_IDS)
def test_every_output_of_an_unreachable_storage(form, template, secret, tmp_path):
    url = template.format(pw=secret, host="127.0.0.1:1")  # nothing listens on port 1
    with pytest.raises(SafeBanditsError) as info:
        open_storage(url, create=False, read_only=True)
    assert_clean(str(info.value), secret, f"{form}: open_storage")
    outputs = []
    for args in (
        ["study", "list", "--storage", url],
        ["study", "status", "s", "--storage", url],
        ["study", "ask", "s", "--storage", url],
        [
            "study",
            "create",
            "s",
            "--algorithm",
            "g-acol",
            "--instance",
            "acol/one-dimensional",
            "--storage",
            url,
        ],
        ["study", "export", "s", "--out", str(tmp_path / "e.json"), "--storage", url],
        ["dashboard", "--storage", url, "--port", "1"],  # refused at start: the storage cannot be opened
    ):
        code, out = _invoke(args)
        assert code in (1, 2), (args, out)
        outputs.append(out)
    code, out = _invoke(["study", "list"], env={"SAFEBANDITS_STORAGE": url})
    outputs.append(out)
    from safebandits.dashboard import create_app

    client = _client(create_app(url))
    for path in ("/", "/study/s", "/study/s/summary.json", "/study/s/answer", "/study/s/query/0"):
        outputs.append(client.get(path).text)
    for text in outputs:
        assert_clean(text, secret, form)


# -- real storages on the suite's PostgreSQL server ---------------------------------------------------


@pytest.fixture(scope="module")
def odd_role(pg_server):
    """A role whose password holds unencoded '/', '@' and '?', owning a fresh database; (host, db)."""
    import psycopg

    host = pg_server.url_base.rpartition("@")[2]
    role, db = f"odd_{uuid.uuid4().hex[:8]}", f"sb_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pg_server.admin, autocommit=True) as conn:
        conn.execute(f"CREATE ROLE {role} LOGIN PASSWORD '{ODD}'")
        conn.execute(f'CREATE DATABASE "{db}" OWNER {role}')
    return host, role, db


def _real_forms(pg_server, odd_role):
    from urllib.parse import quote

    from tests.integration.pg_server import PASSWORD, USER

    host, role, odd_db = odd_role
    db = pg_server.fresh_database().rpartition("/")[2]
    return [
        ("user:password", f"postgresql+psycopg://{USER}:{PASSWORD}@{host}/{db}", PASSWORD),
        ("query parameter", f"postgresql+psycopg://{USER}@{host}/{db}?password={PASSWORD}", PASSWORD),
        ("password only", f"postgresql+psycopg://:{PASSWORD}@{host}/{db}?user={USER}", PASSWORD),
        (
            "query user+password",
            f"postgresql+psycopg://{host}/{db}?user={USER}&password={PASSWORD}",
            PASSWORD,
        ),
        ("percent-encoded odd", f"postgresql+psycopg://{role}:{quote(ODD, safe='')}@{host}/{odd_db}", ODD),
    ]


def _dashboard_process_output(url: str) -> str:
    """Start `safebandits dashboard` as a process, load a page, stop it: its whole stdout and stderr."""
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-c", "import sys; from safebandits.cli import main; sys.exit(main(sys.argv[1:]))",
         "dashboard", "--storage", url, "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        import httpx

        deadline, body = time.monotonic() + 60, ""
        while time.monotonic() < deadline and proc.poll() is None:
            try:
                body = httpx.get(f"http://127.0.0.1:{port}/", timeout=5).text
                body += httpx.get(f"http://127.0.0.1:{port}/study/nope", timeout=5).text
                break
            except httpx.HTTPError:
                time.sleep(0.2)
        assert body, "the dashboard did not answer"
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=30)
    assert "safebandits dashboard on http://127.0.0.1" in out, out + err
    return out + err + body


@pytest.mark.slow  # (about 30 s; the unreachable-storage cases stay in the default run)
def test_every_output_of_working_storages(pg_server, odd_role, tmp_path):
    from safebandits.dashboard import create_app

    info = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5).public_info()
    for form, url, secret in _real_forms(pg_server, odd_role):
        name = f"s-{uuid.uuid4().hex[:6]}"
        s = sb.create_study(name, "acol", info, storage=url, seed=0, max_open=2)
        outputs = [repr(s), s.storage_url, str(s.summary())]
        s.close()
        env = {"SAFEBANDITS_STORAGE": url}
        for args in (
            ["study", "list"],
            ["study", "status", name],
            ["study", "ask", name],
            ["study", "tell", name, "0", "-1"],
            ["study", "recommend", name],
            ["study", "status", "nope"],
            ["study", "export", name, "--out", str(tmp_path / f"{name}.json")],
        ):
            code, out = _invoke(args, env)
            assert code in (0, 2), (form, args, out)
            outputs.append(out)
        outputs.append((tmp_path / f"{name}.json").read_text())
        app = create_app(url)
        client = _client(app)
        paths = ["/", f"/study/{name}", f"/study/{name}/summary.json", f"/study/{name}/answer"]
        paths += [f"/study/{name}/query/0", "/study/nope", "/study/nope/summary.json", "/results"]
        for path in paths:
            r = client.get(path)
            outputs.append(r.text)
        r = client.post(f"/study/{name}/ask", data={"csrf": app.state.csrf_token}, follow_redirects=True)
        assert r.status_code == 200, (form, r.text[:500])
        outputs.append(r.text)
        assert "***" in client.get(f"/study/{name}/summary.json").json()["storage"]
        outputs.append(_dashboard_process_output(url))
        for text in outputs:
            assert_clean(text, secret, form)
