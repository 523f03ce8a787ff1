"""Plugins: modules a user imports to register their own learners, instances or experiments.

``safebandits --plugin MODULE`` (before or after the subcommand, or ``SAFEBANDITS_PLUGINS``) and
:func:`load_plugins` import MODULE with the current folder on ``sys.path`` (as ``python -m`` would), so a
``myplug.py`` next to the user's experiment file is found. The names loaded in this process are
remembered (:func:`active_plugins`); the executors pass them, with the folders they were found from, to
their worker processes (local pool and Dask), which import them before running a task
(:func:`import_plugins`). An experiment spec therefore does not need to list its plugins.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Iterable

from safebandits.exceptions import ConfigError

__all__ = [
    "PLUGINS_ENV",
    "active_plugins",
    "import_plugins",
    "load_plugins",
    "parse_plugin_names",
    "plugin_files",
    "plugin_path",
]

#: Environment variable holding plugin module names (separated by whitespace or commas).
PLUGINS_ENV = "SAFEBANDITS_PLUGINS"

_LOADED: list[str] = []
_PATH: list[str] = []


def parse_plugin_names(value: str | Iterable[str]) -> list[str]:
    """Module names of a ``--plugin`` value or of ``SAFEBANDITS_PLUGINS`` (whitespace or commas).

    Raises
    ------
    ConfigError
        A name is not a dotted Python module name.
    """
    items = [value] if isinstance(value, str) else list(value)
    names = []
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"A plugin must be given as a module name string. Got {item!r} instead.")
        for name in item.replace(",", " ").split():
            if not all(part.isidentifier() for part in name.split(".")):
                raise ConfigError(
                    f"The plugin {name!r} is not a Python module name (dotted identifiers, e.g. 'myplug' or "
                    "'mypkg.learners'). Give the module name, not a file path: for myplug.py in the current "
                    "folder, use --plugin myplug."
                )
            names.append(name)
    return names


def _ensure_path(entries: Iterable[str]) -> None:
    for entry in entries:
        if entry not in sys.path:
            sys.path.insert(0, entry)


def load_plugins(names: str | Iterable[str], *, cwd: bool = True) -> list[str]:
    """Import plugin modules in this process and remember them for worker processes.

    Parameters
    ----------
    names : str or iterable of str
        Module names (``"myplug"``, ``"mypkg.learners"``; a string may hold several, separated by
        whitespace or commas).
    cwd : bool, default=True
        Put the current folder on ``sys.path`` first, so that a ``myplug.py`` found there is importable.

    Returns
    -------
    list of str
        The names imported.

    Raises
    ------
    ConfigError
        A module cannot be imported (its name and the reason are in the message).
    """
    wanted = parse_plugin_names(names)
    if cwd and wanted:
        here = os.getcwd()
        if here not in _PATH:
            _PATH.append(here)
        _ensure_path([here])
    for name in wanted:
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ConfigError(
                f"Cannot import plugin {name!r}: {exc}. The plugin must be a module importable from the "
                f"current folder ({os.getcwd()}) or from the Python path."
            ) from None
        if name not in _LOADED:
            _LOADED.append(name)
    return wanted


def active_plugins() -> tuple[str, ...]:
    """Plugin modules loaded in this process with :func:`load_plugins`, in import order."""
    return tuple(_LOADED)


def plugin_path() -> tuple[str, ...]:
    """Folders :func:`load_plugins` put on ``sys.path`` (passed to worker processes)."""
    return tuple(_PATH)


def plugin_files() -> list[str]:
    """Files of the loaded plugins that are single modules found in a :func:`plugin_path` folder.

    The Dask executor uploads them to the workers of a remote scheduler (``Client.upload_file``), which
    cannot see this machine's current folder. Installed plugins and packages are not included: they must
    be installed on the workers.
    """
    folders = {os.path.realpath(p) for p in _PATH}
    files = []
    for name in _LOADED:
        path = getattr(sys.modules.get(name), "__file__", None)
        if (
            "." not in name
            and path is not None
            and path.endswith(".py")
            and os.path.basename(path) != "__init__.py"
            and os.path.realpath(os.path.dirname(path)) in folders
        ):
            files.append(path)
    return files


def import_plugins(names: Iterable[str], path: Iterable[str] = ()) -> None:
    """Worker side: put ``path`` on ``sys.path`` and import the plugin modules not imported yet.

    Called before every task by the executors' task function (a no-op once the modules are loaded).
    """
    missing = [n for n in names if n not in sys.modules]
    if not missing:
        return
    _ensure_path(path)
    for name in missing:
        importlib.import_module(name)
