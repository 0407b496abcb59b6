"""The report's runs spread over a Dask cluster (``dask.distributed``), each kept in a
:class:`~utfhw.boards.runcache.RunCache` by its key.

For each design a task makes its netlist; from its digest the runner reads what the cache
holds, and submits only what is missing: a synthesis per family, then a run of nextpnr per
device and seed the design fits. Every task is a pure function of its arguments
(:mod:`utfhw.boards.implement`), so the scheduler may run one again on another worker when
the one running it is lost. The client alone writes the cache, as each result comes back."""

import dataclasses
import os
import time
from typing import Optional

from ..hdl.unicode.params import check_choice, check_integer
from ..toolchain.cache import digest
from .designs import DEVICES, FAMILIES, ROUTER1_MOST_LUT4S, ROUTERS, SEEDS, fits
from .implement import (DOES_NOT_FIT, NO_TIMING, SYNTHESIS_FAILED, TIMED_OUT, ToolVersionError,
                        failure_stands, netlist, place_and_route, run_key, synthesis_key,
                        synthesise, tool_versions)
from .runcache import RunCache, default_folder


__all__ = ["NOT_RUN", "FAILED", "Progress", "Report", "run_report", "progress_line"]

#: What a device's cell says when the report has no run of it (not asked for, or with
#: ``cached_only`` not in the cache).
NOT_RUN = "not run"
#: What a device's cell says when a task failed (a worker lost again and again, or a tool
#: failing in a way the report does not know); the report goes on, and caches nothing of it.
FAILED = "failed"


@dataclasses.dataclass
class Progress:
    """Where a report stands, in runs of nextpnr (a design, a device, a seed): ``done`` of
    ``total`` (``cached`` of them from the cache), ``running`` now, ``elapsed`` seconds, and
    ``estimate``, the seconds left at the rate so far (``None`` before a run has finished);
    ``last`` says what just finished."""
    done: int
    total: int
    cached: int
    running: int
    elapsed: float
    estimate: Optional[float]
    last: str


@dataclasses.dataclass
class Report:
    """A finished report: its ``rows`` (see :func:`run_report`), the tools' ``versions``,
    and how many runs were ``computed`` and how many read from the ``cached``."""
    rows: list
    versions: dict
    devices: tuple
    seeds: tuple
    computed: int
    cached: int
    seconds: float


def _describe_duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def progress_line(progress):
    """One line for people about a :class:`Progress`."""
    left = progress.total - progress.done
    estimate = ("" if progress.estimate is None or not left
                else f", about {_describe_duration(progress.estimate)} left")
    return (f"[{progress.done}/{progress.total} runs] {progress.cached} cached, "
            f"{progress.running} running, {left} left; "
            f"{_describe_duration(progress.elapsed)} so far{estimate}: {progress.last}")


def _check_timeout(pnr_timeout):
    if pnr_timeout is not None and (isinstance(pnr_timeout, bool)
                                    or not isinstance(pnr_timeout, (int, float))
                                    or not pnr_timeout > 0):
        raise ValueError(f"pnr_timeout must be a positive number of seconds, not "
                         f"{pnr_timeout!r}")


def _counts_of(synthesis):
    # The client needs only the counts, not the netlist for nextpnr.
    return {key: value for key, value in synthesis.items() if key != "json"}


def _digest_of(made):
    return made.digest


class _Client:
    """A Dask client on the scheduler at ``address``, or on a local cluster of ``jobs``
    one-thread workers, closed (with its cluster) on leaving."""
    def __init__(self, address, jobs):
        self.address, self.jobs = address, jobs
        self.cluster = None

    def __enter__(self):
        from distributed import Client, LocalCluster
        if self.address is None:
            # Workers are processes with no memory limit: the tools run as child processes,
            # and a wide design's netlist is large.
            self.cluster = LocalCluster(n_workers=self.jobs, threads_per_worker=1,
                                        processes=True, dashboard_address=":0",
                                        memory_limit=0)
            self.client = Client(self.cluster)
        else:
            try:
                self.client = Client(self.address, timeout="10s")
            except (OSError, TimeoutError) as error:
                raise RuntimeError(f"cannot reach the Dask scheduler at {self.address}: "
                                   f"{error}") from None
        return self.client

    def __exit__(self, *exception):
        self.client.close()
        if self.cluster is not None:
            self.cluster.close()


