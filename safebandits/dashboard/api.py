"""The JSON API of the dashboard server: studies created, asked, told and read over HTTP (``/api/v1``).

Any program that speaks HTTP can drive a study (a lab robot, a web service, an annotation tool, a shell
script with curl)::

    POST /api/v1/studies                       create (the arguments of `safebandits study create`)
    GET  /api/v1/studies                       {"studies": [names]}
    GET  /api/v1/studies/{name}                the summary (`study status`)
    POST /api/v1/studies/{name}/ask            the open query (a new one if every query is answered);
                                               {"context": {...}} for a contextual study
    POST /api/v1/studies/{name}/tell           {"id": 0, "answer": -1}
    GET  /api/v1/studies/{name}/recommendation the recommendation (`study recommend`)
    GET  /api/v1/studies/{name}/queries        every query with its answer
    GET  /api/v1/studies/{name}/conservative   the conservative constraint per round (issue 44)
    POST /api/v1/studies/{name}/expire         return abandoned open queries to the pool
    GET  /api/v1/openapi.json                  this API's OpenAPI 3.1 schema

The same storage, token, validation and limits as the command line and the Python API: creation reads
its options through :func:`safebandits.study.options.create_from_options` (as ``study create`` does),
answers go through :meth:`Study.tell <safebandits.study.Study.tell>` unchanged, and request bodies are
strict (a string is never a number, unknown fields are refused).

Guards, in order, before any handler runs: a request whose ``Origin`` (else ``Referer``) names another
site is refused (403); with a token every call needs ``Authorization: Bearer TOKEN`` (401; the schema
stays open); a POST must be ``Content-Type: application/json`` (415: a cross-site HTML form cannot send
that without a CORS preflight, which this server never grants), at most ``max_body`` bytes (413) and
valid JSON (400). Errors are ``{"error": {"status", "code", "message"}}`` (``details`` for a body that
fails its schema), never a traceback, with credentials redacted
(:func:`~safebandits.study.redact.redact_text`).
"""

from __future__ import annotations

import hmac
import json
import logging
import re
from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, JsonValue

from safebandits._cost import input_limit
from safebandits._limits import MAX_EXPIRE_SECONDS, MAX_OPEN, MAX_REQUEST_BYTES, MAX_SEED, MAX_SNAPSHOT_EVERY
from safebandits.dashboard.api_conservative import Ask, add_conservative_route, context_of
from safebandits.exceptions import ConfigError, ProtocolError, SafeBanditsError, TooLargeError
from safebandits.study.redact import redact_text, redact_url
from safebandits.study.snapshot import DEFAULT_SNAPSHOT_EVERY
from safebandits.study.validation import MAX_NAME_LENGTH, MAX_QUERY_ID

__all__ = ["API_PREFIX", "create_api", "openapi_schema"]

API_PREFIX = "/api/v1"

_log = logging.getLogger("safebandits.dashboard")


# -- request and response bodies (the schema is generated from these) ---------------------------------
class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


def _integral(value: Any) -> Any:
    """An integral float (``5.0``, ``1e6``) as the integer it is: JSON Schema's ``integer`` counts it
    (a string or a fractional float is still refused)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


#: An integer of a request body: JSON Schema's (``5.0`` is one), never a string or a boolean.
Int = Annotated[int, BeforeValidator(_integral)]
#: A study name in a request: one URL segment (:func:`~safebandits.study.validation.check_study_name`).
_NAME_PATTERN = r"^[^/\\]+$"


def _one_source(schema: dict[str, Any]) -> None:
    """CreateStudy's schema: exactly one of its three problem sources."""
    schema["oneOf"] = [{"required": [k]} for k in ("instance", "info", "experiment")]
    for k in ("instance", "info", "experiment"):  # (absent, never null)
        schema["properties"][k].pop("default", None)


