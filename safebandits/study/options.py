"""One reading of the options that create a study, shared by ``safebandits study create`` and the JSON API's
``POST /api/v1/studies``: the same arguments, the same checks, the same study.

A study is made on exactly one of

* a registered ``instance`` with its parameters (``--set KEY=VALUE``; the API's ``set`` object): the
  learner gets its public view (the privileged view for the oracle baselines);
* a problem view ``info`` as ``study export`` writes it (``--info FILE``; the API's ``info`` object);
* an experiment file's content (``--problem FILE.toml``; the API's ``experiment`` object, the file as
  JSON): its ``[problem]`` table is declared, its ``[[learners]]`` options for the algorithm (a name or a
  label) and its ``horizon`` apply. A table that came from no file reads no file (a pool's ``csv`` is
  refused there).

``config`` (``--param``; the API's ``config``) overrides the file's options. Every value keeps its type:
a string is never a number.
"""

from __future__ import annotations

from typing import Any

from safebandits._limits import MAX_SEED
from safebandits.exceptions import ConfigError, restated
from safebandits.study.snapshot import DEFAULT_SNAPSHOT_EVERY

__all__ = ["create_from_options", "learner_of_file"]


def _records_truth(declared: Any) -> bool:
    """Whether a study of ``declared`` keeps an experiment file's ``[truth]``: a conservative problem, or a
    LinearProblem offering the conservative view (the record's margin under the truth; a study whose
    learner reads another view drops it)."""
    setting = getattr(declared, "setting", None)
    if setting == "linear":
        from safebandits.problems.declare.linear_conservative import why_not_conservative

        return why_not_conservative(declared) is None
    return setting in ("conservative", "conservative-linear")


