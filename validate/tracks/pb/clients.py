"""The pseudo-Boolean track's clients, each printing Pseudo-Boolean Competition output (``o``
lines, ``s OPTIMUM FOUND | SATISFIABLE | UNSATISFIABLE | UNKNOWN``, ``v`` lines of ``x<n>`` /
``-x<n>``):

* ``exact``: Exact (PyPI ``exact``, AGPL-3.0, an optional extra) through its Python bindings,
  the model built constraint by constraint (the bindings read no OPB file), in a killable
  child with a CPU limit on its ``runFull`` (:func:`~puzzlesat.validate.runs.solvers.
  solve_in_child`);
* ``scip``: SCIP through PySCIPOpt, reading the plain ``.opb``, in the same kind of child;
* ``sat4j``: Sat4j's PB solver (Debian ``sat4j``: ``java -jar
  /usr/share/java/org.sat4j.pb.jar``), a PB Competition solver, as an external command;

and any PB binary through ``--solver-command`` on the plain ``.opb``. The answer's cost is
always recomputed from the model on the instance's own constraints (SCIP reports a float).

A solver answers with a value for every variable the counts line declares, and builds one for
each (Exact a named variable, SCIP a column, Sat4j its own arrays, our model array and ``v``
line one entry): so a file that declares more variables than its text has bytes (past
:data:`FREE_VARIABLES`) is refused before any solver runs (:func:`check_declared`), as memory
its text did not pay for. A file that names every variable it declares has about six bytes or
more a variable (a term ``+1 x1 ``), so no such file is refused. The judge reads such a file
all the same (it keeps nothing per declared variable).
"""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil

import numpy as np

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import scratch_folder
from puzzlesat.generator.core.opb import OpbFile, parse_opb
from puzzlesat.generator.tracks import get_track as generator_track
from puzzlesat.validate.answers import pb_bound, pb_status, pb_text
from puzzlesat.validate.runs.command import SolverCommand, command_result
from puzzlesat.validate.runs.limits import TimeLimit
from puzzlesat.validate.runs.solvers import (
    ChildAnswer,
    SolveResult,
    solve_in_child,
    start_clock,
    stop_clock,
)

#: the Sat4j PB launcher Debian's sat4j package installs
SAT4J_JAR = "/usr/share/java/org.sat4j.pb.jar"
#: client -> (what it needs, how to get it)
CLIENTS = {"exact": ("exact", "pip install 'puzzlesat[pb]' (Exact, AGPL-3.0)"),
           "scip": ("pyscipopt", "pip install 'puzzlesat[pb]' (SCIP through PySCIPOpt)"),
           "sat4j": ("java", "apt-get install sat4j (and a Java runtime)")}
DEFAULT = "exact"
STATUSES = ("OPTIMUM", "SAT", "UNSAT", "UNKNOWN")
#: ``calibrate --recheck``'s clients: none, its rules have no speed margin
RECHECK: tuple[str, ...] = ()
CALIBRATION = ("exact:300", "scip:300")
#: ``tune``'s band: instances Sat4j does not solve within 10 s (times the margin), Exact within
#: 300
EASY = ("sat4j:10",)
REFERENCE = "exact:300"
#: variables a file may declare whatever its size (a few MB of any client's memory)
FREE_VARIABLES = 1 << 16


def canonical(name: str) -> str | None:
    """The client's name when it is one of this track's, else None."""
    return name if name in CLIENTS else None


def names() -> list[str]:
    """The PB clients this installation runs."""
    return [name for name in CLIENTS if _missing(name) is None]


def _missing(name: str) -> str | None:
    """Why the client cannot run here, or None."""
    need, how = CLIENTS[name]
    if name == "sat4j":
        if shutil.which("java") is None or not os.path.isfile(SAT4J_JAR):
            return f"sat4j needs {SAT4J_JAR} and java: {how}"
        return None
    if importlib.util.find_spec(need) is None:
        return f"{name} needs the {need} package: {how}"
    return None