class CreateStudy(_Strict):
    """The arguments of ``safebandits study create``: exactly one of ``instance``, ``info`` and
    ``experiment``."""

    model_config = ConfigDict(strict=True, extra="forbid", json_schema_extra=_one_source)

    name: str = Field(
        min_length=1,
        max_length=MAX_NAME_LENGTH,
        pattern=_NAME_PATTERN,
        description="New study name, without '/' or backslash (it is one segment of the API's paths).",
    )
    algorithm: str = Field(description="A registered learner (`safebandits list algorithms`), or a "
                           "[[learners]] label of the experiment.")  # fmt: skip
    instance: str = Field(None, description="A registered instance (`safebandits list instances`).")  # type: ignore[assignment]
    instance_params: dict[str, JsonValue] | None = Field(
        None, description="The instance's parameters (the CLI's --set), e.g. {\"n_arms\": 5}."
    )
    info: dict[str, JsonValue] = Field(  # type: ignore[assignment]
        None, description="A problem view as `study export` writes it (its 'info' object)."
    )
    experiment: dict[str, JsonValue] = Field(  # type: ignore[assignment]
        None,
        description="An experiment file's tables as JSON (the CLI's --problem FILE.toml): its 'problem' "
        "is declared, its 'learners' options for the algorithm and its 'horizon' apply. No file is read.",
    )
    config: dict[str, JsonValue] | None = Field(None, description="Learner options (the CLI's --param).")
    seed: Annotated[int, Field(ge=0, le=MAX_SEED), BeforeValidator(_integral)] | None = Field(
        None, description="Learner seed (drawn and stored if absent)."
    )
    instance_seed: Int = Field(0, ge=0, le=MAX_SEED, description="Seed of a random instance.")
    max_open: Int = Field(1, ge=1, le=MAX_OPEN, description="Queries out at once.")
    snapshot_every: Int = Field(
        DEFAULT_SNAPSHOT_EVERY,
        ge=0,
        le=MAX_SNAPSHOT_EVERY,
        description="Store the learner's state every this many answers (0: never); loads replay only the "
        "answers since.",
    )


class Created(BaseModel):
    name: str
    algorithm: str
    task: str
    seed: int
    storage: str = Field(description="The storage URL, credentials redacted.")
    kind: str | None = Field(None, description="The declared problem's view kind (experiments only).")
    config: dict[str, Any] = Field(
        description="Every option of the learner as it applies it: the defaults it resolved included."
    )


class QueryOut(BaseModel):
    """A query: play ``arm`` once, or ``counts[k]`` pulls of each arm ``k`` (a batch), or ``point``."""

    id: int
    arm: int | None = None
    counts: list[int] | None = None
    probs: list[float] | None = None
    point: list[float] | None = None
    n_samples: int
    asked_at: str
    part_of: int | None = None
    parts: int = 1
    context: dict[str, Any] | None = Field(
        None, description="The round's context the query was asked with (contextual studies only)."
    )


class Tell(_Strict):
    id: Int = Field(ge=0, le=MAX_QUERY_ID, description="The query's id (from ask).")
    answer: JsonValue = Field(
        description='One pull: a number (e.g. -1 for binary feedback) or {"reward": r, "constraints": '
        '[c, ...]}; a batch: {"constraint_sums": [[...]], "reward_sums": [...]}. Checked as '
        "Study.tell checks it."
    )


class Told(BaseModel):
    id: int
    told: bool
    n_answered: int
    done: bool


class Expire(_Strict):
    older_than: float | None = Field(
        None, ge=0, le=MAX_EXPIRE_SECONDS, description="Only queries out for more than this many seconds."
    )
    ids: list[Annotated[int, Field(ge=0, le=MAX_QUERY_ID), BeforeValidator(_integral)]] | None = Field(
        None, max_length=MAX_OPEN, description="Only these open queries."
    )


class Expired(BaseModel):
    expired: list[int]


class RecommendationOut(BaseModel):
    arm: int | None
    final: bool
    n_samples: int
    info: dict[str, Any]
    words: str


