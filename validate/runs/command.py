"""An external solver as the client: a command line run on an instance, SAT Competition style.

``--solver-command 'kissat --time={timeout} {cnf} {proof}'`` is split like a shell would
(:func:`shlex.split`) but run without one: no expansion, no redirection, no injection
through a file name. Placeholders, each a whole word or inside one:

* ``{cnf}`` (required): the instance decompressed to a temporary plain DIMACS file,
  removed afterwards (solvers read plain CNF; many cannot read ``.xz``);
* ``{proof}``: where the solver writes its DRAT proof (text or binary); when the answer is
  UNSAT and a proof was asked for, copied where it was asked to go (in pieces: a proof of
  many GB never passes through memory whole), else discarded;
* ``{timeout}``: the CPU time limit in whole seconds (rounded up), for solvers that stop
  themselves; the limit is enforced here anyway;
* ``{result}``: where the solver writes a MiniSat-style result file (``SAT`` and a line of
  literals, ``UNSAT`` or ``INDET``), read as its answer instead of stdout
  (:func:`minisat_answer`);
* ``{{`` and ``}}``: literal braces.

Ready names stand for the competition's binaries (:func:`ready_command`): ``minisat-bin``
is the standard MiniSat 2.2 binary (Debian's ``minisat``, the ``simp`` build), ``kissat-bin``
Kissat 4.0.4 as ``passagemath-kissat`` ships it.

The solver runs in a new session (its own process group), with no stdin; its stdout is the
answer (the ``.out``, kept byte for byte after a few ``c`` lines of ours), its stderr is kept
apart (its last line is noted when the solver fails). Its time is the CPU time of its process
group (polled from ``/proc``; at the end the leader's rusage, its waited-for descendants'
included, as runsolver and BenchExec count it), with the wall time beside it. Past the CPU
limit (RLIMIT_CPU a second later is the kernel's backstop), or the wall-clock backstop, the
whole process group is killed (a script's children too) and the answer is ``s UNKNOWN``; the group is
killed as well when the solver ends, or when this process is interrupted, and on Linux the
solver dies with this process (a ``kill -9`` of puzzlesat leaves no solver behind). A
descendant that left the group (a daemon) is found by a mark in its environment
(:data:`RUN_MARK`) and killed too, except after a ``kill -9`` of puzzlesat. A solver that
writes more than :data:`MAX_OUTPUT` bytes to stdout or stderr is killed (``s UNKNOWN``): it
would fill the disk long before any time limit.

The status is read by the reader the instance's track hands in (its answers' ``s`` line,
:mod:`puzzlesat.validate.answers`); output that does not parse is kept as it is, for
``validate`` to call MALFORMED, with the status UNKNOWN. Output longer than any answer to the
instance can be (the bound the track hands in) is not kept: the run is UNKNOWN, with a note.
The exit code (10/20) is only noted when it disagrees with the ``s`` line.

>>> SolverCommand.parse("kissat -q --time={timeout} {cnf} {proof}").words
('kissat', '-q', '--time={timeout}', '{cnf}', '{proof}')
"""

from __future__ import annotations

import contextlib
import importlib.util
import math
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_file, scratch_folder
from puzzlesat.generator.core.inputs import open_input
from puzzlesat.generator.core.paths import is_regular_file, os_failure
from puzzlesat.generator.core.writer import plain_dimacs
from puzzlesat.validate.answers import UNKNOWN_ANSWER, MalformedOutput, minisat_answer
from puzzlesat.validate.runs.limits import (
    CPU_LIMIT,
    OUTPUT_LIMIT,
    SOLVER,
    WALL_LIMIT,
    TimeLimit,
    cpu_rlimit,
    group_cpu,
    process_cpu,
)
from puzzlesat.validate.runs.processes import die_with, running, sigint_blocked
from puzzlesat.validate.runs.solvers import SolveResult

