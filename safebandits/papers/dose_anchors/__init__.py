"""The library's own anchors for dose finding (issue 45): CRM and BOIN, the designs practitioners run, and
the certified dose-escalation design, on published scenarios of the CRM / BOIN literature.

Not a paper of the five: a package in the papers' shape (instances, a registered experiment, its claims and
figures) for the comparison the dose-finding learners are measured by. Discovered through the
``safebandits.papers`` entry point (pyproject.toml); importing it registers the instance ``anchors/dose``,
the solver ``dose-trials`` and the experiment ``dose-anchors``. The page: ``docs/dose_anchors.md``.
"""

from safebandits.experiments.papers import register_paper
from safebandits.papers.dose_anchors import (  # noqa: F401  (each registers on import)
    experiments,
    instances,
    trials,
)

register_paper(
    "dose_anchors",
    __name__,
    claims=("safebandits.papers.dose_anchors.claims",),
    figures=("safebandits.papers.dose_anchors.figures",),
)
