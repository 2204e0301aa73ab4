"""Scale-out on Dask: a LocalCluster of 2 workers gives the same published bytes as the local
process pool, and the same verdicts for calibrate and validate-suite."""

from __future__ import annotations

import pytest
from conftest import TINY

from puzzlesat.generator.core.errors import UserError
from puzzlesat.generator.core.executors import make_executor
from puzzlesat.generator.suite import publish_suite, verify_suite
from puzzlesat.validate.campaigns.calibrate import calibrate_suite, read_calibration
from puzzlesat.validate.campaigns.solve import solve_suite
from puzzlesat.validate.campaigns.validate_suite import validate_suite
from puzzlesat.validate.runs.command import SolverCommand

pytest.importorskip("distributed")


@pytest.fixture(scope="module")
def dask_pool():
    # threads, not processes: starts in a second and needs no importable test module
    with make_executor("dask", None, 2, processes=False) as executor:
        yield executor


@pytest.fixture(scope="module")
def both(tmp_path_factory, dask_pool):
    """TINY published by a 2-process local pool and by the Dask cluster."""
    folder = tmp_path_factory.mktemp("dask")
    spec = folder / "tiny.toml"
    spec.write_bytes(TINY)
    with make_executor("local", None, 2) as local:
        publish_suite(spec, folder / "local", 2, local)
    publish_suite(spec, folder / "dask", 2, dask_pool)
    return folder / "local", folder / "dask"


def _files(folder):
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_publish_gives_the_same_bytes(both):
    local, dask = both
    assert len(_files(local)) == 3 + 2 + 7  # instances, witnesses, suite files
    assert _files(local) == _files(dask)


def test_verify_on_dask_passes(both, dask_pool):
    assert verify_suite(both[1], executor=dask_pool).differences == []


def test_calibrate_gives_the_same_verdicts(both, dask_pool):
    local, dask = both
    calibrate_suite(local, ["cadical195"], 20, jobs=2, plot=False)
    calibrate_suite(dask, ["cadical195"], 20, executor=dask_pool, plot=False)
    columns = ("hash", "name", "solver", "status", "verdict", "reason")
    rows = [[tuple(getattr(r, c) for c in columns) for r in read_calibration(f)] for f in both]
    assert rows[0] == rows[1]
    assert [r[4] for r in rows[0]] == ["VERIFIED-SAT", "UNSAT-UNCHECKED", "VERIFIED-SAT"]


def test_solve_and_validate_suite_give_the_same_verdicts(both, dask_pool, tmp_path):
    local, _ = both
    solve_suite(local, tmp_path / "threads", jobs=2, progress=False)
    solve_suite(local, tmp_path / "dask", progress=False, executor=dask_pool)
    here = validate_suite(local, tmp_path / "threads", progress=False)
    there = validate_suite(local, tmp_path / "dask", progress=False, executor=dask_pool)
    assert [(v.instance, v.verdict, v.reason) for v in here] == \
        [(v.instance, v.verdict, v.reason) for v in there]
    # instances in file-name order: flow-5x5, sliding b6 (UNSAT), sliding b8
    assert [v.verdict for v in here] == ["VERIFIED-SAT", "UNSAT-UNCHECKED", "VERIFIED-SAT"]


def test_cli_publish_on_a_dask_local_cluster_of_processes(both, puzzlesat, tmp_path):
    spec = both[0].parent / "tiny.toml"
    for executor, folder in (("dask", "d"), ("local", "l")):
        result = puzzlesat("publish", spec, "-o", tmp_path / folder, "--executor", executor,
                           "-j", "2")
        assert result.code == 0, result.err
    assert _files(tmp_path / "d") == _files(tmp_path / "l")
    assert puzzlesat("verify", tmp_path / "d", "--executor", "dask", "-j", "1").code == 0


