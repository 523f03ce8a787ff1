"""Camilleri et al. 2022 (BESIDE) and FDR-constrained classification: experiments, claims, figures."""
