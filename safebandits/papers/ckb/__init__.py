"""Zhou & Ji 2022 (CKB): experiments, claims and report figures.

Discovered by the engine through the ``safebandits.papers`` entry point (pyproject.toml). Importing the
package registers its experiments and its digest's section 5 (``digest.py``: its citation, the claims
reading each item, the items no experiment reads); its claims and figures modules are imported when
needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.ckb import (  # noqa: F401  (each registers on import)
    bounds,
    datasets,
    digest,
    experiments,
    instances,
)

register_paper(
    "ckb",
    __name__,
    claims=("safebandits.papers.ckb.claims",),
    figures=("safebandits.papers.ckb.figures",),
    **digest_fields(digest),
)
