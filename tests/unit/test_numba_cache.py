"""The guard against stale numba caches (safebandits/_numba_cache.py; docs/decisions/engine.md)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import pytest

import safebandits._numba_cache as nc

ROOT = Path(nc.__file__).resolve().parent


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _bump(path: Path, text: str | None = None) -> None:
    """Rewrite ``path`` (same text unless given) with a modification time one second later."""
    st = path.stat()
    if text is not None:
        path.write_text(text)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A tiny package: sources, numba cache files, and files the guard must never touch."""
    root = tmp_path / "pkg"
    _write(root / "__init__.py", "")
    _write(root / "a.py", "from pkg.b import g\n")
    _write(root / "b.py", "def g(): return 1\n")
    _write(root / "sub" / "c.py", "X = 1\n")
    _write(root / "cli" / "main.py", "print()\n")
    _write(root / "data.nbi", "not a cache: outside __pycache__")
    _write(root / "notes.txt", "keep")
    _write(root / "__pycache__" / "a.cpython-311.pyc", "bytecode")
    return root


def _make_caches(root: Path) -> list[Path]:
    return [
        _write(root / "__pycache__" / "a.f-3.py311.nbi", "index"),
        _write(root / "__pycache__" / "a.f-3.py311.1.nbc", "object code"),
        _write(root / "sub" / "__pycache__" / "c.h-1.py311.nbi", "index"),
    ]


def _kept(root: Path) -> dict[Path, str]:
    """Every file that is not a numba cache file in a __pycache__ (nor the guard's stamp / lock)."""
    ours = (".nbi", ".nbc", ".stamp", ".lock")
    return {
        p: p.read_text()
        for p in root.rglob("*")
        if p.is_file() and not (p.parent.name == "__pycache__" and p.suffix in ours)
    }


def test_a_changed_callee_purges_and_restamps_an_unchanged_tree_purges_nothing(tree: Path) -> None:
    caches = _make_caches(tree)
    kept = _kept(tree)
    assert nc.guard(str(tree), skip=frozenset({"cli"})) == "purged"  # (no stamp yet: caches of unknown age)
    assert not any(p.exists() for p in caches)
    assert _kept(tree) == kept  # sources, .pyc, data.nbi outside __pycache__, notes: untouched
    stamp = tree / "__pycache__" / nc.STAMP
    first = stamp.read_text()

    caches = _make_caches(tree)  # numba compiles and caches again
    assert nc.guard(str(tree), skip=frozenset({"cli"})) == "current"
    assert all(p.exists() for p in caches)
    assert stamp.read_text() == first

    _bump(tree / "b.py", "def g(): return 2\n")  # a callee in another file changes (git checkout)
    assert nc.guard(str(tree), skip=frozenset({"cli"})) == "purged"
    assert not any(p.exists() for p in caches)
    assert stamp.read_text() != first
    assert _kept(tree) == {**kept, tree / "b.py": "def g(): return 2\n"}


def test_same_contents_new_times_restamps_without_purging(tree: Path) -> None:
    nc.guard(str(tree))
    caches = _make_caches(tree)
    _bump(tree / "sub" / "c.py")  # (a checkout there and back: same bytes, new mtime)
    assert nc.guard(str(tree)) == "restamped"
    assert all(p.exists() for p in caches)
    assert nc.guard(str(tree)) == "current"


def test_skipped_subpackages_do_not_purge(tree: Path) -> None:
    nc.guard(str(tree), skip=frozenset({"cli"}))
    caches = _make_caches(tree)
    _bump(tree / "cli" / "main.py", "print(1)\n")
    assert nc.guard(str(tree), skip=frozenset({"cli"})) == "current"
    assert all(p.exists() for p in caches)


