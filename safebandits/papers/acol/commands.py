"""``safebandits driving``: the commands of ACOL's driving simulator (Lindner et al. 2022, Sec. 4.3).

Added to the command line through the entry-point group ``safebandits.commands`` (pyproject.toml); the
command line imports this module only when the command is used. Example::

    safebandits driving render --scenario base --policy constrained --policy penalised:1 --out cars.png
"""

from __future__ import annotations

from pathlib import Path

import click

from safebandits.exceptions import ConfigError

__all__ = ["driving"]


@click.group()
def driving() -> None:
    """Driving simulator of Lindner et al. (2022), Sec. 4.3: pictures of policies."""


@driving.command("render")
@click.option(
    "--scenario",
    type=click.Choice(["base", "different-reward", "different-environment"]),
    default="base",
    show_default=True,
)
@click.option(
    "--policy",
    "policies",
    multiple=True,
    required=True,
    metavar="SPEC",
    help="FILE.npy (a (20, 2) policy or an (n, 20, 2) set, with --index), 'constrained' (the warm-polish "
    "reference solver; 'constrained:wen-topcu' for the authors' constrained CEM), 'unconstrained' or "
    "'penalised:LAMBDA' (solved with CEM). Repeatable: side by side.",
)
@click.option(
    "--index", type=click.IntRange(min=0), default=0, show_default=True, help="Policy of a set file."
)
@click.option("--features", type=click.Choice(["paper", "code"]), default="paper", show_default=True)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="CEM seed.")
@click.option("--restarts", type=click.IntRange(min=1), default=10, show_default=True, help="CEM restarts.")
@click.option("--out", type=click.Path(dir_okay=False), required=True, help="Output PNG.")
@click.option("--force", is_flag=True, help="Replace an existing --out file (never a database).")
def driving_render(
    scenario: str,
    policies: tuple[str, ...],
    index: int,
    features: str,
    seed: int,
    restarts: int,
    out: str,
    force: bool,
) -> None:
    """Draw the trajectories of policies in SCENARIO, top-down (Figure 1 layout), to --out.

    --out never replaces an existing file unless --force (a database never); written whole and renamed.
    """
    import numpy as np

    from safebandits._output import check_output_file, write_output

    out_path = check_output_file(out, "--out", force=force)

    from safebandits.papers.acol.simulator.cem import CEMConfig, cem
    from safebandits.papers.acol.simulator.constrained import CONSTRAINED_SOLVERS, constrained_optimum
    from safebandits.papers.acol.simulator.dynamics import DrivingConfig, get_scenario
    from safebandits.papers.acol.simulator.render import policies_figure

    sc, env = get_scenario(scenario), DrivingConfig.preset(features)
    items = []
    for k, spec in enumerate(policies):
        mode, _, value = spec.partition(":")
        if mode in ("constrained", "unconstrained", "penalised"):
            if mode == "constrained" and value not in ("", *CONSTRAINED_SOLVERS):
                raise ConfigError(f"--policy {spec!r}: the solver must be one of {CONSTRAINED_SOLVERS}.")
            try:
                penalty = float(value) if mode == "penalised" else 0.0
            except ValueError:
                raise ConfigError(f"--policy {spec!r}: expected penalised:LAMBDA with a number.") from None
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(k,)))
            if mode == "constrained":
                solver = value or "warm-polish"
                res, _ = constrained_optimum(sc, rng, solver=solver, env=env, n_restarts=restarts)
            else:
                res = cem(sc, rng, config=CEMConfig(mode=mode, penalty=penalty), env=env, n_restarts=restarts)
            items.append((spec, res.policies[0], sc))
            continue
        path = Path(spec)
        if not path.is_file():
            raise ConfigError(
                f"--policy {spec!r} is neither a file nor 'constrained[:SOLVER]', 'unconstrained', "
                "'penalised:LAMBDA'."
            )
        arr = np.load(path, allow_pickle=False)
        label = path.name
        if arr.ndim == 3:
            if index >= arr.shape[0]:
                raise ConfigError(f"--index {index} is out of range for {spec!r} ({arr.shape[0]} policies).")
            arr, label = arr[index], f"{path.name}[{index}]"
        items.append((label, arr, sc))
    fig = policies_figure(items, env, title=f"{sc.title} scenario ({features} features)")
    fmt = out_path.suffix.lstrip(".").lower() or "png"
    write_output(out_path, lambda tmp: fig.savefig(tmp, dpi=110, format=fmt), force=force)
    click.echo(f"{out}: {len(items)} polic{'y' if len(items) == 1 else 'ies'} in {scenario}")
