"""A conservative contextual study seen in a browser (issue 44): CLUCB on a declared recommender with a
production scorer and alpha = 0.1, played against a simulated truth through ``ask(context)``; the study
page shows the guarantee in the problem's numbers, the margin per round (the learner's pessimistic margin
and the margin under the truth) and no violated round (screenshot: ``dashboard-conservative-study.png``)."""

from __future__ import annotations

import numpy as np

import safebandits as sb
from safebandits.problems.declare import ConservativeLinearProblem

SHOP = ConservativeLinearProblem(
    dim=3, n_actions=5, alpha=0.1, baseline_param=[0.5, 0.5, 0.5], horizon=400, param_bound=1.2,
    feedback={"kind": "gaussian", "sigma": 0.1},
)  # fmt: skip


def test_conservative_study_page(tmp_path, page, serve, screenshots):
    url = f"sqlite:///{tmp_path / 's.db'}"
    sim = SHOP.simulate(theta=[0.3, 0.8, 0.5])
    study = sb.create_study("shop", "clucb", sim, storage=url, seed=0)
    env = sim.instance("conservative-linear").environment(np.random.default_rng(0))
    for _ in range(150):
        q = study.ask(env.context())
        study.tell(q.id, {"reward": env.play(q.decision).reward})
    rec = study.conservative()
    study.close()
    assert rec["violations"] == 0 and rec["baseline_rounds"] > 0
    base = serve(url)
    page.goto(f"{base}/study/shop")
    assert page.locator("#conservative").count() == 1
    assert page.locator("#conservative ~ svg").count() >= 1, "the margin figure draws"
    guarantee = page.inner_text("#conservative-guarantee")
    assert "0.9 (1 - alpha, alpha = 0.1)" in guarantee and "baseline policy" in guarantee
    assert page.inner_text("#conservative-violations") == "0"
    counts = page.inner_text("#conservative-counts")
    assert "150 answered rounds" in counts and f"{rec['baseline_rounds']} on the baseline" in counts
    page.screenshot(path=str(screenshots / "dashboard-conservative-study.png"), full_page=True)
    page.click("#conservative-table >> xpath=..")  # (open the details)
    assert page.locator("#conservative-table tr").count() == 51  # header + the latest 50 rounds
