"""Property tests at the JSON API's boundary (issue 30, case 8): whatever body arrives at any endpoint,
the answer is never a 500 nor a traceback, a refusal is JSON of the one error shape, and a refused
request leaves the store exactly as it was."""

from __future__ import annotations

import json
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safebandits as sb

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app

JSON = {"content-type": "application/json"}

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["1", "-1", "0.5", "acol", "g-acol", "acol/one-dimensional", "binary"])
)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)
answers = st.one_of(
    json_values,
    st.sampled_from([-1, 1, 0, 2, -1.0]),
    st.fixed_dictionaries({}, optional={"reward": json_values, "constraints": json_values}),
    st.fixed_dictionaries({}, optional={"constraint_sums": json_values, "reward_sums": json_values}),
)
tell_bodies = st.fixed_dictionaries(
    {}, optional={"id": st.one_of(st.integers(-2, 5), json_values), "answer": answers, "extra": json_values}
)
expire_bodies = st.fixed_dictionaries(
    {}, optional={"older_than": st.one_of(st.floats(), json_values), "ids": json_values}
)
PARAMS = {k: json_values for k in ("n_arms", "noise", "d")}
INSTANCES = ["acol/one-dimensional", "acol/irrelevant-dimensions"]
create_bodies = st.fixed_dictionaries(
    {},
    optional={
        "name": st.one_of(st.sampled_from(["seq", "n1", "a/b", "", " x"]), st.text(max_size=6), json_values),
        "algorithm": st.one_of(st.sampled_from(["acol", "g-acol", "opb", "nope"]), json_values),
        "instance": st.one_of(st.sampled_from(INSTANCES), json_values),
        "instance_params": st.one_of(st.fixed_dictionaries({}, optional=PARAMS), json_values),
        "info": json_values,
        "experiment": json_values,
        "config": st.one_of(st.fixed_dictionaries({}, optional={"delta": json_values}), json_values),
        "seed": st.one_of(st.integers(-5, 2**64), json_values),
        "instance_seed": json_values,
        "max_open": st.one_of(st.integers(-1, 3), json_values),
    },
)  # fmt: skip
raw_bodies = st.one_of(
    st.binary(max_size=64),
    st.sampled_from([b"{", b"NaN", b'{"id": Infinity}', b"[" * 5000, b'"\\ud800"', b"\xff", b"{}" * 3]),
)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('fuzz') / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    with sb.create_study("seq", "g-acol", inst.public_info(), storage=url, seed=1) as s:
        s.ask()  # one open query: some tells may succeed
    client = TestClient(create_app(url), base_url="http://127.0.0.1", raise_server_exceptions=False)
    return url, client


def _snapshot(url: str) -> str:
    out = []
    for name in sb.list_studies(url):
        with sb.load_study(name, url) as s:
            out.append(s.export())
    return json.dumps(out, sort_keys=True)


def _check(server, path: str, content: bytes) -> None:
    url, client = server
    before = _snapshot(url)
    r = client.post(path, content=content, headers=JSON)
    assert r.status_code < 500, (path, content[:200], r.text)
    assert "Traceback" not in r.text
    if r.status_code >= 400:
        body = r.json()
        assert set(body) == {"error"} and body["error"]["status"] == r.status_code, r.text
        assert body["error"]["code"] and body["error"]["message"]
        assert _snapshot(url) == before, (path, content[:200], r.text)


FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(body=st.one_of(tell_bodies, json_values))
def test_tell_never_fails_and_refusals_store_nothing(server, body):
    _check(server, "/api/v1/studies/seq/tell", json.dumps(body).encode())


@FUZZ
@given(body=st.one_of(create_bodies, json_values))
def test_create_never_fails_and_refusals_store_nothing(server, body):
    _check(server, "/api/v1/studies", json.dumps(body).encode())


@FUZZ
@given(body=st.one_of(expire_bodies, json_values), path=st.sampled_from(["expire", "ask"]))
def test_expire_and_ask_never_fail(server, body, path):
    _check(server, f"/api/v1/studies/seq/{path}", json.dumps(body).encode())


@FUZZ
@given(
    raw=raw_bodies,
    path=st.sampled_from(["studies", "studies/seq/tell", "studies/seq/expire", "studies/seq/ask"]),
)
def test_raw_bytes_never_fail(server, raw, path):
    _check(server, f"/api/v1/{path}", raw)


@FUZZ
@given(name=st.text(min_size=1, max_size=40))
def test_any_study_name_in_a_path(server, name):
    from urllib.parse import quote

    url, client = server
    before, asked = _snapshot(url), False
    for method, tail in (("GET", ""), ("GET", "/recommendation"), ("GET", "/queries"), ("POST", "/ask")):
        r = client.request(method, f"/api/v1/studies/{quote(name, safe='')}{tail}", headers=JSON)
        assert r.status_code in (200, 404, 405, 409), (name, r.status_code, r.text)
        assert "Traceback" not in r.text
        if r.status_code >= 400:
            assert r.json()["error"]["status"] == r.status_code
        asked |= method == "POST" and r.status_code == 200
    if not asked:
        assert _snapshot(url) == before
