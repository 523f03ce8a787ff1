"""The import contract (``[tool.importlinter]`` in pyproject.toml) holds, and fails on a back-edge.

``make test`` runs ``lint-imports`` on the package; these tests check the contract on a copy of the
package into which one upward import is injected, so a contract that cannot fail is caught.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT = Path(sys.executable).with_name("lint-imports")

pytestmark = pytest.mark.skipif(not LINT.exists(), reason="import-linter is not installed (test extra)")


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
            "safebandits.papers.beside.claims is not allowed to import safebandits.plotting",
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
def test_contract_fails_on_a_back_edge(tree: Path, module: str, line: str, message: str) -> None:
    _append(tree / "safebandits" / module, line)
    out = _lint(tree)
    assert out.returncode != 0
    assert message in " ".join(out.stdout.split()), out.stdout
