"""The documentation's promises that can be checked without building it (``make docs`` builds it).

- every public name of ``safebandits`` and of the reference modules gets an API page;
- every registered learner, instance and experiment is in the generated tables;
- every gallery example is valid Python with a title (sphinx-gallery's format).
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
pytestmark = pytest.mark.skipif(not (DOCS / "apigen.py").exists(), reason="docs/ not present")


def _apigen():
    spec = importlib.util.spec_from_file_location("safebandits_docs_apigen", DOCS / "apigen.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_public_name_has_a_reference_page(tmp_path):
    apigen = _apigen()
    documented = apigen.write_api_reference(tmp_path)
    entries = set()  # (module page, name) of every autodoc entry written
    for modname, names in documented.items():
        page = (tmp_path / "api" / f"{modname.replace('.', '-')}.rst").read_text()
        assert all(f":: {name}\n" in page for name in names)
        module = importlib.import_module(modname)
        entries |= {id(getattr(module, name)) for name in names}
    for modname, _ in apigen.REFERENCE_MODULES:
        module = importlib.import_module(modname)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if name.startswith("__") or not (inspect.isclass(obj) or callable(obj)) or apigen._is_alias(obj):
                continue
            # Documented once, on the first page listing the object (safebandits first).
            assert id(obj) in entries, f"{modname}.{name} has no API entry"


def test_registries_are_tabulated(tmp_path):
    from safebandits.algorithms import list_algorithms
    from safebandits.experiments import list_experiments
    from safebandits.problems import list_instances

    apigen = _apigen()
    apigen.generate(tmp_path)
    algorithms = (tmp_path / "algorithms.rst").read_text()
    instances = (tmp_path / "instances.rst").read_text()
    experiments = (tmp_path / "experiments.rst").read_text()
    assert all(f".. _algo-{name}:" in algorithms for name in list_algorithms())
    assert all(f"``{name}``" in instances for name in list_instances())
    assert all(f"``{name}``" in experiments for name in list_experiments())


@pytest.mark.parametrize("path", sorted((DOCS / "examples").glob("plot_*.py")), ids=lambda p: p.name)
def test_gallery_example_has_a_title_and_parses(path):
    tree = ast.parse(path.read_text(), filename=str(path))
    doc = ast.get_docstring(tree)
    assert doc, f"{path.name}: a gallery example starts with a docstring"
    title, underline = doc.splitlines()[:2]
    assert title and set(underline) == {"="} and len(underline) >= len(title), path.name
