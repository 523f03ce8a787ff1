"""Readings fixed before their data (issue 42): a fingerprint of every claim's reading, a ledger of when
each reading was fixed, the fingerprints stored with the data, and whether a reading predates its data.

A claim's *reading* is the code that turns runs into its verdict, with its thresholds, and the claim's
metadata (its wording, the methods compared, the deciding scale, its kind). :func:`reading_fingerprint`
hashes it: the source of the claim set's check function and of every function, class and constant of the
paper packages and of :mod:`~safebandits.experiments.claim_base` that it reaches (transitively), plus the
claim's :class:`~safebandits.experiments.paper_records.ClaimMeta` and id. The code is hashed per claim
set (one check function reads all the claims of an experiment), so a change to one claim's helper
changes the fingerprint of its siblings too; the ledger update says which readings changed
(:func:`update_ledger`).

The *ledger* (``readings.json`` in each paper package, :data:`LEDGER_NAME`) holds per claim
(``"<claim set>/<claim id>"``) the fingerprint, the date the reading was ``fixed`` (UTC), the experiment
seeds per scale whose data was in view when it was fixed (``data_seen``: the reading may have been shaped
by them) and ``why``. A test fails when a reading's fingerprint is not the ledger's, so no reading changes
without a new entry.

The runner stores the fingerprints of an experiment's readings with its data (:func:`note_readings`, the
store's ``meta`` table, key ``readings/<experiment>/<scale>/<seed>``, with the time first written).
:func:`reading_status` then tells, per claim and data: ``"before"`` (the reading was fixed before its data
and no data of this seed was in view), ``"confirmatory"`` (the same, for a reading changed after earlier
data: this is fresh data with a new seed), or ``"post-hoc"`` (the reading was fixed after this data, or
with data of this seed in view, or it changed since the data was written; or it is not in the ledger).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import inspect
import json
import types
from collections.abc import Callable, Iterable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "LEDGER_NAME",
    "READING_STATUSES",
    "LedgerEntry",
    "ReadingStatus",
    "fingerprints",
    "ledger",
    "ledger_markdown",
    "ledger_mismatches",
    "note_readings",
    "reading_fingerprint",
    "reading_status",
    "stored_readings",
    "update_ledger",
]

#: The ledger's file name in each paper package.
LEDGER_NAME = "readings.json"
#: What :func:`reading_status` returns, and what each means (the scoreboard's legend).
READING_STATUSES = {
    "before": "the reading was fixed before its data, with no data of this seed in view",
    "confirmatory": "a reading changed after earlier data, scored on fresh data made after the change with "
    "a new experiment seed",
    "post-hoc": "the reading was fixed after this data or with data of this seed in view (or changed since "
    "the data was written): it stays post-hoc until a confirmatory run with a new seed",
}
_META_PREFIX = "readings"
_REACH = ("safebandits.papers", "safebandits.experiments.claim_base")


def _reached(obj: Any) -> bool:
    mod = getattr(obj, "__module__", "") or ""
    return any(mod == p or mod.startswith(p + ".") for p in _REACH)


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _closure(fn: Callable[..., Any]) -> list[str]:
    """The sources and constants a function reaches in the paper packages and ``claim_base``, sorted."""
    parts: dict[str, str] = {}
    todo: list[Any] = [fn]
    seen: set[int] = set()
    while todo:
        obj = todo.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, (types.FunctionType, type)):
            try:
                parts[f"{obj.__module__}.{obj.__qualname__}"] = inspect.getsource(obj)
            except (OSError, TypeError):
                parts[f"{obj.__module__}.{obj.__qualname__}"] = "<no source>"
        if isinstance(obj, types.FunctionType):
            cells = [c.cell_contents for c in (obj.__closure__ or ()) if _has(c)]
            glb = obj.__globals__
            for name in sorted(_code_names(obj.__code__)):
                if name in glb:
                    _visit(name, glb[name], glb.get("__name__", ""), todo, parts)
            for i, value in enumerate(cells):
                _visit(f"<cell {i}>", value, obj.__qualname__, todo, parts)
        elif isinstance(obj, type):
            for value in vars(obj).values():
                if isinstance(value, types.FunctionType):
                    todo.append(value)
    return [f"{k}\n{v}" for k, v in sorted(parts.items())]


def _has(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 (an empty cell raises)
    except ValueError:
        return False
    return True


def _visit(name: str, value: Any, where: str, todo: list[Any], parts: dict[str, str]) -> None:
    if isinstance(value, (types.FunctionType, type)):
        if _reached(value):
            todo.append(value)
    elif isinstance(value, (bool, int, float, str, tuple, frozenset)) or (
        isinstance(value, dict) and all(isinstance(v, (bool, int, float, str, tuple)) for v in value.values())
    ):
        if where.startswith(_REACH) or not where.startswith("safebandits"):
            parts[f"{where}:{name}"] = repr(value)


def _claim_set(key: str) -> tuple[Callable[..., Any], Mapping[str, Any]]:
    from safebandits.experiments.claims_meta import claim_metadata
    from safebandits.experiments.papers import claim_sets

    meta = claim_metadata().get(key, {})
    fn = claim_sets().get(key)
    if fn is None:
        from safebandits.exceptions import ConfigError

        raise ConfigError(f"No claim set {key!r} is registered.")
    return fn, meta


def reading_fingerprint(key: str, claim_id: str, *, _code: str | None = None) -> str:
    """The fingerprint (16 hex digits) of claim ``claim_id`` of claim set ``key``: its set's code closure,
    its metadata and its id (module docstring)."""
    fn, meta = _claim_set(key)
    code = _code if _code is not None else "\n".join(_closure(fn))
    m = meta.get(claim_id)
    text = json.dumps(
        {"set": key, "id": claim_id, "meta": asdict(m) if m is not None else None, "code": code},
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def fingerprints(key: str) -> dict[str, str]:
    """The fingerprint of every claim of claim set ``key`` (by claim id; ``{}`` for an unknown set)."""
    try:
        fn, meta = _claim_set(key)
    except Exception:
        return {}
    code = "\n".join(_closure(fn))
    return {cid: reading_fingerprint(key, cid, _code=code) for cid in meta}


@dataclass(frozen=True)
class LedgerEntry:
    """When a reading was fixed (see the module docstring)."""

    fingerprint: str
    fixed: str
    data_seen: dict[str, list[int]] = field(default_factory=dict)
    why: str = ""


def _ledger_files() -> dict[str, Path]:
    """The ledger file of every registered paper package (by package; the file may not exist yet)."""
    from safebandits.experiments.papers import list_papers

    out = {}
    for info in list_papers().values():
        try:
            out[info.module] = Path(str(importlib.resources.files(info.module) / LEDGER_NAME))
        except (ModuleNotFoundError, TypeError):
            continue
    return out


def _owner(key: str) -> str | None:
    """The package of the paper that registered claim set ``key``."""
    fn, _ = _claim_set(key)
    owners = [m for m in _ledger_files() if fn.__module__ == m or fn.__module__.startswith(m + ".")]
    return max(owners, key=len) if owners else None  # (the innermost: a paper inside another's package)


def ledger() -> dict[str, LedgerEntry]:
    """Every paper package's ledger, by ``"<claim set>/<claim id>"``."""
    out: dict[str, LedgerEntry] = {}
    for path in _ledger_files().values():
        if path.is_file():
            for name, row in json.loads(path.read_text()).items():
                out[name] = LedgerEntry(**row)
    return out