def test_opt_out(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    caches = _make_caches(tree)
    monkeypatch.setenv(nc.ENV_KEEP, "1")
    assert nc.guard(str(tree)) == "disabled"
    assert all(p.exists() for p in caches)
    assert not (tree / "__pycache__" / nc.STAMP).exists()
    monkeypatch.setenv(nc.ENV_KEEP, "0")
    assert nc.guard(str(tree)) == "purged"


def test_read_only_does_nothing_and_raises_nothing(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    caches = _make_caches(tree)
    monkeypatch.setattr(nc, "_writable", lambda cache_dir: False)
    assert nc.guard(str(tree)) == "read-only"
    assert all(p.exists() for p in caches)
    monkeypatch.undo()
    # a __pycache__ that cannot be a directory (and, when not root, a directory without write permission)
    other = tree.parent / "other"
    _write(other / "a.py", "")
    _write(other / "__pycache__", "a file")
    assert nc.guard(str(other)) == "read-only"
    if os.geteuid() != 0:
        locked = tree.parent / "locked"
        _write(locked / "a.py", "")
        (locked / "__pycache__").mkdir()
        (locked / "__pycache__").chmod(0o555)
        try:
            assert nc.guard(str(locked)) == "read-only"
        finally:
            (locked / "__pycache__").chmod(0o755)


def test_not_a_directory_tree_does_nothing(tmp_path: Path) -> None:
    assert nc.guard(str(tmp_path / "missing")) == "read-only"
    _write(tmp_path / "pkg.zip", "not a directory")
    assert nc.guard(str(tmp_path / "pkg.zip")) == "read-only"


def test_numba_cache_dir_warns_when_the_sources_changed(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tree.parent / "numba-cache"))
    with pytest.warns(RuntimeWarning, match="NUMBA_CACHE_DIR"):
        assert nc.guard(str(tree)) == "purged"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert nc.guard(str(tree)) == "current"  # (unchanged: no warning)


def test_the_lock_serialises_concurrent_purgers(tree: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes' workers start together on a changed tree: one purges, the other waits then finds
    the stamp current (without the lock both would purge, and overlap)."""
    _make_caches(tree)
    purge = nc._purge
    spans: list[tuple[float, float]] = []

    def slow_purge(root: str) -> int:
        t0 = time.perf_counter()
        time.sleep(0.3)
        n = purge(root)
        spans.append((t0, time.perf_counter()))
        return n

    monkeypatch.setattr(nc, "_purge", slow_purge)
    barrier = threading.Barrier(2)
    outcomes: list[str] = []

    def worker() -> None:
        barrier.wait()
        outcomes.append(nc.guard(str(tree)))

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["current", "purged"]
    assert len(spans) == 1


def test_every_module_with_compiled_code_is_in_the_fingerprint() -> None:
    """The subpackages left out of the fingerprint import no numba (compiled code cannot import them:
    they are above the engine in the layer contract)."""
    numba_use = re.compile(r"^\s*(import numba|from numba)|cache\s*=\s*True", re.MULTILINE)
    offenders = [
        str(p.relative_to(ROOT))
        for sub in nc.OUT_OF_REACH
        for p in (ROOT / sub).rglob("*.py")
        if numba_use.search(p.read_text(encoding="utf-8"))
    ]
    assert offenders == []
    listed = {rel for rel, _size, _mtime in nc.source_files(str(ROOT))}
    cached = {
        str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if "cache=True" in p.read_text(encoding="utf-8")
    }
    assert cached and cached <= listed
    assert {"estimators/ridge.py", "algorithms/pure_exploration/_g_acol_kernels.py"} <= listed


_GUARDED_INIT = """\
import importlib.util, os
if os.environ.get("PKGX_GUARD") == "1":  # (the guard's module by its path: no import of safebandits)
    spec = importlib.util.spec_from_file_location("_guard", {guard!r})
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.guard(os.path.dirname(__file__), skip=frozenset())
"""


def test_end_to_end_a_changed_callee_no_longer_runs_stale_compiled_code(tmp_path: Path) -> None:
    """numba's own check misses a callee changed in another file (the second run prints the old value);
    with the guard at import the third prints the new one."""
    pkg = tmp_path / "pkgx"
    _write(pkg / "__init__.py", _GUARDED_INIT.format(guard=nc.__file__))
    _write(
        pkg / "a.py",
        "from numba import njit\nfrom pkgx.b import value\n\n\n"
        "@njit(cache=True)\ndef f():\n    return value() + 1\n",
    )
    callee = _write(pkg / "b.py", "from numba import njit\n\n\n@njit\ndef value():\n    return 1\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_") and k != nc.ENV_KEEP}
    env["PYTHONPATH"] = str(tmp_path)

    def run(guarded: bool) -> str:
        out = subprocess.run(
            [sys.executable, "-c", "from pkgx.a import f; print(f())"],
            env={**env, "PKGX_GUARD": "1" if guarded else "0"},
            capture_output=True,
            text=True,
            check=True,
            timeout=120,
        )
        return out.stdout.strip()

    assert run(guarded=True) == "2"
    assert list((pkg / "__pycache__").glob("a.f-*.nbi"))  # numba cached f
    _bump(callee, "from numba import njit\n\n\n@njit\ndef value():\n    return 10\n")
    assert run(guarded=False) == "2"  # numba alone: the stale compiled code of f runs
    assert run(guarded=True) == "11"  # the guard purged it: f compiled again from the new callee
