"""``safebandits list | run | learners | bounds``: the registered experiments, learners and instances,
and running experiments into a results store (see :mod:`safebandits.cli`)."""

from __future__ import annotations

import json
import math
from typing import Any

import click

from safebandits._limits import MAX_BUDGET, MAX_REPLICATES, MAX_SEED, MAX_WORKERS
from safebandits.cli.group import cli
from safebandits.exceptions import ConfigError

__all__ = ["bounds", "learners", "list_cmd", "run"]


# -- list ------------------------------------------------------------------------------------------


@cli.command("list")
@click.argument("what", type=click.Choice(["all", "experiments", "algorithms", "instances"]), default="all")
@click.option("--verbose", "-v", is_flag=True, help="Also show each algorithm's options and their defaults.")
def list_cmd(what: str, verbose: bool) -> None:
    """List registered experiments, algorithms and instances."""
    from safebandits.algorithms.registry import list_algorithms
    from safebandits.experiments.spec import list_experiments
    from safebandits.problems.registry import list_instances

    if what in ("all", "experiments"):
        click.echo("Experiments:")
        for name, spec in list_experiments().items():
            click.echo(f"  {name}: {spec.title}")
            for scale in spec.scales:
                n_points = sum(len(p.values[scale]) for p in spec.panels)
                n_runs = spec.replicates[scale] * sum(
                    a.runs_at(scale, p.name, v)
                    for p in spec.panels
                    for v in p.values[scale]
                    for a in spec.algorithms
                )
                own = sorted({a.budget[scale] for a in spec.algorithms if scale in a.budget})
                restricted = any(a.points.get(scale) for a in spec.algorithms)
                fewer = " (some methods at fewer points)" if restricted else ""
                extra = f" (some methods: {', '.join(f'{b:,}' for b in own)})" if own else ""
                some = " (some methods on some panels only)" if any(a.panels for a in spec.algorithms) else ""
                click.echo(
                    f"    {scale}: {n_points} points x {len(spec.algorithms)} methods x "
                    f"{spec.replicates[scale]} replicates = {n_runs} runs"
                    f"{fewer}{some}, "
                    f"budget {spec.budget[scale]:,}{extra}"
                )
            click.echo(f"    panels: {', '.join(spec.panel_names)}")
            click.echo(f"    methods: {', '.join(spec.labels)}")
    if what in ("all", "algorithms"):
        click.echo("Algorithms:")
        entries = list_algorithms()
        if not entries:
            click.echo("  (none registered)")
        for name, entry in entries.items():
            flag = " [privileged]" if entry.privileged else ""
            click.echo(f"  {name} ({entry.task}){flag}: {entry.description}")
            if verbose:
                _echo_options(entry)
    if what in ("all", "instances"):
        click.echo("Instances:")
        for name, entry in list_instances().items():
            params = ", ".join(f"{k}={v!r}" for k, v in entry.parameters.items())
            click.echo(f"  {name}{' [random]' if entry.random else ''}: {entry.description}")
            click.echo(f"    parameters: {params}")


def _echo_options(entry: Any) -> None:
    from safebandits.algorithms.options import config_options

    click.echo(f"    options ({entry.cls.config_cls.__name__}; --set algorithm.NAME=VALUE):")
    for opt in config_options(entry):
        preset = " (preset by this variant)" if opt.preset else ""
        click.echo(f"      {opt.name} = {opt.default!r}{preset}  [{opt.type}]")
        if opt.doc:
            click.echo(f"          {opt.doc}")


# -- run -------------------------------------------------------------------------------------------


#: Largest value of each count option (absurd sizes are refused before anything is allocated).
_OPTION_LIMITS = {"replicates": MAX_REPLICATES, "workers": MAX_WORKERS, "budget": MAX_BUDGET}


def _positive(ctx: click.Context, param: click.Parameter, value: int | None) -> int | None:
    if value is not None and value < 1:
        raise click.BadParameter(f"must be a positive integer, got {value}.")
    limit = _OPTION_LIMITS.get(param.name or "")
    if value is not None and limit is not None and value > limit:
        raise click.BadParameter(f"must be at most {limit:,}, got {value}.")
    return value


