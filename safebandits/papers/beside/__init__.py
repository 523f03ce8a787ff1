"""Camilleri et al. 2022 (BESIDE) and FDR-constrained classification: experiments, claims, figures.

Discovered by the engine through the ``safebandits.papers`` entry point (pyproject.toml). Importing the
package registers its experiments and its digest's section 5 (``digest.py``: its citation, the claims
reading each item, the items no experiment reads); its claims and figures modules are imported when
needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.beside import bounds, datasets, digest, experiments, fdr, instances, instances_fdr  # noqa: F401  (registers them)

register_paper(
    "beside",
    __name__,
    claims=(
        "safebandits.papers.beside.claims",
        "safebandits.papers.beside.claims_fdr",
    ),
    figures=(
        "safebandits.papers.beside.figures",
        "safebandits.papers.beside.figures_fdr",
    ),
    **digest_fields(digest),
)
