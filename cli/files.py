"""Inputs read and outputs written as the commands do it."""

import os
import sys
import tempfile


def read_input(path):
    if path == "-":
        return sys.stdin.buffer.read()
    with open(path, "rb") as file:
        return file.read()


def write_output(path, data):
    """Write ``data`` to ``path`` whole or not at all: into a temporary file beside it, renamed
    into place once written (so Ctrl-C never leaves part of an output)."""
    if path == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    folder = os.path.dirname(os.path.abspath(path))
    try:
        file = tempfile.NamedTemporaryFile(dir=folder, prefix=".utfhw-", delete=False)
    except OSError as error:
        # Named for the output the user gave, not the temporary file.
        raise OSError(error.errno, error.strerror, path) from error
    try:
        with file:
            file.write(data)
        os.replace(file.name, path)
    except BaseException:
        os.unlink(file.name)
        raise


def check_output_folder(subparser, path):
    """Stop before a long conversion or run whose output could not be written: ``path``'s
    folder must exist."""
    folder = os.path.dirname(path) or "."
    if path != "-" and not os.path.isdir(folder):
        subparser.exit(1, f"utfhw: error: cannot write {path}: there is no folder {folder}\n")
