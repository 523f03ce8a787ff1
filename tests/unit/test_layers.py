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


# -- the engine holds no paper content (issue 19) ----------------------------------------------------------
ENGINE = ("safebandits/experiments", "safebandits/plotting")

#: (module, name) pairs the engine may hold as a string literal, with the reason. Empty: nothing is
#: unavoidable today (the learners' registry names, e.g. ``"safe-lucb"`` in ``experiments/bounds.py``, are
#: the algorithms layer's, not a paper package's, and are not among the names checked).
ALLOWED: set[tuple[str, str]] = set()


def paper_names() -> set[str]:
    """What the paper packages register: experiment names, method labels (whole and base, before
    ``" ("``), solver names, the papers' citations and their digests' item keys."""
    from safebandits.experiments.claims_coverage import digest_items, unevaluated_items
    from safebandits.experiments.papers import list_papers
    from safebandits.experiments.solvers import list_solvers
    from safebandits.experiments.spec import list_experiments

    specs = list_experiments()
    names = set(specs) | set(list_solvers())
    for spec in specs.values():
        for alg in spec.algorithms or ():
            names |= {alg.label, alg.label.partition(" (")[0]}
    names |= {info.citation for info in list_papers().values() if info.citation}
    names |= {item.key for item in digest_items()} | {row.item for row in unevaluated_items()}
    return {n for n in names if n}


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


def named_in(source: str, names: set[str]) -> list[tuple[int, str]]:
    """``(line, name)`` for every name of ``names`` that a string literal of ``source`` holds as a whole
    token (case-sensitive: ``"ACOL"`` is a label, ``"acol"`` is not)."""
    pattern = re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)) + r")(?![\w-])"
    )
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


def test_the_engine_names_no_paper_content() -> None:
    names = paper_names()
    found = [
        (str(path.relative_to(ROOT)), line, name)
        for root in ENGINE
        for path in sorted((ROOT / root).rglob("*.py"))
        for line, name in named_in(path.read_text(), names)
        if (str(path.relative_to(ROOT)), name) not in ALLOWED
    ]
    assert found == [], (
        "the engine holds a paper's experiment name, method label, solver, citation or digest item as a "
        "string literal: move it to the paper package (registration: register_paper, register_claims, "
        "register_report_figure, register_method_style, register_solver)"
    )
