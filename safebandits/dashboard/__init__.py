"""``safebandits dashboard``: a local web application over a study storage (and a results directory).

Pages: the studies of a storage with their progress; per study the per-arm estimates and confidence
intervals against the threshold, the learner's sets, the recommendation and, where the study names a
simulated problem, regret / cost / violation curves; an answer page with a view per problem kind
(driving: the queried policy drawn with its road and cars, acceptable / not acceptable; FDR labelling:
the record's fields and its label; any other problem: the arm's features and value fields); and, with
``--results``, a results store's experiments, verdicts and figures.

Built on Starlette (served by uvicorn), Jinja2 templates and inline SVG figures drawn by matplotlib
(see docs/decisions/engine.md, "Dashboard stack"). Needs the optional extra:
``pip install safebandits[dashboard]``.
"""

from __future__ import annotations

from safebandits.dashboard.app import create_app, mask_url, serve

__all__ = ["create_app", "mask_url", "serve"]
