"""No new long function outside the learners and the estimators (issue 32, item 7: "sprawl").

A function over :data:`LIMIT` lines (``def`` to its end, docstring included, decorators not) is split along
its seams. The ones left are listed in :data:`KNOWN`; only ever shrink it. The learners' and estimators'
compiled kernels (``safebandits/algorithms``, ``safebandits/estimators``) follow their papers' lines and are
left out. ``python tests/unit/test_function_lengths.py`` prints the table (``def`` to end, with the
decorators, without the docstring).
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LIMIT = 80
SKIP = ("safebandits/algorithms/", "safebandits/estimators/")

#: Functions over LIMIT lines today (path:qualified name). Only ever shrink this set.
KNOWN = {
    "safebandits/study/create.py:create_study",  # (60 of its lines are the docstring)
    "safebandits/plotting/report.py:write_report",
    "safebandits/papers/safe_lucb/claims.py:check_karm",
    "safebandits/papers/acol/simulator/constrained.py:constrained_optimum",
    "safebandits/design/frank_wolfe.py:frank_wolfe_design",
    "safebandits/problems/declare/linear.py:LinearProblem._instance",
    "safebandits/papers/acol/simulator/cem.py:cem_batch",
    "safebandits/experiments/claims_scoreboard.py:scoreboard_markdown",
    "safebandits/design/frank_wolfe.py:_lopt_steps",
    "safebandits/experiments/regret_loop.py:run_regret",
    "safebandits/problems/declare/linear.py:LinearProblem._view",
    "safebandits/experiments/claims_meta.py:finalise_claims",
    "safebandits/experiments/user.py:_build",
    "safebandits/experiments/regret_loop.py:score_block",
    "safebandits/papers/acol/cbai_bounds.py:cbai_bounds",
    "safebandits/experiments/execute.py:execute_task",
}


def _docstring_lines(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return (first.end_lineno or first.lineno) - first.lineno + 1
    return 0


def _visit(node: ast.AST, where: str, rows: list[tuple[str, int, int, int]]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = child.end_lineno or child.lineno
            length = end - child.lineno + 1
            whole = end - min([d.lineno for d in child.decorator_list] + [child.lineno]) + 1
            rows.append((f"{where}{child.name}", length, whole, length - _docstring_lines(child)))
            _visit(child, f"{where}{child.name}.", rows)
        elif isinstance(child, ast.ClassDef):
            _visit(child, f"{where}{child.name}.", rows)


def function_lengths(root: Path = ROOT) -> list[tuple[str, int, int, int]]:
    """``(path:name, def to end, with decorators, without the docstring)`` of every function of the
    package outside :data:`SKIP`, longest first."""
    rows: list[tuple[str, int, int, int]] = []
    for path in sorted((root / "safebandits").rglob("*.py")):
        rel = str(path.relative_to(root))
        if not rel.startswith(SKIP):
            _visit(ast.parse(path.read_text()), f"{rel}:", rows)
    return sorted(rows, key=lambda r: -r[1])


def test_the_counter_measures_def_to_end(tmp_path: Path) -> None:
    (tmp_path / "safebandits" / "algorithms").mkdir(parents=True)
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT))
    (tmp_path / "safebandits" / "m.py").write_text(f'@dec\ndef f():\n    """Doc."""\n{body}\n')
    (tmp_path / "safebandits" / "algorithms" / "k.py").write_text(f"def g():\n{body}\n")
    assert function_lengths(tmp_path) == [("safebandits/m.py:f", LIMIT + 2, LIMIT + 3, LIMIT + 1)]


def test_no_new_long_function() -> None:
    long = {name for name, length, _, _ in function_lengths() if length > LIMIT}
    assert long - KNOWN == set(), (
        f"split these along their seams (over {LIMIT} lines): {sorted(long - KNOWN)}"
    )


if __name__ == "__main__":
    print(f"{'def to end':>10} {'with decorators':>15} {'no docstring':>12}  function")
    for name, length, whole, code in function_lengths():
        if max(length, whole) > LIMIT:
            print(f"{length:10d} {whole:15d} {code:12d}  {name}")
