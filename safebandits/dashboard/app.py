"""The dashboard's Starlette application: routes, token check, templates, and what keeps it safe to
leave running.

Safety (issue 30): the ``Host`` header must name the address the server is bound to (Starlette's
``TrustedHostMiddleware``: a DNS-rebinding page cannot read or write through it); a POST must come
from the dashboard's own pages (its ``Origin``, else its ``Referer``, names this host, and a form
carries the per-process CSRF token the pages embed); every response carries a Content-Security-Policy
(no script at all, no framing), ``X-Frame-Options: DENY``, ``X-Content-Type-Options: nosniff`` and
``Referrer-Policy: same-origin``. Storage URLs are shown through :func:`safebandits.study.redact.redact_url`
(the one redaction of every output), and errors through :func:`~safebandits.study.redact.redact_text`.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
import logging
import secrets
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from safebandits._limits import MAX_REQUEST_BYTES
from safebandits.dashboard.origin import same_origin
from safebandits.exceptions import ConfigError, ProtocolError, SafeBanditsError
from safebandits.study.redact import redact_text, redact_url

__all__ = ["check_bind", "check_storage", "create_app", "local_hosts", "mask_url", "serve"]

TOKEN_COOKIE = "sb_dashboard_token"
CSRF_FIELD = "csrf"

#: Headers of every response: no script may run, no page may frame the dashboard, no MIME sniffing, no
#: referrer leaves for another site (a query URL names the study; "no-referrer" would make browsers send
#: "Origin: null" with the dashboard's own forms, which the cross-site check refuses).
SECURITY_HEADERS = {
    "content-security-policy": (
        "default-src 'none'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
}

_log = logging.getLogger("safebandits.dashboard")

#: The storage URL as shown everywhere (the one redaction of safebandits.study.redact).
mask_url = redact_url


def _is_loopback(host: str) -> bool:
    name = host.strip("[]")
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def local_hosts(host: str = "127.0.0.1") -> list[str]:
    """Host names a browser may use for a server bound to ``host`` on this machine."""
    return sorted({host.strip("[]"), "127.0.0.1", "localhost", "::1", "[::1]"})


def check_bind(host: str, token: str | None, allowed_hosts: Iterable[str] = ()) -> list[str]:
    """Refuse a non-local bind without a token; return the ``Host`` names to accept.

    A loopback address (127.0.0.0/8, ::1, localhost) accepts the local names. Any other address needs
    ``token`` (anyone on the network could otherwise answer) and accepts ``allowed_hosts`` (default: the
    address itself; ``0.0.0.0`` / ``::`` without ``allowed_hosts`` accept any name, the token then being
    the only guard).
    """
    allowed = [h for h in allowed_hosts if h]
    if _is_loopback(host):
        return sorted({*local_hosts(host), *allowed})
    if not token:
        raise ConfigError(
            f"The dashboard refuses to listen on {host!r} without a token: anyone who can reach that "
            "address could answer the studies. Give --token TOKEN (or SAFEBANDITS_DASHBOARD_TOKEN), or "
            "bind to 127.0.0.1."
        )
    if allowed:
        return allowed
    if host.strip("[]") in ("0.0.0.0", "::"):
        return ["*"]
    return [host.strip("[]")]


def check_storage(storage: str) -> None:
    """Open ``storage`` read-only once: a missing or foreign file or a string that is not a storage URL
    is refused here (at start) rather than on every page."""
    from safebandits.study.storage import open_storage

    if not isinstance(storage, str) or "://" not in storage:
        raise ConfigError(
            f"--storage {redact_url(storage)!r} is not a storage URL; give e.g. 'sqlite:///study.db' or "
            "'postgresql://user@host/db'."
        )
    open_storage(storage, create=False, read_only=True).close()


class _SecurityHeaders:
    """ASGI middleware: the :data:`SECURITY_HEADERS` on every HTTP response."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                from starlette.datastructures import MutableHeaders

                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    if key not in headers:
                        headers[key] = value
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _number(value: str, what: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"The {what} must be a number; got {value!r}.") from None


