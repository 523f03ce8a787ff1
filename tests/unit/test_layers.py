"""The import contract (``[tool.importlinter]`` in pyproject.toml) holds, and fails on a back-edge; the
engine names no paper's content.

``make test`` runs ``lint-imports`` on the package; these tests check the contract on a copy of the
package into which one upward import is injected, so a contract that cannot fail is caught. An import
contract cannot see a paper's content copied into the engine as data, so the last tests read the engine's
code (``safebandits.experiments``, ``safebandits.plotting``) for the names the paper packages register.
"""

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")

needs_lint = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed (test extra)")


def _lint(tree: Path) -> subprocess.CompletedProcess:
    # The copy comes first on sys.path (before the editable install's finder).
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(
        [str(LINT), "--no-cache", "--no-logo", "--config", str(tree / "pyproject.toml")],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "safebandits", tmp_path / "safebandits", ignore=skip)
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def _append(path: Path, line: str) -> None:
    path.write_text(path.read_text() + f"\n\ndef _back_edge():\n    {line}  # noqa\n")


@needs_lint
def test_contract_holds_on_the_package(tree: Path) -> None:
    out = _lint(tree)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "0 broken" in out.stdout


@pytest.mark.parametrize(
    ("module", "line", "message"),
    [
        # a learner importing the engine (even lazily, inside a function)
        (
            "algorithms/regret/opb.py",
            "from safebandits.experiments.regret_loop import run_regret",
            "safebandits.algorithms is not allowed to import safebandits.experiments",
        ),
        # the engine importing plotting
        (
            "experiments/spec.py",
            "import safebandits.plotting.report",
            "safebandits.experiments is not allowed to import safebandits.plotting",
        ),
        # the engine naming a paper (papers are discovered by entry point, never imported by the engine)
        (
            "experiments/claims.py",
            "import safebandits.papers.acol.claims",
            "safebandits.experiments is not allowed to import safebandits.papers",
        ),
        # the report importing a paper's figures (it loads them through the entry points)
        (
            "plotting/report.py",
            "from safebandits.papers.ckb.figures import slack_horizons_figure",
            "safebandits.plotting is not allowed to import safebandits.papers",
        ),
        # a paper's claims drawing (only its figures modules may)
        (
            "papers/beside/claims.py",
            "import safebandits.plotting.figures",
            "safebandits.papers.beside.claims is not allowed to import matplotlib",
        ),
        # one paper importing another's content
        (
            "papers/ckb/experiments.py",
            "from safebandits.papers.acol.experiments import ADAPTIVE",
            "safebandits.papers.ckb is not allowed to import safebandits.papers.acol",
        ),
        # a problem drawing with matplotlib
        (
            "problems/linear.py",
            "import matplotlib.pyplot",
            "safebandits.problems is not allowed to import matplotlib",
        ),
    ],
)
@needs_lint
def test_contract_fails_on_a_back_edge(tree: Path, module: str, line: str, message: str) -> None:
    _append(tree / "safebandits" / module, line)
    out = _lint(tree)
    assert out.returncode != 0
    assert message in " ".join(out.stdout.split()), out.stdout


# -- the engine holds no paper content (issues 19 and 32) ---------------------------------------------------
#: The engine, its front ends (command line, studies, dashboard) and the core modules beside them. The
#: papers' packages and the learners (``safebandits.algorithms``) are where the papers live; the layers
#: below the engine (problems, estimators, design, classification, data) hold the settings and the data
#: the learners share.
ENGINE = (
    "safebandits/experiments",
    "safebandits/plotting",
    "safebandits/dashboard",
    "safebandits/study",
    "safebandits/cli",
    *(str(p.relative_to(ROOT)) for p in sorted((ROOT / "safebandits").glob("*.py"))),
)

#: (module, name) pairs the engine may hold as a string literal, with the reason. ``"fdr"`` is the false
#: discovery rate: a metric every classification run reports (a column of the results store, beside
#: accuracy, precision and recall), not the name of the papers' instance family ``fdr/...``.
ALLOWED: set[tuple[str, str]] = {
    ("safebandits/experiments/execute.py", "fdr"),
    ("safebandits/experiments/results.py", "fdr"),
    ("safebandits/plotting/comparison.py", "fdr"),
}


def paper_names() -> set[str]:
    """What the paper packages register: experiment names, method labels (whole and base, before
    ``" ("``), solver names, the papers' names and citations, their digests' item keys, and the
    instances they register, whole and by family (``"driving"`` of ``"driving/task"``)."""
    from safebandits.experiments.claims_coverage import digest_items, unevaluated_items
    from safebandits.experiments.papers import list_papers
    from safebandits.experiments.solvers import list_solvers
    from safebandits.experiments.spec import list_experiments
    from safebandits.problems.registry import list_instances

    specs = list_experiments()
    names = set(specs) | set(list_solvers())
    for spec in specs.values():
        for alg in spec.algorithms or ():
            names |= {alg.label, alg.label.partition(" (")[0]}
    names |= set(list_papers()) | {info.citation for info in list_papers().values() if info.citation}
    names |= {item.key for item in digest_items()} | {row.item for row in unevaluated_items()}
    instances = {n for n, entry in list_instances().items() if entry.factory.__module__.startswith(PAPERS)}
    names |= instances | {n.partition("/")[0] for n in instances}
    return {n for n in names if n}


#: Where the papers' packages live (the instances they register are theirs).
PAPERS = "safebandits.papers."


def literals(source: str) -> list[tuple[int, str]]:
    """The string literals of a module's code (f-string parts included), docstrings left out."""
    tree = ast.parse(source)
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


