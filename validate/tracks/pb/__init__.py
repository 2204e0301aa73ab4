"""The pseudo-Boolean track: Pseudo-Boolean Competition answers (a model, an optimum, UNSAT
with or without a VeriPB proof) on OPB instances whose answer is known by construction, the
PB solvers (Exact, SCIP, Sat4j), and the competition's bundle of domains."""