class Summary(BaseModel):
    """``study status``: counts, open queries, recommendation, and the learner's estimates where it has
    them (``arm_estimates``, ``confidence_bounds``, ``feasible_set``, ``safe_set``, ``diagnostics``)."""

    model_config = ConfigDict(extra="allow")
    name: str
    algorithm: str
    task: str
    seed: int
    storage: str
    n_queries: int
    n_answered: int
    max_open: int
    open_queries: list[QueryOut]
    done: bool
    recommendation: dict[str, Any]
    config: dict[str, Any] = Field(
        description="Every option of the learner as it applies it: the defaults it resolved included."
    )


class StudyList(BaseModel):
    studies: list[str]


class StoredQuery(BaseModel):
    id: int
    decision: dict[str, Any]
    observation: Any = Field(description="The stored answer (null while open).")
    asked_at: str
    told_at: str | None


class Queries(BaseModel):
    queries: list[StoredQuery]


class ErrorDetail(BaseModel):
    status: int
    code: str = Field(description="Stable: bad_json, invalid, unauthorized, forbidden, not_found, "
                      "unknown_query, conflict, no_query_available, done, already_told, too_large, "
                      "unsupported_media_type, method_not_allowed, unavailable, internal.")  # fmt: skip
    message: str
    details: list[dict[str, Any]] | None = None


class ErrorBody(BaseModel):
    error: ErrorDetail


def _errors(*codes: int) -> dict[int | str, dict[str, Any]]:
    words = {400: "Not JSON", 401: "Missing or wrong token", 403: "Cross-site request", 404: "Not found",
             409: "Conflict with the study's state", 413: "Body too large", 415: "Not application/json",
             422: "A value is refused", 503: "The storage failed"}  # fmt: skip
    return {c: {"model": ErrorBody, "description": words[c]} for c in codes}


# -- errors --------------------------------------------------------------------------------------------
class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, details: list[dict[str, Any]] | None = None):
        super().__init__(message)
        self.status, self.code, self.message, self.details = status, code, message, details


def error_response(status: int, code: str, message: str, details: Any = None, headers: Any = None) -> Any:
    from starlette.responses import JSONResponse

    body: dict[str, Any] = {"status": status, "code": code, "message": message}
    if details is not None:
        body["details"] = details
    return JSONResponse({"error": body}, status_code=status, headers=headers)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


#: The paths that take a POST (under the API's prefix); a POST elsewhere is the router's 405.
_POST_PATH = re.compile(r"/studies(?:/[^/]+/(?:ask|tell|expire))?$")


#: Stands for a '/' inside one path segment (sent as %2F): a study name holds no control character.
_SLASH = "\x00"


def _segment_path(raw_path: bytes) -> str:
    """The request's path, each segment decoded with its encoded '/' kept apart (:data:`_SLASH`)."""
    from urllib.parse import unquote

    return "/".join(unquote(seg).replace("/", _SLASH) for seg in raw_path.decode("latin-1").split("/"))


def _is_json_utf8(content_type: str) -> bool:
    """Whether a Content-Type is ``application/json``, with no charset or ``charset=utf-8``."""
    kind, _, params = content_type.partition(";")
    if kind.strip().lower() != "application/json":
        return False
    for param in params.split(";"):
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip().strip('"').lower() not in ("utf-8", "utf8"):
            return False
    return True


