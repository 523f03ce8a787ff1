"""Issue 30, case 8: the dashboard's JSON API (``/api/v1``) drives a study exactly as the Python API does.

Every endpoint's success and refusal paths: bad JSON, wrong types, strings for numbers, too-large bodies,
unknown studies and queries, missing or wrong tokens, cross-origin requests, wrong content types. Each
refusal is JSON of one shape (``{"error": {"status", "code", "message"}}``) and leaves the store as it
was; answers stored through the API are those the Python API stores; the served OpenAPI schema is valid.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import safebandits as sb
from safebandits.cli import cli

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app
from safebandits.dashboard.api import openapi_schema

ROOT = Path(__file__).resolve().parents[2]
JSON = {"content-type": "application/json"}
N_QUERIES = 20  # each request replays the study: keep the loops short


def answer_of(qid: int, arm: int) -> int:
    """A deterministic binary answer (the same in the API's run and the reference run)."""
    return 1 if np.random.default_rng([11, qid]).random() < 0.3 + 0.1 * arm else -1


def batch_answer(counts) -> dict:
    """The rule of examples/http_api_client.sh: arm k's answers average 0.06 (k + 1), in whole answers."""
    sums = []
    for k, n in enumerate(counts):
        p = int(np.floor(n * (1 + 0.06 * (k + 1)) / 2 + 0.5))
        sums.append([2 * p - n])
    return {"constraint_sums": sums}


@pytest.fixture
def storage(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    sb.create_study("seq", "g-acol", inst.public_info(), storage=url, seed=1).close()
    return url


def client(url, token=None, **kw):
    return TestClient(create_app(url, token=token, **kw), base_url="http://127.0.0.1")


def snapshot(url: str) -> tuple:
    """Everything stored: the study names and each study's export (definition, queries, answers)."""
    names = sb.list_studies(url)
    exports = []
    for name in names:
        with sb.load_study(name, url) as s:
            exports.append(s.export())
    return names, json.dumps(exports, sort_keys=True)


def assert_error(r, status: int, code: str | None = None) -> dict:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert set(body) == {"error"} and {"status", "code", "message"} <= set(body["error"]), body
    assert body["error"]["status"] == status and isinstance(body["error"]["message"], str)
    assert "Traceback" not in r.text
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]


def stored_queries(study) -> list:
    return [(q["id"], q["decision"], q["observation"]) for q in study.queries()]


# -- success: the API drives a study to the state the Python API reaches ---------------------------------


def test_api_drives_a_study_like_the_python_api(storage, tmp_path):
    c = client(storage)
    made = c.post("/api/v1/studies", json={
        "name": "api", "algorithm": "g-acol", "instance": "acol/one-dimensional",
        "instance_params": {"noise": "binary", "n_arms": 5}, "seed": 4,
    })  # fmt: skip
    assert made.status_code == 201, made.text
    reply = made.json()
    config = reply.pop("config")  # every option as the learner applies it (issue 40)
    assert set(config) == set(sb.config_to_dict(sb.get_algorithm("g-acol").config()))
    assert reply == {"name": "api", "algorithm": "g-acol", "task": "pure_exploration", "seed": 4,
                     "storage": storage}  # fmt: skip
    assert c.get("/api/v1/studies").json() == {"studies": ["api", "seq"]}
    arms = []
    while len(arms) < N_QUERIES and not c.get("/api/v1/studies/api").json()["done"]:
        q = c.post("/api/v1/studies/api/ask", headers=JSON).json()
        again = c.post("/api/v1/studies/api/ask", headers=JSON, content=b"{}").json()
        assert again == q  # max_open=1: the open query until it is told
        arms.append(q["arm"])
        told = c.post(
            "/api/v1/studies/api/tell", json={"id": q["id"], "answer": answer_of(q["id"], q["arm"])}
        )
        assert told.status_code == 200 and told.json()["n_answered"] == len(arms)
    rec = c.get("/api/v1/studies/api/recommendation").json()
    # the same study through the Python API, uninterrupted
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    ref = sb.create_study(
        "ref", "g-acol", inst.public_info(), storage=f"sqlite:///{tmp_path / 'r.db'}", seed=4
    )
    while len(ref.queries()) < len(arms):
        q = ref.ask()
        ref.tell(q.id, answer_of(q.id, q.arm))
    with sb.load_study("api", storage) as s:  # what the API stored, read back by the Python API
        assert stored_queries(s) == stored_queries(ref)
        assert s.export()["info"] == ref.export()["info"] and s.export()["config"] == ref.export()["config"]
        assert s.summary()["recommendation"] == ref.summary()["recommendation"]
    assert [q[1]["arm"] for q in stored_queries(ref)] == arms
    assert rec["arm"] == ref.recommend().arm and rec["final"] == ref.done and isinstance(rec["words"], str)
    status = c.get("/api/v1/studies/api").json()
    assert (
        status["n_answered"] == len(arms) and status["storage"] == storage and "confidence_bounds" in status
    )
    listed = c.get("/api/v1/studies/api/queries").json()["queries"]
    assert [(q["id"], q["decision"], q["observation"]) for q in listed] == stored_queries(ref)
    ref.close()


def test_batches_split_pulls_and_expire(tmp_path):
    url = f"sqlite:///{tmp_path / 'b.db'}"
    c = client(_empty(url))
    body = {"name": "b", "algorithm": "acol", "instance": "acol/one-dimensional",
            "instance_params": {"noise": "binary", "n_arms": 5}, "seed": 0, "max_open": 2}  # fmt: skip
    assert c.post("/api/v1/studies", json=body).status_code == 201
    q0 = c.post("/api/v1/studies/b/ask", headers=JSON).json()
    q1 = c.post("/api/v1/studies/b/ask", headers=JSON).json()
    assert q0["part_of"] == 0 and q1["id"] == 1 and q0["parts"] > 2
    assert_error(c.post("/api/v1/studies/b/ask", headers=JSON), 409, "no_query_available")
    assert c.post("/api/v1/studies/b/expire", json={"ids": [1]}).json() == {"expired": [1]}
    assert c.post("/api/v1/studies/b/ask", headers=JSON).json()["id"] == 1  # re-issued first
    assert c.post("/api/v1/studies/b/expire", json={"older_than": 3600}).json() == {"expired": []}
    assert c.post("/api/v1/studies/b/tell", json={"id": 1, "answer": -1}).json()["told"] is True
    assert c.post("/api/v1/studies/b/tell", json={"id": 0, "answer": {"constraints": [1]}}).status_code == 200
    for bad in ({"older_than": -1}, {"older_than": "60"}, {"older_than": 1e10}, {"ids": ["1"]}, {"ids": 1},
                {"older_than": True}, {"id": 1}):  # fmt: skip
        assert_error(c.post("/api/v1/studies/b/expire", json=bad), 422, "invalid")


def _empty(url: str) -> str:
    from safebandits.study.storage import open_storage

    open_storage(url).close()
    return url


def test_a_done_study_refuses_ask(tmp_path):
    url = _empty(f"sqlite:///{tmp_path / 'd.db'}")
    c = client(url)
    body = {"name": "d", "algorithm": "acol", "instance": "acol/one-dimensional",
            "instance_params": {"noise": "binary", "n_arms": 5}, "seed": 7}  # fmt: skip
    assert c.post("/api/v1/studies", json=body).status_code == 201
    for _ in range(10):
        q = c.post("/api/v1/studies/d/ask", headers=JSON).json()
        assert c.post(
            "/api/v1/studies/d/tell", json={"id": q["id"], "answer": batch_answer(q["counts"])}
        ).json()
        if c.get("/api/v1/studies/d").json()["done"]:
            break
    rec = c.get("/api/v1/studies/d/recommendation").json()
    assert rec["final"] is True and rec["arm"] == 3  # arm 4's answers average 0.30 > 0.25
    before = snapshot(url)
    assert_error(c.post("/api/v1/studies/d/ask", headers=JSON), 409, "done")
    assert snapshot(url) == before


# -- creation: the arguments and checks of `study create` -------------------------------------------------


def _cli_create(url: str, args: list[str]) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["study", "create", *args, "--storage", url], catch_exceptions=False)
    return result.exit_code, result.stdout + result.stderr


