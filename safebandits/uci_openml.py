"""The OpenML route of ``safebandits data fetch``: OpenML tables written back as the raw UCI files.

OpenML holds UCI Adult as data set 1590 (``adult``, version 2: ``adult.data`` and ``adult.test``
concatenated, 48,842 rows, ``?`` decoded as missing) and UCI Statlog German Credit as data set 31
(``credit-g``, version 1: the 1,000 rows of ``german.data`` with the attribute codes ``A11``... decoded
to words such as ``'<0'``). scikit-learn's :func:`~sklearn.datasets.fetch_openml` returns them as
pandas frames. The functions here turn such a frame back into the byte layout of the UCI files that
:mod:`safebandits.classification.data` reads, so the registry's SHA-256 of the UCI files checks the
result and the loaders need no second parser:

* ``adult.data``: 32,561 records ``v1, v2, ..., <=50K`` (``", "``-separated, missing values ``?``,
  integers without decimals), then an empty line; ``adult.test``: the line ``|1x3 Cross validator``,
  16,281 records whose label ends with ``.``, an empty line. Which rows of the OpenML table came from
  which file is not recorded there, so both splits of the concatenation (train first, test first) are
  returned as candidates and the checksums pick one.
* ``german.data``: 1,000 records ``A11 6 A34 ... 1`` (space-separated; the words are mapped to the
  UCI codes through the value lists of the attributes, in UCI code order; class good = 1, bad = 2).

Anything unexpected (other columns, row counts, values) raises :class:`OpenMLFormatError`, a
:class:`~safebandits.exceptions.SafeBanditsError`, so ``data fetch`` falls back to the wheel route.
"""

from __future__ import annotations

import numbers
from typing import Any

import pandas as pd

from safebandits.exceptions import SafeBanditsError

__all__ = [
    "ADULT_COLUMNS",
    "ADULT_N_TEST",
    "ADULT_N_TRAIN",
    "GERMAN_CODES",
    "OpenMLFormatError",
    "adult_files",
    "german_files",
]

#: Columns of the UCI Adult files, in file order; the last is the label (read by
#: :func:`safebandits.classification.data.load_adult`).
ADULT_COLUMNS = (
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
)
#: Records of ``adult.data`` and ``adult.test``.
ADULT_N_TRAIN = 32_561
ADULT_N_TEST = 16_281
_ADULT_TEST_HEADER = "|1x3 Cross validator"
#: Feature columns of the UCI files, in file order (the loader's names without the label).
_ADULT_COLUMNS = ADULT_COLUMNS[:-1]
_ADULT_LABELS = ("<=50K", ">50K")

#: German Credit: OpenML ``credit-g`` attribute -> its values in UCI code order -> UCI code. ``None``
#: marks a numeric attribute. The order of the keys is the column order of ``german.data``.
GERMAN_CODES: dict[str, dict[str, str] | None] = {
    "checking_status": {"<0": "A11", "0<=X<200": "A12", ">=200": "A13", "no checking": "A14"},
    "duration": None,
    "credit_history": {
        "no credits/all paid": "A30",
        "all paid": "A31",
        "existing paid": "A32",
        "delayed previously": "A33",
        "critical/other existing credit": "A34",
    },
    "purpose": {
        "new car": "A40",
        "used car": "A41",
        "furniture/equipment": "A42",
        "radio/tv": "A43",
        "domestic appliance": "A44",
        "repairs": "A45",
        "education": "A46",
        "vacation": "A47",
        "retraining": "A48",
        "business": "A49",
        "other": "A410",
    },
    "credit_amount": None,
    "savings_status": {
        "<100": "A61",
        "100<=X<500": "A62",
        "500<=X<1000": "A63",
        ">=1000": "A64",
        "no known savings": "A65",
    },
    "employment": {"unemployed": "A71", "<1": "A72", "1<=X<4": "A73", "4<=X<7": "A74", ">=7": "A75"},
    "installment_commitment": None,
    "personal_status": {
        "male div/sep": "A91",
        "female div/dep/mar": "A92",
        "male single": "A93",
        "male mar/wid": "A94",
        "female single": "A95",
    },
    "other_parties": {"none": "A101", "co applicant": "A102", "guarantor": "A103"},
    "residence_since": None,
    "property_magnitude": {
        "real estate": "A121",
        "life insurance": "A122",
        "car": "A123",
        "no known property": "A124",
    },
    "age": None,
    "other_payment_plans": {"bank": "A141", "stores": "A142", "none": "A143"},
    "housing": {"rent": "A151", "own": "A152", "for free": "A153"},
    "existing_credits": None,
    "job": {
        "unemp/unskilled non res": "A171",
        "unskilled resident": "A172",
        "skilled": "A173",
        "high qualif/self emp/mgmt": "A174",
    },
    "num_dependents": None,
    "own_telephone": {"none": "A191", "yes": "A192"},
    "foreign_worker": {"yes": "A201", "no": "A202"},
}
_GERMAN_CLASS = {"good": "1", "bad": "2"}


