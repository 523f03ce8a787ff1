"""A paper is a package (issue 32, item 5): a small test paper written in five files -- its package
(instances, experiment, paper), its claims, its docs page, and its distribution's two metadata files
naming the entry point -- is found by every part of the library without any edit to the engine, the
dashboard, the import contracts or the docs index: its instance is made by name in a fresh process, its
experiment is listed and run, its claims are read by ``results`` and the scoreboard, ``bounds`` serves its
instance through the paper that registers that kind, its own command joins the command line, and the
documentation build collects its page.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

PACKAGE = '''
"""A test paper: OPB on a two-armed instance of its own."""

import numpy as np

from safebandits.experiments.papers import register_paper
from safebandits.experiments.spec import AlgorithmSpec, ExperimentSpec, PanelSpec, register_experiment
from safebandits.problems.noise import make_noise
from safebandits.problems.registry import register_instance
from safebandits.problems.stagewise import StagewiseInstance


@register_instance("testpaper/two-arms")
def two_arms(*, tau: float = 0.5, T: int = 2_000) -> StagewiseInstance:
    """Two Bernoulli arms: the safe one (reward 0.2, cost 0.1) and a better one (0.8, 0.3)."""
    return StagewiseInstance(
        arms=np.eye(2),
        safe_action=np.eye(2)[0],
        reward_param=np.array([0.2, 0.8]),
        cost_params=np.array([[0.1, 0.3]]),
        threshold=np.array([tau]),
        noise=make_noise("bernoulli"),
        action_set="simplex",
        horizon=T,
        known_safe_values=True,
        name="testpaper/two-arms",
    )


register_experiment(
    ExperimentSpec(
        name="testpaper-two-arms",
        title="OPB on two arms (the test paper)",
        panels=(
            PanelSpec(
                name="two-arms",
                instance="testpaper/two-arms",
                sweep_param="tau",
                values={"quick": (0.5,), "paper": (0.5,)},
            ),
        ),
        algorithms=(AlgorithmSpec(label="OPB", name="opb"),),
        replicates={"quick": 2, "paper": 2},
        budget={"quick": 2_000, "paper": 2_000},
        claims="testpaper-two-arms",
        horizon={"quick": 2_000, "paper": 2_000},
    )
)

register_paper("testpaper", __name__, claims=("testpaper.claims",), citation="Test 2026")


import click


@click.command()
@click.option("--tau", type=float, default=0.5)
def hello(tau):
    """The test paper's own command: its instance's best value."""
    from safebandits.problems.registry import make_instance

    click.echo(f"best value at tau={tau}: {make_instance('testpaper/two-arms', tau=tau).optimal_value:.1f}")
'''

CLAIMS = '''
"""The test paper's one claim: OPB's regret is sublinear (below T / 4 at T = 2,000)."""

from safebandits.experiments.claims_meta import ClaimMeta
from safebandits.experiments.papers import register_claims


def check(df):
    ok = df[df["status"] == "ok"]
    regret = float(ok["regret"].mean()) if len(ok) else float("nan")
    return [{"id": "sublinear", "claim": "regret below T / 4", "passed": bool(regret < 500),
             "evidence": {"mean regret": regret}}]


register_claims(
    "testpaper-two-arms",
    check,
    {"sublinear": ClaimMeta("Test 2026", "OPB's regret is sublinear.", ("OPB",), "any")},
)
'''


PAGE = """# The test paper

