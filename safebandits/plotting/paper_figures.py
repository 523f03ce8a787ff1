"""The papers' extra report figures, registered with the report (``register_report_figure``).

Plotting sits above the engine: the experiments name their figures only through their spec (``name``,
``figure``), and this module attaches the figure functions to those names (importing the experiments'
helpers downwards). The package ``safebandits.plotting`` imports it, so the registrations exist whenever
the report does. Safe-LUCB's set picture registers itself in :mod:`safebandits.plotting.safe_sets`.
"""

from __future__ import annotations

from safebandits.plotting import safe_sets  # noqa: F401  (registers "safelucb-exploration")
from safebandits.plotting.beside import hard_loglog_figure
from safebandits.plotting.ckb import slack_horizons_figure
from safebandits.plotting.driving import robustness_figure, solutions_figure, tuned_sweep_figure
from safebandits.plotting.fdr import curves_figure
from safebandits.plotting.report import register_report_figure

__all__: list[str] = []

register_report_figure("beside-hard")(hard_loglog_figure)
register_report_figure("ckb-slack-horizons")(slack_horizons_figure)
register_report_figure("acol-driving")(tuned_sweep_figure)
register_report_figure("acol-robustness")(robustness_figure)
register_report_figure("acol-robustness")(solutions_figure)
for _name in ("fdr-adult", "fdr-german", "fdr-halfcircle"):
    register_report_figure(_name)(curves_figure)