class _Guard:
    """ASGI middleware of the API: origin, token, content type, body size and JSON, in that order."""

    def __init__(self, app: Any, token: str | None, max_body: int) -> None:
        self.app, self.token, self.max_body = app, token, max_body

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        from starlette.datastructures import Headers

        from safebandits.dashboard.origin import same_origin

        raw_path = scope.get("raw_path") or b""
        if b"%2f" in raw_path.lower():  # (a '/' sent as %2F stays inside its segment: one name)
            scope = {**scope, "path": _segment_path(raw_path)}

        headers = Headers(scope=scope)
        path = scope.get("path", "")
        refused = self._caller_refusal(headers, path, same_origin)
        if refused is not None:
            await refused(scope, receive, send)
            return
        if scope["method"] != "POST" or not _POST_PATH.search(path):
            await self.app(scope, receive, send)  # (a POST elsewhere: the router's 405 or 404)
            return
        given = headers.get("content-type")
        if given is not None and not _is_json_utf8(given):
            await error_response(
                415,
                "unsupported_media_type",
                "A request body must be sent as 'Content-Type: application/json' (charset utf-8 if one is "
                "named).",
            )(scope, receive, send)
            return
        body = await self._read(scope, receive, headers)
        if body is None:
            await error_response(
                413, "too_large", f"The request body is larger than {self.max_body:,} bytes."
            )(scope, receive, send)
            return
        refused = self._body_refusal(path, given, body)
        if refused is not None:
            await refused(scope, receive, send)
            return
        sent = False

        async def replay() -> Any:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _caller_refusal(self, headers: Any, path: str, same_origin: Any) -> Any:
        """The 403 of a request from another site, or the 401 of one without the server's token (``None``:
        the caller may go on)."""
        host = headers.get("host", "")
        origin = headers.get("origin")
        foreign = origin is not None and not same_origin(origin, host)
        if origin is None and headers.get("referer") is not None:
            foreign = not same_origin(headers["referer"], host)
        if foreign:
            return error_response(403, "forbidden", "Refused: the request comes from another site.")
        if self.token is not None and not path.endswith("/openapi.json"):
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(
                given.strip().encode(), self.token.encode()
            ):
                return error_response(
                    401, "unauthorized", "This server needs its token: send 'Authorization: Bearer TOKEN'.",
                    headers={"www-authenticate": "Bearer"},
                )  # fmt: skip
        return None

    @staticmethod
    def _body_refusal(path: str, given: str | None, body: bytes) -> Any:
        """The 413 of a study's creation body over the input limit (before it is parsed), the 415 of a body
        without a Content-Type, the 400 of a body that is not JSON (``None``: the body may go on)."""
        if path.endswith("/studies") and len(body) > (most := input_limit()):  # (before it is parsed)
            return error_response(
                413,
                "too_large",
                f"The request body ({len(body):,} bytes) is larger than the limit "
                f"SAFEBANDITS_MAX_INPUT_BYTES "
                f"= {most:,.0f} bytes of a study's creation. Make the problem smaller, or raise the limit "
                "(docs/limits.md).",
            )
        if given is None and body:  # (no body needs no Content-Type; a body does)
            return error_response(
                415,
                "unsupported_media_type",
                "A request body must be sent as 'Content-Type: application/json'.",
            )
        if body.strip():
            try:
                json.loads(body, parse_constant=_refuse_constant)
            except (ValueError, RecursionError) as exc:  # (JSONDecodeError, bad UTF-8, NaN, too deep)
                why = "nested too deeply" if isinstance(exc, RecursionError) else str(exc)[:200]
                return error_response(400, "bad_json", f"The request body is not JSON: {why}.")
        return None

    async def _read(self, scope: Any, receive: Any, headers: Any) -> bytes | None:
        """The whole body, or ``None`` as soon as it is larger than ``max_body`` (never read further)."""
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return None
        chunks, total = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return b""
            chunk = message.get("body", b"")
            total += len(chunk)
            if total > self.max_body:
                return None
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks)


# -- the application -----------------------------------------------------------------------------------
def create_api(storage: str, token: str | None = None, *, max_body: int = MAX_REQUEST_BYTES) -> Any:
    """The JSON API as an ASGI application (the dashboard mounts it at :data:`API_PREFIX`)."""
    from fastapi import Depends, FastAPI
    from fastapi.security import HTTPBearer

    from safebandits._version import __version__

    def clean(exc: BaseException) -> str:
        return redact_text(exc, storage)

    bearer = HTTPBearer(auto_error=False, description="The server's token, when it was started with one.")
    api = FastAPI(
        title="safebandits studies",
        version=__version__,
        summary="Ask / tell studies over HTTP: create, ask, tell, status, recommend.",
        openapi_url="/openapi.json",
        docs_url=None,  # (Swagger UI loads scripts from elsewhere; the dashboard's CSP runs no script)
        redoc_url=None,
        dependencies=[Depends(bearer)],  # (documents the token; _Guard checks it before any route)
    )
    api.router.route_class = _guarded_route(clean)
    api.add_middleware(_Guard, token=token, max_body=max_body)
    _add_error_handlers(api)
    _add_collection_routes(api, storage, clean)
    _add_study_routes(api, storage, clean)
    api.openapi = _openapi_without_default_422(api)  # type: ignore[method-assign]
    return api


