"""Amani et al. 2019 (Safe-LUCB): experiments, claims and report figures.

Discovered by the engine through the ``safebandits.papers`` entry point (pyproject.toml). Importing the
package registers its experiments and its digest's section 5 (``digest.py``: its citation, the claims
reading each item, the items no experiment reads); its claims and figures modules are imported when
needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.safe_lucb import (  # noqa: F401  (each registers on import)
    bounds,
    digest,
    experiments,
    instances,
)

register_paper(
    "safe_lucb",
    __name__,
    claims=("safebandits.papers.safe_lucb.claims",),
    figures=("safebandits.papers.safe_lucb.figures",),
    **digest_fields(digest),
)
