"""The papers' report figures and captions register through the report's registry (issue 19)."""

from __future__ import annotations

import pytest

from safebandits.exceptions import ConfigError
from safebandits.plotting import report


def test_paper_figures_load_through_the_entry_points():
    report.load_paper_figures()
    for name in ("beside-hard", "ckb-slack-horizons", "acol-driving", "acol-robustness", "fdr-german",
                 "safelucb-exploration"):  # fmt: skip
        assert report.EXTRA_FIGURES.get(name), name
    assert {
        "tuned",
        "loglog",
        "robustness",
        "horizons",
        "solutions",
        "metrics",
        "tradeoff",
        "safe-sets",
    } <= set(report.EXTRA_CAPTIONS)


def test_a_caption_registered_twice_differently_is_refused(monkeypatch):
    monkeypatch.setattr(report, "EXTRA_CAPTIONS", {"x": "one"})
    monkeypatch.setattr(report, "EXTRA_FIGURES", {})
    report.register_report_figure("e", captions={"x": "one"})(len)  # the same caption again: fine
    assert report.EXTRA_FIGURES["e"] == [len]
    with pytest.raises(ConfigError, match="suffix 'x' is registered twice"):
        report.register_report_figure("e", captions={"x": "two"})
