"""The JSON API on a study whose declaration fixes the actions (issue 44): a LinearProblem's conservative
view (examples/conservative_across.toml). ``POST /studies/{name}/ask`` without a context is asked with the
declared arms, baseline and baseline reward; a context sent anyway is accepted when it is the declared one
and otherwise refused with a 422 naming the field that differs, storing nothing (Hypothesis)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest
import tomllib
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.study import open_storage

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app

JSON = {"content-type": "application/json"}
RAW = tomllib.loads((Path(__file__).parents[2] / "examples/conservative_across.toml").read_text())
DECLARED = {"arms": [[float(v) for v in row] for row in RAW["problem"]["arms"]], "baseline": 0,
            "baseline_reward": 0.42}  # fmt: skip


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('api') / 's.db'}"
    open_storage(url).close()
    c = TestClient(create_app(url), base_url="http://127.0.0.1")
    body = {"name": "fixed", "algorithm": "clucb", "experiment": RAW, "seed": 0}
    r = c.post("/api/v1/studies", json=body, headers=JSON)
    assert r.status_code == 201, r.text
    assert r.json()["kind"] == "conservative-linear"
    return url, c


def _stored(url):
    with sb.load_study("fixed", url) as s:
        return json.dumps(s.queries(), sort_keys=True)


def test_ask_without_a_context_is_asked_with_the_declared_one(made):
    _, c = made
    for body in (None, {}, {"context": DECLARED}):
        r = c.post("/api/v1/studies/fixed/ask", json=body, headers=JSON)
        assert r.status_code == 200, r.text
        q = r.json()
        assert q["context"] == DECLARED
        r = c.post(
            "/api/v1/studies/fixed/tell", json={"id": q["id"], "answer": {"reward": 0.5}}, headers=JSON
        )
        assert r.status_code == 200, r.text
    r = c.get("/api/v1/studies/fixed/conservative")
    assert r.status_code == 200 and r.json()["n_rounds"] == 3 and r.json()["truth"] is True


@st.composite
def other_contexts(draw):
    """The declared context with one field changed: the field the refusal must name, and the context."""
    ctx = json.loads(json.dumps(DECLARED))
    field = draw(st.sampled_from(["arms", "baseline", "baseline_reward"]))
    if field == "arms":
        row = draw(st.integers(0, len(ctx["arms"]) - 1))
        col = draw(st.integers(0, 1))
        new = draw(st.floats(-0.7, 0.7, allow_nan=False).filter(lambda v: v != ctx["arms"][row][col]))
        ctx["arms"][row][col] = new
    elif field == "baseline":
        ctx["baseline"] = draw(st.integers(1, len(ctx["arms"]) - 1))
    else:
        ctx["baseline_reward"] = draw(st.floats(0.0, 5.0, allow_nan=False).filter(lambda v: v != 0.42))
    return field, ctx


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=other_contexts())
def test_another_context_is_a_422_naming_the_field_and_stores_nothing(made, case):
    url, c = made
    field, ctx = case
    before = _stored(url)
    r = c.post("/api/v1/studies/fixed/ask", json={"context": ctx}, headers=JSON)
    assert r.status_code == 422, (ctx, r.text)
    err = r.json()["error"]
    assert err["code"] == "invalid" and "Traceback" not in r.text
    assert f"context.{field}" in err["message"], (ctx, err)
    assert _stored(url) == before


def test_the_answer_page_asks_a_fixed_arms_study(tmp_path):
    """A browser has no context to give; a fixed-arms study needs none (the page's ask opens a query)."""
    from tests.integration.test_dashboard_app import Client

    url = f"sqlite:///{tmp_path / 's.db'}"
    from safebandits.study.options import create_from_options

    create_from_options("page", "clucb", storage=url, experiment=RAW, seed=0)
    client = Client(create_app(url))
    r = client.post("/study/page/ask", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/study/page/query/0", r.text
    with sb.load_study("page", url) as s:
        assert s.queries()[0]["decision"]["context"] == DECLARED