@pytest.mark.parametrize(
    ("body", "cli_args"),
    [
        (
            {
                "instance": "acol/one-dimensional",
                "instance_params": {"n_arms": 4, "noise": "binary"},
                "seed": 2,
            },
            [
                "--instance",
                "acol/one-dimensional",
                "--set",
                "n_arms=4",
                "--set",
                "noise=binary",
                "--seed",
                "2",
            ],
        ),
        (
            {"instance": "acol/one-dimensional", "config": {"delta": 0.1}, "seed": 2, "max_open": 3},
            ["--instance", "acol/one-dimensional", "--param", "delta=0.1", "--seed", "2", "--max-open", "3"],
        ),
        (
            {"instance": "acol/one-dimensional", "instance_params": {"n_arms": "4"}, "seed": 2},
            ["--instance", "acol/one-dimensional", "--set", 'n_arms="4"', "--seed", "2"],
        ),  # a string: refused
        ({"instance": "no/such", "seed": 2}, ["--instance", "no/such", "--seed", "2"]),
        (
            {"instance": "acol/one-dimensional", "config": {"delta": "0.1"}},
            ["--instance", "acol/one-dimensional", "--param", 'delta="0.1"'],
        ),
        (
            {"instance": "acol/one-dimensional", "config": {"no_such_option": 1}},
            ["--instance", "acol/one-dimensional", "--param", "no_such_option=1"],
        ),
        ({"info": {"__type__": "Nope"}}, None),
        ({"instance": "acol/one-dimensional", "info": {}}, None),  # two problems
        ({}, None),  # none
        ({"info": None, "instance_params": {"n_arms": 4}}, None),
    ],
    ids=[
        "instance",
        "config",
        "string-param",
        "unknown-instance",
        "string-config",
        "unknown-option",
        "bad-info",
        "two-problems",
        "no-problem",
        "set-without-instance",
    ],
)
def test_create_checks_as_the_cli_does(tmp_path, body, cli_args):
    api_url, cli_url = _empty(f"sqlite:///{tmp_path / 'a.db'}"), f"sqlite:///{tmp_path / 'c.db'}"
    r = client(api_url).post("/api/v1/studies", json={"name": "s", "algorithm": "g-acol", **body})
    if cli_args is not None:
        code, out = _cli_create(cli_url, ["s", "--algorithm", "g-acol", *cli_args])
        assert (r.status_code == 201) == (code == 0), (r.text, out)
    if r.status_code == 201:
        with sb.load_study("s", api_url) as a, sb.load_study("s", cli_url) as b:
            assert {k: v for k, v in a.export().items() if k != "queries"} == {
                k: v for k, v in b.export().items() if k != "queries"
            }
    else:
        assert_error(r, 422, "invalid")
        assert sb.list_studies(api_url) == []


