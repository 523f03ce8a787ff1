"""The scoreboard's scoring of stored runs (issue 42): every claim's verdict on the runs of its experiment's
seed with today's defaults, whether its reading predates that data
(:mod:`~safebandits.experiments.readings`), and its robustness marker across seed sets and the declared
ranges of unstated settings (:mod:`~safebandits.experiments.robustness`).

Sources are read in order: a run (by store key, which includes its configuration hash) stored in several
sources is read from the first, and the verdict of an (experiment, scale) reads the runs of the first
source that holds runs of its seed with today's defaults. Runs of other seeds and runs with a declared
setting at another value, from any source, score the claim again for the marker; they never change the
verdict.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

__all__ = ["Scored", "score_sources", "skipped_experiments"]


@dataclass
class Scored:
    """What :func:`score_sources` returns: claim records (with ``experiment``, ``scale``,
    ``reading_status``, ``robustness``), the runs the verdicts read, and completeness by (experiment,
    scale)."""

    claims: list[dict[str, Any]] = field(default_factory=list)
    runs: pd.DataFrame = field(default_factory=pd.DataFrame)
    expected: dict[tuple[str, str], Any] = field(default_factory=dict)


def _read(sources: Iterable[str | os.PathLike[str]]) -> tuple[pd.DataFrame, dict[tuple[str, str, int], Any]]:
    from safebandits.experiments.claims_sources import _opened
    from safebandits.experiments.readings import stored_readings
    from safebandits.experiments.store import ResultsStore

    frames, stored = [], {}
    for i, d in enumerate(sources):
        with _opened(d) as where, ResultsStore(where, mode="r") as store:
            part = store.to_frame()
            if not part.empty and "seed" in part:
                triples = part[["experiment", "scale", "seed"]].dropna().drop_duplicates()
                for e, s, seed in triples.itertuples(index=False, name=None):
                    stored.setdefault((str(e), str(s), int(seed)), stored_readings(store, e, s, int(seed)))
        frames.append(part.assign(_source=i))
    df = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    if not df.empty:
        df = df.drop_duplicates(["pk", "scale"] if "scale" in df else "pk", keep="first")
    return df, stored


def _verdicts(group: pd.DataFrame, key: str, keys: set[str] | None = None, scale: str = "") -> dict[str, str]:
    """Verdict by claim id on ``group`` (``keys``: the runs a complete seed set has; fewer make a pass or
    fail inconclusive, as for the verdict itself)."""
    from safebandits.experiments.claims import check_claims
    from safebandits.experiments.claims_sources import mark_incomplete
    from safebandits.experiments.store import latest_runs

    if group.empty:
        return {}
    runs = latest_runs(group.drop(columns="_source"))
    records = check_claims(runs, key)
    if keys is not None:
        n = int(runs["pk"].isin(keys).sum())
        if n < len(keys):
            records = [mark_incomplete(c, n, len(keys), scale) for c in records]
    return {c["id"]: c["verdict"] for c in records}


def _seed_keys(spec: Any, scale: str, seed: int) -> set[str] | None:
    """The store keys of a complete seed set ``seed`` with today's defaults (``None``: cannot expand)."""
    from safebandits.exceptions import SafeBanditsError
    from safebandits.experiments.spec import expand

    try:
        return {task.pk for task in expand(spec, scale, seed=seed)}
    except SafeBanditsError:
        return None


def _defaults(spec: Any, scale: str, settings: list[Any]) -> dict[str, str]:
    """Today's value of each declared setting (from the experiment's expanded runs); a setting with several
    values among them (the experiment sweeps it) is left out: it is not an unstated default."""
    from safebandits.exceptions import SafeBanditsError
    from safebandits.experiments.robustness import setting_value
    from safebandits.experiments.spec import expand

    if not settings:
        return {}
    try:
        tasks = expand(spec, scale)
    except SafeBanditsError:
        return {}
    seen: dict[str, set[str]] = {}
    for task in tasks:
        cfg = task.config()
        for s in settings:
            if s.setting in cfg:
                seen.setdefault(s.setting, set()).add(setting_value(cfg[s.setting]))
    return {name: next(iter(values)) for name, values in seen.items() if len(values) == 1}


def _confirmations(
    spec: Any,
    cid: str,
    scale: str,
    seed_sets: dict[int, pd.DataFrame],
    by_seed: dict[int, dict[str, str]],
    stored: dict[tuple[str, str, int], Any],
    book: Any,
    today: str,
) -> str:
    """The verdicts of a post-hoc reading on the seed sets that confirm it (fresh data with a new seed,
    made after the reading was fixed), as text to append to its reading cell ("" when none does)."""
    from safebandits.experiments.readings import reading_status

    found = []
    for seed, part in sorted(seed_sets.items()):
        first = str(pd.to_datetime(part["timestamp"], utc=True, errors="coerce").min())
        status = reading_status(
            spec.claims, cid, scale=scale, seed=seed, first_run=first,
            stored=stored.get((spec.name, scale, seed), {}).get(cid), book=book, today=today,
        )  # fmt: skip
        if status.status in ("confirmatory", "before"):  # (fresh data, made after the reading was fixed)
            found.append(f"seed {seed}: {str(by_seed.get(seed, {}).get(cid, 'not run')).upper()}")
    return f"; confirmatory run(s): {', '.join(found)}" if found else "; no confirmatory run yet"


