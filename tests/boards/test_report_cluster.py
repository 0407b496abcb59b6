"""The report on a real Dask cluster of separate processes on this machine: a ``dask
scheduler`` and two ``dask worker`` s, one of them killed while it routes a design."""

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest

distributed = pytest.importorskip("distributed")

from utfhw.boards.designs import Design
from utfhw.boards.runcache import RunCache
from utfhw.boards.runner import run_report


DESIGNS = [Design("UTF32Encoder"), Design("ErrorDropper"), Design("UTF16Encoder")]
DEVICES = ("iCE40 UP5K",)
SEEDS = (1, 2)


def start(*arguments):
    # Each in a session of its own, so that a worker and its nanny are killed together.
    return subprocess.Popen([sys.executable, "-m", "dask", *arguments],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


@pytest.fixture
def cluster(tmp_path):
    """The scheduler's address and the worker processes by name; all stopped afterwards."""
    scheduler_file = tmp_path / "scheduler.json"
    processes = {"scheduler": start("scheduler", "--scheduler-file", scheduler_file, "--port",
                                    "0", "--no-dashboard")}
    try:
        for name in ("one", "two"):
            processes[name] = start("worker", "--scheduler-file", scheduler_file, "--name",
                                    name, "--nthreads", "1", "--memory-limit", "0",
                                    "--no-dashboard")
        deadline = time.monotonic() + 60
        while not scheduler_file.exists():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.2)
        with distributed.Client(scheduler_file=str(scheduler_file), timeout="30s") as client:
            client.wait_for_workers(2, timeout=60)
        yield json.loads(scheduler_file.read_text())["address"], processes
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGTERM)
        for process in processes.values():
            process.wait(timeout=30)


def test_report_survives_a_lost_worker_and_reruns_from_the_cache(tmp_path, cluster):
    address, processes = cluster
    cache = RunCache(tmp_path / "cache")
    killed = []

    with distributed.Client(address, timeout="30s") as probe:
        def kill_a_busy_worker():
            """Kill the first worker seen routing a design."""
            while not killed:
                names = {address: info["name"]
                         for address, info in probe.scheduler_info()["workers"].items()}
                for worker, keys in probe.processing().items():
                    routing = [key for key in keys if str(key).startswith("place-")]
                    if routing:
                        os.killpg(processes[names[worker]].pid, signal.SIGKILL)
                        killed.append((names[worker], routing))
                        return
                time.sleep(0.05)

        watcher = threading.Thread(target=kill_a_busy_worker, daemon=True)
        watcher.start()
        seen = []
        report = run_report(DESIGNS, devices=DEVICES, seeds=SEEDS, cache=cache,
                            scheduler=address, progress=seen.append)
        # The worker died with a run in hand, and the scheduler saw it go.
        assert len(killed) == 1 and killed[0][1]
        assert processes[killed[0][0]].wait(timeout=30) == -signal.SIGKILL
        assert len(probe.scheduler_info()["workers"]) == 1

    # Every row is there, with a figure for each seed; each run was made once.
    assert [row["design"] for row in report.rows] == [design.name for design in DESIGNS]
    for row in report.rows:
        assert row["devices"]["iCE40 UP5K"]["outcome"] == "ok"
        assert len(row["devices"]["iCE40 UP5K"]["fmax"]) == len(SEEDS)
        assert all(figure > 10 for figure in row["devices"]["iCE40 UP5K"]["fmax"])
        assert row["counts"]["ice40"]["lut4"] > 0
        assert row["devices"]["ECP5-85F"] == {"outcome": "not run"}
    assert (report.computed, report.cached) == (len(DESIGNS) * len(SEEDS), 0)
    assert [progress.done for progress in seen] == list(range(1, len(DESIGNS) * len(SEEDS) + 1))
    assert all(progress.running <= 2 for progress in seen) and seen[-1].running == 0

    # Again on the worker left: every run comes from the cache, with the same figures.
    again = run_report(DESIGNS, devices=DEVICES, seeds=SEEDS, cache=cache, scheduler=address)
    assert (again.computed, again.cached) == (0, len(DESIGNS) * len(SEEDS))
    assert again.rows == report.rows
