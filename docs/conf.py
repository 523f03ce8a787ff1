"""Sphinx configuration of the safebandits documentation (``make docs``).

The API reference is generated at build time from ``safebandits.__all__`` and the ``__all__`` of the
main subpackages (``docs/reference/``, not committed), so a name exported later is documented without
editing a list here. The algorithm table is generated from the registry in the same way, and the papers'
pages (``docs/papers/``, not committed) are collected from the registered paper packages.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))  # apigen, paperdocs, gallery_order
os.environ.setdefault("MPLBACKEND", "Agg")
# The gallery examples read this to run at a small size (see docs/examples/GALLERY_HEADER.rst).
os.environ.setdefault("SAFEBANDITS_DOCS_SMALL", "1")

import apigen  # noqa: E402
import paperdocs  # noqa: E402

import safebandits  # noqa: E402

project = "safebandits"
author = "safebandits developers"
copyright = "safebandits developers"
release = safebandits.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_parser",
    "sphinx_click",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "gallery_order.py",
    "examples/README.rst",
    "**/GALLERY_HEADER.rst",
    "examples/*.py",
    "**.ipynb",
]
templates_path = ["_templates"]
nitpicky = False
# "--set" and "--plugin" stay two hyphens (no en dashes, no curly quotes in commands).
smartquotes = False

# -- MyST (markdown pages, docs/decisions.md and docs/decisions/*.md included as they are) ----------
myst_enable_extensions = ["colon_fence", "deflist", "dollarmath"]
myst_heading_anchors = 4

# -- autodoc / autosummary / numpydoc -------------------------------------------------------------
autosummary_generate = False  # docs/apigen.py writes the pages
autosummary_imported_members = True
autodoc_default_options = {"members": True, "inherited-members": False, "show-inheritance": True}
autodoc_typehints = "none"
autodoc_member_order = "bysource"
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_validation_checks: set[str] = set()
numpydoc_xref_param_type = False


# -- sphinx-gallery ---------------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["examples"],
    "gallery_dirs": ["auto_examples"],
    "filename_pattern": r"/plot_",
    "ignore_pattern": r"__init__\.py|_helpers\.py|_plugin\.py",
    "within_subsection_order": "gallery_order.ExampleOrder",  # docs/gallery_order.py
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "show_memory": False,
    "plot_gallery": "True",
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
    "reset_modules": ("matplotlib",),
    "min_reported_time": 1,
}

# -- HTML -------------------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"safebandits {release}"
html_static_path: list[str] = []
html_show_sourcelink = False

# -- generated reference pages (docs/apigen.py) -----------------------------------------------------
# Written at configuration time, so that they exist before Sphinx scans the source directory.
apigen.generate(HERE / "reference")
# The papers' pages, from each registered paper's package (docs/paperdocs.py), and their index.
paperdocs.generate(HERE / "papers")


# -- the command line reference (sphinx-click) -------------------------------------------------------
def _plain_help(app, ctx, lines) -> None:
    """Help texts are plain text, not reStructuredText: ``examples/*.toml`` is no emphasis."""
    for i, line in enumerate(lines):
        if not line.lstrip().startswith(".."):
            lines[i] = line.replace("\\", "\\\\").replace("*", r"\*").replace("`", r"\`").replace("|", r"\|")


def _load_lazy_commands() -> None:
    """Load the commands ``safebandits`` imports on first use (``study``, and the packages' commands of
    the entry-point group ``safebandits.commands``: ACOL's ``driving``), so sphinx-click documents them."""
    import click

    from safebandits.cli import cli

    with click.Context(cli) as ctx:
        for name in cli.list_commands(ctx):
            cli.get_command(ctx, name)


_load_lazy_commands()


def setup(app) -> None:
    for part in ("description", "options", "arguments", "envvars", "epilog"):
        app.connect(f"sphinx-click-process-{part}", _plain_help)
