"""UNSAT proofs: the DRAT reader, the checker's kernels and the check a verdict rests on."""
