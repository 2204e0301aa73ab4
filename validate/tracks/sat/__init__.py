"""The SAT track: SAT Competition answers (a model, or UNSAT with a DRAT or LRAT proof) on DIMACS
CNF instances, the SAT solvers, and the SAT Competition's benchmark rules and bundle."""