def create_app(
    storage: str,
    results: str | Path | None = None,
    token: str | None = None,
    *,
    allowed_hosts: Iterable[str] | None = None,
    max_body: int = MAX_REQUEST_BYTES,
) -> Any:
    """The dashboard as an ASGI application, with the JSON API under ``/api/v1``
    (:mod:`safebandits.dashboard.api`).

    Parameters
    ----------
    storage : str
        Study storage URL (``sqlite:///study.db``, ``postgresql://...``).
    results : str or Path, optional
        A results directory (``safebandits run --out DIR``): its experiments, verdicts and figures.
    token : str, optional
        When given, answering needs it: open ``/?token=...`` once (a cookie keeps it) or send the form
        field ``token``. Pages that only show stay open. Every call of the JSON API needs it
        (``Authorization: Bearer TOKEN``).
    allowed_hosts : iterable of str, optional
        Accepted ``Host`` header names (default: the local names, see :func:`local_hosts`); ``"*"``
        accepts any.
    max_body : int
        Largest request body of the JSON API (bytes).
    """
    try:
        import jinja2
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        from starlette.requests import Request
        from starlette.responses import FileResponse, HTMLResponse, JSONResponse, RedirectResponse, Response
        from starlette.routing import Mount, Route

        from safebandits.dashboard.api import API_PREFIX, create_api
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
    shown_storage = redact_url(storage)
    csrf_token = secrets.token_urlsafe(32)  # (embedded in every form; a cross-site page cannot read it)

    def render(template: str, status_code: int = 200, **ctx: Any) -> HTMLResponse:
        page = env.get_template(template).render(
            storage=shown_storage,
            results=results_dir is not None,
            token_required=token is not None,
            csrf=csrf_token,
            **ctx,
        )
        return HTMLResponse(page, status_code=status_code)

    def cross_site(request: Request, form: Any) -> str | None:
        """Why a POST is refused as cross-site (``None``: it comes from the dashboard's own page)."""
        host = request.headers.get("host", "")
        origin = request.headers.get("origin")
        if origin is not None:
            if not same_origin(origin, host):
                return f"it comes from another site ({origin[:100]})"
        else:
            referer = request.headers.get("referer")
            if referer is not None and not same_origin(referer, host):
                return "it comes from another site (its Referer)"
        given = str(form.get(CSRF_FIELD, "")) if form is not None else ""
        if not hmac.compare_digest(given.encode(), csrf_token.encode()):
            return "the form lacks the dashboard's CSRF token (reload the page and send it again)"
        return None

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

    async def index(request: Request) -> Response:
        try:
            names = list_studies(storage)
        except ConfigError as exc:
            return render("error.html", 404, message=redact_text(exc, storage))
        rows = [study_row(n) for n in names]
        return with_token_cookie(request, render("index.html", studies=rows))

    async def study_page(request: Request) -> Response:
        name = request.path_params["name"]
        with open_study(name) as s:
            summary = s.summary()
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
                "answers_svg": views.answers_svg(s.answer_times()),
                "curves_svg": None if instance is None else views.simulated_curves_svg(s, instance),
                "problem": s.problem,
                "view": views.view_kind(s),
                "diagnostics": json.dumps(summary.get("diagnostics"), indent=1, default=str),
                "recent": s.queries(answered=True, newest_first=True, limit=10),
            }
        return with_token_cookie(request, render("study.html", name=name, **ctx))

    async def summary_json(request: Request) -> Response:
        name = request.path_params["name"]
        try:
            with open_study(name) as s:
                summary = s.summary()
        except ConfigError as exc:
            return JSONResponse({"error": redact_text(exc, storage)}, status_code=404)
        summary["storage"] = shown_storage
        return JSONResponse(summary)

    async def ask(request: Request) -> Response:
        name = request.path_params["name"]
        form = await request.form()
        refused = cross_site(request, form)
        if refused is not None:
            return render("error.html", 403, message=f"The answer was refused: {refused}.")
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
        rows = [q for q in s.queries(qid, limit=1) if q["id"] == qid]
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
        view = views.query_view(s)
        kind = view.kind
        return {
            "q": row,
            "arm": arm,
            "is_batch": row["decision"].get("counts") is not None and "part_of" not in row["decision"],
            "features": features,
            "fields": field_names if isinstance(field_names, list) else None,
            "kind": kind,
            "spec": {"reward": spec.reward, "n_constraints": spec.n_constraints, "values": spec.values},
            "view": view,
            "caption": view.caption.replace("{arm}", str(arm)),
            "picture_svg": views.picture_svg(s, int(arm), view)
            if kind == "picture" and arm is not None
            else None,
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
        if form.get("answer") is not None:  # a choice button (a picture's judgement, a record's label)
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
        refused = cross_site(request, form)
        if refused is not None:
            return render("error.html", 403, message=f"The answer was refused: {refused}.")
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

    def guarded(handler: Any) -> Any:
        """Errors as pages with the credentials removed, logged in one line (never a traceback with a
        URL in it): no study / not a study storage 404, a storage failure 503, anything else 500."""

        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except ConfigError as exc:  # no such study, not a study storage, a bad value
                return render("error.html", 404, message=redact_text(exc, storage))
            except SafeBanditsError as exc:
                _log.warning("dashboard: %s", redact_text(exc, storage))
                return render("error.html", 503, message=redact_text(exc, storage))
            except Exception as exc:
                message = redact_text(exc, storage)
                _log.error("dashboard: internal error (%s: %s)", type(exc).__name__, message)
                return render(
                    "error.html", 500, message=f"Internal error ({type(exc).__name__}); see the server's log."
                )

        return endpoint

    # Study names may hold a '/' (studies created before names were restricted; a link encodes it as
    # %2F, which arrives decoded): the name is a path, and the more specific routes come first.
    routes = [
        Mount(API_PREFIX, app=create_api(storage, token, max_body=max_body)),  # the JSON API (api.py)
        Route("/", guarded(index)),
        Route("/results", guarded(results_page)),
        Route("/results/report/{path:path}", guarded(results_file)),
        Route("/study/{name:path}/summary.json", guarded(summary_json)),
        Route("/study/{name:path}/answer", guarded(answer_page)),
        Route("/study/{name:path}/ask", guarded(ask), methods=["POST"]),
        Route("/study/{name:path}/query/{qid:int}", guarded(query_page)),
        Route("/study/{name:path}/query/{qid:int}", guarded(tell), methods=["POST"]),
        Route("/study/{name:path}", guarded(study_page)),
    ]
    hosts = list(allowed_hosts) if allowed_hosts is not None else local_hosts()
    middleware = [
        Middleware(_SecurityHeaders),
        Middleware(TrustedHostMiddleware, allowed_hosts=hosts, www_redirect=False),
    ]

    async def not_found(request: Request, exc: Exception) -> Response:
        """A path no route takes (under /api/v1 too, e.g. a name holding a newline): the API's JSON error
        for an API path, the plain 404 otherwise."""
        if request.url.path.startswith(API_PREFIX + "/"):
            from safebandits.dashboard.api import error_response

            return error_response(404, "not_found", "Not Found")
        return Response("Not Found", status_code=404, media_type="text/plain")

    app = Starlette(routes=routes, middleware=middleware, exception_handlers={404: not_found})
    app.state.csrf_token = csrf_token
    return app


def serve(
    storage: str,
    results: str | Path | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
) -> None:
    """Run the dashboard with uvicorn (blocks until interrupted).

    Refuses (:class:`ConfigError`) a non-local ``host`` without ``token`` and a storage it cannot open.
    """
    hosts = check_bind(host, token, allowed_hosts)
    check_storage(storage)
    app = create_app(storage, results, token, allowed_hosts=hosts)
    try:
        import uvicorn
    except ImportError:
        raise ConfigError("The dashboard needs uvicorn: pip install 'safebandits[dashboard]'.") from None
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)
