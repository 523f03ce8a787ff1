"""Regret-minimisation learners (filled by later families)."""
