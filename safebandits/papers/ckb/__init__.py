"""Zhou & Ji 2022 (CKB): experiments, claims and report figures."""
