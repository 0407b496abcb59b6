"""Progress on long runs: the bar, and durations and sizes as people read them."""

import time


#: Inputs at least this long get a progress bar (when stderr is a terminal or --progress is given).
PROGRESS_THRESHOLD = 4096


def describe_duration(seconds):
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def describe_size(count):
    for limit, unit in ((1e9, "GB"), (1e6, "MB"), (1e3, "kB")):
        if count >= limit:
            return f"{count / limit:.1f} {unit}"
    return f"{count} B"


class ProgressBar:
    """A progress bar on ``stream``: the share of ``total_bytes`` done, the rate and the time
    left. Its clock starts at the first report of progress, so a build or an elaboration before
    the run does not count against the rate."""
    #: The bar on the screen, if one is drawn and unfinished (an interrupt ends its line).
    active = None

    def __init__(self, stream, total_bytes, width=30):
        self._stream = stream
        self._total_bytes = total_bytes
        self._width = width
        self._started = None

    def __call__(self, done, total):
        done_bytes = self._total_bytes * done // total
        now = time.monotonic()
        if self._started is None:
            self._started, self._first_bytes = now, done_bytes
            ProgressBar.active = self
        elapsed = now - self._started
        rate = (done_bytes - self._first_bytes) / elapsed if elapsed > 0 else 0
        left = (f"{describe_duration((self._total_bytes - done_bytes) / rate)} left" if rate and
                done < total else describe_duration(elapsed))
        filled = self._width * done // total
        self._stream.write(f"\r[{'#' * filled}{'.' * (self._width - filled)}] "
                           f"{100 * done // total:3d}% {describe_size(done_bytes)} of "
                           f"{describe_size(self._total_bytes)}, {describe_size(rate)}/s, "
                           f"{left}   ")
        if done == total:
            self._stream.write("\n")
            ProgressBar.active = None
        self._stream.flush()
