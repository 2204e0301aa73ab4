"""An external solver as the client: a command line run on an instance, SAT Competition style.

``--solver-command 'kissat --time={timeout} {cnf} {proof}'`` is split like a shell would
(:func:`shlex.split`) but run without one: no expansion, no redirection, no injection
through a file name. Placeholders, each a whole word or inside one:

* ``{cnf}`` (required): the instance decompressed to a temporary plain DIMACS file,
  removed afterwards (solvers read plain CNF; many cannot read ``.xz``);
* ``{proof}``: where the solver writes its DRAT proof (text or binary); when the answer is
  UNSAT and a proof was asked for, copied where it was asked to go (in pieces: a proof of
  many GB never passes through memory whole), else discarded;
* ``{timeout}``: the time limit in whole seconds (rounded up), for solvers that stop
  themselves; the limit is enforced here anyway;
* ``{{`` and ``}}``: literal braces.

The solver runs in a new session (its own process group), with no stdin; its stdout is the
answer (the ``.out``, kept byte for byte after a few ``c`` lines of ours), its stderr is kept
apart (its last line is noted when the solver fails). Past the time limit the whole process
group is killed (a script's children too) and the answer is ``s UNKNOWN``; the group is
killed as well when the solver ends, or when this process is interrupted, and on Linux the
solver dies with this process (a ``kill -9`` of puzzlesat leaves no solver behind). A
descendant that left the group (a daemon) is found by a mark in its environment
(:data:`RUN_MARK`) and killed too, except after a ``kill -9`` of puzzlesat. A solver that
writes more than :data:`MAX_OUTPUT` bytes to stdout or stderr is killed (``s UNKNOWN``): it
would fill the disk long before any time limit.

The status is read from the ``s`` line (:func:`~puzzlesat.validate.output.parse_output`);
output that does not parse is kept as it is, for ``validate`` to call MALFORMED, with the
status UNKNOWN. The exit code (10/20) is only noted when it disagrees with the ``s`` line.

>>> SolverCommand.parse("kissat -q --time={timeout} {cnf} {proof}").words
('kissat', '-q', '--time={timeout}', '{cnf}', '{proof}')
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.files import atomic_file
from puzzlesat.generator.core.inputs import input_pieces, open_input
from puzzlesat.validate.output import MalformedOutput, parse_output
from puzzlesat.validate.runs.processes import die_with, running, sigint_blocked

PLACEHOLDERS = ("cnf", "proof", "timeout")
#: a solver's stdout (or stderr) beyond this is not an answer worth reading (a model of 10^8
#: variables fits in about 1 GB): the solver is killed when it writes more
MAX_OUTPUT = 1 << 30
#: an environment variable naming one solver run: inherited by whatever the solver starts,
#: so a descendant that left its process group (a daemon, after setsid) is found and killed
RUN_MARK = "PUZZLESAT_SOLVER_RUN"
#: why a run was stopped before the solver ended
TIME_LIMIT, OUTPUT_LIMIT = "time limit", "output limit"
_FIELD = re.compile(r"\{\{|\}\}|\{([^{}]*)\}|[{}]")
_STATUS_EXIT = {"SAT": 10, "UNSAT": 20}


class SolverNotRunnable(UserError):
    """The program could not be started (not executable, a bad format): the same for every
    instance, so a suite run stops instead of writing an UNKNOWN for each."""


@dataclass(frozen=True)
class SolverCommand:
    """A parsed ``--solver-command``: its words, with placeholders still in them."""

    template: str
    words: tuple[str, ...]

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
        """The program's name, for the ``c solver:`` line."""
        return os.path.basename(self.program)

    def check(self, time_limit: float | None) -> None:
        """A UserError when the program cannot be found or ``{timeout}`` has no limit."""
        if self.uses("timeout") and time_limit is None:
            raise UserError("--solver-command uses {timeout}: give --time-limit")
        program = self.program
        found = shutil.which(program) if os.sep not in program else (
            program if os.access(program, os.X_OK) and os.path.isfile(program) else None)
        if found is None:
            raise UserError(f"--solver-command: {program!r} is not an executable program"
                            + ("" if os.sep in program else " on PATH"))

    def argv(self, cnf: str, proof: str, timeout: str) -> list[str]:
        """The words with the placeholders filled in."""
        # lone braces were refused when the template was parsed: every field has a name
        values = {"cnf": cnf, "proof": proof, "timeout": timeout}

        def fill(match: re.Match) -> str:
            text = match.group(0)
            if text in ("{{", "}}"):
                return text[0]
            return values[match.group(1)]

        return [_FIELD.sub(fill, word) for word in self.words]


@dataclass
class CommandRun:
    """What the solver did: the status read from its output, its stdout, notes, the
    wall-clock seconds (its proof, if any was asked for, is already where it had to go)."""

    status: str
    seconds: float
    stdout: bytes | None  # None: no answer to keep (killed at the time limit)
    notes: list[str]