def ledger_mismatches() -> list[str]:
    """The readings (``"<claim set>/<claim id>"``) whose fingerprint today is not the ledger's, or that the
    ledger lacks."""
    from safebandits.experiments.papers import claim_sets

    book = ledger()
    bad = []
    for key in sorted(claim_sets()):
        for cid, fp in fingerprints(key).items():
            entry = book.get(f"{key}/{cid}")
            if entry is None or entry.fingerprint != fp:
                bad.append(f"{key}/{cid}")
    return bad


def update_ledger(
    changed: Iterable[str],
    *,
    data_seen: Mapping[str, list[int]],
    why: str,
    unchanged: Iterable[str] = (),
    now: str | None = None,
) -> list[str]:
    """Record new fingerprints. ``changed`` readings (``"<set>/<id>"``) get today's date, ``data_seen``
    and ``why``; ``unchanged`` ones (a code edit that does not alter their reading, e.g. a sibling's
    helper) keep their date with the new fingerprint and ``why`` noted. Every mismatching reading must be
    in one of the two; returns the names written."""
    from safebandits.exceptions import ConfigError

    changed, unchanged = set(changed), set(unchanged)
    todo = set(ledger_mismatches())
    missing = todo - changed - unchanged
    if missing:
        raise ConfigError(
            f"The readings {sorted(missing)} changed since the ledger: name each as changed or unchanged."
        )
    now = now or datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M")
    books: dict[str, dict[str, Any]] = {}
    files = _ledger_files()
    written = []
    for name in sorted(changed | unchanged):
        key, cid = name.split("/", 1)
        owner = _owner(key)
        if owner is None:
            raise ConfigError(f"Claim set {key!r} belongs to no registered paper package.")
        book = books.setdefault(owner, json.loads(files[owner].read_text()) if files[owner].is_file() else {})
        fp = fingerprints(key)[cid]
        old = book.get(name)
        if name in changed or old is None:
            book[name] = asdict(LedgerEntry(fp, now, {k: sorted(v) for k, v in data_seen.items()}, why))
        else:
            book[name] = {
                **old,
                "fingerprint": fp,
                "why": f"{old.get('why', '')} (code revised {now}: {why})",
            }
        written.append(name)
    for owner, book in books.items():
        files[owner].write_text(json.dumps(dict(sorted(book.items())), indent=1) + "\n")
    return written


