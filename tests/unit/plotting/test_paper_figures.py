"""The papers' report figures and captions register through the report's registry (issue 19)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


def test_method_styles_come_from_the_papers(monkeypatch):
    from safebandits.plotting import figures

    # ACOL's figures module gives its methods their colours; "(theory)" variants are dashed
    style = figures.method_style("G-ACOL (tuned x2)", 5)
    assert style == {"color": "#2ca02c", "linestyle": "-", "marker": "P"}
    assert figures.method_style("Oracle (theory)")["linestyle"] == "--"
    fallback = {"color": "#aec7e8", "linestyle": "-", "marker": "s"}
    assert figures.method_style("Mine", 1) == fallback
    monkeypatch.setattr(figures, "_COLOURS", dict(figures._COLOURS))
    monkeypatch.setattr(figures, "_VARIANT_LINESTYLES", dict(figures._VARIANT_LINESTYLES))
    figures.register_method_style("Mine", color="#123456")
    figures.register_method_style("Mine", color="#123456")  # the same again: fine
    figures.register_method_style(variant="slow", linestyle=":")
    assert figures.method_style("Mine (slow)", 1) == {"color": "#123456", "linestyle": ":", "marker": "s"}
    with pytest.raises(ConfigError, match="colour of 'ACOL' is registered twice"):
        figures.register_method_style("ACOL", color="#000000")
    with pytest.raises(ConfigError, match="takes a label and its color"):
        figures.register_method_style("Other")
    with pytest.raises(ConfigError, match="takes a label and its color"):
        figures.register_method_style()


@settings(max_examples=60, deadline=None)
@given(
    base=st.text(st.characters(codec="ascii", exclude_characters="()"), min_size=1, max_size=12),
    variant=st.text(st.characters(codec="ascii", exclude_characters="()"), min_size=1, max_size=8),
    index=st.integers(0, 50),
)
def test_a_registered_style_reaches_every_variant_of_the_label(base, variant, index):
    from safebandits.plotting import figures

    colours, variants = dict(figures._COLOURS), dict(figures._VARIANT_LINESTYLES)
    try:
        figures._COLOURS.pop(base, None)
        figures._VARIANT_LINESTYLES.pop(variant, None)
        figures.register_method_style(base, color="#abcdef")
        figures.register_method_style(variant=variant, linestyle=":")
        plain = figures.method_style(base, index)
        assert plain["color"] == "#abcdef" and plain["linestyle"] == "-"
        styled = figures.method_style(f"{base} ({variant})", index)  # (no "(" in base: it is the base)
        assert styled == {**plain, "linestyle": ":"}
    finally:
        figures._COLOURS.clear()
        figures._COLOURS.update(colours)
        figures._VARIANT_LINESTYLES.clear()
        figures._VARIANT_LINESTYLES.update(variants)


def test_confidence_slack_histogram_of_equal_values(tmp_path):
    # every run at the same least slack (a zero data range): numpy >= 2.4 cannot split it into bins by
    # itself; the figure gives the range (`make run` failed on the quick store)
    import pandas as pd

    from safebandits.papers.safe_lucb.figures import report_confidence_slack

    runs = pd.DataFrame(
        {
            "status": ["ok"] * 6,
            "panel": ["a"] * 6,
            "confidence_min_slack": [0.9999999] * 6,
            "confidence_failures": [0] * 6,
        }
    )
    names = report_confidence_slack(None, runs, {}, tmp_path, "s")
    assert names == ["s-confidence-slack.png"] and (tmp_path / names[0]).stat().st_size > 0
