"""What every page of the dashboard shares: its templates, its token and CSRF checks, its errors.

:func:`~safebandits.dashboard.app.create_app` builds one :class:`Site` and hands it to each page's
routes (:mod:`safebandits.dashboard.pages`). Imported only once the optional dependencies are known to
be there (``create_app`` checks them).
"""

from __future__ import annotations

import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import jinja2
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from safebandits._limits import MAX_REQUEST_BYTES
from safebandits.dashboard.origin import same_origin
from safebandits.exceptions import ConfigError, SafeBanditsError
from safebandits.study.redact import redact_text, redact_url

__all__ = ["CSRF_FIELD", "MAX_FORM_FIELDS", "TOKEN_COOKIE", "Handler", "Site"]

TOKEN_COOKIE = "sb_dashboard_token"
CSRF_FIELD = "csrf"
#: Most fields of a page's form (an answer has a reward and its constraint values).
MAX_FORM_FIELDS = 1000

_log = logging.getLogger("safebandits.dashboard")

Handler = Callable[[Request], Awaitable[Response]]


class Site:
    """The dashboard over one storage (and optionally a results directory), as its pages see it.

    Parameters
    ----------
    storage : str
        Study storage URL.
    results : str or Path, optional
        A results directory.
    token : str, optional
        The token answering needs (``None``: open).
    """

    def __init__(self, storage: str, results: str | Path | None, token: str | None) -> None:
        self.storage = storage
        self.results_dir = None if results is None else Path(results)
        self.token = token
        self.shown_storage = redact_url(storage)
        self.csrf_token = secrets.token_urlsafe(32)  # (in every form; a cross-site page cannot read it)
        self.env = jinja2.Environment(
            loader=jinja2.PackageLoader("safebandits.dashboard", "templates"),
            autoescape=jinja2.select_autoescape(["html"]),
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self.env.filters["q"] = lambda s: quote(str(s), safe="")

    def render(
        self, template: str, status_code: int = 200, *, request: Request | None = None, **ctx: Any
    ) -> HTMLResponse:
        """The page of ``template``; with ``request``, it knows whether the browser is signed in."""
        page = self.env.get_template(template).render(
            storage=self.shown_storage,
            results=self.results_dir is not None,
            token_required=self.token is not None,
            signed_in=request is not None and self.token is not None and self.signed_in(request),
            csrf=self.csrf_token,
            **ctx,
        )
        return HTMLResponse(page, status_code=status_code)

    def error(self, status_code: int, exc: BaseException | str) -> HTMLResponse:
        """The error page, its message with the storage's credentials removed."""
        message = exc if isinstance(exc, str) else redact_text(exc, self.storage)
        return self.render("error.html", status_code, message=message)

    def cross_site(self, request: Request, form: Any) -> str | None:
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
        if not hmac.compare_digest(given.encode(), self.csrf_token.encode()):
            return "the form lacks the dashboard's CSRF token (reload the page and send it again)"
        return None

    def authorised(self, request: Request, form: Any = None) -> bool:
        if self.token is None:
            return True
        given = request.cookies.get(TOKEN_COOKIE) or request.headers.get("x-token") or ""
        if form is not None and form.get("token"):
            given = str(form.get("token"))
        return hmac.compare_digest(given.encode(), self.token.encode())

    def refused_post(self, request: Request, form: Any) -> Response | None:
        """The refusal page of an answer POST (cross-site, or without the token); ``None``: accepted."""
        refused = self.cross_site(request, form)
        if refused is not None:
            return self.error(403, f"The answer was refused: {refused}.")
        if not self.authorised(request, form):
            return self.error(403, "Answering needs the dashboard's token.")
        return None

    def signed_in(self, request: Request) -> bool:
        """Whether the request carries the token's cookie (always, when the dashboard has no token)."""
        given = request.cookies.get(TOKEN_COOKIE, "")
        return self.token is None or hmac.compare_digest(given.encode(), self.token.encode())

    def set_token_cookie(self, request: Request, response: Response, value: str | None) -> Response:
        """``response`` setting the token's cookie (``None``: clearing it): HTTP-only, same-site strict,
        and ``Secure`` when the request came over HTTPS (as uvicorn sees it: behind a reverse proxy, the
        scheme it forwards once ``--forwarded-allow-ips`` trusts it; docs/dashboard.md)."""
        secure = request.url.scheme == "https"
        if value is None:
            response.delete_cookie(TOKEN_COOKIE, httponly=True, samesite="strict", secure=secure)
        else:
            response.set_cookie(TOKEN_COOKIE, value, httponly=True, samesite="strict", secure=secure)
        return response

    async def form(self, request: Request) -> Any:
        """The request's form (URL-encoded or multipart): no file, at most :data:`MAX_FORM_FIELDS` fields.
        The body's size is capped before (the routes' ``max_body_size``: 413)."""
        return await request.form(max_files=0, max_fields=MAX_FORM_FIELDS, max_part_size=MAX_REQUEST_BYTES)

    def open_study(self, name: str) -> Any:
        from safebandits.study.study import load_study

        return load_study(name, self.storage)

    def guarded(self, handler: Handler) -> Handler:
        """Errors as pages with the credentials removed, logged in one line (never a traceback with a
        URL in it): a form the parser refuses 400, no study / not a study storage 404, a storage failure
        503, anything else 500 (a body over the cap is answered 413 by the routes' body limit)."""

        async def endpoint(request: Request) -> Response:
            try:
                return await handler(request)
            except HTTPException as exc:
                if exc.status_code == 413:  # (a body over the cap: the body limit answers 413 itself)
                    raise
                return self.error(exc.status_code, f"The request was refused: {exc.detail}.")
            except ConfigError as exc:  # no such study, not a study storage, a bad value
                return self.error(404, exc)
            except SafeBanditsError as exc:
                _log.warning("dashboard: %s", redact_text(exc, self.storage))
                return self.error(503, exc)
            except Exception as exc:
                message = redact_text(exc, self.storage)
                _log.error("dashboard: internal error (%s: %s)", type(exc).__name__, message)
                return self.error(500, f"Internal error ({type(exc).__name__}); see the server's log.")

        return endpoint