PLACEHOLDERS = ("cnf", "proof", "timeout", "result")
#: a solver's stdout (or stderr) beyond this is not an answer worth reading (a model of 10^8
#: variables fits in about 1 GB): the solver is killed when it writes more
MAX_OUTPUT = 1 << 30
#: an environment variable naming one solver run: inherited by whatever the solver starts,
#: so a descendant that left its process group (a daemon, after setsid) is found and killed
RUN_MARK = "PUZZLESAT_SOLVER_RUN"
_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_STATUS_EXIT = {"SAT": 10, "UNSAT": 20}


#: the competition's binaries by ready name, and where they come from
READY = {"minisat-bin": "the standard MiniSat 2.2 binary (Debian package minisat)",
         "kissat-bin": "Kissat 4.0.4 from passagemath-kissat (pip install passagemath-kissat)"}


def ready_command(name: str) -> SolverCommand | None:
    """The command behind a ready name (None for any other name), or a UserError when its
    binary is not installed here."""
    if name == "minisat-bin":
        program = shutil.which("minisat")
        if program is None:
            raise UserError("minisat-bin: no minisat program on PATH (apt-get install minisat)")
        template = f"{shlex.quote(program)} -verb=0 {{cnf}} {{result}}"
    elif name == "kissat-bin":
        program = kissat_binary()
        template = f"{shlex.quote(program)} -q {{cnf}}"
    else:
        return None
    return SolverCommand(template, tuple(shlex.split(template)), name)


def kissat_binary() -> str:
    """The Kissat binary passagemath-kissat installs (``sage_wheels/bin/kissat`` in its
    package folder), or a UserError."""
    spec = importlib.util.find_spec("sage_wheels")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        program = os.path.join(folder, "bin", "kissat")
        if os.path.isfile(program) and os.access(program, os.X_OK):
            return program
    raise UserError(f"kissat-bin: no Kissat binary found: {READY['kissat-bin']}")


class SolverNotRunnable(UserError):
    """The program could not be started (not executable, a bad format): the same for every
    instance, so a suite run stops instead of writing an UNKNOWN for each."""


@dataclass(frozen=True)
class SolverCommand:
    """A parsed ``--solver-command``: its words, with placeholders still in them."""

    template: str
    words: tuple[str, ...]
    label: str = ""  # a ready name (minisat-bin), else the program's name is used

    @classmethod
    def parse(cls, template: str) -> SolverCommand:
        """Split and check the template: a UserError for unbalanced quotes or braces, an
        unknown placeholder, no ``{cnf}``, or an empty command."""
        try:
            words = tuple(shlex.split(template))
        except ValueError as exc:
            raise UserError(f"--solver-command {template!r}: {exc}") from None
        if not words:
            raise UserError("--solver-command is empty")
        command = cls(template, words)
        for word in words:
            for match in _FIELD.finditer(word):
                if match.group(0) in ("{", "}"):
                    raise UserError(f"--solver-command: unbalanced brace in {word!r} (write "
                                    "{{ or }} for a literal one)")
                name = match.group(1)
                if name is not None and name not in PLACEHOLDERS:
                    raise UserError(f"--solver-command: unknown placeholder {{{name}}} (known: "
                                    + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS) + ")")
        if any(m.group(1) is not None for m in _FIELD.finditer(words[0])):
            raise UserError(f"--solver-command: the program {words[0]!r} cannot hold a "
                            "placeholder (it would run the instance or the proof)")
        if not command.uses("cnf"):
            raise UserError("--solver-command must name the instance file: {cnf}")
        return command

    def uses(self, placeholder: str) -> bool:
        """Whether the template names ``{placeholder}``."""
        return any(m.group(1) == placeholder for w in self.words for m in _FIELD.finditer(w))

    @property
    def program(self) -> str:
        """The program run: the first word, ``{{`` and ``}}`` read as braces."""
        return self.words[0].replace("{{", "{").replace("}}", "}")

    @property
    def name(self) -> str:
        """The ready name, or the program's name, for the ``c solver:`` line."""
        return self.label or os.path.basename(self.program)

    def check(self, time_limit: TimeLimit | None) -> None:
        """A UserError when the program cannot be found or ``{timeout}`` has no limit."""
        if self.uses("timeout") and time_limit is None:
            raise UserError("--solver-command uses {timeout}: give --time-limit")
        program = self.program
        found = shutil.which(program) if os.sep not in program else (
            program if os.access(program, os.X_OK) and os.path.isfile(program) else None)
        if found is None:
            raise UserError(f"--solver-command: {program!r} is not an executable program"
                            + ("" if os.sep in program else " on PATH"))

    def argv(self, cnf: str, proof: str, timeout: str, result: str = "") -> list[str]:
        """The words with the placeholders filled in."""
        # lone braces were refused when the template was parsed: every field has a name
        values = {"cnf": cnf, "proof": proof, "timeout": timeout, "result": result}

        def fill(match: re.Match) -> str:
            text = match.group(0)
            if text in ("{{", "}}"):
                return text[0]
            return values[match.group(1)]

        return [_FIELD.sub(fill, word) for word in self.words]


