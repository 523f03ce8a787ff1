"""Robust to what the papers leave unsaid (issue 42): declared ranges of unstated settings, and a marker per
paper-scale verdict.

A paper package declares, for every setting a verdict may rest on that its paper does not give, a
plausible range fixed before the runs across it (:class:`UnstatedSetting`, :func:`register_unstated`).
The scoreboard scores each claim on the runs of the experiment's own seed with today's defaults (the
verdict), on runs of other experiment seeds (seed sets: ``safebandits run NAME --seed S``) and on runs
with a declared setting at another value of its range (``--set SETTING=VALUE``), and gives every pass or
fail a marker (:func:`robustness_marker`, :data:`MARKERS`):

``robust``
    the same verdict across at least :data:`MIN_SEED_SETS` seed sets and at every value of every declared
    range of the claim;
``depends on <setting>``
    the verdict differs across the declared range of ``<setting>`` (the verdict at each value is listed);
``fragile``
    the deciding margin is under :data:`FRAGILE_SE` standard error, or the verdict flips across seed sets;
``untested``
    not yet scored across the seed sets or a declared range (what is missing is listed): neither robust
    nor shown to depend.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from safebandits.exceptions import ConfigError

__all__ = [
    "FRAGILE_SE",
    "MARKERS",
    "MIN_SEED_SETS",
    "UNSTATED",
    "UnstatedSetting",
    "register_unstated",
    "robustness_marker",
    "setting_value",
    "split_variants",
    "unstated_for",
]

#: A pass or fail whose deciding margin is under this many standard errors is fragile.
FRAGILE_SE = 1.0
#: Seed sets (experiment seeds) a verdict must agree across to be robust.
MIN_SEED_SETS = 2
MARKERS = {
    "robust": f"the same verdict across at least {MIN_SEED_SETS} seed sets and across every declared range "
    "of an unstated setting the claim rests on",
    "depends on": "the verdict differs across the declared range of an unstated setting (verdict at each "
    "value listed)",
    "fragile": f"deciding margin under {FRAGILE_SE:g} standard error, or the verdict flips across seed sets",
    "untested": "not yet scored across the seed sets or the declared ranges (what is missing is listed)",
}


@dataclass(frozen=True)
class UnstatedSetting:
    """A setting a verdict rests on that the paper does not give, with its plausible range.

    Parameters
    ----------
    experiment : str
        The experiment.
    setting : str
        The run's config column (``"algorithm.gp_noise"``); runs at another value are made with
        ``--set SETTING=VALUE``.
    values : tuple
        The declared plausible range (today's default among them).
    paper_says : str
        What the paper says (or that it says nothing).
    claims : tuple of str
        The claim ids that rest on it; empty: every claim of the experiment.
    why : str
        Why these values.
    declared : str
        When the range was declared (before any run across it).
    default_value : optional
        The value of ``values`` that today's default stands for when the run's config stores the
        default as missing (a value derived at run time, e.g. BESIDE's other safety gap ``None`` =
        epsilon / 2 = 0.25); ``None`` when the config stores the value itself.
    """

    experiment: str
    setting: str
    values: tuple[Any, ...]
    paper_says: str
    claims: tuple[str, ...] = ()
    why: str = ""
    declared: str = ""
    default_value: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.setting, str) or "." not in self.setting:
            raise ConfigError(
                "The 'setting' parameter of UnstatedSetting must be a config column such as "
                f"'algorithm.gp_noise'. Got {self.setting!r} instead."
            )
        if len(self.values) < 2:
            raise ConfigError(
                f"The 'values' parameter of UnstatedSetting ({self.experiment}, {self.setting}) must give at "
                f"least two values. Got {self.values!r} instead."
            )
        if self.default_value is not None and setting_value(self.default_value) not in {
            setting_value(v) for v in self.values
        }:
            raise ConfigError(
                f"The 'default_value' parameter of UnstatedSetting ({self.experiment}, {self.setting}) must "
                f"be one of its values {self.values!r}. Got {self.default_value!r} instead."
            )

    def covers(self, claim_id: str) -> bool:
        return not self.claims or claim_id in self.claims


#: Declared unstated settings by experiment (filled by the paper packages).
UNSTATED: dict[str, list[UnstatedSetting]] = {}


def register_unstated(*settings: UnstatedSetting) -> None:
    """Declare unstated settings (called by a paper package on import; a repeated declaration is kept
    once)."""
    for s in settings:
        if not isinstance(s, UnstatedSetting):
            raise ConfigError(f"register_unstated takes UnstatedSetting records. Got {s!r} instead.")
        rows = UNSTATED.setdefault(s.experiment, [])
        if s not in rows:
            rows.append(s)


def unstated_for(experiment: str) -> list[UnstatedSetting]:
    """The declared unstated settings of ``experiment`` (the papers' claims modules loaded first)."""
    from safebandits.experiments.papers import load_claims

    load_claims()
    return list(UNSTATED.get(experiment, ()))


def setting_value(value: Any) -> str:
    """A config value as the scoreboard compares it: missing (``None`` / NaN) is ``"None"``, numbers by
    their shortest form."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "None"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        return f"{float(value):g}"
    try:
        return setting_value(float(value)) if str(value).strip() not in ("", "None") else "None"
    except ValueError:
        return str(value)


def _decided(verdict: str | None) -> bool:
    return verdict in ("pass", "fail")


def robustness_marker(
    verdict: str,
    margin_se: float | None,
    *,
    seed_verdicts: Mapping[int, str],
    settings: Iterable[UnstatedSetting] = (),
    setting_verdicts: Mapping[str, Mapping[str, str]] | None = None,
    default_values: Mapping[str, str] | None = None,
) -> tuple[str, str]:
    """The marker of one paper-scale verdict and its detail (module docstring).

    ``seed_verdicts``: the verdict on each seed set (the primary seed's included); ``settings``: the
    declared unstated settings the claim rests on; ``setting_verdicts[setting][value]``: the verdict at
    each scored value (the default's included); ``default_values[setting]``: today's value."""
    if not _decided(verdict):
        return "", ""
    setting_verdicts = setting_verdicts or {}
    default_values = default_values or {}
    flips = sorted({v for v in seed_verdicts.values() if _decided(v)} - {verdict})
    if margin_se is not None and abs(margin_se) < FRAGILE_SE:
        return "fragile", f"margin {margin_se:+.2f} SE (under {FRAGILE_SE:g})"
    if flips:
        detail = ", ".join(f"seed {s}: {v.upper()}" for s, v in sorted(seed_verdicts.items()))
        return "fragile", f"flips across seed sets ({detail})"
    missing, depends = [], []
    for s in settings:
        at = dict(setting_verdicts.get(s.setting, {}))
        default = default_values.get(s.setting)
        if default == "None" and s.default_value is not None:
            default = setting_value(s.default_value)  # the default is stored as derived at run time
        if default is not None:
            at.setdefault(default, verdict)
        decided = {v for v in at.values() if _decided(v)}
        if len(decided) > 1:
            cells = ", ".join(f"{val}: {at[val].upper()}" for val in sorted(at))
            depends.append(f"depends on {s.setting} ({cells})")
        unscored = [setting_value(v) for v in s.values if setting_value(v) not in at]
        if unscored:
            missing.append(f"{s.setting} at {', '.join(unscored)} not run")
    if depends:
        return "depends on", "; ".join(depends + missing)
    n_seeds = sum(1 for v in seed_verdicts.values() if _decided(v))
    if n_seeds < MIN_SEED_SETS:
        missing.insert(0, f"{n_seeds} seed set (needs {MIN_SEED_SETS})")
    if missing:
        return "untested", "; ".join(missing)
    return "robust", f"{n_seeds} seed sets" + (
        f"; {', '.join(s.setting for s in settings)} across their ranges" if settings else ""
    )


def split_variants(
    df: pd.DataFrame, primary_seed: int, settings: Iterable[UnstatedSetting], defaults: Mapping[str, str]
) -> tuple[pd.DataFrame, dict[int, pd.DataFrame], dict[str, dict[str, pd.DataFrame]]]:
    """The runs of one (experiment, scale): those of the primary seed with today's value of every declared
    setting, those of every other seed (settings at today's values), and those of the primary seed with
    one declared setting at another value (by setting, then value).

    A run without the setting (a method it does not apply to: its value is missing while today's is not)
    is at today's value; it joins every variant of that setting, so that the variant compares the same
    methods."""
    settings = [s for s in settings if s.setting in defaults]
    seeds = pd.to_numeric(df["seed"], errors="coerce") if "seed" in df else pd.Series(primary_seed, df.index)
    off: dict[str, pd.Series] = {}
    absent: dict[str, pd.Series] = {}
    for s in settings:
        col = df[s.setting] if s.setting in df else pd.Series(None, index=df.index, dtype=object)
        values = col.map(setting_value)
        absent[s.setting] = (values == "None") & (defaults[s.setting] != "None")
        off[s.setting] = (values != defaults[s.setting]) & ~absent[s.setting]
    any_off = pd.Series(False, index=df.index)
    for mask in off.values():
        any_off |= mask
    primary = df[(seeds == primary_seed) & ~any_off]
    others = {int(seed): part for seed, part in df[(seeds != primary_seed) & ~any_off].groupby(seeds)}
    variants: dict[str, dict[str, pd.DataFrame]] = {}
    for s in settings:
        others_off = pd.Series(False, index=df.index)
        for name, mask in off.items():
            if name != s.setting:
                others_off |= mask
        only = off[s.setting] & ~others_off & (seeds == primary_seed)
        if only.any():
            shared = primary[absent[s.setting].loc[primary.index]]
            col = df.loc[only, s.setting].map(setting_value)
            variants[s.setting] = {str(v): pd.concat([part, shared]) for v, part in df[only].groupby(col)}
    return primary, others, variants