def test_create_from_an_experiment_as_the_cli_does(tmp_path):
    from safebandits.experiments.user import tomllib

    toml = ROOT / "examples" / "compare_linear_arms.toml"
    experiment = tomllib.loads(toml.read_text())
    api_url, cli_url = _empty(f"sqlite:///{tmp_path / 'a.db'}"), f"sqlite:///{tmp_path / 'c.db'}"
    learner = experiment["learners"][-1].get("label") or experiment["learners"][-1]["name"]
    r = client(api_url).post("/api/v1/studies", json={"name": "e", "algorithm": learner,
                                                      "experiment": experiment, "seed": 3})  # fmt: skip
    code, out = _cli_create(cli_url, ["e", "--algorithm", learner, "--problem", str(toml), "--seed", "3"])
    assert r.status_code == 201 and code == 0, (r.text, out)
    printed = json.loads(out)
    assert {**r.json(), "storage": None} == {**printed, "storage": None} and r.json()["kind"]
    with sb.load_study("e", api_url) as a, sb.load_study("e", cli_url) as b:
        assert a.export() == b.export()
    # a pool table from no file reads no file
    pool = {"problem": {"setting": "pool", "csv": "/etc/passwd", "label": "x"}}
    err = assert_error(client(api_url).post("/api/v1/studies", json={"name": "p", "algorithm": "fdr-active",
                                                                     "experiment": pool}), 422)  # fmt: skip
    assert "no file is read" in err["message"] and sb.list_studies(api_url) == ["e"]


