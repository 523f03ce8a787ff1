"""The documentation's promises that can be checked without building it (``make docs`` builds it).

- every public name of ``safebandits`` and of the reference modules gets an API page;
- every registered learner, instance and experiment is in the generated tables;
- every gallery example is valid Python with a title (sphinx-gallery's format);
- the decisions index lists every option the per-paper pages decide, and the code names existing pages;
- every decisions page stays under 60,000 characters (a list of decisions in force, not a diary).
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


def _load(name, filename):
    spec = importlib.util.spec_from_file_location(name, DOCS / filename)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _apigen():
    return _load("safebandits_docs_apigen", "apigen.py")


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


def test_decisions_options_table_is_up_to_date():
    gen = _load("safebandits_docs_decisions_options", "decisions_options.py")
    text = (DOCS / "decisions.md").read_text()
    committed = text[text.index(gen.BEGIN) + len(gen.BEGIN) : text.index(gen.END)].strip()
    assert committed == gen.table(), "run: python docs/decisions_options.py"
    named = "normalise combine other_safety_gap certified_skip numerics radii t_prime constrained_solver"
    for name in named.split():
        assert f"| `{name}` |" in committed
    for page in gen.PAGES:
        assert f"decisions/{page}" in text  # linked (toctree) from the index


DECISIONS_PAGE_LIMIT = 60_000  # characters; issue 32: the decisions in force, history in the changelog


@pytest.mark.parametrize("page", sorted((DOCS / "decisions").glob("*.md")), ids=lambda p: p.name)
def test_decisions_page_is_under_the_size_limit(page):
    size = len(page.read_text(encoding="utf-8"))
    assert size < DECISIONS_PAGE_LIMIT, (
        f"{page.name} has {size:,} characters (limit {DECISIONS_PAGE_LIMIT:,}): keep the decisions in force, "
        "move history to docs/changelog.md and benchmark tables to the benchmark's output"
    )


def test_decisions_pages_name_no_local_paths():
    for page in [DOCS / "decisions.md", DOCS / "changelog.md", *(DOCS / "decisions").glob("*.md")]:
        text = page.read_text(encoding="utf-8")
        for prefix in ("/work/", "/tmp/"):
            assert prefix not in text, f"{page.name} names a local path ({prefix})"


def test_code_names_existing_decisions_pages():
    root = DOCS.parent
    pages = {p.name for p in (DOCS / "decisions").glob("*.md")}
    for path in [*(root / "safebandits").rglob("*.py"), *(root / "benchmarks").rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        for chunk in text.split("docs/decisions/")[1:]:
            assert chunk.split(".md", 1)[0] + ".md" in pages, path


# -- the papers' pages live in their packages (issue 32, item 5) --------------------------------------------
def _paperdocs():
    return _load("safebandits_docs_paperdocs", "paperdocs.py")


def _fake_paper(tmp_path, monkeypatch, name, pages):
    """A paper package ``name`` on the path with ``pages`` (file name -> text) in its docs folder, registered
    for this test only."""
    from safebandits.experiments import papers

    pkg = tmp_path / "src" / name
    (pkg / "docs").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""A paper of the docs tests."""\n')
    for filename, text in pages.items():
        (pkg / "docs" / filename).write_text(text)
    monkeypatch.syspath_prepend(str(tmp_path / "src"))
    papers.load_papers()
    monkeypatch.setitem(papers._PAPERS, name, papers.PaperInfo(name, name, citation=f"{name} 2026"))


def test_the_papers_pages_come_from_their_packages(tmp_path):
    written = _paperdocs().generate(tmp_path)
    # every page keeps the file name, hence the URL, it had under docs/papers/ (the main page first)
    assert written["acol"] == ["acol.md"] and written["ckb"] == ["ckb.md", "ckb_botorch.md", "ckb_safeopt.md"]
    assert {"beside", "stagewise", "safe_lucb"} <= set(written)
    root = DOCS.parent / "safebandits" / "papers"
    assert (tmp_path / "acol.md").read_text() == (root / "acol" / "docs" / "acol.md").read_text()
    index = (tmp_path / "index.md").read_text()
    assert "| {doc}`ckb` (also {doc}`ckb_botorch`, {doc}`ckb_safeopt`) | Zhou & Ji 2022 (CKB) |" in index
    assert "`acol-driving`" in index and "`g-acol`" in index
    toctree = index[index.index("```{toctree}") :]
    assert [line for line in toctree.splitlines() if line.isidentifier()] == [
        p for names in written.values() for p in (n.removesuffix(".md") for n in names)
    ]