# -- with the data ---------------------------------------------------------------------------------


def _meta_key(experiment: str, scale: str, seed: int) -> str:
    return f"{_META_PREFIX}/{experiment}/{scale}/{seed}"


def note_readings(store: Any, experiment: str, scale: str, seed: int, claims_key: str) -> None:
    """Store the fingerprints of ``claims_key``'s readings with the data of (experiment, scale, seed),
    each with the time it was first written there (kept across later writes)."""
    fps = fingerprints(claims_key)
    if not fps:
        return
    key = _meta_key(experiment, scale, seed)
    old = json.loads(store.get_meta(key) or "{}")
    now = datetime.now(timezone.utc).isoformat()
    for cid, fp in fps.items():
        old.setdefault(cid, {}).setdefault(fp, now)
    store.set_meta(key, json.dumps(old, sort_keys=True))


def stored_readings(store: Any, experiment: str, scale: str, seed: int) -> dict[str, dict[str, str]]:
    """The fingerprints stored with the data of (experiment, scale, seed): claim id -> {fp: first time}."""
    return json.loads(store.get_meta(_meta_key(experiment, scale, seed)) or "{}")


@dataclass(frozen=True)
class ReadingStatus:
    """Whether a claim's reading predates the data it is scored on (:data:`READING_STATUSES`)."""

    status: str
    fixed: str
    detail: str

    def cell(self) -> str:
        return f"{self.status} ({self.detail})"


