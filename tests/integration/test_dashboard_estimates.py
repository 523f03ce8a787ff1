"""The dashboard's study page on studies of a declared problem: the per-arm estimates panel for OPB,
BESIDE and G-ACOL studies alike, and the recommendation in words (which arm, why, anytime or final)."""

from __future__ import annotations

import re
import warnings
from html import unescape

import numpy as np
import pytest

import safebandits as sb
from safebandits.dashboard import views

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from safebandits.dashboard import create_app

ARMS = [[0.3, 0.0], [0.9, 0.0], [0.6, 0.6], [0.0, 0.9], [0.5, 0.3]]


def doses(**extra):
    return sb.LinearProblem(
        arms=ARMS, threshold=0.5, safe_arm=0, safe_reward=0.18, safe_cost=0.03,
        feedback={"kind": "gaussian", "sigma": 0.1}, horizon=60, epsilon=0.05, **extra,
    )  # fmt: skip


def answered(url, name, learner, problem, truth, n, config=None):
    study = sb.create_study(name, learner, problem, config, storage=url, seed=0)
    env = problem.simulate(**truth).instance(study.declared_kind).environment(np.random.default_rng(0))
    for _ in range(n):
        if study.done:
            break
        q = study.ask()
        study.tell(q.id, env.play(q.decision))
    return study


@pytest.fixture(scope="module")
def url(tmp_path_factory):
    url = f"sqlite:///{tmp_path_factory.mktemp('dash') / 's.db'}"
    truth = {"reward_param": [0.6, 0.8], "cost_params": [[0.1, 0.45]]}
    answered(url, "opb", "opb", doses(), truth, 50).close()
    answered(url, "beside", "beside", doses(), truth, 200).close()
    answered(url, "practical", "beside-practical", doses(), truth, 3).close()
    answered(url, "gacol", "g-acol", doses(reward_param=[0.6, 0.8]), {"cost_params": [[0.1, 0.45]]}, 5000,
             {"width": "tuned"}).close()  # fmt: skip
    sb.create_study("fresh", "opb", doses(), storage=url, seed=0).close()
    return url


def words(page: str) -> str:
    m = re.search(r'<p id="recommendation-words">(.*?)</p>', page, re.S)
    assert m, "no worded recommendation"
    return unescape(m.group(1))


@pytest.mark.parametrize("name", ["opb", "beside", "practical", "gacol"])
def test_estimates_panel_for_every_family(url, name):
    client = TestClient(create_app(url), base_url="http://127.0.0.1")
    page = client.get(f"/study/{name}").text
    assert 'id="estimates"' in page and 'id="estimates-table"' in page
    panel = page[page.index('id="estimates"') :]
    assert "<svg" in panel[: panel.index("</details>")]
    with sb.load_study(name, url) as s:
        est = s.learner.arm_estimates()
    table = page[page.index('id="estimates-table"') :].split("</table>")[0]
    assert table.count("<tr>") == 1 + est.n_arms  # header + one row per arm
    for q in est.quantities:
        assert q in table


def test_recommendation_in_words(url):
    client = TestClient(create_app(url), base_url="http://127.0.0.1")
    opb = words(client.get("/study/opb").text)
    with sb.load_study("opb", url) as s:
        rec = s.recommend()
        plays = rec.info["plays"][rec.arm]
    assert opb.startswith(f"Anytime answer: arm {rec.arm}.")
    assert f"played most often ({plays} of 50 answered rounds)" in opb
    assert "50 of 60 answers so far" in opb and "threshold 0.5" in opb

    beside = words(client.get("/study/beside").text)
    with sb.load_study("beside", url) as s:
        assert s.done
        arm = s.recommend().arm
    assert beside.startswith(f"Final answer: decision {arm}.") and "Final: the learner stopped" in beside
    assert "decisions left after the last round" in beside

    gacol = words(client.get("/study/gacol").text)
    with sb.load_study("gacol", url) as s:
        rec = s.recommend()
    assert rec.info["certified"] and gacol.startswith(
        f"{'Final' if rec.final else 'Anytime'} answer: arm {rec.arm}"
    )
    assert "highest known reward" in gacol and "certified feasible" in gacol

    with sb.load_study("gacol", url) as s:
        assert s.summary()["recommendation"]["words"] == gacol  # the JSON summary says the same

    fresh = words(client.get("/study/fresh").text)
    assert fresh.startswith("No answer yet: no arm has been played.")
    for text in (opb, beside, gacol, fresh):
        assert "{" not in text and "(anytime)" not in text  # no raw dicts


def test_words_for_each_rule():
    base = {"task": "pure_exploration", "n_samples": 40, "n_answered": 4, "done": False}
    info = {"n_uncertain": 3, "n_certified_feasible": 0, "best_certified_reward": None, "certified": False}
    cbai = {**base, "recommendation": {"arm": 2, "final": False, "info": info}}
    text = views.recommendation_words(cbai)
    assert text.startswith("Anytime answer: arm 2.") and "lowest upper confidence bound" in text
    assert "Anytime: the learner has not stopped (40 samples so far)" in text
    elim = {**base, "done": True, "recommendation": {"arm": 1, "final": True, "info": {
        "rounds": 3, "n_active": 1, "n_safe": 1, "n_eps_safe": 0, "n_unsafe": 2}}}  # fmt: skip
    assert "elimination kept" in views.recommendation_words(elim)
    info = {"rule": "most played arm", "plays": {"0": 7}}
    regret = {"task": "regret", "n_samples": 10, "n_answered": 10, "done": True,
              "recommendation": {"arm": 0, "final": True, "info": info}}  # fmt: skip
    assert views.recommendation_words(regret, horizon=10).endswith(
        "Final: the horizon of 10 answers is reached."
    )
    none = {**base, "recommendation": {"arm": None, "final": False, "info": {}}}
    assert views.recommendation_words(none).startswith("No answer yet: no arm is certified so far.")


def test_answer_page_says_the_answer_in_words(url):
    client = TestClient(create_app(url), base_url="http://127.0.0.1")
    page = client.get("/study/beside/answer").text
    assert 'id="finished"' in page and "Final answer: decision" in unescape(page)


def test_the_page_names_the_declared_problem(url):
    page = TestClient(create_app(url), base_url="http://127.0.0.1").get("/study/opb").text
    assert "On a declared linear problem, which opb reads as its k-armed view." in page
    assert sb.load_study("opb", url).summary()["declaration"] == {"setting": "linear", "kind": "k-armed"}
