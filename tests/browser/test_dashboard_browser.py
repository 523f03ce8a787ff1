"""A driving study answered entirely by clicking in the dashboard, against the simulated person of
``examples/study_simulated_human.py``: the database holds exactly the clicked answers and the study
reaches the same recommendation as the same answers told through the API."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import safebandits as sb

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = {"instance": "acol/driving", "params": {"n_candidates": 20}}
CONFIG = {"width": "tuned"}  # G-ACOL stops after a handful of answers on 20 candidate policies
SEED = 0


def _person():
    spec = importlib.util.spec_from_file_location(
        "study_simulated_human", ROOT / "examples" / "study_simulated_human.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.human_answer


def test_driving_study_answered_in_the_browser(tmp_path, page, serve, screenshots):
    human_answer = _person()
    inst = sb.make_instance(PROBLEM["instance"], **PROBLEM["params"])
    url = f"sqlite:///{tmp_path / 'ui.db'}"
    sb.create_study(
        "driving", "g-acol", inst.public_info(), CONFIG, storage=url, seed=SEED, problem=PROBLEM
    ).close()
    base = serve(url)

    page.goto(f"{base}/study/driving/answer")
    clicked = []
    for _ in range(60):
        if page.locator("#finished").count():
            break
        page.click("#next-query")
        page.wait_for_selector("#query-arm")
        assert page.locator("#picture-view svg").count() == 1, "the picture view draws the policy"
        arm, qid = int(page.inner_text("#query-arm")), int(page.url.rsplit("/", 1)[1])
        y = human_answer(inst, arm, qid)
        if not clicked:
            page.screenshot(path=str(screenshots / "dashboard-answer-driving.png"), full_page=True)
        page.click("#not-acceptable" if y == 1 else "#acceptable")
        page.wait_for_selector("#told")
        clicked.append((qid, arm, y))
    assert page.locator("#finished").count() == 1, f"not done after {len(clicked)} answers"

    # The database changed as it should: one stored answer per click, the clicked value.
    ui = sb.load_study("driving", url)
    assert ui.done
    stored = [(q["id"], q["decision"]["arm"], q["observation"]["constraints"][0]) for q in ui.queries()]
    assert stored == [(q, a, float(y)) for q, a, y in clicked]

    # The same person told through the API reaches the same recommendation.
    api_url = f"sqlite:///{tmp_path / 'api.db'}"
    api = sb.create_study("driving", "g-acol", inst.public_info(), CONFIG, storage=api_url, seed=SEED)
    while not api.done:
        q = api.ask()
        api.tell(q.id, human_answer(inst, q.arm, q.id))
    assert [(q["id"], q["decision"]["arm"]) for q in api.queries()] == [(q, a) for q, a, _ in clicked]
    assert api.recommend() == ui.recommend()

    page.goto(f"{base}/study/driving")
    assert page.inner_text("#recommended-arm") == str(ui.recommend().arm)
    assert page.inner_text("#state") == "done"
    page.screenshot(path=str(screenshots / "dashboard-study.png"), full_page=True)
    page.goto(base)
    assert page.locator("tr[data-study='driving']").count() == 1
    page.screenshot(path=str(screenshots / "dashboard-studies.png"), full_page=True)


def test_signing_in_with_the_token_then_answering_in_the_browser(tmp_path, page, serve):
    """Issue 41: with a token, the browser signs in once through the sign-in form (the token never appears
    in a URL), then answers without typing it again; signing out ends that."""
    inst = sb.make_instance(PROBLEM["instance"], **PROBLEM["params"])
    url = f"sqlite:///{tmp_path / 'ui.db'}"
    sb.create_study(
        "driving", "g-acol", inst.public_info(), CONFIG, storage=url, seed=SEED, problem=PROBLEM
    ).close()
    base = serve(url, token="tok-browser-41")
    urls = []
    page.on("request", lambda request: urls.append(request.url))
    page.goto(f"{base}/study/driving/answer")
    page.click("#sign-in")
    page.fill("#token", "wrong")
    page.click("#sign-in-submit")
    assert page.locator("#error").count() == 1
    page.fill("#token", "tok-browser-41")
    page.click("#sign-in-submit")
    page.wait_for_selector("#sign-out")
    page.goto(f"{base}/study/driving/answer")
    assert page.locator("input[name=token]").count() == 0  # (signed in: the form does not ask for it)
    page.click("#next-query")
    page.wait_for_selector("#query-arm")
    page.click("#acceptable")
    page.wait_for_selector("#told")
    assert sb.load_study("driving", url).n_answered == 1
    cookie = next(c for c in page.context.cookies() if c["name"] == "sb_dashboard_token")
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict" and not cookie["secure"]  # (plain HTTP)
    assert not any("tok-browser-41" in u for u in urls)
    page.click("#sign-out")
    page.wait_for_selector("#sign-in")
    assert not [c for c in page.context.cookies() if c["name"] == "sb_dashboard_token"]
