"""The JSON API drives a conservative study end to end (issue 44): created from an experiment's tables with
a baseline, alpha and a truth, asked with the round's context, told the observed reward, and read back as
the conservative constraint's record per round. Refusals at the boundary (bad contexts, bad rewards, wrong
lengths) are 422s naming the field and store nothing (Hypothesis)."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import safebandits as sb
from safebandits.problems.declare import ConservativeLinearProblem
from safebandits.study import open_storage

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app

JSON = {"content-type": "application/json"}
PROBLEM = {"setting": "conservative-linear", "dim": 2, "n_actions": 3, "alpha": 0.1, "baseline_action": 0,
           "feedback": {"kind": "gaussian", "sigma": 0.1}, "param_bound": 1.0}  # fmt: skip
TRUTH = {"theta": [0.4, 0.6]}
EXPERIMENT = {"name": "api-cons", "horizon": 100, "problem": PROBLEM, "truth": TRUTH}


def _client(url):
    return TestClient(create_app(url), base_url="http://127.0.0.1")


def _context(env):
    ctx = env.context()
    return {"arms": ctx.arms.tolist(), "baseline": int(ctx.baseline), "baseline_reward": ctx.baseline_reward}


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('api') / 's.db'}"
    open_storage(url).close()  # (the dashboard serves an existing storage)
    c = _client(url)
    for name, algorithm in (("c1", "clucb"), ("lin", "linucb")):
        body = {"name": name, "algorithm": algorithm, "experiment": EXPERIMENT, "seed": 0}
        r = c.post("/api/v1/studies", json=body, headers=JSON)
        assert r.status_code == 201, r.text
        assert r.json()["kind"] == "conservative-linear"
    return url, c


def test_a_contextual_study_end_to_end(made):
    _, c = made
    decl = ConservativeLinearProblem(**{k: v for k, v in PROBLEM.items() if k != "setting"}, horizon=100)
    env = (
        decl.simulate(theta=TRUTH["theta"])
        .instance("conservative-linear")
        .environment(np.random.default_rng(0))
    )
    twin = sb.make_learner("clucb", decl, np.random.default_rng(0))
    for _ in range(15):
        ctx = _context(env)
        r = c.post("/api/v1/studies/c1/ask", json={"context": ctx}, headers=JSON)
        assert r.status_code == 200, r.text
        q = r.json()
        assert q["context"] == ctx
        d = twin.ask(env.current)
        assert q["arm"] == d.arm
        obs = env.play(d)
        twin.tell(d, obs)
        r = c.post("/api/v1/studies/c1/tell", json={"id": q["id"], "answer": {"reward": obs.reward}},
                   headers=JSON)  # fmt: skip
        assert r.status_code == 200, r.text
    rec = c.get("/api/v1/studies/c1/conservative").json()
    assert rec["n_rounds"] == 15 and rec["truth"] is True and rec["violations"] == 0
    assert rec["alpha"] == 0.1 and "0.9" in rec["guarantee"]
    assert all(r["true_margin"] is not None for r in rec["rounds"])
    status = c.get("/api/v1/studies/c1").json()
    assert status["conservative"]["n_rounds"] == 15 and "rounds" not in status["conservative"]
    # the open query is asked again without a context; another context is a conflict
    ctx = _context(env)
    q = c.post("/api/v1/studies/c1/ask", json={"context": ctx}, headers=JSON).json()
    assert c.post("/api/v1/studies/c1/ask").json()["id"] == q["id"]
    other = {**ctx, "baseline": (ctx["baseline"] + 1) % 3}
    r = c.post("/api/v1/studies/c1/ask", json={"context": other}, headers=JSON)
    assert r.status_code == 409 and r.json()["error"]["code"] == "conflict"


def test_the_record_of_a_study_of_another_problem_is_not_found(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    sb.create_study("seq", "g-acol", inst.public_info(), storage=url, seed=1).close()
    r = _client(url).get("/api/v1/studies/seq/conservative")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = _client(url).post("/api/v1/studies/seq/ask", json={"context": {"arms": [[0.1]], "baseline": 0}},
                          headers=JSON)  # fmt: skip
    assert r.status_code == 422 and "context" in r.json()["error"]["message"]


def _stored(url):
    with sb.load_study("lin", url) as s:
        return json.dumps(s.queries(), sort_keys=True)


def _good_context():
    return {"arms": [[0.3, 0.4], [0.5, 0.1], [0.2, 0.2]], "baseline": 0, "baseline_reward": 0.36}


numbers = st.floats(allow_nan=False, allow_infinity=False, min_value=-2, max_value=2)
bad_values = st.one_of(st.text(max_size=4), st.booleans(), st.none(), st.lists(st.integers(), max_size=2))


@st.composite
def bad_contexts(draw):
    """A context wrong in one field: the field the refusal must name and the context."""
    ctx = _good_context()
    how = draw(st.sampled_from(["rows", "columns", "cell", "norm", "baseline", "reward", "extra", "missing"]))
    if how == "rows":
        n = draw(st.sampled_from([0, 1, 2, 4, 5]))
        ctx["arms"] = [[0.1, 0.1]] * n
    elif how == "columns":
        n = draw(st.sampled_from([0, 1, 3]))
        ctx["arms"] = [[0.1] * n for _ in range(3)]
    elif how == "cell":
        i, j = draw(st.integers(0, 2)), draw(st.integers(0, 1))
        ctx["arms"][i][j] = draw(st.one_of(bad_values, st.just("1e400")))
    elif how == "norm":
        ctx["arms"][draw(st.integers(0, 2))] = [draw(st.floats(0.8, 5.0)), draw(st.floats(0.8, 5.0))]
    elif how == "baseline":
        ctx["baseline"] = draw(
            st.one_of(
                st.integers(3, 10**6),
                st.integers(-(10**6), -1),
                bad_values,
                st.floats(0.1, 2.9).filter(lambda v: not v.is_integer()),
            )
        )
    elif how == "reward":
        ctx["baseline_reward"] = draw(
            st.one_of(
                st.floats(max_value=-1e-6, allow_infinity=False),
                st.text(max_size=3),
                st.booleans(),
                st.none(),
            )
        )
    elif how == "extra":
        ctx[draw(st.sampled_from(["reward", "x", "Arms"]))] = 1
    else:
        del ctx[draw(st.sampled_from(["arms", "baseline"]))]
    field = {"rows": "arms", "columns": "arms", "cell": "arms", "norm": "arms", "baseline": "baseline",
             "reward": "baseline_reward", "extra": "context", "missing": "context"}[how]  # fmt: skip
    return field, ctx


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(case=bad_contexts())
def test_a_bad_context_is_a_422_naming_the_field_and_stores_nothing(made, case):
    url, c = made
    field, ctx = case
    before = _stored(url)
    r = c.post("/api/v1/studies/lin/ask", json={"context": ctx}, headers=JSON)
    assert r.status_code == 422, (ctx, r.text)
    err = r.json()["error"]
    assert err["code"] == "invalid" and "Traceback" not in r.text
    named = err["message"] + json.dumps(err.get("details") or [])
    assert field in named, (ctx, err)
    assert _stored(url) == before


@pytest.mark.parametrize(
    "raw, field",
    [
        ('{"context": {"arms": [[1e400, 0], [0, 0], [0, 0]], "baseline": 0, "baseline_reward": 0}}', "arms"),
        ('{"context": {"arms": [[0, 0], [0, 0], [0, 0]], "baseline": 0, "baseline_reward": -1e400}}',
         "baseline_reward"),
        ('{"context": {"arms": [[0, 0], [0, 0], [0, 0]], "baseline": 1e400, "baseline_reward": 0}}',
         "baseline"),
    ],
)  # fmt: skip
def test_an_infinite_number_in_a_context_is_refused(made, raw, field):
    url, c = made
    before = _stored(url)
    r = c.post("/api/v1/studies/lin/ask", content=raw, headers=JSON)
    assert r.status_code == 422, r.text
    assert field in r.text and _stored(url) == before


answers = st.one_of(
    bad_values,
    st.just({"reward": "0.5"}),
    st.just({"reward": True}),
    st.just({"reward": [0.5, 0.5]}),
    st.just({"reward": 0.5, "constraints": [0.1]}),
    st.just({}),
    st.fixed_dictionaries(
        {"reward": st.one_of(st.text(max_size=3), st.lists(numbers, min_size=2, max_size=3))}
    ),
)


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(answer=answers)
def test_a_bad_reward_is_refused_and_stores_nothing(made, answer):
    url, c = made
    r = c.post("/api/v1/studies/lin/ask", json={"context": _good_context()}, headers=JSON)
    assert r.status_code in (200, 409), r.text
    q = c.post("/api/v1/studies/lin/ask").json()
    before = _stored(url)
    r = c.post("/api/v1/studies/lin/tell", json={"id": q["id"], "answer": answer}, headers=JSON)
    assert r.status_code == 422, (answer, r.text)
    assert "Traceback" not in r.text and _stored(url) == before


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(reward=numbers)
def test_a_finite_reward_is_stored_as_told(made, reward):
    url, c = made
    q = c.post("/api/v1/studies/lin/ask", json={"context": _good_context()}, headers=JSON).json()
    r = c.post("/api/v1/studies/lin/tell", json={"id": q["id"], "answer": {"reward": reward}}, headers=JSON)
    assert r.status_code == 200, r.text
    with sb.load_study("lin", url) as s:
        stored = s.queries(start=q["id"])[0]["observation"]
    assert math.isclose(stored["reward"], reward, abs_tol=0) or stored["reward"] == reward


def test_a_multi_armed_study_through_the_api(tmp_path):
    """A declared default arm and alpha (and the file's [truth] means): ask without a context, tell the
    reward, read the record; a context is refused for it (422 naming 'context')."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    open_storage(url).close()
    c = _client(url)
    experiment = {"horizon": 50, "truth": {"means": [0.5, 0.7, 0.2]},
                  "problem": {"setting": "conservative", "n_arms": 3, "alpha": 0.1, "default_mean": 0.5,
                              "feedback": {"kind": "gaussian", "sigma": 0.1}}}  # fmt: skip
    r = c.post("/api/v1/studies", json={"name": "ma", "algorithm": "conservative-ucb",
                                        "experiment": experiment, "seed": 0}, headers=JSON)  # fmt: skip
    assert r.status_code == 201, r.text
    for _ in range(8):
        q = c.post("/api/v1/studies/ma/ask").json()
        assert "context" not in q
        reward = [0.5, 0.7, 0.2][q["arm"]]
        assert c.post("/api/v1/studies/ma/tell", json={"id": q["id"], "answer": {"reward": reward}},
                      headers=JSON).status_code == 200  # fmt: skip
    rec = c.get("/api/v1/studies/ma/conservative").json()
    assert rec["n_rounds"] == 8 and rec["violations"] == 0 and "default arm 0 (mean 0.5)" in rec["guarantee"]
    r = c.post("/api/v1/studies/ma/ask", json={"context": {"arms": [[0.1]], "baseline": 0}}, headers=JSON)
    assert r.status_code == 422 and "context" in r.json()["error"]["message"]


def test_the_browser_pages_of_a_contextual_study(tmp_path):
    """The answer page cannot ask a contextual study (no context in a form): it says where to ask; a query
    opened through the API is answered on its page; the study page shows the conservative section."""
    url = f"sqlite:///{tmp_path / 's.db'}"
    decl = ConservativeLinearProblem(**{k: v for k, v in PROBLEM.items() if k != "setting"}, horizon=50)
    sb.create_study("ctx", "clucb", decl, storage=url, seed=0).close()
    c = _client(url)
    page = c.get("/study/ctx/answer")
    csrf = page.text.split('name="csrf" value="')[1].split('"')[0]
    r = c.post("/study/ctx/ask", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 200 and "context" in r.text and "POST /api/v1/studies/ctx/ask" in r.text
    ctx = {"arms": [[0.3, 0.4], [0.5, 0.1], [0.2, 0.2]], "baseline": 0, "baseline_reward": 0.36}
    q = c.post("/api/v1/studies/ctx/ask", json={"context": ctx}, headers=JSON).json()
    r = c.post("/study/ctx/ask", data={"csrf": csrf}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].endswith(f"/query/{q['id']}")
    assert 'id="conservative"' in c.get("/study/ctx").text
