"""Kazerouni, Ghavamzadeh, Abbasi-Yadkori & Van Roy 2017 (Conservative Contextual Linear Bandits):
instances, experiments and claims.

Discovered by the engine through the ``safebandits.papers`` entry point (pyproject.toml: an install made
before the entry point was added needs ``pip install -e .`` again). Importing the package registers its
instance, its experiments, its unstated settings and its digest's section 5; its claims module is imported
when needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.clucb import (  # noqa: F401  (each registers on import)
    digest,
    experiments,
    instances,
    unstated,
)

register_paper("clucb", __name__, claims=("safebandits.papers.clucb.claims",), **digest_fields(digest))

# Garcelon et al. 2020 (CLUCB2), built on this paper's instance: a paper of its own, registered from here
# (no entry point of its own, so no reinstall is needed to see it).
from safebandits.papers.clucb import clucb2  # noqa: E402, F401  (registers on import)
