"""puzzlesat's validator: checks what solvers say about instances, down to the puzzle."""
