"""Every compiled kernel takes at most 8 parameters (issue 43, item 6): records, not long argument lists.

An AST scan of the package: a function decorated with a numba compiler (``numba.njit``, ``numba.jit``,
``njit``, ``jit``, with or without arguments, and numba's ``overload`` / ``overload_method`` /
``register_jitable`` / ``generated_jit`` / ``cfunc``) may have at most :data:`LIMIT` parameters. A kernel
that needs more takes a NamedTuple of its arrays and settings (docs/decisions/engine.md, "Typed state
records"), as ``LazyFactor`` and ``KernelSource`` (estimators/gp_lazy.py) and ``StalePosterior``
(algorithms/regret/_ckb_common.py) do. The compiled drivers (algorithms/_driver.py) are made from source
templates, not decorated; they take the run record (``block``) and four arguments (``loop``).
``python tests/unit/test_kernel_params.py`` prints every compiled kernel with its parameter count.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "safebandits"
LIMIT = 8
#: The names of numba's compilers and of its ways of compiling a Python function for compiled callers.
COMPILERS = frozenset(
    {"njit", "jit", "generated_jit", "register_jitable", "overload", "overload_method", "cfunc"}
)


def _is_compiler(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr in COMPILERS
    return isinstance(target, ast.Name) and target.id in COMPILERS


def _n_params(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    a = node.args
    return (
        len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + (a.vararg is not None) + (a.kwarg is not None)
    )


def compiled_kernels(source: str, where: str = "<source>") -> list[tuple[str, int]]:
    """``(where:line:name, number of parameters)`` of every compiled function defined in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            _is_compiler(d) for d in node.decorator_list
        ):
            out.append((f"{where}:{node.lineno}:{node.name}", _n_params(node)))
    return out


def package_kernels() -> list[tuple[str, int]]:
    rows = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rows += compiled_kernels(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    return rows


def test_every_compiled_kernel_takes_at_most_eight_parameters():
    rows = package_kernels()
    assert len(rows) > 100  # (the scan finds the package's kernels)
    over = [f"{name} ({n} parameters)" for name, n in rows if n > LIMIT]
    assert not over, (
        f"compiled kernels with more than {LIMIT} parameters (group them into a NamedTuple record, "
        "docs/decisions/engine.md, 'Typed state records'):\n  " + "\n  ".join(over)
    )


@pytest.mark.parametrize(
    ("decorator", "found"),
    [
        ("@numba.njit", True),
        ("@numba.njit(cache=True, inline='always')", True),
        ("@njit", True),
        ("@numba.jit(nopython=True)", True),
        ("@overload(len)", True),
        ("@functools.cache", False),
        ("@staticmethod", False),
    ],
)
def test_the_scan_recognises_numba_decorators(decorator, found):
    source = f"{decorator}\ndef kernel(a, b, c, d, e, f, g, h, i, *, j=0):\n    return a\n"
    assert compiled_kernels(source) == ([("<source>:2:kernel", 10)] if found else [])


if __name__ == "__main__":
    for name, n in sorted(package_kernels(), key=lambda r: -r[1]):
        print(f"{n:>3}  {name}")