@cli.command()
@click.argument("name")
@click.option(
    "--scale",
    type=click.Choice(["quick", "paper"]),
    help="Scale of the run [default: quick; an experiment file: paper, the file as written].",
)
@click.option(
    "--replicates", type=int, callback=_positive, help="Replicates per point (overrides the scale)."
)
@click.option(
    "--seed", type=click.IntRange(min=0, max=MAX_SEED), help="Experiment seed (overrides the spec's)."
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="results",
    show_default=True,
    help="Results directory; one store per directory holds every experiment.",
)
@click.option(
    "--workers",
    type=int,
    callback=_positive,
    help="Worker processes of the local pool or of the Dask LocalCluster [default: CPU count].",
)
@click.option(
    "--executor",
    type=click.Choice(["local", "dask"]),
    default="local",
    show_default=True,
    help="local: a process pool on this machine; dask: dask.distributed (extra 'safebandits[distributed]').",
)
@click.option(
    "--scheduler",
    metavar="ADDRESS",
    help="Dask scheduler to run on (tcp://HOST:PORT or a scheduler file); without it, --executor dask "
    "starts a LocalCluster of --workers processes.",
)
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Override a parameter. Repeatable.")
@click.option(
    "--algorithm", "algorithms", multiple=True, metavar="LABEL", help="Only this method. Repeatable."
)
@click.option("--panel", "panels", multiple=True, metavar="NAME", help="Only this panel. Repeatable.")
@click.option("--budget", type=int, callback=_positive, help="Per-run sample budget (overrides the scale).")
@click.option("--retry-failed", is_flag=True, help="Re-run runs stored as failed.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def run(
    name: str,
    scale: str | None,
    replicates: int | None,
    seed: int | None,
    out: str,
    workers: int | None,
    executor: str,
    scheduler: str | None,
    sets: tuple[str, ...],
    algorithms: tuple[str, ...],
    panels: tuple[str, ...],
    budget: int | None,
    retry_failed: bool,
    quiet: bool,
) -> None:
    """Run experiment NAME (or "all", or an experiment file FILE.toml) and store every run in --out;
    re-running resumes.

    An experiment file declares a problem of one's own, its simulation truth and the learners to
    compare (see examples/*.toml and safebandits.experiments.user).

    --set KEY=VALUE: KEY is "instance.X", "algorithm.X", or a bare X looked up among the instance
    parameters first, then the algorithm configs. VALUE is parsed as JSON when possible (1e6, true,
    "x"), else taken as a string. --algorithm matches a method label (as `safebandits list
    experiments` prints them) or an algorithm name (every method that runs it).

    --executor dask runs every run as a task on dask.distributed (a LocalCluster, or the cluster of
    --scheduler); this process alone writes the store. Results are the same for every executor and
    number of workers. See docs/cluster.md.
    """
    from safebandits.experiments.runner import run_tasks
    from safebandits.experiments.spec import get_experiment, list_experiments
    from safebandits.experiments.store import ResultsStore
    from safebandits.experiments.user import is_experiment_file, load_experiment_file, save_experiment_file

    _check_executor(executor, scheduler, workers)
    user_file = is_experiment_file(name)
    scale = scale or ("paper" if user_file else "quick")
    if user_file:
        specs = [load_experiment_file(name)]
    else:
        specs = list(list_experiments().values()) if name == "all" else [get_experiment(name)]
    tasks, plan = _plan(name, specs, scale, sets, algorithms, panels, replicates, seed, budget)
    if user_file and tasks:
        _check_user_learners(name, specs[0], scale)
    with ResultsStore(out, mode="w") as store:
        if user_file:
            save_experiment_file(specs[0], name, out)
        click.echo(f"{'; '.join(plan)} -> {out}")
        summary = run_tasks(
            tasks,
            store,
            workers=workers,
            retry_failed=retry_failed,
            quiet=quiet,
            executor=executor,
            scheduler=scheduler,
        )
    click.echo(summary.line())
    for err in summary.errors:
        click.echo(f"  failed: {err}", err=True)
    if summary.n_failed:
        click.echo(
            f"{summary.n_failed} runs failed (recorded with their errors); see `safebandits results {out}`.",
            err=True,
        )
        click.get_current_context().exit(1)


def _check_executor(executor: str, scheduler: str | None, workers: int | None) -> None:
    """Refuse --scheduler without --executor dask, and --workers with a --scheduler (whose cluster's own
    workers run the sweep); --executor dask needs dask.distributed installed."""
    if scheduler is not None and executor != "dask":
        raise ConfigError("--scheduler needs --executor dask.")
    if executor == "dask":
        from safebandits.experiments.dask_executor import require_distributed

        require_distributed()
        if scheduler is not None and workers is not None:
            raise ConfigError(
                "--workers sizes the LocalCluster that --executor dask starts; with --scheduler the "
                "cluster's own workers run the sweep. Drop --workers."
            )