def _guarded_route(clean: Callable[[BaseException], str]) -> Any:
    """The route class of the API: every failure of a handler as a JSON error in one log line (no
    traceback, no credential: ``clean`` redacts)."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from fastapi.routing import APIRoute
    from starlette.exceptions import HTTPException

    class GuardedRoute(APIRoute):
        def get_route_handler(self) -> Any:
            handler = super().get_route_handler()

            async def guarded(request: Request) -> Any:
                try:
                    return await handler(request)
                except (ApiError, RequestValidationError, HTTPException):
                    raise
                except TooLargeError as exc:  # (estimated before anything was built)
                    return error_response(413, "too_large", clean(exc))
                except MemoryError as exc:  # (the last line: the estimates refuse what they know first)
                    _log.warning("api: out of memory (%s)", clean(exc))
                    return error_response(
                        413, "too_large", "The request is too large for the server's memory; make the "
                        "problem smaller (see the limits of the API's documentation).",
                    )  # fmt: skip
                except ConfigError as exc:
                    return error_response(422, "invalid", clean(exc))
                except ProtocolError as exc:
                    return error_response(409, "conflict", clean(exc))
                except SafeBanditsError as exc:
                    _log.warning("api: %s", clean(exc))
                    return error_response(503, "unavailable", clean(exc))
                except Exception as exc:
                    _log.error("api: internal error (%s: %s)", type(exc).__name__, clean(exc))
                    return error_response(
                        500, "internal", f"Internal error ({type(exc).__name__}); see the server's log."
                    )

            return guarded

    return GuardedRoute


def _add_error_handlers(api: Any) -> None:
    """Refusals as :class:`ErrorBody` JSON: the API's own, FastAPI's validation errors (the refused input
    is not echoed) and Starlette's HTTP errors (no route, wrong method)."""
    from fastapi import Request
    from fastapi.exceptions import RequestValidationError
    from starlette.exceptions import HTTPException

    @api.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> Any:
        return error_response(exc.status, exc.code, exc.message, exc.details)

    @api.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> Any:
        details = [
            {
                "loc": [str(p) for p in e.get("loc", ())],
                "type": str(e.get("type", "")),
                "msg": str(e.get("msg")),
            }
            for e in exc.errors()[:20]
        ]  # (the refused input is not echoed)
        if any(d["type"] == "json_invalid" for d in details):
            return error_response(400, "bad_json", "The request body is not JSON.", details)
        first = details[0] if details else {"loc": [], "msg": "invalid"}
        where = ".".join(p for p in first["loc"] if p != "body") or "body"
        return error_response(422, "invalid", f"{where}: {first['msg']}", details)

    @api.exception_handler(HTTPException)
    async def _http(request: Request, exc: HTTPException) -> Any:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "invalid")
        headers = exc.headers
        if exc.status_code == 405:  # (every method of the path: Starlette names the first route's only)
            headers = {**(headers or {}), "allow": _allowed_methods(request)}
        return error_response(exc.status_code, code, str(exc.detail), headers=headers)


def _allowed_methods(request: Any) -> str:
    """The methods of every route of the API whose path matches the request's (its ``Allow`` header)."""
    from starlette.routing import Match

    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match != Match.NONE:
            methods |= set(getattr(route, "methods", None) or ())
    return ", ".join(sorted(methods))


def _reply(value: Any, status: int = 200) -> Any:
    from starlette.responses import JSONResponse

    from safebandits.study.codec import jsonable

    return JSONResponse(jsonable(value), status_code=status)


