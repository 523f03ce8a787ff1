"""Lindner et al. 2022 (ACOL) and the driving simulator: experiments, claims and report figures."""