def test_create_refusals(storage):
    c = client(storage)
    good = {"name": "n", "algorithm": "g-acol", "instance": "acol/one-dimensional"}
    before = snapshot(storage)
    cases = [
        ({**good, "name": "seq"}, 409, "conflict"),  # in use
        ({**good, "name": "a/b"}, 422, "invalid"),
        ({**good, "name": ""}, 422, "invalid"),
        ({**good, "name": "x" * 256}, 422, "invalid"),
        ({**good, "name": 5}, 422, "invalid"),
        ({**good, "seed": "3"}, 422, "invalid"),  # strings are not numbers
        ({**good, "seed": 3.5}, 422, "invalid"),  # (3.0 is an integer, as JSON Schema says: issue 41)
        ({**good, "seed": True}, 422, "invalid"),
        ({**good, "seed": -1}, 422, "invalid"),
        ({**good, "seed": 2**63}, 422, "invalid"),
        ({**good, "seed": 2**70}, 422, "invalid"),
        ({**good, "max_open": 0}, 422, "invalid"),
        ({**good, "max_open": 10**7}, 422, "invalid"),
        ({**good, "instance_seed": "0"}, 422, "invalid"),
        ({**good, "instance_params": ["n_arms=5"]}, 422, "invalid"),
        ({**good, "unknown": 1}, 422, "invalid"),
        ({**good, "algorithm": "nope"}, 422, "invalid"),
        ({"algorithm": "g-acol", "instance": "acol/one-dimensional"}, 422, "invalid"),
        ([good], 422, "invalid"),
        ("n", 422, "invalid"),
        (None, 422, "invalid"),
    ]
    for body, status, code in cases:
        r = c.post("/api/v1/studies", content=json.dumps(body).encode(), headers=JSON)
        assert_error(r, status, code)
    assert snapshot(storage) == before


# -- tell, ask and reads: refusals leave the store as it was ---------------------------------------------


def test_tell_refusals(storage):
    c = client(storage)
    q = c.post("/api/v1/studies/seq/ask", headers=JSON).json()
    before = snapshot(storage)
    cases = [
        ({"id": q["id"], "answer": "1"}, 422, "invalid"),  # a string is not a number
        ({"id": q["id"], "answer": True}, 422, "invalid"),
        ({"id": q["id"], "answer": 0.5}, 422, "invalid"),  # binary feedback: +1 or -1
        ({"id": q["id"], "answer": None}, 422, "invalid"),
        ({"id": q["id"], "answer": {"reward": 1}}, 422, "invalid"),
        ({"id": q["id"], "answer": {"constraints": ["-1"]}}, 422, "invalid"),
        ({"id": q["id"], "answer": [[[[[[[[[[1]]]]]]]]]]}, 422, "invalid"),
        ({"id": str(q["id"]), "answer": -1}, 422, "invalid"),
        ({"id": -1, "answer": -1}, 422, "invalid"),
        ({"id": 2**63, "answer": -1}, 422, "invalid"),
        ({"id": 0.5, "answer": -1}, 422, "invalid"),  # (0.0 is the integer 0, as JSON Schema says: issue 41)
        ({"answer": -1}, 422, "invalid"),
        ({"id": q["id"]}, 422, "invalid"),
        ({"id": q["id"], "answer": -1, "extra": 1}, 422, "invalid"),
        ({"id": 7, "answer": -1}, 404, "unknown_query"),
        ([q["id"], -1], 422, "invalid"),
    ]
    for body, status, code in cases:
        assert_error(c.post("/api/v1/studies/seq/tell", json=body), status, code)
    for raw, status, code in [
        (b"{bad", 400, "bad_json"),
        (b'{"id": 0, "answer": NaN}', 400, "bad_json"),
        (b'{"id": 0, "answer": Infinity}', 400, "bad_json"),
        (b"[" * 100_000 + b"]" * 100_000, 400, "bad_json"),
        (b'{"id": 0, "answer": 1' + b"0" * 5000 + b"}", 400, "bad_json"),  # (an integer of 5,000 digits)
        (b"\xff\xfe", 400, "bad_json"),
        (b"", 422, "invalid"),
    ]:
        assert_error(c.post("/api/v1/studies/seq/tell", content=raw, headers=JSON), status, code)
    assert_error(c.post("/api/v1/studies/nope/tell", json={"id": 0, "answer": -1}), 404, "not_found")
    assert snapshot(storage) == before
    assert c.post("/api/v1/studies/seq/tell", json={"id": q["id"], "answer": -1}).status_code == 200
    after = snapshot(storage)
    assert_error(c.post("/api/v1/studies/seq/tell", json={"id": q["id"], "answer": 1}), 409, "already_told")
    assert snapshot(storage) == after


