"""User experiments as data: a TOML file -> an :class:`~safebandits.experiments.spec.ExperimentSpec`.

A file holds the problem declared from its public parts (``[problem]``, see
:mod:`safebandits.problems.declare`), the ground truth used to simulate it (``[truth]``), the learners
with their options (``[[learners]]``), the horizon (regret learners) and sample budget
(identification learners), replicates and seed::

    name = "my-arms"
    title = "Six learners from three papers on my arms"
    horizon = 5000
    replicates = 5

    [problem]
    setting = "linear"
    arms = [[0.3, 0.0], [0.9, 0.0], [0.6, 0.6]]
    threshold = 0.5
    safe_arm = 0

    [truth]
    reward_param = [0.6, 0.8]
    cost_params = [[0.1, 0.8]]

    [[learners]]
    name = "lc-lucb"

    [[learners]]
    name = "opb"
    label = "OPB (K arms)"
    options = { delta = 0.05 }

    [quick]              # optional: the smaller scale of `--scale quick`
    horizon = 500
    replicates = 2

The ``[truth]`` is checked against the bounds the ``[problem]`` declares (means within ``mean_bound``,
``||theta||`` and ``||mu_i||`` within ``param_norm_bound``, RKHS norms within the declared bounds) before
anything runs: a truth outside them is refused, one line per bound, unless the file says
``truth_outside_bounds = "flag"`` at the top (a misspecified problem run on purpose): then every run is
flagged "assumption contradicted" (``safebandits results``, the report).

The file becomes an experiment with one panel on the registered instance ``user/declared`` (its
parameters: the two tables and ``T``), run by the same runner, store, executors and report as the
paper experiments. Scale ``"paper"`` is the file as written; ``"quick"`` applies ``[quick]``.
``safebandits run FILE.toml --out DIR`` keeps a copy of the file in ``DIR/experiments/`` so that
``safebandits report DIR`` rebuilds the spec (:func:`stored_specs`).

Every mistake of a file is reported as one line of a single :class:`ConfigError`.
"""

from __future__ import annotations

import math
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

from safebandits._cost import check_input_file
from safebandits.exceptions import ConfigError, restated
from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

__all__ = [
    "INSTANCE",
    "STORED_DIR",
    "check_source",
    "file_settings",
    "is_experiment_file",
    "load_experiment_file",
    "parse_experiment",
    "problem_of_file",
    "problem_of_table",
    "save_experiment_file",
    "stored_specs",
]

#: Registered instance of every user experiment.
INSTANCE = "user/declared"

#: Folder of a results directory holding the experiment files that were run into it.
STORED_DIR = "experiments"

