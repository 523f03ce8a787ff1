"""Figures and the HTML report; the papers' extra report figures register on import (paper_figures)."""

from safebandits.plotting import paper_figures  # noqa: F401
