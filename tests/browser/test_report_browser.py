"""The report in a real browser: table-of-contents links resolve, every figure loads and has a caption,
the summary states the verdict counts by scale; and the dashboard's results page shows the same store."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest
from click.testing import CliRunner

from safebandits.cli import cli
from safebandits.experiments import claims_meta
from safebandits.experiments import papers as papers_module
from safebandits.experiments import spec as exp_registry

VERDICTS = ["pass", "fail", "inconclusive", "not run"]


def _fake_claims(df):
    """One claim per verdict category (the report must render any verdict string)."""
    return [
        {
            "id": f"c-{v}",
            "claim": f"A claim whose verdict is {v}.",
            "passed": v == "pass",
            "verdict": v,
            "evidence": {"runs": len(df)},
        }
        for v in VERDICTS
    ]


@pytest.fixture(scope="module")
def results_dir(tmp_path_factory):
    # Imported here, not at collection: importing registers fake learners that the registry-wide
    # parametrisations of other modules must not see.
    from tests.unit.experiments import fakes

    mp = pytest.MonkeyPatch()
    mp.setitem(papers_module._CLAIM_SETS, "_fake-claims", _fake_claims)
    # Decided at any scale on "RR" (whose runs stop; "RR long" hits the budget): the verdicts above
    # reach the report unchanged.
    meta = {f"c-{v}": claims_meta.ClaimMeta("test", f"verdict {v}", ("RR",), "any") for v in VERDICTS}
    mp.setitem(claims_meta.CLAIM_META, "_fake-claims", meta)
    fakes.register()
    spec = dataclasses.replace(fakes.SPEC, claims="_fake-claims")
    exp_registry.register_experiment(spec, replace=True)
    try:
        out = tmp_path_factory.mktemp("report") / "res"
        for scale in ("quick", "paper"):
            args = ["run", fakes.EXPERIMENT, "--scale", scale, "--out", str(out), "--quiet", "--workers", "1",
                    "--algorithm", "RR", "--algorithm", "RR long", "--replicates", "2"]  # fmt: skip
            res = CliRunner().invoke(cli, args)
            assert res.exit_code == 0, res.output
        res = CliRunner().invoke(cli, ["report", str(out)])
        assert res.exit_code == 0, res.output
        exp_registry.register_experiment(fakes.SPEC, replace=True)
        yield out
    finally:
        fakes.unregister()
        mp.undo()


def test_report_in_the_browser(results_dir, page, screenshots):
    index = results_dir / "report" / "index.html"
    page.goto(index.as_uri())
    # Table of contents: every link resolves to an element of the page.
    hrefs = page.eval_on_selector_all("nav.toc a", "els => els.map(e => e.getAttribute('href'))")
    assert len(hrefs) >= 3
    for href in hrefs:
        assert href.startswith("#") and page.locator(f"[id='{href[1:]}']").count() == 1, href
    # Every figure loads and has a caption.
    figures = page.locator("figure")
    assert figures.count() >= 2
    for i in range(figures.count()):
        fig = figures.nth(i)
        fig.scroll_into_view_if_needed()
        loaded = fig.locator("img").evaluate("img => img.complete && img.naturalWidth > 0")
        assert loaded, fig.locator("img").get_attribute("src")
        caption = fig.locator("figcaption").inner_text()
        assert re.search(r"Figure \d+\. \S", caption) and "run" in caption, caption
    # The summary states the verdict counts by scale, and explains the scales.
    claims = json.loads((results_dir / "report" / "claims.json").read_text())
    summary = page.inner_text("#verdict-summary")
    assert "smoke test" in summary and "paper" in summary
    for scale in ("quick", "paper"):
        row = page.locator(f"tr.scale-row[data-scale='{scale}']")
        for v in VERDICTS:
            want = sum(c["scale"] == scale and c["verdict"] == v for c in claims)
            assert want == 1 and row.locator(f"td[data-verdict='{v}']").inner_text() == str(want)
    assert "At quick scale: 1 pass, 1 fail, 1 inconclusive, 1 not run (of 4 claims)" in page.inner_text(
        "#verdict-sentence"
    )
    page.goto(index.as_uri())
    page.screenshot(path=str(screenshots / "report-top.png"))
    page.locator("figure").first.scroll_into_view_if_needed()
    page.locator("figure").first.screenshot(path=str(screenshots / "report-figure.png"))


def test_dashboard_results_page(results_dir, tmp_path, page, serve, screenshots):
    import safebandits as sb

    url = f"sqlite:///{tmp_path / 's.db'}"
    inst = sb.make_instance("acol/one-dimensional", noise="binary", n_arms=5)
    sb.create_study("empty", "g-acol", inst.public_info(), storage=url, seed=0).close()
    base = serve(url, results_dir)
    page.goto(f"{base}/results")
    assert page.locator("#verdict-counts").count() == 1
    imgs = page.locator("img")
    assert imgs.count() >= 2
    for i in range(imgs.count()):
        imgs.nth(i).scroll_into_view_if_needed()
        assert imgs.nth(i).evaluate("img => img.complete && img.naturalWidth > 0")
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(screenshots / "dashboard-results.png"))
    page.click("#full-report")
    assert page.locator("#verdict-summary").count() == 1