def _plan(
    name: str,
    specs: list[Any],
    scale: str,
    sets: tuple[str, ...],
    algorithms: tuple[str, ...],
    panels: tuple[str, ...],
    replicates: int | None,
    seed: int | None,
    budget: int | None,
) -> tuple[list[Any], list[str]]:
    """The runs of ``specs`` at ``scale`` that ``run`` selects (--algorithm, --panel) and overrides
    (--set), every config built and checked, with one plan line per experiment. A selector or a --set key
    that matches nothing is refused; an experiment whose data is missing is refused (skipped, with a
    line, when running "all")."""
    from safebandits.experiments.spec import apply_overrides, expand, missing_data, parse_assignments, select
    from safebandits.experiments.validate import check_tasks

    overrides = parse_assignments(sets)
    tasks, plan, unmatched = [], [], set(overrides)
    matched_algs, matched_panels = set(), set()
    for spec in specs:
        sub = select(spec, algorithms=algorithms, panels=panels)
        if sub is None:
            continue
        matched_algs |= {
            s for s in algorithms for a in sub.algorithms if s.lower() in (a.label.lower(), a.name)
        }
        matched_panels |= {p for p in panels if p in sub.panel_names}
        sub, missed = apply_overrides(sub, overrides)
        unmatched &= missed
        problem = missing_data(sub, scale)
        if problem is not None:
            if name != "all":
                raise ConfigError(f"Experiment {spec.name!r} cannot run: {problem}.")
            click.echo(f"skipping {spec.name}: {problem}.", err=True)
            continue
        spec_tasks = expand(sub, scale, replicates=replicates, seed=seed, budget=budget)
        tasks.extend(spec_tasks)
        plan.append(f"{spec.name} ({scale}): {len(spec_tasks)} runs")
    for kind, wanted, found in (
        ("--algorithm", algorithms, matched_algs),
        ("--panel", panels, matched_panels),
    ):
        missing = [w for w in wanted if w not in found]
        if missing:
            raise ConfigError(f"{kind} {', '.join(map(repr, missing))} matches nothing in {name!r}.")
    if unmatched:
        raise ConfigError(
            f"--set key(s) {sorted(unmatched)} match no instance parameter or algorithm config field of "
            f"the selected experiments; see `safebandits list`."
        )
    check_tasks(tasks)  # (every config built and checked before anything is written)
    return tasks, plan


def _check_user_learners(path: str, spec: Any, scale: str) -> None:
    """Before the first run of an experiment file: every learner's start-up check on the declared problem
    (one refusal naming each learner that cannot start), then each learner's guarantee in the problem's
    terms, every tolerance that relaxes one and each learner that could not leave the known safe action
    within the horizon (issue 40), printed."""
    from safebandits.algorithms.compatibility import (
        assumption_statement,
        guarantee_statement,
        start_check,
        tolerance_lines,
    )
    from safebandits.problems.zoo.declared import declaration

    problem = declaration(spec.panels[0].fixed["problem"])  # (the file as loaded and checked)
    failed = []
    for alg in spec.algorithms:
        horizon = alg.budget.get(scale) if alg.budget else None
        check = start_check(problem, alg.name, alg.params, horizon=horizon)
        if not check.ok:
            failed.append(f"  - {alg.label} ({alg.name}): {check.message}")
    if failed:
        raise ConfigError(
            f"{path}: {len(failed)} learner(s) cannot start on this problem (nothing was run):\n"
            + "\n".join(failed)
        )
    fixed = spec.panels[0].fixed
    if fixed.get("truth_outside_bounds") == "flag":  # (a misspecified problem run on purpose)
        from safebandits.problems.zoo.declared import declared

        for line in declared(**fixed).flags:
            click.echo(f"warning: assumption contradicted (truth_outside_bounds = 'flag'): {line}")
    for line in tolerance_lines(problem, [alg.name for alg in spec.algorithms]):
        click.echo(f"note: {line}")
    from safebandits.algorithms.learning import leave_estimate

    for alg in spec.algorithms:
        click.echo(f"guarantee of {alg.label}: {guarantee_statement(problem, alg.name, alg.params)}")
        rests = assumption_statement(problem, alg.name, alg.params)
        if rests:
            click.echo(f"  it rests on: {rests}.")
        horizon = alg.budget.get(scale) if alg.budget else None
        leave = leave_estimate(problem, alg.name, alg.params, horizon=horizon)
        if leave is not None and not leave.can_learn:
            click.echo(
                f"note: {alg.label} can start but cannot learn within the horizon, it would play the safe "
                f"action in every round: {leave.describe()}"
            )


