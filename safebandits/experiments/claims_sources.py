"""Where the scoreboard's claims are read from (shared by :mod:`.claims_scoreboard` and
:mod:`.claims_scoring`, so that neither imports the other): a results directory or an archived store,
the runs an experiment has with today's defaults, and a claim read without all of them."""

from __future__ import annotations

import contextlib
import lzma
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from safebandits.exceptions import SafeBanditsError

__all__ = ["ARCHIVE_SUFFIX", "expected_runs", "is_archive", "mark_incomplete"]


def expected_runs(spec: Any, scale: str) -> set[str] | None:
    """The store keys of the runs the experiment ``spec`` has at ``scale`` with today's defaults (a run
    stored under another configuration, e.g. with ``--set`` or an older default, is not one of them);
    ``None`` if the experiment cannot be expanded here."""
    from safebandits.experiments.spec import expand

    try:
        return {task.pk for task in expand(spec, scale)}
    except SafeBanditsError:
        return None


def mark_incomplete(claim: dict[str, Any], stored: int, expected: int, scale: str) -> dict[str, Any]:
    """A claim read without every run of its scale (with today's defaults) cannot decide: a pass or fail
    becomes inconclusive (what the runs present read is kept in ``raw_verdict``); "not run" stays."""
    if claim.get("verdict") not in ("pass", "fail"):
        return claim
    if claim["verdict"] == "fail" and claim.get("scale_decides") == "any":
        return claim  # a per-run counter-example refutes the claim whatever runs are missing
    why = (
        f"incomplete: {stored} of the {expected} runs of the {scale} scale (today's defaults) are stored "
        f"(reads {claim['verdict']})"
    )
    reason = "; ".join(x for x in (why, claim.get("reason", "")) if x)
    return {**claim, "verdict": "inconclusive", "passed": False, "reason": reason}


#: File names of an archived store: an xz-compressed ``results.sqlite`` (``docs/data/*.sqlite.xz``).
ARCHIVE_SUFFIX = ".sqlite.xz"


def is_archive(source: str | os.PathLike[str]) -> bool:
    """Whether ``source`` names an archived store (a ``*.sqlite.xz`` file) rather than a results dir."""
    return str(source).endswith(ARCHIVE_SUFFIX) and Path(source).is_file()


@contextlib.contextmanager
def _opened(source: str | os.PathLike[str]) -> Iterator[Path]:
    """A results directory holding ``source``: the directory itself, or an archive decompressed into a
    temporary directory (removed afterwards)."""
    if not is_archive(source):
        yield Path(source)
        return
    from safebandits.experiments.store import DB_NAME

    with tempfile.TemporaryDirectory(prefix="safebandits-scoreboard-") as tmp:
        with lzma.open(source, "rb") as src, open(Path(tmp) / DB_NAME, "wb") as dst:
            shutil.copyfileobj(src, dst, length=1 << 20)
        yield Path(tmp)
