"""Reproduction scoreboard: one row per claim (paper, wording, our reading, verdict, key numbers).

``safebandits report DIR`` writes ``DIR/report/scoreboard.json`` and ``scoreboard.csv`` next to
``claims.json`` (:func:`write_scoreboard_data`); ``safebandits scoreboard SOURCE... --out
docs/scoreboard.md`` writes the committed page (:func:`scoreboard_markdown`): date, commit, wall time per
experiment and every verdict with all its evidence, grouped by paper. A SOURCE is a results directory or
an archived store (``docs/data/*.sqlite.xz``, read through a temporary copy), so the committed page is
regenerated from the repository alone: ``safebandits scoreboard docs/data/paper-results.sqlite.xz
docs/data/quick-results.sqlite.xz --out docs/scoreboard.md``. The page names no local path
(:func:`source_label`).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import pandas as pd

from safebandits.experiments.claims_sources import (
    ARCHIVE_SUFFIX,
    expected_runs,
    is_archive,
    mark_incomplete,
)

__all__ = [
    "ARCHIVE_SUFFIX",
    "SCOREBOARD_COLUMNS",
    "coverage_markdown",
    "expected_runs",
    "is_archive",
    "key_numbers",
    "mark_incomplete",
    "scoreboard_frame",
    "scoreboard_markdown",
    "source_label",
    "wall_times",
    "write_scoreboard_data",
]

SCOREBOARD_COLUMNS = (
    "paper",
    "experiment",
    "scale",
    "id",
    "kind",
    "wording",
    "reading",
    "verdict",
    "robustness",
    "reading_status",
    "reason",
    "key_numbers",
)


def _fmt(value: Any) -> str:
    """One evidence value as text: floats to 4 significant digits, lists and dicts in full."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}={_fmt(v)}" for k, v in value.items()) + "}"
    return str(value)


def _evidence_items(evidence: Any, prefix: str = "") -> list[str]:
    """``name=value`` for every leaf of the evidence, at any depth; lists (of numbers, or of point
    records) are shown whole. ``runs_not_counted`` is left out: the reason states it."""
    out: list[str] = []
    if not isinstance(evidence, dict):
        return out
    for k, v in evidence.items():
        if k == "runs_not_counted":
            continue
        name = f"{prefix}{k}"
        if isinstance(v, dict) and v:
            out.extend(_evidence_items(v, f"{name}."))
        else:
            out.append(f"{name}={_fmt(v)}")
    return out


def key_numbers(claim: dict[str, Any]) -> str:
    """Every number of a claim's evidence, ``name=value; ...`` (lists and nested records included; issue
    31: the page shows all the evidence), after the claim's own ``key_numbers`` if it sets them."""
    text = "; ".join(_evidence_items(claim.get("evidence") or {}))
    own = str(claim.get("key_numbers") or "")
    return "; ".join(x for x in (own, text) if x)


def scoreboard_frame(claims: list[dict[str, Any]]) -> pd.DataFrame:
    """One row per claim record (as written to ``claims.json``), columns :data:`SCOREBOARD_COLUMNS`."""
    rows = [
        {
            "paper": c.get("paper", ""),
            "experiment": c.get("experiment", ""),
            "scale": c.get("scale", ""),
            "id": c.get("id", ""),
            "kind": c.get("kind", "paper"),
            "wording": c.get("wording", ""),
            "reading": c.get("reading") or c.get("claim", ""),
            "verdict": c.get("verdict", "pass" if c.get("passed") else "fail"),
            "robustness": c.get("robustness", ""),
            "reading_status": c.get("reading_status", ""),
            "reason": c.get("reason", ""),
            "key_numbers": key_numbers(c),
        }
        for c in claims
    ]
    return pd.DataFrame(rows, columns=list(SCOREBOARD_COLUMNS))


def write_scoreboard_data(claims: list[dict[str, Any]], out_dir: str | os.PathLike[str]) -> Path:
    """Write ``scoreboard.json`` and ``scoreboard.csv`` into ``out_dir``; return the JSON path."""
    out = Path(out_dir)
    frame = scoreboard_frame(claims)
    frame.to_csv(out / "scoreboard.csv", index=False)
    path = out / "scoreboard.json"
    path.write_text(json.dumps(frame.to_dict(orient="records"), indent=1) + "\n")
    return path


