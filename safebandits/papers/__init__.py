"""The papers' content: one package per paper (its experiments, claims and report figures)."""
