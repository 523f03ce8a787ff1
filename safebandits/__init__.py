"""safebandits: bandits whose constraints are unknown.

Learn which actions are safe or feasible while finding the best one.

Every public name is importable from here (``safebandits.__all__`` lists them) but the submodules are
loaded lazily, on first access of a name: ``import safebandits`` costs a few milliseconds and loads
neither numpy, pandas, matplotlib nor numba. The names are listed once, in the stub ``__init__.pyi``,
which type checkers and IDEs read and ``lazy_loader.attach_stub`` turns into the module's
``__getattr__``, ``__dir__`` and ``__all__`` (PEP 562).

Examples
--------
>>> import safebandits as sb
>>> "g-acol" in sb.list_algorithms()
True
"""

from __future__ import annotations

import lazy_loader as _lazy

__getattr__, __dir__, __all__ = _lazy.attach_stub(__name__, __file__)
