"""Answering a study's queries: ask (``POST /study/NAME/ask``), a query's page and its answer form
(``/study/NAME/query/ID``), and the page after an answer (``/study/NAME/answer``).

The form's fields become the answer the study's ``tell`` takes (:func:`parse_answer`); the study checks
it, as it checks every answer, and a refused answer shows the query's page again with the reason.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from safebandits.dashboard import views
from safebandits.dashboard.site import Site
from safebandits.exceptions import ConfigError, ProtocolError, SafeBanditsError

__all__ = ["parse_answer", "query_context", "routes"]


def _number(value: str, what: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConfigError(f"The {what} must be a number; got {value!r}.") from None


def parse_answer(form: Any, spec: Any, is_batch: bool) -> Any:
    """The answer a query's form holds, in the shape ``Study.tell`` takes: JSON (a batch, or the JSON
    field), a choice button's value, or the reward and constraint fields of ``spec``."""
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


def query_context(s: Any, qid: int) -> dict[str, Any] | None:
    """What the page of query ``qid`` of the open study ``s`` shows (``None``: no such query)."""
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


def routes(site: Site) -> list[Route]:
    """The answer page, ask, and a query's page and answer (before the study page's catch-all route)."""
    from safebandits.study.study import NoQueryAvailable

    async def ask(request: Request) -> Response:
        name = request.path_params["name"]
        form = await site.form(request)
        refused = site.refused_post(request, form)
        if refused is not None:
            return refused
        try:
            with site.open_study(name) as s:
                query = s.ask()
        except NoQueryAvailable as exc:
            return site.render("answer_wait.html", 200, name=name, message=str(exc))
        except ConfigError as exc:  # (a contextual study: the round's context comes from elsewhere)
            message = (
                f"{exc} A browser has no context to give: ask through the JSON API (POST "
                f'/api/v1/studies/{name}/ask with {{"context": ...}}), `safebandits study ask --context` or '
                "Python; the query it opens can be answered here."
            )
            return site.render("answer_wait.html", 200, name=name, message=message)
        except ProtocolError as exc:
            return site.render("answer_wait.html", 200, name=name, message=str(exc), done=True)
        return RedirectResponse(f"/study/{quote(name, safe='')}/query/{query.id}", status_code=303)

    async def query_page(request: Request) -> Response:
        name = request.path_params["name"]
        qid = int(request.path_params["qid"])
        with site.open_study(name) as s:
            ctx = query_context(s, qid)
        if ctx is None:
            return site.error(404, f"Study {name!r} has no query {qid}.")
        return site.render("query.html", request=request, name=name, **ctx)

    async def tell(request: Request) -> Response:
        name = request.path_params["name"]
        qid = int(request.path_params["qid"])
        form = await site.form(request)
        refused = site.refused_post(request, form)
        if refused is not None:
            return refused
        with site.open_study(name) as s:
            ctx = query_context(s, qid)
            if ctx is None:
                return site.error(404, f"Study {name!r} has no query {qid}.")
            try:
                s.tell(qid, parse_answer(form, s.spec, ctx["is_batch"]))  # the same checks as tell
            except SafeBanditsError as exc:
                return site.render("query.html", 400, request=request, name=name, error=str(exc), **ctx)
        return RedirectResponse(f"/study/{quote(name, safe='')}/answer?told={qid}", status_code=303)

    async def answer_page(request: Request) -> Response:
        name = request.path_params["name"]
        with site.open_study(name) as s:
            summary = s.summary()
            horizon = getattr(s.info, "horizon", None)
        told = request.query_params.get("told")
        words = views.recommendation_words(summary, horizon if isinstance(horizon, int) else None)
        return site.render(
            "answer.html", request=request, name=name, s=summary, told=told, recommendation_words=words
        )

    return [
        Route("/study/{name:path}/answer", site.guarded(answer_page)),
        Route("/study/{name:path}/ask", site.guarded(ask), methods=["POST"]),
        Route("/study/{name:path}/query/{qid:int}", site.guarded(query_page)),
        Route("/study/{name:path}/query/{qid:int}", site.guarded(tell), methods=["POST"]),
    ]