def _routing(dask_worker):
    """How many runs of nextpnr a worker is executing now."""
    return sum(str(task.key).startswith("place-") for task in dask_worker.state.executing)


class _Running:
    """The runs of nextpnr the workers are executing, asked of them at most every few
    seconds (the scheduler also counts those sent to a worker and waiting there)."""
    def __init__(self, client, interval=2.0):
        self.client, self.interval = client, interval
        self.asked, self.count = None, 0

    def __call__(self):
        now = time.monotonic()
        if self.asked is None or now - self.asked >= self.interval:
            self.asked = now
            try:
                self.count = sum(self.client.run(_routing).values())
            except Exception:
                pass    # a worker lost meanwhile: the count waits for the next question
        return self.count


class _Runs:
    """What the report knows of each design's runs, and the counts behind its progress."""
    def __init__(self, chosen, devices, seeds, router, pnr_timeout, versions, cache,
                 progress, *, cached_only=False, fallback=None):
        self.chosen, self.devices = chosen, devices
        self.router, self.pnr_timeout, self.versions = router, pnr_timeout, versions
        # The router a device's runs of a design move to when one of ``router``'s runs times
        # out, and the devices that have, by design.
        self.fallback = fallback
        self.fallen = [set() for _ in chosen]
        self.cached_only = cached_only
        self.cache, self.progress = cache, progress
        self.counts = [{} for _ in chosen]
        self.digests = {}                        # index: the netlist's digest
        self.outcomes = [{} for _ in chosen]     # device: its cell, whatever the seeds
        self.figures = [{} for _ in chosen]      # (device, seed): a run's result
        # Each design's devices: the report's, those the design is placed on.
        self.devices_of = [tuple(device for device in devices
                                 if design.devices is None or device in design.devices)
                           for design in chosen]
        # ``seeds``: each design's, by index: one tuple for all its devices, or a tuple for
        # each of them.
        self.seeds = [{device: tuple(of[device] if isinstance(of, dict) else of)
                       for device in on} for of, on in zip(seeds, self.devices_of)]
        self.total = sum(len(self.seeds_on(index, device))
                         for index, on in enumerate(self.devices_of) for device in on)
        self.done = self.cached = self.computed = 0
        self.started = self.said = time.monotonic()
        self.running = lambda: 0

    def seeds_on(self, index, device):
        """The seeds of the design of ``index`` on ``device``."""
        return self.seeds[index][device]

    def row_seeds(self, index):
        """The seeds of the design of ``index`` on the devices it has the most on."""
        return max(self.seeds[index].values(), key=len, default=())

    def family_devices(self, index, family):
        """The devices of ``family`` that the design of ``index`` is placed on."""
        return [device for device in self.devices_of[index] if DEVICES[device][0] == family]

    def families(self, index):
        """The families of the devices the design of ``index`` is placed on."""
        return [family for family in FAMILIES if self.family_devices(index, family)]

    def resolve(self, count, last, computed=0, cached=0):
        self.done += count
        self.computed += computed
        self.cached += cached
        self.said = time.monotonic()
        if self.progress is None:
            return
        elapsed = time.monotonic() - self.started
        estimate = (elapsed / self.computed * (self.total - self.done) if self.computed
                    else None)
        running = self.running() if self.done < self.total else 0
        self.progress(Progress(self.done, self.total, self.cached, running, elapsed, estimate,
                               last))

    def valid(self, result):
        """Whether a cached run stands: a run that timed out stands only for a time limit
        no longer than the one it had, or for a report that runs nothing, which shows the
        cache as it is."""
        if result is None:
            return False
        if result.get("outcome") == TIMED_OUT:
            return self.cached_only or (self.pnr_timeout is not None
                                        and self.pnr_timeout <= result["after"])
        return True

    def router_of(self, index, device):
        """The router of a design's runs on ``device``."""
        return self.fallback if device in self.fallen[index] else self.router

    def falls_back(self, index, device, result):
        """Whether ``result``, a run of the report's router, moves the design's runs on
        ``device`` to the fallback router: it timed out, and there is one."""
        return (self.fallback is not None and device not in self.fallen[index]
                and result is not None and result.get("outcome") == TIMED_OUT)

    def too_big_for_router1(self, index, device, counts):
        """Whether a design of ``counts`` goes to the fallback router on ``device`` before any
        run: the report's router is router1, there is a fallback, the design has more than
        :data:`~utfhw.boards.designs.ROUTER1_MOST_LUT4S` LUT4s, and it runs with one seed. A
        design run with every seed (a README row) tries router1 within the time limit first:
        its figures are the README's, and router1 gives the higher Fmax where it finishes."""
        return (self.router == "router1" and self.fallback is not None
                and device not in self.fallen[index] and len(self.seeds_on(index, device)) == 1
                and counts.get("lut4", 0) > ROUTER1_MOST_LUT4S)

    def may_fall_back(self, index, device):
        """Whether a run of the design of ``index`` on ``device`` may yet move it to the
        fallback router: there is one, and a time limit, and it has not moved."""
        return (self.fallback is not None and self.pnr_timeout is not None
                and device not in self.fallen[index])

    def fall_back(self, index, device):
        """Move a design's runs on ``device`` to the fallback router: what its router gave
        there no longer counts, and every seed runs again (the progress counts them anew)."""
        self.fallen[index].add(device)
        for seed in self.seeds_on(index, device):
            self.figures[index].pop((device, seed), None)
        self.total += len(self.seeds_on(index, device))
        self.resolve(0, f"{self.chosen[index].name} on the {device}: {self.router} ran past "
                        f"the time limit, so {self.fallback}")

    def missing(self, index, digest, family, counts):
        """Take the family's ``counts`` and the cached runs; returns the (device, seed) runs
        still to make (with the router :meth:`router_of` says)."""
        name = self.chosen[index].name
        self.counts[index][family] = counts
        missing = []
        for device in self.family_devices(index, family):
            if not fits(counts, device):
                self.outcomes[index][device] = {"outcome": DOES_NOT_FIT}
                self.resolve(len(self.seeds_on(index, device)),
                             f"{name} does not fit the {device}")
                continue
            if self.too_big_for_router1(index, device, counts):
                # No run of router1 was counted, so nothing is taken back.
                self.fallen[index].add(device)
                self.resolve(0, f"{name} on the {device}: {counts['lut4']:,} LUT4s, more "
                                f"than {ROUTER1_MOST_LUT4S:,}, so {self.fallback}")
            elif any(self.falls_back(index, device, result) for result in (
                    self.cache.get(run_key(digest, device, seed, self.router, self.versions))
                    for seed in self.seeds_on(index, device)) if self.valid(result)):
                self.fall_back(index, device)
                self.resolve(len(self.seeds_on(index, device)),
                             f"{name} on the {device}: {self.router} timed out before")
            missing += self.take_cached(index, digest, device)
        return missing

    def take_cached(self, index, digest, device):
        """Take the cached runs of a design on ``device`` with its router there
        (:meth:`router_of`); returns the (device, seed) runs still to make."""
        missing = []
        for seed in self.seeds_on(index, device):
            result = self.cache.get(run_key(digest, device, seed,
                                            self.router_of(index, device), self.versions))
            if self.valid(result):
                self.figures[index][(device, seed)] = result
                self.resolve(1, f"{self.chosen[index].name} on the {device}, seed {seed}: "
                                f"cached", cached=1)
            else:
                missing.append((device, seed))
        return missing

    def fail_family(self, index, family, outcome, error):
        self.counts[index][family] = None
        for device in self.family_devices(index, family):
            self.outcomes[index][device] = {"outcome": outcome, "error": error[-500:]}
            self.resolve(len(self.seeds_on(index, device)),
                         f"{self.chosen[index].name} on the {device}: {outcome}")

    def fail(self, index, runs, error):
        """The (device, seed) ``runs`` of a design failed with ``error``."""
        message = f"{type(error).__name__}: {error}"[:500]
        for device, seed in runs:
            self.figures[index][(device, seed)] = {"outcome": FAILED, "error": message}
        self.resolve(len(runs), f"{self.chosen[index].name}: {len(runs)} runs failed: "
                                f"{message}")

    def finished(self, index, device, seed, result):
        self.figures[index][(device, seed)] = result
        what = (f"{result['fmax']:.1f} MHz" if "fmax" in result else result["outcome"])
        self.resolve(1, f"{self.chosen[index].name} on the {device}, seed {seed}: {what}",
                     computed=1)

    def row(self, index):
        design = self.chosen[index]
        row = {"design": design.name, "spec": design.fields(), "width": design.width,
               "netlist": self.digests.get(index), "router": self.router,
               "seeds": list(self.row_seeds(index)),
               "counts": {family: self.counts[index].get(family)
                          for family in self.families(index)},
               "devices": {}}
        # A device the design is not placed on has no cell; one the report left out is
        # "not run".
        for device in DEVICES:
            if design.devices is not None and device not in design.devices:
                continue
            if device in self.outcomes[index]:
                row["devices"][device] = self.outcomes[index][device]
                continue
            seeds = self.seeds[index].get(device, ())
            runs = [self.figures[index].get((device, seed)) for seed in seeds]
            if device not in self.devices or None in runs:
                row["devices"][device] = {"outcome": NOT_RUN}
                continue
            # A cell of fewer seeds than its row's says which.
            fewer = {} if list(seeds) == row["seeds"] else {"seeds": list(seeds)}
            outcomes = {run.get("outcome") for run in runs} - {None}
            if outcomes:
                # A seed that cannot be placed means the design does not fit; one that ran
                # out of time, had no timing, or failed, leaves the device without a worst
                # seed.
                outcome = next(outcome for outcome in (DOES_NOT_FIT, TIMED_OUT, NO_TIMING,
                                                       FAILED)
                               if outcome in outcomes)
                # Each seed's run goes with it, for the data file to record (a failed one
                # is not kept, and runs again).
                row["devices"][device] = {"outcome": outcome, **fewer, "runs": runs}
                if outcome == FAILED:
                    row["devices"][device]["error"] = next(
                        run["error"] for run in runs if run.get("outcome") == FAILED)
                continue
            worst = min(runs, key=lambda run: run["fmax"])
            row["devices"][device] = {"outcome": "ok", **fewer,
                                      "fmax": [run["fmax"] for run in runs],
                                      "limit": worst.get("critical")}
        for device in self.fallen[index]:
            if device in row["devices"]:
                row["devices"][device]["router"] = self.fallback
        return row


