"""The dashboard's pages through Starlette's test client (no browser): answers pass the checks of tell,
the token protects answering only, credentials never show, batch studies hand out pulls."""

from __future__ import annotations

import warnings

import pytest

import safebandits as sb

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app, mask_url


class Client(TestClient):
    """A test client on the dashboard's own origin whose POSTs carry the pages' CSRF token."""

    def __init__(self, app):
        super().__init__(app, base_url="http://127.0.0.1")
        self.csrf = app.state.csrf_token

    def post(self, url, data=None, **kw):
        return super().post(url, data={"csrf": self.csrf, **(data or {})}, **kw)


@pytest.fixture
def storage(tmp_path):
    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    problem = {"instance": "acol/one-dimensional", "params": {"noise": "binary", "n_arms": 5}}
    sb.create_study(
        "batch", "acol", inst.public_info(), storage=url, seed=0, max_open=2, problem=problem
    ).close()
    return url


def test_pages_and_answers(storage):
    client = Client(create_app(storage))
    assert "batch" in client.get("/").text
    page = client.get("/study/batch")
    assert page.status_code == 200 and "<svg" in page.text
    r = client.post("/study/batch/ask", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/study/batch/query/0"
    form = client.get("/study/batch/query/0").text
    assert 'name="constraint_0"' in form  # generic view: one value field per observed number
    bad = client.post(
        "/study/batch/query/0", data={"constraint_0": "0.5"}
    )  # not +-1: refused by tell's checks
    assert bad.status_code == 400 and "+1 or -1" in bad.text
    assert sb.load_study("batch", storage).n_answered == 0
    ok = client.post("/study/batch/query/0", data={"constraint_0": "-1"}, follow_redirects=False)
    assert ok.status_code == 303
    assert sb.load_study("batch", storage).queries()[0]["observation"]["constraints"] == [-1.0]
    # Two open pulls at most: the third ask waits.
    client.post("/study/batch/ask")
    client.post("/study/batch/ask")
    wait = client.post("/study/batch/ask")
    assert "limit of 2 open queries" in wait.text
    summary = client.get("/study/batch/summary.json").json()
    assert len(summary["open_queries"]) == 2
    assert client.get("/study/nope").status_code == 404


def test_token_protects_answering_only(storage):
    client = Client(create_app(storage, token="s3cret"))
    assert client.get("/study/batch").status_code == 200
    assert client.post("/study/batch/ask").status_code == 403
    assert client.post("/study/batch/ask", data={"token": "wrong"}).status_code == 403
    assert (
        client.post("/study/batch/ask", data={"token": "s3cret"}, follow_redirects=False).status_code == 303
    )
    client.get("/?token=s3cret")  # a token in a URL is not read (issue 41): no cookie
    assert client.post("/study/batch/ask").status_code == 403
    signed = client.post("/signin", data={"token": "s3cret", "next": "/study/batch"}, follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == "/study/batch"  # sets the cookie
    assert client.post("/study/batch/ask", follow_redirects=False).status_code == 303
    assert "s3cret" not in client.get("/study/batch").text


def test_credentials_never_show():
    assert mask_url("postgresql://ann:pa55@db.example/studies") == "postgresql://ann:***@db.example/studies"
    assert mask_url("sqlite:///tmp/s.db") == "sqlite:///tmp/s.db"


def test_results_page_without_results(storage):
    client = Client(create_app(storage))
    assert client.get("/results").status_code == 404
    assert client.get("/results/report/../s.db").status_code == 404


def test_fdr_labelling_view(tmp_path):
    """FDR studies hand out one record per query (the batch split) with its fields and the label buttons."""
    import numpy as np

    url = f"sqlite:///{tmp_path / 'f.db'}"
    inst = sb.make_instance("fdr/half-circle", np.random.default_rng(0))
    problem = {"view": "fdr", "fields": ["x1", "x2"]}
    sb.create_study("f", "fdr-active", inst.public_info(), storage=url, seed=0, max_open=4, problem=problem)
    client = Client(create_app(url))
    loc = client.post("/study/f/ask", follow_redirects=False).headers["location"]
    page = client.get(loc).text
    assert 'id="record"' in page and "<th>x1</th>" in page and 'id="label-positive"' in page
    assert client.post(loc, data={"answer": "-1"}).status_code == 400  # labels are 0 or 1
    assert client.post(loc, data={"answer": "1"}, follow_redirects=False).status_code == 303
    assert sb.load_study("f", url).queries()[0]["observation"]["constraints"] == [1.0]


def test_regret_study_shows_simulated_curves(tmp_path):
    """A regret study naming its instance: the generic view takes reward and constraint values, and the
    study page draws regret, cost and violation of the answered pulls."""
    url = f"sqlite:///{tmp_path / 'r.db'}"
    inst = sb.make_instance("stagewise/four-arm")
    sb.create_study(
        "r", "opb", inst.public_info(), storage=url, seed=0, problem={"instance": "stagewise/four-arm"}
    )
    client = Client(create_app(url))
    for _ in range(3):
        loc = client.post("/study/r/ask", follow_redirects=False).headers["location"]
        form = client.get(loc).text
        assert 'name="reward"' in form and 'name="constraint_0"' in form
        r = client.post(loc, data={"reward": "1", "constraint_0": "0"}, follow_redirects=False)  # Bernoulli
        assert r.status_code == 303
    page = client.get("/study/r").text
    assert "Simulated: regret, cost and violation" in page and page.count("<svg") >= 2
