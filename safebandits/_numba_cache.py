"""Guard against stale numba caches: purge the package's own cache files when its sources changed.

numba's on-disk cache (``cache=True``: a ``*.nbi`` index and ``*.nbc`` object files in the
``__pycache__`` beside each module) is checked only against the file that defines the cached function.
A change to a callee, an inlined function or a record type defined in *another* file leaves the cache
valid in numba's eyes, and the old compiled code keeps running (numba's documented limitation: "cache
invalidation fails to recognize changes in symbols defined in a different file"). After a ``git
checkout`` that changes only ``_g_acol_kernels.py``, G-ACOL's cached kernels would run the old code,
and a run stored under the new revision would hold the old code's results.

:func:`guard` runs once at ``import safebandits``: it takes a cheap fingerprint of the package's sources
that compiled code can reach (the relative path, size and ``mtime_ns`` of every ``.py`` file, about a
millisecond) and compares it with a stamp kept beside the caches (``safebandits/__pycache__/
numba-sources.stamp``). Only when they differ does it take a file lock (``filelock``: the workers of a
run that start together wait for one of them), compare a hash of the sources' contents (so that a
checkout that rewrites identical files purges nothing), delete the ``*.nbi`` and ``*.nbc`` files in the
package's own ``__pycache__`` directories (nothing else) if the contents changed, and write the new
stamp. numba then compiles again, from the current sources, and caches again.

Nothing of numba's is changed (no setting, no hook, no numba import here). ``SAFEBANDITS_KEEP_NUMBA_CACHE=1``
turns the guard off (for users who manage the caches themselves). When the package directory is not
writable, numba keeps its caches in a user-wide directory whose layout it does not document, and the
guard does nothing; when ``NUMBA_CACHE_DIR`` is set, numba keeps them there, and the guard warns when the
sources changed (docs/decisions/engine.md, "Stale numba caches").
"""

from __future__ import annotations

import os

__all__ = ["ENV_KEEP", "OUT_OF_REACH", "cache_files", "guard", "source_files"]

#: Set to a non-empty value other than ``0``: the guard does nothing.
ENV_KEEP = "SAFEBANDITS_KEEP_NUMBA_CACHE"
#: Subpackages above the engine in the layer contract (pyproject.toml): they hold no compiled code and
#: compiled code cannot import them, so editing them does not purge (tests/test_numba_cache.py checks).
OUT_OF_REACH = frozenset({"plotting", "papers", "cli", "study", "dashboard"})
STAMP = "numba-sources.stamp"
LOCK = "numba-sources.lock"
_CACHE_SUFFIXES = (".nbi", ".nbc")
_PYCACHE = "__pycache__"


def source_files(root: str, skip: frozenset[str] = OUT_OF_REACH) -> list[tuple[str, int, int]]:
    """``(path relative to root, size, mtime_ns)`` of every ``.py`` file under ``root``, sorted; the
    subpackages of ``root`` named in ``skip`` (first level only) and ``__pycache__`` are left out."""
    out: list[tuple[str, int, int]] = []

    def walk(path: str, rel: str, top: bool) -> None:
        with os.scandir(path) as entries:
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    if e.name != _PYCACHE and not (top and e.name in skip):
                        walk(e.path, rel + e.name + "/", False)
                elif e.name.endswith(".py"):
                    st = e.stat()
                    out.append((rel + e.name, st.st_size, st.st_mtime_ns))

    walk(root, "", True)
    out.sort()
    return out


def _stat_digest(files: list[tuple[str, int, int]]) -> str:
    """The listing itself (one line a file; stored whole: no hash module to import on the common path)."""
    return "\n".join(f"{rel}\t{size}\t{mtime}" for rel, size, mtime in files)


def _content_digest(root: str, files: list[tuple[str, int, int]]) -> str:
    import hashlib

    h = hashlib.sha256()
    for rel, _size, _mtime in files:
        h.update(rel.encode() + b"\0")
        with open(os.path.join(root, rel), "rb") as f:
            h.update(hashlib.sha256(f.read()).digest())
    return h.hexdigest()


