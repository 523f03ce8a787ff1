"""A results directory (``--results DIR``): its experiments, verdicts and figures (``/results``) and the
report's files (``/results/report/PATH``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, Response
from starlette.routing import Route

from safebandits.dashboard.site import Site

__all__ = ["routes"]


def _results_context(results_dir: Path) -> dict[str, Any]:
    """What the results page shows of ``results_dir``: its report's claims and figures by experiment, and
    the runs of its store (when it has one this version reads)."""
    from safebandits.plotting.report import section_slug, verdict_table

    report = results_dir / "report"
    claims_file = report / "claims.json"
    claims = json.loads(claims_file.read_text()) if claims_file.is_file() else []
    experiments: dict[tuple[str, str], dict[str, Any]] = {}
    for c in claims:
        e = experiments.setdefault((c["experiment"], c["scale"]), {"claims": [], "figures": []})
        e["claims"].append({**c, "verdict": str(c.get("verdict", "pass" if c.get("passed") else "fail"))})
    pngs = sorted(p.name for p in report.glob("*.png")) if report.is_dir() else []
    for (experiment, scale), e in experiments.items():
        prefix = section_slug(experiment, scale)
        e["figures"] = [p for p in pngs if p.startswith(prefix)]
    runs = None
    try:
        from safebandits.experiments.store import ResultsStore

        with ResultsStore(results_dir, mode="r") as store:
            df = store.to_frame()
        runs = df.groupby(["experiment", "scale"]).size().to_dict() if len(df) else {}
    except Exception:  # no store (only a report), or a store another version wrote
        runs = None
    if runs:
        from safebandits.dashboard.views import identification_outcomes

        for key, rows in identification_outcomes(df).items():
            e = experiments.setdefault(key, {"claims": [], "figures": []})
            e["outcomes"] = rows
            e["figures"] = [p for p in pngs if p.startswith(section_slug(*key))]
        from safebandits.experiments.store import latest_runs
        from safebandits.experiments.watch import FLAG_COLUMN
        from safebandits.plotting.report import contradicted_rows

        if FLAG_COLUMN in df:  # (runs whose data contradicted a declared bound)
            for key, group in latest_runs(df).groupby(["experiment", "scale"], sort=True):
                rows = contradicted_rows(group)
                if rows:
                    e = experiments.setdefault(key, {"claims": [], "figures": []})
                    e["contradicted"] = rows
                    e["figures"] = [p for p in pngs if p.startswith(section_slug(*key))]
    return {
        "experiments": sorted(experiments.items()),
        "runs": runs,
        "verdicts": verdict_table(claims),
        "has_report": (report / "index.html").is_file(),
        "results_dir": str(results_dir),
    }


def routes(site: Site) -> list[Route]:
    """``/results`` and ``/results/report/PATH``."""

    async def results_page(request: Request) -> Response:
        if site.results_dir is None:
            return site.error(404, "Start the dashboard with --results DIR to see results.")
        return site.render("results.html", **_results_context(site.results_dir))

    async def results_file(request: Request) -> Response:
        if site.results_dir is None:
            return Response(status_code=404)
        report = (site.results_dir / "report").resolve()
        path = (report / request.path_params["path"]).resolve()
        if report not in path.parents or not path.is_file():
            return Response(status_code=404)
        return FileResponse(path)

    return [
        Route("/results", site.guarded(results_page)),
        Route("/results/report/{path:path}", site.guarded(results_file)),
    ]