def wall_times(df: pd.DataFrame) -> pd.DataFrame:
    """Per (experiment, scale): runs, failed, span of the run timestamps plus the first run's wall time
    (an estimate of the experiment's wall time), the compute: the sum of the runs' CPU seconds
    ``sum_run_cpu_s`` over the ``cpu_runs`` runs that recorded it (stores written before ``cpu_s``
    existed have none: CPU unknown) and the sum of the runs' wall times ``sum_run_wall_s`` (which also
    counts the time a run waited for a core)."""
    rows = []
    for (exp, scale), g in df.groupby(["experiment", "scale"], sort=True):
        ts = pd.to_datetime(g["timestamp"], errors="coerce", utc=True).dropna()
        wall = pd.to_numeric(g["wall_s"], errors="coerce")
        cpu = pd.to_numeric(g["cpu_s"], errors="coerce") if "cpu_s" in g else pd.Series(dtype=float)
        span = float((ts.max() - ts.min()).total_seconds()) if len(ts) else float("nan")
        first = float(wall[ts.index == ts.idxmin()].iloc[0]) if len(ts) else 0.0
        rows.append(
            {
                "experiment": exp,
                "scale": scale,
                "runs": len(g),
                "failed": int((g["status"] != "ok").sum()),
                "wall_s": span + (first if pd.notna(first) else 0.0),
                "sum_run_cpu_s": float(cpu.sum()),
                "cpu_runs": int(cpu.notna().sum()),
                "sum_run_wall_s": float(wall.sum()),
            }
        )
    return pd.DataFrame(rows)


def _cpu_cell(cpu: float, known: int, runs: int) -> str:
    """The compute cell: the runs' CPU seconds; "unknown (wall only)" when no run recorded it (a store
    written before ``cpu_s``), and the share that did when only some did."""
    if known == 0:
        return "unknown (wall only)"
    return f"{cpu:.0f}" if known == runs else f"{cpu:.0f} ({known} of {runs} runs; the rest wall only)"


def _of(counts: Any) -> str:
    """`` (n of N)``: how many of the scale's runs (today's defaults) the stored runs include."""
    if not isinstance(counts, tuple):
        return ""
    return f" ({counts[0]} of {counts[1]})"


