"""Figures and the HTML report (the papers register their own report figures: safebandits.papers)."""