def cache_files(root: str) -> list[str]:
    """The numba cache files (``*.nbi``, ``*.nbc``) directly in a ``__pycache__`` directory under ``root``."""
    found: list[str] = []
    for dirpath, dirnames, filenames in os.walk(root):  # (os.walk follows no symlinked directory)
        if os.path.basename(dirpath) == _PYCACHE:
            found += [os.path.join(dirpath, n) for n in filenames if n.endswith(_CACHE_SUFFIXES)]
            dirnames[:] = []
    return found


def _purge(root: str) -> int:
    n = 0
    for path in cache_files(root):
        try:
            os.unlink(path)
            n += 1
        except FileNotFoundError:  # (another process, or numba replacing its file)
            pass
    return n


def _read_stamp(path: str) -> tuple[str, str] | None:
    """``(stat listing, content digest)`` of the stamp file (first line: the digest), or ``None``."""
    try:
        with open(path, encoding="utf-8") as f:
            content_digest, _, stat_digest = f.read().partition("\n")
    except (OSError, UnicodeDecodeError):
        return None
    return (stat_digest, content_digest) if len(content_digest) == 64 else None


def _write_stamp(path: str, stat_digest: str, content_digest: str) -> None:
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(f"{content_digest}\n{stat_digest}")
    os.replace(tmp, path)  # (readers see the old stamp or the new one, never half of one)


def _writable(cache_dir: str) -> bool:
    try:
        os.makedirs(cache_dir, exist_ok=True)
    except OSError:
        return False
    return os.path.isdir(cache_dir) and os.access(cache_dir, os.W_OK | os.X_OK)


def guard(root: str | None = None, *, skip: frozenset[str] = OUT_OF_REACH, timeout: float = 600.0) -> str:
    """Purge the numba caches under ``root`` (default: this package) if its sources changed since the
    stamp was written. Returns what it did: ``"disabled"`` (:data:`ENV_KEEP` set), ``"current"`` (the
    stamp matches: nothing done), ``"read-only"`` (no writable ``__pycache__``, or ``root`` is not a
    directory tree: nothing done),
    ``"restamped"`` (new file times, same contents: stamp rewritten, nothing purged) or ``"purged"``."""
    if os.environ.get(ENV_KEEP, "") not in ("", "0"):
        return "disabled"
    root = os.path.dirname(os.path.abspath(__file__)) if root is None else root
    cache_dir = os.path.join(root, _PYCACHE)
    stamp = os.path.join(cache_dir, STAMP)
    try:
        files = source_files(root, skip)
    except OSError:  # (not a directory tree: a zip import, a frozen application)
        return "read-only"
    stat_digest = _stat_digest(files)
    stored = _read_stamp(stamp)
    if stored is not None and stored[0] == stat_digest:
        return "current"
    if not _writable(cache_dir):
        return "read-only"
    from filelock import FileLock, Timeout  # (only when the sources changed: keeps the import cheap)

    try:
        with FileLock(os.path.join(cache_dir, LOCK), timeout=timeout):
            files = source_files(root, skip)  # (again: another process may have purged meanwhile)
            stat_digest = _stat_digest(files)
            stored = _read_stamp(stamp)
            if stored is not None and stored[0] == stat_digest:
                return "current"
            content_digest = _content_digest(root, files)
            outcome = "restamped" if stored is not None and stored[1] == content_digest else "purged"
            if outcome == "purged":
                _purge(root)
            _write_stamp(stamp, stat_digest, content_digest)
    except Timeout:
        raise RuntimeError(
            f"safebandits waited {timeout:g} s for the lock {os.path.join(cache_dir, LOCK)} (held by another "
            f"process clearing stale numba caches); set {ENV_KEEP}=1 to skip the check"
        ) from None
    except PermissionError:  # (os.access said writable but the file system disagreed)
        return "read-only"
    if outcome == "purged" and os.environ.get("NUMBA_CACHE_DIR"):
        import warnings

        warnings.warn(
            f"safebandits' sources changed, but numba keeps its caches in NUMBA_CACHE_DIR="
            f"{os.environ['NUMBA_CACHE_DIR']!r}, which safebandits does not clear: delete that directory's "
            "entries for safebandits, or compiled kernels of the old sources may run",
            RuntimeWarning,
            stacklevel=2,
        )
    return outcome
