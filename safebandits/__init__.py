"""safebandits: bandits whose constraints are unknown.

Learn which actions are safe or feasible while finding the best one.

Every public name is importable from here (``safebandits.__all__`` lists them) but the submodules are
loaded lazily, on first access of a name: ``import safebandits`` costs a few milliseconds and loads
neither numpy, pandas, matplotlib nor numba. The names are listed once, in the stub ``__init__.pyi``,
which type checkers and IDEs read and ``lazy_loader.attach_stub`` turns into the module's
``__getattr__``, ``__dir__`` and ``__all__`` (PEP 562).

Before any compiled kernel can load, the import deletes the package's numba cache files if its sources
changed since they were written (:mod:`safebandits._numba_cache`: numba itself checks only the file that
defines a cached function, not its callees; ``SAFEBANDITS_KEEP_NUMBA_CACHE=1`` turns this off).

Examples
--------
>>> import safebandits as sb
>>> "g-acol" in sb.list_algorithms()
True
"""

from __future__ import annotations

import lazy_loader as _lazy

from safebandits._numba_cache import guard as _guard_numba_cache

_guard_numba_cache()

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
