"""A study on one's own declared problem seen in a browser: the OPB study of a 5-dose problem shows its
per-arm estimates panel and the recommendation in words (screenshot: ``dashboard-declared-study.png``)."""

from __future__ import annotations

import numpy as np

import safebandits as sb

DOSES = sb.LinearProblem(
    arms=[[0.3, 0.0], [0.9, 0.0], [0.6, 0.6], [0.0, 0.9], [0.5, 0.3]], threshold=0.5, safe_arm=0,
    safe_reward=0.18, safe_cost=0.03, feedback={"kind": "gaussian", "sigma": 0.1}, horizon=200,
)  # fmt: skip
TRUTH = {"reward_param": [0.6, 0.8], "cost_params": [[0.1, 0.45]]}


def test_declared_study_page(tmp_path, page, serve, screenshots):
    url = f"sqlite:///{tmp_path / 's.db'}"
    study = sb.create_study("my-doses", "opb", DOSES, storage=url, seed=0)
    env = DOSES.simulate(**TRUTH).instance(study.declared_kind).environment(np.random.default_rng(0))
    for _ in range(150):
        q = study.ask()
        study.tell(q.id, env.play(q.decision))
    rec = study.recommend()
    study.close()
    base = serve(url)
    page.goto(f"{base}/study/my-doses")
    assert page.locator("#estimates").count() == 1
    assert page.locator("#estimates ~ svg").count() >= 1, "the estimates panel draws"
    words = page.inner_text("#recommendation-words")
    assert words.startswith(f"Anytime answer: arm {rec.arm}.") and "150 of 200 answers" in words
    assert page.inner_text("#recommended-arm") == str(rec.arm)
    page.screenshot(path=str(screenshots / "dashboard-declared-study.png"), full_page=True)
