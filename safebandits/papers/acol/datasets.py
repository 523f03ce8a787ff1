"""The data set of Lindner et al. 2022 (ACOL)'s driving experiment: the authors' 1000 released driving
policies, registered with the library's data registry (:mod:`safebandits.datasets`). No source to
fetch from: the folder is given (``SAFEBANDITS_DATA`` or ``data_dir``)."""

from __future__ import annotations

from safebandits.datasets import DatasetEntry, register_dataset

__all__: list[str] = []

register_dataset(
    DatasetEntry(
        name="acol_driver",
        folder="acol_driver",
        files={
            "driver_candidate_policies_1000.npy": (
                "9cd7b1f56df53d99aaabf580e148099ddade98fa495d8710589162ee4afae4b8"
            )
        },
        optional={
            "driver_candidate_policies_1000.pkl": (
                "8d863d0aa1ffc3c79f0b5651b497152548e4c9c6989130e37b88727ea7a877a0"
            )
        },
        source=None,
        description="Lindner et al. (2022): the authors' 1000 released driving policies (NumPy conversion)",
        license="MIT (lasgroup/adaptive-constraint-learning)",
    )
)
