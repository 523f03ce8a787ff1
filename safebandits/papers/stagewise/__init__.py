"""Pacchiano et al. (stage-wise constraints): experiments, claims and report figures."""
