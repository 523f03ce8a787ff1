"""Optimal designs: Frank--Wolfe solvers for G-optimal / transductive designs and efficient rounding."""

from safebandits.design.diagonal import diagonal_design
from safebandits.design.frank_wolfe import Design, frank_wolfe_design, uniform_design
from safebandits.design.rounding import round_design

__all__ = ["Design", "diagonal_design", "frank_wolfe_design", "round_design", "uniform_design"]