def test_unknown_studies_and_paths(storage):
    c = client(storage)
    for method, path in [
        ("GET", "/api/v1/studies/nope"),
        ("GET", "/api/v1/studies/nope/recommendation"),
        ("GET", "/api/v1/studies/nope/queries"),
        ("POST", "/api/v1/studies/nope/ask"),
        ("POST", "/api/v1/studies/nope/expire"),
        ("GET", "/api/v1/studies/" + "x" * 300),
        ("GET", "/api/v1/studies/%00"),
        ("GET", "/api/v1/no/such/path"),
    ]:
        r = c.request(method, path, headers=JSON, content=b"{}" if method == "POST" else None)
        err = assert_error(r, 404)
        assert err["code"] in ("not_found",)
    assert_error(c.delete("/api/v1/studies/seq"), 405, "method_not_allowed")
    # A name is one path segment (issue 41): GET on ask is the wrong method, not the study 'seq/ask'.
    assert_error(c.get("/api/v1/studies/seq/ask"), 405, "method_not_allowed")
    assert sb.list_studies(storage) == ["seq"]


def test_a_name_with_a_slash_stored_earlier_opens(storage):
    import sqlite3

    path = storage.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:  # (such names were refused later; stored ones still load)
        conn.execute("UPDATE sb_studies SET name = 'a/b' WHERE name = 'seq'")
    c = client(storage)
    assert c.get("/api/v1/studies/a%2Fb").json()["name"] == "a/b"
    q = c.post("/api/v1/studies/a%2Fb/ask", headers=JSON).json()
    assert c.post("/api/v1/studies/a%2Fb/tell", json={"id": q["id"], "answer": -1}).status_code == 200
    assert c.get("/api/v1/studies/a%2Fb/recommendation").status_code == 200


# -- token, origin, content type, size ---------------------------------------------------------------------

CALLS = [
    ("GET", "/api/v1/studies", None),
    ("GET", "/api/v1/studies/seq", None),
    ("GET", "/api/v1/studies/seq/recommendation", None),
    ("GET", "/api/v1/studies/seq/queries", None),
    ("POST", "/api/v1/studies/seq/ask", {}),
    ("POST", "/api/v1/studies/seq/expire", {}),
    ("POST", "/api/v1/studies/seq/tell", {"id": 0, "answer": -1}),
    ("POST", "/api/v1/studies", {"name": "new", "algorithm": "g-acol", "instance": "acol/one-dimensional"}),
]


def test_token_is_needed_for_every_call(storage):
    c = client(storage, token="s3cret")
    before = snapshot(storage)
    for method, path, body in CALLS:
        for headers in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": "s3cret"},
            {"Authorization": "Basic s3cret"},
            {"X-Token": "s3cret"},
            {"Authorization": "Bearer "},
        ):
            r = c.request(method, path, json=body, headers=headers)
            assert_error(r, 401, "unauthorized")
            assert r.headers["www-authenticate"] == "Bearer" and "s3cret" not in r.text
        # the dashboard's cookie is no API credential (a cookie would make cross-site writes possible)
        c.cookies.set("sb_dashboard_token", "s3cret")
        r = c.request(method, path, json=body)
        c.cookies.clear()
        assert r.status_code == 401
    assert snapshot(storage) == before
    ok = {"Authorization": "Bearer s3cret"}
    for method, path, body in CALLS:
        r = c.request(method, path, json=body, headers=ok)
        assert r.status_code in (200, 201), (path, r.text)
    assert c.get("/api/v1/openapi.json").status_code == 200  # the schema is no secret


