"""The version of safebandits: the one place it is written (the package, its build metadata, the results
store and the studies read it from here)."""

__version__ = "0.1.0"