#: Default per-run sample budget of identification learners.
DEFAULT_BUDGET = 1_000_000

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _models(partial: bool = False) -> Any:
    """The pydantic model of an experiment file (built on first use: pydantic loads in ~0.1 s);
    ``partial``: the file as a study's source, whose ``name`` and ``[[learners]]`` may be absent."""
    from pydantic import BaseModel, ConfigDict, Field

    from safebandits._limits import MAX_BUDGET, MAX_REPLICATES, MAX_SEED

    size = Annotated[int, Field(strict=True, gt=0, le=MAX_BUDGET)]  # (the CLI's caps: before allocation)
    reps = Annotated[int, Field(strict=True, gt=0, le=MAX_REPLICATES)]

    class Learner(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: Annotated[str, Field(strict=True, min_length=1)]
        label: Annotated[str, Field(strict=True, min_length=1)] | None = None
        options: dict[str, Any] = Field(default_factory=dict)

    class Scale(BaseModel):
        model_config = ConfigDict(extra="forbid")
        horizon: size | None = None
        budget: size | None = None
        replicates: reps | None = None

    class File(BaseModel):
        model_config = ConfigDict(extra="forbid")
        name: Annotated[str, Field(strict=True, pattern=_NAME.pattern, max_length=100)]
        title: Annotated[str, Field(strict=True)] = ""
        seed: Annotated[int, Field(strict=True, ge=0, le=MAX_SEED)] = 0
        replicates: reps = 5
        horizon: size | None = None
        budget: size = DEFAULT_BUDGET
        problem: dict[str, Any]
        truth: dict[str, Any] = Field(default_factory=dict)
        learners: Annotated[list[Learner], Field(min_length=1)]
        quick: Scale | None = None
        truth_outside_bounds: Literal["refuse", "flag"] = "refuse"

    class Source(File):  # (a study's source: no name or learners needed)
        name: Annotated[str, Field(strict=True, pattern=_NAME.pattern, max_length=100)] = "study"
        learners: list[Learner] = Field(default_factory=list)

    return Source if partial else File


def check_source(raw: Any, source: str) -> dict[str, Any]:
    """Check an experiment file's tables used as a study's source (``study create --problem``, the JSON
    API's ``experiment``) with the rules of ``run`` (:func:`parse_experiment`): unknown keys, the horizon,
    budget, replicates and seed caps, the learners' tables. ``name`` and ``[[learners]]`` may be absent.
    Returns the tables as plain values; raises one :class:`ConfigError` naming every mistake."""
    from pydantic import ValidationError

    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: an experiment must be an object (a TOML file's tables).")
    raw = _plain_toml(raw)
    if not isinstance(raw.get("problem"), dict):
        raise ConfigError(f"{source}: no [problem] table.")
    try:
        _models(partial=True).model_validate(raw)
    except ValidationError as exc:
        raise _fail(source, _pydantic_lines(exc)) from None
    return raw


def _pydantic_lines(exc: Any) -> list[str]:
    lines = []
    for err in exc.errors():
        loc = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in err["loc"]).replace(".[", "[")
        msg = err["msg"]
        if err["type"] == "extra_forbidden":
            msg = "unknown key"
        got = err.get("input")
        shown = "" if err["type"] in ("missing", "extra_forbidden") else f" (got {_short(got)})"
        lines.append(f"{loc or 'file'}: {msg}{shown}")
    return lines


def _short(value: Any, n: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= n else text[: n - 3] + "..."


def _fail(source: str, lines: list[str]) -> ConfigError:
    if len(lines) == 1:
        return ConfigError(f"{source}: {lines[0]}")
    body = "\n".join(f"  - {line}" for line in lines)
    return ConfigError(f"{source}: {len(lines)} mistakes:\n{body}")


def _plain_toml(value: Any) -> Any:
    """TOML values as JSON-friendly plain values (dates become strings)."""
    if isinstance(value, dict):
        return {str(k): _plain_toml(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain_toml(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return value
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


def parse_experiment(
    text: str, *, source: str = "<experiment>", base_dir: str | os.PathLike[str] = "."
) -> ExperimentSpec:
    """Validate an experiment file's text and build its :class:`ExperimentSpec`.

    Parameters
    ----------
    text : str
        TOML text.
    source : str
        Name used in error messages (the file's path).
    base_dir : path-like
        Folder relative paths of the file (a pool's ``csv``) are resolved against.

    Raises
    ------
    ConfigError
        One line per mistake, never another exception.
    """
    return _parse(text, source, base_dir)[0]


def _parse(text: str, source: str, base_dir: str | os.PathLike[str]) -> tuple[ExperimentSpec, dict[str, Any]]:
    """:func:`parse_experiment`, and the file's tables as plain values."""
    try:
        raw = _plain_toml(tomllib.loads(text))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except Exception as exc:  # (defensive: odd input such as surrogates)
        raise ConfigError(f"{source}: cannot read the file: {type(exc).__name__}: {exc}") from None
    try:
        return _build(raw, source, Path(base_dir)), raw
    except ConfigError:
        raise
    except Exception as exc:  # every mistake is one line, never a traceback
        raise ConfigError(f"{source}: {type(exc).__name__}: {exc}") from None


def _build(raw: dict[str, Any], source: str, base_dir: Path) -> ExperimentSpec:
    from pydantic import ValidationError

    try:
        f = _models().model_validate(raw)
    except ValidationError as exc:
        raise _fail(source, _pydantic_lines(exc)) from None
    lines: list[str] = []
    problem = dict(f.problem)
    truth = dict(f.truth)
    if problem.get("setting") == "pool" and isinstance(problem.get("csv"), str):
        path = Path(problem["csv"])
        problem["csv"] = str(path if path.is_absolute() else (base_dir / path).resolve())
    sim = None
    try:
        from safebandits.problems.zoo.declared import declared

        sim = declared(
            problem=problem, truth=truth, T=f.horizon or 1000, truth_outside_bounds=f.truth_outside_bounds
        )
    except ConfigError as exc:
        lines.append(f"problem/truth: {exc}")
    from safebandits.algorithms.compatibility import compatible_learners, instance_for, kinds_of, view_for
    from safebandits.algorithms.cost import check_learner_cost
    from safebandits.algorithms.registry import list_algorithms

    entries = list_algorithms()
    fits = {c.name for c in compatible_learners(sim, check_start=False)} if sim is not None else set()
    labels: list[str] = []
    algs = []
    quick = f.quick
    for i, learner in enumerate(f.learners):
        where = f"learners[{i}] ({learner.name})"
        label = learner.label or learner.name
        if label in labels:
            lines.append(f"{where}: label {label!r} is used twice; give each learner its own label")
        labels.append(label)
        entry = entries.get(learner.name)
        if entry is None:
            lines.append(f"{where}: unknown learner; known: {', '.join(entries)}")
            continue
        if sim is not None and learner.name not in fits:
            kinds = kinds_of(entry)
            why = "; ".join(f"{k}: {sim.problem.why_not(k)}" for k in kinds) or "it declares no problem kind"
            lines.append(
                f"{where}: does not fit this problem ({why}); learners that fit: {', '.join(sorted(fits))}"
            )
        elif sim is not None:
            try:  # the truth must give this learner's kind an instance too
                instance_for(sim, learner.name)
            except ConfigError as exc:
                lines.append(f"{where}: cannot simulate its view of the problem: {exc}")
            else:
                try:  # its size, before any run builds it
                    check_learner_cost(view_for(sim, learner.name, horizon=f.horizon), learner.name)
                except ConfigError as exc:
                    lines.append(f"{where}: {exc}")
        try:
            entry.config(**learner.options)
        except (ConfigError, TypeError) as exc:
            lines.append(f"{where}: options: {exc}")
        budget = {}
        if entry.task == "regret":
            if f.horizon is None:
                lines.append(
                    f"{where}: a regret learner needs the horizon (horizon = ROUNDS at the top of the file)"
                )
                continue
            budget = {"paper": f.horizon, "quick": (quick and quick.horizon) or f.horizon}
        algs.append(
            AlgorithmSpec(label=label, name=learner.name, params=dict(learner.options), budget=budget)
        )
    if lines:
        raise _fail(source, lines)
    horizon = f.horizon or 1000
    q_h = (quick and quick.horizon) or horizon
    fixed: dict[str, Any] = {"problem": problem, "truth": truth}
    if f.truth_outside_bounds != "refuse":  # (only then: the run keys of other files are unchanged)
        fixed["truth_outside_bounds"] = f.truth_outside_bounds
    panel = PanelSpec(
        name="problem",
        instance=INSTANCE,
        fixed=fixed,
        sweep_param="T",
        values={"paper": (horizon,), "quick": (q_h,)},
        title=f.title or f.name,
        xlabel="T",
    )
    return ExperimentSpec(
        name=f.name,
        title=f.title or f.name,
        panels=(panel,),
        algorithms=tuple(algs),
        replicates={"paper": f.replicates, "quick": (quick and quick.replicates) or f.replicates},
        budget={"paper": f.budget, "quick": (quick and quick.budget) or f.budget},
        seed=f.seed,
        figure="comparison",
        curves=("regret", "violation"),
    )


def problem_of_file(path: str | os.PathLike[str]) -> Any:
    """The problem declaration of a file's ``[problem]`` table (the rest of the file is not needed)."""
    p = Path(path)
    check_input_file(p, "experiment file")
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"Cannot read the experiment file {str(p)!r}: {exc}") from None
    return problem_of_table(raw.get("problem"), str(p), base_dir=p.parent)


def problem_of_table(problem: Any, source: str, base_dir: str | os.PathLike[str] | None = None) -> Any:
    """The problem declaration of a ``[problem]`` table read from ``source``.

    A pool's ``csv`` is read relative to ``base_dir``; with ``base_dir=None`` (a table that came from no
    file, e.g. through the JSON API) no file is read and a ``csv`` is refused.
    """
    if not isinstance(problem, dict):
        raise ConfigError(f"{source}: no [problem] table.")
    problem = _plain_toml(problem)
    if problem.get("setting") == "pool" and "csv" in problem:
        if base_dir is None:
            raise ConfigError(
                f"{source}: problem: a pool given here cannot name a CSV file (no file is read); give "
                "its records as 'features'."
            )
        if isinstance(problem.get("csv"), str):
            from safebandits.problems.zoo.declared import pool_from_csv

            path_csv = Path(problem["csv"])
            problem["csv"] = str(path_csv if path_csv.is_absolute() else Path(base_dir) / path_csv)
            return pool_from_csv(problem)[0]
    from safebandits.problems.settings import problem_from_dict

    try:
        return problem_from_dict(problem)
    except ConfigError as exc:
        raise restated(exc, f"{source}: problem: {exc}") from None


def file_settings(path: str | os.PathLike[str]) -> tuple[Any, int | None, dict[str, dict[str, Any]]]:
    """``(problem, horizon, options)`` of an experiment file: its declaration, its top-level ``horizon``
    (``None`` if absent) and each listed learner's options (the first entry of a learner named twice).

    The whole file is checked first, exactly as ``run`` checks it (:func:`load_experiment_file`): one
    :class:`ConfigError` naming every mistake.
    """
    from safebandits.problems.zoo.declared import declaration

    p = Path(path)
    spec, raw = _parse(_read(p), str(p), p.parent)
    problem = declaration(spec.panels[0].fixed["problem"])  # (the table as loaded and checked)
    options: dict[str, dict[str, Any]] = {}
    for learner in raw["learners"]:
        options.setdefault(learner["name"], dict(learner.get("options") or {}))
    return problem, raw.get("horizon"), options


def _read(p: Path) -> str:
    check_input_file(p, "experiment file")  # (before it is parsed)
    try:
        return p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read the experiment file {str(p)!r}: {exc}") from None


def is_experiment_file(name: str) -> bool:
    """Whether a ``run`` argument names an experiment file (``*.toml``), not a registered experiment."""
    return name.lower().endswith(".toml")


def load_experiment_file(path: str | os.PathLike[str]) -> ExperimentSpec:
    """Read and validate an experiment file (see the module docstring)."""
    p = Path(path)
    return parse_experiment(_read(p), source=str(p), base_dir=p.parent)


def save_experiment_file(
    spec: ExperimentSpec, path: str | os.PathLike[str], results_dir: str | os.PathLike[str]
) -> Path:
    """Keep a copy of the file in ``results_dir/experiments/NAME.toml`` (for ``report`` and ``results``).

    The copy's first line records the folder of the original (relative paths in the file, such as a
    pool's ``csv``, are resolved against it).
    """
    src = Path(path).read_text(encoding="utf-8")
    folder = Path(results_dir) / STORED_DIR
    folder.mkdir(parents=True, exist_ok=True)
    dest = folder / f"{spec.name}.toml"
    base = str(Path(path).resolve().parent)
    dest.write_text(f"{_BASE_PREFIX}{base}\n{src}", encoding="utf-8")
    return dest


_BASE_PREFIX = "# safebandits: base_dir="


def stored_specs(results_dir: str | os.PathLike[str]) -> dict[str, ExperimentSpec]:
    """Specs of the experiment files kept in ``results_dir/experiments/`` (unreadable ones skipped)."""
    folder = Path(results_dir) / STORED_DIR
    out: dict[str, ExperimentSpec] = {}
    for path in sorted(folder.glob("*.toml")) if folder.is_dir() else []:
        try:
            text = path.read_text(encoding="utf-8")
            first = text.split("\n", 1)[0]
            base = first[len(_BASE_PREFIX) :] if first.startswith(_BASE_PREFIX) else str(folder)
            spec = parse_experiment(text, source=str(path), base_dir=base)
        except (ConfigError, OSError, UnicodeDecodeError):
            continue
        out[spec.name] = spec
    return out
