"""The papers' pages, collected from the paper packages at build time (called by docs/conf.py).

Each registered paper (``safebandits.papers`` entry points) keeps its pages in its own package
(``<package>/docs/<name>.md`` and ``<name>_<topic>.md``, read by
:func:`safebandits.experiments.papers.paper_pages`). :func:`generate` copies them into ``docs/papers/``
(not committed) under their own file names, so a page keeps its URL (``papers/acol.html``), and writes
``papers/index.md``: the papers in their scoreboard order, each with its citation, the experiments its
digest's items are read by and the methods (learners, solvers) those run. A new paper needs no edit
here nor in the index.
"""

from __future__ import annotations

import re
from pathlib import Path

from safebandits.experiments.claims_coverage import digest_items
from safebandits.experiments.papers import list_papers, paper_pages
from safebandits.experiments.spec import list_experiments

INTRO = """\
# Papers reproduced

The library implements the algorithms, baselines, instances and experiments of the papers below, and
checks each paper's checkable claims on its own runs (`safebandits report` writes every verdict to
`claims.json`). Each page says what is reproduced, which claims hold, and where our results differ
from the paper and why, linking the recorded decisions ({doc}`/decisions`). A paper's page lives in its
package (`safebandits/papers/<paper>/docs/`) and is collected here when the documentation is built.
"""

OUTRO = """\
Every experiment runs at a `quick` scale (CI-sized, a few seconds to a minute) and at the `paper`
scale (the paper's grid and number of replicates):

```
safebandits run opb-four-arm --scale paper --out results/paper
safebandits report results/paper          # results/paper/report/index.html and claims.json
```

**Every claim's verdict** (pass, fail, inconclusive), with the paper's wording, our reading and the key
numbers, is on {doc}`the scoreboard </scoreboard>` (`safebandits scoreboard`).

**How claims are read.** The papers' claims are mostly qualitative ("comparable", "about 2x", "several
orders of magnitude"). Each is turned into a statistic and a threshold *before* running, recorded in
the decisions, and never loosened to make a claim pass. A claim fails where the data says so, and the
paper pages give the evidence and the reason when one is known. A claim that fails only at points where
runs hit their sample budget is *inconclusive*.
"""


def _ordered_papers() -> list:
    """The registered papers by their scoreboard ``order``, then those without one, by name."""
    infos = list_papers().values()
    return sorted(infos, key=lambda i: (i.order is None, i.order if i.order is not None else 0, i.name))


def _cell(text: str) -> str:
    return text.replace("|", r"\|")


def _row(info, pages: list[str]) -> str:
    """The index row of one paper: its pages, citation, experiments and the learners they run."""
    stems = [Path(p).stem for p in pages]
    paper = f"{{doc}}`{stems[0]}`" + (
        f" (also {', '.join(f'{{doc}}`{s}`' for s in stems[1:])})" if len(stems) > 1 else ""
    )
    experiments = sorted(
        {e for item in digest_items() if item.paper == info.citation for e, _ in item.claims}
    )
    specs = list_experiments()
    learners = sorted({a.name for e in experiments if e in specs for a in specs[e].algorithms or ()})
    return (
        f"| {paper} | {_cell(info.citation) or '-'} | "
        f"{', '.join(f'`{e}`' for e in experiments) or '-'} | "
        f"{', '.join(f'`{n}`' for n in learners) or '-'} |"
    )


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def generate(out: Path) -> dict[str, list[str]]:
    """Write every registered paper's pages and ``index.md`` into ``out`` (other files there removed);
    the page file names by paper."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, list[str]] = {}
    rows, toc = [], []
    for info in _ordered_papers():
        pages = paper_pages(info.name)
        if not pages:
            continue
        written[info.name] = list(pages)
        for filename, text in pages.items():
            _write_if_changed(out / filename, text)
            toc.append(Path(filename).stem)
        rows.append(_row(info, list(pages)))
    table = "| paper | citation | experiments | methods they run |\n|---|---|---|---|\n" + "\n".join(rows)
    toctree = "```{toctree}\n:hidden:\n\n" + "\n".join(toc) + "\n```\n"
    _write_if_changed(out / "index.md", f"{INTRO}\n{table}\n\n{OUTRO}\n{toctree}")
    keep = {"index.md"} | {f for names in written.values() for f in names}
    for stale in out.iterdir():
        if stale.is_file() and stale.name not in keep and re.fullmatch(r"[\w-]+\.md", stale.name):
            stale.unlink()
    return written