class OpenMLFormatError(SafeBanditsError):
    """An OpenML table does not have the layout this module converts."""


def _key(name: str) -> str:
    return "".join(ch for ch in str(name).lower() if ch.isalnum())


def _columns(frame: Any, wanted: tuple[str, ...], target: tuple[str, ...], what: str) -> list[Any]:
    """The frame's columns for ``wanted`` + one of ``target``, matched by name (case, ``-``/``_`` ignored)."""
    by_key = {_key(c): c for c in frame.columns}
    missing = [w for w in wanted if _key(w) not in by_key]
    label = next((by_key[_key(t)] for t in target if _key(t) in by_key), None)
    if missing or label is None:
        raise OpenMLFormatError(
            f"The OpenML {what} table lacks the column(s) {missing or list(target)}; "
            f"it has {list(frame.columns)}."
        )
    return [by_key[_key(w)] for w in wanted] + [label]


def _text(value: Any) -> str | None:
    """A cell as UCI text: ``None`` for missing, integral numbers without decimals, words unquoted."""
    if value is None or (not isinstance(value, str) and pd.isna(value)):
        return None
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        if not float(value).is_integer():
            raise OpenMLFormatError(f"Expected an integer value, got {value!r}.")
        return str(int(value))
    s = str(value).strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        s = s[1:-1]
    return s if s else None


def _records(frame: Any, cols: list[Any]) -> list[list[str | None]]:
    sub = frame[cols].astype(object)
    return [[_text(v) for v in row] for row in sub.itertuples(index=False, name=None)]


def adult_files(frame: Any) -> list[dict[str, bytes]]:
    """``adult.data`` and ``adult.test`` from the OpenML ``adult`` table (data set 1590).

    Returns two candidate layouts (train rows first, test rows first); the caller keeps the one whose
    files have the registered checksums.
    """
    cols = _columns(frame, _ADULT_COLUMNS, ("class", "income"), "adult")
    records = _records(frame, cols)
    if len(records) != ADULT_N_TRAIN + ADULT_N_TEST:
        raise OpenMLFormatError(
            f"The OpenML adult table has {len(records)} rows, expected {ADULT_N_TRAIN + ADULT_N_TEST}."
        )
    lines = []
    for rec in records:
        label = (rec[-1] or "").rstrip(".")
        if label not in _ADULT_LABELS:
            raise OpenMLFormatError(f"Unexpected adult label {rec[-1]!r}.")
        lines.append((", ".join("?" if v is None else v for v in rec[:-1]), label))

    def data(rows):
        return ("".join(f"{x}, {y}\n" for x, y in rows) + "\n").encode()

    def test(rows):
        return (_ADULT_TEST_HEADER + "\n" + "".join(f"{x}, {y}.\n" for x, y in rows) + "\n").encode()

    train_first = {"adult.data": data(lines[:ADULT_N_TRAIN]), "adult.test": test(lines[ADULT_N_TRAIN:])}
    test_first = {"adult.data": data(lines[ADULT_N_TEST:]), "adult.test": test(lines[:ADULT_N_TEST])}
    return [train_first, test_first]


def german_files(frame: Any) -> list[dict[str, bytes]]:
    """``german.data`` from the OpenML ``credit-g`` table (data set 31); a single candidate layout."""
    cols = _columns(frame, tuple(GERMAN_CODES), ("class",), "credit-g")
    out = []
    for rec in _records(frame, cols):
        fields = []
        for (name, codes), value in zip(GERMAN_CODES.items(), rec[:-1]):
            if value is None:
                raise OpenMLFormatError(f"credit-g has a missing {name!r}.")
            if codes is None:
                fields.append(value)
            elif value in codes:
                fields.append(codes[value])
            else:
                raise OpenMLFormatError(f"Unknown credit-g value {value!r} of {name!r}.")
        if rec[-1] not in _GERMAN_CLASS:
            raise OpenMLFormatError(f"Unknown credit-g class {rec[-1]!r}.")
        fields.append(_GERMAN_CLASS[rec[-1]])
        out.append(" ".join(fields) + "\n")
    return [{"german.data": "".join(out).encode()}]