@dataclass
class CommandRun:
    """What the solver did: the status read from its output (or its result file), its stdout,
    notes, the CPU seconds of its process group and the wall seconds beside them, and what
    ended the run (its proof, if any was asked for, is already where it had to go)."""

    status: str
    seconds: float
    stdout: bytes | None  # None: no answer to keep (killed at a limit)
    notes: list[str]
    wall: float = 0.0
    ended_by: str = SOLVER


def run_command(command: SolverCommand, instance: Iterable[bytes] | tuple,
                time_limit: TimeLimit, status: Callable[[bytes], str], bound: int,
                suffix: str = "cnf", proof_to: str | os.PathLike | None = None) -> CommandRun:
    """Run ``command`` on ``instance`` (its text in pieces, as a track's ``text_pieces``
    reads a file, bounded; or ``(flat literals, num_vars)`` of a CNF) written as a plain
    ``instance.<suffix>`` for at most ``time_limit`` (CPU,
    wall-clock backstop), its answer read by ``status`` (the track's reader of what an
    answer claims) and kept up to ``bound`` bytes, its proof written (atomically) to
    ``proof_to`` when it answers UNSAT; see the module docstring. A program that cannot be
    started is a SolverNotRunnable (a UserError)."""
    with scratch_folder("solve") as tmp:
        cnf = Path(tmp, f"instance.{suffix}")
        proof_file = Path(tmp, "proof")
        out_file, err_file = Path(tmp, "stdout"), Path(tmp, "stderr")
        result_file = Path(tmp, "result")
        with open(cnf, "wb") as plain:
            if isinstance(instance, tuple):
                plain_dimacs(instance[0], instance[1], plain.write)
            else:
                for piece in instance:  # never all at once
                    plain.write(piece)
        argv = command.argv(str(cnf), str(proof_file),
                            str(max(1, math.ceil(time_limit.cpu))), str(result_file))
        with open(out_file, "wb") as out, open(err_file, "wb") as err:
            code, cpu, wall = _run_group(argv, out, err, time_limit)
        if code in (CPU_LIMIT, WALL_LIMIT):
            which = "CPU" if code == CPU_LIMIT else "wall-clock backstop"
            seconds = time_limit.cpu if code == CPU_LIMIT else time_limit.wall
            return CommandRun("UNKNOWN", cpu, None,
                              [f"{which} limit of {seconds:g} s reached: the solver was "
                               "killed"], wall, str(code))
        if code == OUTPUT_LIMIT:
            return CommandRun("UNKNOWN", cpu, None,
                              [f"the solver wrote more than {MAX_OUTPUT} bytes to stdout or "
                               "stderr: killed, its output not kept"], wall, OUTPUT_LIMIT)
        assert isinstance(code, int)  # the limits are handled above
        # a solver that stops itself at the limit (its own, or the RLIMIT_CPU backstop)
        ended = CPU_LIMIT if cpu >= time_limit.cpu else SOLVER
        notes = [] if code in (0, 10, 20) or ended == CPU_LIMIT else [_failure(code, err_file)]
        stdout = _kept(result_file if command.uses("result") else out_file, bound)
        if stdout is None:
            return CommandRun("UNKNOWN", cpu, None, notes + [
                f"the solver wrote more than any answer to this instance holds ({bound:,} "
                f"bytes): not kept"], wall, ended)
        if command.uses("result"):
            stdout = minisat_answer(stdout)
        try:
            claimed = status(stdout)
        except MalformedOutput as exc:
            return CommandRun("UNKNOWN", cpu, stdout,
                              notes + [f"the output does not parse: {exc}"], wall, ended)
        if claimed == "UNKNOWN" and ended == CPU_LIMIT:
            notes.append(f"CPU limit of {time_limit.cpu:g} s reached")
        if claimed in _STATUS_EXIT and code in (10, 20) and code != _STATUS_EXIT[claimed]:
            notes.append(f"exit code {code} disagrees with the s line ({claimed})")
        if proof_to is not None and claimed == "UNSAT":
            if is_regular_file(proof_file):  # never what a symlink left there names
                with open(proof_file, "rb") as proof, atomic_file(proof_to) as out:
                    shutil.copyfileobj(proof, out, 1 << 20)
            else:
                notes.append("UNSAT, but the solver wrote no proof file (a regular file at "
                             "{proof}; a symlink is never followed)")
        return CommandRun(claimed, cpu, stdout, notes, wall, ended)


