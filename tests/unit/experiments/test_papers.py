"""Paper packages are discovered by entry point and register experiments, claims and figures (issue 19)."""

from __future__ import annotations

from importlib.metadata import EntryPoint, entry_points

import pandas as pd
import pytest

from safebandits import _entry_points
from safebandits.exceptions import ConfigError
from safebandits.experiments import claims_meta, papers, spec
from safebandits.experiments.claims import check_claims

PAPERS = {"acol", "beside", "ckb", "safe_lucb", "stagewise"}


def test_the_five_papers_are_entry_points_and_register_themselves():
    names = {ep.name for ep in entry_points(group=papers.ENTRY_POINT_GROUP)}
    assert names >= PAPERS
    found = papers.list_papers()
    assert set(found) >= PAPERS
    assert found["acol"].claims == (
        "safebandits.papers.acol.claims",
        "safebandits.papers.acol.claims_driving",
    )
    assert "safebandits.papers.ckb.figures" in papers.figure_modules()
    assert {"acol-synthetic", "acol-driving", "beside-hard", "fdr-german", "ckb-synthetic"} <= set(
        papers.claim_sets()
    )
    assert set(claims_meta.claim_metadata()) == set(papers.claim_sets())
    # every registered experiment that names a claim set finds it
    missing = [
        s.name for s in spec.list_experiments().values() if s.claims and s.claims not in papers.claim_sets()
    ]
    assert not missing


@pytest.fixture
def no_papers(monkeypatch):
    """The engine as if no paper package were installed."""
    monkeypatch.setattr(_entry_points, "entry_points", lambda group: [])
    monkeypatch.setattr(_entry_points, "_DONE", set())
    monkeypatch.setattr(papers, "_PAPERS", {})
    monkeypatch.setattr(papers, "_CLAIM_SETS", {})
    monkeypatch.setattr(papers, "_CLAIMS_LOADED", set())
    monkeypatch.setattr(spec, "_REGISTRY", {})
    # CLAIM_META is one dict shared by the registry and the verdict machinery: emptied in place
    saved = dict(claims_meta.CLAIM_META)
    claims_meta.CLAIM_META.clear()
    yield monkeypatch
    claims_meta.CLAIM_META.clear()
    claims_meta.CLAIM_META.update(saved)


def test_the_engine_works_without_any_paper(no_papers):
    assert spec.list_experiments() == {}
    assert papers.claim_sets() == {} and papers.figure_modules() == ()
    df = pd.DataFrame({"label": ["A"], "status": ["ok"], "scale": ["quick"]})
    assert check_claims(df, "acol-synthetic") == []
    with pytest.raises(ConfigError, match="Unknown experiment 'acol-synthetic'"):
        spec.get_experiment("acol-synthetic")


def test_a_paper_that_fails_to_import_is_a_config_error(no_papers):
    bad = EntryPoint(name="broken", value="safebandits_no_such_module_xyz", group=papers.ENTRY_POINT_GROUP)
    no_papers.setattr(_entry_points, "entry_points", lambda group: [bad])
    with pytest.raises(ConfigError, match=r"paper package 'broken'.*failed to import: ModuleNotFoundError"):
        spec.list_experiments()
    # a declared claims module that is missing names its paper
    no_papers.setattr(_entry_points, "entry_points", lambda group: [])
    papers.register_paper("mine", __name__, claims=("safebandits_no_such_claims_xyz",))
    with pytest.raises(ConfigError, match=r"claims module 'safebandits_no_such_claims_xyz' of paper 'mine'"):
        papers.claim_sets()


def test_a_third_party_paper_registers_like_the_bundled_ones(no_papers):
    def check(df):
        return [{"id": "c1", "claim": "c1", "passed": True, "evidence": {}}]

    meta = {"c1": claims_meta.ClaimMeta("Mine 2026", "c1 holds.", ("A",), "any")}
    papers.register_paper("mine", __name__)
    papers.register_claims("mine-exp", check, meta)
    assert papers.list_papers()["mine"].module == __name__
    df = pd.DataFrame({"label": ["A"], "status": ["ok"], "scale": ["quick"]})
    [rec] = check_claims(df, "mine-exp")
    assert rec["verdict"] == "pass" and rec["paper"] == "Mine 2026"
    with pytest.raises(ConfigError, match="already registered"):
        papers.register_claims("mine-exp", lambda df: [])
    with pytest.raises(ConfigError, match="must be ClaimMeta"):
        papers.register_claims("other", check, {"c1": "not meta"})
    with pytest.raises(ConfigError, match="registered twice"):
        papers.register_paper("mine", "elsewhere")
    with pytest.raises(ConfigError, match="non-empty str"):
        papers.register_paper("", __name__)


def test_a_paper_declares_its_digest_section_5(no_papers):
    from safebandits.experiments.claims_coverage import digest_items, digests, unevaluated_items

    coverage = ((1, "It holds.", (("mine-exp", "c1"),)), (2, "A proof step.", ()))
    unevaluated = (("mine §5.2", "The proof step.", "proof-only", "a proof step"),)
    papers.register_paper("zz", __name__, citation="Z 2026", digest="zz", coverage=coverage)
    mine = {"citation": "Mine 2026", "digest": "mine", "coverage": coverage, "unevaluated": unevaluated}
    papers.register_paper("mine", __name__, order=1, **mine)
    assert digests() == {"Mine 2026": "mine", "Z 2026": "zz"}  # by order, then the papers without one
    assert [i.key for i in digest_items()] == ["mine §5.1", "mine §5.2", "zz §5.1", "zz §5.2"]
    assert digest_items()[0].claims == (("mine-exp", "c1"),) and digest_items()[0].paper == "Mine 2026"
    [row] = unevaluated_items()
    assert row.paper == "Mine 2026" and row.item == "mine §5.2" and row.status == "proof-only"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"coverage": ((1, "x", ()),)}, "no 'citation' and 'digest'"),
        ({"citation": "C", "digest": "d", "coverage": ((2, "x", ()),)}, "numbered 1, 2, ... in order"),
        ({"citation": "C", "digest": "d", "unevaluated": (("d §5.1", "w", "maybe", "y"),)}, "need a status"),
        ({"citation": "C", "digest": "d", "unevaluated": (("d §5.1", "w"),)}, "'unevaluated' rows"),
        ({"citation": "C", "digest": "d", "coverage": ((1, "x"),)}, "'coverage' rows"),
        ({"order": "first"}, "'order' parameter of register_paper must be an int"),
    ],
)
def test_a_malformed_digest_is_a_config_error(no_papers, kwargs, message):
    with pytest.raises(ConfigError, match=message):
        papers.register_paper("bad", __name__, **kwargs)
