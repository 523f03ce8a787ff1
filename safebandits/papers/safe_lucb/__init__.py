"""Amani et al. 2019 (Safe-LUCB): experiments, claims and report figures."""
