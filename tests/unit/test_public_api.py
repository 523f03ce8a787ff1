"""The public API of ``safebandits``: every exported name resolves, and importing it is light.

``import safebandits`` loads its submodules lazily (PEP 562 ``__getattr__``); these tests check what
is loaded (``sys.modules`` in a fresh interpreter), not how long it takes (that is
``benchmarks/bench_startup.py``).
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import safebandits

ROOT = Path(__file__).resolve().parents[2]
HEAVY = (
    "numpy",
    "pandas",
    "matplotlib",
    "numba",
    "scipy",
    "safebandits.experiments",
    "safebandits.algorithms",
)


def _fresh(code: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    env.pop("SAFEBANDITS_PLUGINS", None)
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def _loaded_after(statement: str) -> set[str]:
    proc = _fresh(f"import json, sys\n{statement}\nprint(json.dumps(sorted(sys.modules)))")
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


def test_every_exported_name_resolves():
    assert len(safebandits.__all__) == len(set(safebandits.__all__))
    for name in safebandits.__all__:
        assert getattr(safebandits, name) is not None, name
    assert set(safebandits.__all__) <= set(dir(safebandits))


def _stub_exports():
    """Public name -> defining module, read from the one list of them (``safebandits/__init__.pyi``)."""
    stub = Path(safebandits.__file__).with_suffix(".pyi")
    out = {}
    for node in ast.parse(stub.read_text()).body:
        if isinstance(node, ast.Expr):  # (the docstring)
            continue
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.dump(node)
        for alias in node.names:
            assert alias.asname == alias.name, f"{alias.name} must be re-exported as itself"
            assert alias.name not in out, f"{alias.name} is listed twice"
            out[alias.name] = f"safebandits.{node.module}"
    return out


def test_exports_point_at_their_defining_modules():
    """Each lazily exported object is the one of the module the stub names, and in its ``__all__``."""
    for name, module in _stub_exports().items():
        assert getattr(importlib.import_module(module), name) is getattr(safebandits, name)
        if name in getattr(importlib.import_module(module), "__all__", [name]):
            continue
        pytest.fail(f"{module}.{name} is exported by safebandits but not in {module}.__all__")


def test_the_stub_is_the_one_list_of_public_names():
    assert sorted(safebandits.__all__) == sorted(_stub_exports())
    init = Path(safebandits.__file__).read_text()
    assert "attach_stub" in init and "make_instance" not in init  # (no second list in __init__.py)


def test_unknown_attribute_is_an_attribute_error():
    with pytest.raises(AttributeError, match="not_a_name"):
        safebandits.not_a_name  # noqa: B018
    assert not hasattr(safebandits, "also_not_a_name")


def test_import_safebandits_loads_no_heavy_module():
    loaded = _loaded_after("import safebandits")
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert heavy == []
    # A light name loads its own module only.
    loaded = _loaded_after("import safebandits as sb\nsb.ConfigError")
    assert "safebandits.exceptions" in loaded and not loaded & {"numpy", "pandas", "safebandits.experiments"}


def test_cli_help_and_version_load_no_heavy_module():
    code = (
        "import sys\nfrom safebandits.cli import main\n"
        "for args in (['--help'], ['--version'], ['run', '--help'], ['list', '--help']):\n"
        "    assert main(args) == 0, args\n"
    )
    loaded = _loaded_after(code)
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY))
    assert heavy == [] and "safebandits.study" not in loaded
    assert "safebandits.papers" not in loaded  # (a paper's commands are listed from their entry points)


def test_a_papers_command_is_listed_unloaded_and_loaded_when_used(capsys):
    from safebandits.cli import _entry_commands, cli, main

    assert _entry_commands()["driving"].value == "safebandits.papers.acol.commands:driving"
    # listed from its entry point, in a fresh process (this one may have loaded it already)
    proc = _fresh("from safebandits.cli import main; main(['--help'])")
    assert proc.returncode == 0, proc.stderr
    assert re.search(r"\n  driving +A command of safebandits\.papers\.acol\.commands\.\n", proc.stdout)
    assert main(["driving", "render", "--help"]) == 0 and "--scenario" in capsys.readouterr().out
    assert cli.get_command(None, "driving").name == "driving"
    assert main(["--help"]) == 0  # once loaded, its own short help
    assert re.search(r"\n  driving +Driving simulator of Lindner", capsys.readouterr().out)


def test_version_everywhere():
    from importlib.metadata import version

    from safebandits.cli import main

    assert version("safebandits") == safebandits.__version__
    proc = _fresh("from safebandits.cli import main; main(['--version'])")
    assert proc.stdout.strip() == f"safebandits {safebandits.__version__}"
    assert main(["-V"]) == 0


def test_lazy_study_group_help_matches_the_group(capsys):
    from safebandits.cli import _LAZY_COMMANDS, cli, main

    study = cli.get_command(None, "study")
    assert study is not None and "create" in study.commands
    assert study.get_short_help_str(limit=len(_LAZY_COMMANDS["study"][2])) == _LAZY_COMMANDS["study"][2]
    assert main(["study", "--help"]) == 0 and "create" in capsys.readouterr().out


def test_list_algorithms_verbose_shows_options_with_defaults(capsys):
    from safebandits.algorithms.options import config_options
    from safebandits.cli import main

    assert main(["list", "algorithms", "--verbose"]) == 0
    out = capsys.readouterr().out
    assert "options (ACOLConfig; --set algorithm.NAME=VALUE):" in out
    assert "      delta = 0.05  [float in (0, 1)]" in out and "Error probability" in out
    # A variant's preset value is shown as its default.
    entry = safebandits.get_algorithm("g-acol-uniform")
    opts = {o.name: o for o in config_options(entry)}
    preset = [o for o in opts.values() if o.preset]
    assert preset and all(o.default == entry.defaults[o.name] for o in preset)
    for name, entry in safebandits.list_algorithms().items():
        names = [o.name for o in config_options(entry)]
        assert names, name
        assert all(f"      {n} = " in out for n in names), name


def test_py_typed_ships_with_the_package():
    assert (Path(safebandits.__file__).parent / "py.typed").is_file()
    text = (ROOT / "pyproject.toml").read_text()
    assert 'license = "MIT"' in text and (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert json.dumps("py.typed") in text
