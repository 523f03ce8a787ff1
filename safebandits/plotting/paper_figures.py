"""The papers' extra report figures, registered with the report (``register_report_figure``).

Plotting sits above the engine: the experiments name their figures only through their spec (``name``,
``figure``), and this module attaches the figure functions to those names (importing the experiments'
helpers downwards). The package ``safebandits.plotting`` imports it, so the registrations exist whenever
the report does. Safe-LUCB's set picture registers itself in :mod:`safebandits.papers.safe_lucb.figures`.
"""

from __future__ import annotations

import safebandits.papers.safe_lucb.figures  # noqa: F401  (registers "safelucb-exploration")
from safebandits.papers.acol.figures import robustness_figure, solutions_figure, tuned_sweep_figure
from safebandits.papers.beside.figures import hard_loglog_figure
from safebandits.papers.beside.figures_fdr import curves_figure
from safebandits.papers.ckb.figures import slack_horizons_figure
from safebandits.plotting.report import register_report_figure

__all__: list[str] = []

register_report_figure("beside-hard")(hard_loglog_figure)
register_report_figure("ckb-slack-horizons")(slack_horizons_figure)
register_report_figure("acol-driving")(tuned_sweep_figure)
register_report_figure("acol-robustness")(robustness_figure)
register_report_figure("acol-robustness")(solutions_figure)
for _name in ("fdr-adult", "fdr-german", "fdr-halfcircle"):
    register_report_figure(_name)(curves_figure)
