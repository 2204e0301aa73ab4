"""Solver runs, whatever the track: child processes and signals, the python-sat child that
solves, an external ``--solver-command``, CPU limits and the solver's own time, the records
campaigns keep, certified UNSAT for generators, and the bundle writer."""
