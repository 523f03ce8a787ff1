"""Signing in (``GET`` / ``POST /signin``) and out (``POST /signout``): the token is sent once in a form's
body and kept in an HTTP-only cookie (``Secure`` over HTTPS); it never travels in a URL (issue 41)."""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from safebandits.dashboard.site import Site

__all__ = ["routes"]


def _local_path(value: str) -> str:
    """``value`` when it is a path of this dashboard (``/...``, never ``//host`` or a URL), else ``/``."""
    ok = value.startswith("/") and not value.startswith("//") and "\\" not in value and len(value) <= 2000
    return value if ok and not any(c in value for c in "\r\n") else "/"


def routes(site: Site) -> list[Route]:
    async def signin_page(request: Request) -> Response:
        return site.render(
            "signin.html", request=request, next=_local_path(request.query_params.get("next", "/"))
        )

    async def signin(request: Request) -> Response:
        form = await site.form(request)
        target = _local_path(str(form.get("next", "/")))
        refused = site.cross_site(request, form)
        if refused is not None:
            return site.error(403, f"The sign-in was refused: {refused}.")
        if site.token is None:
            return RedirectResponse(target, status_code=303)
        given = str(form.get("token", ""))
        if not hmac.compare_digest(given.encode(), site.token.encode()):
            return site.render(
                "signin.html", 403, request=request, next=target, error="That is not the dashboard's token."
            )
        return site.set_token_cookie(request, RedirectResponse(target, status_code=303), given)

    async def signout(request: Request) -> Response:
        form = await site.form(request)
        refused = site.cross_site(request, form)
        if refused is not None:
            return site.error(403, f"The sign-out was refused: {refused}.")
        return site.set_token_cookie(request, RedirectResponse("/", status_code=303), None)

    return [
        Route("/signin", site.guarded(signin_page), methods=["GET"]),
        Route("/signin", site.guarded(signin), methods=["POST"]),
        Route("/signout", site.guarded(signout), methods=["POST"]),
    ]