def command_result(command: SolverCommand, instance: Iterable[bytes] | tuple,
                   time_limit: TimeLimit, status: Callable[[bytes], str], bound: int,
                   suffix: str = "cnf",
                   proof_to: str | os.PathLike | None = None) -> SolveResult:
    """:func:`run_command` as a client's run: its answer the solver's output (``s UNKNOWN``
    when none is kept), the command noted, an answer after the CPU limit not counted."""
    ran = run_command(command, instance, time_limit, status, bound, suffix, proof_to)
    return SolveResult(ran.status, command.name, ran.seconds,
                       UNKNOWN_ANSWER if ran.stdout is None else ran.stdout,
                       notes=[f"command: {command.template}", *ran.notes], wall=ran.wall,
                       ended_by=ran.ended_by).counted_within(time_limit)


def _kept(path: Path, bound: int) -> bytes | None:
    """The answer the solver left at ``path`` (b"" when it left none, or not a regular file:
    a symlink it made there is never followed), or None when it is longer than ``bound``."""
    if not is_regular_file(path):
        return b""
    with open_input(path, "the solver's answer", follow_symlinks=False) as handle:
        if os.fstat(handle.fileno()).st_size > bound:  # sized first: read() would allocate it
            return None
        return handle.read()


def _run_group(argv: list[str], out, err, limit: TimeLimit) -> tuple[int | str, float, float]:
    """Run ``argv`` in a new process group: (its exit code (negative: killed by a signal), or
    CPU_LIMIT / WALL_LIMIT / OUTPUT_LIMIT when it was stopped; the group's CPU seconds; the
    wall seconds). Its RLIMIT_CPU is set past the limit (:func:`cpu_rlimit`: the kernel's
    backstop to the CPU poll here). The group, and every process that carries this run's mark, is killed
    before this returns, whatever happens (a limit, the solver's end, an exception such as a
    Ctrl-C here)."""

    parent = os.getpid()
    mark = f"{parent}-{uuid.uuid4().hex}"
    rlimit = cpu_rlimit(limit.cpu)
    start = time.perf_counter()
    try:
        with sigint_blocked():
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                       start_new_session=True,
                                       env={**os.environ, RUN_MARK: mark},
                                       preexec_fn=lambda: _in_child(parent, die_with, rlimit))
    except OSError as exc:
        raise SolverNotRunnable(str(os_failure(exc, f"run {argv[0]}"))) from None
    polled = 0.0
    try:
        with running(process):  # an interrupted suite run kills it
            code, polled = _wait_unreaped(process.pid, limit, start,
                                          (out.fileno(), err.fileno()))
    finally:
        try:  # the leader is not reaped yet, so its process group id cannot have been reused
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        # reaped here, for its rusage: the leader's CPU and its waited-for descendants'
        _, status, usage = os.wait4(process.pid, 0)
        process.returncode = os.waitstatus_to_exitcode(status)
        kill_marked(mark)
    wall = time.perf_counter() - start
    return code, max(polled, usage.ru_utime + usage.ru_stime), wall