def run_report(chosen, *, devices=tuple(DEVICES), seeds=SEEDS, router="router1",
               pnr_timeout=None, cache=None, scheduler=None, jobs=None, cached_only=False,
               progress=None, every_seed=lambda design, device: True, fallback=None):
    """Implement each of the ``chosen`` designs (:class:`~utfhw.boards.designs.Design`) on
    ``devices`` with ``seeds``, on a Dask cluster, taking what ``cache`` holds.

    Parameters
    ----------
    devices : :class:`tuple` of :class:`str`
        Names of :data:`~utfhw.boards.designs.DEVICES`. A design that names its own
        (:attr:`~utfhw.boards.designs.Design.devices`) is placed on those of them alone, and
        its row has no cell on the others.
    seeds : :class:`tuple` of :class:`int`
        nextpnr's seeds: every one for a design on a device that ``every_seed`` takes, the
        first alone for any other.
    every_seed : callable
        Whether a design is run with every seed on a device, given both (default: all are).
    fallback : :class:`str` or None
        A router that a design's runs on a device move to when a run of ``router`` there runs
        past ``pnr_timeout``: every seed runs again with it, and the device's cell says
        ``"router"``.
    router : :class:`str`
        nextpnr's router, one of :data:`~utfhw.boards.designs.ROUTERS`.
    pnr_timeout : :class:`float` or None
        Seconds after which a run of nextpnr is stopped (the device then "timed out").
    cache : :class:`~utfhw.boards.runcache.RunCache` or None
        Where runs are kept (default: :func:`~utfhw.boards.runcache.default_folder`).
    scheduler : :class:`str` or None
        The address of a running Dask scheduler; ``None`` starts a local cluster of ``jobs``
        workers (default: one per CPU).
    cached_only : :class:`bool`
        Run nothing but the netlists: what the cache lacks is "not run".
    progress : callable or None
        Called with a :class:`Progress` as each run is accounted for.

    Returns
    -------
    :class:`Report`
        Its rows in the order of ``chosen``: ``{"design", "spec", "width", "netlist" (the
        digest of its netlist, ``None`` if it could not be made), "router",
        "counts": {family: {"lut4", "ff", "bram"} or None}, "devices": {device: {"outcome",
        and for "ok": "fmax" per seed, "limit"; for an outcome of its runs, "runs": each
        seed's}}}``, with an outcome of ``"ok"``,
        :data:`~utfhw.boards.implement.DOES_NOT_FIT`, :data:`~utfhw.boards.implement.TIMED_OUT`,
        :data:`~utfhw.boards.implement.SYNTHESIS_FAILED`, :data:`FAILED` (with its
        ``"error"``) or :data:`NOT_RUN`.

    Raises
    ------
    :exc:`ValueError`
        If a device, the router, ``jobs`` or ``pnr_timeout`` is not one the report takes.
    :exc:`RuntimeError`
        If the scheduler cannot be reached, or a worker has other tools' versions.
    """
    for device in devices:
        check_choice("device", device, DEVICES)
    check_choice("router", router, ROUTERS)
    if fallback is not None:
        check_choice("fallback", fallback, ROUTERS)
    if jobs is None:
        jobs = os.cpu_count() or 1
    check_integer("jobs", jobs, minimum=1)
    _check_timeout(pnr_timeout)
    from distributed import as_completed

    cache = RunCache(default_folder()) if cache is None else cache
    families = [family for family in FAMILIES
                if any(DEVICES[device][0] == family for device in devices)]
    versions = tool_versions(families)
    seeds = tuple(seeds)
    seeds_of = [{device: seeds if every_seed(design, device) else seeds[:1]
                 for device in devices} for design in chosen]
    runs = _Runs(chosen, tuple(devices), seeds_of, router, pnr_timeout, versions, cache,
                 progress, cached_only=cached_only,
                 fallback=fallback if fallback != router else None)
    with _Client(scheduler, jobs) as client:
        runs.running = _Running(client)
        waiting = as_completed()
        tags = {}

        def submit(tag, function, *arguments, key, priority, watch=True):
            # Designs with the same netlist (some pairs are the same gateware) share their
            # tasks: a key already awaited gains a tag, not a second future.
            future = client.submit(function, *arguments, key=key, priority=priority,
                                   pure=False)
            if watch:
                if key not in tags:
                    waiting.add(future)
                tags.setdefault(key, []).append(tag)
            return future

        netlists = {}
        for index, design in enumerate(chosen):
            identity = f"{design.name}-{design.fields()}"
            made = submit(None, netlist, design, key=f"netlist-{_short(identity)}",
                          priority=-index, watch=False)
            netlists[index] = made
            submit(("digest", index), _digest_of, made, key=f"digest-{_short(identity)}",
                   priority=-index)
        syntheses = {}
        syntheses_kept = {}
        digests = runs.digests

        def handle(tag, result):
            kind, index = tag[:2]
            if kind == "digest":
                digests[index] = result
                for family in runs.families(index):
                    key = synthesis_key(result, family, versions)
                    kept = cache.get(key)
                    if kept is not None and "failed" in kept:
                        if failure_stands(kept, family):
                            runs.fail_family(index, family, SYNTHESIS_FAILED, kept["failed"])
                            continue
                        kept = None
                    missing = (None if kept is None
                               else runs.missing(index, result, family, kept["counts"]))
                    if missing == []:
                        continue
                    if cached_only:
                        if kept is None:
                            runs.counts[index][family] = None
                            missing = [(device, seed)
                                       for device in runs.family_devices(index, family)
                                       for seed in runs.seeds_on(index, device)]
                        runs.resolve(len(missing), f"{chosen[index].name}: {len(missing)} "
                                                   f"runs not in the cache")
                        continue
                    made = submit(None, synthesise, netlists[index], family, versions,
                                  key=f"synthesise-{key}", priority=-index, watch=False)
                    syntheses[(index, family)] = made
                    submit(("counts", index, family, missing), _counts_of, made,
                           key=f"counts-{key}", priority=-index)
                # Dask keeps the netlist while a synthesis still needs it.
                del netlists[index]
            elif kind == "counts":
                family, missing = tag[2:]
                made = syntheses.pop((index, family))
                # A failure is kept too: Yosys has had its attempts and ABC's (see
                # :func:`~.implement.synthesise`), and the next report need not spend them again.
                cache.put(synthesis_key(digests[index], family, versions), result)
                if "failed" in result:
                    runs.fail_family(index, family, SYNTHESIS_FAILED, result["failed"])
                    return
                if missing is None:
                    missing = runs.missing(index, digests[index], family, result["counts"])
                place(index, family, made, missing)
            else:
                device, seed, key, used = tag[2:]
                cache.put(key, result)
                if used != runs.router_of(index, device):
                    # A run of the router the device has moved from: it counts for nothing.
                    runs.resolve(1, f"{chosen[index].name} on the {device}, seed {seed}: "
                                    f"{used}'s run set aside", computed=1)
                elif runs.falls_back(index, device, result):
                    runs.resolve(1, f"{chosen[index].name} on the {device}, seed {seed}: "
                                    f"{used} timed out", computed=1)
                    runs.fall_back(index, device)
                    _, waited = deferred.pop((index, device), (None, ()))
                    if waited:
                        runs.resolve(len(waited), f"{chosen[index].name} on the {device}: "
                                                  f"{len(waited)} more seeds of {used} not run")
                    family = DEVICES[device][0]
                    place(index, family, syntheses_kept[(index, family)],
                          runs.take_cached(index, digests[index], device))
                else:
                    runs.finished(index, device, seed, result)
                    release(index, device)

        # The seeds of a device that wait for its first run, while that run may yet move the
        # device to the fallback router: on a worker free by then, a second seed of the
        # router that timed out would run to the limit too, and count for nothing.
        deferred = {}

        def place_one(index, device, seed, made):
            used = runs.router_of(index, device)
            key = run_key(digests[index], device, seed, used, versions)
            submit(("run", index, device, seed, key, used), place_and_route, made, device,
                   seed, used, versions, pnr_timeout, key=f"place-{key}", priority=-index)

        def place(index, family, made, missing):
            by_device = {}
            for device, seed in missing:
                by_device.setdefault(device, []).append(seed)
            for device, of in by_device.items():
                if runs.may_fall_back(index, device) and len(of) > 1:
                    deferred[(index, device)] = (made, of[1:])
                    of = of[:1]
                for seed in of:
                    place_one(index, device, seed, made)
            # A device may yet move to the fallback router, whose runs need the synthesis.
            if runs.fallback is not None:
                syntheses_kept[(index, family)] = made

        def release(index, device):
            """Place the seeds that waited for the device's first run."""
            made, waited = deferred.pop((index, device), (None, ()))
            for seed in waited:
                place_one(index, device, seed, made)

        def failed(tag, error):
            kind, index = tag[:2]
            if kind == "digest":
                del netlists[index]
                missing = [(device, seed) for device in runs.devices_of[index]
                           for seed in runs.seeds_on(index, device)]
            elif kind == "counts":
                family, missing = tag[2:]
                syntheses.pop((index, family))
                if missing is None:
                    missing = [(device, seed) for device in runs.family_devices(index, family)
                               for seed in runs.seeds_on(index, device)]
            else:
                device, seed, _, used = tag[2:]
                if used != runs.router_of(index, device):
                    runs.resolve(1, f"{chosen[index].name} on the {device}, seed {seed}: "
                                    f"{used}'s run set aside")
                    return
                missing = [(device, seed)]
                release(index, device)
            runs.fail(index, missing, error)

        for future in _completed(waiting, runs):
            try:
                result = future.result()
            except ToolVersionError as error:
                raise RuntimeError(str(error)) from None
            except Exception as error:
                # A lost worker's tasks run again elsewhere; one that fails every time, or
                # a tool's unknown failure, costs only its own runs.
                for tag in tags.pop(future.key):
                    failed(tag, error)
                continue
            for tag in tags.pop(future.key):
                handle(tag, result)
    return Report([runs.row(index) for index in range(len(chosen))], versions,
                  tuple(devices), tuple(seeds), runs.computed, runs.cached,
                  time.monotonic() - runs.started)


#: Seconds without a finished run after which the progress is said again.
HEARTBEAT = 600


def _completed(waiting, runs):
    """The futures of ``waiting`` (an :class:`~distributed.as_completed`) as they complete;
    while none does, the progress is said every :data:`HEARTBEAT` seconds, since a run of
    nextpnr on a large design can take an hour."""
    while not waiting.is_empty():
        batch = waiting.next_batch(block=False)
        if batch:
            yield from batch
        else:
            time.sleep(0.2)
            if time.monotonic() - runs.said >= HEARTBEAT:
                runs.resolve(0, "still running")


def _short(text):
    return digest(text)[:16]
