"""Inputs read and outputs written as the commands do it."""

import contextlib
import errno
import os
import stat
import sys
import tempfile

from .options import fail


#: Bytes :func:`read_chunks` reads at once.
CHUNK_BYTES = 1 << 20


def read_input(path):
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as file:
        return file.read()


def read_chunks(path, size=CHUNK_BYTES):
    """``path`` (``-`` for standard input) read ``size`` bytes at a time: ``(chunks, length)``,
    ``chunks`` an iterator of :class:`bytes` and ``length`` the input's length where it is a
    regular file, else ``None``. The file is opened now, so a missing one raises
    :exc:`OSError` here rather than when the chunks are read."""
    file = sys.stdin.buffer if path == "-" else open(path, "rb")
    try:
        status = os.fstat(file.fileno())
    except (OSError, ValueError):
        status = None           # a standard input replaced by one with no descriptor
    length = status.st_size if status is not None and stat.S_ISREG(status.st_mode) else None

    def chunks():
        try:
            while chunk := file.read(size):
                yield chunk
        finally:
            if file is not sys.stdin.buffer:
                file.close()
    return chunks(), length


def write_output(path, data):
    """Write ``data`` to ``path`` as a Unix tool does (see :func:`output_file`)."""
    with output_file(path) as file:
        file.write(data)


@contextlib.contextmanager
def output_file(path):
    """A binary file to write ``path``'s new contents to, as a Unix tool writes: ``-`` is
    standard output; a FIFO or a character device is written to directly; a regular file (or a
    new one) is replaced whole or not at all, when the block ends without an exception,
    through a temporary file beside it renamed into place (so an error or Ctrl-C never leaves
    part of an output), with the mode it had, or for a new file the mode the umask gives; a
    symbolic link is written through to its target. Anything else (a folder, a socket, a block
    device) is refused, never replaced: :exc:`IsADirectoryError` or an :exc:`OSError` naming
    ``path``. Standard output, a FIFO or a device keeps what was written before an error."""
    if path == "-":
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    # Through a link to what it names, so that the link stays a link.
    real = os.path.realpath(path)
    try:
        kind = os.stat(real).st_mode
    except FileNotFoundError:
        kind = None
    if kind is not None and (stat.S_ISFIFO(kind) or stat.S_ISCHR(kind)):
        with open(real, "wb") as file:
            yield file
        return
    if kind is not None and stat.S_ISDIR(kind):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    if kind is not None and not stat.S_ISREG(kind):
        raise OSError(errno.EINVAL, "not a regular file, a FIFO or a character device", path)
    mode = stat.S_IMODE(kind) if kind is not None else 0o666 & ~_umask()
    try:
        file = tempfile.NamedTemporaryFile(dir=os.path.dirname(real), prefix=".utfhw-",
                                           delete=False)
    except OSError as error:
        # Named for the output the user gave, not the temporary file.
        raise OSError(error.errno, error.strerror, path) from error
    try:
        with file:
            yield file
            os.fchmod(file.fileno(), mode)
        os.replace(file.name, real)
    except BaseException:
        os.unlink(file.name)
        raise


def _umask():
    """The process's umask (reading it means setting it, so it is set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def check_output_folder(subparser, path):
    """Stop before a long conversion or run whose output could not be written: ``path``'s
    folder must exist."""
    folder = os.path.dirname(path) or "."
    if path != "-" and not os.path.isdir(folder):
        fail(subparser, f"cannot write {path}: there is no folder {folder}")