def test_cross_site_requests_are_refused(storage):
    c = client(storage)
    before = snapshot(storage)
    for method, path, body in CALLS:
        for headers in ({"Origin": "http://evil.example"}, {"Origin": "null"},
                        {"Origin": "http://127.0.0.1.evil.example"}, {"Origin": "http://127.0.0.1:9999"},
                        {"Referer": "http://evil.example/page"}):  # fmt: skip
            assert_error(c.request(method, path, json=body, headers=headers), 403, "forbidden")
    for method, path, body in CALLS:
        if method != "POST":
            continue
        for kind in (
            "text/plain",
            "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x",
            "application/jsonx",
            "",
        ):  # (what a cross-site form or a no-cors fetch can send)
            r = c.post(path, content=json.dumps(body).encode(), headers={"content-type": kind})
            assert_error(r, 415, "unsupported_media_type")
        r = c.post(path, data={"name": "new", "id": "0"})  # an HTML form
        assert_error(r, 415)
    assert snapshot(storage) == before
    # the same origin (the dashboard's own pages) is fine; no CORS header is ever granted
    r = c.post("/api/v1/studies/seq/ask", headers={**JSON, "Origin": "http://127.0.0.1"})
    assert r.status_code == 200 and "access-control-allow-origin" not in r.headers
    preflight = {"Origin": "http://evil.example", "Access-Control-Request-Method": "POST"}
    pre = c.options("/api/v1/studies/seq/ask", headers=preflight)
    assert "access-control-allow-origin" not in pre.headers
    r = c.post("/api/v1/studies/seq/ask", headers={"content-type": "application/json; charset=utf-8"})
    assert r.status_code == 200


def test_foreign_host_is_refused(storage):
    c = TestClient(create_app(storage), base_url="http://evil.example")
    assert c.get("/api/v1/studies").status_code == 400
    assert c.post("/api/v1/studies/seq/ask", headers=JSON).status_code == 400


def test_large_bodies_are_refused_unread(storage):
    c = client(storage, max_body=4096)
    before = snapshot(storage)
    big = {"id": 0, "answer": [-1] * 5000}
    assert_error(c.post("/api/v1/studies/seq/tell", json=big), 413, "too_large")

    def chunks():  # no Content-Length: counted while read
        yield b'{"id": 0, "answer": ['
        for _ in range(2000):
            yield b"-1, "
        yield b"-1]}"

    assert_error(c.post("/api/v1/studies/seq/tell", content=chunks(), headers=JSON), 413, "too_large")
    r = c.post("/api/v1/studies/seq/tell", content=b"{}", headers={**JSON, "content-length": "99999999"})
    assert r.status_code == 413
    info = {"name": "big", "algorithm": "g-acol", "info": {"arms": [[0.5]] * 5000}}
    assert_error(c.post("/api/v1/studies", json=info), 413, "too_large")
    assert snapshot(storage) == before
    # the default: 8 MiB (safebandits._limits.MAX_REQUEST_BYTES)
    from safebandits._limits import MAX_REQUEST_BYTES

    r = client(storage).post("/api/v1/studies/seq/tell", content=b" " * (MAX_REQUEST_BYTES + 1), headers=JSON)
    assert_error(r, 413, "too_large")


def test_internal_errors_are_json_without_credentials(storage, monkeypatch, caplog):
    from safebandits.study.study import Study

    secret = "pa55-w0rd"

    def broken(self):
        raise RuntimeError(f"cannot reach postgresql://ann:{secret}@db.example/studies")

    monkeypatch.setattr(Study, "summary", broken)
    app = create_app(storage)
    c = TestClient(app, base_url="http://127.0.0.1", raise_server_exceptions=False)
    with caplog.at_level("DEBUG"):
        r = c.get("/api/v1/studies/seq")
    err = assert_error(r, 500, "internal")
    assert secret not in r.text and "RuntimeError" in err["message"]
    assert any("internal error" in rec.getMessage() for rec in caplog.records)
    assert all(secret not in rec.getMessage() and rec.exc_info is None for rec in caplog.records)


