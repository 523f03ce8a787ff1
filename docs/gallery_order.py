"""Order of the gallery examples: the order a newcomer reads them in (used by docs/conf.py)."""

ORDER = [
    "plot_quickstart.py",
    "plot_own_problem.py",
    "plot_cross_paper_comparison.py",
    "plot_dose_finding.py",
    "plot_conservative_recommender.py",
    "plot_continuous_domain.py",
    "plot_plugin_learner.py",
    "plot_study_simulated_human.py",
    "*",
    "plot_dask_sweep.py",
]


class ExampleOrder:
    """Sort key for sphinx-gallery's ``within_subsection_order``: listed files first, in this order."""

    def __init__(self, src_dir: str) -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str) -> tuple[int, str]:
        rank = ORDER.index(filename) if filename in ORDER else ORDER.index("*")
        return rank, filename

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"