def _commit() -> str:
    try:
        here = Path(__file__).resolve().parent
        out = subprocess.run(
            ["git", "-C", str(here), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def source_label(source: str | os.PathLike[str]) -> str:
    """How the page names a source without naming a local path (issue 31): an archive inside the
    repository by its path in the repository, another archive by its file name, a results directory as
    one that is not archived (the page then cannot be regenerated from the repository alone)."""
    path = Path(source).resolve()
    root = Path(__file__).resolve().parents[2]
    if is_archive(source):
        try:
            return f"`{path.relative_to(root).as_posix()}`"
        except ValueError:
            return f"the archive `{path.name}`"
    return "a results directory that is not archived"


def coverage_markdown(board: pd.DataFrame) -> list[str]:
    """The coverage section of the scoreboard: every section-5 item of each digest, the claims that read it
    and their verdicts (the paper scale's where stored, else the quick scale's), or why none does."""
    from safebandits.experiments.claims_coverage import digest_items, unevaluated_items

    unevaluated = {row.item: (row.status, row.why) for row in unevaluated_items()}
    by_key = {(r.experiment, r.id, r.scale): r.verdict for r in board.itertuples()}
    lines = [
        "",
        "## Coverage of the digests' section-5 claims",
        "",
        "Every numbered claim of section 5 of each digest, the claims that read it and their verdicts "
        "(paper scale where stored, else quick), or why no experiment reads it.",
        "",
        "| digest item | statement | claims and verdicts | not evaluated because |",
        "|---|---|---|---|",
    ]
    for item in digest_items():
        cells = []
        for experiment, claim_id in item.claims:
            scale = next((s for s in ("paper", "quick") if (experiment, claim_id, s) in by_key), None)
            verdict = by_key[(experiment, claim_id, scale)].upper() if scale else "NOT RUN"
            cells.append(f"`{experiment}/{claim_id}` {verdict}" + (f" ({scale})" if scale else ""))
        status, why = unevaluated.get(item.key, ("", ""))
        gap = f"{status}: {why}" if status else ""
        lines.append(f"| {item.key} | {_cell(item.summary)} | {'<br>'.join(cells)} | {_cell(gap)} |")
    return lines


def scoreboard_markdown(
    results_dir: str | os.PathLike[str] | list[str | os.PathLike[str]],
    *,
    commit: str | None = None,
    note: str = "",
) -> str:
    """The scoreboard page of one or more results directories (claims evaluated afresh on their stored
    runs; an (experiment, scale) stored in several directories is read from the first)."""
    from safebandits.experiments.claims_coverage import UNEVALUATED_STATUS, unevaluated_items
    from safebandits.experiments.claims_meta import LEGEND
    from safebandits.experiments.claims_scoring import score_sources

    dirs = [results_dir] if isinstance(results_dir, (str, os.PathLike)) else list(results_dir)
    scored = score_sources(dirs)
    claims, df = scored.claims, scored.runs
    expected = scored.expected
    board = scoreboard_frame(claims)
    times = wall_times(df) if not df.empty else pd.DataFrame()
    if not times.empty:
        times["expected"] = [expected.get((e, s)) for e, s in zip(times["experiment"], times["scale"])]
    now = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    paper_claims = board[board["kind"] != "diagnostic"]
    counts = Counter(zip(paper_claims["scale"], paper_claims["verdict"]))
    diag = board[board["kind"] == "diagnostic"]
    diagnostics = Counter(zip(diag["scale"], diag["verdict"]))
    markers = Counter(
        m.split(":")[0] for m in paper_claims.loc[paper_claims["scale"] == "paper", "robustness"]
    )
    reading = Counter(
        r.split(" (")[0] for r in paper_claims.loc[paper_claims["scale"] == "paper", "reading_status"]
    )
    lines = [
        "# Reproduction scoreboard",
        "",
        f"Generated {now} from {', '.join(source_label(d) for d in dirs)} by `safebandits scoreboard`, "
        f"commit `{commit or _commit()}`. Claims are evaluated afresh on the stored runs.",
        "",
        *([note, ""] if note else []),
        LEGEND,
        "",
        "Verdicts of the papers' claims: "
        + ", ".join(f"{scale} {verdict} {n}" for (scale, verdict), n in sorted(counts.items()))
        + ". Library diagnostics (not the papers' verdicts): "
        + (
            ", ".join(f"{scale} {verdict} {n}" for (scale, verdict), n in sorted(diagnostics.items()))
            or "none"
        )
        + ".",
        "",
        "Paper-scale markers: "
        + (", ".join(f"{m} {n}" for m, n in sorted(markers.items()) if m) or "none")
        + ". Paper-scale readings: "
        + (", ".join(f"{r} {n}" for r, n in sorted(reading.items()) if r) or "none")
        + ".",
        "",
        "## Wall time per experiment",
        "",
        "| experiment | scale | runs stored (of the scale's runs) | failed | wall s (timestamps) | "
        "sum of run CPU s | sum of run wall s |",
        "|---|---|---|---|---|---|---|",
    ]
    lines += [
        f"| {r.experiment} | {r.scale} | {r.runs}{_of(getattr(r, 'expected', None))} | {r.failed} | "
        f"{r.wall_s:.0f} | {_cpu_cell(r.sum_run_cpu_s, r.cpu_runs, r.runs)} | {r.sum_run_wall_s:.0f} |"
        for r in times.itertuples()
    ]
    for paper, part in board.groupby("paper", sort=True):
        lines += [
            "",
            f"## {paper or '(no paper recorded)'}",
            "",
            "| experiment | scale | claim | verdict | robustness | reading fixed | paper's wording | "
            "our reading | reason / key numbers |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for r in part.itertuples():
            detail = "; ".join(x for x in (r.reason, r.key_numbers) if x)
            kind = " (diagnostic)" if r.kind == "diagnostic" else ""
            lines.append(
                f"| {r.experiment} | {r.scale} | `{r.id}` | **{r.verdict.upper()}**{kind} | "
                f"{_cell(r.robustness)} | {_cell(r.reading_status)} | {_cell(r.wording)} | "
                f"{_cell(r.reading)} | {_cell(detail)} |"
            )
    lines += coverage_markdown(board)
    lines += [
        "",
        "## Section-5 claims no experiment evaluates yet",
        "",
        "Status: " + "; ".join(f"{k} = {v}" for k, v in UNEVALUATED_STATUS.items()) + ".",
        "",
        "| paper | digest item | wording | status | why |",
        "|---|---|---|---|---|",
    ]
    lines += [
        f"| {p} | {item} | {_cell(w)} | {status} | {_cell(why)} |"
        for p, item, w, status, why in unevaluated_items()
    ]
    return "\n".join(lines) + "\n"
