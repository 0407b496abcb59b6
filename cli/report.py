"""``utfhw report``: every core implemented on four FPGAs, on a Dask cluster, into the one
results page."""

import argparse
import json
import os
import pathlib
import shlex
import sys

from ..boards.designs import (DEVICES, HEADLINE_SPEC, README_DEVICES, ROUTER1_MOST_LUT4S,
                              SIZED_ABOVE, SIZED_DEVICES)
from ..hdl.forms import CODECS
from ..toolchain.tools import ToolchainError
from .files import check_output_folder, output_file
from .options import fail, import_extra, widths_argument


def seeds_argument(text):
    try:
        seeds = tuple(int(part) for part in text.split(","))
    except ValueError:
        seeds = ()
    if not seeds or any(seed < 1 for seed in seeds) or len(set(seeds)) != len(seeds):
        raise argparse.ArgumentTypeError(f"seeds must be distinct positive integers, not "
                                         f"{text!r}")
    return seeds


def take_recorded_runs(results, path, cache):
    """Put the syntheses and runs that the data file at ``path`` records into ``cache`` where
    it lacks them; returns how many runs of nextpnr it took (none without such a file)."""
    try:
        data = json.loads(path.read_text())
    except FileNotFoundError:
        return 0
    except ValueError as error:
        raise ValueError(f"{path} is not a results data file: {error}") from None
    taken = 0
    try:
        for key, value in results.recorded_runs(data):
            if cache.get(key) is None:
                cache.put(key, value)
                # Of those, runs of nextpnr are any but a synthesis's counts.
                taken += "counts" not in value
    except (KeyError, TypeError, AttributeError, IndexError) as error:
        raise ValueError(f"{path} is not a results data file: {error!r}") from None
    return taken


def add_parser(commands):
    # Counted from the codecs, so that the help stays true when one is added.
    transcoders = len(CODECS) ** 2
    parser = commands.add_parser(
        "report", help=f"implement every core on {len(DEVICES)} FPGAs into one results page",
        description="Synthesise, place and route every core and stage on "
                    f"{', '.join(list(DEVICES)[:-1])} and {list(DEVICES)[-1]} (three nextpnr "
                    "seeds for the README's rows on the README's devices, one for the rest; "
                    "the matrix's wide "
                    f"cores but {HEADLINE_SPEC.source} -> {HEADLINE_SPEC.target}, and "
                    f"its cores wider than {SIZED_ABOVE}, on {', '.join(SIZED_DEVICES)} "
                    "alone), spread over a "
                    "Dask cluster (a local one unless --scheduler is given), and write the "
                    "results page: FILE.md, its data FILE.json and its chart FILE.png. Each "
                    "run is kept in a cache by the digest of the design's netlist, the "
                    "device, the seed, the router and the tools' versions, so a report that "
                    "was stopped, or is run again, runs only what is missing. The runs an "
                    "existing FILE.json records go into the cache first, so a report on "
                    "another machine goes on from the page it replaces.")
    parser.add_argument("-o", "--output", default="results.md", metavar="FILE.md",
                        help="the results page; its data goes beside it as FILE.json and its "
                             "chart as FILE.png (default: results.md)")
    parser.add_argument("--pairs", choices=["matrix", "all", "forms", "headline", "wide",
                                            "validator"],
                        default="matrix",
                        help="designs: the whole matrix (every stage, the Transcoder of every "
                             "pair, the pipelined cores, the validator of each form and the "
                             "wide core of every pair of forms at each of --widths); all "
                             f"stages, the pipelined core and the {transcoders} "
                             "Transcoders; the same with only the Transcoders between the "
                             "forms' plain codecs; "
                             "utf-8 -> utf-16-le only; the wide core for --wide-pairs; or the "
                             "validator of each form (default: matrix)")
    parser.add_argument("--widths", type=widths_argument, default=None, metavar="W,W,...",
                        help="widths of the wide core and the validator (default: 1 to 64 "
                             "for the matrix and --pairs validator, 1,4,8,16,32 for --pairs "
                             "wide)")
    parser.add_argument("--wide-pairs", default=None, metavar="SOURCE:TARGET,...",
                        help="the pairs of the wide core for --pairs wide, e.g. "
                             "utf-8:utf-32-le,utf-32-le:utf-16-le (default: utf-8:utf-16-le)")
    parser.add_argument("--devices", default=None, metavar="DEVICE,...",
                        help=f"implement on these devices only (default: "
                             f"'{','.join(DEVICES)}'); the others are \"not run\"")
    parser.add_argument("--seeds", type=seeds_argument, default=None, metavar="N,N,...",
                        help="nextpnr's seeds for the README's rows on the README's devices "
                             f"({', '.join(README_DEVICES)}); Fmax is the worst of "
                             "them; every other cell takes the first (default: 1,2,3)")
    parser.add_argument("--every-seed", action="store_true",
                        help="run every row with every seed of --seeds, not only the "
                             "README's")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="the address of a running Dask scheduler, e.g. "
                             "tcp://10.0.0.5:8786 (default: start a local cluster)")
    parser.add_argument("--jobs", type=int, default=None,
                        help="workers of the local cluster, each running one tool at a time "
                             "(default: one per CPU)")
    parser.add_argument("--cache", metavar="DIR", default=None,
                        help="where runs are kept (default: ~/.cache/utfhw/report)")
    parser.add_argument("--cached-only", action="store_true",
                        help="synthesise and place nothing but make the page from what the "
                             "cache holds (the netlists are still made, and the tools asked "
                             "their versions); the rest is \"not run\"")
    parser.add_argument("--pnr-timeout", type=float, default=None, metavar="MINUTES",
                        help="stop a run of nextpnr after this long and mark the device "
                             "\"timed out\" for the design; a run that timed out in the "
                             "cache stands for a limit no longer than its own (default: no "
                             "limit, and such runs run again)")
    parser.add_argument("--router", choices=["router1", "router2"], default="router1",
                        help="nextpnr's router: router1 meets timing best; router2 is much "
                             "faster on large designs and gives a lower Fmax "
                             "(default: router1)")
    parser.add_argument("--fallback-router", choices=["router1", "router2"], default=None,
                        help="with --pnr-timeout, route a design's runs on a device with this "
                             "router where a run of --router timed out there, or from the "
                             "start where --router is router1 and the design, run with one "
                             f"seed, has more than {ROUTER1_MOST_LUT4S:,} LUT4s; the cell names "
                             f"it (default: none)")
    parser.add_argument("--readme", metavar="FILE",
                        help="also write the table of figures into this README, between its "
                             "markers")
    return parser


