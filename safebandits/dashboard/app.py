"""The dashboard's Starlette application: routes, token check, templates."""

from __future__ import annotations

import hmac
import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import quote

from safebandits.exceptions import ConfigError, ProtocolError, SafeBanditsError

__all__ = ["create_app", "mask_url", "serve"]

TOKEN_COOKIE = "sb_dashboard_token"


def mask_url(url: str) -> str:
    """A storage URL without its password (``postgresql://user:***@host/db``); never show credentials."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", str(url))


def _number(value: str, what: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"The {what} must be a number; got {value!r}.") from None


def create_app(storage: str, results: str | Path | None = None, token: str | None = None) -> Any:
    """The dashboard as an ASGI application.

    Parameters
    ----------
    storage : str
        Study storage URL (``sqlite:///study.db``, ``postgresql://...``).
    results : str or Path, optional
        A results directory (``safebandits run --out DIR``): its experiments, verdicts and figures.
    token : str, optional
        When given, answering needs it: open ``/?token=...`` once (a cookie keeps it) or send the form
        field ``token``. Pages that only show stay open.
    """
    try:
        import jinja2
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
        from starlette.routing import Route
    except ImportError:
        raise ConfigError(
            "The dashboard needs its optional dependencies: pip install 'safebandits[dashboard]'."
        ) from None

    from safebandits.dashboard import views
    from safebandits.study.study import NoQueryAvailable, list_studies, load_study

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("safebandits.dashboard", "templates"),
        autoescape=jinja2.select_autoescape(["html"]),
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["q"] = lambda s: quote(str(s), safe="")
    results_dir = None if results is None else Path(results)
    shown_storage = mask_url(storage)

    def render(template: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
        page = env.get_template(template).render(
            storage=shown_storage, results=results_dir is not None, token_required=token is not None, **ctx
        )
        return HTMLResponse(page, status_code=status_code)

    def authorised(request: Request, form: Any = None) -> bool:
        if token is None:
            return True
        given = request.cookies.get(TOKEN_COOKIE) or request.headers.get("x-token") or ""
        if form is not None and form.get("token"):
            given = str(form.get("token"))
        return hmac.compare_digest(given.encode(), token.encode())

    def with_token_cookie(request: Request, response: Response) -> Response:
        given = request.query_params.get("token")
        if token is not None and given and hmac.compare_digest(given.encode(), token.encode()):
            response.set_cookie(TOKEN_COOKIE, given, httponly=True, samesite="strict")
        return response

    def open_study(name: str) -> Any:
        return load_study(name, storage)

    def study_row(name: str) -> dict[str, Any]:
        with open_study(name) as s:
            summary = s.summary()
            queries = s.queries()
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
            "answers_svg": views.answers_svg(queries),
        }

    async def index(request: Request) -> Response:
        try:
            names = list_studies(storage)
        except ConfigError as exc:
            return render("error.html", 404, message=str(exc))
        rows = [study_row(n) for n in names]
        return with_token_cookie(request, render("index.html", studies=rows))

    async def study_page(request: Request) -> Response:
        name = request.path_params["name"]
        with open_study(name) as s:
            summary = s.summary()
            queries = s.queries()
            threshold = getattr(s.info, "threshold", None)
            threshold = (
                float(threshold) if threshold is not None and getattr(threshold, "ndim", 0) == 0 else None
            )
            rec = summary["recommendation"]["arm"]
            instance = views.problem_instance(s)
            sets = views.arm_sets(s.learner, summary, threshold)
            horizon = getattr(s.info, "horizon", None)
            ctx = {
                "s": summary,
                "sets": sets,
                "recommendation_words": views.recommendation_words(
                    summary, horizon if isinstance(horizon, int) else None
                ),
                "estimates_svg": views.estimates_svg(summary, rec, sets),
                "bounds_svg": views.bounds_svg(summary, threshold, rec, sets),
                "answers_svg": views.answers_svg(queries),
                "curves_svg": None if instance is None else views.simulated_curves_svg(s, queries, instance),
                "problem": s.problem,
                "view": views.view_kind(s),
                "diagnostics": json.dumps(summary.get("diagnostics"), indent=1, default=str),
                "recent": [q for q in queries if q["observation"] is not None][-10:][::-1],
            }
        return with_token_cookie(request, render("study.html", name=name, **ctx))

    async def summary_json(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            with open_study(name) as s:
                summary = s.summary()
        except ConfigError as exc:
            return JSONResponse({"error": str(exc)}, status_code=404)
        summary["storage"] = shown_storage
        return JSONResponse(summary)

    async def ask(request: Request) -> Response:
        name = request.path_params["name"]
        form = await request.form()
        if not authorised(request, form):
            return render("error.html", 403, message="Answering needs the dashboard's token.")
        try:
            with open_study(name) as s:
                query = s.ask()
        except NoQueryAvailable as exc:
            return render("answer_wait.html", 200, name=name, message=str(exc))
        except ProtocolError as exc:
            return render("answer_wait.html", 200, name=name, message=str(exc), done=True)
        return RedirectResponse(f"/study/{quote(name, safe='')}/query/{query.id}", status_code=303)

    def query_context(s: Any, qid: int) -> dict[str, Any] | None:
        rows = [q for q in s.queries() if q["id"] == qid]
        if not rows:
            return None
        row = rows[0]
        arm = row["decision"].get("arm")
        info = s.info
        arms = getattr(info, "arms", None)
        if arms is None:
            arms = getattr(info, "features", None)  # FDR labelling: the pool's records
        features = None if arms is None or arm is None else [float(v) for v in arms[int(arm)]]
        field_names = (s.problem or {}).get("fields")
        spec = s.spec
        kind = views.view_kind(s)
        return {
            "q": row,
            "arm": arm,
            "is_batch": row["decision"].get("counts") is not None and "part_of" not in row["decision"],
            "features": features,
            "fields": field_names if isinstance(field_names, list) else None,
            "kind": kind,
            "spec": {"reward": spec.reward, "n_constraints": spec.n_constraints, "values": spec.values},
            "driving_svg": views.driving_svg(s, int(arm)) if kind == "driving" and arm is not None else None,
        }

    async def query_page(request: Request) -> Response:
        name = request.path_params["name"]
        qid = int(request.path_params["qid"])
        with open_study(name) as s:
            ctx = query_context(s, qid)
        if ctx is None:
            return render("error.html", 404, message=f"Study {name!r} has no query {qid}.")
        return with_token_cookie(request, render("query.html", name=name, **ctx))

    def parse_answer(form: Any, spec: Any, is_batch: bool) -> Any:
        if is_batch or form.get("json"):
            try:
                return json.loads(str(form.get("json", "")))
            except json.JSONDecodeError as exc:
                raise ConfigError(f"The answer is not valid JSON: {exc}.") from None
        if form.get("answer") is not None:  # a choice button (driving, FDR label)
            return _number(str(form.get("answer")), "answer")
        out: dict[str, Any] = {}
        if spec.reward:
            out["reward"] = _number(str(form.get("reward", "")), "reward")
        if spec.n_constraints:
            out["constraints"] = [
                _number(str(form.get(f"constraint_{i}", "")), f"constraint value {i}")
                for i in range(spec.n_constraints)
            ]
        return out

    async def tell(request: Request) -> Response:
        name = request.path_params["name"]
        qid = int(request.path_params["qid"])
        form = await request.form()
        if not authorised(request, form):
            return render("error.html", 403, message="Answering needs the dashboard's token.")
        with open_study(name) as s:
            ctx = query_context(s, qid)
            if ctx is None:
                return render("error.html", 404, message=f"Study {name!r} has no query {qid}.")
            try:
                s.tell(qid, parse_answer(form, s.spec, ctx["is_batch"]))  # the same checks as tell
            except SafeBanditsError as exc:
                return render("query.html", 400, name=name, error=str(exc), **ctx)
        return RedirectResponse(f"/study/{quote(name, safe='')}/answer?told={qid}", status_code=303)

    async def answer_page(request: Request) -> Response:
        name = request.path_params["name"]
        with open_study(name) as s:
            summary = s.summary()
            horizon = getattr(s.info, "horizon", None)
        told = request.query_params.get("told")
        words = views.recommendation_words(summary, horizon if isinstance(horizon, int) else None)
        return with_token_cookie(
            request, render("answer.html", name=name, s=summary, told=told, recommendation_words=words)
        )

    async def results_page(request: Request) -> Response:
        if results_dir is None:
            return render("error.html", 404, message="Start the dashboard with --results DIR to see results.")
        report = results_dir / "report"
        claims_file = report / "claims.json"
        claims = json.loads(claims_file.read_text()) if claims_file.is_file() else []
        experiments: dict[tuple[str, str], dict[str, Any]] = {}
        for c in claims:
            e = experiments.setdefault((c["experiment"], c["scale"]), {"claims": [], "figures": []})
            e["claims"].append({**c, "verdict": str(c.get("verdict", "pass" if c.get("passed") else "fail"))})
        pngs = sorted(p.name for p in report.glob("*.png")) if report.is_dir() else []
        from safebandits.plotting.report import section_slug, verdict_table

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
        return render(
            "results.html",
            experiments=sorted(experiments.items()),
            runs=runs,
            verdicts=verdict_table(claims),
            has_report=(report / "index.html").is_file(),
            results_dir=str(results_dir),
        )

    async def results_file(request: Request) -> Response:
        if results_dir is None:
            return Response(status_code=404)
        report = (results_dir / "report").resolve()
        path = (report / request.path_params["path"]).resolve()
        if report not in path.parents or not path.is_file():
            return Response(status_code=404)
        return FileResponse(path)

    routes = [
        Route("/", index),
        Route("/study/{name}", study_page),
        Route("/study/{name}/summary.json", summary_json),
        Route("/study/{name}/answer", answer_page),
        Route("/study/{name}/ask", ask, methods=["POST"]),
        Route("/study/{name}/query/{qid:int}", query_page),
        Route("/study/{name}/query/{qid:int}", tell, methods=["POST"]),
        Route("/results", results_page),
        Route("/results/report/{path:path}", results_file),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        # A study that does not exist or cannot be opened (no study of that name, not a study database).
        return render("error.html", 404, message=str(exc))

    return Starlette(routes=routes, exception_handlers={ConfigError: not_found})


def serve(
    storage: str,
    results: str | Path | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    token: str | None = None,
) -> None:
    """Run the dashboard with uvicorn (blocks until interrupted)."""
    app = create_app(storage, results, token)
    try:
        import uvicorn
    except ImportError:
        raise ConfigError("The dashboard needs uvicorn: pip install 'safebandits[dashboard]'.") from None
    uvicorn.run(app, host=host, port=port, log_level="warning")