# -- learners --------------------------------------------------------------------------------------


@cli.command()
@click.option(
    "--for",
    "target",
    required=True,
    metavar="FILE.toml|INSTANCE",
    help="An experiment file (its [problem] table) or a registered instance name.",
)
@click.option(
    "--task", type=click.Choice(["pure_exploration", "regret", "classification"]), help="Only this task."
)
def learners(target: str, task: str | None) -> None:
    """List the learners that fit a problem and can start on it, with the kind they read and their
    guarantee; then the learners that fit its kind but cannot start (why, and what to change), and the
    families it does not fit (why).

    Each candidate is checked as a run would build it (its start-up check), with the options and the
    horizon an experiment file gives it.
    """
    from safebandits.algorithms.compatibility import learner_fit
    from safebandits.experiments.user import file_settings, is_experiment_file

    options: dict[str, dict[str, Any]] = {}
    horizon = None
    if is_experiment_file(target):
        problem, horizon, options = file_settings(target)
    else:
        from safebandits.problems.declare import SimulatedProblem
        from safebandits.problems.registry import list_instances, make_instance

        entry = list_instances().get(target)
        if entry is None:
            raise ConfigError(
                f"--for {target!r} is neither an experiment file (*.toml) nor a registered instance; "
                "see `safebandits list instances`."
            )
        import numpy as np

        inst = make_instance(target, np.random.default_rng(0) if entry.random else None)
        problem = inst if isinstance(inst, SimulatedProblem) else inst.public_info()
    fit = learner_fit(problem, task=task, options=options, horizon=horizon)
    _echo_fit(fit, problem, horizon, options)


def _is_dose_problem(problem: Any) -> bool:
    """A problem that offers the ``"dose"`` view (a declaration with the dose structure)."""
    return "dose" in getattr(problem, "kinds", ())


def _patients(est: Any) -> str:
    """A learner's patients before its first escalation (issue 45, item 5), from its leave estimate."""
    if math.isinf(est.rounds):
        return f"never within any horizon (horizon {est.horizon:,}): {est.reason}"
    return f"after >= {int(est.rounds):,} patients on the safe dose (horizon {est.horizon:,}): {est.reason}"


def _echo_fitting(fit: Any, problem: Any, horizon: int | None, options: Any) -> None:
    """The learners that fit and can start, each with its guarantee (in the user's numbers where the
    problem gives them), what it rests on, its bound and (dose problems) its first escalation."""
    from safebandits.algorithms._conservative_words import offers_conservative_view
    from safebandits.algorithms.compatibility import (
        GUARANTEES,
        assumption_statement,
        bound_statement,
        guarantee_statement,
        tolerance_lines,
    )

    decl = getattr(problem, "problem", problem)
    baseline_arm = offers_conservative_view(decl)  # (every regret learner's promise in those numbers)
    conservative = (
        GUARANTEES["conservative"],
        GUARANTEES["conservative-policy"],
        GUARANTEES["conservative-checkpoint"],
    )
    found = fit.fitting
    width = max(len(c.name) for c in found)
    kinds = sorted({c.kind for c in found})
    click.echo(f"{len(found)} learners fit and can start ({', '.join(kinds)}):")
    for c in found:
        click.echo(f"  {c.name:<{width}}  {c.task:<16}  {c.kind:<16}  {c.guarantee}")
        if c.guarantee in conservative or (baseline_arm and c.task == "regret"):
            # (alpha, the default arm, the baseline policy or arm, the horizon's delta: the user's)
            own = (options or {}).get(c.name) if isinstance(options, dict) else None
            said = guarantee_statement(problem, c.name, own, horizon=horizon)
            click.echo(f"  {'':<{width}}  in your numbers: {said}")
        rests = assumption_statement(problem, c.name)
        if rests:
            click.echo(f"  {'':<{width}}  rests on: {rests}")
        bound = bound_statement(problem, c.name)
        if bound:
            click.echo(f"  {'':<{width}}  runs with: {bound}")
        est = fit.leave_estimates.get(c.name)
        if est is not None and _is_dose_problem(problem):
            click.echo(f"  {'':<{width}}  first escalation: {_patients(est)}")
    for line in tolerance_lines(problem, [c.name for c in found]):
        click.echo(f"  note: {line}")


