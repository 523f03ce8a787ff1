"""Small text and legend helpers shared by the figure modules."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

__all__ = ["legend_below", "wrapped", "wrapped_suptitle"]


def wrapped(text: str, width_in: float, fontsize: float = 10.0) -> str:
    """``text`` broken into lines that fit ``width_in`` inches at ``fontsize`` points (about 0.55 em per
    character)."""
    chars = max(20, int(width_in * 72.0 / (0.55 * fontsize)))
    return "\n".join(textwrap.wrap(text, width=chars))


def wrapped_suptitle(fig: Figure, title: str, fontsize: float = 11.0) -> None:
    """A figure title wrapped to the figure's width (long experiment titles are not cut off)."""
    fig.suptitle(wrapped(title, fig.get_figwidth(), fontsize), fontsize=fontsize)


def legend_below(fig: Figure, axes: Iterable[Axes], max_cols: int, **kwargs: Any) -> None:
    """One legend below the panels (never over the data): each label of ``axes`` once, in order."""
    handles, names = [], []
    for ax in axes:
        for h, name in zip(*ax.get_legend_handles_labels()):
            if name not in names:
                handles.append(h)
                names.append(name)
    if handles:
        fig.legend(handles, names, loc="outside lower center", ncol=min(max_cols, len(names)), frameon=False,
                   **kwargs)  # fmt: skip
