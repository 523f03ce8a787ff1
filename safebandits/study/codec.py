"""JSON codecs of a study: problem information, decisions and observations, and feedback checks.

A learner's view of a problem (``instance.public_info()``) is a frozen dataclass holding arrays. It is
stored as JSON: ``{"__type__": "CBAIInfo", "arms": {"__ndarray__": [[...]], "dtype": "float64"}, ...}``.
Arrays become nested lists with their dtype, tuples are tagged, nested dataclasses (the
:class:`~safebandits.problems.safe_linear.DecisionSet` of Safe-LUCB) are encoded the same way. Python's
``json`` writes floats with ``repr``, so every float64 round-trips bit for bit and a learner rebuilt
from the stored view takes exactly the same decisions.

:func:`register_info_type` adds a type (a plugin's own info class) to the registry that decoding uses;
:func:`feedback_spec` says what one answer to a query of a learner on that view must hold.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from safebandits.algorithms._observation import (
    ObservationSpec,
    check_observation,
    register_observation_spec,
    spec_for_info,
)
from safebandits.exceptions import ConfigError, ProtocolError
from safebandits.records import to_stored
from safebandits.study.validation import check_number_tree
from safebandits.types import BatchObservation, Decision, Observation

__all__ = [
    "decision_from_dict",
    "decision_to_dict",
    "feedback_spec",
    "info_from_dict",
    "info_to_dict",
    "jsonable",
    "observation_from_dict",
    "observation_to_dict",
    "parse_observation",
    "register_info_type",
]

#: What one pull's answer holds: the learners' :class:`~safebandits.algorithms._observation.ObservationSpec`
#: (one check for ``tell`` and for studies).
FeedbackSpec = ObservationSpec


_INFO_TYPES: dict[str, type] = {}


def register_info_type(cls: type, spec: Callable[[Any], FeedbackSpec] | None = None) -> type:
    """Register a dataclass of problem information (and its feedback rule) for storage in studies.

    Parameters
    ----------
    cls : dataclass type
        Decoded by its class name, so names must be unique.
    spec : callable, optional
        ``spec(info) -> ObservationSpec``; needed for the types learners are built on (not for nested
        parts such as a decision set). It is registered for ``tell`` as well
        (:func:`~safebandits.algorithms._observation.register_observation_spec`).
    """
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"Only dataclasses can be registered as info types; got {cls!r}.")
    _INFO_TYPES[cls.__name__] = cls
    if spec is not None:
        register_observation_spec(cls, spec)
    return cls


def _register_builtin() -> None:
    from safebandits.classification.problem import PoolInfo
    from safebandits.problems.conservative import ConservativeInfo
    from safebandits.problems.conservative_linear import ConservativeLinearInfo
    from safebandits.problems.dose import DoseInfo
    from safebandits.problems.function_class import FunctionClassInfo
    from safebandits.problems.kernel import KernelInfo
    from safebandits.problems.kernel_box import Box
    from safebandits.problems.linear import CBAIInfo, CBAIPrivilegedInfo
    from safebandits.problems.safe_linear import DecisionSet, SafeLinearInfo
    from safebandits.problems.stagewise import StagewiseInfo
    from safebandits.problems.transductive import TransductiveInfo

    # their feedback rules are the learners' own (safebandits.algorithms._observation)
    for cls in (
        CBAIInfo,
        CBAIPrivilegedInfo,
        TransductiveInfo,
        StagewiseInfo,
        FunctionClassInfo,
        KernelInfo,
        SafeLinearInfo,
        DecisionSet,
        PoolInfo,  # FDR active classification: one label (0 or 1) per queried record
        Box,  # the continuous domain of a kernel problem (KernelInfo.box)
        ConservativeInfo,  # a default arm and a tolerance alpha (issue 44)
        DoseInfo,  # ordered doses, monotone toxicity and a declared step bound (issue 45)
        ConservativeLinearInfo,  # contexts of linear actions, a baseline policy and alpha (issue 44)
    ):
        register_info_type(cls)


def _registry() -> dict[str, type]:
    if not _INFO_TYPES:
        _register_builtin()
    return _INFO_TYPES


# -- generic JSON encoding ---------------------------------------------------------------------------
def _encode(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if type(value).__name__ == "PointKernel":  # (a kernel on coordinates: finite or box kernel problems)
        from safebandits.estimators.gp import PointKernel

        if isinstance(value, PointKernel):
            return {
                "__point_kernel__": {
                    "points": _encode(value.points),
                    "kind": value.kind,
                    "lengthscale": value.lengthscale,
                    "variance": value.variance,
                    "nu": value.nu,
                }
            }
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _registry().get(name) is not type(value):
            raise ConfigError(
                f"Cannot store a {name}: register it with safebandits.study.register_info_type first."
            )
        out: dict[str, Any] = {"__type__": name}
        for f in dataclasses.fields(value):
            if f.init:  # (not a derived cache: the view is rebuilt from its init fields)
                out[f.name] = _encode(getattr(value, f.name))
        return out
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise ConfigError(f"Cannot store a value of type {type(value).__name__} in a study ({value!r}).")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "__ndarray__" in value:
        return np.asarray(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
    if "__tuple__" in value:
        return tuple(_decode(v) for v in value["__tuple__"])
    if "__point_kernel__" in value:
        from safebandits.estimators.gp import PointKernel

        spec = dict(value["__point_kernel__"])
        return PointKernel(_decode(spec.pop("points")), spec.pop("kind"), **spec)
    if "__type__" in value:
        name = value["__type__"]
        cls = _registry().get(name)
        if cls is None:
            raise ConfigError(
                f"Unknown stored info type {name!r}; known: {sorted(_registry())}. "
                "Import the plugin that registers it before loading the study."
            )
        # (a study stored before a field became derived, init=False, still loads: such keys are dropped)
        init = {f.name for f in dataclasses.fields(cls) if f.init} if dataclasses.is_dataclass(cls) else None
        fields = {k: _decode(v) for k, v in value.items() if k != "__type__" and (init is None or k in init)}
        return cls(**fields)
    return {k: _decode(v) for k, v in value.items()}


def info_to_dict(info: Any) -> dict[str, Any]:
    """Encode a problem view (a registered dataclass) as JSON-ready data with a type tag."""
    if not (dataclasses.is_dataclass(info) and not isinstance(info, type)):
        raise TypeError(f"info must be a problem view (a dataclass instance); got {type(info).__name__}.")
    return _encode(info)


def info_from_dict(data: Mapping[str, Any]) -> Any:
    """Inverse of :func:`info_to_dict` (exact: arrays keep their dtype and every bit)."""
    if not isinstance(data, Mapping) or "__type__" not in data:
        raise ConfigError("A stored info must be a JSON object with a '__type__' tag.")
    return _decode(dict(data))


def feedback_spec(info: Any) -> FeedbackSpec:
    """The :class:`FeedbackSpec` of learners built on ``info`` (the one ``tell`` checks against)."""
    _registry()
    spec = spec_for_info(info)
    if spec is None:
        raise ConfigError(
            f"No feedback rule is registered for {type(info).__name__}; "
            "pass spec= to safebandits.study.register_info_type."
        )
    return spec


def jsonable(value: Any) -> Any:
    """Plain JSON data of a diagnostic value (arrays to lists, non-finite floats to None; any other object
    with a ``to_json`` method, e.g. :class:`~safebandits.records.EstimateSnapshot`, to that string)."""
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return jsonable(value._asdict())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, str)):
        return value
    stored = to_stored(value)
    return stored if stored is not value else str(value)


# -- decisions ---------------------------------------------------------------------------------------
def _floats(a: Any) -> list[Any] | None:
    return None if a is None else np.asarray(a, dtype=np.float64).tolist()


def decision_to_dict(decision: Decision) -> dict[str, Any]:
    """``{"arm", "counts", "probs", "point"}`` of a decision (unused fields ``None``)."""
    return {
        "arm": None if decision.arm is None else int(decision.arm),
        "counts": None if decision.counts is None else np.asarray(decision.counts, dtype=np.int64).tolist(),
        "probs": _floats(decision.probs),
        "point": _floats(decision.point),
    }


def decision_from_dict(data: Mapping[str, Any]) -> Decision:
    counts = data.get("counts")
    return Decision(
        arm=data.get("arm"),
        counts=None if counts is None else np.asarray(counts, dtype=np.int64),
        probs=None if data.get("probs") is None else np.asarray(data["probs"], dtype=np.float64),
        point=None if data.get("point") is None else np.asarray(data["point"], dtype=np.float64),
    )


# -- observations ------------------------------------------------------------------------------------
def observation_to_dict(obs: Observation | BatchObservation) -> dict[str, Any]:
    if isinstance(obs, BatchObservation):
        return {
            "counts": np.asarray(obs.counts, dtype=np.int64).tolist(),
            "constraint_sums": _floats(obs.constraint_sums),
            "reward_sums": _floats(obs.reward_sums),
        }
    return {
        "reward": None if obs.reward is None else float(obs.reward),
        "constraints": _floats(obs.constraints),
    }


def observation_from_dict(data: Mapping[str, Any]) -> Observation | BatchObservation:
    """Inverse of :func:`observation_to_dict` (no checks: for stored, already checked answers)."""
    if "counts" in data:
        cs, rs = data.get("constraint_sums"), data.get("reward_sums")
        return BatchObservation(
            counts=np.asarray(data["counts"], dtype=np.int64),
            constraint_sums=None if cs is None else np.asarray(cs, dtype=np.float64),
            reward_sums=None if rs is None else np.asarray(rs, dtype=np.float64),
        )
    c = data.get("constraints")
    return Observation(
        reward=None if data.get("reward") is None else float(data["reward"]),
        constraints=None if c is None else np.asarray(c, dtype=np.float64),
    )


def _number_array(value: Any, what: str) -> np.ndarray:
    """``value`` as a float array, refusing strings, bools and objects (no coercion of ``"0.5"``)."""
    check_number_tree(value, what)
    try:
        arr = np.asarray(value) if not isinstance(value, (str, bytes)) else np.asarray(value, dtype=object)
    except (TypeError, ValueError):  # ragged lists
        raise ConfigError(f"The {what} must be a rectangular array of numbers; got {value!r}.") from None
    if arr.dtype.kind not in "iuf":
        raise ConfigError(f"The {what} must be numbers; got {value!r}.")
    return arr.astype(np.float64)


def _get(data: Any, key: str) -> Any:
    if isinstance(data, Mapping):
        return data.get(key)
    return getattr(data, key, None)


def parse_observation(
    value: Any, decision: Decision, spec: FeedbackSpec, n_arms: int | None = None
) -> Observation | BatchObservation:
    """Check an answer to ``decision`` against ``spec`` and build the learner's observation.

    Parameters
    ----------
    value : Observation, BatchObservation, dict or number
        One pull: ``Observation`` or ``{"reward": r, "constraints": [c_1, ...]}``; a bare number
        stands for the single constraint value when no reward is observed (``study.tell(q, -1)``), or
        for the reward when no constraint value is; a list stands for the constraint values when no
        reward is observed. A batch: ``BatchObservation`` or
        ``{"counts": [...], "constraint_sums": [[...]], "reward_sums": [...]}``; ``counts`` may be left
        out (it must equal the query's).
    decision : Decision
        The query being answered.
    spec : FeedbackSpec

    Raises
    ------
    ConfigError
        On a missing or extra value, a wrong shape, NaN or infinity, a value outside the feedback's range,
        or batch counts other than the query's.
    """
    if decision.is_batch:
        return _parse_batch(value, decision, spec)
    m = spec.n_constraints
    if isinstance(value, BatchObservation):
        raise ConfigError("A single-pull query is answered with one observation, not a batch.")
    if isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"An answer must be a number or an observation; got {value!r}.")
    if isinstance(value, (int, float, np.number)):
        if not spec.reward and m == 1:
            value = {"constraints": [value]}
        elif spec.reward and m == 0:
            value = {"reward": value}
        else:
            raise ConfigError(f"A bare number is ambiguous here: an answer holds {spec.describe()}.")
    if (
        isinstance(value, (list, tuple, np.ndarray))
        and not isinstance(value, Observation)
        and not spec.reward
    ):
        value = {"constraints": value}
    if isinstance(value, Mapping):
        unknown = set(value) - {"reward", "constraints"}
        if unknown:
            raise ConfigError(
                f"Unknown key(s) {sorted(unknown)} in an answer; use 'reward' and 'constraints'."
            )
    elif not isinstance(value, Observation):
        raise ConfigError(f"An answer must be a number, a dict or an Observation; got {value!r}.")
    reward, cons = _get(value, "reward"), _get(value, "constraints")
    if spec.reward and reward is None:
        raise ConfigError(f"The answer has no reward; it must hold {spec.describe()}.")
    if not spec.reward and reward is not None:
        raise ConfigError(f"This study observes no reward; an answer holds {spec.describe()}.")
    if isinstance(cons, (int, float, np.number)) and not isinstance(cons, bool):
        cons = [cons]
    if m == 0 and cons is not None and np.size(cons) != 0:
        raise ConfigError(f"This study observes no constraint values; got {cons!r}.")
    if m > 0 and cons is None:
        raise ConfigError(f"The answer has no constraint values; it must hold {spec.describe()}.")
    if reward is not None and (
        isinstance(reward, (bool, np.bool_)) or not isinstance(reward, (int, float, np.number))
    ):
        raise ConfigError(f"The reward must be a number; got {reward!r}.")
    obs = Observation(
        reward=None if reward is None else float(reward),
        constraints=None if cons is None else _number_array(cons, f"constraint values (m = {m})"),
    )
    _checked(decision, obs, spec)
    if m == 0 and obs.constraints is not None:
        obs = obs._replace(constraints=np.zeros(0))
    return obs


def _parse_batch(value: Any, decision: Decision, spec: FeedbackSpec) -> BatchObservation:
    """A batch query's answer: per-arm sums (and counts equal to the query's)."""
    m = spec.n_constraints
    if not (isinstance(value, (Mapping, BatchObservation))):
        raise ConfigError(
            "A batch query is answered with per-arm sums: {'counts': [...], 'constraint_sums': "
            f"[[...]], 'reward_sums': [...]}} (or a BatchObservation); got {value!r}."
        )
    if isinstance(value, Mapping):
        unknown = set(value) - {"counts", "constraint_sums", "reward_sums"}
        if unknown:
            raise ConfigError(f"Unknown key(s) {sorted(unknown)} in a batch answer.")
    want = np.asarray(decision.counts, dtype=np.int64)
    counts = _get(value, "counts")
    if counts is not None and not np.array_equal(_number_array(counts, "counts"), want):
        raise ConfigError(f"The answer's counts {np.asarray(counts).tolist()} differ from the query's.")
    rs, cs = _get(value, "reward_sums"), _get(value, "constraint_sums")
    if spec.reward != (rs is not None):
        raise ConfigError(
            "This study observes rewards: give 'reward_sums'."
            if spec.reward
            else "This study observes no rewards: leave 'reward_sums' out."
        )
    if (m > 0) != (cs is not None):
        raise ConfigError(f"The answer must {'give' if m else 'not give'} 'constraint_sums' (m = {m}).")
    obs = BatchObservation(
        counts=want,
        constraint_sums=None if cs is None else _number_array(cs, "constraint_sums"),
        reward_sums=None if rs is None else _number_array(rs, "reward_sums"),
    )
    _checked(decision, obs, spec)
    return obs


def _checked(decision: Decision, obs: Observation | BatchObservation, spec: FeedbackSpec) -> None:
    """The learners' own check (:func:`~safebandits.algorithms._observation.check_observation`); every
    refusal is a ConfigError here (answers come from JSON: a wrong type is a wrong answer)."""
    try:
        check_observation(decision, obs, spec, "this study")
    except (TypeError, ProtocolError) as exc:
        raise ConfigError(str(exc)) from None


def dumps(value: Any) -> str:
    """Compact JSON (``allow_nan=False``: a NaN never reaches the database)."""
    return json.dumps(value, separators=(",", ":"), allow_nan=False)
