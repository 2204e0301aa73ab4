"""Building blocks every family and suite shares: the clause container (cnf), DIMACS text
(header, writer, parallel, reader), output and input files (files, save, inputs), seeds, grid
geometry and the user-error type. Imports nothing above itself."""
