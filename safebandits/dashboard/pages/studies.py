"""The studies of a storage (``/``) and one study's page (``/study/NAME``, its ``summary.json``)."""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from safebandits.dashboard import views
from safebandits.dashboard.site import Site
from safebandits.exceptions import ConfigError
from safebandits.study.redact import redact_text

__all__ = ["routes"]

#: The latest answered rounds the study page lists in its conservative table.
CONSERVATIVE_ROWS = 50


def _study_row(site: Site, name: str) -> dict[str, Any]:
    with site.open_study(name) as s:
        summary = s.summary(conservative=False)  # (the list shows no conservative record)
        times = s.answer_times()
    return {
        "name": name,
        "algorithm": summary["algorithm"],
        "task": summary["task"],
        "n_queries": summary["n_queries"],
        "n_answered": summary["n_answered"],
        "n_open": len(summary["open_queries"]),
        "max_open": summary["max_open"],
        "done": summary["done"],
        "recommendation": summary["recommendation"]["arm"],
        "answers_svg": views.answers_svg(times),
    }


def _study_context(s: Any) -> dict[str, Any]:
    """What the study page shows of the open study ``s``."""
    summary = s.summary(conservative=False)
    record = s.conservative()  # (None for a study of another problem; read once, not again by the summary)
    if record is not None:
        summary["conservative"] = {k: v for k, v in record.items() if k != "rounds"}
    threshold = getattr(s.info, "threshold", None)
    threshold = float(threshold) if threshold is not None and getattr(threshold, "ndim", 0) == 0 else None
    rec = summary["recommendation"]["arm"]
    instance = views.problem_instance(s)
    sets = views.arm_sets(s.learner, summary, threshold)
    horizon = getattr(s.info, "horizon", None)
    return {
        "conservative_svg": views.conservative_svg(record),
        "conservative_rows": [] if record is None else record["rounds"][::-1][:CONSERVATIVE_ROWS],
        "s": summary,
        "sets": sets,
        "recommendation_words": views.recommendation_words(
            summary, horizon if isinstance(horizon, int) else None
        ),
        "estimates_svg": views.estimates_svg(summary, rec, sets),
        "bounds_svg": views.bounds_svg(summary, threshold, rec, sets),
        "answers_svg": views.answers_svg(s.answer_times()),
        "curves_svg": None if instance is None else views.simulated_curves_svg(s, instance),
        "problem": s.problem,
        "view": views.view_kind(s),
        "diagnostics": json.dumps(summary.get("diagnostics"), indent=1, default=str),
        "recent": s.queries(answered=True, newest_first=True, limit=10),
    }


def routes(site: Site) -> list[Route]:
    """``/``, ``/study/NAME/summary.json`` and ``/study/NAME`` (the last: it takes any name)."""
    from safebandits.study.study import list_studies

    async def index(request: Request) -> Response:
        try:
            names = list_studies(site.storage)
        except ConfigError as exc:
            return site.error(404, exc)
        rows = [_study_row(site, n) for n in names]
        return site.render("index.html", request=request, studies=rows)

    async def study_page(request: Request) -> Response:
        name = request.path_params["name"]
        with site.open_study(name) as s:
            ctx = _study_context(s)
        return site.render("study.html", request=request, name=name, **ctx)

    async def summary_json(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            with site.open_study(name) as s:
                summary = s.summary()
        except ConfigError as exc:
            return JSONResponse({"error": redact_text(exc, site.storage)}, status_code=404)
        summary["storage"] = site.shown_storage
        return JSONResponse(summary)

    return [
        Route("/", site.guarded(index)),
        Route("/study/{name:path}/summary.json", site.guarded(summary_json)),
        Route("/study/{name:path}", site.guarded(study_page)),
    ]
