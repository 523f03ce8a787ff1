"""Write the "option name -> page, section" table of docs/decisions.md (run by hand, result committed).

The option names are the fields of every registered learner's and solver's config, the keyword parameters
of every registered instance factory and of the public functions of ``safebandits.design``, and the
fields of the ``*Config`` dataclasses of ``safebandits.problems`` and of the registered paper packages
(ACOL's driving simulator); a name enters the table when it appears in backticks (``name``,
``name="..."``, ``SomeConfig.name``) in a decisions page.
Run ``python docs/decisions_options.py`` after editing docs/decisions/*.md; the text between the two
marker lines of docs/decisions.md is replaced.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import safebandits.design as design
import safebandits.problems as problems
from safebandits.algorithms.registry import list_algorithms
from safebandits.experiments.papers import list_papers
from safebandits.experiments.solvers import list_solvers
from safebandits.problems.registry import list_instances

DOCS = Path(__file__).resolve().parent
PAGES = ["acol", "beside", "stagewise", "safe_lucb", "ckb", "conservative", "engine", "readings", "bounds"]
BEGIN, END = "<!-- options table: begin -->", "<!-- options table: end -->"
# Too generic to point at one choice (they name a paper's symbol, not an option of ours).
SKIP = set("d k n m c x0 rng seed delta epsilon eps tau horizon name repr".split())


def option_names() -> set[str]:
    names: set[str] = set()
    for entry in list_algorithms().values():
        names |= {f.name for f in dataclasses.fields(entry.cls.config_cls)}
    for entry in list_instances().values():
        names |= set(inspect.signature(entry.factory).parameters)
    for entry in list_solvers().values():
        names |= entry.fields
    papers = [importlib.import_module(info.module) for info in list_papers().values()]
    for package in (problems, design, *(p for p in papers if hasattr(p, "__path__"))):
        for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            module = importlib.import_module(info.name)
            for key, obj in vars(module).items():
                if inspect.isclass(obj) and key.endswith("Config") and dataclasses.is_dataclass(obj):
                    names |= {f.name for f in dataclasses.fields(obj)}
                elif package is design and inspect.isfunction(obj) and not key.startswith("_"):
                    params = inspect.signature(obj).parameters.values()
                    names |= {q.name for q in params if q.kind is q.KEYWORD_ONLY}
    return {n for n in names if not n.startswith("_")} - SKIP


def slug(title: str) -> str:
    # MyST's default heading anchor (myst_heading_anchors), before de-duplication.
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", title.strip().lower().replace(" ", "-"))


def sections(page: str):
    """Yield (heading text, anchor, in-heading backticked names, body text) per section of a page."""
    seen: dict[str, int] = {}
    title, anchor, body = None, None, []
    for line in (DOCS / "decisions" / f"{page}.md").read_text().splitlines():
        m = re.match(r"^(#{2,6}) (.*)$", line)
        if m:
            if title is not None:
                yield title, anchor, "\n".join(body)
            raw = m.group(2)
            title = raw.replace("`", "")
            base = slug(title)
            anchor = base if base not in seen else f"{base}-{seen[base]}"
            seen[base] = seen.get(base, 0) + 1
            body = [raw]
        elif line.startswith("# "):
            seen[slug(line[2:].replace("`", ""))] = 1
        elif title is not None:
            body.append(line)
    if title is not None:
        yield title, anchor, "\n".join(body)


def table() -> str:
    names = option_names()
    heads: dict[str, list[str]] = {}
    bodies: dict[str, list[str]] = {}
    token = re.compile(r"`(?:[A-Z][A-Za-z]*Config\.)?([A-Za-z_][A-Za-z0-9_]*)(?:\s*=[^`]*)?`")
    for page in PAGES:
        for title, anchor, text in sections(page):
            link = f"[{title}](decisions/{page}.md#{anchor})"
            first = text.split("\n", 1)[0]
            for name in set(token.findall(text)) & names:
                (heads if name in token.findall(first) else bodies).setdefault(name, []).append(link)
    rows = ["| option | where it is decided |", "|---|---|"]
    for name in sorted(set(heads) | set(bodies), key=str.lower):
        links = heads.get(name) or bodies[name]
        rows.append(f"| `{name}` | {'; '.join(links)} |")
    return "\n".join(rows)


def main() -> None:
    path = DOCS / "decisions.md"
    text = path.read_text()
    start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
    path.write_text(text[:start] + "\n" + table() + "\n" + text[stop:])


if __name__ == "__main__":
    main()