def _check_int(value: Any, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ConfigError(f"The {what} must be an integer in [{low}, {high}]; got {value!r:.40}.")
    return int(value)


def _check_table(value: Any, what: str) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise ConfigError(f"The {what} must be an object of named values; got {type(value).__name__}.")
    return dict(value)


def create_from_options(
    name: str,
    algorithm: str,
    *,
    storage: str,
    instance: str | None = None,
    instance_params: dict[str, Any] | None = None,
    info: Any = None,
    experiment: dict[str, Any] | None = None,
    experiment_file: str | None = None,
    config: dict[str, Any] | None = None,
    seed: int | None = None,
    instance_seed: int = 0,
    max_open: int = 1,
    snapshot_every: int = DEFAULT_SNAPSHOT_EVERY,
) -> dict[str, Any]:
    """Create study ``name`` and return what ``study create`` prints (name, algorithm, task, seed, the
    declared ``kind`` for an experiment, ``config``: every option as the learner applies it, each default it
    resolved included, and the storage URL with its credentials redacted).

    Exactly one of ``instance``, ``info`` (a problem view's JSON) and ``experiment`` (an experiment file's
    content as a dict; ``experiment_file`` names the file it came from, whose folder a pool's ``csv`` is
    read relative to) must be given. Raises :class:`ConfigError` for every refused value (nothing is
    stored then).
    """
    import numpy as np

    from safebandits.algorithms.registry import get_algorithm
    from safebandits.problems.registry import list_instances, make_instance
    from safebandits.study.codec import info_from_dict
    from safebandits.study.study import create_study

    if sum(v is not None for v in (instance, info, experiment)) != 1:
        raise ConfigError(
            "Give exactly one of an instance, a problem view (info) or an experiment (problem)."
        )
    if instance_params and instance is None:
        raise ConfigError("Instance parameters (--set) apply to an instance only.")
    params = _check_table(instance_params, "instance parameters")
    options = _check_table(config, "algorithm config")
    instance_seed = _check_int(instance_seed, "instance seed", 0, MAX_SEED)
    if not isinstance(algorithm, str):
        raise ConfigError(f"The algorithm must be a name; got {type(algorithm).__name__}.")
    if experiment is not None:
        return _create_declared(
            name, algorithm, experiment, experiment_file, options, seed, max_open, snapshot_every, storage
        )
    entry = get_algorithm(algorithm)
    problem = None
    if instance is not None:
        entries = list_instances()
        if not isinstance(instance, str) or instance not in entries:
            raise ConfigError(f"Unknown instance {instance!r:.80}. Known instances: {', '.join(entries)}.")
        rng = np.random.default_rng(instance_seed) if entries[instance].random else None
        inst = make_instance(instance, rng, **params)
        view = inst.privileged_info() if entry.privileged else inst.public_info()
        # (the dashboard shows queries as its instance's view says)
        problem = {"instance": instance, "params": params, "instance_seed": instance_seed}
    else:
        if not isinstance(info, dict):
            raise ConfigError(f"A problem view (info) must be a JSON object; got {type(info).__name__}.")
        view = info_from_dict(info)
    s = create_study(
        name,
        algorithm,
        view,
        options,
        storage=storage,
        seed=seed,
        max_open=max_open,
        problem=problem,
        snapshot_every=snapshot_every,
    )
    with s:
        return {"name": s.name, "algorithm": s.algorithm, "task": s.task, "seed": s.seed,
                "config": s.applied_config, "storage": s.storage_url}  # fmt: skip


def learner_of_file(raw: dict[str, Any], algorithm: str, source: str) -> tuple[str, dict[str, Any]]:
    """The registered name and options of ALGORITHM in a file's ``[[learners]]`` (by label, then by name);
    the name itself with no options when the file does not list it."""
    learners = raw.get("learners") or []
    if not isinstance(learners, list):
        raise ConfigError(f"{source}: 'learners' must be an array of tables ([[learners]]).")
    tables = [t for t in learners if isinstance(t, dict)]
    by_label = [t for t in tables if t.get("label") == algorithm]
    by_name = [t for t in tables if t.get("name") == algorithm and not t.get("label")] or [
        t for t in tables if t.get("name") == algorithm
    ]
    found = by_label or by_name
    if len(found) > 1:
        labels = ", ".join(repr(t.get("label") or t.get("name")) for t in found)
        raise ConfigError(
            f"{source}: {len(found)} [[learners]] are named {algorithm!r} ({labels}); "
            "give --algorithm one of their labels."
        )
    if not found:
        return algorithm, {}
    table = found[0]
    options = table.get("options") or {}
    if not isinstance(options, dict):
        raise ConfigError(f"{source}: learner {algorithm!r}: 'options' must be a table.")
    return str(table.get("name")), dict(options)


def _create_declared(
    name: str,
    algorithm: str,
    raw: dict[str, Any],
    experiment_file: str | None,
    params: dict[str, Any],
    seed: int | None,
    max_open: int,
    snapshot_every: int,
    storage: str,
) -> dict[str, Any]:
    """A study on an experiment's declared problem (``--problem FILE.toml`` or the API's ``experiment``)."""
    import contextlib
    from pathlib import Path

    from safebandits._cost import storing_kernel_view
    from safebandits.algorithms.compatibility import kinds_of
    from safebandits.algorithms.registry import get_algorithm, list_algorithms
    from safebandits.experiments.user import check_source, problem_of_table
    from safebandits.study.study import create_study

    source = experiment_file or "experiment"
    raw = check_source(raw, source)  # (the rules of `run`: keys, horizon and replicates caps, ...)
    base_dir = None if experiment_file is None else Path(experiment_file).parent
    learner, options = learner_of_file(raw, algorithm, source)
    # A kernel learner's study stores the kernel view: its JSON is estimated before the kernel matrices
    # are built (the declaration's own check, docs/limits.md).
    kinds = kinds_of(get_algorithm(learner)) if learner in list_algorithms() else ()
    with storing_kernel_view() if kinds[:1] == ("kernel",) else contextlib.nullcontext():
        declared = problem_of_table(raw.get("problem"), source, base_dir=base_dir)
    options.update(params)  # --param wins over the file's options
    horizon = raw.get("horizon")
    truth = raw.get("truth")
    if truth and _records_truth(declared):
        # (a conservative study records the margin under the file's truth; the learner never reads it)
        from safebandits.problems.declare import SimulatedProblem

        try:
            declared = SimulatedProblem(problem=declared, truth=_check_table(truth, "[truth] table"))
        except ConfigError as exc:
            raise restated(exc, f"{source}: [truth]: {' '.join(str(exc).split())}") from None
    try:
        s = create_study(
            name,
            learner,
            declared,
            options,
            storage=storage,
            seed=seed,
            max_open=max_open,
            horizon=horizon,
            snapshot_every=snapshot_every,
        )
    except ConfigError as exc:  # one line, naming the file
        raise restated(exc, f"{source}: {' '.join(str(exc).split())}") from None
    with s:
        return {"name": s.name, "algorithm": s.algorithm, "task": s.task, "seed": s.seed,
                "kind": s.declared_kind, "config": s.applied_config, "storage": s.storage_url}  # fmt: skip
