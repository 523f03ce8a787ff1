"""Coverage of the digests' section-5 claims (issue 17): every item has a row that names registered
claims, or is listed as not evaluated with its reason."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest

from safebandits.experiments import claims_coverage, claims_meta
from safebandits.experiments.claims_coverage import digest_items, digest_of, digests, unevaluated_items
from safebandits.experiments.claims_meta import claim_metadata
from safebandits.experiments.claims_scoreboard import coverage_markdown

CLAIM_META = claim_metadata()  # (loads the paper packages' claims modules)
DIGEST_ITEMS = digest_items()  # (registered by the paper packages)
DIGESTS = digests()
UNEVALUATED = unevaluated_items()

SPEC_DIR = Path(__file__).resolve().parents[4] / "shared" / "spec"


def test_every_claim_pair_is_registered() -> None:
    missing = [(e, c) for item in DIGEST_ITEMS for e, c in item.claims if c not in CLAIM_META.get(e, {})]
    assert missing == []


def test_unevaluated_items_have_no_claims_and_are_listed() -> None:
    keys = {item.key: item for item in DIGEST_ITEMS}
    for _, key, _, status, why in UNEVALUATED:
        if "§5." not in key:  # items the issue added beyond the digests (e.g. GSLUCB on convex sets)
            continue
        assert key in keys, key
        assert status and why
    for item in DIGEST_ITEMS:
        listed = any(key == item.key for _, key, *_ in UNEVALUATED)
        assert item.claims or listed, f"{item.key} has neither claims nor a reason"


def test_items_are_numbered_in_order() -> None:
    for paper in DIGESTS:
        numbers = [i.number for i in digest_of(paper)]
        assert numbers == list(range(1, len(numbers) + 1)), paper


@pytest.mark.parametrize("paper", sorted(DIGESTS))
def test_every_digest_item_has_a_row(paper: str) -> None:
    path = SPEC_DIR / f"{DIGESTS[paper]}.md"
    if not path.is_file():
        pytest.skip("the digests (../shared/spec) are not available")
    section = path.read_text().split("\n## 5", 1)[1].split("\n## 6", 1)[0]
    numbers = [int(n) for n in re.findall(r"^(\d+)\. ", section, re.M)]
    assert numbers, "no numbered items found in section 5"
    assert [i.number for i in digest_of(paper)] == numbers


def test_coverage_section_reports_verdicts_and_gaps() -> None:
    item = next(i for i in DIGEST_ITEMS if len(i.claims) == 1)
    (experiment, claim_id) = item.claims[0]
    board = pd.DataFrame(
        [
            {"experiment": experiment, "id": claim_id, "scale": "quick", "verdict": "inconclusive"},
            {"experiment": experiment, "id": claim_id, "scale": "paper", "verdict": "fail"},
        ]
    )
    text = "\n".join(coverage_markdown(board))
    row = next(line for line in text.splitlines() if line.startswith(f"| {item.key} |"))
    assert f"`{experiment}/{claim_id}` FAIL (paper)" in row  # the paper scale wins over quick
    others = [line for line in text.splitlines() if line.startswith("| ") and "NOT RUN" in line]
    assert others  # items whose claims were not stored say so
    gap = next(i for i in DIGEST_ITEMS if not i.claims)
    assert any(line.startswith(f"| {gap.key} |") and ": " in line.split("|")[4] for line in text.splitlines())


def test_the_digests_are_registered_in_the_scoreboards_order() -> None:
    # (conservative_ucb and clucb, issue 44: their entry points need `pip install -e .` to be seen; clucb2
    # is registered by the clucb package)
    assert list(DIGESTS.values()) == [
        "acol",
        "beside",
        "stagewise",
        "safe_lucb",
        "ckb",
        "conservative_ucb",
        "clucb",
        "clucb2",
    ]
    assert DIGEST_ITEMS[0].key == "acol §5.1" and DIGEST_ITEMS[-1].key == "clucb2 §5.5"
    # the unevaluated rows: papers by name, each paper's rows in its order
    assert [row.item for row in UNEVALUATED][:3] == ["acol §5.10", "beside §5.5", "ckb §5.8"]
    assert all(row.paper in DIGESTS for row in UNEVALUATED)


def test_the_old_module_tables_are_computed_from_the_registry() -> None:
    assert claims_coverage.DIGEST_ITEMS == DIGEST_ITEMS and claims_coverage.DIGESTS == DIGESTS
    assert claims_meta.UNEVALUATED == UNEVALUATED
    with pytest.raises(AttributeError):
        claims_coverage.NOT_A_TABLE  # noqa: B018