def run(subparser, args):
    def load():
        import distributed  # noqa: F401  (before hours of place and route)
        import matplotlib  # noqa: F401
        from ..boards import designs, results, runcache, runner
        return designs, results, runcache, runner
    designs, results, runcache, runner = import_extra(subparser, "report", "report", load)

    if args.pnr_timeout is not None and not args.pnr_timeout > 0:
        subparser.error(f"--pnr-timeout must be a positive number of minutes, not "
                        f"{args.pnr_timeout:g}")
    if args.jobs is not None and args.jobs < 1:
        subparser.error(f"--jobs must be a positive integer, not {args.jobs}")
    if args.fallback_router is not None and args.pnr_timeout is None:
        subparser.error("--fallback-router needs --pnr-timeout: without a time limit no run "
                        "falls back")
    check_output_folder(subparser, args.output)
    output = pathlib.Path(args.output)
    paths = {"data": output.with_suffix(".json"), "chart": output.with_suffix(".png")}
    options = {"widths": args.widths}
    if args.wide_pairs is not None:
        options["wide_pairs"] = tuple(tuple(pair.split(":", 1))
                                      for pair in args.wide_pairs.split(","))

    def progress(status):
        print(runner.progress_line(status), file=sys.stderr, flush=True)

    try:
        cache = runcache.RunCache(args.cache or runcache.default_folder())
        taken = take_recorded_runs(results, paths["data"], cache)
        if taken:
            print(f"took {taken} runs recorded in {paths['data']} into the cache",
                  file=sys.stderr, flush=True)
        chosen = designs.designs(args.pairs, **options)
        report = runner.run_report(
            chosen,
            devices=(tuple(args.devices.split(",")) if args.devices is not None
                     else tuple(designs.DEVICES)),
            seeds=args.seeds or designs.SEEDS, router=args.router,
            pnr_timeout=None if args.pnr_timeout is None else args.pnr_timeout * 60,
            cache=cache,
            scheduler=args.scheduler, jobs=args.jobs, cached_only=args.cached_only,
            progress=progress,
            every_seed=(lambda design, device: True) if args.every_seed else results.in_readme,
            fallback=args.fallback_router)
        package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        command = shlex.join(["utfhw", "report",
                              *(sys.argv[2:] if sys.argv[1:2] == ["report"] else [])])
        data = results.results_data(report, commit=results.gateware_commit(package),
                                    command=command)
        readme = None
        if args.readme is not None:
            readme = results.update_readme(pathlib.Path(args.readme).read_text(), data)
        with output_file(str(paths["chart"])) as file:
            results.write_chart(data, file)
        with output_file(str(paths["data"])) as file:
            file.write(results.data_text(data).encode())
        with output_file(args.output) as file:
            file.write(results.markdown(data, chart=paths["chart"].name).encode())
        if readme is not None:
            with output_file(args.readme) as file:
                file.write(readme.encode())
    except (ValueError, OSError, ToolchainError, RuntimeError) as error:
        fail(subparser, str(error))
    print(f"wrote {output}, {paths['data']} and {paths['chart']}"
          + (f", and the figures in {args.readme}" if args.readme else ""))
