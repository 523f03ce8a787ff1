"""The options of a registered learner: its config dataclass fields, their defaults and their docs.

:func:`config_options` feeds ``safebandits list algorithms --verbose``; the descriptions come from the
numpydoc ``Parameters`` sections of the config class and of its bases.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from typing import Any, NamedTuple

from safebandits.algorithms.registry import AlgorithmEntry

__all__ = ["ConfigOption", "config_options"]

_MISSING = dataclasses.MISSING


class ConfigOption(NamedTuple):
    """One option of a learner: field ``name``, its ``type`` text, its ``default`` and a one-line ``doc``.

    ``default`` is the registry variant's preset value when it has one, else the field's default, else
    :data:`REQUIRED`. ``preset`` tells whether the variant presets it.
    """

    name: str
    type: str
    default: Any
    doc: str
    preset: bool


#: Default of an option without one.
REQUIRED = "(required)"


def _param_docs(cls: type) -> dict[str, tuple[str, str]]:
    """``name -> (type text, first line)`` from the numpydoc Parameters sections along the MRO."""
    docs: dict[str, tuple[str, str]] = {}
    for klass in reversed(cls.__mro__):
        text = inspect.cleandoc(klass.__dict__.get("__doc__") or "")
        match = re.search(r"^Parameters\n-+\n(.*?)(?:\n\n[A-Z][A-Za-z ]+\n-+\n|\Z)", text, flags=re.S | re.M)
        if not match:
            continue
        lines = match.group(1).splitlines()
        for i, line in enumerate(lines):
            head = re.match(r"^([A-Za-z_][\w, ]*?)\s*:\s*(.*)$", line)
            if not head or line.startswith(" "):
                continue
            body_lines = []
            for follow in lines[i + 1 :]:
                if follow and not follow.startswith(" "):
                    break
                body_lines.append(follow.strip())
            body = _first_sentence(" ".join(body_lines))
            for name in (n.strip() for n in head.group(1).split(",")):
                docs[name] = (head.group(2).strip(), body)
    return docs


def _first_sentence(text: str, limit: int = 110) -> str:
    """First sentence of a numpydoc description, without reST markup, at most ``limit`` characters."""
    text = re.sub(r":\w+:`~?(?:[\w.]*\.)?([^`]+)`", r"\1", text).replace("``", "")
    text = " ".join(text.split())
    cut = re.search(r"(?<=[.;])\s", text)
    if cut is not None:
        text = text[: cut.start()].rstrip(";")
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


def _type_text(field: dataclasses.Field[Any]) -> str:
    t = field.type
    return t if isinstance(t, str) else getattr(t, "__name__", repr(t))


def config_options(entry: AlgorithmEntry) -> list[ConfigOption]:
    """The options of a registered learner, in field order.

    Parameters
    ----------
    entry : AlgorithmEntry
        From :func:`~safebandits.algorithms.registry.get_algorithm`.

    Returns
    -------
    list of ConfigOption
    """
    cls = entry.cls.config_cls
    docs = _param_docs(cls)
    out = []
    for field in dataclasses.fields(cls):
        if not field.init:
            continue
        preset = field.name in entry.defaults
        if preset:
            default = entry.defaults[field.name]
        elif field.default is not _MISSING:
            default = field.default
        elif field.default_factory is not _MISSING:
            default = field.default_factory()
        else:
            default = REQUIRED
        type_text, doc = docs.get(field.name, (_type_text(field), ""))
        type_text = re.sub(r",?\s*default\b.*$", "", type_text).strip() or _type_text(field)
        out.append(ConfigOption(field.name, type_text.replace("``", ""), default, doc, preset))
    return out
