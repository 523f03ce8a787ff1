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

import ipaddress
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from safebandits._limits import MAX_REQUEST_BYTES
from safebandits.exceptions import ConfigError
from safebandits.study.redact import redact_url

__all__ = ["check_bind", "check_storage", "create_app", "local_hosts", "mask_url", "serve"]

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


def check_storage(storage: str) -> bool:
    """Open ``storage`` once at start: a foreign database or a string that is not a storage URL is
    refused here rather than on every page. A new storage (a SQLite path with no file yet, or an empty
    one; a server database without study tables) gets the study tables, so the dashboard starts from
    nothing (its API then creates studies). Returns whether the tables were created."""
    from pathlib import Path

    from safebandits.study.storage import open_storage

    if not isinstance(storage, str) or "://" not in storage:
        raise ConfigError(
            f"--storage {redact_url(storage)!r} is not a storage URL; give e.g. 'sqlite:///study.db' or "
            "'postgresql://user@host/db'."
        )
    if storage.partition("://")[0].partition("+")[0] == "sqlite" and ":///" in storage:
        path = Path(storage.partition(":///")[2].partition("?")[0])
        if str(path) not in ("", ":memory:") and (
            not path.exists() or (path.is_file() and path.stat().st_size == 0)
        ):
            open_storage(storage, create=True).close()
            return True
        open_storage(
            storage, create=False, read_only=True
        ).close()  # (an existing file: look, change nothing)
        return False
    try:
        open_storage(storage, create=False, read_only=True).close()
    except ConfigError:  # (no study tables yet, or unreachable: creating says which)
        open_storage(storage, create=True).close()
        return True
    return False


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


def _routes(
    storage: str, results: str | Path | None, token: str | None, max_body: int
) -> tuple[Any, list[Any]]:
    """The dashboard's :class:`~safebandits.dashboard.site.Site` and routes: the JSON API, then the pages."""
    from starlette.routing import Mount, Router

    from safebandits.dashboard.api import API_PREFIX, create_api
    from safebandits.dashboard.pages import queries, signin, studies
    from safebandits.dashboard.pages import results as results_pages
    from safebandits.dashboard.site import Site

    site = Site(storage, results, token)
    # Study names may hold a '/' (studies created before names were restricted; a link encodes it as
    # %2F, which arrives decoded): the name is a path, and the more specific routes come first (the
    # study page's catch-all last). The pages' bodies (forms, URL-encoded or multipart) are capped like
    # the API's JSON: Starlette's body limit answers 413 before the form parser reads past ``max_body``.
    pages = Router(
        routes=[
            *signin.routes(site),
            *results_pages.routes(site),
            *queries.routes(site),
            *studies.routes(site),
        ],
        max_body_size=max_body,
    )
    return site, [Mount(API_PREFIX, app=create_api(storage, token, max_body=max_body)), Mount("", app=pages)]


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
        When given, answering needs it: sign in once at ``/signin`` (a form POST; an HTTP-only cookie
        keeps it, ``Secure`` over HTTPS) or send the form field ``token``. It is never read from a URL.
        Pages that only show stay open. Every call of the JSON API needs it
        (``Authorization: Bearer TOKEN``).
    allowed_hosts : iterable of str, optional
        Accepted ``Host`` header names (default: the local names, see :func:`local_hosts`); ``"*"``
        accepts any.
    max_body : int
        Largest request body (bytes) of the JSON API and of the pages' forms (413 beyond).
    """
    try:
        import jinja2  # noqa: F401  (the pages' templates)
        from starlette.applications import Starlette
        from starlette.middleware import Middleware
        from starlette.middleware.trustedhost import TrustedHostMiddleware
        from starlette.requests import Request
        from starlette.responses import Response

        from safebandits.dashboard.api import API_PREFIX  # (imports FastAPI, an optional dependency)
    except ImportError:
        raise ConfigError(
            "The dashboard needs its optional dependencies: pip install 'safebandits[dashboard]'."
        ) from None

    site, routes = _routes(storage, results, token, max_body)
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
    app.state.csrf_token = site.csrf_token
    return app


def serve(
    storage: str,
    results: str | Path | None = None,
    *,
    host: str = "127.0.0.1",
    port: int = 8080,
    token: str | None = None,
    allowed_hosts: Iterable[str] = (),
    forwarded_allow_ips: str | None = None,
) -> None:
    """Run the dashboard with uvicorn (blocks until interrupted).

    Refuses (:class:`ConfigError`) a non-local ``host`` without ``token`` and a storage it cannot open
    (a new storage gets the study tables: :func:`check_storage`).

    ``forwarded_allow_ips``: the addresses of a reverse proxy (comma-separated, uvicorn's
    ``--forwarded-allow-ips``) whose ``X-Forwarded-Proto`` / ``X-Forwarded-For`` headers are believed:
    behind a proxy that terminates HTTPS, the token's cookie is then ``Secure``. ``None`` (the default):
    no forwarded header is believed from anyone.
    """
    hosts = check_bind(host, token, allowed_hosts)
    check_storage(storage)
    app = create_app(storage, results, token, allowed_hosts=hosts)
    try:
        import uvicorn
    except ImportError:
        raise ConfigError("The dashboard needs uvicorn: pip install 'safebandits[dashboard]'.") from None
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level="warning",
        access_log=False,
        proxy_headers=forwarded_allow_ips is not None,
        forwarded_allow_ips=forwarded_allow_ips,
    )