def test_a_new_papers_page_is_collected_without_an_index_edit(tmp_path, monkeypatch):
    _fake_paper(tmp_path, monkeypatch, "docspaper", {"docspaper.md": "# The docs paper\n\nIts page.\n"})
    out = tmp_path / "out"
    out.mkdir()
    (out / "gone.md").write_text("# A page of a paper no longer installed\n")
    written = _paperdocs().generate(out)
    assert written["docspaper"] == ["docspaper.md"]
    assert (out / "docspaper.md").read_text() == "# The docs paper\n\nIts page.\n"
    index = (out / "index.md").read_text()
    assert "| {doc}`docspaper` | docspaper 2026 | - | - |" in index
    assert "\ndocspaper\n" in index[index.index("```{toctree}") :]
    assert not (out / "gone.md").exists()  # the folder is generated: stale pages go


def test_a_paper_page_must_be_named_after_its_paper(tmp_path, monkeypatch):
    from safebandits.exceptions import ConfigError
    from safebandits.experiments.papers import paper_pages

    _fake_paper(tmp_path, monkeypatch, "namedpaper", {"namedpaper_more.md": "b", "namedpaper.md": "a"})
    assert list(paper_pages("namedpaper")) == ["namedpaper.md", "namedpaper_more.md"]
    _fake_paper(tmp_path, monkeypatch, "otherpaper", {"index.md": "# would replace the papers' index\n"})
    with pytest.raises(ConfigError, match=r"otherpaper.md or otherpaper_<topic>.md"):
        paper_pages("otherpaper")
    with pytest.raises(ConfigError, match="Unknown paper"):
        paper_pages("no-such-paper")


def test_a_paper_without_a_docs_folder_has_no_page(tmp_path, monkeypatch):
    from safebandits.experiments.papers import paper_pages

    _fake_paper(tmp_path, monkeypatch, "pagelesspaper", {})
    (tmp_path / "src" / "pagelesspaper" / "docs").rmdir()
    assert paper_pages("pagelesspaper") == {}
    assert "pagelesspaper" not in _paperdocs().generate(tmp_path / "out")


#: The user guide's guarantee table: row label prefix -> the registry's guarantee key.
_GUARANTEE_ROWS = {
    "`(epsilon, delta)`-PAC": "pac",
    "PAC identification of the best safe item": "pac",
    "safe at every round": "round",
    "safe in expectation": "expectation",
    "cumulative reward at least `(1 - alpha)` times a baseline policy": "conservative-policy",
    "cumulative reward at least": "conservative",
    "the same, with high probability, by a budget": "conservative-budget",
    "the same at every checkpoint": "conservative-checkpoint",
    "soft constraint": "soft",
    "FDR-constrained": "fdr",
    "none (baselines)": "none",
}


def test_guarantee_table_agrees_with_the_registry():
    """Every registered learner is in the user guide's guarantee table, in the row of its registered
    guarantee (a learner listed under a promise it does not make misleads the reader)."""
    import re

    from safebandits.algorithms._catalogue import list_algorithms

    text = (DOCS / "user_guide" / "learners.md").read_text()
    table = text.split("## Which learner, which guarantee", 1)[1].split("\n\n", 2)[1]
    listed: dict[str, str] = {}
    for line in table.splitlines()[2:]:
        label, names = line.strip("|").split("|", 1)
        key = next(k for prefix, k in _GUARANTEE_ROWS.items() if label.strip().startswith(prefix))
        for name in re.findall(r"`([a-z0-9-]+)`", names):
            assert name not in listed, f"{name} is listed twice in the guarantee table"
            listed[name] = key
    registry = {n: e.guarantee for n, e in list_algorithms().items()}
    assert listed == registry
