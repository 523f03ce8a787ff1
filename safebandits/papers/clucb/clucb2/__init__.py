"""Garcelon, Ghavamzadeh, Lazaric & Pirotta 2020 (Improved Algorithms for Conservative Exploration in
Bandits, AAAI 2020, arXiv:2002.03221): instances, experiments and claims, read from the abstract, the
start of Sec. 1 and a review's summary (digest ``docs/clucb2.md``; the library's reading where the text was
not read).

A sub-package of the CLUCB paper's package (it builds on that paper's instance), registered by it on import:
no entry point of its own. Importing it registers its instance, its experiments, its unstated settings and
its digest's section 5; its claims module is imported when needed.
"""

from safebandits.experiments.papers import digest_fields, register_paper
from safebandits.papers.clucb.clucb2 import (  # noqa: F401  (each registers on import)
    digest,
    experiments,
    instances,
    unstated,
)

register_paper(
    "clucb2", __name__, claims=("safebandits.papers.clucb.clucb2.claims",), **digest_fields(digest)
)
