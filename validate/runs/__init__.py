"""Solver campaigns: processes, python-sat solvers and external commands, solve-suite,
calibration, hardness tuning and the SAT Competition bundle."""
