"""Building blocks every family and suite shares: the clause container (cnf), DIMACS text and
files (dimacs), seeds, grid geometry and the user-error type. Imports nothing above
itself."""
