"""Small text helpers shared by the figure modules."""

from __future__ import annotations

import textwrap

from matplotlib.figure import Figure

__all__ = ["wrapped", "wrapped_suptitle"]


def wrapped(text: str, width_in: float, fontsize: float = 10.0) -> str:
    """``text`` broken into lines that fit ``width_in`` inches at ``fontsize`` points (about 0.55 em per
    character)."""
    chars = max(20, int(width_in * 72.0 / (0.55 * fontsize)))
    return "\n".join(textwrap.wrap(text, width=chars))


def wrapped_suptitle(fig: Figure, title: str, fontsize: float = 11.0) -> None:
    """A figure title wrapped to the figure's width (long experiment titles are not cut off)."""
    fig.suptitle(wrapped(title, fig.get_figwidth(), fontsize), fontsize=fontsize)
