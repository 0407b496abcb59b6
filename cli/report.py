"""``utfhw report``: every core implemented on four FPGAs, tabulated."""

import pathlib
import sys
import time

from ..toolchain.tools import ToolchainError
from .files import check_output_folder
from .options import import_extra, widths_argument


def add_parser(commands):
    parser = commands.add_parser(
        "report", help="implement every core and pipeline on four FPGAs and tabulate them",
        description="Synthesise, place and route every core and pipeline on iCE40 UP5K, "
                    "iCE40 HX8K, ECP5-25F and ECP5-85F (three nextpnr seeds each) and write a "
                    "Markdown table of LUT4s, flip-flops, block RAMs and Fmax (the worst seed), "
                    "with a PNG chart beside it. All 64 pipelines take about 20 minutes on "
                    "two cores.")
    parser.add_argument("-o", "--output", default="implementation.md", metavar="FILE.md",
                        help="the Markdown file; the chart goes beside it as FILE.png "
                             "(default: implementation.md)")
    parser.add_argument("--pairs", choices=["all", "forms", "headline", "wide"], default="all",
                        help="pipelines to include: all 64, the 9 between utf-8, utf-16-le and "
                             "utf-32-le, utf-8 -> utf-16-le only, or the wide core at each of "
                             "--widths with GB/s and a chart of GB/s against LUT4s "
                             "(default: all)")
    parser.add_argument("--widths", type=widths_argument, default=None, metavar="W,W,...",
                        help="widths of the wide core for --pairs wide (default: 1,4,8,16,32)")
    parser.add_argument("--wide-pairs", default=None, metavar="SOURCE:TARGET,...",
                        help="the pairs of the wide core for --pairs wide, e.g. "
                             "utf-8:utf-32-le,utf-32-le:utf-16-le (default: utf-8:utf-16-le)")
    parser.add_argument("--devices", default=None, metavar="DEVICE,...",
                        help="implement on these devices only (default: 'iCE40 UP5K,iCE40 "
                             "HX8K,ECP5-25F,ECP5-85F'); with --build-dir, designs already "
                             "implemented there are taken from it, so reports can be put "
                             "together from several runs")
    parser.add_argument("--jobs", type=int, default=None,
                        help="runs of the tools at once: designs side by side, and a design's "
                             "three seeds side by side when fewer designs than jobs are "
                             "left (default: one per CPU)")
    parser.add_argument("--pnr-timeout", type=float, default=None, metavar="MINUTES",
                        help="stop a run of nextpnr after this long and mark the device "
                             "\"timed out\" for the design (default: no limit)")
    parser.add_argument("--router", choices=["router1", "router2"], default="router1",
                        help="nextpnr's router: router1 meets timing best; router2 is much "
                             "faster on large designs (the wide core at width 32 and more) "
                             "and gives a lower Fmax; rows say which was used "
                             "(default: router1)")
    parser.add_argument("--build-dir", metavar="DIR",
                        help="keep the tools' files here (default: a temporary folder)")
    return parser


def run(subparser, args):
    import tempfile

    def load():
        import matplotlib  # noqa: F401  (for the chart, before hours of place and route)
        from ..boards import report
        return report.run_report, report.write_chart, report.write_markdown, report.progress_line
    run_report, write_chart, write_markdown, progress_line = import_extra(
        subparser, "report", "boards", load)

    def progress(done, total, row):
        print(progress_line(done, total, row), file=sys.stderr, flush=True)

    check_output_folder(subparser, args.output)
    output = pathlib.Path(args.output)
    chart = output.with_suffix(".png")
    started = time.monotonic()
    try:
        with tempfile.TemporaryDirectory(prefix="utfhw-report-") as scratch:
            options = {} if args.widths is None else {"widths": args.widths}
            if args.devices is not None:
                options["devices"] = tuple(args.devices.split(","))
            if args.wide_pairs is not None:
                options["wide_pairs"] = tuple(tuple(pair.split(":", 1))
                                              for pair in args.wide_pairs.split(","))
            if args.pnr_timeout is not None:
                if not args.pnr_timeout > 0:
                    subparser.error(f"--pnr-timeout must be a positive number of minutes, not "
                                 f"{args.pnr_timeout:g}")
                options["pnr_timeout"] = args.pnr_timeout * 60
            rows = run_report(args.build_dir or scratch, pairs=args.pairs, jobs=args.jobs,
                              router=args.router, progress=progress, **options)
    except (ValueError, ToolchainError, RuntimeError) as error:
        subparser.exit(1, f"utfhw report: error: {error}\n")
    write_chart(rows, chart)
    command = " ".join(["utfhw report", *(sys.argv[2:] if sys.argv[1:2] == ["report"] else [])])
    write_markdown(rows, output, chart=chart.name, command=command,
                   seconds=time.monotonic() - started)
    print(f"wrote {output} and {chart}")
