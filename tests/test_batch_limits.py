"""A CPU limit the machine already imposes (``ulimit -t``, a batch system's ``h_cpu``): an
unprivileged process cannot raise its hard RLIMIT_CPU, so a solver run sets its own backstop
within it and runs, rather than failing to start."""

from __future__ import annotations

import resource

import pytest

from puzzlesat.validate.runs.limits import cpu_rlimit

#: the hard CPU limit of the emulated batch job, in seconds
BATCH_HARD = 30


@pytest.fixture
def batch_limit(monkeypatch):
    """RLIMIT_CPU as an unprivileged process under ``ulimit -t 30`` sees it: a hard limit of
    30 s that setrlimit refuses to raise (ValueError, as Linux answers EPERM)."""
    real_get, real_set = resource.getrlimit, resource.setrlimit

    def getrlimit(which):
        return (BATCH_HARD, BATCH_HARD) if which == resource.RLIMIT_CPU else real_get(which)

    def setrlimit(which, limits):
        if which == resource.RLIMIT_CPU and not 0 <= limits[1] <= BATCH_HARD:
            raise ValueError("not allowed to raise maximum limit")
        real_set(which, limits)

    monkeypatch.setattr(resource, "getrlimit", getrlimit)
    monkeypatch.setattr(resource, "setrlimit", setrlimit)


def test_the_backstop_stays_within_the_hard_limit(batch_limit):
    """Under a hard limit of 30 s, the backstop of a 60 s limit is the hard limit itself;
    that of a 5 s limit is its own (7 s, hard 9 s)."""
    assert cpu_rlimit(60) == (BATCH_HARD, BATCH_HARD)
    assert cpu_rlimit(5) == (7, 9)
    assert cpu_rlimit(5, spent=0.5) == (8, 10)


def test_unlimited_machine_keeps_the_usual_backstop():
    """Without a hard limit (the usual case), SIGXCPU at 1.1 x the limit + 1 s, SIGKILL 2 s
    after."""
    if resource.getrlimit(resource.RLIMIT_CPU)[1] != resource.RLIM_INFINITY:
        pytest.skip("this machine has a hard CPU limit")
    assert cpu_rlimit(60) == (67, 69)


def test_a_solver_command_runs_under_a_batch_cpu_limit(tmp_path, puzzlesat, batch_limit):
    """``solve --solver-command`` with a limit beyond the batch job's hard limit runs the
    solver (its backstop is the job's limit) and prints its answer, never a traceback."""
    cnf = tmp_path / "one.cnf"
    cnf.write_text("p cnf 1 1\n1 0\n")
    solver = tmp_path / "solver.sh"
    solver.write_text("#!/bin/sh\nprintf 's SATISFIABLE\\nv 1 0\\n'\nexit 10\n")
    solver.chmod(0o755)
    result = puzzlesat("solve", cnf, "--solver-command", f"{solver} {{cnf}}",
                       "--time-limit", "60")
    assert result.code == 10, result.err
    assert "s SATISFIABLE" in result.out and "Traceback" not in result.err
