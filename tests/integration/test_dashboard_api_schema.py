"""Issue 41, item 5: the JSON API is its schema.

schemathesis (every check, a fixed seed, bounded examples) runs against a real ``safebandits dashboard``
process on 127.0.0.1 with a token and a study to reach (``s1``), and finds nothing; the findings of the
issue are pinned one by one (each failed on the code before the fix): a POST without a body needs no
Content-Type, a charset other than UTF-8 is refused (415), an integral float is an integer id, a method a
path does not take is 405 with every method it takes in ``Allow``, a name is one path segment (``GET
/studies/s3/ask`` is 405, never the study "s3/ask"), the three sources of creation are a ``oneOf``, ids
have a minimum.

The default run keeps schemathesis to a few examples per operation (~15 s); ``-m slow`` runs more.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import safebandits as sb
from tests.integration.test_dashboard_api_process import dashboard_process

pytest.importorskip("schemathesis")
httpx = pytest.importorskip("httpx")

TOKEN = "tok-41-schema"
AUTH = {"Authorization": f"Bearer {TOKEN}"}
SEED = 41

#: Creation and an answer are checked beyond the schema (a learner that fits the problem; an answer that
#: fits its query): a well-formed body may be refused with the documented 422.
CONFIG = """
[parameters]
"path.name" = "s1"

[[operations]]
include-path = "/studies"
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "413", "422"]

[[operations]]
include-path = "/studies/{name}/tell"
include-method = "POST"
checks.positive_data_acceptance.expected-statuses = ["2xx", "401", "403", "404", "409", "422"]
"""


def _storage(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'api.db'}"
    doses = sb.CovariateProblem(covariates=[10, 20, 30], threshold=0.3, safe_action=0, safe_cost=0.05)
    sb.create_study("s1", "opb", doses, storage=url, seed=1).close()  # (schemathesis's)
    sb.create_study("s2", "opb", doses, storage=url, seed=1).close()  # (the findings')
    return url


def _schemathesis(base: str, tmp_path: Path, examples: int) -> subprocess.CompletedProcess[str]:
    config = tmp_path / "schemathesis.toml"
    config.write_text(CONFIG, encoding="utf-8")
    command = [
        sys.executable, "-c", "from schemathesis.cli import schemathesis; schemathesis()",
        "--config-file", str(config), "run", f"{base}/api/v1/openapi.json", "--url", f"{base}/api/v1",
        "-H", f"Authorization: Bearer {TOKEN}", "--checks", "all", "--max-examples", str(examples),
        "--seed", str(SEED), "--no-color", "--generation-database", "none", "--workers", "1",
        "--request-timeout", "20",
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=tmp_path)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    """One dashboard process for the module (its start is the slow part)."""
    tmp_path = tmp_path_factory.mktemp("schema")
    with dashboard_process(_storage(tmp_path), token=TOKEN) as (base, _output):
        yield base, tmp_path


@pytest.mark.parametrize("examples", [pytest.param(8), pytest.param(60, marks=pytest.mark.slow)])
def test_schemathesis_finds_nothing(server, examples: int) -> None:
    base, tmp_path = server
    done = _schemathesis(base, tmp_path, examples)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert "passed" in done.stdout


def test_the_findings_of_issue_41(server) -> None:
    base, _ = server
    api = f"{base}/api/v1"
    # A POST without a body needs no Content-Type (the body of ask is optional); one with a body does.
    r = httpx.post(f"{api}/studies/s2/ask", headers=AUTH, timeout=30)
    assert r.status_code == 200, r.text
    qid = r.json()["id"]
    r = httpx.post(f"{api}/studies/s2/tell", headers=AUTH, content=b'{"id": 0, "answer": 1}', timeout=30)
    assert r.status_code == 415
    # A charset other than UTF-8 is refused; UTF-8 named is accepted.
    body = f'{{"id": {qid}.0, "answer": {{"reward": 1, "constraints": [0]}}}}'.encode()
    utf16 = {**AUTH, "Content-Type": "application/json; charset=utf-16"}
    r = httpx.post(f"{api}/studies/s2/tell", headers=utf16, content=body, timeout=30)
    assert r.status_code == 415
    # An integral float is an integer (JSON Schema's rule); a fractional one or a string is not.
    for bad in (f"{qid}.5", f'"{qid}"'):
        r = httpx.post(f"{api}/studies/s2/tell", headers={**AUTH, "Content-Type": "application/json"},
                       content=body.replace(f"{qid}.0".encode(), bad.encode()), timeout=30)  # fmt: skip
        assert r.status_code == 422, r.text
    utf8 = {**AUTH, "Content-Type": "application/json; charset=UTF-8"}
    r = httpx.post(f"{api}/studies/s2/tell", headers=utf8, content=body, timeout=30)
    assert r.status_code == 200, r.text
    # A method a path does not take: 405 with every method it takes (never 415, never another study).
    for method, path, allow in (
        ("POST", "/studies/s2", {"GET"}),
        ("POST", "/studies/s2/queries", {"GET"}),
        ("GET", "/studies/s2/ask", {"POST"}),
        ("OPTIONS", "/studies", {"GET", "POST"}),
        ("DELETE", "/studies/s2/tell", {"POST"}),
    ):
        r = httpx.request(method, f"{api}{path}", headers=AUTH, timeout=30)
        assert r.status_code == 405, (method, path, r.status_code, r.text)
        assert set(r.headers["allow"].replace(" ", "").split(",")) == allow, (method, path)
        assert r.json()["error"]["code"] == "method_not_allowed"
    schema = httpx.get(f"{api}/openapi.json", timeout=30).json()
    create = schema["components"]["schemas"]["CreateStudy"]
    assert [o["required"] for o in create["oneOf"]] == [["instance"], ["info"], ["experiment"]]
    assert "/" not in create["properties"]["name"]["pattern"].replace("[^/", "")  # (a name has no '/')
    expire = schema["components"]["schemas"]["Expire"]
    item = expire["properties"]["ids"]["anyOf"][0]["items"]
    assert item["minimum"] == 0
    assert all("{name:path}" not in p for p in schema["paths"])
