"""Wu, Shariff, Lattimore & Szepesvari 2016 (Conservative Bandits): instances, experiments and claims.

Discovered by the engine through the ``safebandits.papers`` entry point (pyproject.toml). Importing the
package registers its instance, its experiments and its digest's section 5; its claims module is imported
when needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.conservative_ucb import (  # noqa: F401  (each registers on import)
    digest,
    experiments,
    instances,
)

register_paper(
    "conservative_ucb",
    __name__,
    claims=("safebandits.papers.conservative_ucb.claims",),
    **digest_fields(digest),
)