def check(name: str, proof: bool = False) -> str:
    """The client's name when it runs here, or a UserError."""
    if name not in CLIENTS:
        raise UserError(f"unknown PB solver {name!r} (PB solvers: {', '.join(CLIENTS)}; any "
                        "other through --solver-command)")
    missing = _missing(name)
    if missing is not None:
        raise UserError(missing)
    if proof:
        raise UserError(f"--proof: {name} writes no proof here (the generator's proofs of the "
                        "parity instances are in their witness files)")
    return name


def check_declared(parsed: OpbFile, name: str) -> None:
    """A UserError when ``parsed`` declares more variables than its text has bytes, past
    :data:`FREE_VARIABLES` (see the module docstring)."""
    if parsed.num_vars > max(parsed.size, FREE_VARIABLES):
        raise UserError(f"{name}: line 1 declares #variable= {parsed.num_vars} but the text "
                        f"names only x1..x{parsed.largest_variable()}: more variables than its "
                        f"{parsed.size:,} bytes of text, and a solver answers for each (refused "
                        f"past {FREE_VARIABLES:,})")


def _read(source) -> OpbFile:
    """The instance (its path, or its text), refused when it declares variables its text did
    not pay for (:func:`check_declared`)."""
    parsed = parse_opb(source, "instance") if isinstance(source, bytes) else \
        generator_track("pb").read(source)
    check_declared(parsed, "instance" if isinstance(source, bytes) else str(source))
    return parsed


def solve_with_exact(source, solver: str, want_proof: bool, cpu_limit: float | None = None,
                     started=None) -> ChildAnswer:
    """Read the OPB ``source`` (its path, or its text) and solve it with Exact in this process
    (the time counted is ``runFull``'s alone): the answer and its model. Exact answers an
    optimisation it has finished with UNSAT (nothing better than its best) and a solution."""
    import exact

    try:
        parsed = _read(source)
    except UserError as exc:
        return ChildAnswer(None, error=str(exc))
    solver_ = exact.Exact([("verbosity", "0")])
    names = [f"x{v}" for v in range(1, parsed.num_vars + 1)]
    for name in names:
        solver_.addVariable(name)
    for terms, relation, degree in parsed.constraints():
        over, bound = _positive(terms, int(degree))
        solver_.addConstraint(over, True, bound, relation == "=", bound)
    optimise = parsed.objective is not None
    if parsed.objective is not None:
        lits, coefs = parsed.objective
        over, offset = _positive(zip(coefs.tolist(), lits.tolist()), 0)
        solver_.setObjective(over, True, -offset)
    clock = start_clock(cpu_limit, started)
    found = solver_.runFull(optimise, 0)
    cpu, wall = stop_clock(clock)
    if solver_.hasSolution():
        values = solver_.getLastSolutionFor(names)
        model = np.concatenate([[False], np.asarray(values, dtype=np.int64) > 0])
        status = "OPTIMUM" if optimise and found == "UNSAT" else "SAT"
        return ChildAnswer(status, model, cpu=cpu, wall=wall)
    return ChildAnswer("UNSAT" if found == "UNSAT" else None, cpu=cpu, wall=wall)


def _positive(terms, degree: int) -> tuple[list[tuple[int, str]], int]:
    """Terms over variables alone (Exact's bindings name no negated literal): c·~x is
    c − c·x, so its constant moves to the other side; (terms, the new degree)."""
    over: dict[int, int] = {}
    for coef, literal in terms:
        coef, literal = int(coef), int(literal)
        if literal < 0:
            degree -= coef
            coef, literal = -coef, -literal
        over[literal] = over.get(literal, 0) + coef
    return [(c, f"x{v}") for v, c in over.items() if c], degree


