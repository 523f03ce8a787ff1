"""The library's own named instance, ``user/declared`` (a declared problem run by name;
:mod:`safebandits.problems.zoo.declared`, registered by the instance registry). The papers' instances
live in their packages (``safebandits.papers.<paper>.instances``) and are registered when the papers are
loaded (entry-point group ``safebandits.papers``; :func:`safebandits.problems.registry.list_instances`
loads them)."""
