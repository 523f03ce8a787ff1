"""The library's own named instances (a declared problem run by name). The papers' instances live in
their packages (``safebandits.papers.<paper>.instances``) and are registered when the papers are loaded
(entry-point group ``safebandits.papers``; :func:`safebandits.problems.registry.list_instances` loads
them)."""

from safebandits.problems.zoo import declared  # noqa: F401