def run_command(command: SolverCommand, instance: str | os.PathLike, time_limit: float,
                proof_to: str | os.PathLike | None = None, maxsat: bool = False) -> CommandRun:
    """Run ``command`` on ``instance`` (plain or compressed) for at most ``time_limit``
    seconds, its proof written (atomically) to ``proof_to`` when it answers UNSAT; see the
    module docstring. A program that cannot be started is a SolverNotRunnable (a
    UserError). ``maxsat``: a WCNF instance (``instance.wcnf``), the output read as the
    MaxSAT Evaluation's."""
    with tempfile.TemporaryDirectory(prefix="puzzlesat-solve-") as tmp:
        cnf = Path(tmp, "instance.wcnf" if maxsat else "instance.cnf")
        proof_file = Path(tmp, "proof")
        out_file, err_file = Path(tmp, "stdout"), Path(tmp, "stderr")
        with open_input(instance, "instance") as handle, open(cnf, "wb") as plain:
            for piece in input_pieces(handle, str(instance)):  # never the whole text at once
                plain.write(piece)
        argv = command.argv(str(cnf), str(proof_file), str(max(1, math.ceil(time_limit))))
        start = time.perf_counter()
        with open(out_file, "wb") as out, open(err_file, "wb") as err:
            code = _run_group(argv, out, err, time_limit)
        seconds = time.perf_counter() - start
        if code == TIME_LIMIT:
            return CommandRun("UNKNOWN", seconds, None,
                              [f"time limit of {time_limit:g} s reached: the solver was killed"])
        if code == OUTPUT_LIMIT:
            return CommandRun("UNKNOWN", seconds, None,
                              [f"the solver wrote more than {MAX_OUTPUT} bytes to stdout or "
                               "stderr: killed, its output not kept"])
        assert isinstance(code, int)  # the two limits are handled above
        notes = [] if code in (0, 10, 20) else [_failure(code, err_file)]
        stdout = out_file.read_bytes()
        try:
            status = _maxsat_status(stdout) if maxsat else parse_output(stdout).status
        except MalformedOutput as exc:
            return CommandRun("UNKNOWN", seconds, stdout,
                              notes + [f"the output does not parse: {exc}"])
        if status in _STATUS_EXIT and code in (10, 20) and code != _STATUS_EXIT[status]:
            notes.append(f"exit code {code} disagrees with the s line ({status})")
        if proof_to is not None and status == "UNSAT":
            if proof_file.is_file():
                with open(proof_file, "rb") as proof, atomic_file(proof_to) as out:
                    shutil.copyfileobj(proof, out, 1 << 20)
            else:
                notes.append("UNSAT, but the solver wrote no proof file")
        return CommandRun(status, seconds, stdout, notes)


def _maxsat_status(stdout: bytes) -> str:
    from puzzlesat.validate.maxsat import maxsat_status  # only MaxSAT runs pay for it

    return maxsat_status(stdout)


def _run_group(argv: list[str], out, err, time_limit: float) -> int | str:
    """Run ``argv`` in a new process group; its exit code (negative: killed by a signal), or
    TIME_LIMIT / OUTPUT_LIMIT when it was stopped. The group, and every process that carries
    this run's mark, is killed before this returns, whatever happens (a limit, the solver's
    end, an exception such as a Ctrl-C here)."""

    parent = os.getpid()
    mark = f"{parent}-{uuid.uuid4().hex}"
    try:
        with sigint_blocked():
            process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                       start_new_session=True,
                                       env={**os.environ, RUN_MARK: mark},
                                       preexec_fn=lambda: _in_child(parent, die_with))
    except OSError as exc:
        raise SolverNotRunnable(f"cannot run {argv[0]}: {exc.strerror or exc}") from None
    try:
        with running(process):  # an interrupted suite run kills it
            return _wait_unreaped(process.pid, time_limit, (out.fileno(), err.fileno()))
    finally:
        try:  # the leader is not reaped yet, so its process group id cannot have been reused
            os.killpg(process.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        process.wait()
        kill_marked(mark)


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


def _in_child(parent: int, die_with) -> None:
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})  # a new session: no terminal
    die_with(parent)


def _wait_unreaped(pid: int, time_limit: float, outputs: tuple[int, ...]) -> int | str:
    """Wait for ``pid`` to end without reaping it (``WNOWAIT``); its exit code, TIME_LIMIT
    past ``time_limit`` seconds, or OUTPUT_LIMIT once a file of ``outputs`` (descriptors)
    holds more than MAX_OUTPUT bytes. Polls every 1..50 ms: waitid has no timeout."""
    deadline = time.monotonic() + time_limit
    pause = 0.001
    while True:
        if any(os.fstat(fd).st_size > MAX_OUTPUT for fd in outputs):  # also once it ended
            return OUTPUT_LIMIT
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT | os.WNOHANG)
        if info is not None and info.si_pid:
            if info.si_code == os.CLD_EXITED:
                return info.si_status
            return -info.si_status
        left = deadline - time.monotonic()
        if left <= 0:
            return TIME_LIMIT
        time.sleep(min(pause, left))
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