@pytest.mark.parametrize("kind, scheduler, jobs, message", [
    ("local", "tcp://127.0.0.1:1", 2, "--scheduler needs --executor dask"),
    ("ray", None, 2, "--executor must be one of local, dask"),
    ("local", None, 0, "-j must be at least 1"),
])
def test_bad_executor_options(kind, scheduler, jobs, message):
    with pytest.raises(UserError, match=message):
        with make_executor(kind, scheduler, jobs):
            pass


# -- slots: N workers run N calls at once ---------------------------------------------------------
def meet(folder, n, timeout, index):
    """Call ``index`` arrives in ``folder`` and waits (at most ``timeout`` s) until ``n`` calls
    have arrived; returns how many were seen together (n unless fewer ran at the same time)."""
    import os
    import time
    import uuid
    from pathlib import Path

    (Path(folder) / f"{index}-{uuid.uuid4().hex}").touch()
    deadline = time.monotonic() + timeout
    while (seen := len(os.listdir(folder))) < n and time.monotonic() < deadline:
        time.sleep(0.02)
    return seen


def _all_meet(executor, n, folder, slots=None):
    from puzzlesat.generator.core.executors import run_tasks

    folder.mkdir()
    # distinct arguments: Dask runs identical pure calls once
    return sorted(r for _, r in run_tasks(meet, [(str(folder), n, 30, i) for i in range(n)],
                                          executor, slots=slots))


def test_an_executor_made_elsewhere_runs_the_slots_it_is_given(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=6) as threads:
        assert _all_meet(threads, 6, tmp_path / "meet", slots=6) == [6] * 6


def test_a_local_pool_of_n_runs_n_calls_at_once(tmp_path):
    with make_executor("local", None, 2) as pool:
        assert pool.slots == 2
        assert _all_meet(pool, 2, tmp_path / "meet") == [2, 2]


def test_a_dask_cluster_of_n_threads_runs_n_calls_at_once(tmp_path):
    # more than the old fixed window of 4 in flight (it read a process pool's _max_workers)
    with make_executor("dask", None, 6, processes=False) as pool:
        assert pool.slots == 6
        assert _all_meet(pool, 6, tmp_path / "meet") == [6] * 6


def test_slots_are_said_not_guessed_from_private_attributes(dask_pool):
    """Executors made here say their slots; one made elsewhere is taken at the CPU count
    unless it says otherwise (its private worker count is not read)."""
    import os
    from concurrent.futures import ThreadPoolExecutor

    from puzzlesat.generator.core.executors import executor_slots, local_executor

    assert executor_slots(None) == 1
    assert executor_slots(dask_pool) == 2
    pool = local_executor(3)
    try:
        assert executor_slots(pool) == 3
    finally:
        pool.shutdown()
    with ThreadPoolExecutor(max_workers=7) as threads:
        assert executor_slots(threads) == os.cpu_count()
        threads.slots = 7
        assert executor_slots(threads) == 7


def test_an_external_solver_and_its_proofs_on_dask(both, dask_pool, tmp_path):
    """--solver-command runs on Dask workers, and validate-suite checks its proofs there."""
    import shlex

    from conftest import kissat

    command = SolverCommand.parse(shlex.join([kissat(), "-q", "--no-binary", "{cnf}",
                                              "{proof}"]))
    local, _ = both
    run = solve_suite(local, tmp_path / "dask", progress=False, executor=dask_pool,
                      command=command, proof=True)
    assert run.counts == {"SAT": 2, "UNSAT": 1, "UNKNOWN": 0}
    there = validate_suite(local, tmp_path / "dask", progress=False, executor=dask_pool)
    assert [v.verdict for v in there] == ["VERIFIED-SAT", "VERIFIED-UNSAT", "VERIFIED-SAT"]


def test_a_cluster_started_here_logs_only_what_is_critical(dask_pool):
    """While a cluster started here runs, no distributed logger prints an error or a warning,
    those below the top one included (Dask's configuration gives distributed.client a level of
    its own): after a Ctrl-C, the keys a cut gather lost are not a line for the user."""
    import logging

    for name in ("distributed", "distributed.client", "distributed.scheduler"):
        assert not logging.getLogger(name).isEnabledFor(logging.ERROR), name