def score_sources(sources: Iterable[str | os.PathLike[str]]) -> Scored:
    """Score every experiment with claims stored in ``sources`` (module docstring)."""
    from safebandits.experiments.readings import ledger
    from safebandits.experiments.spec import list_experiments
    from safebandits.experiments.store import latest_runs

    df, stored = _read(sources)
    out = Scored()
    if df.empty:
        return out
    specs = list_experiments()
    book = ledger()
    primaries = []
    for (experiment, scale), group in df.groupby(["experiment", "scale"], sort=True):
        spec = specs.get(experiment)
        if spec is None or not spec.claims:
            primaries.append(latest_runs(group.drop(columns="_source")))
            continue
        primaries.append(_score_experiment(spec, str(scale), group, stored, book, out))
    out.runs = pd.concat(primaries, ignore_index=True) if primaries else pd.DataFrame()
    return out


def _score_experiment(
    spec: Any,
    scale: str,
    group: pd.DataFrame,
    stored: dict[tuple[str, str, int], Any],
    book: Any,
    out: Scored,
) -> pd.DataFrame:
    """Score one (experiment, scale) into ``out``; return the runs its verdicts read."""
    from safebandits.experiments import claims_sources
    from safebandits.experiments.claims import check_claims
    from safebandits.experiments.claims_sources import mark_incomplete
    from safebandits.experiments.readings import fingerprints, reading_status
    from safebandits.experiments.robustness import split_variants, unstated_for
    from safebandits.experiments.store import latest_runs

    settings = unstated_for(spec.name)
    defaults = _defaults(spec, scale, settings)
    primary, seed_sets, variants = split_variants(group, spec.seed, settings, defaults)
    if not primary.empty:
        primary = primary[primary["_source"] == primary["_source"].min()]
    primary = latest_runs(primary.drop(columns="_source"))
    if primary.empty:
        return primary
    records = check_claims(primary, spec.claims)
    keys = claims_sources.expected_runs(spec, scale)
    if keys is not None:
        n_stored = int(primary["pk"].isin(keys).sum())
        out.expected[(spec.name, scale)] = (n_stored, len(keys))
        if n_stored < len(keys):
            records = [mark_incomplete(c, n_stored, len(keys), scale) for c in records]
    by_seed = {
        seed: _verdicts(part, spec.claims, _seed_keys(spec, scale, seed), scale)
        for seed, part in seed_sets.items()
    }
    by_value = {
        name: {value: _verdicts(part, spec.claims) for value, part in values.items()}
        for name, values in variants.items()
    }
    first_run = str(pd.to_datetime(primary["timestamp"], utc=True, errors="coerce").min())
    fps = fingerprints(spec.claims)
    mine = stored.get((spec.name, scale, int(spec.seed)), {})
    for rec in records:
        cid = rec.get("id", "")
        status = reading_status(
            spec.claims, cid, scale=scale, seed=int(spec.seed), first_run=first_run,
            stored=mine.get(cid), book=book, today=fps.get(cid, ""),
        )  # fmt: skip
        cell = status.cell()
        if status.status == "post-hoc":
            cell += _confirmations(spec, cid, scale, seed_sets, by_seed, stored, book, fps.get(cid, ""))
        rec = {"experiment": spec.name, "scale": scale, **rec, "reading_status": cell}
        if scale == "paper":
            rec["robustness"] = _marker(
                rec, spec, [s for s in settings if s.covers(cid)], by_seed, by_value, defaults
            )
        out.claims.append(rec)
    return primary


def _marker(
    rec: dict[str, Any],
    spec: Any,
    settings: list[Any],
    by_seed: dict[int, dict[str, str]],
    by_value: dict[str, dict[str, dict[str, str]]],
    defaults: dict[str, str],
) -> str:
    """The robustness cell of one paper-scale record."""
    from safebandits.experiments.robustness import robustness_marker

    cid = rec.get("id", "")
    marker, detail = robustness_marker(
        rec["verdict"],
        rec.get("margin_se"),
        seed_verdicts={int(spec.seed): rec["verdict"], **{s: v.get(cid, "") for s, v in by_seed.items()}},
        settings=settings,
        setting_verdicts={
            name: {val: v.get(cid, "") for val, v in vals.items()} for name, vals in by_value.items()
        },
        default_values=defaults,
    )
    return f"{marker}: {detail}" if marker else ""


def skipped_experiments(df: pd.DataFrame) -> list[dict[str, str]]:
    """The registered experiments with claims that have no run in ``df`` at a scale it holds, and why
    (the data they read is missing here, or they were not run into this store): ``experiment``,
    ``scale``, ``why``. ``safebandits run all`` skips an experiment whose data is missing; the report
    lists it instead of leaving it out silently (issue 42)."""
    from safebandits.experiments.spec import list_experiments, missing_data

    if df.empty or "scale" not in df:
        return []
    scales = sorted({str(s) for s in df["scale"].dropna()})
    present = set(zip(df["experiment"].astype(str), df["scale"].astype(str)))
    out = []
    for name, spec in sorted(list_experiments().items()):
        if not spec.claims:
            continue
        for scale in scales:
            if (name, scale) in present:
                continue
            try:
                problem = missing_data(spec, scale)
            except Exception as exc:
                problem = str(exc)
            why = f"data missing: {problem}" if problem else "not run into this store"
            out.append({"experiment": name, "scale": scale, "why": why})
    return out