def _open_study(name: str, storage: str, clean: Callable[[BaseException], str]) -> Any:
    """The study ``name`` of ``storage``; 404 ``not_found`` when there is none (the storage was checked
    at start)."""
    from safebandits.study.study import load_study
    from safebandits.study.validation import check_study_name

    name = name.replace(_SLASH, "/")  # (a name stored before '/' was refused, sent as %2F)
    try:
        check_study_name(name)
        return load_study(name, storage)
    except ConfigError as exc:
        raise ApiError(404, "not_found", clean(exc)) from None


def _add_collection_routes(api: Any, storage: str, clean: Callable[[BaseException], str]) -> None:
    """``GET /studies`` (the names) and ``POST /studies`` (create one)."""
    from safebandits.study.options import create_from_options
    from safebandits.study.study import list_studies

    reply = _reply
    shown_storage = redact_url(storage)

    @api.get("/studies", response_model=StudyList, responses=_errors(401, 403, 503))
    def studies() -> Any:
        """The names of the studies in the storage."""
        return reply({"studies": list_studies(storage)})

    @api.post(
        "/studies",
        status_code=201,
        response_model=Created,
        responses=_errors(400, 401, 403, 409, 413, 415, 422, 503),
    )
    def create(body: CreateStudy) -> Any:
        """Create a study (the arguments and checks of `safebandits study create`)."""
        if body.name in list_studies(storage):
            raise ApiError(409, "conflict", f"A study named {body.name!r} already exists; pick another name.")
        try:
            made = create_from_options(
                body.name, body.algorithm, storage=storage, instance=body.instance,
                instance_params=body.instance_params, info=body.info, experiment=body.experiment,
                config=body.config, seed=body.seed, instance_seed=body.instance_seed, max_open=body.max_open,
                snapshot_every=body.snapshot_every,
            )  # fmt: skip
        except ConfigError as exc:
            if body.name in list_studies(storage):  # another client created it meanwhile
                raise ApiError(409, "conflict", clean(exc)) from None
            raise
        made["storage"] = shown_storage
        return reply(made, 201)


