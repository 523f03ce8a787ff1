"""``safebandits dashboard``: a local web application over a study storage (and a results directory).

Pages: the studies of a storage with their progress; per study the per-arm estimates and confidence
intervals against the threshold, the learner's sets, the recommendation and, where the study names a
simulated problem, regret / cost / violation curves; an answer page with the view the study's instance
registers (:class:`~safebandits.problems.registry.QueryView`: a picture of the queried arm to judge; a
record to label; otherwise the arm's features and a field per observed value); and, with ``--results``,
a results store's experiments, verdicts and figures.

Built on Starlette (served by uvicorn), Jinja2 templates and inline SVG figures drawn by matplotlib
(see docs/decisions/studies.md, "Dashboard stack"). Needs the optional extra:
``pip install safebandits[dashboard]``.
"""

from __future__ import annotations

from safebandits.dashboard.app import create_app, mask_url, serve

__all__ = ["create_app", "mask_url", "serve"]