# -- the schema ------------------------------------------------------------------------------------------


def test_served_schema_is_valid_openapi(storage):
    from openapi_spec_validator import validate

    schema = client(storage).get("/api/v1/openapi.json").json()
    validate(schema)
    assert schema["openapi"].startswith("3.")
    paths = schema["paths"]
    for path, methods in [("/studies", {"get", "post"}), ("/studies/{name}/ask", {"post"}),
                          ("/studies/{name}/tell", {"post"}), ("/studies/{name}", {"get"}),
                          ("/studies/{name}/recommendation", {"get"}), ("/studies/{name}/expire", {"post"}),
                          ("/studies/{name}/queries", {"get"})]:  # fmt: skip
        assert methods <= set(paths[path]), path
        for method in methods:
            op = paths[path][method]
            assert op["security"] == [{"HTTPBearer": []}]
            assert "401" in op["responses"] and "403" in op["responses"]
            errors = [r for code, r in op["responses"].items() if code.startswith(("4", "5"))]
            error_body = {"$ref": "#/components/schemas/ErrorBody"}
            assert all(r["content"]["application/json"]["schema"] == error_body for r in errors)
    tell = schema["components"]["schemas"]["Tell"]
    assert tell["additionalProperties"] is False and set(tell["required"]) == {"id", "answer"}
    create = schema["components"]["schemas"]["CreateStudy"]
    assert create["properties"]["seed"]["anyOf"][0]["maximum"] == 2**63 - 1
    assert schema["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
    assert openapi_schema()["paths"] == paths and openapi_schema()["servers"] == [{"url": "/api/v1"}]


def test_schema_describes_what_the_server_sends(storage):
    """Each success response validates against its declared schema (the docs do not drift from the code)."""
    from openapi_schema_validator import OAS31Validator

    c = client(storage)
    schema = c.get("/api/v1/openapi.json").json()

    def check(path_key, method, status, body):
        ref = schema["paths"][path_key][method]["responses"][str(status)]["content"]["application/json"]
        OAS31Validator({**ref["schema"], "components": schema["components"]}).validate(body)

    q = c.post("/api/v1/studies/seq/ask", headers=JSON)
    check("/studies/{name}/ask", "post", 200, q.json())
    check("/studies/{name}/tell", "post", 200, c.post("/api/v1/studies/seq/tell",
                                                      json={"id": 0, "answer": -1}).json())  # fmt: skip
    check("/studies/{name}", "get", 200, c.get("/api/v1/studies/seq").json())
    check("/studies/{name}/recommendation", "get", 200, c.get("/api/v1/studies/seq/recommendation").json())
    check("/studies/{name}/queries", "get", 200, c.get("/api/v1/studies/seq/queries").json())
    check("/studies", "get", 200, c.get("/api/v1/studies").json())
    made = c.post(
        "/api/v1/studies", json={"name": "x", "algorithm": "acol", "instance": "acol/one-dimensional"}
    )
    check("/studies", "post", 201, made.json())
    check("/studies/{name}/tell", "post", 404, c.post("/api/v1/studies/seq/tell",
                                                      json={"id": 9, "answer": -1}).json())  # fmt: skip
    check("/studies/{name}/expire", "post", 200, c.post("/api/v1/studies/x/expire", json={}).json())


def test_docs_print_the_served_schema(storage, tmp_path):
    """docs/http_api.md includes the schema docs/apigen.py writes at build time: the one the server serves."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("safebandits_docs_apigen_api", ROOT / "docs" / "apigen.py")
    apigen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(apigen)
    apigen.write_openapi(tmp_path)
    served = client(storage).get("/api/v1/openapi.json").json()
    written = json.loads((tmp_path / "openapi.json").read_text())
    assert written == {**served, "servers": [{"url": "/api/v1"}]}
    page = (ROOT / "docs" / "http_api.md").read_text()
    assert "reference/openapi.json" in page and "examples/http_api_client.sh" in page
    for path in served["paths"]:
        assert path in page.replace("/api/v1", "")