def _add_ask_route(api: Any, open_study: Callable[[str], Any], clean: Callable[[BaseException], str]) -> None:
    """``POST /studies/{name}/ask`` (with the round's context for a contextual study)."""
    from safebandits.study.study import NoQueryAvailable

    @api.post(
        "/studies/{name}/ask",
        response_model=QueryOut,
        responses=_errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    def ask(name: str, body: Ask | None = None) -> Any:
        """The open query (with max_open=1 the same one until told; a new one once every query is told).
        A conservative contextual study is asked with the round's context (``{"context": {"arms",
        "baseline", "baseline_reward"}}``, 422 naming the field when refused); a study of a LinearProblem's
        conservative view (fixed arms) fills it in from its declaration, and one sent must be that one.
        409 ``no_query_available`` when every query that can be handed out is out, ``done`` when the study
        is done, ``conflict`` when a query asked with another context is open."""
        context = context_of(body)
        with open_study(name) as s:
            try:
                return _reply(s.ask(context).to_dict())
            except NoQueryAvailable as exc:
                raise ApiError(409, "no_query_available", clean(exc)) from None
            except ProtocolError as exc:
                code = "done" if s.done else "conflict"
                raise ApiError(409, code, clean(exc)) from None


def _add_study_routes(api: Any, storage: str, clean: Callable[[BaseException], str]) -> None:
    """The routes of one study: ask, tell, expire, its recommendation, queries and summary (the name is
    one path segment: a new name holds no '/', see :func:`~safebandits.study.validation.check_study_name`)."""
    from safebandits.study.study import UnknownQuery

    reply = _reply
    shown_storage = redact_url(storage)

    def open_study(name: str) -> Any:
        return _open_study(name, storage, clean)

    _add_ask_route(api, open_study, clean)

    @api.post(
        "/studies/{name}/tell",
        response_model=Told,
        responses=_errors(400, 401, 403, 404, 409, 413, 415, 422, 503),
    )
    def tell(name: str, body: Tell) -> Any:
        """Record the answer to a query (checked as Study.tell checks it; answers are final)."""
        with open_study(name) as s:
            try:
                s.tell(body.id, body.answer)  # (the one check of the answer, and of its id)
            except UnknownQuery as exc:
                raise ApiError(404, "unknown_query", clean(exc)) from None
            except ProtocolError as exc:
                raise ApiError(409, "already_told", clean(exc)) from None
            return reply({"id": body.id, "told": True, "n_answered": s.n_answered, "done": s.done})

    @api.post(
        "/studies/{name}/expire",
        response_model=Expired,
        responses=_errors(400, 401, 403, 404, 413, 415, 422, 503),
    )
    def expire(name: str, body: Expire) -> Any:
        """Return abandoned open queries to the pool (``ask`` re-issues them first); all of them when the
        body is ``{}``."""
        with open_study(name) as s:
            return reply({"expired": s.expire(older_than=body.older_than, ids=body.ids)})

    @api.get(
        "/studies/{name}/recommendation",
        response_model=RecommendationOut,
        responses=_errors(401, 403, 404, 503),
    )
    def recommendation(name: str) -> Any:
        """The recommendation (final once the study is done, else anytime), with it in words."""
        with open_study(name) as s:
            rec = s.recommend()
            words = s.summary(conservative=False)["recommendation"]["words"]
        return reply({"arm": rec.arm, "final": rec.final, "n_samples": rec.n_samples, "info": rec.info,
                      "words": words})  # fmt: skip

    @api.get("/studies/{name}/queries", response_model=Queries, responses=_errors(401, 403, 404, 503))
    def queries(name: str) -> Any:
        """Every query with its answer (null while open), in order."""
        with open_study(name) as s:
            return reply({"queries": s.queries()})

    add_conservative_route(api, open_study, _errors, reply, ApiError)

    @api.get("/studies/{name}", response_model=Summary, responses=_errors(401, 403, 404, 503))
    def status(name: str) -> Any:
        """The summary of a study (`safebandits study status`)."""
        with open_study(name) as s:
            summary = s.summary()
        summary["storage"] = shown_storage
        return reply(summary)


def _openapi_without_default_422(api: Any) -> Callable[[], dict[str, Any]]:
    """FastAPI's schema without its default 422 body (every error here is an :class:`ErrorBody`)."""
    from pydantic.json_schema import models_json_schema

    plain_openapi = api.openapi

    def openapi() -> dict[str, Any]:
        if api.openapi_schema is None:
            schema = plain_openapi()
            default = {"$ref": "#/components/schemas/HTTPValidationError"}
            for operations in schema["paths"].values():
                for op in operations.values():
                    responses = op.get("responses", {})
                    if (
                        responses.get("422", {}).get("content", {}).get("application/json", {}).get("schema")
                        == default
                    ):
                        del responses["422"]
            components = schema["components"]["schemas"]
            for name in ("HTTPValidationError", "ValidationError"):
                components.pop(name, None)
            # The request bodies as pydantic writes them: FastAPI's schema model turns integer bounds
            # into floats (2**63 - 1 would read 9.223372036854776e+18, i.e. 2**63).
            _, top = models_json_schema(
                [(m, "validation") for m in (CreateStudy, Tell, Expire, Ask)],
                ref_template="#/components/schemas/{model}",
            )
            components.update({k: v for k, v in top["$defs"].items() if k in components})
            api.openapi_schema = schema
        return api.openapi_schema

    return openapi


def openapi_schema() -> dict[str, Any]:
    """The API's OpenAPI schema as served at ``/api/v1/openapi.json`` (the docs print it)."""
    schema = create_api("sqlite:///study.db").openapi()
    schema["servers"] = [{"url": API_PREFIX}]
    return schema


if __name__ == "__main__":  # python -m safebandits.dashboard.api: print the schema
    print(json.dumps(openapi_schema(), indent=1))
