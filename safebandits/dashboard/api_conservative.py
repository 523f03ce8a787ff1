"""The JSON API's part for conservative studies (issue 44): the round's context in an ``ask`` request
(``POST /studies/{name}/ask`` with ``{"context": {...}}``) and the conservative constraint's record
(``GET /studies/{name}/conservative``). The study layer checks a context
(:func:`~safebandits.study.conservative.parse_context`: its shape against the problem, the features' norm,
the baseline's action and reward); this schema refuses what is not even numbers first (strings, booleans,
non-finite values such as ``1e400``), naming the field."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from safebandits.exceptions import ConfigError

__all__ = ["Ask", "ConservativeRecord", "Context", "add_conservative_route"]

#: A finite number of a request body (``1e400`` reads as infinity in JSON: refused).
Finite = Annotated[float, Field(allow_inf_nan=False)]


def _integral(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


class Context(BaseModel):
    """The round's context of a conservative contextual linear study."""

    model_config = ConfigDict(strict=True, extra="forbid")

    arms: list[list[Finite]] = Field(
        description="The round's actions' features, one row per action: shape (n_actions, dim) of the "
        "problem, each row of norm at most its feature_bound (the request's size is capped by the "
        "server's body limit, 413)."
    )
    baseline: Annotated[int, BeforeValidator(_integral)] = Field(
        ge=0, description="The baseline policy's action in this context (a row of arms)."
    )
    baseline_reward: Finite | None = Field(
        None,
        description="The baseline action's mean reward (required when the problem declares it known; at "
        "least its baseline_floor, 0 by default).",
    )


class Ask(BaseModel):
    """The body of ``ask`` (optional): the round's context, for a study whose problem shows one."""

    model_config = ConfigDict(strict=True, extra="forbid")

    context: Context | None = Field(
        None, description="The round's context (conservative contextual linear studies only)."
    )


class RoundRecord(BaseModel):
    round: int
    id: int
    arm: int | None
    baseline: int | None
    baseline_played: bool
    budget: float | None = Field(
        description="The learner's pessimistic margin xi_t of the action it considered (it plays it only "
        "when xi_t >= 0, else the baseline); null for a learner without one."
    )
    pessimistic_margin: float | None = Field(
        description="The certified lower bound of the margin after the action played (null for the "
        "baseline's action, which raises the margin by alpha r_b >= 0)."
    )
    true_margin: float | None = Field(
        description="sum_s r(a_s) - (1 - alpha) sum_s r(b_s) under the study's truth (null without one)."
    )
    verified: bool = Field(description="The constraint is checked at this round (every checkpoint-th).")
    violated: bool | None


class ConservativeRecord(BaseModel):
    """The conservative constraint's record of a study's answered rounds."""

    alpha: float
    checkpoint: int
    guarantee: str = Field(description="The learner's guarantee in the problem's numbers.")
    truth: bool = Field(description="Whether the study holds a truth (the true margin is recorded).")
    n_rounds: int
    baseline_rounds: int
    violations: int | None = Field(
        description="Verified rounds with a negative true margin (null: no truth)."
    )
    first_violation: int | None
    min_true_margin: float | None
    margin: float | None
    min_pessimistic_margin: float | None
    rounds: list[RoundRecord]


def add_conservative_route(
    api: Any,
    open_study: Callable[[str], Any],
    errors: Callable[..., dict[int | str, dict[str, Any]]],
    reply: Callable[..., Any],
    api_error: type[Exception],
) -> None:
    """``GET /studies/{name}/conservative``: the record (404 ``not_found`` for a study of another problem)."""

    @api.get("/studies/{name}/conservative", response_model=ConservativeRecord,
             responses=errors(401, 403, 404, 503))  # fmt: skip
    def conservative(name: str) -> Any:
        """The conservative constraint per answered round: the learner's pessimistic margin and, with a
        truth attached, the margin under the truth and the violated rounds; the guarantee in words."""
        with open_study(name) as s:
            record = s.conservative()
        if record is None:
            raise api_error(
                404,
                "not_found",
                f"Study {name!r} has no conservative constraint (its problem declares none).",
            )
        return reply(record)


def context_of(body: Ask | None) -> dict[str, Any] | None:
    """The context of an ``ask`` body as the study layer takes it (``None``: none given)."""
    if body is None or body.context is None:
        return None
    ctx = body.context
    if not ctx.arms:
        raise ConfigError("context.arms must hold one row per action. Got no rows instead.")
    return {"arms": ctx.arms, "baseline": ctx.baseline, "baseline_reward": ctx.baseline_reward}