def _pattern(names: set[str]) -> re.Pattern[str]:
    """Any name of ``names`` as a whole token (case-sensitive: ``"ACOL"`` is a label, ``"acol"`` is not)."""
    return re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w-])"
    )


def named_in(source: str, names: set[str]) -> list[tuple[int, str]]:
    """``(line, name)`` for every name of ``names`` that a string literal of ``source`` holds as a whole
    token (case-sensitive: ``"ACOL"`` is a label, ``"acol"`` is not)."""
    pattern = _pattern(names)
    return [(line, m.group(1)) for line, text in literals(source) for m in pattern.finditer(text)]


def test_the_check_finds_a_paper_name_in_code_not_in_docstrings() -> None:
    source = (
        '"""Runs acol-synthetic."""\n'
        'def f():\n    """Draws G-ACOL (tuned)."""\n'
        '    return {"G-ACOL": "#2ca02c", "x": f"{1} acol-synthetic", "y": "acol-synthetic-2"}\n'
    )
    found = named_in(source, {"acol-synthetic", "G-ACOL", "G-ACOL (tuned)"})
    assert sorted(found) == [(4, "G-ACOL"), (4, "acol-synthetic")]  # not the docstrings, not "...-2"


def test_paper_names_cover_experiments_labels_solvers_and_citations() -> None:
    names = paper_names()
    assert {
        "acol-synthetic",
        "opb-four-arm",
        "G-ACOL",
        "G-ACOL (theory)",
        "Safe-LUCB",
        "driving-cem",
    } <= names
    assert {"Amani et al. 2019 (Safe-LUCB)", "safe_lucb §5.3", "ckb §5.8"} <= names
    # the papers, their instances and the instances' families
    assert {"acol", "safe_lucb", "acol/driving", "fdr/adult", "driving", "fdr", "stagewise"} <= names
    assert "user/declared" not in names and "user" not in names  # (the library's own instance)


def _engine_files() -> list[Path]:
    return [
        p for root in ENGINE for p in ([ROOT / root] if root.endswith(".py") else (ROOT / root).rglob("*.py"))
    ]


def test_the_engine_names_no_paper_content() -> None:
    names = paper_names()
    found = [
        (str(path.relative_to(ROOT)), line, name)
        for path in sorted(_engine_files())
        for line, name in named_in(path.read_text(), names)
        if (str(path.relative_to(ROOT)), name) not in ALLOWED
    ]
    assert found == [], (
        "the engine holds a paper's experiment name, method label, solver, citation, digest item, "
        "instance or instance family as a string literal: move it to the paper package (registration: "
        "register_paper, register_claims, register_report_figure, register_method_style, register_solver, "
        "register_instance and its QueryView, the safebandits.commands entry points)",
        found,
    )


def test_the_allowed_names_are_still_there() -> None:
    """An allowance that no longer matches anything is removed (so the list says what is left)."""
    names = paper_names()
    for module, name in ALLOWED:
        assert name in {n for _, n in named_in((ROOT / module).read_text(), names)}, (module, name)


def _helps() -> list[tuple[str, str]]:
    """Every built-in command's ``--help`` text, by command path (the commands other packages add through
    the entry-point group ``safebandits.commands`` are theirs, and are left out)."""
    import click

    from safebandits.cli import _entry_commands, cli

    out: list[tuple[str, str]] = []

    def walk(cmd: click.Command, path: list[str], parent: click.Context | None) -> None:
        ctx = click.Context(cmd, info_name=path[-1], parent=parent)
        out.append((" ".join(path), cmd.get_help(ctx)))
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                if parent is None and name in _entry_commands():
                    continue
                sub = cmd.get_command(ctx, name)
                assert sub is not None, name
                walk(sub, [*path, name], ctx)

    walk(cli, ["safebandits"], None)
    # (the top-level list names the added commands and their modules, read from the entry points)
    added = tuple(f"  {name} " for name in _entry_commands())
    text = "\n".join(line for line in out[0][1].splitlines() if not line.startswith(added))
    return [(out[0][0], text), *out[1:]]


def test_the_command_lines_help_names_no_paper() -> None:
    """The help names no paper's experiment, method, instance or learner: its examples say EXPERIMENT,
    INSTANCE, LEARNER (``safebandits list`` prints the registered ones)."""
    import safebandits.cli
    import safebandits.study.cli
    from safebandits.algorithms.registry import list_algorithms

    helps = _helps()
    assert {"safebandits run", "safebandits study create", "safebandits data fetch"} <= {p for p, _ in helps}
    # (and the examples of the command-line modules' own pages)
    helps += [(m.__name__, m.__doc__ or "") for m in (safebandits.cli, safebandits.study.cli)]
    # (the learners whose name is a word of its own -- "uniform", "oracle", "passive" -- may be words)
    learners = {n for n in list_algorithms() if "-" in n or n in paper_names()}
    pattern = _pattern(paper_names() | learners)
    found = [(path, m.group(1)) for path, text in helps for m in pattern.finditer(text)]
    # the papers' data sets: their names, their pinned sources and the tables they convert (any case)
    from safebandits.datasets import list_datasets

    data = set(list_datasets())
    for entry in list_datasets().values():
        for source in (entry.source, entry.openml):
            data |= {source.requirement, source.converter} if source else set()
    words = re.compile(_pattern({d for d in data if d}).pattern, re.IGNORECASE)
    found += [(path, m.group(1)) for path, text in helps for m in words.finditer(text)]
    assert found == [], found