OPB on two arms; its one claim is on {doc}`the scoreboard </scoreboard>`.
"""


def _install(root: Path) -> dict[str, str]:
    """The test paper in ``root`` (five files), and the environment that puts it on the path."""
    pkg = root / "testpaper"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(PACKAGE))
    (pkg / "claims.py").write_text(textwrap.dedent(CLAIMS))
    (pkg / "docs").mkdir()
    (pkg / "docs" / "testpaper.md").write_text(PAGE)
    dist = root / "testpaper-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: testpaper\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        "[safebandits.papers]\ntestpaper = testpaper\n\n"
        "[safebandits.commands]\ntestpaper-hello = testpaper:hello\ntestpaper-broken = testpaper:nothing\n"
    )
    files = [p for p in root.rglob("*") if p.is_file()]
    assert len(files) <= 6, files
    path = os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def _sb(env, *args, cwd):
    return subprocess.run(
        [str(Path(sys.executable).with_name("safebandits")), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )


@pytest.fixture(scope="module")
def paper(tmp_path_factory):
    root = tmp_path_factory.mktemp("testpaper")
    return root, _install(root)


def test_its_instance_is_made_by_name_in_a_fresh_process(paper):
    root, env = paper
    code = (
        "import safebandits as sb, json\n"
        "inst = sb.make_instance('testpaper/two-arms', tau=0.4)\n"
        "print(json.dumps([type(inst).__name__, 'testpaper/two-arms' in sb.list_instances()]))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["StagewiseInstance", True]


def test_its_experiment_runs_and_its_claim_is_read(paper):
    root, env = paper
    listed = _sb(env, "list", "experiments", cwd=root)
    assert listed.returncode == 0 and "testpaper-two-arms" in listed.stdout, listed.stderr
    out = root / "results"
    run = _sb(env, "run", "testpaper-two-arms", "--out", str(out), "--workers", "1", "-q", cwd=root)
    assert run.returncode == 0, run.stderr
    results = _sb(env, "results", str(out), cwd=root)
    assert results.returncode == 0 and "testpaper-two-arms" in results.stdout, results.stderr
    board = _sb(env, "scoreboard", str(out), cwd=root)
    assert board.returncode == 0, board.stderr
    assert "testpaper-two-arms" in board.stdout and "sublinear" in board.stdout


def test_its_command_is_added_to_the_command_line(paper):
    root, env = paper
    listed = _sb(env, "--help", cwd=root)
    assert listed.returncode == 0, listed.stderr
    assert re.search(
        r"\n  testpaper-hello +A command of testpaper\.\n", listed.stdout
    )  # listed, not imported
    ran = _sb(env, "testpaper-hello", "--tau", "0.4", cwd=root)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == "best value at tau=0.4: 0.8"  # (both arms safe: the better one)
    broken = _sb(env, "testpaper-broken", cwd=root)
    assert broken.returncode == 2 and broken.stderr.count("\n") == 1
    assert "entry point 'testpaper:nothing' of group 'safebandits.commands'" in broken.stderr


def test_bounds_serve_its_instance_through_the_paper_of_its_kind(paper):
    root, env = paper
    proc = _sb(env, "bounds", "testpaper/two-arms", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["kind"] == "StagewiseInstance"


def test_the_docs_build_collects_its_page(paper):
    root, env = paper
    docs = Path(__file__).resolve().parents[2] / "docs"
    if not (docs / "paperdocs.py").exists():
        pytest.skip("docs/ not present")
    out = root / "docs-papers"
    code = (
        f"import sys, json, pathlib; sys.path.insert(0, {str(docs)!r}); import paperdocs\n"
        f"print(json.dumps(paperdocs.generate(pathlib.Path({str(out)!r}))))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["testpaper"] == ["testpaper.md"]
    assert (out / "testpaper.md").read_text() == PAGE
    index = (out / "index.md").read_text()
    assert "| {doc}`testpaper` | Test 2026 |" in index  # a row and a toctree entry, no index edit
    assert "\ntestpaper\n" in index[index.index("```{toctree}") :]


def _code_without_docs(source: str) -> str:
    """The module's code with its docstrings and comments left out (they may cite a paper as an example)."""
    import ast

    tree = ast.parse(source)
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                body[0] = ast.Pass()
    return ast.unparse(tree)


def test_the_engine_dashboard_and_contracts_name_no_paper():
    """No paper's name in the engine's, the dashboard's, the problems layer's or the import contracts'
    source (its entry point and one documented exception of the independence contract aside)."""
    root = Path(__file__).resolve().parents[2]
    names = ("acol", "beside", "ckb", "safe_lucb", "safelucb", "stagewise", "driving")
    import safebandits as sb

    prefixes = ("acol/", "beside/", "ckb/", "safelucb/", "stagewise/", "fdr/", "driving/")
    instances = [n for n in sb.list_instances() if n.startswith(prefixes)]
    # (the problems layer holds the settings the learners share, whose words -- "uniform" noise -- may
    # be a learner's name: there, only the papers and their instances are looked for)
    for folder, literals in (
        ("safebandits/experiments", [*sb.list_algorithms(), *instances]),
        ("safebandits/dashboard", [*sb.list_algorithms(), *instances]),
        ("safebandits/problems", instances),
    ):
        for path in (root / folder).rglob("*.py"):
            code = _code_without_docs(path.read_text())
            found = [n for n in names if f"papers.{n}" in code or f"'{n}/" in code or f'"{n}/' in code]
            found += [n for n in literals if f"'{n}'" in code or f'"{n}"' in code]
            assert not found, (path, found)
    # the papers' data sets are registered by the papers, not by the data registry's module
    from safebandits.datasets import list_datasets

    registry_code = _code_without_docs((root / "safebandits" / "datasets.py").read_text())
    data = sorted(list_datasets())
    assert {"uci_adult", "light_sensors", "acol_driver"} <= set(data)
    assert not [n for n in data if f"'{n}'" in registry_code or f'"{n}"' in registry_code]
    # the paper's own content (its driving simulator, its theorems' bounds) is no module of the layers
    leftovers = ("problems/driving", "problems/cbai_bounds.py", "problems/beside_bounds.py")
    assert not [p for p in leftovers if (root / "safebandits" / p).exists()]
    pyproject = (root / "pyproject.toml").read_text()
    contracts = pyproject[pyproject.index("[[tool.importlinter.contracts]]") :]
    named = {n for n in names if f"safebandits.papers.{n}" in contracts}
    assert named <= {"safe_lucb", "stagewise"}, named  # (the one ignored import: a shared slope fit)