def solve_with_scip(source, solver: str, want_proof: bool, cpu_limit: float | None = None,
                    started=None) -> ChildAnswer:
    """Write the OPB ``source`` as a plain file, read it with SCIP (PySCIPOpt) and solve it in
    this process (the time counted is ``optimize()``'s alone)."""
    from pyscipopt import Model

    try:
        parsed_vars = _read(source).num_vars
    except UserError as exc:
        return ChildAnswer(None, error=str(exc))
    with scratch_folder("scip") as folder:
        plain = folder / "instance.opb"
        with open(plain, "wb") as out:
            pieces = [source] if isinstance(source, bytes) else \
                generator_track("pb").text_pieces(source)
            for piece in pieces:
                out.write(piece)
        model = Model()
        model.hideOutput()
        model.readProblem(str(plain))
        clock = start_clock(cpu_limit, started)
        model.optimize()
        cpu, wall = stop_clock(clock)
        state = model.getStatus()
        if state == "infeasible":
            return ChildAnswer("UNSAT", cpu=cpu, wall=wall)
        if state != "optimal" or model.getNSols() == 0:
            return ChildAnswer(None, cpu=cpu, wall=wall)
        best = model.getBestSol()
        values = np.zeros(parsed_vars + 1, dtype=bool)
        for var in model.getVars():
            name = var.name.lstrip("t_")  # SCIP names an OPB variable x<n> (t_ when transformed)
            if name.startswith("x") and name[1:].isdecimal() and int(name[1:]) <= parsed_vars:
                values[int(name[1:])] = model.getSolVal(best, var) > 0.5
        has_objective = model.getObjective().terms != {}
    return ChildAnswer("OPTIMUM" if has_objective else "SAT", values, cpu=cpu, wall=wall)


ENGINES = {"exact": solve_with_exact, "scip": solve_with_scip}


def run(name: str, source, limit: TimeLimit, proof_to=None, seed: int | None = None
        ) -> SolveResult:
    """The client ``name`` on an OPB instance (a path, or its text) in a killable child (or,
    for sat4j, as an external command); past ``limit`` (CPU seconds of its solving, a
    wall-clock backstop): UNKNOWN. The answer's ``o`` line is the model's cost on the
    instance's own constraints."""
    check(name, proof_to is not None)
    if seed is not None:
        raise UserError(f"--seed: {name} takes no seed here")
    if name == "sat4j":
        command = SolverCommand.parse(f"java -jar {shlex.quote(SAT4J_JAR)} {{cnf}}")
        return run_external(SolverCommand(command.template, command.words, "sat4j"), source,
                            limit)
    where = str(source) if isinstance(source, (str, os.PathLike)) else bytes(source)
    answer, notes, ended = solve_in_child(ENGINES[name], where, name, False, limit)
    if answer.error:
        raise UserError(answer.error)
    status = answer.status or "UNKNOWN"
    cost = None
    if answer.model is not None:
        parsed = _read(where if isinstance(where, bytes) else source)
        cost = parsed.cost(answer.model) if parsed.objective is not None else None
    return SolveResult(status, name, answer.cpu, pb_text(status, answer.model, cost),
                       notes=notes, wall=answer.wall, ended_by=ended).counted_within(limit)


def run_external(command: SolverCommand, source, limit: TimeLimit, proof_to=None,
                 seed: int | None = None) -> SolveResult:
    """Run an external PB solver on the plain ``.opb`` of ``source``; its stdout is the
    answer, read as the Pseudo-Boolean Competition's."""
    if seed is not None:
        raise UserError("--seed: an external solver takes its seed on its own command line")
    if proof_to is not None:
        raise UserError("--proof: the PB track keeps no solver proofs yet")
    _read(source)  # a file the solver would answer for too many variables of: refused here
    if isinstance(source, bytes):
        text, size = [source], len(source)
    else:
        track = generator_track("pb")
        text, size = track.text_pieces(source), track.text_limit(source)
    return command_result(command, text, limit, pb_status, pb_bound(size), suffix="opb")


def source(formula) -> bytes:
    """What :func:`run` takes of an OPB built in memory: its text."""
    track = generator_track("pb")
    return track.head(formula, None) + track.body(formula)
