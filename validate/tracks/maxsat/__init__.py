"""The MaxSAT track: MaxSAT Evaluation answers (an optimum, a cost, a model) on WCNF 2022+
instances whose header certifies bounds on the optimum, the MaxSAT solvers, and the
Evaluation's benchmark bundle."""
