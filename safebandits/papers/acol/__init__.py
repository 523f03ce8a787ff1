"""Lindner et al. 2022 (ACOL) and the driving simulator: experiments, claims and report figures.

Discovered by the engine through the ``safebandits.papers`` entry point (pyproject.toml). Importing the
package registers its experiments and its digest's section 5 (``digest.py``: its citation, the claims
reading each item, the items no experiment reads); its claims and figures modules are imported when
needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.acol import (  # noqa: F401  (each registers on import)
    bounds,
    datasets,
    digest,
    driving,
    experiments,
    instances,
    instances_driving,
)

register_paper(
    "acol",
    __name__,
    claims=(
        "safebandits.papers.acol.claims",
        "safebandits.papers.acol.claims_driving",
    ),
    figures=("safebandits.papers.acol.figures",),
    **digest_fields(digest),
)
