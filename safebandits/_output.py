"""Output files written by commands: never destroy what is there, never leave half a file.

Every command that writes a file it is told to (``study export --out``, ``results --csv``,
``scoreboard --out``, ``driving render --out``) checks the path first, before anything is read or
computed (:func:`check_output_file`):

- an existing file is replaced only when the command was given ``--force``;
- a SQLite database (any: a study's storage, a results store, another application's), a SQLite side file
  (``-wal``, ``-shm``, ``-journal``) and any path the command names as protected (the study's own
  storage, the files of a results store) is never replaced, not even with ``--force``;
- a folder, or a path whose folder does not exist, is refused.

Then the content is written to a temporary file in the same folder and renamed over the path
(:func:`write_output`): a reader sees the old file or the whole new one, never a part, and a failed
write (disk full, an error while rendering) leaves the old file as it was. Without ``--force`` the
rename is a hard link that fails if the path appeared meanwhile, so a file created by another process
between the check and the write is not replaced either.

The database check asks SQLite (:func:`safebandits._sqlite.is_sqlite_database`), never a plain
``open()`` of the file, so checking a database this process has open does not drop its locks.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterable
from pathlib import Path

from safebandits._sqlite import is_sqlite_database
from safebandits.exceptions import ConfigError

__all__ = ["check_output_file", "protected_reason", "write_output"]

_SIDE_SUFFIXES = ("-wal", "-shm", "-journal")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except OSError:
        return False


def protected_reason(path: Path, protect: Iterable[tuple[Path, str]] = ()) -> str | None:
    """Why ``path`` must never be overwritten (``None`` if it may be, given ``--force``).

    ``protect``: ``(path, description)`` pairs the command names (e.g. the study's own storage).
    """
    for other, what in protect:
        if _same_file(path, other):
            return what
    if path.exists() and is_sqlite_database(path):
        return "a SQLite database"
    for suffix in _SIDE_SUFFIXES:
        if path.name.endswith(suffix):
            base = path.with_name(path.name[: -len(suffix)])
            if base.exists() and is_sqlite_database(base):
                return f"a side file of the SQLite database {str(base)!r}"
    return None


def check_output_file(
    path: str | os.PathLike[str],
    option: str,
    *,
    force: bool = False,
    protect: Iterable[tuple[Path, str]] = (),
) -> Path:
    """Check an output path before anything is read or written; return it as a :class:`Path`.

    Raises :class:`ConfigError` (one line naming the path and what to do) for a folder, a missing
    folder, a protected file (even with ``force``) and an existing file without ``force``.
    """
    out = Path(path)
    shown = f"{option} {str(path)!r}"
    if out.is_dir():
        raise ConfigError(f"{shown} is a folder; give the path of a file.")
    parent = out.resolve().parent
    if not parent.is_dir():
        raise ConfigError(f"{shown}: the folder {str(parent)!r} does not exist; create it first.")
    reason = protected_reason(out, list(protect))
    if reason is not None:
        raise ConfigError(
            f"{shown} is {reason}; it is never overwritten, not even with --force. Choose another path."
        )
    if (out.exists() or out.is_symlink()) and not force:
        raise ConfigError(f"{shown} exists; pass --force to replace it, or choose another path.")
    return out


def write_output(
    path: Path,
    write: Callable[[Path], None] | str | bytes,
    *,
    force: bool = False,
    protect: Iterable[tuple[Path, str]] = (),
) -> None:
    """Write ``path`` atomically: ``write(tmp)`` (or the text / bytes given) fills a temporary file in
    the same folder, which is then renamed over ``path``.

    Without ``force`` the new file is linked into place and the write fails if ``path`` appeared since
    :func:`check_output_file`; with it, a protected file that appeared meanwhile is still refused.
    """
    protect = list(protect)
    tmp = path.parent / f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        if isinstance(write, str):
            tmp.write_text(write, encoding="utf-8")
        elif isinstance(write, bytes):
            tmp.write_bytes(write)
        else:
            write(tmp)
        with open(tmp, "rb+") as fh:  # (the new file only: never a database another handle has open)
            os.fsync(fh.fileno())
        if force:
            reason = protected_reason(path, protect)
            if reason is not None:
                raise ConfigError(f"{str(path)!r} is {reason}; it is never overwritten. Nothing was written.")
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise ConfigError(
                    f"{str(path)!r} appeared while it was being written; nothing was replaced. Pass --force "
                    "to replace it."
                ) from None
            except OSError:  # (no hard links on this file system)
                if path.exists():
                    raise ConfigError(f"{str(path)!r} exists; pass --force to replace it.") from None
                os.replace(tmp, path)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