def _echo_fit(fit: Any, problem: Any, horizon: int | None = None, options: Any = None) -> None:
    """Print a :class:`~safebandits.algorithms.compatibility.LearnerFit` (``learners --for``)."""
    from safebandits.algorithms.compatibility import per_round_safety_note

    decl = getattr(problem, "problem", problem)
    if horizon is None and hasattr(decl, "_horizon"):
        horizon = decl._horizon(None)
    if not fit.fitting:
        click.echo("No registered learner fits this problem and can start on it.")
    else:
        _echo_fitting(fit, problem, horizon, options)
    note = per_round_safety_note(problem)
    if note:
        click.echo(f"  note: {note}")
    if fit.cannot_learn:
        click.echo("")
        n = len(fit.cannot_learn)
        click.echo(
            f"{n} learner{'s' if n != 1 else ''} can start but cannot learn within the horizon (they would "
            "play the safe action in every round):"
        )
        unit = "patients" if _is_dose_problem(problem) else "rounds"
        for c, est in fit.cannot_learn:
            need = (
                "never leaves the safe action"
                if math.isinf(est.rounds)
                else f"needs >= {int(est.rounds):,} {unit}"
            )
            click.echo(f"  {c.name}: {need} (horizon {est.horizon:,}); {est.reason}.")
            if est.fixes:
                click.echo("    would learn with one of:")
                for text in est.fixes:
                    click.echo(f"      - {text}")
    if fit.cannot_start:
        click.echo("")
        n = len(fit.cannot_start)
        click.echo(f"{n} learner{'s' if n != 1 else ''} fit its kind but cannot start on it:")
        for c, check in fit.cannot_start:
            click.echo(f"  {c.name}: {check.reason}.")
            if check.fixes:
                click.echo("    change one of:")
                for text in check.fixes:
                    click.echo(f"      - {text}")
    if fit.families:
        click.echo("")
        click.echo("Families it does not fit:")
        for fam in fit.families:
            click.echo(f"  {fam.kind} ({', '.join(fam.learners)}): {fam.reason}.")


# -- bounds ----------------------------------------------------------------------------------------

_BOUND_KEYS = ("delta", "epsilon", "phase_base", "noise_variance", "tol")


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    return value


@cli.command()
@click.argument("instance")
@click.option("--set", "sets", multiple=True, metavar="KEY=VALUE", help="Instance parameter or bound option.")
@click.option("--delta", type=float, default=None, help="Confidence delta [default: 0.05].")
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed (random instances)."
)
def bounds(instance: str, sets: tuple[str, ...], delta: float | None, seed: int) -> None:
    """Print the bounds of INSTANCE as JSON (sample complexity, or the regret papers' quantities).

    Every instance kind with bounds in its paper has them; the others get one line saying which kinds
    have bounds.

    --set keys are instance parameters ("instance.d=20" or "d=20") or options of the bound
    computation ("bounds.epsilon=0.01" or "epsilon"; instance parameters win for bare keys).
    """
    import numpy as np

    from safebandits.experiments.spec import parse_assignments
    from safebandits.problems.registry import list_instances, make_instance

    entries = list_instances()
    if instance not in entries:
        raise ConfigError(f"Unknown instance {instance!r}. Known instances: {', '.join(entries)}.")
    params, options = {}, {}
    for key, value in parse_assignments(sets).items():
        scope, _, bare = key.rpartition(".")
        if scope in ("", "instance") and bare in entries[instance].parameters:
            params[bare] = value
        elif scope in ("", "bounds") and bare in _BOUND_KEYS:
            options[bare] = value
        else:
            raise ConfigError(
                f"--set key {key!r} is neither a parameter of {instance!r} "
                f"({', '.join(entries[instance].parameters)}) nor a bound option ({', '.join(_BOUND_KEYS)})."
            )
    if delta is not None:
        options["delta"] = delta
    rng = np.random.default_rng(seed) if entries[instance].random else None
    inst = make_instance(instance, rng, **params)
    from safebandits._cost import check_cost
    from safebandits.algorithms.cost import bounds_cost, view_size
    from safebandits.experiments.bounds import bound_kinds, bounds_entry

    check_cost(bounds_cost(inst), f"Computing the bounds of {instance!r} on {view_size(inst)[0]:,} arms")

    entry = bounds_entry(inst)
    if entry is None:
        raise ConfigError(f"Instance {instance!r} ({type(inst).__name__}) has no bounds; {bound_kinds()}.")
    unused = set(options) - set(entry.options)
    if unused:
        raise ConfigError(
            f"Bound option(s) {sorted(unused)} do not apply to {instance!r} (it takes "
            f"{', '.join(entry.options)})."
        )
    computed = entry.compute(instance, inst, **options)
    result = {"instance_params": params, "seed": seed if rng is not None else None, **computed}
    click.echo(json.dumps(_finite(result), indent=2, default=str))
