"""Check a whole sweep before it starts: every task's instance and algorithm config is built first.

A bad ``--set`` value (``T=NaN``, ``sigma=-1``, ``d=[1,2]``) is then one usage error naming the value,
with nothing recorded, instead of hundreds of failed runs. Each distinct instance configuration is built
once (random families with the first task's instance seed) and each distinct algorithm config once.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from safebandits._limits import MAX_BUDGET, MAX_SEED  # (the caps of every input; re-exported here)
from safebandits.exceptions import ConfigError
from safebandits.experiments.spec import RunTask
from safebandits.experiments.store import _sql_value
from safebandits.rng import instance_rng

__all__ = ["MAX_BUDGET", "MAX_SEED", "check_tasks"]


def _key(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)


def _describe(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def check_tasks(tasks: Sequence[RunTask]) -> None:
    """Build every distinct instance and algorithm config of ``tasks``; raise one :class:`ConfigError`.

    Raises
    ------
    ConfigError
        Naming the experiment, the instance or algorithm and the offending value.
    """
    from safebandits.algorithms._config import run_params
    from safebandits.algorithms.registry import get_algorithm
    from safebandits.experiments.solvers import find_solver
    from safebandits.problems.registry import list_instances, make_instance

    instances = list_instances()
    seen_inst: set[tuple[str, str]] = set()
    seen_alg: set[tuple[str, str]] = set()
    for task in tasks:
        if (
            isinstance(task.budget, bool)
            or not isinstance(task.budget, int)
            or not 1 <= task.budget <= MAX_BUDGET
        ):
            raise ConfigError(
                f"The budget of {task.experiment} ({task.label}) must be in [1, 10**12]. "
                f"Got {task.budget!r} instead."
            )
        if not 0 <= int(task.key.experiment_seed) <= MAX_SEED:
            raise ConfigError(
                f"The seed must be an integer in [0, 2**63 - 1]. Got {task.key.experiment_seed!r} instead."
            )
        for column, value in task.config().items():  # every value must fit its store column
            _sql_value(value, column)
        ikey = (task.instance, _key(task.instance_params))
        if ikey not in seen_inst:
            seen_inst.add(ikey)
            entry = instances.get(task.instance)
            rng = instance_rng(task.key) if entry is not None and entry.random else None
            try:
                make_instance(task.instance, rng, **task.instance_params)
            except Exception as exc:  # (any failure to build is an invalid setting)
                raise ConfigError(
                    f"{task.experiment}/{task.panel}: instance {task.instance!r} cannot be built with "
                    f"{_describe(task.instance_params)}: {_message(exc)}"
                ) from None
        akey = (task.algorithm, _key(task.algorithm_params))
        if akey not in seen_alg:
            seen_alg.add(akey)
            try:
                solver = find_solver(task.algorithm)
                if solver is not None:
                    solver.config(**task.algorithm_params)
                else:
                    cls = get_algorithm(task.algorithm).cls.config_cls
                    get_algorithm(task.algorithm).config(**run_params(cls, task.algorithm_params))
            except Exception as exc:
                raise ConfigError(
                    f"{task.experiment}: the config of {task.label!r} ({task.algorithm}) is invalid with "
                    f"{_describe(task.algorithm_params)}: {_message(exc)}"
                ) from None


def _message(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if isinstance(exc, ConfigError) else f"{type(exc).__name__}: {text}"