def reading_status(
    key: str,
    claim_id: str,
    *,
    scale: str,
    seed: int,
    first_run: str,
    stored: Mapping[str, str] | None = None,
    book: Mapping[str, LedgerEntry] | None = None,
    today: str | None = None,
) -> ReadingStatus:
    """Whether claim ``claim_id``'s reading predates its data: the data of ``scale`` and experiment
    ``seed`` whose first run was written at ``first_run`` (ISO), with the fingerprints ``stored`` with it
    (``{fp: first time}``, if any). ``today``: the reading's fingerprint now (computed if not given)."""
    book = ledger() if book is None else book
    entry = book.get(f"{key}/{claim_id}")
    fp = today if today is not None else reading_fingerprint(key, claim_id)
    first = str(pd.Timestamp(first_run).tz_convert("UTC").strftime("%Y-%m-%d %H:%M")) if first_run else ""
    if entry is None or entry.fingerprint != fp:
        return ReadingStatus("post-hoc", "", "the reading is not in the ledger as it is today")
    if stored and fp not in stored:
        return ReadingStatus(
            "post-hoc", entry.fixed, f"fixed {entry.fixed}: changed since this data was written"
        )
    if first and entry.fixed > first:
        return ReadingStatus(
            "post-hoc", entry.fixed, f"fixed {entry.fixed}, after its data (first run {first})"
        )
    seen = entry.data_seen.get(scale, [])
    if seed in seen:
        return ReadingStatus(
            "post-hoc", entry.fixed, f"fixed {entry.fixed} with seed {seed}'s {scale}-scale data in view"
        )
    if seen:
        return ReadingStatus(
            "confirmatory",
            entry.fixed,
            f"fixed {entry.fixed}; fresh data with seed {seed}, first run {first}",
        )
    return ReadingStatus("before", entry.fixed, f"fixed {entry.fixed}, first run {first}")


#: A ``why`` shared by at least this many readings (and longer than :data:`_NOTE_MIN_CHARS`) is printed once,
#: under the table, and the table's cells name it ("note 1"): the page stays under its size limit.
_NOTE_MIN_SHARED, _NOTE_MIN_CHARS = 3, 60


def _shared_notes(whys: list[str]) -> dict[str, int]:
    """The long ``why`` texts shared by several readings, numbered 1, 2, ... in order of first use."""
    counts: dict[str, int] = {}
    for why in whys:
        counts[why] = counts.get(why, 0) + 1
    out: dict[str, int] = {}
    for why in whys:
        if why not in out and counts[why] >= _NOTE_MIN_SHARED and len(why) > _NOTE_MIN_CHARS:
            out[why] = len(out) + 1
    return out


def ledger_markdown() -> list[str]:
    """The tables of docs/decisions/readings.md: every reading with the date it was fixed, the data in view
    and why; every declared unstated setting with its range (the verdict at each value is the scoreboard's
    robustness column)."""
    from safebandits.experiments.claims_meta import claim_metadata
    from safebandits.experiments.robustness import UNSTATED

    meta = claim_metadata()
    book = sorted(ledger().items())
    notes = _shared_notes([e.why for _, e in book])
    lines = [
        "| claim set / claim | kind | fixed (UTC) | data in view when fixed | why |",
        "|---|---|---|---|---|",
    ]
    for name, e in book:
        key, cid = name.split("/", 1)
        m = meta.get(key, {}).get(cid)
        seen = "; ".join(
            f"{scale} seed {', '.join(map(str, seeds))}" for scale, seeds in sorted(e.data_seen.items())
        )
        why = f"note {notes[e.why]}" if e.why in notes else e.why.replace("|", "\\|")
        lines.append(f"| `{name}` | {m.kind if m else '?'} | {e.fixed} | {seen or 'none'} | {why} |")
    if notes:
        lines.append("")
        lines += [f"- **note {n}:** {why}" for why, n in notes.items()]
    lines += [
        "",
        "| experiment | unstated setting | the paper says | declared range | claims | declared | why |",
        "|---|---|---|---|---|---|---|",
    ]
    for experiment in sorted(UNSTATED):
        for s in UNSTATED[experiment]:
            values = ", ".join(str(v) for v in s.values)
            claims = ", ".join(f"`{c}`" for c in s.claims) or "all"
            lines.append(
                f"| {experiment} | `{s.setting}` | {s.paper_says} | {values} | {claims} | {s.declared} | "
                f"{s.why} |"
            )
    return lines
