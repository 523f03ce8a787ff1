"""Top-down pictures of driving policies (the layout of Figure 1 of Lindner et al. 2022).

Pure functions: :func:`draw_policy` draws one policy's trajectory on a given Axes (road, lanes, the
other cars along their trajectories, the agent's positions); :func:`policies_figure` puts several
side by side. Figures are :class:`matplotlib.figure.Figure` objects (Agg canvas, no pyplot state).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from safebandits.papers.acol.simulator.dynamics import (
    LANE_CENTRES,
    LANE_WIDTH,
    ROAD_HALF_WIDTH,
    DrivingConfig,
    Scenario,
    car_trajectories,
    check_policies,
    rollout,
)
from safebandits.papers.acol.simulator.features import policy_features

__all__ = ["draw_policy", "policies_figure"]

CAR_LENGTH, CAR_WIDTH = 0.1, 0.055
AGENT_COLOUR, OTHER_COLOUR = "#e6550d", "#f0f0f0"


def _car(ax: Axes, state: np.ndarray, colour: str, alpha: float, zorder: int) -> None:
    x, y, phi = float(state[0]), float(state[1]), float(state[2])
    rect = Rectangle(
        (x - CAR_WIDTH / 2, y - CAR_LENGTH / 2),
        CAR_WIDTH,
        CAR_LENGTH,
        angle=float(np.degrees(phi - np.pi / 2)),
        rotation_point="center",
        facecolor=colour,
        edgecolor="black",
        linewidth=0.6,
        alpha=alpha,
        zorder=zorder,
    )
    ax.add_patch(rect)


def draw_policy(
    ax: Axes,
    policy: object,
    scenario: Scenario,
    config: DrivingConfig | None = None,
    *,
    title: str = "",
    show_values: bool = True,
) -> Axes:
    """Draw the trajectory of ``policy`` (shape ``(horizon, 2)``) in ``scenario`` on ``ax``.

    The agent (orange) and the other cars (white) are drawn at every step, fading towards the start;
    the agent's path is a line with one marker per step. With ``show_values`` the reward
    ``theta^T f`` and the constraint value ``phi^T f`` (feasible iff <= tau) go in the title.
    """
    config = DrivingConfig() if config is None else config
    pol = check_policies(policy, config.horizon, "policy")
    states = rollout(scenario.start, pol, config)[0]
    cars = car_trajectories(scenario, config)
    path = np.vstack([np.asarray(scenario.start)[None], states])
    y_lo = min(path[:, 1].min(), cars[..., 1].min()) - 0.15
    y_hi = max(path[:, 1].max(), cars[..., 1].max()) + 0.15
    ax.set_facecolor("#7fbf7f")
    ax.add_patch(
        Rectangle((-ROAD_HALF_WIDTH, y_lo - 1), 2 * ROAD_HALF_WIDTH, y_hi - y_lo + 2, color="#666666")
    )
    for c in LANE_CENTRES[:-1]:
        ax.plot([c + LANE_WIDTH / 2] * 2, [y_lo - 1, y_hi + 1], color="white", linestyle="--", linewidth=1)
    for edge in (-ROAD_HALF_WIDTH, ROAD_HALF_WIDTH):
        ax.plot([edge] * 2, [y_lo - 1, y_hi + 1], color="white", linewidth=1.5)
    n = states.shape[0]
    for t in range(0, n, 2):
        alpha = 0.25 + 0.75 * (t + 1) / n
        for car in cars:
            _car(ax, car[t], OTHER_COLOUR, alpha, 3)
    for t in range(0, n, 2):
        _car(ax, states[t], AGENT_COLOUR, 0.25 + 0.75 * (t + 1) / n, 4)
    ax.plot(path[:, 0], path[:, 1], color="#7f2704", marker="o", markersize=2.5, linewidth=1.2, zorder=5)
    ax.set_xlim(-0.6, 0.6)
    ax.set_ylim(y_lo, y_hi)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    if show_values:
        f = policy_features(pol, scenario, config)[0, :8]
        reward, cost = float(f @ scenario.reward), float(f @ scenario.constraint)
        flag = "feasible" if cost <= scenario.threshold else "infeasible"
        title = f"{title}\nreward {reward:.3f}, constraint {cost:.2f} ({flag})".strip()
    ax.set_title(title, fontsize=8)
    return ax


def policies_figure(
    panels: Sequence[tuple[str, object, Scenario]] | Mapping[str, tuple[object, Scenario]],
    config: DrivingConfig | None = None,
    *,
    title: str = "",
) -> Figure:
    """Side-by-side pictures: ``panels`` is a sequence of ``(title, policy, scenario)``."""
    items = [(k, *v) for k, v in panels.items()] if isinstance(panels, Mapping) else list(panels)
    fig = Figure(figsize=(2.4 * max(len(items), 1) + 0.3, 5.2), layout="constrained")
    axes = fig.subplots(1, max(len(items), 1), squeeze=False)[0]
    for ax, (name, policy, scenario) in zip(axes, items):
        draw_policy(ax, policy, scenario, config, title=name)
    lo = min(ax.get_ylim()[0] for ax in axes)
    hi = max(ax.get_ylim()[1] for ax in axes)
    for ax in axes:  # one scale for all panels
        ax.set_ylim(lo, hi)
    # Equal aspect: the panels are (hi - lo) / 1.2 times as tall as wide; size the figure to match, so no
    # band of the image stays empty (plus room for the two-line titles).
    panel_w = 2.4
    fig.set_size_inches(
        fig.get_figwidth(), min(14.0, panel_w * (hi - lo) / 1.2 + 0.75 + (0.25 if title else 0))
    )
    if title:
        fig.suptitle(title, fontsize=10)
    return fig