def kill_marked(mark: str) -> int:
    """SIGKILL every process whose environment has ``RUN_MARK=mark`` (Linux: /proc; elsewhere
    nothing), again until none is left, as one may fork meanwhile; how many were killed."""
    wanted = f"{RUN_MARK}={mark}".encode()
    killed = 0
    for _ in range(1000):
        found = []
        with contextlib.suppress(OSError), os.scandir("/proc") as entries:
            for entry in entries:
                if not entry.name.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry.name}/environ", "rb") as fh:
                        environ = fh.read()
                except OSError:  # gone, or not ours
                    continue
                if wanted in environ.split(b"\0"):  # a zombie's environment reads empty
                    found.append(int(entry.name))
        if not found:
            break
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        time.sleep(0.001)
    return killed


def _in_child(parent: int, die_with, rlimit: tuple[int, int]) -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a new session: no terminal
    resource.setrlimit(resource.RLIMIT_CPU, rlimit)
    die_with(parent)


#: how often the whole process group's CPU is summed (a scan of /proc); the leader's own CPU
#: is read at every poll
_GROUP_EVERY = 0.25


def _wait_unreaped(pid: int, limit: TimeLimit, start: float,
                   outputs: tuple[int, ...]) -> tuple[int | str, float]:
    """Wait for ``pid`` to end without reaping it (``WNOWAIT``): (its exit code, or CPU_LIMIT
    once its process group has used ``limit.cpu`` CPU seconds, WALL_LIMIT ``limit.wall``
    seconds after ``start``, OUTPUT_LIMIT once a file of ``outputs`` (descriptors) holds more
    than MAX_OUTPUT bytes; the group's CPU seconds last seen). Polls every 1..50 ms: waitid
    has no timeout."""
    pause, cpu, summed = 0.001, 0.0, start
    while True:
        if any(os.fstat(fd).st_size > MAX_OUTPUT for fd in outputs):  # also once it ended
            return OUTPUT_LIMIT, cpu
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        if info is not None and info.si_pid:
            if info.si_code == os.CLD_EXITED:
                return info.si_status, cpu
            return -info.si_status, cpu
        now = time.perf_counter()
        cpu = max(cpu, process_cpu(pid) or 0.0)
        if now - summed >= _GROUP_EVERY:
            cpu, summed = max(cpu, group_cpu(pid)), now
        if cpu >= limit.cpu:
            return CPU_LIMIT, cpu
        if now - start >= limit.wall:
            return WALL_LIMIT, cpu
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _failure(code: int, err_file: Path) -> str:
    """A note for an exit code other than 0/10/20, with the last line of stderr."""
    if code < 0:
        try:
            what = f"killed by {signal.Signals(-code).name}"
        except ValueError:
            what = f"killed by signal {-code}"
    else:
        what = f"exit code {code}"
    with open(err_file, "rb") as fh:
        fh.seek(max(0, err_file.stat().st_size - 2048))
        tail = fh.read().decode("utf-8", "replace").strip().splitlines()
    last = tail[-1][:200] if tail else ""
    return f"solver {what}" + (f" (stderr: {last})" if last else "")
