"""Pacchiano et al. (stage-wise constraints): experiments and claims.

Discovered by the engine through the ``safebandits.papers`` entry point (pyproject.toml). Importing the
package registers its experiments and its digest's section 5 (``digest.py``: its citation, the claims
reading each item, the items no experiment reads); its claims and figures modules are imported when
needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.stagewise import (  # noqa: F401  (each registers on import)
    bounds,
    digest,
    experiments,
    instances,
    instances_function_class,
)

register_paper(
    "stagewise",
    __name__,
    claims=("safebandits.papers.stagewise.claims",),
    figures=(),
    **digest_fields(digest),
)
