"""The data sets of Zhou & Ji 2022 (CKB)'s real-data experiments: the light sensors and the finance
prices, from the GitHub repository ``sayakrc/Bayesian-Optimization-under-Heavy-tailed-Payoffs`` at a
pinned commit, registered with the library's data registry (:mod:`safebandits.datasets`). Checksums: the
data README's SHA256SUMS."""

from __future__ import annotations

from safebandits.datasets import DatasetEntry, Source, register_dataset

__all__: list[str] = []

_BOHT = (
    "https://raw.githubusercontent.com/sayakrc/Bayesian-Optimization-under-Heavy-tailed-Payoffs/"
    "673ce5ce40cabd95f0319e0a1b338044f160143e/"
)

register_dataset(
    DatasetEntry(
        name="light_sensors",
        folder="light_sensors",
        files={"iw_data_all.mat": "3d87e03ae8bc9e3f0a4abeb57c64933c7d3dee7476ac5c4f6ca28b4efc357c15"},
        optional={"light_sensors.npz": "f4e1aacddc6470fa221931a8e081b29a573fa2d348b9b4467e97371e4d64be97"},
        source=Source(kind="url", urls={"iw_data_all.mat": _BOHT + "iw_data_all.mat"}),
        description="CMU Intelligent Workplace light sensors (41 sensors)",
        license="unknown / not stated upstream",
    )
)
register_dataset(
    DatasetEntry(
        name="finance",
        folder="finance",
        files={"fin.csv": "e9f7d7c3a0ad4ada75e5b8fa3830c77ed0579232b45837438c671d83b1818199"},
        source=Source(kind="url", urls={"fin.csv": _BOHT + "fin.csv"}),
        description="Adjusted close prices of 29 DJIA stocks, 823 days",
        license="unknown / not stated upstream",
    )
)
