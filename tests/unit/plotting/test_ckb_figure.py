"""The log-log report figure of ckb-slack-horizons: written from a runs table, skipped without data."""

from __future__ import annotations

import pandas as pd

from safebandits.papers.ckb.figures import slack_horizons_figure
from safebandits.plotting.report import EXTRA_CAPTIONS, EXTRA_FIGURES


def _runs(regret_of_t) -> pd.DataFrame:
    rows = [
        {"status": "ok", "label": label, "instance.T": t, "samples": t, "policy_regret": regret_of_t(t) * f}
        for label, f in (("CKB-UCB (slack)", 3.0), ("CKB-UCB", 1.0))
        for t in (1_000, 10_000, 100_000)
        for _ in range(2)
    ]
    return pd.DataFrame(rows)


def test_slack_horizons_figure_is_registered_and_written(tmp_path):
    assert slack_horizons_figure in EXTRA_FIGURES["ckb-slack-horizons"] and "horizons" in EXTRA_CAPTIONS
    names = slack_horizons_figure(None, _runs(lambda t: t**0.6), None, tmp_path, "ckb-slack-horizons-paper")
    assert names == ["ckb-slack-horizons-paper-horizons.png"] and (tmp_path / names[0]).stat().st_size > 0


def test_slack_horizons_figure_skips_tables_without_growth(tmp_path):
    assert slack_horizons_figure(None, _runs(lambda t: 0.0), None, tmp_path, "x") == []
    failed = _runs(lambda t: t).assign(status="failed")
    assert slack_horizons_figure(None, failed, None, tmp_path, "x") == []
    assert list(tmp_path.iterdir()) == []
